/* SPDX-License-Identifier: MIT */
/*
 * Private interfaces of osprof-report: inputs (a profile file, a mount, the
 * kernel module's /proc/osprof), output helpers, gnuplot charts, and the
 * text of a comparison, shared by the subcommands (one file each).
 *
 * Conventions: functions return 0 or -errno and put a one-line reason in
 * an (err, errlen) buffer when they can fail on external input; the
 * subcommands turn that into "osprof-report: reason" on stderr and exit
 * status 2 (compare uses 0 and 1 for its answer). Single-threaded.
 */
#ifndef ORP_H
#define ORP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "osp_opt.h"
#include "osp_wfile.h"
#include "osprof/analysis.h"
#include "osprof/profile.h"
#include "osprof/values.h"

#define ORP_PROG "osprof-report"
#define ORP_ERRLEN 1024
/*
 * Why a mount's top.json or by.json is refused with EACCES (osprof-fs's
 * rule, docs/control.md#who-may-read-what): said after the path.
 */
#define ORP_NAMES_PRIVATE "permission denied: it names files, processes or users, " \
	"which only the mount's owner, root and its -o ctl_group may read"
/* Exit statuses: compare's "some differ" is 1; every failure is 2. */
#define ORP_EXIT_OK 0
#define ORP_EXIT_DIFFER 1
#define ORP_EXIT_ERROR 2
/* Layers one input may hold: fuse, fs, syscall, lower, block, irq and
 * a couple spare. */
#define ORP_LAYERS_MAX 8

/* ---- orp_util.c ---------------------------------------------------------- */

/*
 * Print "osprof-report: <message>" on stderr (one line), the message in
 * core's text spelling (osp_esc_text): build it from raw names.
 */
__attribute__((format(printf, 1, 2)))
void orp_error(const char *fmt, ...);
/* A command's exit status: ORP_EXIT_ERROR when @rc (said already) or
 * when stdout fails to flush (said here), else ORP_EXIT_OK. */
int orp_exit_stdout(int rc);
/* Report a usage error of @cmd and return ORP_EXIT_ERROR. */
__attribute__((format(printf, 2, 3)))
int orp_usage_error(const char *cmd, const char *fmt, ...);
/*
 * orp_opts_parse - a subcommand's options, @opts as osp_opt_parse takes
 * them (its 'h' row of kind OSP_OPT_STOP shows @help). 0, optind at the
 * first operand; 1 once the help is shown; -EINVAL with the reason said
 * as @cmd's usage error (an OSP_OPT_CALL says its own).
 */
int orp_opts_parse(const char *cmd, const struct osp_opt *opts, int argc,
		   char **argv, void (*help)(void));
/*
 * Parse option --@name's value @s into @out with core's osp_parse_double
 * (the whole of @s, in [@min, @max]), or say why not. 0 or -EINVAL.
 */
int orp_opt_double(const char *cmd, const char *name, const char *s,
		   double min, double max, double *out);

/*
 * An output file (-o): "-" is stdout; else core's osp_wfile: a regular
 * file is replaced whole by a rename, a device or FIFO written in place.
 */
struct orp_out {
	struct osp_wfile w; /* w.f: where to write; stdout for "-" */
	const char *name;   /* the path as given; NULL for stdout */
};
int orp_out_open(struct orp_out *o, const char *path, char *err, size_t errlen);
/*
 * Close @o once its writer has returned @write_rc: when that is 0, rename
 * it into place; else, or on any stream error, remove the temporary file
 * (the old file stays). 0 or -EIO, with @err.
 */
int orp_out_close(struct orp_out *o, int write_rc, char *err, size_t errlen);

/* Create directory @path if missing (one level); 0 or -errno with @err. */
int orp_mkdir(const char *path, char *err, size_t errlen);

/* Sorting of operations by total latency, largest first (then name). */
int orp_cmp_op_total(const void *a, const void *b);
/* Sum of a profile's latency histograms, every op (for layer views). */
int orp_profile_total(const struct osp_profile *p, struct osp_hist *out);

/* ---- orp_table.c: one table for text and HTML -------------------------- */

#define ORP_TABLE_NOTES 12

/*
 * A table built once, then written as aligned text (columns as wide as
 * their widest cell, escaped by osp_esc_text) or as HTML (osp_esc_html).
 * Building never fails midway: the first error is kept in err and
 * returned by the writers, so callers fill a table without checks.
 */
