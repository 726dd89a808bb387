// SPDX-License-Identifier: MIT
/*
 * The charts of "where the time goes" (orp_where.h). `where`: a bar per
 * operation, most time first, split into the shares of its principal
 * block -- the kernel outside FUSE, the FUSE transport, the daemon, the
 * lower file system, the disk -- in one colour each, the block's last
 * layer lighter when layers below it do not subtract from it, and beside
 * the bar what 100% is (mean, count, layer, total). `where-OP`: the
 * distribution of each of an operation's levels in a panel of its own,
 * top down, on one latency axis (small multiples, orp_gp_panels).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orp_gp.h"
#include "orp_where.h"
#include "osprof/format.h"

#define WHERE_TOP 12
/* A bar's half height, in rows. */
#define BAR 0.34

/* What a segment is, a colour each: by the level it starts at. */
enum seg_kind { SEG_KERNEL, SEG_FUSE, SEG_DAEMON, SEG_LOWER, SEG_DISK, SEG_PASSED, SEG__COUNT };

static const struct {
	const char *title, *colour;
} segs[] = {
	[SEG_KERNEL] = { "kernel outside FUSE", "#8e5bb5" },
	[SEG_FUSE] = { "FUSE transport, queueing", "#d0453a" },
	[SEG_DAEMON] = { "daemon's own work", "#d08a1e" },
	[SEG_LOWER] = { "lower file system", "#2f6db5" },
	[SEG_DISK] = { "disk", "#3a9a4f" },
	[SEG_PASSED] = { "passed through to the lower fs", "#3aa3a8" },
};
_Static_assert(sizeof(segs) / sizeof(segs[0]) == SEG__COUNT, "a title for every kind");

static enum seg_kind kind_of(const struct orp_wrow *r)
{
	if (r->step && r->verdict == ORP_WV_PASSTHROUGH)
		return SEG_PASSED;
	switch (r->up) {
	case ORP_WL_APP:
		return SEG_KERNEL;
	case ORP_WL_FUSE:
		return SEG_FUSE;
	case ORP_WL_FS:
		return SEG_DAEMON;
	case ORP_WL_LOWER:
		return SEG_LOWER;
	default:
		return SEG_DISK;
	}
}

/* One segment: x from @x0 to @x1 (percent) in row @y. */
struct seg {
	double x0, x1, y;
	enum seg_kind kind;
	bool hatched;
};

/* The segments of @op's principal block in row @y; how many (at most @max). */
static size_t op_segments(const struct orp_where_op *op, double y, struct seg *s, size_t max)
{
	size_t first, end, n = 0;
	double x = 0.0;
	bool open;

	if (!orp_where_block(op, &first, &end, &open))
		return 0;
	for (size_t i = first + 1; i < end && n < max; i++) {
		const struct orp_wrow *r = &op->rows[i];
		double w = isnan(r->share) ? 0.0 : 100.0 * fmax(r->share, 0.0);

		/* A share past what is left (a layer below that took longer) stops at 100%. */
		w = fmin(w, 100.0 - x);
		s[n++] = (struct seg){ x, x + w, y, kind_of(r), !r->step && open };
		x += w;
	}
	return n;
}

/* "27us x 468348 calls (syscall), 12.6s": what 100% of a bar is. */
static void bar_label(char *buf, size_t len, const struct orp_where_op *op)
{
	size_t first = 0, end;
	bool open;
	char m[16], t[16];
	const struct orp_wrow *b;

	bool block = orp_where_block(op, &first, &end, &open);

	if (!op->nrows) {
		snprintf(buf, len, "no requests");
		return;
	}
	b = &op->rows[block ? first : 0];
	snprintf(buf, len, "%s x %" PRIu64 " (%s), %s in all%s", osp_fmt_ns(m, sizeof(m), b->mean_ns),
		 b->count_up, orp_wlevel_layer(b->up), osp_fmt_ns(t, sizeof(t), b->total_ns),
		 block ? "" : ": no step subtracts");
}

/* Whether a segment of kind @k (any: SEG__COUNT), lighter or not, is drawn. */
static bool kind_used(const struct seg *s, size_t n, enum seg_kind k, bool light)
{
	for (size_t i = 0; i < n; i++)
		if ((k == SEG__COUNT || s[i].kind == k) && s[i].hatched == light && s[i].x1 > s[i].x0)
			return true;
	return false;
}

/*
 * The legend, drawn by hand in a row under the title (gnuplot's key
 * would not keep to one): a swatch and a name per kind drawn, and the
 * lighter shade explained when used. @h: the image's height in pixels.
 */
