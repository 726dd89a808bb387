// SPDX-License-Identifier: MIT
/*
 * "Where the time goes" written out (orp_where.h): a summary of one row
 * per operation -- the shares of its principal block, the longest run of
 * steps that subtract -- and per operation a table of every row, with
 * the counts of both sides of each step and, where a step is no
 * subtraction, a numbered note saying why. The tables are orp_table's,
 * so the text of show and the HTML of html are the same rows; show
 * --format json writes the same numbers.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orp_where.h"
#include "osprof/escape.h"
#include "osprof/format.h"

/* ---- cells ------------------------------------------------------------------ */

/* A duration that may be negative (a step where the lower layer took more). */
static char *fmt_signed(char *buf, size_t len, double ns)
{
	char b[16];

	if (ns < 0) {
		snprintf(buf, len, "-%s", osp_fmt_ns(b, sizeof(b), -ns));
		return buf;
	}
	return osp_fmt_ns(buf, len, ns);
}

static void share_text(char *buf, size_t len, double share)
{
	if (isnan(share))
		snprintf(buf, len, "-");
	else if (fabs(share) >= 0.9995 || share == 0.0)
		snprintf(buf, len, "%.0f%%", 100.0 * share);
	else
		snprintf(buf, len, "%.*f%%", fabs(share) < 0.1 ? 1 : 0, 100.0 * share);
}

/* "read 35424, pread64 432924": the calls of a level, into @buf. */
static char *calls_text(char *buf, size_t len, const struct orp_wside *s)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->ncalls && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s %" PRIu64, i ? ", " : "",
				      s->call[i]->name, s->call[i]->lat.count);
	return buf;
}

/* "counted: syscall read 35424, pread64 432924; lower pread64 468322" */
static void calls_note(struct orp_table *t, const struct orp_where_op *op)
{
	char text[1024], calls[512];
	size_t o = 0;

	for (int lv = 0; lv < ORP_WL__COUNT && o < sizeof(text); lv++)
		if (op->lv[lv].ncalls)
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s %s", o ? "; " : "counted: ",
					      orp_wlevel_layer((enum orp_wlevel)lv),
					      calls_text(calls, sizeof(calls), &op->lv[lv]));
	if (o)
		orp_table_note(t, "%s", text);
}

/* ---- why a step is no subtraction -------------------------------------------- */

/* Why the counts of a step differ, in the words of the levels. */
static const char *count_cause(const struct orp_where_op *op, const struct orp_wrow *r)
{
	const struct orp_fuse_map *m = op->map;
	bool more_up = r->count_up > r->count_lo;

	if (r->up == ORP_WL_APP) {
		if (more_up)
			return m && m->app_more ? m->app_more
						: "calls the kernel answers without FUSE (its caches), or made on files elsewhere";
		return m && m->fuse_more ? m->fuse_more : "requests that no call counted here made";
	}
	if (r->lo == ORP_WL_DISK)
		return "page-cache hits never reach the disk; readahead, writeback and other processes' requests do";
	if (r->lo == ORP_WL_LOWER)
		return more_up ? "requests answered without that lower call (a cached inode, an error)"
			       : "more than one lower call per request";
	return more_up ? "requests the daemon did not time (its control directory), or layers reset at different times"
		       : "layers reset at different times";
}

/* "opendir (1888 requests), create (3 requests), and 2 more operations" */
static void sharers_text(FILE *f, const struct orp_wrow *r)
{
	size_t named = r->nsharers < ORP_WHERE_SHARERS ? r->nsharers : ORP_WHERE_SHARERS;

	for (size_t i = 0; i < named; i++)
		fprintf(f, "%s%s (%" PRIu64 " requests)", i ? ", " : "", r->sharer[i].name,
			r->sharer[i].count);
	if (r->nsharers > named)
		fprintf(f, ", and %zu more operation%s", r->nsharers - named,
			r->nsharers - named == 1 ? "" : "s");
}

