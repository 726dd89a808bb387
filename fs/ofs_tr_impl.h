/* SPDX-License-Identifier: MIT */
/*
 * What the transport's files share (not for the rest of the daemon, which
 * has ofs_tr.h): the transport's state, and the calls between its files
 * -- the custom I/O (ofs_tr_io.c), backing files (ofs_tr_backing.c), the
 * features in force and why not (ofs_tr_policy.c), its life (ofs_tr.c).
 */
#ifndef OSPROF_FS_OFS_TR_IMPL_H
#define OSPROF_FS_OFS_TR_IMPL_H

#include <stdatomic.h>

#include "ofs_tr.h"
#include "ofs_tr_proto.h"
#include "ofs_tr_umap.h"
#include "ofs_tr_uring.h"

#define OFS_TR_WHY_LEN 192

struct ofs_tr {
	struct ofs_tr_cfg cfg;
	struct fuse_session *se;
	int dev_fd;                  /* /dev/fuse once attached */
	bool mounted;                /* attached: a refusal now stops the daemon */
	/* Asked for and not (yet) refused; in force once the kernel took it
	 * (INIT). Atomic: read on every open, turned off by any thread. */
	_Atomic bool maybe[OFS_TR__COUNT];
	_Atomic bool on[OFS_TR__COUNT];
	_Atomic bool failed;         /* a feature required was refused */
	_Atomic bool closed;         /* /dev/fuse about to close: no ioctls */
	pthread_mutex_t mu;          /* the reasons */
	char why[OFS_TR__COUNT][OFS_TR_WHY_LEN];
	struct ofs_tr_umap reqs;     /* unique -> struct ofs_tr_pending */
	struct ofs_tr_umap opens;    /* fh -> a backing id (ofs_tr_backing.c) */
	struct ofs_tr_uring *uring;  /* the rings, with io_uring asked */
	_Atomic uint64_t backing_opened, backing_closed, backing_refused, opens_patched;
};

/*
 * ofs_tr_turn_off - feature @f cannot be had: say why (@fmt), once, in
 * one line; with =require the daemon fails (after mounting: it stops, as
 * by SIGTERM, and exits 1). Any thread.
 */
void ofs_tr_turn_off(struct ofs_tr *tr, enum ofs_tr_feature f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* ofs_tr_check_early - what can be told before mounting (ofs_tr_new). */
void ofs_tr_check_early(struct ofs_tr *tr);

/*
 * ofs_tr_backing_probe - after INIT's reply, with passthrough still
 * asked: whether the kernel took FUSE_PASSTHROUGH, by registering the
 * lower root; turns passthrough off when it did not.
 */
void ofs_tr_backing_probe(struct ofs_tr *tr);
/*
 * ofs_tr_backing_patch - an OPEN or CREATE (@opcode) reply's @len bytes
 * after its out-header, at @args: patch it with the backing id
 * ofs_tr_open_reply registered for its file handle, which it consumes.
 */
void ofs_tr_backing_patch(struct ofs_tr *tr, uint32_t opcode, void *args, size_t len);

#endif /* OSPROF_FS_OFS_TR_IMPL_H */
