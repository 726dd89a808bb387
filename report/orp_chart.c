// SPDX-License-Identifier: MIT
/*
 * The charts of osprof-report, in OSprof's style: x is latency on a log2
 * axis labelled in human units (1us, 10us, 1ms ...), y the number of
 * requests on a log scale, so a peak of ten requests shows next to one
 * of a million. Per-operation histograms with their peaks labelled, in
 * order of total time; an overview of the top operations on one shared x
 * range; per operation a timeline heat map in viridis (perceptually
 * uniform), by elapsed or wall-clock time; overlays of one operation in
 * two profiles; every request of each layer as small multiples, a panel
 * a layer. No chart overlays more than two distributions.
 * (IRQ bar charts live in orp_irq.c, "where the time goes" in
 * orp_chart_where.c.)
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "orp_gp.h"
#include "orp_where.h"
#include "osprof/format.h"

#define OVERVIEW_MAX 16
#define TIMELINE_YTICS 8

/* Non-empty buckets of @h as "bucket value" lines, scaled by @scale. */
static void data_hist(FILE *f, const char *name, const struct osp_hist *h,
		      double scale)
{
	orp_gp_data_begin(f, name);
	for (uint32_t k = 0; k < h->nbk; k++)
		fprintf(f, "%u %.6g\n", h->bk[k].idx, (double)h->bk[k].count * scale);
	orp_gp_data_end(f);
}

static uint64_t hist_peak_count(const struct osp_hist *h)
{
	uint64_t m = 0;

	for (uint32_t k = 0; k < h->nbk; k++)
		if (h->bk[k].count > m)
			m = h->bk[k].count;
	return m;
}

static void hist_axes(FILE *f, unsigned lo, unsigned hi, unsigned res,
		      const char *ylabel)
{
	fprintf(f, "set xrange [%.1f:%.1f]\n", lo - 1.0, hi + 1.0);
	orp_gp_latency_axis(f, lo - 1.0, hi + 1.0, res);
	orp_gp_set_str(f, "ylabel", ylabel);
	/* No minor tics on the log axis, none mirrored: they add nothing to
	 * read and a third of an SVG's bytes. */
	fputs("set logscale y\nset format y '%.0s%c'\nset grid ytics lc rgb '#e0e0e0'\n"
	      "set ytics nomirror\nset mytics 1\n"
	      "set key top right\n", f);
}

static void op_summary(char *buf, size_t len, const char *layer,
		       const struct osp_op *op)
{
	char tot[16], mean[16], p50[16], p99[16];

	snprintf(buf, len, "%s %s: %" PRIu64 " requests, total %s, mean %s, p50 %s, p99 %s",
		 layer, op->name, op->lat.count,
		 osp_fmt_ns(tot, sizeof(tot), (double)op->lat.sum),
		 osp_fmt_ns(mean, sizeof(mean), osp_hist_mean(&op->lat)),
		 osp_fmt_ns(p50, sizeof(p50), osp_hist_percentile(&op->lat, 50)),
		 osp_fmt_ns(p99, sizeof(p99), osp_hist_percentile(&op->lat, 99)));
}

/* Label every peak above its fullest bucket: share and mean latency. */
static void peak_labels(FILE *f, const struct osp_hist *h)
{
	struct osp_peak pk[OSP_PEAKS_MAX];
	size_t n = osp_hist_peaks(h, pk, OSP_PEAKS_MAX);

	for (size_t k = 0; k < n; k++) {
		char mean[16], text[64];

		snprintf(text, sizeof(text), "P%zu %.1f%% ~%s", k + 1,
			 100.0 * pk[k].share,
			 osp_fmt_ns(mean, sizeof(mean), pk[k].mean_ns));
		fprintf(f, "set label %zu ", k + 1);
		osp_esc_gp(f, text);
		fprintf(f, " at %u,%.6g center front font ',8'\n", pk[k].mode,
			(double)osp_hist_bucket(h, pk[k].mode) * 2.2);
	}
}

