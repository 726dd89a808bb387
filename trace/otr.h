/* SPDX-License-Identifier: MIT */
/*
 * Private interfaces of osprof-trace, the standalone tracer: the eBPF
 * layers (bpf/obp.h) on processes, a cgroup or a command, with no FUSE
 * mount. Options (otr_opts.c), what is traced (otr_target.c: a mount, a
 * cgroup, a started command), and output (otr_out.c: the stats view,
 * intervals as differences of cumulative readings, the JSON files).
 *
 * Conventions: functions return 0 or -errno and put a one-line reason in
 * an (err, errlen) buffer; main turns it into "osprof-trace: reason" on
 * stderr. Single-threaded.
 */
#ifndef OTR_H
#define OTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "obp.h"
#include "osprof/profile.h"
#include "osprof/ring.h"

#define OTR_PROG "osprof-trace"
#define OTR_ERRLEN 512
/* Exit statuses of our own (a traced command's status passes through). */
#define OTR_EXIT_OK 0
#define OTR_EXIT_CANNOT 1 /* not root, no BTF, a layer would not load */
#define OTR_EXIT_USAGE 2  /* bad input: nothing was traced */
#define OTR_PIDS_MAX 64

/* Everything the command line says, with its defaults (otr_opts_init). */
struct otr_opts {
	pid_t pids[OTR_PIDS_MAX]; /* -p: processes to trace */
	size_t npids;
	const char *cgroup;       /* --cgroup: a cgroup v2 directory, or NULL */
	const char *mount;        /* --mount: a directory of the mount, or NULL */
	unsigned layers;          /* --layers as OBP_LAYER_BIT()s */
	bool layers_given;        /* else: syscall, plus fuse on a FUSE mount */
	enum obp_layer first;     /* the first layer named: written to -o FILE */
	uint64_t interval_ns;     /* --interval; 0: only the end */
	const char *out;          /* -o: JSON file, or NULL */
	char **cmd;               /* after --: the command to run, or NULL */
};

/*
 * otr_opts_parse - @argv into @o. 0; 1 when --help or --version was
 * printed (exit 0);
 * -EINVAL with one line in @err naming the bad input.
 */
int otr_opts_parse(struct otr_opts *o, int argc, char **argv, char *err,
		   size_t errlen);

/* ---- otr_target.c ---- */

/* What --mount names: its id and device for the filter, and a FUSE
 * mount's device for layer fuse. */
struct otr_mount {
	int mnt_id;     /* statx's stx_mnt_id */
	dev_t dev;      /* st_dev */
	dev_t fuse_dev; /* st_dev when it is a FUSE mount, else 0 */
};
int otr_mount_resolve(const char *dir, struct otr_mount *m, char *err, size_t errlen);
/* The id bpf_get_current_cgroup_id gives the processes of cgroup v2
 * directory @dir: its inode number in cgroup2fs. */
int otr_cgroup_id(const char *dir, uint64_t *id, char *err, size_t errlen);

/*
 * A command started stopped at the gate: forked, waiting on a pipe so it
 * is traced before it execs (otr_cmd_release lets it go on).
 */
struct otr_cmd {
	pid_t pid;
	int pidfd;   /* readable when it has exited */
	int gate_fd; /* the pipe's write end; -1 once released */
};
int otr_cmd_start(struct otr_cmd *c, char **argv, char *err, size_t errlen);
/* Let it exec. 0 or -errno (the child then ends with status 127). */
int otr_cmd_release(struct otr_cmd *c);
/* Reap it: its exit status, 128 + signal when a signal ended it (the
 * shell's convention), or -errno. Blocks until it has ended. */
int otr_cmd_wait(struct otr_cmd *c);

/* ---- otr_out.c ---- */

/* One loaded layer's readings. */
/*
 * The intervals a layer keeps, at most: 100,000 (a day of -i 1), and
 * OSP_TIMELINE_BOUND_BYTES; the oldest go first, counted in the JSON's
 * timeline (dropped).
 */
#define OTR_INTERVALS_MAX 100000u

struct otr_layer {
	enum obp_layer l;
	struct osp_profile *prev; /* the last cumulative reading, or NULL */
	struct osp_ring *ring;    /* its intervals, deltas; NULL before one */
	uint64_t last_t_ns;       /* when the last interval ended */
};

/*
 * otr_interval - read layer @y now and keep the difference from its last
 * reading as a snapshot at @t_ns (since the start); when @print, write
 * it as a stats view on standard error. 0 or -errno with @err.
 */
int otr_interval(struct obp *b, struct otr_layer *y, uint64_t t_ns,
		 uint64_t interval_ns, bool print, char *err, size_t errlen);
/*
 * otr_finish - the final reading of layer @y (with its snapshots as the
 * timeline when there are any), its stats view on standard error
 * (standard output is the traced command's alone), and its JSON in
 * @path when not NULL. 0 or -errno with @err.
 */
int otr_finish(struct obp *b, struct otr_layer *y, const struct osp_kvlist *source,
	       uint64_t interval_ns, const char *path, char *err, size_t errlen);
void otr_layer_fini(struct otr_layer *y);
/*
 * otr_out_path - the file layer @l is written to for -o @out: @out for
 * the first layer, else @out with ".<layer>" before its extension
 * ("run.json" -> "run.fuse.json"; "run" -> "run.fuse"). A new string,
 * or NULL (-ENOMEM).
 */
char *otr_out_path(const char *out, enum obp_layer l, enum obp_layer first);

#endif /* OTR_H */
