/* SPDX-License-Identifier: MIT */
/*
 * "Where the time goes" (DESIGN.md): per FUSE operation, the layers of one
 * run stacked for the same requests -- the application's calls (layer
 * syscall), the kernel's FUSE request (fuse), the daemon (fs), the
 * daemon's calls on the lower file system (lower), the disk (block) --
 * each step down the stack being the upper layer's time less the lower's.
 * A step is only a subtraction where both layers counted the same
 * requests: their counts agree within ORP_WHERE_TOLERANCE, no other
 * operation shares the calls counted, and the kernel waits for the
 * request. Everywhere else the view says which of these fails, and why.
 *
 * orp_where_map.c holds the one table that ties each FUSE operation to
 * the calls that make it and serve it; orp_where.c computes the view;
 * orp_where_out.c writes it as text, HTML and JSON; orp_chart_where.c
 * draws it.
 */
#ifndef ORP_WHERE_H
#define ORP_WHERE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "orp.h"

/* ---- orp_where_map.c: FUSE operations and the calls around them ---------- */

/* How the application's calls relate to an operation's requests. */
enum orp_app_kind {
	ORP_APP_CALL,  /* a call waits for its request: counts can match */
	ORP_APP_WALK,  /* a step of the path walk of any call that names a path */
	ORP_APP_ASYNC, /* sent by the kernel on its own: no call waits for it */
	ORP_APP__COUNT
};

/*
 * One FUSE operation, as layers fuse and fs name it. Lists of calls are
 * NULL-terminated, NULL for none; a call's name is the system call's
 * (syscall layer, osprof-fs's and eBPF's lower layer: pread64,
 * newfstatat) or the kernel module's VFS entry point (read, getattr).
 */
struct orp_fuse_map {
	const char *op;
	enum orp_app_kind app_kind;
	const char *const *app;        /* the application's calls that make it */
	const char *app_more;          /* why calls may outnumber requests (CALL),
					* why they never match (WALK, ASYNC) */
	const char *fuse_more;         /* why requests may outnumber calls */
	const char *const *lower;      /* lower calls, one of which serves a request */
	const char *const *lower_also; /* lower calls a request may make besides */
	const char *const *disk;       /* block directions it reads or writes */
};

/* The entry of FUSE operation @op, or NULL when the table has none. */
const struct orp_fuse_map *orp_fuse_map_find(const char *op);
/* Whether NULL-terminated @list (may be NULL) holds @name. */
bool orp_names_have(const char *const *list, const char *name);

/* ---- orp_where.c: the view ------------------------------------------------- */

/* Counts agree when they differ by at most this fraction of the larger. */
#define ORP_WHERE_TOLERANCE 0.01
/* Rows and notes of one operation, disks it names. */
#define ORP_WHERE_ROWS 12
#define ORP_WHERE_NOTES 4
#define ORP_WHERE_DISKS 4
#define ORP_WHERE_CALLS 16
/* Operations sharing a step's calls that its note names. */
#define ORP_WHERE_SHARERS 3

/* The levels of the stack, top down. */
enum orp_wlevel {
	ORP_WL_APP,   /* layer syscall: the application's calls */
	ORP_WL_FUSE,  /* layer fuse: the kernel's FUSE request */
	ORP_WL_FS,    /* layer fs: the daemon's handling */
	ORP_WL_LOWER, /* layer lower: the daemon's calls on the lower fs */
	ORP_WL_DISK,  /* layer block: the disk requests of its directions */
	ORP_WL__COUNT
};

/* What a step is. */
enum orp_wverdict {
	ORP_WV_OK,          /* a subtraction: both counted the same requests */
	ORP_WV_COUNTS,      /* the counts differ beyond the tolerance */
	ORP_WV_ASYNC,       /* no application call waits for the request */
	ORP_WV_SHARED,      /* the calls counted serve other operations too */
	ORP_WV_PASSTHROUGH, /* the calls went straight to the lower fs */
	ORP_WV_DISK,        /* the disk is machine-wide, not these requests */
	ORP_WV__COUNT
};

