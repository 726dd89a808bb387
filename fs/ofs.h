/* SPDX-License-Identifier: MIT */
/*
 * osprof-fs private interfaces: the daemon state, the operation list, and
 * the entry points of each part -- the passthrough (ofs_pt_*, pure, knows
 * nothing of profiling: it answers each request's context, struct
 * ofs_req), the inode table (ofs_inode_*), caller credentials
 * (ofs_creds_*), the control directory (ofs_ctl_*), and the timing wrapper
 * that puts them together (ofs_prof_ops), opening each request's context
 * (ofs_req_*), which its reply closes.
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
#include "osprof/set.h"

/* Every profiled FUSE operation; names in ofs_op_names (ofs_prof.c). */
enum ofs_op {
	OFS_OP_LOOKUP,
	OFS_OP_FORGET,
	OFS_OP_BATCH_FORGET,
	OFS_OP_GETATTR,
	OFS_OP_SETATTR,
	OFS_OP_READLINK,
	OFS_OP_MKNOD,
	OFS_OP_MKDIR,
	OFS_OP_UNLINK,
	OFS_OP_RMDIR,
	OFS_OP_SYMLINK,
	OFS_OP_RENAME,
	OFS_OP_LINK,
	OFS_OP_OPEN,
	OFS_OP_READ,
	OFS_OP_WRITE,
	OFS_OP_FLUSH,
	OFS_OP_RELEASE,
	OFS_OP_FSYNC,
	OFS_OP_OPENDIR,
	OFS_OP_READDIR,
	OFS_OP_READDIRPLUS,
	OFS_OP_RELEASEDIR,
	OFS_OP_FSYNCDIR,
	OFS_OP_STATFS,
	OFS_OP_SETXATTR,
	OFS_OP_GETXATTR,
	OFS_OP_LISTXATTR,
	OFS_OP_REMOVEXATTR,
	OFS_OP_ACCESS,
	OFS_OP_CREATE,
	OFS_OP_FLOCK,
	OFS_OP_FALLOCATE,
	OFS_OP_COPY_FILE_RANGE,
	OFS_OP_LSEEK,
	OFS_OP__COUNT
};

extern const char *const ofs_op_names[OFS_OP__COUNT];

enum ofs_cache { OFS_CACHE_NEVER, OFS_CACHE_AUTO, OFS_CACHE_ALWAYS };

/* What -o by= keeps a profile per value of (ofs_by.c); names in ofs_by_key_names. */
enum ofs_by_key {
	OFS_BY_NONE,
	OFS_BY_PID,
	OFS_BY_COMM,
	OFS_BY_UID,
	OFS_BY_DIR,
	OFS_BY_FILE,
	OFS_BY__COUNT
};
extern const char *const ofs_by_key_names[OFS_BY__COUNT];
/*
 * The most values -o by_max allows: each has a profile set, and each set
 * takes one of the process's pthread keys (glibc has 1024).
 */
#define OFS_BY_MAX 512
#define OFS_BY_MAX_STR "512"

/* Settings from the command line; see ofs_opts.c for each one's meaning. */
struct ofs_opts {
	char *lower;           /* LOWERDIR as given */
	char *mountpoint;      /* MOUNTPOINT as given */
	char *lower_abs;       /* absolute paths, for the profile's source */
	char *mount_abs;
	char *dump;            /* --dump FILE, absolute; NULL for none */
	char *ctl_name;        /* control directory name, default ".osprof" */
	unsigned res;          /* histogram resolution */
	unsigned timeline_ms;  /* 0: timeline off at mount */
	unsigned timeline_size;
	enum ofs_cache cache;
	double entry_timeout;  /* seconds */
	double attr_timeout;
	bool writeback;
	bool cpu_time;         /* CPU-time histogram per request */
	bool vtimers;          /* ... measured by osprof.ko's virtual timers */
	bool noprofile;        /* start with recording disabled */
	bool values;           /* -o values: value profiles (ofs_values.c) */
	bool allow_other;      /* seen among the -o options */
	unsigned fd_cache;     /* O_PATH descriptors kept open at most */
	int readdirplus;       /* -1 auto (kernel decides), 0 off, 1 on */
	/* FUSE's own */
	bool foreground, debug, singlethread;
	unsigned max_threads, max_idle_threads;
	unsigned poll_us;      /* > 0: ofs_loop_poll with this window */
	bool clone_fd;
	unsigned layers;       /* eBPF layers wanted (OBP_LAYER_BIT()s) */
	bool lower_ebpf;       /* -o lower_source=ebpf: lower from eBPF, not
				* from the daemon's own timing */
	bool layers_auto;      /* no -o layers: those that load, quietly */
	uint64_t slow_ns;      /* -o slow: log requests this slow; UINT64_MAX off */
	unsigned slow_size;    /* -o slow_size: entries of the slow log */
	bool top;              /* -o top: per-file and per-process tables */
	unsigned top_max;      /* -o top_max: entries of each table */
	enum ofs_by_key by;    /* -o by=KEY; OFS_BY_NONE: off */
	unsigned by_max;       /* -o by_max=N: values with a profile of their own */
};

