// SPDX-License-Identifier: MIT
/*
 * The layered view of one run, OSprof's layered profiling: the same
 * workload seen at each layer, side by side, so that the difference
 * between two layers tells what the one in between adds. Per FUSE
 * operation the kernel's request latency (layer fuse) stands beside the
 * daemon's handling time (layer fs): fuse - fs is what the transport,
 * queueing and wake-ups cost. Their counts should match, and where they
 * do not that is said, not hidden (requests answered from the control
 * directory, or layers reset at different times). The other layers --
 * the workload's system calls, the daemon's calls on the lower file
 * system, block devices, interrupts -- follow as compact tables of their
 * top entries. The tables are built once (orp_table.c) and written as
 * text by show and as HTML by html; show --format json writes the pair's
 * rows as numbers (the other layers' rows are the profiles' own).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "osprof/format.h"
#include "osprof/layers.h"

/* The view's order: the pair first, then down the stack (osprof/layers.h's). */
#define LAYER_NAME(ID, name, ebpf, kmod) name,
static const char *const layer_order[] = { OSP_LAYERS(LAYER_NAME) };
#undef LAYER_NAME
#define NORDER (sizeof(layer_order) / sizeof(layer_order[0]))
#define UPPER OSP_LAYER_FUSE
#define LOWER OSP_LAYER_FS
/* Entries of a layer's compact table when --top says nothing. */
#define TOP_DEFAULT 10
/* A statistic of a histogram: its mean, or this percentile. */
#define MEAN (-1.0)

size_t orp_layer_rank(const char *layer)
{
	for (size_t i = 0; i < NORDER; i++)
		if (strcmp(layer, layer_order[i]) == 0)
			return i;
	return NORDER;
}

/* Stable in the input's order among layers of one rank. */
static void sort_layers(struct orp_layered *l)
{
	for (size_t i = 1; i < l->n; i++) {
		const struct osp_profile *p = l->prof[i];
		size_t j = i;

		for (; j > 0 && orp_layer_rank(l->prof[j - 1]->layer) > orp_layer_rank(p->layer); j--)
			l->prof[j] = l->prof[j - 1];
		l->prof[j] = p;
	}
}

bool orp_layered_gather(const struct orp_input *in, size_t nin,
			struct orp_layered *out, const char **twice)
{
	memset(out, 0, sizeof(*out));
	*twice = NULL;
	for (size_t i = 0; i < nin; i++) {
		for (size_t j = 0; j < in[i].n; j++) {
			const struct osp_profile *p = in[i].prof[j];

			for (size_t k = 0; k < out->n; k++) {
				if (strcmp(out->prof[k]->layer, p->layer) == 0) {
					*twice = p->layer;
					return false;
				}
			}
			if (out->n == ORP_LAYERS_MAX)
				return false;
			out->prof[out->n++] = p;
		}
	}
	sort_layers(out);
	return out->n >= 2;
}

static const struct osp_profile *find_layer(const struct orp_layered *l,
					    const char *layer)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->prof[i]->layer, layer) == 0)
			return l->prof[i];
	return NULL;
}

char *orp_layer_source(char *buf, size_t len, const struct osp_profile *p)
{
	for (size_t i = 0; i < p->source.n; i++) {
		char *v;

		if (strcmp(p->source.items[i].key, "layer_source") != 0)
			continue;
		v = osp_kv_text(&p->source.items[i]);
		snprintf(buf, len, "%s", v ? v : "?");
		free(v);
		return buf;
	}
	snprintf(buf, len, "%s", strcmp(p->layer, OSP_LAYER_FS) == 0 ? "osprof-fs" : "unrecorded");
	return buf;
}

char *orp_fmt_delta(char *buf, size_t len, double ns)
{
	char abs[16];

	if (ns == 0.0) {
		snprintf(buf, len, "0ns");
		return buf;
	}
	snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+',
		 osp_fmt_ns(abs, sizeof(abs), fabs(ns)));
	return buf;
}

/* "fuse +3 (+0.3%)": how many more requests the upper layer saw. */
static void count_delta(char *buf, size_t len, uint64_t up, uint64_t lo)
{
	double d = (double)up - (double)lo;

	snprintf(buf, len, UPPER " %+.0f (%+.2g%%)", d,
		 lo ? 100.0 * d / (double)lo : 100.0);
}

/* ---- the fuse - fs table ------------------------------------------------- */

struct pair_row {
	const char *name;
	const struct osp_op *up, *lo; /* NULL where the layer has none */
};

static uint64_t op_sum(const struct osp_op *op)
{
	return op ? op->lat.sum : 0;
}