/* The sentence of @r's cause, into @f. */
static void why_write(FILE *f, const struct orp_where *w, const struct orp_where_op *op,
		      const struct orp_wrow *r)
{
	uint64_t hi = r->count_up > r->count_lo ? r->count_up : r->count_lo;

	switch (r->cause) {
	case ORP_WC_ASYNC:
		fprintf(f, "no application call waits for it: %s", op->map->app_more);
		break;
	case ORP_WC_SHARED:
		fputs(r->up == ORP_WL_APP ? "its calls also make "
		      : r->lo == ORP_WL_LOWER ? "its lower calls also serve " : "the disk also serves ", f);
		sharers_text(f, r);
		fputs(r->up == ORP_WL_APP ? ": the syscall layer counts calls, not FUSE requests"
		      : r->lo == ORP_WL_LOWER ? ": the lower layer is kept per call, not per FUSE operation"
		      : ", and the block layer counts the whole machine's requests", f);
		break;
	case ORP_WC_COUNTS:
		/* Apart by a share of the larger count, as the tolerance is. */
		fprintf(f, "%s counted %" PRIu64 ", %s %" PRIu64 " (%.3g%% apart, past the %g%% tolerance): %s",
			orp_wlevel_layer(r->up), r->count_up, orp_wlevel_layer(r->lo), r->count_lo,
			100.0 * fabs((double)r->count_up - (double)r->count_lo) / (double)hi,
			100.0 * ORP_WHERE_TOLERANCE, count_cause(op, r));
		break;
	case ORP_WC_PASSTHROUGH:
		fputs("passed through (passthrough on", f);
		if (w->transport)
			fprintf(f, ", transport %s", w->transport);
		fputs("): the kernel made these calls on the lower file itself, with no FUSE request and no daemon; layers fuse, fs and lower never saw them",
		      f);
		if (r->count_lo)
			fputs("; the requests FUSE saw are calls it did not pass through (a file opened with direct I/O, or before its backing file was set)",
			      f);
		break;
	default:
		break;
	}
}

static bool has_why(const struct orp_wrow *r)
{
	return r->step && r->cause != ORP_WC_NONE;
}

/*
 * Why step @r of @op is no subtraction, for people: a new string, NULL
 * when it is one or memory ran out (has_why tells which).
 */
static char *why_text(const struct orp_where *w, const struct orp_where_op *op,
		      const struct orp_wrow *r)
{
	char *s = NULL;
	size_t len;
	FILE *f;

	if (!has_why(r) || !(f = open_memstream(&s, &len)))
		return NULL;
	why_write(f, w, op, r);
	if (ferror(f)) {
		fclose(f);
		free(s);
		return NULL;
	}
	if (fclose(f)) {
		free(s);
		return NULL;
	}
	return s;
}

/* ---- the summary ------------------------------------------------------------ */

static const char *const sum_head[] = { "OPERATION", "TOTAL", "COUNT", "TIMED BY", "MEAN",
					"KERNEL", "FUSE", "DAEMON", "LOWER", "DISK" };
static const char sum_align[] = "lrrlrrrrrr";
_Static_assert(sizeof(sum_head) / sizeof(sum_head[0]) == sizeof(sum_align) - 1,
	       "a column name per alignment");
#define SUM_FIRST_LEVEL 5 /* the column of level ORP_WL_APP */

/* The summary row of @op: its principal block's shares by level. */
static void summary_row(struct orp_table *t, const struct orp_where_op *op)
{
	char cells[ORP_WL__COUNT][24], b[3][16];
	size_t first, end;
	bool open;

	for (int lv = 0; lv < ORP_WL__COUNT; lv++)
		snprintf(cells[lv], sizeof(cells[lv]), "-");
	orp_table_row(t, false);
	orp_table_cell(t, "%s", op->name);
	if (!orp_where_block(op, &first, &end, &open)) {
		const struct orp_wrow *r = op->nrows ? &op->rows[0] : NULL;

		orp_table_cell(t, "%s", r ? osp_fmt_ns(b[0], sizeof(b[0]), r->total_ns) : "-");
		orp_table_cell(t, "%" PRIu64, r ? r->count_up : 0);
		orp_table_cell(t, "%s", r ? orp_wlevel_layer(r->up) : "-");
		orp_table_cell(t, "%s", r ? osp_fmt_ns(b[1], sizeof(b[1]), r->mean_ns) : "-");
	} else {
		const struct orp_wrow *base = &op->rows[first];

		orp_table_cell(t, "%s", osp_fmt_ns(b[0], sizeof(b[0]), base->total_ns));
		orp_table_cell(t, "%" PRIu64, base->count_up);
		orp_table_cell(t, "%s%s", orp_wlevel_layer(base->up),
			       op->passthrough && base->up == ORP_WL_APP ? " (passthrough)" : "");
		orp_table_cell(t, "%s", osp_fmt_ns(b[1], sizeof(b[1]), base->mean_ns));
		for (size_t i = first + 1; i < end; i++) {
			const struct orp_wrow *r = &op->rows[i];

			share_text(b[2], sizeof(b[2]), r->share);
			if (!r->step && open)
				snprintf(cells[r->up], sizeof(cells[r->up]), "(%s)", b[2]);
			else
				snprintf(cells[r->up], sizeof(cells[r->up]), "%s", b[2]);
			/* A step over a missing level: its share is in the first column. */
			for (int lv = (int)r->up + 1; r->step && lv < (int)r->lo; lv++)
				snprintf(cells[lv], sizeof(cells[lv]), "<");
		}
	}
	for (int lv = 0; lv < ORP_WL__COUNT; lv++)
		orp_table_cell(t, "%s", cells[lv]);
}