struct orp_table {
	char *title;             /* a line above it, or NULL */
	const char *const *head; /* ncols column names (borrowed) */
	const char *align;       /* 'l' or 'r' per column (borrowed) */
	size_t ncols;
	size_t nrows, cap;
	size_t ncell;            /* cells filled in the last row */
	char **cells;            /* nrows * ncols, NULL for an empty cell */
	bool *marked;            /* rows the HTML highlights (class diff) */
	size_t nnotes;
	char *notes[ORP_TABLE_NOTES]; /* lines below it */
	int err;                 /* 0, -ENOMEM, or -E2BIG for a misuse */
};

/* @head has one name per character of @align; both must outlive @t. */
void orp_table_init(struct orp_table *t, const char *const *head,
		    const char *align);
void orp_table_fini(struct orp_table *t);
__attribute__((format(printf, 2, 3)))
void orp_table_title(struct orp_table *t, const char *fmt, ...);
/* A line below the table (at most ORP_TABLE_NOTES). */
__attribute__((format(printf, 2, 3)))
void orp_table_note(struct orp_table *t, const char *fmt, ...);
/* Start a row; then one orp_table_cell per column, left to right. */
void orp_table_row(struct orp_table *t, bool marked);
__attribute__((format(printf, 2, 3)))
void orp_table_cell(struct orp_table *t, const char *fmt, ...);
/* Write @t: 0, @t's building error, -ENOMEM or -EIO. */
int orp_table_write_text(const struct orp_table *t, FILE *out);
int orp_table_write_html(const struct orp_table *t, FILE *out);

/* ---- orp_load.c: inputs ------------------------------------------------ */

/* One input of the command line: a file, a mount, or /proc/osprof. */
struct orp_input {
	const char *spec;  /* as given (borrowed from argv) */
	size_t n;          /* profiles, at most one per layer */
	struct osp_profile *prof[ORP_LAYERS_MAX];
};

/*
 * orp_input_load - read @spec: "-" (JSON on stdin), a JSON profile file,
 * a directory mounted by osprof-fs (MOUNT/.osprof/stats.json and every
 * other layer's .json beside it: fuse, syscall, lower, block, irq), a
 * control directory itself or any directory of such layer files, the
 * kernel module's /proc/osprof, or a comma-separated list of these (when
 * @spec as a whole names nothing) making one set. Checksum failures are
 * warned about on stderr, naming the input and the histogram. 0, or
 * -errno with a reason naming @spec (or the part of it) in @err.
 */
int orp_input_load(struct orp_input *in, const char *spec, char *err,
		   size_t errlen);
void orp_input_free(struct orp_input *in);
/*
 * orp_inputs_load - load @n inputs named by @specs into a new array *@out
 * (free with orp_inputs_free), each restricted to @layer when not NULL.
 * 0, or -errno with the first failure's reason in @err.
 */
int orp_inputs_load(char *const *specs, size_t n, const char *layer,
		    struct orp_input **out, char *err, size_t errlen);
/* Free @n inputs; @in may be NULL (a load that failed). */
void orp_inputs_free(struct orp_input *in, size_t n);
/* Require exactly one profile (after selection): 0, or -EINVAL with @err. */
int orp_input_single(const struct orp_input *in, char *err, size_t errlen);

/* ---- orp_values_read.c, orp_values.c: value profiles (-o values) -------- */

#define ORP_VALUES_TABLES_MAX 16
#define ORP_VALUES_OPLEN 32

/* One table: the requests of @op per [latency bucket][value bucket]. */
struct orp_vtable {
	char op[ORP_VALUES_OPLEN];
	enum osp_value_kind kind;
	unsigned nval;     /* value buckets: osp_value_nbuckets(kind) */
	uint64_t *cell;    /* nlat x nval, row-major, owned */
};

struct orp_values {
	unsigned res;      /* latency resolution */
	unsigned nlat;     /* latency buckets: OSP_HIST_NBUCKETS(res) */
	size_t n;
	struct orp_vtable t[ORP_VALUES_TABLES_MAX];
};

/*
 * orp_values_parse - read @len bytes of values.json at @text into @v
 * (zeroed first). 0, or -EINVAL / -ENOMEM with a one-line reason in @err
 * (then @v holds nothing). Free with orp_values_fini.
 */