int orp_chart_op(struct orp_render *r, const struct osp_profile *p,
		 const struct osp_op *op, char *err, size_t errlen)
{
	char hint[256], title[256];
	struct orp_gp g;
	unsigned lo, hi, clo, chi;
	bool cpu;
	int rc;

	if (!osp_hist_range(&op->lat, &lo, &hi))
		return 0;
	cpu = op->has_cpu && osp_hist_range(&op->cpu, &clo, &chi);
	if (cpu) {
		lo = clo < lo ? clo : lo;
		hi = chi > hi ? chi : hi;
	}
	snprintf(hint, sizeof(hint), "op-%s-%s", p->layer, op->name);
	op_summary(title, sizeof(title), p->layer, op);
	rc = orp_gp_begin(r, &g, hint, title, 900, 480, err, errlen);
	if (rc)
		return rc;
	orp_gp_set_str(g.f, "title", title);
	hist_axes(g.f, lo, hi, p->res, "requests (log scale)");
	fprintf(g.f, "set yrange [0.7:%.6g]\n", (double)hist_peak_count(&op->lat) * 6.0);
	fputs("set style fill solid 0.75 border rgb '#1f3b5c'\nset boxwidth 0.85\n", g.f);
	peak_labels(g.f, &op->lat);
	data_hist(g.f, "lat", &op->lat, 1.0);
	if (cpu)
		data_hist(g.f, "cpu", &op->cpu, 1.0);
	/* A legend only when there are two curves to tell apart. */
	fprintf(g.f, "plot $lat using 1:2 with boxes lc rgb '%s' %s",
		orp_gp_colours[0], cpu ? "title 'latency'" : "notitle");
	if (cpu)
		fprintf(g.f, ", \\\n     $cpu using 1:2 with histeps lw 2 lc rgb '%s' title 'cpu time'",
			orp_gp_colours[1]);
	fputc('\n', g.f);
	return orp_gp_end(r, &g, err, errlen);
}

/* Non-empty ops of @p, most total latency first; caller frees. */
static const struct osp_op **sorted_ops(const struct osp_profile *p, size_t *n)
{
	const struct osp_op **v = calloc(p->nops + 1, sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->nops; i++)
		if (p->ops[i].lat.count || osp_hist_bucket_total(&p->ops[i].lat))
			v[(*n)++] = &p->ops[i];
	qsort(v, *n, sizeof(*v), orp_cmp_op_total);
	return v;
}

/*
 * @draw for each op of @p with requests, most total latency first: the
 * first @top (0: all) of those with at least @min_share of the layer's
 * time.
 */
static int each_op_by_total(struct orp_render *r, const struct osp_profile *p,
			    int (*draw)(struct orp_render *, const struct osp_profile *,
					const struct osp_op *, char *, size_t),
			    size_t top, double min_share, char *err, size_t errlen)
{
	size_t n;
	const struct osp_op **ops = sorted_ops(p, &n);
	double total = 0.0;
	int rc = 0;

	if (!ops) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++)
		total += (double)ops[k]->lat.sum;
	for (size_t k = 0; !rc && k < n && (!top || k < top); k++)
		if (min_share <= 0.0 || (double)ops[k]->lat.sum >= min_share * total)
			rc = draw(r, p, ops[k], err, errlen);
	free(ops);
	return rc;
}

/* The panel of @op: the x range and axes are the overview's, shared. */
static void overview_panel(FILE *f, const struct osp_op *op, size_t k)
{
	char tot[16], title[192];

	snprintf(title, sizeof(title), "%s (%" PRIu64 ", total %s)", op->name,
		 op->lat.count, osp_fmt_ns(tot, sizeof(tot), (double)op->lat.sum));
	orp_gp_set_str(f, "title", title);
	fprintf(f, "set yrange [0.7:%.6g]\n", (double)hist_peak_count(&op->lat) * 3.0);
	fprintf(f, "plot $h%zu using 1:2 with boxes lc rgb '%s' notitle\n", k,
		orp_gp_colours[0]);
}