/*
 * Why a step is no subtraction: the fact its note states. The words are
 * orp_where_out.c's; the numbers are the row's (counts) and sharers.
 */
enum orp_wcause {
	ORP_WC_NONE,        /* it subtracts, or the row is a level's */
	ORP_WC_ASYNC,       /* no application call waits for the request */
	ORP_WC_SHARED,      /* the calls counted serve the sharers too */
	ORP_WC_COUNTS,      /* count_up and count_lo are apart past the tolerance */
	ORP_WC_PASSTHROUGH, /* the kernel made the calls on the lower file itself */
	ORP_WC__COUNT
};

/* Another busy operation that a step's calls serve too. */
struct orp_wsharer {
	const char *name;   /* borrowed from a profile */
	uint64_t count;     /* its requests: fuse's, else fs's */
};

/* One level of one operation. */
struct orp_wside {
	bool present;       /* its layer is in the set and counted the op */
	uint64_t count;     /* requests (calls counted once per request) */
	uint64_t sum_ns;    /* their time, with calls a request makes besides */
	struct osp_hist hist; /* every request or call counted */
	size_t ncalls;      /* the calls that make it up (syscall, lower, block) */
	const struct osp_op *call[ORP_WHERE_CALLS]; /* borrowed; the first ones */
};

/*
 * A row: one level's own time, or a step between two levels. Times and
 * shares are NAN where there is none (a step that does not subtract).
 * A step's verdict is what it is; its cause, the fact that verdict rests
 * on (a disk verdict is shared calls or counts apart, at the disk).
 */
struct orp_wrow {
	bool step;
	enum orp_wlevel up, lo;   /* a level row: its level in up (lo = up) */
	enum orp_wverdict verdict;
	enum orp_wcause cause;
	size_t nsharers;          /* ORP_WC_SHARED: how many operations */
	struct orp_wsharer sharer[ORP_WHERE_SHARERS]; /* the first of them */
	bool base;                /* the shares below it are of its time */
	uint64_t count_up, count_lo;
	double mean_ns, total_ns, share;
};

struct orp_wdisk {
	char *dev;                /* as the block layer names it */
	uint64_t count, sum_ns;   /* service: issue to completion */
	uint64_t queue_count, queue_sum_ns; /* insert to issue */
};

struct orp_where_op {
	const char *name;         /* borrowed from a profile or the table */
	const struct orp_fuse_map *map; /* NULL: not in the table */
	bool passthrough;         /* passed through by the kernel (below) */
	struct orp_wside lv[ORP_WL__COUNT];
	size_t nrows;
	struct orp_wrow rows[ORP_WHERE_ROWS];
	size_t nnotes;
	char *notes[ORP_WHERE_NOTES]; /* what no row says: levels left out */
	size_t ndisks;
	struct orp_wdisk disks[ORP_WHERE_DISKS];
	double top_ns;            /* its principal block's total: the order */
};

struct orp_where {
	const struct osp_profile *layer[ORP_WL__COUNT]; /* syscall ... block */
	char *transport;          /* fs's options: "dev", "io_uring", or NULL */
	bool passthrough;         /* fs's options say passthrough is on */
	/*
	 * The operations passed through, timed at the syscall level: fs's
	 * option passed_through ("read,write", as osprof-fs writes it),
	 * when passed_through_layer is "syscall" or absent; "read,write"
	 * for a profile written before osprof-fs said which; NULL when
	 * passthrough is off or the layer named is one the view does not
	 * stack. Owned.
	 */
	char *passed_through;
	size_t n;
	struct orp_where_op *ops; /* most time first */
};

