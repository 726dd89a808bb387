/* SPDX-License-Identifier: MIT */
/* Blocking lock requests (ofs_lock.c), waited for off the workers. */
#ifndef OSPROF_FS_OFS_LOCK_H
#define OSPROF_FS_OFS_LOCK_H

#include "ofs.h"

/* The most lock requests that wait at once; more get ENOLCK. */
#define OFS_LOCK_WAITERS_MAX 1024u
/*
 * ofs_lock_init - start waiting lock requests' machinery (a thread that
 * exists while the daemon serves): call after daemonizing, before
 * serving. 0 or -errno.
 */
int ofs_lock_init(struct ofs *fs, unsigned max_waiters);
/*
 * ofs_lock_wait - take request @r, flock(@fd, @op) that would block,
 * off the calling worker: a thread waits for the lock and replies (0
 * when granted, EINTR when the kernel interrupts the request, ENOTCONN
 * when the daemon stops), closing @r's context as it does. @r is detached
 * into the waiter (ofs_req_detach) and left closed. Returns 0 when the
 * request is taken (the caller must not reply), or -ENOLCK / -ENOMEM for
 * the caller to reply; its latency is then recorded already, up to here.
 */
int ofs_lock_wait(struct ofs_req *r, int fd, int op);
/* Stop every waiter (each replies ENOTCONN) and wait until all left. */
void ofs_lock_cancel_all(struct ofs *fs);
/* Cancel all, stop the thread, free; NULL-safe (never initialised). */
void ofs_lock_free(struct ofs *fs);
/* Waiting now, and totals granted, cancelled and refused (for ctl). */
void ofs_lock_stats(struct ofs *fs, unsigned *waiting, uint64_t *granted,
		    uint64_t *cancelled, uint64_t *refused);

#endif /* OSPROF_FS_OFS_LOCK_H */