int orp_values_parse(struct orp_values *v, const char *text, size_t len, char *err,
		     size_t errlen);
void orp_values_fini(struct orp_values *v);
/*
 * orp_values_show - `show --values`: for each input of @specs (a mount, a
 * control or run directory holding values.json, the file itself, or a
 * profile FILE with FILE.values.json beside it), each op's latency peaks
 * and the values each holds, as text or JSON; only the ops in @ops when
 * @nops. Returns the exit status, errors said.
 */
int orp_values_show(char *const *specs, size_t n, bool json, const char *const *ops,
		    size_t nops);

/* ---- orp_layers.c: the layered view of one run --------------------------- */

/*
 * The profiles of one run, one per layer, in the view's order: fuse, fs
 * (the pair whose difference is what FUSE adds), syscall, lower, block,
 * irq, then any other layer as given. Borrowed from the inputs.
 */
struct orp_layered {
	size_t n;
	const struct osp_profile *prof[ORP_LAYERS_MAX];
};

/*
 * orp_layered_gather - the layers of @nin inputs taken as one run. Returns
 * true, with @out filled, when they hold two layers or more and each only
 * once; false when there is no layered view: one layer, or a layer given
 * twice (then *@twice names it, else it is set to NULL).
 */
bool orp_layered_gather(const struct orp_input *in, size_t nin,
			struct orp_layered *out, const char **twice);
/* The position of @layer in the view's order (others after the known). */
size_t orp_layer_rank(const char *layer);
/*
 * Where a profile's layer was taken, for people: its source's
 * "layer_source" ("ebpf", "osprof.ko"), "osprof-fs" for layer fs, else
 * "unrecorded". Into @buf; returns @buf.
 */
char *orp_layer_source(char *buf, size_t len, const struct osp_profile *p);
/* A signed duration "+15.0us", "-200ns", "0ns" into @buf; returns @buf. */
char *orp_fmt_delta(char *buf, size_t len, double ns);

/* The tables of a layered view: the fuse-fs pair, then one per layer. */
struct orp_layered_view {
	size_t n;
	struct orp_table t[ORP_LAYERS_MAX];
};

/*
 * orp_layered_build - the tables of @l, each layer's table holding its
 * @top operations with the most total latency (0: every one of the
 * fuse-fs pair, 10 of the others). 0 or -ENOMEM; free with
 * orp_layered_view_fini either way.
 */
int orp_layered_build(const struct orp_layered *l, size_t top,
		      struct orp_layered_view *v);
void orp_layered_view_fini(struct orp_layered_view *v);
/* The tables, a blank line between two (text); 0 or -errno. */
int orp_layered_write_text(FILE *out, const struct orp_layered_view *v);
int orp_layered_write_html(FILE *out, const struct orp_layered_view *v);
/*
 * "layered": the layers in the view's order with their sources, and the
 * fuse-fs pair's rows (its @top with the most time, 0: all) as numbers,
 * or null without the pair. 0 or -ENOMEM.
 */
struct orp_json;
int orp_layered_write_json(struct orp_json *j, const struct orp_layered *l, size_t top);

/* ---- orp_chart.c, orp_gp.c, orp_irq.c: gnuplot charts ------------------- */

enum orp_fmt { ORP_FMT_PNG, ORP_FMT_SVG, ORP_FMT_PDF, ORP_FMT__COUNT };

/* "png", "svg", "pdf"; parse: 0 or -EINVAL. */
const char *orp_fmt_name(enum orp_fmt f);
int orp_fmt_parse(const char *s, enum orp_fmt *out);

struct orp_chart {
	char *base;  /* file name without extension, unique in the directory */
	char *title; /* what the chart shows, for indexes and HTML */
};

/* The time axis of timeline heat maps. */
enum orp_tl_clock {
	ORP_TL_ELAPSED, /* since the profile's start (the default) */
	ORP_TL_WALL,    /* wall-clock UTC, from the profile's start_unix_ns */
	ORP_TL__COUNT
};

/* A set of chart scripts written into one directory, rendered together. */
struct orp_render {
	const char *dir;
	enum orp_fmt fmt;
	bool scratch;  /* dir is removed afterwards: name no log in errors */
	enum orp_tl_clock tl_clock; /* timelines' time axis (init: elapsed) */
	size_t n, cap;
	struct orp_chart *charts;
};

