/* SPDX-License-Identifier: MIT */
/*
 * Between the transport (ofs_tr.c, ofs_tr_io.c) and its io_uring rings
 * (ofs_tr_uring.c): a request the transport must answer itself, and the
 * rings' life cycle.
 */
#ifndef OSPROF_FS_OFS_TR_URING_H
#define OSPROF_FS_OFS_TR_URING_H

#include "ofs_tr.h"
#include "ofs_tr_proto.h"
#include "ofs_tr_umap.h"

struct ofs_tr_ent;
struct ofs_tr_uring;

/*
 * A request whose reply the transport handles: one to patch (INIT, OPEN,
 * CREATE), or any that came through a ring entry (@ent), whose reply goes
 * back into that entry. Keyed by its unique in the transport's map.
 */
struct ofs_tr_pending {
	struct ofs_tr_unode node;
	uint32_t opcode;
	struct ofs_tr_ent *ent;     /* NULL: it came through /dev/fuse */
};

/* ofs_tr_io.c, for the rings: note @p (its reply will come to the
 * transport). */
void ofs_tr_note(struct ofs_tr *tr, struct ofs_tr_pending *p);
/* ofs_tr.c: the rings could not be registered (-errno @err): fall back, or
 * with io_uring=require stop the daemon. Once. */
void ofs_tr_uring_refused(struct ofs_tr *tr, int err);

/*
 * ofs_tr_uring_new - the rings' state for @nqueues FUSE queues on
 * /dev/fuse @dev_fd of session @se mounted on @mountpoint, at most
 * @max_threads threads (each with its ring) a queue, each queue's first
 * polling its ring up to @poll_ns after a reply (0: none polls), with
 * @pin each thread kept on its queue's CPU. NULL and -ENOMEM in *@err.
 */
struct ofs_tr_uring *ofs_tr_uring_new(struct ofs_tr *tr, struct fuse_session *se,
				      int dev_fd, unsigned nqueues, unsigned max_threads,
				      uint64_t poll_ns, bool pin, const char *mountpoint,
				      int *err);
/* One thread per queue, waiting for INIT's reply. 0 or -errno. */
int ofs_tr_uring_start(struct ofs_tr_uring *u);
/* INIT was answered with @payload_bytes the largest payload: register. */
void ofs_tr_uring_go(struct ofs_tr_uring *u, size_t payload_bytes);
/*
 * ofs_tr_uring_reply - send reply @iov (@count pieces) of the request in
 * @ent, patched first by @patch (when not NULL) on the reply's bytes in
 * the entry: header @h, payload @payload of @len bytes. Returns the
 * reply's length, or -1 with errno set (as writev). Any thread; the entry
 * is the kernel's again once this returns.
 */
ssize_t ofs_tr_uring_reply(struct ofs_tr_ent *ent, const struct iovec *iov, int count,
			   void (*patch)(void *arg, struct ofs_fuse_uring_req_header *h,
					 char *payload, size_t len),
			   void *arg);
/* Every thread leaves (after the request it serves); joined. */
void ofs_tr_uring_stop(struct ofs_tr_uring *u);
/* Close the rings (the kernel cancels their commands) and free; NULL-safe. */
void ofs_tr_uring_free(struct ofs_tr_uring *u);
/* Queues, errors so far, entries held for a later reply now (for ctl;
 * not the threads and entries, which grow with the load). */
void ofs_tr_uring_stats(const struct ofs_tr_uring *u, unsigned *queues, uint64_t *errors,
			unsigned *held);

#endif /* OSPROF_FS_OFS_TR_URING_H */