/* Most time in fuse first, then in fs, then by name. */
static int cmp_pair_row(const void *a, const void *b)
{
	const struct pair_row *x = a, *y = b;

	if (op_sum(x->up) != op_sum(y->up))
		return op_sum(x->up) < op_sum(y->up) ? 1 : -1;
	if (op_sum(x->lo) != op_sum(y->lo))
		return op_sum(x->lo) < op_sum(y->lo) ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool busy(const struct osp_op *op)
{
	return op && op->lat.count;
}

/* The rows: every operation with requests in either layer. */
static struct pair_row *pair_rows(const struct osp_profile *up,
				  const struct osp_profile *lo, size_t *n)
{
	struct pair_row *rows = calloc(up->nops + lo->nops + 1, sizeof(*rows));
	struct osp_name_index *ix_up = osp_name_index_ops(up->ops, up->nops);
	struct osp_name_index *ix_lo = osp_name_index_ops(lo->ops, lo->nops);

	*n = 0;
	if (!rows || !ix_up || !ix_lo) {
		free(rows);
		rows = NULL;
		goto out;
	}
	for (size_t i = 0; i < up->nops; i++) {
		size_t pos = osp_name_index_find(ix_lo, up->ops[i].name);
		struct pair_row r = { up->ops[i].name, &up->ops[i],
				      pos == SIZE_MAX ? NULL : &lo->ops[pos] };

		/* A repeated name: its first op only, as the index has it. */
		if (osp_name_index_find(ix_up, r.name) == i && (busy(r.up) || busy(r.lo)))
			rows[(*n)++] = r;
	}
	for (size_t i = 0; i < lo->nops; i++) {
		const struct osp_op *op = &lo->ops[i];

		if (osp_name_index_find(ix_up, op->name) == SIZE_MAX &&
		    osp_name_index_find(ix_lo, op->name) == i && busy(op))
			rows[(*n)++] = (struct pair_row){ op->name, NULL, op };
	}
	qsort(rows, *n, sizeof(*rows), cmp_pair_row);
out:
	osp_name_index_free(ix_up);
	osp_name_index_free(ix_lo);
	return rows;
}

static const char *const pair_head[] = {
	"OPERATION", "FUSE COUNT", "FS COUNT", "FUSE MEAN", "FS MEAN",
	"FUSE-FS MEAN", "FUSE P50", "FS P50", "FUSE-FS P50", "FUSE P99",
	"FS P99", "NOTE",
};
static const char pair_align[] = "lrrrrrrrrrrl";
_Static_assert(sizeof(pair_head) / sizeof(pair_head[0]) == sizeof(pair_align) - 1,
	       "a column name per alignment");

/* A duration cell (@pct: MEAN or a percentile), "-" for a layer
 * without the op. */
static void ns_cell(struct orp_table *t, const struct osp_op *op, double pct)
{
	char b[16];

	if (!op)
		orp_table_cell(t, "-");
	else
		orp_table_cell(t, "%s", osp_fmt_ns(b, sizeof(b), pct == MEAN ? osp_hist_mean(&op->lat)
								: osp_hist_percentile(&op->lat, pct)));
}

static void count_cell(struct orp_table *t, const struct osp_op *op)
{
	if (op)
		orp_table_cell(t, "%" PRIu64, op->lat.count);
	else
		orp_table_cell(t, "-");
}

static void delta_cell(struct orp_table *t, const struct pair_row *r, double pct)
{
	char b[24];

	if (!r->up || !r->lo)
		orp_table_cell(t, "-");
	else if (pct == MEAN)
		orp_table_cell(t, "%s", orp_fmt_delta(b, sizeof(b), osp_hist_mean(&r->up->lat) -
								     osp_hist_mean(&r->lo->lat)));
	else
		orp_table_cell(t, "%s", orp_fmt_delta(b, sizeof(b), osp_hist_percentile(&r->up->lat, pct) -
								     osp_hist_percentile(&r->lo->lat, pct)));
}

/* Fill one row; true when its counts differ. */
static bool pair_row_cells(struct orp_table *t, const struct pair_row *r)
{
	uint64_t nu = r->up ? r->up->lat.count : 0, nl = r->lo ? r->lo->lat.count : 0;
	bool differ = nu != nl;
	char c[48];

	orp_table_row(t, differ);
	orp_table_cell(t, "%s", r->name);
	count_cell(t, r->up);
	count_cell(t, r->lo);
	ns_cell(t, r->up, MEAN);
	ns_cell(t, r->lo, MEAN);
	delta_cell(t, r, MEAN);
	ns_cell(t, r->up, 50);
	ns_cell(t, r->lo, 50);
	delta_cell(t, r, 50);
	ns_cell(t, r->up, 99);
	ns_cell(t, r->lo, 99);
	if (!busy(r->lo))
		orp_table_cell(t, "only in " UPPER);
	else if (!busy(r->up))
		orp_table_cell(t, "only in " LOWER);
	else if (differ) {
		count_delta(c, sizeof(c), nu, nl);
		orp_table_cell(t, "counts differ: %s", c);
	} else {
		orp_table_cell(t, "%s", "");
	}
	return differ;
}

static int pair_table(struct orp_table *t, const struct osp_profile *up,
		      const struct osp_profile *lo, size_t top)
{
	char su[32], sl[32];
	size_t n, shown, ndiffer = 0;
	struct pair_row *rows = pair_rows(up, lo, &n);

	orp_table_init(t, pair_head, pair_align);
	if (!rows)
		return -ENOMEM;
	orp_table_title(t, UPPER " (%s) against " LOWER " (%s), per operation: "
			UPPER " - " LOWER " is what the FUSE transport, queueing and wake-ups add",
			orp_layer_source(su, sizeof(su), up), orp_layer_source(sl, sizeof(sl), lo));
	shown = top && top < n ? top : n;
	for (size_t i = 0; i < n; i++) {
		bool differ = i < shown ? pair_row_cells(t, &rows[i])
					: rows[i].up == NULL || rows[i].lo == NULL ||
					  rows[i].up->lat.count != rows[i].lo->lat.count;

		ndiffer += differ;
	}
	if (shown < n)
		orp_table_note(t, "(%zu more operations with less time)", n - shown);
	if (ndiffer)
		orp_table_note(t, "counts differ for %zu of %zu operations (information, not an error: requests the daemon answered from its control directory, or layers reset at different times)",
			       ndiffer, n);
	else if (n)
		orp_table_note(t, "counts match for every operation");
	else
		orp_table_note(t, "no requests in either layer");
	free(rows);
	return t->err;
}

/* ---- one compact table per other layer ----------------------------------- */

static const char *const *layer_head(const char *layer)
{
	static const char *const calls[] = { "CALL", "COUNT", "TOTAL", "MEAN", "P50", "P99", "MAX", "%TIME" };
	static const char *const block[] = { "DEVICE.DIR", "COUNT", "TOTAL", "MEAN", "P50", "P99", "MAX", "%TIME" };
	static const char *const irq[] = { "IRQ", "COUNT", "TOTAL", "MEAN", "P50", "P99", "MAX", "%TIME" };
	static const char *const ops[] = { "OPERATION", "COUNT", "TOTAL", "MEAN", "P50", "P99", "MAX", "%TIME" };

	if (strcmp(layer, OSP_LAYER_SYSCALL) == 0 || strcmp(layer, OSP_LAYER_LOWER) == 0)
		return calls;
	if (strcmp(layer, OSP_LAYER_BLOCK) == 0)
		return block;
	if (strcmp(layer, OSP_LAYER_IRQ) == 0)
		return irq;
	return ops;
}

/* What a layer's entries are, for @n of them. */
static const char *layer_what(const char *layer, size_t n)
{
	if (strcmp(layer, OSP_LAYER_SYSCALL) == 0 || strcmp(layer, OSP_LAYER_LOWER) == 0)
		return n == 1 ? "call" : "calls";
	if (strcmp(layer, OSP_LAYER_BLOCK) == 0)
		return n == 1 ? "device and direction" : "devices and directions";
	if (strcmp(layer, OSP_LAYER_IRQ) == 0)
		return n == 1 ? "handler" : "handlers";
	return n == 1 ? "operation" : "operations";
}

static int layer_table(struct orp_table *t, const struct osp_profile *p,
		       size_t top)
{
	const struct osp_op **v = calloc(p->nops + 1, sizeof(*v));
	char src[32], b[5][16];
	double total = 0;
	uint64_t count = 0;
	size_t n = 0, shown;

	orp_table_init(t, layer_head(p->layer), "lrrrrrrr");
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nops; i++) {
		if (!p->ops[i].lat.count)
			continue;
		v[n++] = &p->ops[i];
		total += (double)p->ops[i].lat.sum;
		count += p->ops[i].lat.count;
	}
	qsort(v, n, sizeof(*v), orp_cmp_op_total);
	top = top ? top : TOP_DEFAULT;
	shown = n < top ? n : top;
	osp_fmt_ns(b[0], sizeof(b[0]), total);
	if (shown < n)
		orp_table_title(t, "%s (%s): the top %zu of %zu %s by total time; %" PRIu64 " requests, %s in all",
				p->layer, orp_layer_source(src, sizeof(src), p), shown, n,
				layer_what(p->layer, n), count, b[0]);
	else
		orp_table_title(t, "%s (%s): %zu %s by total time; %" PRIu64 " requests, %s in all",
				p->layer, orp_layer_source(src, sizeof(src), p), n,
				layer_what(p->layer, n), count, b[0]);
	for (size_t i = 0; i < shown; i++) {
		const struct osp_hist *h = &v[i]->lat;

		orp_table_row(t, false);
		orp_table_cell(t, "%s", v[i]->name);
		orp_table_cell(t, "%" PRIu64, h->count);
		orp_table_cell(t, "%s", osp_fmt_ns(b[0], sizeof(b[0]), (double)h->sum));
		orp_table_cell(t, "%s", osp_fmt_ns(b[1], sizeof(b[1]), osp_hist_mean(h)));
		orp_table_cell(t, "%s", osp_fmt_ns(b[2], sizeof(b[2]), osp_hist_percentile(h, 50)));
		orp_table_cell(t, "%s", osp_fmt_ns(b[3], sizeof(b[3]), osp_hist_percentile(h, 99)));
		orp_table_cell(t, "%s", osp_fmt_ns(b[4], sizeof(b[4]), (double)h->max));
		orp_table_cell(t, "%.1f%%", total > 0 ? 100.0 * (double)h->sum / total : 0.0);
	}
	if (n == 0)
		orp_table_note(t, "(no requests)");
	free(v);
	return t->err;
}