void orp_render_init(struct orp_render *r, const char *dir, enum orp_fmt fmt);
void orp_render_fini(struct orp_render *r);

/* Each writes DIR/<base>.gp (self-contained, inline data) and registers it. */
int orp_chart_op(struct orp_render *r, const struct osp_profile *p,
		 const struct osp_op *op, char *err, size_t errlen);
int orp_chart_overview(struct orp_render *r, const struct osp_profile *p,
		       size_t top, char *err, size_t errlen);
/* orp_chart_op for every operation with requests, most total time first:
 * the first @top (0: all) with @min_share or more of the layer's time. */
int orp_chart_ops(struct orp_render *r, const struct osp_profile *p,
		  size_t top, double min_share, char *err, size_t errlen);
/* One heat map per operation (most total time first; @top and @min_share
 * as for orp_chart_ops), timeline-LAYER-OP, on r->tl_clock's time axis.
 * Nothing (0) when the profile has no timeline. */
int orp_chart_timeline(struct orp_render *r, const struct osp_profile *p,
		       size_t top, double min_share, char *err, size_t errlen);
/* Overlay of one operation in A and B, shapes normalised to percent. */
int orp_chart_overlay(struct orp_render *r, const struct osp_cmp *c,
		      const struct osp_cmp_item *it, const char *label_a,
		      const char *label_b, char *err, size_t errlen);
/* Every request of each layer, a panel a layer. Nothing when fewer than two. */
int orp_chart_layers(struct orp_render *r, struct osp_profile *const *p,
		     size_t n, char *err, size_t errlen);
/* IRQ bar charts (orp_irq.c); nothing unless @p is the irq layer. */
int orp_chart_irq(struct orp_render *r, const struct osp_profile *p,
		  char *err, size_t errlen);
/* Every chart of one input: per op, overview, timeline, irq, layers,
 * where the time goes. */
int orp_chart_all(struct orp_render *r, const struct orp_input *in,
		  size_t top, char *err, size_t errlen);

/* Run gnuplot ($OSPROF_GNUPLOT or "gnuplot") on every script: 0 or -errno. */
int orp_render_run(struct orp_render *r, char *err, size_t errlen);
/* Path of chart @i's image or script: DIR/<base>.<ext>. Caller frees. */
char *orp_chart_path(const struct orp_render *r, size_t i, const char *ext);

/* ---- orp_compare.c: shared by compare and html --------------------------- */

/* Options of a comparison as given on a command line. */
struct orp_cmp_args {
	struct osp_cmp_opts opts;
	const char *layer; /* compare this layer only, or NULL */
};

/* Compare inputs @a and @b: 0 or -errno with @err. */
int orp_compare_inputs(const struct orp_input *a, const struct orp_input *b,
		       const struct orp_cmp_args *args, struct osp_cmp *out,
		       char *err, size_t errlen);
/* One line saying why item @it was flagged (or set aside). */
void orp_cmp_reason(const struct osp_cmp_item *it, const struct osp_cmp *c,
		    char *buf, size_t len);
/* Unit of a method's score for humans ("octaves" for EMD, else ""). */
const char *orp_cmp_unit(enum osp_dist_method m);
/*
 * orp_cmp_json_layer (orp_cmp_json.c) - one layer of compare --json: an
 * object with its sources, comparability notes and every operation of @c;
 * @a or @b NULL (and @c unused) for a layer only one set has. 0 or -ENOMEM.
 */
struct orp_json;
int orp_cmp_json_layer(struct orp_json *j, const char *layer,
		       const struct osp_profile *a, const struct osp_profile *b,
		       const struct osp_cmp *c);
/* The peaks of @h as show prints them: member "peaks", an array of
 * {lo, hi, lower_ns, upper_ns, mode, count, share, mean_ns}. */
void orp_json_peaks(struct orp_json *j, const struct osp_hist *h);
/* Member @key: one side of an operation (count, sum_ns, min_ns, max_ns,
 * mean_ns, p50_ns, p99_ns, peaks), or null when @op is. */
void orp_json_side(struct orp_json *j, const char *key, const struct osp_op *op);

/* ---- orp_json.c: a streaming JSON writer --------------------------------- */

#define ORP_JSON_DEPTH 16

/*
 * Members are written in order; each takes the key it has in its object,
 * or NULL inside an array. Strings go through osp_esc_json, numbers that
 * are not finite become null. Stream errors stay in @f's error flag.
 */
