/* SPDX-License-Identifier: MIT */
/*
 * osprof-fs's settings from the command line (ofs_opts.c): what each
 * option holds, its parser, and the words that name the settings in
 * profiles and in the control file.
 */
#ifndef OSPROF_FS_OFS_OPTS_H
#define OSPROF_FS_OFS_OPTS_H

#include <stdbool.h>
#include <sys/types.h>
#include <stdint.h>
#include "osprof/fuse_ops.h"
#include "ofs_tr.h"

struct ofs;
struct fuse_args;
struct osp_profile;

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
	bool ctl_group_set;    /* -o ctl_group given: ctl_gid may read the */
	gid_t ctl_gid;         /* control files that name files (ofs_ctl.c) */
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
	bool nonempty;         /* -o nonempty: mount over a directory with files */
	bool read_only;        /* -o ro, the kernel's: nothing can be written,
				* ctl neither (SIGUSR1 resets) */
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
	bool syscall_all;      /* -o syscall=all: layer syscall counts every
				* call of the mount's processes, not only
				* those on the mount */
	bool layers_auto;      /* no -o layers: those that load, quietly */
	uint64_t slow_ns;      /* -o slow: log requests this slow; UINT64_MAX off */
	unsigned slow_size;    /* -o slow_size: entries of the slow log */
	bool top;              /* -o top: per-file and per-process tables */
	unsigned top_max;      /* -o top_max: entries of each table */
	enum ofs_by_key by;    /* -o by=KEY; OFS_BY_NONE: off */
	unsigned by_max;       /* -o by_max=N: values with a profile of their own */
	enum ofs_tr_want passthrough; /* -o passthrough[=require] (ofs_tr.h) */
	enum ofs_tr_want io_uring;    /* -o io_uring[=require] */
	bool noopen;           /* -o noopen: the kernel answers opens itself
				* (ofs_iofd.h) */
	bool io_uring_pin;     /* -o io_uring_pin: io_uring threads on their
				* queue's CPU, none polling */
};

/*
 * Parse argv into @fs->opts and @args (what remains for libfuse).
 * Returns 0 to go on, 1 when --help/--version was answered, or -errno
 * after printing a one-line error (said).
 */
int ofs_opts_parse(struct ofs *fs, struct fuse_args *args);
void ofs_opts_free(struct ofs_opts *o);
/*
 * ofs_opts_unknown_said - around fuse_session_new (@on true before it,
 * false after): libfuse's refusal of options it does not know becomes
 * our one line, "osprof-fs: unknown option -o foo (see osprof-fs
 * --help)"; its other messages pass as they are. Only libfuse knows its
 * options (they change between its versions), so the refusal stays its
 * decision. Not thread-safe: for main, before any thread starts.
 */
void ofs_opts_unknown_said(bool on);
const char *ofs_cache_name(enum ofs_cache c);
/* What the CPU histograms hold: "vtimer" (osprof.ko), "ebpf_vtime",
 * "thread_cputime" or "none". */
const char *ofs_cpu_source_name(const struct ofs *fs);
/*
 * With passthrough, the operations of opened files that the kernel does
 * on the lower files itself (reads, writes; splices and mmap's page
 * faults with them), no longer timed in layer fs but in layer syscall.
 */
#define OFS_PASSED_THROUGH_N OSP_FUSE_PASSTHROUGH_N
extern const char *const ofs_passed_through[OFS_PASSED_THROUGH_N];
/*
 * With noopen, the operations that reach the daemon once at most (the
 * first is answered ENOSYS) or never: the kernel answers them itself.
 */
#define OFS_KERNEL_ANSWERED_N 6
extern const char *const ofs_kernel_answered[OFS_KERNEL_ANSWERED_N];
/* Record the settings that shape the profile into @p->options. */
int ofs_opts_describe(const struct ofs *fs, struct osp_profile *p);

#endif /* OSPROF_FS_OFS_OPTS_H */