static void legend(FILE *f, const struct seg *s, size_t n, int h, int *lab)
{
	double x = 0.14, y = 1.0 - 40.0 / h, dy = 6.0 / h;
	int obj = 1;

	for (int k = 0; k <= SEG__COUNT; k++) {
		bool light = k == SEG__COUNT;
		const char *title = light ? "lighter: with the layers below, which do not subtract"
					  : segs[k].title;
		double w = 0.04 + 0.0072 * (double)strlen(title);

		if (!kind_used(s, n, (enum seg_kind)k, light))
			continue;
		if (x + w > 0.99) { /* the next row */
			x = 0.14;
			y -= 18.0 / h;
		}
		fprintf(f, "set object %d rect from screen %.4f, %.4f to screen %.4f, %.4f fc rgb '%s' fs %s noborder\n",
			obj++, x, y - dy, x + 0.018, y + dy, light ? "#777777" : segs[k].colour,
			light ? "transparent solid 0.35" : "solid 0.9");
		fprintf(f, "set label %d ", (*lab)++);
		osp_esc_gp(f, title);
		fprintf(f, " at screen %.4f, %.4f left\n", x + 0.024, y);
		x += w;
	}
}

/* A data block per kind drawn: "x0 x1 y0 y1" a segment. */
static void where_data(FILE *f, const struct seg *s, size_t n)
{
	for (int k = 0; k < SEG__COUNT; k++) {
		for (int light = 0; light < 2; light++) {
			if (!kind_used(s, n, (enum seg_kind)k, light))
				continue;
			fprintf(f, "$s%d%s << EOD\n", k, light ? "h" : "");
			for (size_t i = 0; i < n; i++)
				if ((int)s[i].kind == k && s[i].hatched == light && s[i].x1 > s[i].x0)
					fprintf(f, "%.4f %.4f %.4f %.4f\n", s[i].x0, s[i].x1,
						s[i].y - BAR, s[i].y + BAR);
			fputs("EOD\n", f);
		}
	}
}

