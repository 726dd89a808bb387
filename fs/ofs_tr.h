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
 */
#ifndef OSPROF_FS_OFS_TR_H
#define OSPROF_FS_OFS_TR_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ofs_fuse_proto.h"

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
				  * its ring up to this long after a reply
				  * (ofs_poll.h); 0: it waits at once */
	const char *lower;       /* the lower root (absolute): the passthrough probe */
};

struct ofs_tr;

/*
 * ofs_tr_of - the transport of the daemon whose libfuse userdata is
 * @userdata (the custom I/O callbacks are given that). Defined by the
 * daemon (ofs_main.c), and by a test's stub.
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

/* ---- a map from a 64-bit key (a unique, a file handle) to a node ---- */
struct ofs_tr_unode {
	uint64_t key;                /* never 0 */
	struct ofs_tr_unode *next;   /* under its bucket's lock */
};
#define OFS_TR_UMAP_BUCKETS 256u
struct ofs_tr_umap {
	struct ofs_tr_bucket {
		pthread_mutex_t mu;
		struct ofs_tr_unode *_Atomic head;
	} b[OFS_TR_UMAP_BUCKETS];
};
void ofs_tr_umap_init(struct ofs_tr_umap *m);
void ofs_tr_umap_destroy(struct ofs_tr_umap *m);
/* Add @n (its key set). Keys are unique: the caller never adds one twice. */
void ofs_tr_umap_put(struct ofs_tr_umap *m, struct ofs_tr_unode *n);
/*
 * Remove and return the node of @key, or NULL. An empty bucket is seen
 * without its lock: a key is looked up only after it was added, by the
 * same thread or one that synchronised with it.
 */
struct ofs_tr_unode *ofs_tr_umap_take(struct ofs_tr_umap *m, uint64_t key);

/* ---- the pure parts, on the protocol's bytes (unit-tested) ---- */
/* The largest reply the transport patches: CREATE's entry and open. */
#define OFS_TR_PATCH_MAX (sizeof(struct fuse_out_header) + sizeof(struct fuse_entry_out) + \
			  sizeof(struct ofs_fuse_open_out))
/*
 * ofs_tr_flatten - copy the @count pieces of @iov into @buf of @cap
 * bytes: the length, or -E2BIG when they do not fit.
 */
ssize_t ofs_tr_flatten(const struct iovec *iov, int count, void *buf, size_t cap);
/*
 * ofs_tr_patch_init - in an INIT reply of @len bytes at @msg (out header
 * and fuse_init_out), add @flags (bits 32-63 go to flags2) and set
 * max_stack_depth to @depth when @flags holds OFS_FUSE_PASSTHROUGH.
 * 0, or -EINVAL for a reply too short to carry flags2 or an error reply.
 */
int ofs_tr_patch_init(void *msg, size_t len, uint64_t flags, uint32_t depth);
/*
 * ofs_tr_open_out - where the fuse_open_out of an OPEN or CREATE reply of
 * @len bytes is (@opcode FUSE_OPEN or FUSE_CREATE, libfuse's @entry_size
 * bytes of entry before it in CREATE's), or NULL when it carries none (an
 * error, a short reply, another opcode).
 */
struct ofs_fuse_open_out *ofs_tr_open_out(void *msg, size_t len, uint32_t opcode,
					  size_t entry_size);
/* Make @o pass through to backing id @id. */
void ofs_tr_patch_open(struct ofs_fuse_open_out *o, int id);
/*
 * ofs_tr_init_in - the kernel's INIT request of @len bytes at @msg: its
 * minor and its flags (flags2 in bits 32-63 when FUSE_INIT_EXT is set).
 * 0 or -EINVAL.
 */
int ofs_tr_init_in(const void *msg, size_t len, uint32_t *minor, uint64_t *flags);
/*
 * ofs_tr_uring_rebuild - the request in a ring entry as /dev/fuse would
 * have given it: the in-header and operation header of entry header @h
 * are copied to just before the payload at @payload (whose @gap bytes
 * before it are the entry's own, at least 40 + 128), so that in-header,
 * operation header and payload lie in one piece. The request's length
 * (its start is @payload minus the headers), or -EINVAL when the kernel's
 * numbers do not add up (lengths, payload_sz over @cap).
 */
ssize_t ofs_tr_uring_rebuild(const struct ofs_fuse_uring_req_header *h, char *payload,
			     size_t gap, size_t cap, char **start);
/*
 * ofs_tr_uring_fill - write reply @iov (@count pieces, the out-header
 * first) into a ring entry: the out-header into @h, the rest into
 * @payload of @cap bytes, payload_sz set. The reply's length, or -E2BIG.
 * The pieces may point into the payload (memmove).
 */
ssize_t ofs_tr_uring_fill(struct ofs_fuse_uring_req_header *h, char *payload, size_t cap,
			  const struct iovec *iov, int count);

#endif /* OSPROF_FS_OFS_TR_H */