/*
 * orp_where_build - the view of the layers @l: every FUSE operation with
 * requests in fuse or fs (and, under passthrough, one the application
 * made that passes through: passed_through above), most time first. 0;
 * -ENOENT when there is no view (neither fuse nor fs, or no other
 * level); -ENOMEM. Free with orp_where_fini either way.
 */
int orp_where_build(const struct orp_layered *l, struct orp_where *w);
void orp_where_fini(struct orp_where *w);
/* The layers present, "syscall, fuse, fs, lower, block", into @buf. */
char *orp_where_layers(char *buf, size_t len, const struct orp_where *w);
/* What a row is, for people: "FUSE transport and queueing". */
const char *orp_wrow_what(const struct orp_where *w, const struct orp_wrow *r,
			  char *buf, size_t len);
/* The layer of a level, "syscall" ... "block". */
const char *orp_wlevel_layer(enum orp_wlevel lv);
/* "ok", "counts", "async", "shared", "passthrough", "disk". */
const char *orp_wverdict_name(enum orp_wverdict v);

/*
 * The principal block of @op, where the one-line summary and the chart
 * take its shares from: the run of rows from a base through the steps
 * that subtract, the longest (the first of equals). *@first, *@end: its
 * rows; *@open: its last level has levels below it that do not subtract
 * (its share holds theirs). False when no row has a share.
 */
bool orp_where_block(const struct orp_where_op *op, size_t *first, size_t *end,
		     bool *open);

/* ---- orp_where_out.c --------------------------------------------------- */

/*
 * The view as tables: the summary (an operation a row: shares of its
 * principal block) then one table per operation (@top: the first @top
 * operations, 0: all; @ops: only these @nops names, when @nops). Into
 * @v, freed by orp_where_view_fini; 0 or -ENOMEM.
 */
struct orp_where_view {
	size_t n;
	struct orp_table *t;      /* [0]: the summary */
	size_t *op;               /* t[i]'s operation, for i >= 1 */
};
int orp_where_view_build(const struct orp_where *w, size_t top,
			 const char *const *ops, size_t nops,
			 struct orp_where_view *v);
void orp_where_view_fini(struct orp_where_view *v);
/* The text: a heading line, what it shows, the tables. 0 or -errno. */
int orp_where_write_text(FILE *out, const struct orp_where *w,
			 const struct orp_where_view *v);
/*
 * orp_where_write_summary - the one table of @w (its operations chosen as
 * orp_where_view_build chooses them) under a banner, as show prints it
 * first. 0, -ENOMEM, -EIO.
 */
int orp_where_write_summary(FILE *out, const struct orp_where *w, size_t top,
			    const char *const *ops, size_t nops);
/* The paragraph that says how to read it, for HTML (escaped here). */
void orp_where_html_intro(FILE *out, const struct orp_where *w);
/* "where": the view as numbers (orp_where_view_build's selection). */
int orp_where_write_json(struct orp_json *j, const struct orp_where *w,
			 size_t top, const char *const *ops, size_t nops);

/* ---- orp_chart_where.c ------------------------------------------------- */

/*
 * The view's charts: `where`, the principal block of each of the first
 * @top operations (0: 12) as a bar of shares; `where-OP`, per operation
 * of the first @per_op (0: every one with two levels or more), the
 * distribution of each level in a panel of its own, top down, on one
 * latency axis.
 */
int orp_chart_where(struct orp_render *r, const struct orp_where *w, size_t top,
		    char *err, size_t errlen);
int orp_chart_where_ops(struct orp_render *r, const struct orp_where *w,
			size_t per_op, char *err, size_t errlen);
/* `where-OP` of one operation: nothing when it has fewer than two levels. */
int orp_chart_where_op(struct orp_render *r, const struct orp_where_op *op,
		       char *err, size_t errlen);
/* Both, for the layers of @in when they make a view (else nothing, 0). */
int orp_chart_where_input(struct orp_render *r, const struct orp_input *in,
			  size_t per_op, char *err, size_t errlen);

#endif /* ORP_WHERE_H */