struct ofs_inode_table;
struct ofs_ctl;
struct ofs_kmod;
struct ofs_lockq;
struct ofs_req;
struct obp;
struct obp_vt;
struct ofs_bpf_tl;
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
 * lives in its struct ofs_req (below), on the wrapper's stack, passed
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
	struct ofs_slow *slow;       /* the slow-request log (ofs_slow.c): made
				      * by -o slow or ctl's first `slow`, kept
				      * until teardown; NULL before */
	uint64_t slow_ns;            /* atomic: requests at least this slow go to
				      * the log; UINT64_MAX: off */
	struct ofs_top *top;         /* -o top (ofs_top.c), NULL when off */
	struct ofs_values *values;   /* -o values' tables, else NULL */
	struct ofs_by *by;           /* profiles per key value (-o by=), or NULL */
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
 * A circular doubly linked list: a list is its sentinel node, empty when
 * it points at itself. The caller provides the locking.
 */
struct ofs_list {
	struct ofs_list *prev, *next;
};

#define ofs_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

static inline void ofs_list_init(struct ofs_list *head)
{
	head->prev = head->next = head;
}

static inline bool ofs_list_empty(const struct ofs_list *head)
{
	return head->next == head;
}

/* Insert @n at the front of @head. */
static inline void ofs_list_add(struct ofs_list *head, struct ofs_list *n)
{
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	head->next = n;
}