int orp_layered_build(const struct orp_layered *l, size_t top,
		      struct orp_layered_view *v)
{
	const struct osp_profile *up = find_layer(l, UPPER), *lo = find_layer(l, LOWER);
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (up && lo)
		rc = pair_table(&v->t[v->n++], up, lo, top);
	for (size_t i = 0; !rc && i < l->n; i++)
		if (!(up && lo && (l->prof[i] == up || l->prof[i] == lo)))
			rc = layer_table(&v->t[v->n++], l->prof[i], top);
	return rc;
}

void orp_layered_view_fini(struct orp_layered_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		orp_table_fini(&v->t[i]);
	v->n = 0;
}

int orp_layered_write_text(FILE *out, const struct orp_layered_view *v)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < v->n; i++) {
		if (i)
			fputc('\n', out);
		rc = orp_table_write_text(&v->t[i], out);
	}
	return rc;
}

int orp_layered_write_html(FILE *out, const struct orp_layered_view *v)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < v->n; i++)
		rc = orp_table_write_html(&v->t[i], out);
	return rc;
}

/* ---- JSON: the pair's rows as numbers ----------------------------------- */

static void json_pair_row(struct orp_json *j, const struct pair_row *r)
{
	bool both = r->up && r->lo;

	orp_json_obj(j, NULL);
	orp_json_str(j, "name", r->name);
	orp_json_side(j, UPPER, r->up);
	orp_json_side(j, LOWER, r->lo);
	orp_json_num(j, "delta_mean_ns",
		     both ? osp_hist_mean(&r->up->lat) - osp_hist_mean(&r->lo->lat) : NAN);
	orp_json_num(j, "delta_p50_ns",
		     both ? osp_hist_percentile(&r->up->lat, 50) -
				    osp_hist_percentile(&r->lo->lat, 50)
			  : NAN);
	orp_json_bool(j, "counts_differ",
		      (r->up ? r->up->lat.count : 0) != (r->lo ? r->lo->lat.count : 0));
	orp_json_end(j, '}');
}

