/* SPDX-License-Identifier: MIT */
/* The polling session loop (ofs_loop.c); its window rule is ofs_poll.h. */
#ifndef OSPROF_FS_OFS_LOOP_H
#define OSPROF_FS_OFS_LOOP_H

#include "ofs.h"

/*
 * ofs_loop_poll - serve @se with @nthreads workers that each poll
 * /dev/fuse after a reply before blocking (not after a request that
 * blocked), for a window that follows the gaps between its requests up
 * to @poll_ns (ofs_poll.h): at the normal priority for its first
 * OFS_POLL_IDLE_AFTER_NS, then at SCHED_IDLE only where the process may
 * leave it again (ofs_poll_may_idle), else still at the normal one; and
 * extra non-polling workers, up to @max_threads in all, while every
 * worker is busy. Returns 0 when the session ends (unmount, signal), or
 * -errno.
 */
int ofs_loop_poll(struct fuse_session *se, unsigned nthreads, unsigned max_threads,
		  uint64_t poll_ns);

#endif /* OSPROF_FS_OFS_LOOP_H */