static void build_summary(struct orp_table *t, const struct orp_where *w,
			  const size_t *sel, size_t n)
{
	orp_table_init(t, sum_head, sum_align);
	orp_table_title(t, "where each operation's time goes: TOTAL, COUNT and MEAN as layer TIMED BY measured them, split into shares");
	for (size_t i = 0; i < n; i++)
		summary_row(t, &w->ops[sel[i]]);
	if (!n)
		orp_table_note(t, "(no operation)");
	orp_table_note(t, "KERNEL: the application's calls outside FUSE (syscall - fuse); FUSE: its transport and queueing (fuse - fs); DAEMON: the daemon's own work (fs - lower); LOWER: the lower file system (lower, with the disk); DISK: the disk (block)");
	orp_table_note(t, "(x%%): that layer and those under it, not split further; <: in the column to its left; -: cannot be told apart from the layers above, where they counted other requests (show --where says why)");
}

/* ---- one table per operation ---------------------------------------------- */

static const char *const op_head[] = { "WHERE", "LAYERS", "COUNTS", "MEAN", "TOTAL",
				       "SHARE", "NOTE" };
static const char op_align[] = "llrrrrl";
_Static_assert(sizeof(op_head) / sizeof(op_head[0]) == sizeof(op_align) - 1,
	       "a column name per alignment");

static void build_op(struct orp_table *t, const struct orp_where *w,
		     const struct orp_where_op *op)
{
	char what[128], b[4][24];
	size_t nwhy = 0;
	const struct orp_wrow *top = op->nrows ? &op->rows[0] : NULL;

	orp_table_init(t, op_head, op_align);
	if (top)
		orp_table_title(t, "%s: %s in %" PRIu64 " %s", op->name,
				osp_fmt_ns(b[0], sizeof(b[0]), top->total_ns), top->count_up,
				top->up == ORP_WL_APP ? "application calls"
				: top->up == ORP_WL_FUSE ? "FUSE requests" : "requests");
	else
		orp_table_title(t, "%s", op->name);
	for (size_t i = 0; i < op->nrows; i++) {
		const struct orp_wrow *r = &op->rows[i];

		orp_table_row(t, r->step && r->verdict != ORP_WV_OK);
		orp_table_cell(t, "%s%s", r->step ? "  " : "", orp_wrow_what(w, r, what, sizeof(what)));
		if (r->step)
			orp_table_cell(t, "%s - %s", orp_wlevel_layer(r->up), orp_wlevel_layer(r->lo));
		else
			orp_table_cell(t, "%s", orp_wlevel_layer(r->up));
		if (r->step)
			orp_table_cell(t, "%" PRIu64 " / %" PRIu64, r->count_up, r->count_lo);
		else
			orp_table_cell(t, "%" PRIu64, r->count_up);
		orp_table_cell(t, "%s", isnan(r->mean_ns) ? "-" : fmt_signed(b[1], sizeof(b[1]), r->mean_ns));
		orp_table_cell(t, "%s", isnan(r->total_ns) ? "-" : fmt_signed(b[2], sizeof(b[2]), r->total_ns));
		share_text(b[3], sizeof(b[3]), r->share);
		orp_table_cell(t, "%s", b[3]);
		if (has_why(r))
			orp_table_cell(t, "%s (%zu)", r->verdict == ORP_WV_PASSTHROUGH ? "passed through"
						       : "no subtraction", ++nwhy);
		else
			orp_table_cell(t, "%s", "");
	}
	nwhy = 0;
	for (size_t i = 0; i < op->nrows && !t->err; i++) {
		char *why = why_text(w, op, &op->rows[i]);

		if (why)
			orp_table_note(t, "(%zu) %s: %s", ++nwhy,
				       orp_wrow_what(w, &op->rows[i], what, sizeof(what)), why);
		else if (has_why(&op->rows[i]))
			t->err = -ENOMEM;
		free(why);
	}
	for (size_t i = 0; i < op->nnotes; i++)
		orp_table_note(t, "%s", op->notes[i]);
	calls_note(t, op);
}