struct orp_json {
	FILE *f;
	bool compact; /* all on one line (set after init) */
	int depth;
	size_t count[ORP_JSON_DEPTH]; /* members written at each level */
};

void orp_json_init(struct orp_json *j, FILE *f);
/* Init, then open a document: {"format": @format, "version": 1, ... */
void orp_json_doc(struct orp_json *j, FILE *f, const char *format);
void orp_json_obj(struct orp_json *j, const char *key);
void orp_json_arr(struct orp_json *j, const char *key);
/* Close the innermost object ('}') or array (']'). */
void orp_json_end(struct orp_json *j, char c);
/* A string, or null when @val is NULL. */
void orp_json_str(struct orp_json *j, const char *key, const char *val);
void orp_json_u64(struct orp_json *j, const char *key, uint64_t val);
void orp_json_num(struct orp_json *j, const char *key, double val);
void orp_json_bool(struct orp_json *j, const char *key, bool val);
/* @json written as it is: a literal the caller knows is valid. */
void orp_json_raw(struct orp_json *j, const char *key, const char *json);
/* One value of a key/value list as member @key (a string re-escaped, any
 * other literal as it is). */
void orp_json_kv_item(struct orp_json *j, const char *key, const struct osp_kv *kv);
/* A key/value list as an object (string values re-escaped). */
void orp_json_kv(struct orp_json *j, const char *key, const struct osp_kvlist *l);

/* ---- orp_compat.c: comparability of two profiles (core's check) --------- */

/*
 * "comparability: cache differs: auto vs never (kernel caching ...)", one
 * line each difference of @a and @b (osprof/comparable.h), escaped for
 * text (compare) or as HTML list items, per layer both sides have, with
 * their number added to *@count (html). 0 or -ENOMEM.
 */
int orp_compat_text(FILE *out, const struct osp_profile *a,
		    const struct osp_profile *b);
int orp_compat_html(FILE *out, const struct orp_input *a,
		    const struct orp_input *b, size_t *count);
/* The differences as a JSON array member "comparability". 0 or -ENOMEM. */
int orp_compat_json(struct orp_json *j, const struct osp_profile *a,
		    const struct osp_profile *b);
/*
 * orp_compat_merge - before merging the single profiles of @in[0 .. @n):
 * when any differs from the first in what comparability checks, refuse
 * (-EINVAL, each difference in @err as one line's worth) unless @force;
 * with @force, record each input's settings in the first profile's
 * options (key OSP_COMPAT_MERGED_KEY) and keep only the options, clock
 * and layer_source all inputs share. 0, -EINVAL or -ENOMEM.
 */
int orp_compat_merge(struct orp_input *in, size_t n, bool force, char *err,
		     size_t errlen);

/* ---- subcommands ------------------------------------------------------- */

int orp_cmd_show(int argc, char **argv);
int orp_cmd_plot(int argc, char **argv);
int orp_cmd_compare(int argc, char **argv);
int orp_cmd_html(int argc, char **argv);
int orp_cmd_export(int argc, char **argv);
int orp_cmd_merge(int argc, char **argv);

/* ---- orp_top_read.c: osprof-fs's .osprof/top.json ------------------------ */

struct orp_top_entry {
	char *name;            /* a file's path or a process's name (raw bytes) */
	uint64_t pid, uid;     /* processes only */
	uint64_t requests, read_bytes, write_bytes, total_ns, p99_ns;
};

struct orp_top_doc {
	bool enabled;          /* false: the mount has no -o top */
	uint64_t unix_ns;      /* when the daemon wrote it, 0 if not said */
	struct orp_top_entry *files, *procs;
	size_t nfiles, nprocs;
	struct orp_top_entry other_files, other_procs;
};

/*
 * orp_top_parse - read the @len bytes at @text (any bytes) as a top.json
 * document into @d. 0, or -EINVAL / -ENOMEM with a one-line reason in
 * @err (never quoting the input); @d is then empty. Free with
 * orp_top_doc_free (NULL-safe, idempotent).
 */
int orp_top_parse(const char *text, size_t len, struct orp_top_doc *d, char *err,
		  size_t errlen);
void orp_top_doc_free(struct orp_top_doc *d);
/* `osprof-report top` (orp_top.c). */
int orp_cmd_top(int argc, char **argv);

#endif /* ORP_H */