static inline void ofs_list_del(struct ofs_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

/* "/proc/self/fd/N": how path-only calls reach an O_PATH descriptor. */
static inline void ofs_proc_path(char buf[32], int fd)
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

/* ---- who and what, in words (ofs_who.c) ---- */
#define OFS_COMM_LEN 16 /* TASK_COMM_LEN: a process name and its NUL */
/*
 * ofs_comm_of - the name of process @pid (/proc/PID/comm), read once per
 * pid and cached (lock-free; readers never wait). 0 or -errno (-ENOENT,
 * -ESRCH: the process is gone). For key values and slow requests, not
 * for every request.
 */
int ofs_comm_of(pid_t pid, char out[OFS_COMM_LEN]);
/*
 * ofs_inode_path - the path of FUSE inode @ino in the mount ("/" for the
 * root, "/dir/file" below it), from its descriptor's name in /proc; a
 * file deleted since has " (deleted)" after it, one moved out of the tree
 * its own full path. 0 or -errno (-ENAMETOOLONG when @len is short).
 * Reopens the inode when its descriptor is not cached (a few us).
 */
int ofs_inode_path(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len);
/* The labels the views show: a process's name ("(kernel)" for pid 0, "?"
 * for one gone), an inode's path ("..." ending one cut at @len, "?" when
 * it has none). */
void ofs_comm_label(pid_t pid, char out[OFS_COMM_LEN]);
void ofs_inode_label(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len);
/* A path label's marks after its lookup returned @err into @buf of @len:
 * "..." ending it when cut (-ENAMETOOLONG), "?" for any other error. */
void ofs_label_mark(char *buf, size_t len, int err);

/* ---- profiles per key value, -o by=KEY (ofs_by.c) ---- */
/*
 * ofs_by_new - with -o by=, the per-value profile sets (preallocated:
 * recording never makes one) and the key map. 0, or -errno after a
 * one-line reason on stderr. Nothing without -o by.
 */
int ofs_by_new(struct ofs *fs);
/* Free them; NULL-safe. No thread may record any more. */
void ofs_by_free(struct ofs *fs);
/*
 * ofs_by_record - add request @r (@lat_ns, @cpu_ns) to its key value's
 * profile, or to `other` when the values are all taken. Only with -o by
 * (fs->by set); called by ofs_req_close. Lock-free; the first request of
 * a value takes its label (a process name or a path) once.
 */
void ofs_by_record(struct ofs_req *r, uint64_t lat_ns, uint64_t cpu_ns);
/* ctl's reset: every value's profile and other's zeroed; values kept. */
void ofs_by_reset(struct ofs *fs);
/* The control files' predicate: true with -o by. */
bool ofs_by_present(struct ofs *fs, const char *arg);
/* .osprof/by (@arg "text") and by.json (@arg "json"). 0 or -errno. */
int ofs_by_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump FILE: FILE.by.json beside it (by.json's content). 0 or -errno (said). */
int ofs_by_dump(struct ofs *fs);
/*
 * ofs_by_timeline_start - every value's set (and other's) keeps a
 * timeline of @capacity snapshots (cut to what an equal share of the
 * timeline's memory bound holds), all ticked every @interval_ns by one
 * thread. Replaces a running one. 0 or -errno; nothing without -o by.
 */
int ofs_by_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity);
void ofs_by_timeline_stop(struct ofs *fs);
/*
 * ofs_timeline_start - the timeline of every layer this mount keeps: the
 * totals', the eBPF layers', the daemon-timed lower layer's and -o by's
 * values'. Replaces a running one. 0 or -errno. (ofs_ctl.c)
 */
int ofs_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity);
void ofs_timeline_stop(struct ofs *fs);

/* ---- options (ofs_opts.c) ---- */
/*
 * Parse argv into @fs->opts and @args (what remains for libfuse).
 * Returns 0 to go on, 1 when --help/--version was answered, or -1 after
 * printing a one-line error.
 */
int ofs_opts_parse(struct ofs *fs, struct fuse_args *args);
void ofs_opts_free(struct ofs_opts *o);
const char *ofs_cache_name(enum ofs_cache c);
/* What the CPU histograms hold: "vtimer" (osprof.ko), "ebpf_vtime",
 * "thread_cputime" or "none". */
const char *ofs_cpu_source_name(const struct ofs *fs);
/* Record the settings that shape the profile into @p->options. */
int ofs_opts_describe(const struct ofs *fs, struct osp_profile *p);

/* ---- inode table (ofs_inode.c) ---- */
struct ofs_inode;

/*
 * Create the table rooted at directory fd @root_fd (O_PATH) on the lower
 * file system, with @mount_fd an ordinary descriptor of the same
 * directory for open_by_handle_at. Takes ownership of both.
 */
struct ofs_inode_table *ofs_itab_new(int root_fd, int mount_fd,
				     unsigned fd_cache);
void ofs_itab_free(struct ofs_inode_table *t);
/* The lower root's path (/proc's name of its descriptor; "" for "/"). */
const char *ofs_itab_root_path(const struct ofs *fs);
/*
 * ofs_inode_key - a 64-bit identity of FUSE inode @ino's lower file (from
 * its device and inode number: hard links are one), or with @top, of the
 * top-level directory under the mount it was first looked up in (itself
 * for a child of the root; the root's own for the root). Lock-free: both
 * are set before the kernel learns the inode. Not for a forgotten inode.
 */
uint64_t ofs_inode_key(struct ofs *fs, fuse_ino_t ino, bool top);
/* The inode of a FUSE ino (the root for FUSE_ROOT_ID). */
struct ofs_inode *ofs_inode_of(struct ofs *fs, fuse_ino_t ino);
/*
 * ofs_inode_fd - an O_PATH descriptor of @in, reopened from its file
 * handle when it is not cached; pair with ofs_inode_fd_put.
 * Returns the fd or -errno (-ESTALE when the file is gone).
 */