/* The operations shown: the first @top of those @ops names (all: 0). */
static size_t *select_ops(const struct orp_where *w, size_t top, const char *const *ops,
			  size_t nops, size_t *n)
{
	size_t *sel = calloc(w->n + 1, sizeof(*sel));

	*n = 0;
	for (size_t i = 0; sel && i < w->n; i++) {
		bool want = !nops;

		for (size_t k = 0; k < nops && !want; k++)
			want = strcmp(ops[k], w->ops[i].name) == 0;
		if (want && (!top || *n < top))
			sel[(*n)++] = i;
	}
	return sel;
}

int orp_where_view_build(const struct orp_where *w, size_t top,
			 const char *const *ops, size_t nops,
			 struct orp_where_view *v)
{
	size_t n, *sel = select_ops(w, top, ops, nops, &n);
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (!sel)
		return -ENOMEM;
	v->t = calloc(n + 1, sizeof(*v->t));
	v->op = calloc(n + 1, sizeof(*v->op));
	if (!v->t || !v->op) {
		free(sel);
		return -ENOMEM;
	}
	build_summary(&v->t[v->n++], w, sel, n);
	for (size_t i = 0; i < n; i++) {
		v->op[v->n] = sel[i];
		build_op(&v->t[v->n++], w, &w->ops[sel[i]]);
	}
	for (size_t i = 0; !rc && i < v->n; i++)
		rc = v->t[i].err;
	free(sel);
	return rc;
}

void orp_where_view_fini(struct orp_where_view *v)
{
	for (size_t i = 0; v->t && i < v->n; i++)
		orp_table_fini(&v->t[i]);
	free(v->t);
	free(v->op);
	memset(v, 0, sizeof(*v));
}

/* Wrapped for a terminal; HTML takes the line breaks as blanks. */
static const char intro[] =
	"Per FUSE operation, the layers stacked for the same requests: each step is\n"
	"the upper layer's time less the lower one's, and subtracts only where both\n"
	"counted the same requests (counts within %g%%, calls no other operation\n"
	"shares, a request a call waits for); elsewhere its table says why not, and\n"
	"the layer below is the base (100%%) of the shares under it.";

int orp_where_write_text(FILE *out, const struct orp_where *w,
			 const struct orp_where_view *v)
{
	char layers[64];
	int rc = 0;

	fprintf(out, "==> where the time goes (%s) <==\n", orp_where_layers(layers, sizeof(layers), w));
	fprintf(out, intro, 100.0 * ORP_WHERE_TOLERANCE);
	fputc('\n', out);
	for (size_t i = 0; !rc && i < v->n; i++) {
		fputc('\n', out);
		rc = orp_table_write_text(&v->t[i], out);
	}
	return rc ? rc : ferror(out) ? -EIO : 0;
}

int orp_where_write_summary(FILE *out, const struct orp_where *w, size_t top,
			    const char *const *ops, size_t nops)
{
	size_t n, *sel = select_ops(w, top, ops, nops, &n);
	struct orp_table t;
	char layers[64];
	int rc;

	if (!sel)
		return -ENOMEM;
	/* The summary alone: the operations' own tables are not shown. */
	build_summary(&t, w, sel, n);
	free(sel);
	rc = t.err;
	if (!rc) {
		fprintf(out, "==> where the time goes (%s) <==\n",
			orp_where_layers(layers, sizeof(layers), w));
		rc = orp_table_write_text(&t, out);
	}
	orp_table_fini(&t);
	return rc ? rc : ferror(out) ? -EIO : 0;
}