int orp_chart_where(struct orp_render *r, const struct orp_where *w, size_t top,
		    char *err, size_t errlen)
{
	size_t n = 0, nseg = 0, cap;
	struct seg *s;
	struct orp_gp g;
	int rc, lab = 1, h;

	top = top ? top : WHERE_TOP;
	n = w->n < top ? w->n : top;
	if (!n)
		return 0;
	cap = n * ORP_WHERE_ROWS;
	s = calloc(cap, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* The first operation at the top. */
	for (size_t i = 0; i < n; i++)
		nseg += op_segments(&w->ops[i], (double)(n - 1 - i), s + nseg, cap - nseg);
	h = 170 + 34 * (int)n;
	rc = orp_gp_begin(r, &g, "where", "where the time goes: each operation's time, by layer",
			  1000, h, err, errlen);
	if (rc) {
		free(s);
		return rc;
	}
	where_data(g.f, s, nseg);
	/* The title in the top row, the legend's rows under it. */
	fputs("set label 1000 ", g.f);
	osp_esc_gp(g.f, "where the time goes: the shares of each operation's time, by layer");
	fprintf(g.f, " at screen 0.5, %.4f center\n", 1.0 - 16.0 / h);
	fprintf(g.f, "set xrange [0:100]\nset yrange [-0.6:%.1f]\n", n - 0.4);
	fputs("set xtics 0, 20, 100 format '%g%%' nomirror out\nset xlabel 'share of the time of the layer named at the right'\n"
	      "unset mxtics\nset grid xtics lc rgb '#dddddd'\nset ytics () nomirror scale 0\n"
	      "set lmargin at screen 0.14\nset rmargin at screen 0.64\nset bmargin 3.5\nunset key\n", g.f);
	fprintf(g.f, "set tmargin at screen %.4f\n", 1.0 - 84.0 / h);
	/*
	 * Operation names on the y axis, from the profile: as data, since
	 * gnuplot reads a tic label given in a command as a format (a % in
	 * a name would be one); drawn by points out of the x range.
	 */
	orp_gp_data_begin(g.f, "names");
	for (size_t i = 0; i < n; i++) {
		osp_esc_gp_data(g.f, w->ops[i].name);
		fprintf(g.f, " %zu\n", n - 1 - i);
	}
	orp_gp_data_end(g.f);
	for (size_t i = 0; i < n; i++) {
		char text[128];

		bar_label(text, sizeof(text), &w->ops[i]);
		fprintf(g.f, "set label %d ", lab++);
		osp_esc_gp(g.f, text);
		fprintf(g.f, " at graph 1.01, first %zu left\n", n - 1 - i);
	}
	/* Shares of a tenth or more written on their segment. */
	for (size_t i = 0; i < nseg; i++)
		if (s[i].x1 - s[i].x0 >= 10.0)
			fprintf(g.f, "set label %d '%s%.0f%%%s' at %.3f, %.3f center front tc rgb '%s'\n",
				lab++, s[i].hatched ? "(" : "", s[i].x1 - s[i].x0, s[i].hatched ? ")" : "",
				(s[i].x0 + s[i].x1) / 2, s[i].y, s[i].hatched ? "#222222" : "white");
	legend(g.f, s, nseg, h, &lab);
	fputs("plot $names using (-1):2:ytic(1) with points pt -1 notitle", g.f);
	for (int k = 0; k < SEG__COUNT; k++) {
		for (int light = 0; light < 2; light++) {
			if (!kind_used(s, nseg, (enum seg_kind)k, light))
				continue;
			fprintf(g.f, ", \\\n     $s%d%s using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror lc rgb '%s' fs %s noborder notitle",
				k, light ? "h" : "", segs[k].colour,
				light ? "transparent solid 0.35" : "solid 0.9");
		}
	}
	fputc('\n', g.f);
	free(s);
	return orp_gp_end(r, &g, err, errlen);
}

/* A block operation's queue time ("vda.read.queue"), by core's split. */
static bool block_queue(const char *name)
{
	const char *op;

	return osp_block_split(name, &op) && strchr(op, '.');
}

/* ---- per operation: each level's distribution ----------------------------- */

int orp_chart_where_op(struct orp_render *r, const struct orp_where_op *op,
		       char *err, size_t errlen)
{
	const struct osp_hist *hp[ORP_WL__COUNT];
	const char *names[ORP_WL__COUNT];
	char labels[ORP_WL__COUNT][256], hint[192], title[256], mean[16];
	size_t n = 0;
	unsigned res = 0;

	for (int lv = 0; lv < ORP_WL__COUNT; lv++) {
		const struct orp_wside *s = &op->lv[lv];
		size_t o;

		if (!s->present || !s->count || !osp_hist_bucket_total(&s->hist))
			continue;
		if (n && s->hist.res != res)
			continue; /* one latency axis: a level of another resolution is left out */
		res = s->hist.res;
		/* The panel's own numbers: the disk's queue time is not in it. */
		o = (size_t)snprintf(labels[n], sizeof(labels[n]), "%s: %" PRIu64 " %s, mean %s",
				     orp_wlevel_layer((enum orp_wlevel)lv), s->hist.count,
				     lv == ORP_WL_APP ? "calls" : lv == ORP_WL_DISK ? "disk requests" : "requests",
				     osp_fmt_ns(mean, sizeof(mean), osp_hist_mean(&s->hist)));
		for (size_t k = 0, m = 0; k < s->ncalls && o < sizeof(labels[n]); k++)
			if (lv != ORP_WL_DISK || !block_queue(s->call[k]->name))
				o += (size_t)snprintf(labels[n] + o, sizeof(labels[n]) - o, "%s%s",
						      m++ ? ", " : " (", s->call[k]->name);
		if (s->ncalls && o < sizeof(labels[n]))
			snprintf(labels[n] + o, sizeof(labels[n]) - o, ")");
		names[n] = labels[n];
		hp[n++] = &s->hist;
	}
	if (n < 2)
		return 0;
	snprintf(hint, sizeof(hint), "where-%s", op->name);
	snprintf(title, sizeof(title), "%s: each layer's latency, top down", op->name);
	return orp_gp_panels(r, hint, title, hp, names, n, err, errlen);
}

int orp_chart_where_ops(struct orp_render *r, const struct orp_where *w,
			size_t per_op, char *err, size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < w->n && (!per_op || i < per_op); i++)
		rc = orp_chart_where_op(r, &w->ops[i], err, errlen);
	return rc;
}

int orp_chart_where_input(struct orp_render *r, const struct orp_input *in,
			  size_t per_op, char *err, size_t errlen)
{
	struct orp_layered l;
	struct orp_where w;
	const char *twice;
	int rc;

	if (!orp_layered_gather(in, 1, &l, &twice))
		return 0;
	rc = orp_where_build(&l, &w);
	if (rc == -ENOENT) {
		orp_where_fini(&w);
		return 0;
	}
	if (rc)
		snprintf(err, errlen, "where the time goes: out of memory");
	if (!rc)
		rc = orp_chart_where(r, &w, 0, err, errlen);
	if (!rc)
		rc = orp_chart_where_ops(r, &w, per_op, err, errlen);
	orp_where_fini(&w);
	return rc;
}