int ofs_inode_fd(struct ofs *fs, struct ofs_inode *in);
void ofs_inode_fd_put(struct ofs *fs, struct ofs_inode *in);
/*
 * ofs_inode_lookup - look @name up in directory @dir, fill @e (ino, attr,
 * timeouts), taking one lookup reference. 0 or -errno.
 */
int ofs_inode_lookup(struct ofs *fs, struct ofs_inode *dir, const char *name,
		     struct fuse_entry_param *e);
/*
 * ofs_inode_open - a new descriptor of @in opened with @flags (as the
 * caller, when acting as one). Returns it or -errno.
 */
int ofs_inode_open(struct ofs *fs, struct ofs_inode *in, int flags);
/* Drop @n lookup references (forget); frees the inode at zero. */
void ofs_inode_forget(struct ofs *fs, struct ofs_inode *in, uint64_t n);
/*
 * An open file or directory of an inode. The table keeps every one on a
 * list so that those the kernel never released (the daemon was stopped
 * with files open: release is asynchronous) are closed by @drop when the
 * table is freed.
 */
struct ofs_open {
	struct ofs_list link;               /* on the table's open list */
	struct ofs_inode *in;
	void (*drop)(struct ofs_open *o);   /* close and free */
};
/* Count @o as an open handle of @in: its descriptor stays cached. */
void ofs_inode_open_get(struct ofs *fs, struct ofs_inode *in,
			struct ofs_open *o, void (*drop)(struct ofs_open *o));
/* The handle is closed: stop counting @o, then drop it (o->drop). */
void ofs_inode_open_put(struct ofs *fs, struct ofs_open *o);
/*
 * Number of inodes and of cached descriptors, whether file handles work,
 * and how many forgets asked for more lookups than held (for ctl).
 */
void ofs_itab_stats(struct ofs *fs, uint64_t *inodes, uint64_t *fds,
		    bool *handles, uint64_t *forget_underflows);

/* ---- caller credentials (ofs_creds.c) ---- */
struct ofs_creds_saved {
	bool switched;
};
/*
 * Act with the caller's fsuid, fsgid and supplementary groups for the rest
 * of this request (only when fs->switch_creds). 0 or -errno.
 */
int ofs_creds_enter(struct ofs *fs, fuse_req_t req, struct ofs_creds_saved *s);
void ofs_creds_leave(struct ofs_creds_saved *s);
/* True while this thread acts as a caller (privileged reopen needs root). */
bool ofs_creds_active(void);
/* Become the daemon again around a privileged call, and back. */
void ofs_creds_suspend(void);
void ofs_creds_resume(void);
/* Remember the daemon's own groups; call once before serving. */
int ofs_creds_init(void);

/* ---- the passthrough (ofs_pt_*.c): one handler per FUSE operation ---- */
void ofs_pt_init(void *userdata, struct fuse_conn_info *conn);
/* Thread-local I/O buffer aligned for O_DIRECT; NULL on -ENOMEM. */
void *ofs_pt_iobuf(size_t len);

/* ---- control directory (ofs_ctl.c) ---- */
int ofs_ctl_new(struct ofs *fs);
void ofs_ctl_free(struct ofs *fs);
/* True when @ino is one of the control directory's inodes. */
static inline bool ofs_ctl_ino(fuse_ino_t ino)
{
	return ino > FUSE_ROOT_ID && ino < 64;
}
/* True for a lookup of the control directory's name in the root. */
bool ofs_ctl_is_root_entry(struct ofs *fs, fuse_ino_t parent, const char *name);
extern const struct fuse_lowlevel_ops ofs_ctl_ops;

/*
 * ofs_profile_build - the current fs-layer profile with every piece of
 * metadata (host, source, clock, options). NULL on -ENOMEM.
 */