/* The buckets the first @n of @ops span, together. */
static void ops_range(const struct osp_op *const *ops, size_t n, unsigned *lo,
		      unsigned *hi)
{
	*lo = UINT32_MAX;
	*hi = 0;
	for (size_t k = 0; k < n; k++) {
		unsigned a, b;

		if (osp_hist_range(&ops[k]->lat, &a, &b)) {
			*lo = a < *lo ? a : *lo;
			*hi = b > *hi ? b : *hi;
		}
	}
	if (*lo > *hi)
		*lo = *hi = 0;
}

int orp_chart_overview(struct orp_render *r, const struct osp_profile *p,
		       size_t top, char *err, size_t errlen)
{
	char hint[128], title[192];
	size_t n, cols, rows;
	const struct osp_op **ops = sorted_ops(p, &n);
	unsigned lo, hi;
	struct orp_gp g;
	int rc;

	if (!ops) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (top == 0 || top > OVERVIEW_MAX)
		top = OVERVIEW_MAX;
	n = n < top ? n : top;
	if (n == 0) {
		free(ops);
		return 0;
	}
	cols = n <= 3 ? n : (size_t)ceil(sqrt((double)n));
	rows = (n + cols - 1) / cols;
	snprintf(hint, sizeof(hint), "overview-%s", p->layer);
	snprintf(title, sizeof(title), "%s layer: the %zu operations with the most total latency",
		 p->layer, n);
	/* Panels big enough for the terminal's own font: nothing shrunk. */
	rc = orp_gp_begin(r, &g, hint, title, (int)(480 * cols), (int)(340 * rows + 40),
			  err, errlen);
	if (rc) {
		free(ops);
		return rc;
	}
	for (size_t k = 0; k < n; k++) {
		char name[32];

		snprintf(name, sizeof(name), "h%zu", k);
		data_hist(g.f, name, &ops[k]->lat, 1.0);
	}
	/* One x range for every panel: the same place is the same latency. */
	ops_range(ops, n, &lo, &hi);
	fprintf(g.f, "set xrange [%.1f:%.1f]\n", lo - 1.0, hi + 1.0);
	orp_gp_latency_axis(g.f, lo - 1.0, hi + 1.0, p->res);
	fputs("set ylabel 'requests'\nset logscale y\nset format y '%.0s%c'\nset ytics nomirror\nset mytics 1\n"
	      "set style fill solid 0.75 noborder\nset boxwidth 0.85\n", g.f);
	fprintf(g.f, "set multiplot layout %zu,%zu title ", rows, cols);
	osp_esc_gp(g.f, title);
	fputc('\n', g.f);
	for (size_t k = 0; k < n; k++)
		overview_panel(g.f, ops[k], k);
	fputs("unset multiplot\n", g.f);
	free(ops);
	return orp_gp_end(r, &g, err, errlen);
}

/*
 * viridis (matplotlib's default colour map, van der Walt and Smith):
 * perceptually uniform and readable in grey and by most colour-blind
 * readers; its published values at ten even steps, from 0 to 1.
 */
static const char viridis[] =
	"set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', 3 '#31688e', "
	"4 '#26828e', 5 '#1f9e89', 6 '#35b779', 7 '#6ece58', 8 '#b5de2b', 9 '#fde725')\n";

/* @op in snapshot @s (which lists only its non-empty ops), or NULL. */
static const struct osp_hist *snap_op(const struct osp_snapshot *s,
				      const char *op)
{
	for (size_t i = 0; i < s->nops; i++)
		if (strcmp(s->ops[i].name, op) == 0)
			return &s->ops[i].lat;
	return NULL;
}

