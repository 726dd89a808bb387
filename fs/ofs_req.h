/* SPDX-License-Identifier: MIT */
/* A request's context (ofs_req.c): opened by the timing wrapper, closed
 * by its reply, the one place a request is recorded. */
#ifndef OSPROF_FS_OFS_REQ_H
#define OSPROF_FS_OFS_REQ_H

#include <sys/stat.h>
#include <sys/statvfs.h>

#include "ofs.h"
#include "ofs_creds.h"

/*
 * struct ofs_req - one request, from the wrapper's handler to its reply:
 * what it is, who asked, and its timing. The wrapper (ofs_prof.c) makes
 * it on its handler's stack, opens it (ofs_req_open) and passes it down:
 * every passthrough handler takes it in place of libfuse's request, and
 * every reply it sends goes through ofs_req_reply_* (below), which closes it
 * (ofs_req_close) just before the reply leaves. Closing is the one place
 * where anything about a request is recorded, from this struct alone.
 * A request that another thread answers (a lock that must be waited for,
 * ofs_lock.c) is moved off the stack with ofs_req_detach, and that thread
 * closes the copy. Fields other than the timing are set at open and never
 * change; no other thread sees the struct until it is detached.
 */
struct ofs_req {
	fuse_req_t req;        /* libfuse's request; the reply frees it */
	struct ofs *fs;
	enum ofs_op op;
	/* What it is about (0 where the operation has none). */
	fuse_ino_t ino;        /* the inode named: the parent for name ops */
	uint64_t fh;           /* the open file or directory (fuse_file_info.fh:
				* an ofs_file or ofs_dir of the passthrough);
				* 0 for open, create, opendir, which make it */
	uint64_t size_bytes;   /* read, write, readdir, xattr, copy, fallocate */
	int64_t off;           /* offset of read, write, readdir, lseek, ... */
	const char *name;      /* name ops: the name in directory ino (the
				* request's own buffer: valid until the reply) */
	uint64_t done_bytes;   /* bytes a read replied or a write took (set by
				* ofs_req_reply_buf, ofs_req_reply_write; 0 before) */
	/* Who asked (fuse_req_ctx): the caller's thread and identity. */
	pid_t pid;
	uid_t uid;
	gid_t gid;
	struct ofs_creds_saved creds; /* the caller's identity taken on */
	/* Timing, set by ofs_req_open when recording is enabled. */
	bool on;               /* timed, and not recorded yet */
	bool detached;         /* answered by another thread: cpu_ns is final */
	bool vt_on;            /* virtual time is being taken: osprof.ko's timer
				* of this thread runs (vtimers), or eBPF's slot
				* was read into cpu0_ns (cpu_time) */
	uint64_t c0;           /* clock counter at open */
	uint64_t cpu0_ns;      /* thread CPU time at open (cpu_time only), or
				* with eBPF virtual time what it left out */
	uint64_t cpu_ns;       /* detached: the CPU time its worker used */
};
/*
 * ofs_req_open - start @r, whose req, op and what-it-is-about fields are
 * set: fill in the daemon and the caller, start timing it when recording
 * is enabled, and with @as_caller take on the caller's identity (until
 * ofs_req_end). 0, or -errno when the identity could not be taken: reply
 * with it (through ofs_req_reply_err, which closes @r).
 */
int ofs_req_open(struct ofs_req *r, bool as_caller);
/*
 * ofs_req_close - the reply to @r is about to go out: record its latency
 * (and CPU time) now, so a process that reads the profile right after its
 * call returns sees it. Once only; a no-op when @r is not timed. Called
 * by the thread that replies.
 */
void ofs_req_close(struct ofs_req *r);
/*
 * ofs_req_detach - move @r into @to, with the CPU time its worker used so
 * far: another thread will reply, and close @to. @r is left closed (its
 * handler may end it) and keeps the caller's identity for its worker to
 * give back; @to holds none.
 */
void ofs_req_detach(struct ofs_req *r, struct ofs_req *to);
/*
 * ofs_req_end - the handler of @r returns: give back the caller's
 * identity. @r must be closed (replied) or detached by then.
 */
void ofs_req_end(struct ofs_req *r);

/*
 * ofs_req_reply_* - reply to @r: every reply of the passthrough (and of a
 * lock waiter, or of a handler whose context could not open) goes through
 * these. They close @r first (ofs_req_close), so its latency is recorded
 * just before the reply is sent, and a process that reads the profile
 * right after a call returns always sees that call.
 */
#define OFS_REQ_REPLY(name, params, args)               \
	static inline int ofs_req_reply_##name params   \
	{                                               \
		ofs_req_close(r);                       \
		return fuse_reply_##name args;          \
	}
OFS_REQ_REPLY(entry, (struct ofs_req *r, const struct fuse_entry_param *e), (r->req, e))
OFS_REQ_REPLY(create, (struct ofs_req *r, const struct fuse_entry_param *e,
		       const struct fuse_file_info *fi), (r->req, e, fi))
OFS_REQ_REPLY(attr, (struct ofs_req *r, const struct stat *st, double timeout),
	      (r->req, st, timeout))
OFS_REQ_REPLY(readlink, (struct ofs_req *r, const char *link), (r->req, link))
OFS_REQ_REPLY(open, (struct ofs_req *r, const struct fuse_file_info *fi), (r->req, fi))
OFS_REQ_REPLY(statfs, (struct ofs_req *r, const struct statvfs *sv), (r->req, sv))
OFS_REQ_REPLY(xattr, (struct ofs_req *r, size_t count), (r->req, count))
OFS_REQ_REPLY(lseek, (struct ofs_req *r, off_t off), (r->req, off))
#undef OFS_REQ_REPLY

/* The error @err, a negative errno (0: success), as ofs_reply_err takes it. */
static inline int ofs_req_reply_err(struct ofs_req *r, int err)
{
	ofs_req_close(r);
	return ofs_reply_err(r->req, err);
}

/* Data and write replies say how many bytes they carried (done_bytes). */
static inline int ofs_req_reply_write(struct ofs_req *r, size_t count)
{
	r->done_bytes = count;
	ofs_req_close(r);
	return fuse_reply_write(r->req, count);
}

static inline int ofs_req_reply_buf(struct ofs_req *r, const char *buf, size_t size)
{
	r->done_bytes = size;
	ofs_req_close(r);
	return fuse_reply_buf(r->req, buf, size);
}

static inline void ofs_req_reply_none(struct ofs_req *r)
{
	ofs_req_close(r);
	fuse_reply_none(r->req);
}

#endif /* OSPROF_FS_OFS_REQ_H */
