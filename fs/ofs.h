/* SPDX-License-Identifier: MIT */
/*
 * What every part of osprof-fs shares: the daemon's state (struct ofs),
 * the operations it profiles, and the FUSE version it is written for.
 * Each part declares its own entry points in a header named after it:
 * the passthrough (ofs_pt.h: it answers each request's context and
 * decides nothing about profiling, though its replies record the request
 * and its lower calls are timed), the inode table (ofs_inode.h), caller
 * credentials (ofs_creds.h), the timing wrapper that puts them together
 * (ofs_prof.h), opening each request's context (ofs_req.h), which its
 * reply closes; what is learnt per request (ofs_values.h, ofs_slow.h,
 * ofs_top.h, ofs_by.h), the control directory (ofs_ctl.h), the kernel
 * layers (ofs_kmod.h, ofs_bpf.h, ofs_lower.h), and the daemon's own
 * plumbing (ofs_opts.h, ofs_profile.h, ofs_dump.h, ofs_mount.h,
 * ofs_loop.h, ofs_lock.h).
 */
#ifndef OSPROF_FS_OFS_H
#define OSPROF_FS_OFS_H

#define FUSE_USE_VERSION 314
#include <fuse_lowlevel.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

#include "osprof/clock.h"
#include "osprof/fuse_ops.h"
#include "osprof/set.h"
#include "ofs_opts.h"

/* Every profiled FUSE operation, in osprof/fuse_ops.h's order: its OP
 * rows; names in ofs_op_names (ofs_prof.c). */
#define OFS_OP_ENUM(ID, name, opcode, pt) OFS_OP_##ID,
enum ofs_op {
	OSP_FUSE_OPS(OFS_OP_ENUM, OSP_SKIP, OSP_SKIP)
	OFS_OP__COUNT
};
#undef OFS_OP_ENUM

extern const char *const ofs_op_names[OFS_OP__COUNT];

struct ofs_inode_table;
struct ofs_iofd_table;
struct ofs_ctl;
struct ofs_kmod;
struct ofs_lockq;
struct ofs_req;
struct obp;
struct obp_vt;
struct ofs_bpf_tl;
struct ofs_sigctl;
struct ofs_slow;
struct ofs_top;
struct ofs_values;
struct ofs_by;

/*
 * The daemon. One per process: FUSE passes it to every handler.
 *
 * Where state lives. What outlives requests is here, shared by the
 * workers. What belongs to one request -- its operation, start, caller,
 * inode, size, offset, open file, and the caller's identity taken on --
 * lives in its struct ofs_req (ofs_req.h), on the wrapper's stack, passed
 * down explicitly; no request state is kept per thread. Thread-local are
 * only resources that belong to a worker thread, whichever request it
 * serves:
 *  - the passthrough's aligned I/O buffer (ofs_pt_iobuf, ofs_pt_file.c),
 *    grown on demand, freed when the thread exits;
 *  - this thread's virtual timer in osprof.ko (vt_id, ofs_kmod.c) and its
 *    eBPF virtual-time slot (vt_slot, vt_no, ofs_bpf.c), allocated on the
 *    thread's first timed request, given back when it exits;
 *  - the identity the thread acts as (active, act_uid, ofs_creds.c): the
 *    kernel keeps fsuid per thread, and these mirror it for the inode
 *    table, which reopens with the daemon's own rights while a request
 *    acts as its caller (ofs_creds_suspend). Which identity a request
 *    took on, and so what to give back, is in its ofs_req;
 *  - the shard of -o values' tables the thread adds to (shard_plus1,
 *    ofs_values.c), given at its first record.
 */
struct ofs {
	struct ofs_opts opts;
	struct fuse_session *se;
	struct osp_clock clk;
	struct osp_set *set;         /* the fs-layer profile */
	struct osp_set *lower;       /* the lower layer timed by the daemon
				      * (ofs_lower.h), or NULL */
	struct ofs_inode_table *itab;
	struct ofs_ctl *ctl;
	struct ofs_kmod *kmod;       /* osprof.ko: registration, vtimers */
	struct ofs_lockq *lockq;     /* lock requests waiting (ofs_lock.c) */
	struct obp *bpf;             /* the eBPF layers, NULL when none loaded
				      * (ofs_bpf.c); set before serving */
	struct obp_vt *vt;           /* -o cpu_time from eBPF virtual time, or
				      * NULL (the thread CPU clock) */
	struct ofs_bpf_tl *bpf_tl;   /* the eBPF layers' timeline, with bpf */
	struct ofs_sigctl *sigctl;   /* SIGUSR1's reset (ofs_sigctl.c), or NULL */
	char **bpf_off;              /* why each eBPF layer asked for did not
				      * load (OBP_L__COUNT entries, NULL where
				      * it loaded), for ctl; NULL when all did */
	struct ofs_slow *slow;       /* the slow-request log (ofs_slow.c): made
				      * by -o slow or ctl's first `slow`, kept
				      * until teardown; NULL before */
	uint64_t slow_ns;            /* atomic: requests at least this slow go to
				      * the log; UINT64_MAX: off */
	struct ofs_top *top;         /* the top view's tables (ofs_top.c): NULL until
				      * -o top or ctl's first `top on` sets it
				      * (atomic, once), freed at teardown */
	struct ofs_values *values;   /* -o values' tables, else NULL */
	struct ofs_by *by;           /* profiles per key value (-o by=), or NULL */
	struct ofs_tr *tr;           /* the transport (ofs_tr.h): made before
				      * mounting, freed at teardown */
	struct ofs_iofd_table *iofd; /* -o noopen's I/O descriptors per inode
				      * (ofs_iofd.h), else NULL; made before
				      * serving, freed at teardown */
	uid_t owner_uid;             /* the mounting user: may write ctl */
	gid_t owner_gid;
	bool switch_creds;           /* root with allow_other: act as caller */
	bool direct_io;              /* files opened with direct_io */
	bool keep_cache;
	bool cache_readdir;
	uint64_t start_unix_ns;
	char host[256];
};

static inline struct ofs *ofs_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/*
 * Errors in osprof-fs. Inside, an error is a negative errno: an action
 * returns 0 or -errno, a call that yields a value returns it (>= 0) or
 * -errno (a descriptor, a count), a predicate returns bool, a constructor
 * NULL. It becomes libfuse's positive errno in one place, the reply:
 * ofs_reply_err, which ofs_req_reply_err (ofs_req.h) calls for a request
 * whose context is open, takes it as the code holds it.
 *
 * Who says why: the function that knows the input that failed (a path,
 * an option's value, a module's answer) prints the one line
 * "osprof-fs: ..." naming it, returns -errno, and its comment says so
 * ("said", "on stderr"); its callers print nothing more. A function whose
 * comment does not say so prints nothing, and the caller that gives up
 * says what it was setting up (ofs_main.c's say()). Serving a request or
 * a ctl command, an error goes into the reply; only what the reply
 * cannot carry is printed: external input refused (osprof.ko's text,
 * ofs_kmod.c) and a kernel's broken promise (a forget of more lookups
 * than given, ofs_inode.c, said once).
 */
static inline int ofs_reply_err(fuse_req_t req, int err)
{
	return fuse_reply_err(req, -err);
}

#endif /* OSPROF_FS_OFS_H */
