/* SPDX-License-Identifier: MIT */
/*
 * SIGUSR1 resets the profile, as `echo reset > MNT/.osprof/ctl` does
 * (ofs_sigctl.c): on a read-only mount (-o ro) the kernel refuses every
 * write before it reaches the daemon, ctl's too, so a signal is the way
 * left to start the counters again between two runs.
 */
#ifndef OSPROF_FS_OFS_SIGCTL_H
#define OSPROF_FS_OFS_SIGCTL_H

#include "ofs.h"

/*
 * ofs_sigctl_start - take SIGUSR1 (its handler only wakes a thread of
 * ours, which runs the reset). One per process. 0 or -errno.
 */
int ofs_sigctl_start(struct ofs *fs);
/* Ignore SIGUSR1 from now on (its default would end the daemon before
 * its dump) and end the thread; NULL-safe, and safe when
 * ofs_sigctl_start failed or was not called. */
void ofs_sigctl_stop(struct ofs *fs);

#endif /* OSPROF_FS_OFS_SIGCTL_H */