struct osp_profile *ofs_profile_build(struct ofs *fs);
/* The same of any of the daemon's sets @set, as layer @layer. */
struct osp_profile *ofs_set_profile(struct ofs *fs, struct osp_set *set, const char *layer);
/* Drop @p's operations that saw no request. */
void ofs_profile_drop_empty(struct osp_profile *p);

/*
 * ofs_profile_set_source - name this mount in @p: its host, and as its
 * source the mount, the lower directory and the daemon's pid; every
 * profile the daemon serves (its own layer, the module's) carries the
 * same. 0 or -ENOMEM.
 */
static inline int ofs_profile_set_source(const struct ofs *fs, struct osp_profile *p)
{
	int err = osp_str_set(&p->host, fs->host);

	err = err ? err : osp_kv_set_str(&p->source, "mount", fs->opts.mount_abs);
	err = err ? err : osp_kv_set_str(&p->source, "lower", fs->opts.lower_abs);
	return err ? err : osp_kv_set_u64(&p->source, "pid", (uint64_t)getpid());
}

/* ---- the kernel module osprof.ko (ofs_kmod.c) ---- */
/*
 * ofs_kmod_new - the module's state in @fs; with -o vtimers, open
 * /dev/osprof_vt. Returns 0, or -errno after a one-line reason on stderr
 * (-ENOENT: -o vtimers without the module). Call before serving.
 */
int ofs_kmod_new(struct ofs *fs);
/* Unregister (if registered), close /dev/osprof_vt, free; NULL-safe. */
void ofs_kmod_free(struct ofs *fs);
/*
 * ofs_kmod_register - when the module is loaded, register this process
 * (`pid <tgid>` to /proc/osprof/ctl) so its lower layer profiles the
 * daemon; call after daemonizing, the pid must be final. Nothing, and no
 * message, without the module; a one-line note when it refuses us.
 */
void ofs_kmod_register(struct ofs *fs);
/* `unpid <tgid>` when registered; errors ignored (the module may be gone). */
void ofs_kmod_unregister(struct ofs *fs);
/* True while /proc/osprof exists. */
bool ofs_kmod_loaded(void);
/* True when /proc/osprof/@layer is readable (the control files' predicate). */
bool ofs_kmod_present(struct ofs *fs, const char *layer);
/*
 * ofs_kmod_gen_text, ofs_kmod_gen_json - read /proc/osprof/@layer now and
 * write it to @out as core's human view or DESIGN.md's JSON profile (layer
 * @layer, this mount's host and source). 0 or -errno: -ENOENT when the
 * module is gone, -EIO for text that does not parse (named on stderr) or
 * a failed write. Thread-safe.
 */
int ofs_kmod_gen_text(struct ofs *fs, const char *layer, FILE *out);
int ofs_kmod_gen_json(struct ofs *fs, const char *layer, FILE *out);
/*
 * ofs_kmod_profile - the profile of @layer from @len bytes of the module's
 * text at @text, with this mount's host and source. NULL with a one-line
 * reason in @err. The caller frees it (osp_profile_free).
 */
struct osp_profile *ofs_kmod_profile(struct ofs *fs, const char *layer,
				     const char *text, size_t len, char *err,
				     size_t errlen);
/* The module's lines of the ctl file (`kmod`, `kmod_registered`, ...). */
void ofs_kmod_describe(struct ofs *fs, FILE *out);
/*
 * ofs_kmod_vt_start - start this thread's private virtual timer (allocated
 * on its first use); only with -o vtimers. True when it runs; on failure
 * the error is counted (vtimer_errors in ctl) and false returned.
 */
bool ofs_kmod_vt_start(struct ofs *fs);
/* Stop it: the virtual ns of the interval just ended (0, counted, on error). */
uint64_t ofs_kmod_vt_stop(struct ofs *fs);

/* ---- the lower layer timed by the daemon (ofs_lower.c) ---- */
/* Its profile set, enabled as the fs layer is. 0 or -ENOMEM. */
int ofs_lower_new(struct ofs *fs);
/* Its profile (the calls made), with this mount's source; NULL on -ENOMEM. */
struct osp_profile *ofs_lower_profile(struct ofs *fs);