/* The end of snapshot @s's interval as a y tick label. */
static void tick_time(char *buf, size_t len, const struct osp_profile *p,
		      size_t s, bool wall)
{
	uint64_t ns = p->start_unix_ns + p->snaps[s].t_ns;
	time_t sec = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!wall || !gmtime_r(&sec, &tm)) {
		osp_fmt_ns(buf, len, (double)p->snaps[s].t_ns);
		return;
	}
	strftime(buf, len, "%H:%M:%S", &tm);
	if (p->tl_interval_ns < 1000000000u) /* sub-second intervals */
		snprintf(buf + strlen(buf), len - strlen(buf), ".%03u",
			 (unsigned)(ns / 1000000u % 1000u));
}

/* The y axis: the end of each interval, elapsed or wall-clock (UTC). */
static void timeline_yaxis(FILE *f, const struct osp_profile *p,
			   enum orp_tl_clock clock)
{
	size_t step = (p->nsnaps + TIMELINE_YTICS - 1) / TIMELINE_YTICS;
	bool wall = clock == ORP_TL_WALL && p->start_unix_ns;
	char label[96];

	fputs("set ytics (", f);
	for (size_t s = 0; s < p->nsnaps; s += step ? step : 1) {
		tick_time(label, sizeof(label), p, s, wall);
		fprintf(f, "%s'%s' %zu", s ? ", " : "", label, s);
	}
	fputs(")\n", f);
	if (wall) {
		time_t sec = (time_t)((p->start_unix_ns + p->snaps[0].t_ns) / 1000000000u);
		struct tm tm;

		if (gmtime_r(&sec, &tm))
			strftime(label, sizeof(label), "end of interval, UTC, from %Y-%m-%d", &tm);
	} else {
		snprintf(label, sizeof(label), "end of interval, since the start%s",
			 clock == ORP_TL_WALL ? " (no wall-clock start recorded)" : "");
	}
	orp_gp_set_str(f, "ylabel", label);
}

/*
 * Rows "bucket snapshot count" of @op over the full grid (image needs
 * it), empty cells NaN (no colour): false when no snapshot has @op.
 */
static bool timeline_data(FILE *f, const struct osp_profile *p,
			  const char *op, unsigned *lo, unsigned *hi)
{
	*lo = UINT32_MAX;
	*hi = 0;
	for (size_t s = 0; s < p->nsnaps; s++) {
		const struct osp_hist *h = snap_op(&p->snaps[s], op);
		unsigned a, b;

		if (h && osp_hist_range(h, &a, &b)) {
			*lo = a < *lo ? a : *lo;
			*hi = b > *hi ? b : *hi;
		}
	}
	if (*lo > *hi)
		return false;
	orp_gp_data_begin(f, "tl");
	for (size_t s = 0; s < p->nsnaps; s++) {
		const struct osp_hist *h = snap_op(&p->snaps[s], op);

		for (unsigned i = *lo; i <= *hi; i++) {
			uint64_t c = h ? osp_hist_bucket(h, i) : 0;

			if (c)
				fprintf(f, "%u %zu %" PRIu64 "\n", i, s, c);
			else
				fprintf(f, "%u %zu NaN\n", i, s);
		}
		fputc('\n', f);
	}
	orp_gp_data_end(f);
	return true;
}

/* The heat map of one operation; nothing when no interval has it. */
static int timeline_op(struct orp_render *r, const struct osp_profile *p,
		       const struct osp_op *op, char *err, size_t errlen)
{
	char hint[256], title[256], iv[16];
	unsigned lo, hi;
	struct orp_gp g;
	int rc, h;

	snprintf(hint, sizeof(hint), "timeline-%s-%s", p->layer, op->name);
	snprintf(title, sizeof(title), "%s %s over time: requests per bucket, every %s",
		 p->layer, op->name, osp_fmt_ns(iv, sizeof(iv), (double)p->tl_interval_ns));
	h = 260 + 14 * (int)(p->nsnaps < 50 ? p->nsnaps : 50);
	rc = orp_gp_begin(r, &g, hint, title, 900, h, err, errlen);
	if (rc)
		return rc;
	if (!timeline_data(g.f, p, op->name, &lo, &hi)) {
		/* Its requests were all before the timeline began. */
		fputs("set label 1 'no requests in any interval' at graph 0.5,0.5 center\n"
		      "unset border\nunset tics\nplot NaN notitle\n", g.f);
		return orp_gp_end(r, &g, err, errlen);
	}
	orp_gp_set_str(g.f, "title", title);
	hist_axes(g.f, lo, hi, p->res, "");
	fputs("unset logscale y\nset format y '%g'\n", g.f);
	fprintf(g.f, "set yrange [-0.5:%zu.5]\n", p->nsnaps - 1);
	timeline_yaxis(g.f, p, r->tl_clock);
	fputs("set logscale cb\nset cblabel 'requests'\n", g.f);
	fputs(viridis, g.f);
	fputs("set grid noytics\nplot $tl using 1:2:3 with image notitle\n", g.f);
	return orp_gp_end(r, &g, err, errlen);
}