void orp_where_html_intro(FILE *out, const struct orp_where *w)
{
	char text[1024], layers[64];

	snprintf(text, sizeof(text), intro, 100.0 * ORP_WHERE_TOLERANCE);
	for (char *c = strchr(text, '\n'); c; c = strchr(c, '\n'))
		*c = ' ';
	fputs("<p>", out);
	osp_esc_html(out, text);
	fputs(" Layers: ", out);
	osp_esc_html(out, orp_where_layers(layers, sizeof(layers), w));
	fputs(".</p>\n", out);
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_level(struct orp_json *j, const char *key, const struct orp_wside *s)
{
	if (!s->present || !s->count) {
		orp_json_raw(j, key, "null");
		return;
	}
	orp_json_obj(j, key);
	orp_json_u64(j, "count", s->count);
	orp_json_u64(j, "sum_ns", s->sum_ns);
	orp_json_num(j, "mean_ns", (double)s->sum_ns / (double)s->count);
	orp_json_arr(j, "calls");
	for (size_t i = 0; i < s->ncalls; i++) {
		orp_json_obj(j, NULL);
		orp_json_str(j, "name", s->call[i]->name);
		orp_json_u64(j, "count", s->call[i]->lat.count);
		orp_json_u64(j, "sum_ns", s->call[i]->lat.sum);
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
	orp_json_end(j, '}');
}

static int json_row(struct orp_json *j, const struct orp_where *w, const struct orp_where_op *op,
		    const struct orp_wrow *r)
{
	char what[128], *why = why_text(w, op, r);
	int rc = !why && has_why(r) ? -ENOMEM : 0;

	orp_json_obj(j, NULL);
	orp_json_str(j, "what", orp_wrow_what(w, r, what, sizeof(what)));
	orp_json_bool(j, "step", r->step);
	orp_json_str(j, "upper", orp_wlevel_layer(r->up));
	orp_json_str(j, "lower", r->step ? orp_wlevel_layer(r->lo) : NULL);
	orp_json_u64(j, "count_upper", r->count_up);
	if (r->step)
		orp_json_u64(j, "count_lower", r->count_lo);
	else
		orp_json_raw(j, "count_lower", "null");
	orp_json_str(j, "verdict", r->step ? orp_wverdict_name(r->verdict) : NULL);
	orp_json_bool(j, "subtracts", r->step && r->verdict == ORP_WV_OK);
	orp_json_bool(j, "base", r->base);
	orp_json_num(j, "mean_ns", r->mean_ns);
	orp_json_num(j, "total_ns", r->total_ns);
	orp_json_num(j, "share", r->share);
	orp_json_str(j, "why", why);
	orp_json_end(j, '}');
	free(why);
	return rc;
}

static int json_op(struct orp_json *j, const struct orp_where *w, const struct orp_where_op *op)
{
	int rc = 0;

	orp_json_obj(j, NULL);
	orp_json_str(j, "name", op->name);
	orp_json_bool(j, "mapped", op->map != NULL);
	orp_json_bool(j, "passthrough", op->passthrough);
	orp_json_obj(j, "levels");
	for (int lv = 0; lv < ORP_WL__COUNT; lv++)
		json_level(j, orp_wlevel_layer((enum orp_wlevel)lv), &op->lv[lv]);
	orp_json_end(j, '}');
	orp_json_arr(j, "rows");
	for (size_t i = 0; i < op->nrows; i++) {
		int e = json_row(j, w, op, &op->rows[i]);

		rc = rc ? rc : e;
	}
	orp_json_end(j, ']');
	orp_json_arr(j, "notes");
	for (size_t i = 0; i < op->nnotes; i++)
		orp_json_str(j, NULL, op->notes[i]);
	orp_json_end(j, ']');
	orp_json_arr(j, "disks");
	for (size_t i = 0; i < op->ndisks; i++) {
		const struct orp_wdisk *d = &op->disks[i];

		orp_json_obj(j, NULL);
		orp_json_str(j, "device", d->dev);
		orp_json_u64(j, "count", d->count);
		orp_json_u64(j, "sum_ns", d->sum_ns);
		orp_json_u64(j, "queue_count", d->queue_count);
		orp_json_u64(j, "queue_sum_ns", d->queue_sum_ns);
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
	orp_json_end(j, '}');
	return rc;
}

int orp_where_write_json(struct orp_json *j, const struct orp_where *w,
			 size_t top, const char *const *ops, size_t nops)
{
	size_t n, *sel = select_ops(w, top, ops, nops, &n);
	int rc = 0;

	if (!sel)
		return -ENOMEM;
	orp_json_obj(j, "where");
	orp_json_arr(j, "layers");
	for (int lv = 0; lv < ORP_WL__COUNT; lv++)
		if (w->layer[lv])
			orp_json_str(j, NULL, orp_wlevel_layer((enum orp_wlevel)lv));
	orp_json_end(j, ']');
	orp_json_num(j, "tolerance", ORP_WHERE_TOLERANCE);
	orp_json_bool(j, "passthrough", w->passthrough);
	orp_json_str(j, "transport", w->transport);
	orp_json_u64(j, "operations", w->n);
	orp_json_arr(j, "ops");
	for (size_t i = 0; i < n; i++) {
		int e = json_op(j, w, &w->ops[sel[i]]);

		rc = rc ? rc : e;
	}
	orp_json_end(j, ']');
	orp_json_end(j, '}');
	free(sel);
	return rc;
}
