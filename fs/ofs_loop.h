/* SPDX-License-Identifier: MIT */
/* The polling session loop (ofs_loop.c); its window rule is ofs_poll.h. */
#ifndef OSPROF_FS_OFS_LOOP_H
#define OSPROF_FS_OFS_LOOP_H

#include "ofs.h"

/*
 * ofs_loop_poll - serve @se with @nthreads workers that poll /dev/fuse for
 * @poll_ns after each request (at SCHED_IDLE) before blocking, and extra
 * non-polling workers, up to @max_threads in all, while every worker is
 * busy. Returns 0 when the session ends (unmount, signal), or -errno.
 */
int ofs_loop_poll(struct fuse_session *se, unsigned nthreads, unsigned max_threads,
		  uint64_t poll_ns);

#endif /* OSPROF_FS_OFS_LOOP_H */