int orp_chart_timeline(struct orp_render *r, const struct osp_profile *p,
		       size_t top, double min_share, char *err, size_t errlen)
{
	if (p->nsnaps < 2)
		return 0; /* one row is no picture of change over time */
	return each_op_by_total(r, p, timeline_op, top, min_share, err, errlen);
}

/* Where a peak change sits: the peak in B, or in A when it was removed. */
static void change_label(FILE *f, const struct osp_cmp_item *it,
			 const struct osp_peak_change *c, int k, double sa,
			 double sb)
{
	const struct osp_peak *pk = c->ib >= 0 ? &it->peaks_b[c->ib] : &it->peaks_a[c->ia];
	const struct osp_hist *h = c->ib >= 0 ? &it->b->lat : &it->a->lat;
	double y = (double)osp_hist_bucket(h, pk->mode) * (c->ib >= 0 ? sb : sa) * 2.5;
	char text[64];

	if (c->kind == OSP_PEAK_MOVED)
		snprintf(text, sizeof(text), "moved %+.1f oct", c->shift_octaves);
	else if (c->kind == OSP_PEAK_RESHARED)
		snprintf(text, sizeof(text), "%.0f%% -> %.0f%%",
			 100.0 * it->peaks_a[c->ia].share, 100.0 * pk->share);
	else
		snprintf(text, sizeof(text), "%s", osp_peak_change_name(c->kind));
	fprintf(f, "set label %d ", k);
	osp_esc_gp(f, text);
	fprintf(f, " at %u,%.6g center front font ',8' tc rgb '%s'\n", pk->mode, y,
		orp_gp_colours[c->ib >= 0 ? 1 : 0]);
}

static void overlay_plot(FILE *f, const struct osp_cmp_item *it,
			 const char *label_a, const char *label_b)
{
	char ta[256], tb[256];

	snprintf(ta, sizeof(ta), "A: %s (%" PRIu64 " requests)", label_a, it->a->lat.count);
	snprintf(tb, sizeof(tb), "B: %s (%" PRIu64 " requests)", label_b, it->b->lat.count);
	fputs("set style fill transparent solid 0.45 noborder\nset boxwidth 0.85\n", f);
	fprintf(f, "plot $a using 1:2 with boxes lc rgb '%s' title ", orp_gp_colours[0]);
	osp_esc_gp(f, ta);
	fprintf(f, ", \\\n     $b using 1:2 with boxes lc rgb '%s' title ", orp_gp_colours[1]);
	osp_esc_gp(f, tb);
	fputc('\n', f);
}

