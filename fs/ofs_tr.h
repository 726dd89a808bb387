/* SPDX-License-Identifier: MIT */
/*
 * The transport: how requests reach the daemon and replies leave it.
 *
 * Without -o passthrough and -o io_uring there is none: libfuse reads and
 * writes /dev/fuse itself, as it always did. With either, the transport
 * takes libfuse 3.14's reads and writes on /dev/fuse over
 * (fuse_session_custom_io), so that what 3.14 cannot spell can be added to
 * its replies, and libfuse still parses and dispatches every request:
 *  - passthrough (protocol 7.40): the INIT reply asks for FUSE_PASSTHROUGH
 *    with a max_stack_depth of 1, and the reply to an OPEN or CREATE that
 *    the passthrough registered a backing file for (ofs_tr_open_reply)
 *    carries FOPEN_PASSTHROUGH and its backing id: the kernel then reads,
 *    writes, splices and maps that file on the lower file itself;
 *  - FUSE over io_uring (protocol 7.42; ofs_tr_uring.c): the INIT reply
 *    asks for FUSE_OVER_IO_URING, then every request but INIT, FORGET,
 *    BATCH_FORGET and INTERRUPT comes as a completion on one of the rings
 *    and its reply goes back into the same ring entry.
 * Which reply is which: the transport notes the opcode of each request it
 * must patch, by its unique, where it reads the request; the reply's
 * out-header names the unique. No thread-local state: a reply may be
 * written by another thread than the one that read the request (a lock
 * granted later, ofs_lock.c).
 *
 * Its files: ofs_tr.c (its life, ctl's lines), ofs_tr_io.c (the custom
 * I/O), ofs_tr_backing.c (backing ids), ofs_tr_policy.c (what is in
 * force, and why not), ofs_tr_uring.c (the rings), ofs_tr_proto.c and
 * ofs_tr_umap.c (the pure parts: the protocol's bytes, a map by key);
 * ofs_tr_impl.h is what they share.
 */
#ifndef OSPROF_FS_OFS_TR_H
#define OSPROF_FS_OFS_TR_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What the user asked of a feature: -o passthrough, -o passthrough=require. */
enum ofs_tr_want { OFS_TR_OFF, OFS_TR_ASK, OFS_TR_REQUIRE };

/* The two features (for ofs_tr_on and ofs_tr_why). */
enum ofs_tr_feature { OFS_TR_PASSTHROUGH, OFS_TR_IO_URING, OFS_TR__COUNT };
extern const char *const ofs_tr_feature_names[OFS_TR__COUNT];

struct ofs_tr_cfg {
	enum ofs_tr_want want[OFS_TR__COUNT];
	bool writeback;          /* -o writeback: the kernel passes nothing through */
	unsigned max_threads;    /* io_uring: threads per queue at most (>= 1) */
	unsigned poll_us;        /* io_uring: each queue's first thread polls
				  * its ring after a reply, for a window
				  * that adapts (ofs_poll.h) up to this long
				  * but never past OFS_POLL_IDLE_AFTER_NS,
				  * at the normal priority (ofs_tr_uring.c
				  * says why); 0: it waits at once */
	bool pin;                /* io_uring: threads kept on their queue's
				  * CPU, none polling (poll_us ignored) */
	const char *lower;       /* the lower root (absolute): the passthrough probe */
	const char *mountpoint;  /* absolute: io_uring's kicks (ofs_tr_uring.c) */
};

struct ofs_tr;

/*
 * ofs_tr_of - the transport of the daemon whose libfuse userdata is
 * @userdata (the custom I/O callbacks are given that). Defined in
 * ofs_tr_of.c, the one file of the transport that knows struct ofs.
 */
struct ofs_tr *ofs_tr_of(void *userdata);

/*
 * ofs_tr_new - the transport @cfg asks for, checked before mounting:
 * what cannot be had (no CAP_SYS_ADMIN, -o writeback, enable_uring off,
 * no io_uring) is said in one line on stderr and turned off
 * ("osprof-fs: passthrough off: <why>"), or with =require refuses
 * ("osprof-fs: -o passthrough=require: <why>"). NULL after such a
 * refusal or out of memory (said).
 */
struct ofs_tr *ofs_tr_new(const struct ofs_tr_cfg *cfg);
/*
 * ofs_tr_attach - after fuse_session_mount: take @se's reads and writes
 * on /dev/fuse over when a feature is still asked for (nothing otherwise).
 * 0 or -errno (said).
 */
int ofs_tr_attach(struct ofs_tr *tr, struct fuse_session *se);
/*
 * ofs_tr_start - after daemonizing, before serving: the io_uring threads
 * (one per queue; they register the ring entries once INIT is answered).
 * 0 or -errno (said).
 */
int ofs_tr_start(struct ofs_tr *tr);
/* After serving: the io_uring threads leave (each after its request). */
void ofs_tr_stop(struct ofs_tr *tr);
/*
 * ofs_tr_close - before fuse_session_destroy closes /dev/fuse: the rings
 * go (their commands hold /dev/fuse open), and backing ids are no longer
 * closed one by one (closing /dev/fuse drops them all). NULL-safe.
 */
void ofs_tr_close(struct ofs_tr *tr);
void ofs_tr_free(struct ofs_tr *tr);

/* True when @f is in force (asked, and the kernel took it). */
bool ofs_tr_on(const struct ofs_tr *tr, enum ofs_tr_feature f);
/* Why @f is off ("not asked for", "needs CAP_SYS_ADMIN", ...); "" when on. */
const char *ofs_tr_why(const struct ofs_tr *tr, enum ofs_tr_feature f);
/* True when a feature required was refused after mounting: exit 1. */
bool ofs_tr_failed(const struct ofs_tr *tr);
/* ctl's lines: `transport dev|io_uring`, `passthrough on|off (why)`, counts. */
void ofs_tr_describe(const struct ofs_tr *tr, FILE *out);

/*
 * ofs_tr_backing_open - register lower descriptor @fd (a regular file,
 * O_PATH will do: the kernel uses its path, and holds the file it is
 * given as long as the id lives) as a backing file: its id (> 0), or -errno (-EPERM: not allowed, the first
 * such refusal turns passthrough off for the mount, in one line;
 * -ELOOP: the lower file is itself stacked too deep; -EOPNOTSUPP:
 * passthrough is off). Call with the daemon's own identity: the kernel
 * opens the lower file for every opener with the identity it was
 * registered with. Thread-safe.
 */
int ofs_tr_backing_open(struct ofs_tr *tr, int fd);
/* Unregister backing id @id (> 0); nothing after ofs_tr_close. */
void ofs_tr_backing_close(struct ofs_tr *tr, int id);
/*
 * ofs_tr_open_reply - the OPEN or CREATE reply about to be sent with file
 * handle @fh passes its file through to backing id @id: the transport
 * patches it (FOPEN_PASSTHROUGH, the id; never FOPEN_KEEP_CACHE nor
 * FOPEN_DIRECT_IO, which the kernel refuses or undoes with passthrough).
 * Call right before replying; the reply consumes it. 0 or -ENOMEM.
 */
int ofs_tr_open_reply(struct ofs_tr *tr, uint64_t fh, int id);

#endif /* OSPROF_FS_OFS_TR_H */