int orp_layered_write_json(struct orp_json *j, const struct orp_layered *l, size_t top)
{
	const struct osp_profile *up = find_layer(l, UPPER), *lo = find_layer(l, LOWER);
	struct pair_row *rows = NULL;
	size_t n = 0;
	char src[32];

	if (up && lo && !(rows = pair_rows(up, lo, &n)))
		return -ENOMEM;
	orp_json_obj(j, "layered");
	orp_json_arr(j, "layers");
	for (size_t i = 0; i < l->n; i++) {
		orp_json_obj(j, NULL);
		orp_json_str(j, "layer", l->prof[i]->layer);
		orp_json_str(j, "source", orp_layer_source(src, sizeof(src), l->prof[i]));
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
	if (rows) {
		size_t shown = top && top < n ? top : n;

		orp_json_obj(j, "pair");
		orp_json_str(j, "upper", UPPER);
		orp_json_str(j, "lower", LOWER);
		orp_json_u64(j, "operations", n);
		orp_json_arr(j, "ops");
		for (size_t i = 0; i < shown; i++)
			json_pair_row(j, &rows[i]);
		orp_json_end(j, ']');
		orp_json_end(j, '}');
	} else {
		orp_json_raw(j, "pair", "null");
	}
	orp_json_end(j, '}');
	free(rows);
	return 0;
}