int orp_chart_overlay(struct orp_render *r, const struct osp_cmp *c,
		      const struct osp_cmp_item *it, const char *label_a,
		      const char *label_b, char *err, size_t errlen)
{
	char hint[256], title[320];
	unsigned alo, ahi, blo, bhi;
	double sa, sb;
	struct orp_gp g;
	int rc;

	if (!it->a || !it->b || !osp_hist_range(&it->a->lat, &alo, &ahi) ||
	    !osp_hist_range(&it->b->lat, &blo, &bhi))
		return 0;
	sa = 100.0 / (double)osp_hist_bucket_total(&it->a->lat);
	sb = 100.0 / (double)osp_hist_bucket_total(&it->b->lat);
	snprintf(hint, sizeof(hint), "compare-%s-%s", it->layer, it->name);
	snprintf(title, sizeof(title), "%s %s: %s %.3g%s%s, %s", it->layer, it->name,
		 osp_dist_method_name(c->method), it->score,
		 *orp_cmp_unit(c->method) ? " " : "", orp_cmp_unit(c->method),
		 osp_cmp_verdict_name(it->verdict));
	rc = orp_gp_begin(r, &g, hint, title, 900, 480, err, errlen);
	if (rc)
		return rc;
	orp_gp_set_str(g.f, "title", title);
	hist_axes(g.f, alo < blo ? alo : blo, ahi > bhi ? ahi : bhi, it->a->lat.res,
		  "share of requests, % (log scale)");
	fputs("set yrange [*:250]\nset format y '%g'\n", g.f);
	for (size_t k = 0; k < it->nchanges; k++)
		change_label(g.f, it, &it->changes[k], (int)k + 1, sa, sb);
	data_hist(g.f, "a", &it->a->lat, sa);
	data_hist(g.f, "b", &it->b->lat, sb);
	overlay_plot(g.f, it, label_a, label_b);
	return orp_gp_end(r, &g, err, errlen);
}

/* Buckets of @h as shares of its requests, in percent; the smallest share. */
static double data_share(FILE *f, const char *name, const struct osp_hist *h)
{
	double scale = 100.0 / (double)osp_hist_bucket_total(h), least = 100.0;

	for (uint32_t i = 0; i < h->nbk; i++)
		least = fmin(least, (double)h->bk[i].count * scale);
	data_hist(f, name, h, scale);
	return least;
}

int orp_gp_panels(struct orp_render *r, const char *hint, const char *title,
		  const struct osp_hist *const *h, const char *const *names, size_t n,
		  char *err, size_t errlen)
{
	unsigned lo = UINT32_MAX, hi = 0, a, b, res = h[0]->res;
	double least = 100.0;
	struct orp_gp g;
	int height = 90 + 170 * (int)n;
	int rc = orp_gp_begin(r, &g, hint, title, 900, height, err, errlen);

	if (rc)
		return rc;
	for (size_t k = 0; k < n; k++) {
		char name[32];

		snprintf(name, sizeof(name), "p%zu", k);
		if (osp_hist_range(h[k], &a, &b)) {
			lo = a < lo ? a : lo;
			hi = b > hi ? b : hi;
		}
		least = fmin(least, data_share(g.f, name, h[k]));
	}
	/* One x range and one y range for every panel: the same place is
	 * the same latency and the same share. */
	fprintf(g.f, "set xrange [%.1f:%.1f]\n", lo - 1.0, hi + 1.0);
	orp_gp_latency_axis(g.f, lo - 1.0, hi + 1.0, res);
	fprintf(g.f, "set logscale y\nset yrange [%.6g:250]\nset format y '%%g'\nset ytics nomirror\nset mytics 1\n"
		     "set ylabel '%% (log)'\nset grid ytics lc rgb '#e0e0e0'\n"
		     "set style fill solid 0.8 noborder\nset boxwidth 0.85\n", least / 4.0);
	/* Room above each panel for its title, and above all for the chart's. */
	fprintf(g.f, "set multiplot layout %zu,1 margins screen 0.09, 0.97, %.4f, %.4f spacing screen 0, %.4f title ",
		n, 48.0 / height, 1.0 - 58.0 / height, 66.0 / height);
	osp_esc_gp(g.f, title);
	fputc('\n', g.f);
	for (size_t k = 0; k < n; k++) {
		double mean = osp_hist_mean(h[k]);

		orp_gp_set_str(g.f, "title", names[k]);
		fputs("unset arrow\n", g.f);
		/* The mean, dashed: where the layer's time per request sits. */
		if (mean > 1.0)
			fprintf(g.f, "set arrow 1 from %.4f, graph 0 to %.4f, graph 1 nohead front dt 2 lw 2 lc rgb '%s'\n",
				orp_gp_latency_pos(mean, res), orp_gp_latency_pos(mean, res),
				orp_gp_colours[1]);
		fputs(k + 1 == n ? "set xlabel 'latency (dashed: the mean)'\n" : "unset xlabel\n", g.f);
		fprintf(g.f, "plot $p%zu using 1:2 with boxes lc rgb '%s' notitle\n", k,
			orp_gp_colours[0]);
	}
	fputs("unset multiplot\n", g.f);
	return orp_gp_end(r, &g, err, errlen);
}