/* ---- the eBPF layers (ofs_bpf.c) ---- */
/*
 * ofs_bpf_open - load the eBPF layers -o layers asks for (bpf/obp.h), for
 * this mount only: call after mounting (the mount's device is known),
 * before daemonizing (a failure can still be said). Without -o layers,
 * the layers that load are used (those osprof.ko serves are left to it)
 * and one line says why when none does; a layer named in -o layers that
 * cannot load is an error (-1, said).
 */
int ofs_bpf_open(struct ofs *fs);
/* After daemonizing: the final pid is the one the lower layer traces. */
void ofs_bpf_daemon(struct ofs *fs);
/* Detach and free; NULL-safe. */
void ofs_bpf_close(struct ofs *fs);
/* True when eBPF layer @layer is loaded (the control files' predicate). */
bool ofs_bpf_present(struct ofs *fs, const char *layer);
/*
 * ofs_layer_gen_text, ofs_layer_gen_json - the kernel-side layer @layer
 * in the human view or as JSON: from the eBPF layer when it is loaded,
 * else from osprof.ko (ofs_kmod_gen_*). 0 or -errno.
 */
int ofs_layer_gen_text(struct ofs *fs, const char *layer, FILE *out);
int ofs_layer_gen_json(struct ofs *fs, const char *layer, FILE *out);
/* True when @layer is served by eBPF or by osprof.ko. */
bool ofs_layer_present(struct ofs *fs, const char *layer);
/*
 * ofs_bpf_ctl_begin, ofs_bpf_ctl_end - around a control-directory
 * request's reply: the fuse layer leaves out the requests this thread
 * ends meanwhile, as the fs layer does. Nothing without a fuse layer.
 */
void ofs_bpf_ctl_begin(struct ofs *fs);
void ofs_bpf_ctl_end(struct ofs *fs);
/*
 * ofs_bpf_vt_deduct - what the calling thread's virtual time leaves out
 * so far (off-CPU and interrupt ns), from its eBPF slot, taken on its
 * first call (and given back when the thread exits). False when it has
 * none (all taken: counted in ctl's vt_errors).
 */
bool ofs_bpf_vt_deduct(struct ofs *fs, uint64_t *ns);
/*
 * ofs_bpf_timeline_start, ofs_bpf_timeline_stop - the eBPF layers'
 * timeline, started and stopped with the fs layer's (same interval and
 * capacity; each layer bounded in bytes as the fs layer is). Start: 0,
 * -E2BIG, -ENOMEM, -errno; 0 without eBPF layers. Stop: harmless when
 * none runs.
 */
int ofs_bpf_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity);
void ofs_bpf_timeline_stop(struct ofs *fs);
/* ctl's reset, enable and disable, for the eBPF layers. */
void ofs_bpf_reset(struct ofs *fs);
void ofs_bpf_enable(struct ofs *fs, bool on);
/* The eBPF layers' lines of the ctl file. */
void ofs_bpf_describe(struct ofs *fs, FILE *out);
/* --dump: each eBPF layer beside the fs layer's FILE. 0 or -errno (said). */
int ofs_bpf_dump(struct ofs *fs);

/* ---- blocking lock requests (ofs_lock.c) ---- */
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

/* ---- the polling session loop (ofs_loop.c) ---- */
/*
 * ofs_loop_poll - serve @se with @nthreads workers that poll /dev/fuse for
 * @poll_ns after each request (at SCHED_IDLE) before blocking, and extra
 * non-polling workers, up to @max_threads in all, while every worker is
 * busy. Returns 0 when the session ends (unmount, signal), or -errno.
 */
int ofs_loop_poll(struct fuse_session *se, unsigned nthreads, unsigned max_threads,
		  uint64_t poll_ns);

/* ---- the timing wrapper (ofs_prof.c) ---- */
extern const struct fuse_lowlevel_ops ofs_prof_ops;

/* ---- a request's context (ofs_req.c) ---- */
/*
 * struct ofs_req - one request, from the wrapper's handler to its reply:
 * what it is, who asked, and its timing. The wrapper (ofs_prof.c) makes
 * it on its handler's stack, opens it (ofs_req_open) and passes it down:
 * every passthrough handler takes it in place of libfuse's request, and
 * every reply it sends goes through pt_reply_* (ofs_pt.h), which closes it
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
				* pt_reply_buf, pt_reply_write; 0 before) */
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
 * with it (through pt_reply_err, which closes @r).
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

/* ---- the slow-request log (ofs_slow.c) ---- */
#define OFS_SLOW_SIZE_MAX 65536u
#define OFS_SLOW_MAX_NS 3600000000000ull /* thresholds up to an hour (ctl's too) */
void ofs_slow_log(struct ofs_req *r, uint64_t lat_ns);
/*
 * ofs_slow_record - @r took @lat_ns: log it when it is at least the
 * threshold. Off, or fast, it costs one load and one predictable branch;
 * a slow request takes the wall clock, its process name and path, and the
 * log's mutex (only slow requests do), before its reply leaves.
 */
static inline void ofs_slow_record(struct ofs_req *r, uint64_t lat_ns)
{
	if (__builtin_expect(lat_ns >= __atomic_load_n(&r->fs->slow_ns, __ATOMIC_RELAXED), 0))
		ofs_slow_log(r, lat_ns);
}
/*
 * ofs_slow_set - log requests of at least @ns from now (UINT64_MAX: off),
 * making the log (-o slow_size entries) on first use. Serialised by the
 * caller (start-up, or ctl's mutex). 0 or -ENOMEM.
 */
int ofs_slow_set(struct ofs *fs, uint64_t ns);
/* Empty the log and its dropped count (ctl's reset); NULL-safe. */
void ofs_slow_reset(struct ofs *fs);
/* Entries dropped (overwritten when full) since the last reset. */
uint64_t ofs_slow_dropped(struct ofs *fs);
/* .osprof/slow and slow.json (@arg "text" or "json"). 0 or -errno. */
int ofs_slow_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.slow.json beside FILE, when the log exists. 0 or -errno (said). */
int ofs_slow_dump(struct ofs *fs);
void ofs_slow_free(struct ofs *fs);

/* ---- the top view (ofs_top.c; its key maps are ofs_keys.h's) ---- */
#define OFS_TOP_MAX 65536u
/* -o top: the tables, -o top_max entries each. 0, -ENOMEM. */
int ofs_top_new(struct ofs *fs);
void ofs_top_free(struct ofs *fs);
/*
 * ofs_top_record - count @r (@lat_ns) for its file (r->ino) and its
 * process (r->pid): lock-free, no allocation; a key's first request also
 * names it (path, or process name), before its reply leaves.
 */
void ofs_top_record(struct ofs_req *r, uint64_t lat_ns);
void ofs_top_reset(struct ofs *fs);
/* .osprof/top and top.json (@arg "text" or "json"). 0 or -errno. */
int ofs_top_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.top.json beside FILE, with -o top. 0 or -errno (said). */
int ofs_top_dump(struct ofs *fs);

/* ---- value profiles, -o values (ofs_values.c) ---- */
/* With -o values, allocate the tables (fs->values): 0 or -ENOMEM. */
int ofs_values_new(struct ofs *fs);
/* Free them; harmless without. */
void ofs_values_free(struct ofs *fs);
/*
 * ofs_values_record - count closed request @r of latency @lat_ns in the
 * value tables of its operation (read, write, readdir, readdirplus; the
 * others have none). Only with fs->values. Lock-free, allocates nothing.
 */
void ofs_values_record(const struct ofs_req *r, uint64_t lat_ns);
/* ctl's reset; harmless without. */
void ofs_values_reset(struct ofs *fs);
/* The control files: present with -o values; text and JSON. 0 or -errno. */
bool ofs_values_present(struct ofs *fs, const char *arg);
int ofs_values_gen_text(struct ofs *fs, const char *arg, FILE *out);
int ofs_values_gen_json(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.values.json beside FILE, with -o values. 0 or -errno (said). */
int ofs_values_dump(struct ofs *fs);

#endif /* OSPROF_FS_OFS_H */