/* Stable by the layered view's order: fuse, fs, syscall, lower, ... */
static void order_layers(struct osp_profile **p, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct osp_profile *x = p[i];
		size_t j = i;

		for (; j > 0 && orp_layer_rank(p[j - 1]->layer) > orp_layer_rank(x->layer); j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

/*
 * Every request of each layer, a panel a layer (small multiples: never
 * several distributions on one set of axes), the same latency axis.
 */
int orp_chart_layers(struct orp_render *r, struct osp_profile *const *prof,
		     size_t n, char *err, size_t errlen)
{
	struct osp_hist tot[ORP_LAYERS_MAX];
	const struct osp_hist *hp[ORP_LAYERS_MAX];
	struct osp_profile *p[ORP_LAYERS_MAX];
	char labels[ORP_LAYERS_MAX][160], mean[16], sum[16];
	const char *names[ORP_LAYERS_MAX];
	size_t m = 0;
	int rc = 0;

	if (n < 2 || n > ORP_LAYERS_MAX)
		return 0;
	for (size_t k = 0; k < n; k++) {
		if (prof[k]->res != prof[0]->res)
			return 0; /* no common x axis */
		p[k] = prof[k];
	}
	order_layers(p, n);
	for (size_t k = 0; k < n && !rc; k++) {
		rc = orp_profile_total(p[k], &tot[m]);
		if (rc)
			break;
		if (osp_hist_bucket_total(&tot[m]) == 0) {
			osp_hist_fini(&tot[m]);
			continue;
		}
		snprintf(labels[m], sizeof(labels[m]), "%s: %" PRIu64 " requests, %s in all, mean %s",
			 p[k]->layer, tot[m].count, osp_fmt_ns(sum, sizeof(sum), (double)tot[m].sum),
			 osp_fmt_ns(mean, sizeof(mean), osp_hist_mean(&tot[m])));
		names[m] = labels[m];
		hp[m] = &tot[m];
		m++;
	}
	if (!rc && m >= 2)
		rc = orp_gp_panels(r, "layers", "every request of each layer, a panel a layer",
				   hp, names, m, err, errlen);
	else if (rc)
		snprintf(err, errlen, "layered view: %s", strerror(-rc));
	for (size_t k = 0; k < m; k++)
		osp_hist_fini(&tot[k]);
	return rc;
}

int orp_chart_ops(struct orp_render *r, const struct osp_profile *p,
		  size_t top, double min_share, char *err, size_t errlen)
{
	return each_op_by_total(r, p, orp_chart_op, top, min_share, err, errlen);
}

int orp_chart_all(struct orp_render *r, const struct orp_input *in,
		  size_t top, char *err, size_t errlen)
{
	int rc = 0;

	for (size_t k = 0; !rc && k < in->n; k++) {
		const struct osp_profile *p = in->prof[k];

		rc = orp_chart_overview(r, p, top, err, errlen);
		if (!rc)
			rc = orp_chart_ops(r, p, 0, 0.0, err, errlen);
		if (!rc)
			rc = orp_chart_timeline(r, p, 0, 0.0, err, errlen);
		if (!rc)
			rc = orp_chart_irq(r, p, err, errlen);
	}
	if (!rc)
		rc = orp_chart_layers(r, in->prof, in->n, err, errlen);
	if (!rc)
		rc = orp_chart_where_input(r, in, 0, err, errlen);
	return rc;
}
