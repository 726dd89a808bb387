// SPDX-License-Identifier: MIT
/*
 * `osprof-report html PROFILE [B] -o FILE`: one self-contained HTML file
 * -- inline CSS, the charts as inline SVG rendered by gnuplot, no script
 * and no network -- holding per layer the table of operations, their
 * peaks and every chart, and given B the comparison: a table of contents
 * (its anchors are ids made of indices, never of names), comparability
 * notes, the operations in order of total time with those that differ
 * shown and the others in one collapsed <details>, then both sides'
 * tables and options.
 * The charts are drawn in a private temporary directory that is removed
 * afterwards; their ids are prefixed per chart so that the many SVGs of
 * one page do not resolve each other's references. Every string from a
 * profile or the command line is written by core's osp_esc_html, in text
 * only (no attribute, script or style holds one); gnuplot escapes the
 * SVG text it draws from our (already escaped) titles.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/format.h"

#define CMD "html"

struct html_args {
	const char *out;
	uint64_t top;
	struct orp_cmp_args cmp; /* its layer is --layer */
};

/* Chart index ranges of each part of the page. */
struct html_parts {
	size_t first[ORP_LAYERS_MAX], end[ORP_LAYERS_MAX];
	size_t layers_first, layers_end;
	size_t cmp_first, cmp_end;
};

static void help(void)
{
	printf("Usage: " ORP_PROG " html -o FILE [OPTION]... PROFILE [B]\n"
	       "Write one self-contained HTML report (inline SVG charts, no scripts, no\n"
	       "network): for each layer the operations table, peaks and charts; given\n"
	       "a second profile set B, the comparison of PROFILE (A) against it: contents,\n"
	       "comparability notes (options that differ), each operation in order of\n"
	       "total time with A and B side by side and overlays of those that differ\n"
	       "(the others collapsed), and both sides' tables and options. A set of\n"
	       "several layers of one run (a mount, a run directory, or a list\n"
	       "a/fs.json,a/fuse.json) also gets the layered view: fuse against fs per\n"
	       "operation, the other layers' top entries, and per operation the\n"
	       "layers' histograms overlaid.\n\n"
	       "  -o, --output FILE   the report (required; '-' for stdout)\n"
	       "  -l, --layer L       only layer L\n"
	       "  -n, --top N         operations in each overview (default 12, at most 16)\n"
	       "  -m, --method M      comparison method (default emd; see compare --help)\n"
	       "  -h, --help          this help\n\n"
	       "Examples:\n"
	       "  " ORP_PROG " html run.json -o run.html\n"
	       "  " ORP_PROG " html before.json after.json -o diff.html\n"
	       "  " ORP_PROG " html /mnt/p -o now.html\n"
	       "  " ORP_PROG " html run/fs.json,run/fuse.json -o layers.html\n");
}

static const char style[] =
	"body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}"
	"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em}"
	"table{border-collapse:collapse;margin:1em 0;font-size:.9em}"
	"td,th{border:1px solid #ddd;padding:.25em .6em;text-align:right}"
	"td.l,th.l{text-align:left}th{background:#f0f3f7}"
	"tr.diff td{background:#fff4f0}.meta{color:#555}"
	"figure{margin:1.5em 0}figcaption{color:#555;font-size:.9em}"
	"svg{max-width:100%;height:auto}section{margin:1em 0 2em}"
	"details>summary{cursor:pointer;font-weight:bold;margin:1em 0}";

/* The SVG of chart @i with ids prefixed "c<i>-", from its <svg element on. */
static int inline_svg(FILE *f, const struct orp_render *r, size_t i)
{
	static const char *const refs[] = { "id=\"", "id='", "href=\"#", "href='#", "url(#" };
	char *path = orp_chart_path(r, i, "svg"), *text, *s;
	size_t len;
	int rc = path ? osp_read_path(path, &text, &len) : -ENOMEM;

	free(path);
	if (rc)
		return rc;
	s = strstr(text, "<svg");
	while (s && *s) {
		size_t best = strlen(s), which = 0;

		for (size_t k = 0; k < sizeof(refs) / sizeof(refs[0]); k++) {
			char *hit = strstr(s, refs[k]);

			if (hit && (size_t)(hit - s) < best) {
				best = (size_t)(hit - s);
				which = k;
			}
		}
		if (best == strlen(s)) {
			fputs(s, f);
			break;
		}
		best += strlen(refs[which]);
		fwrite(s, 1, best, f);
		fprintf(f, "c%zu-", i);
		s += best;
	}
	free(text);
	return 0;
}

static int figures(FILE *f, const struct orp_render *r, size_t first, size_t end)
{
	for (size_t i = first; i < end; i++) {
		int rc;

		fputs("<figure>", f);
		rc = inline_svg(f, r, i);
		if (rc)
			return rc;
		fputs("<figcaption>", f);
		osp_esc_html(f, r->charts[i].title);
		fputs("</figcaption></figure>\n", f);
	}
	return 0;
}

static int kv_line(FILE *f, const char *what, const struct osp_kvlist *l)
{
	if (!l->n)
		return 0;
	fprintf(f, "<br>%s:", what);
	return osp_kv_print(f, l, osp_esc_html);
}

static int profile_meta(FILE *f, const char *spec, const struct osp_profile *p)
{
	char el[16];
	int rc;

	fputs("<p class=\"meta\">", f);
	osp_esc_html(f, spec);
	fputs(": host ", f);
	osp_esc_html(f, p->host ? p->host : "?");
	fputs(", clock ", f);
	osp_esc_html(f, p->clock_source ? p->clock_source : "?");
	fprintf(f, " (%.3f cycles/ns), resolution %u, unit ", p->cycles_per_ns, p->res);
	osp_esc_html(f, p->unit ? p->unit : "ns");
	fprintf(f, ", elapsed %s", osp_fmt_ns(el, sizeof(el), (double)p->elapsed_ns));
	rc = kv_line(f, "options", &p->options);
	if (!rc)
		rc = kv_line(f, "source", &p->source);
	fputs("</p>\n", f);
	return rc;
}

static const char ops_head[] =
	"<tr><th class=\"l\">%s</th><th>count</th><th>total</th><th>mean</th><th>p50</th>"
	"<th>p99</th><th>max</th><th>%% time</th><th>peaks</th></tr>\n";

/* One row of an operations table: @label, then @h's figures; @total_ns of its layer. */
static void op_row(FILE *f, const char *label, const struct osp_hist *h, double total_ns)
{
	struct osp_peak pk[OSP_PEAKS_MAX];
	size_t np = osp_hist_peaks(h, pk, OSP_PEAKS_MAX);
	char t[16], m[16], a[16], b[16], x[16];

	fputs("<tr><td class=\"l\">", f);
	osp_esc_html(f, label);
	fprintf(f, "</td><td>%" PRIu64 "</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.1f</td><td class=\"l\">",
		h->count, osp_fmt_ns(t, sizeof(t), (double)h->sum),
		osp_fmt_ns(m, sizeof(m), osp_hist_mean(h)),
		osp_fmt_ns(a, sizeof(a), osp_hist_percentile(h, 50)),
		osp_fmt_ns(b, sizeof(b), osp_hist_percentile(h, 99)),
		osp_fmt_ns(x, sizeof(x), (double)h->max),
		total_ns > 0 ? 100.0 * (double)h->sum / total_ns : 0.0);
	for (size_t k = 0; k < np; k++)
		fprintf(f, "%s%.0f%% ~%s", k ? ", " : "", 100.0 * pk[k].share,
			osp_fmt_ns(m, sizeof(m), pk[k].mean_ns));
	fprintf(f, "%s</td></tr>\n", osp_hist_checksum_ok(h) ? "" : " (checksum fails!)");
}

static double profile_total_ns(const struct osp_profile *p)
{
	double total = 0.0;

	for (size_t i = 0; p && i < p->nops; i++)
		total += (double)p->ops[i].lat.sum;
	return total;
}

static int ops_table(FILE *f, const struct osp_profile *p)
{
	const struct osp_op **v = calloc(p->nops + 1, sizeof(*v));
	double total = profile_total_ns(p);
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nops; i++)
		if (p->ops[i].lat.count)
			v[n++] = &p->ops[i];
	qsort(v, n, sizeof(*v), orp_cmp_op_total);
	fputs("<table>", f);
	fprintf(f, ops_head, "operation");
	for (size_t i = 0; i < n; i++)
		op_row(f, v[i]->name, &v[i]->lat, total);
	fputs("</table>\n", f);
	free(v);
	return 0;
}

static const struct osp_profile *find_layer(const struct orp_input *in, const char *layer)
{
	for (size_t k = 0; k < in->n; k++)
		if (strcmp(in->prof[k]->layer, layer) == 0)
			return in->prof[k];
	return NULL;
}

/* One note of the comparability list: "<li>layer L: WHAT: A x, B y</li>". */
/*
 * The comparability notes: what differs between A and B in what reaches
 * the profiler, per layer both sides have (core's osp_profile_comparable,
 * through orp_compat_html), and the layers only one side has.
 */
static int comparability_notes(FILE *f, const struct orp_input *in)
{
	size_t n = 0;
	int rc;

	fputs("<h2 id=\"notes\">Comparability notes</h2>\n<ul>\n", f);
	rc = orp_compat_html(f, &in[0], &in[1], &n);
	for (size_t s = 0; !rc && s < 2; s++)
		for (size_t k = 0; k < in[s].n; k++)
			if (!find_layer(&in[1 - s], in[s].prof[k]->layer)) {
				fputs("<li>layer ", f);
				osp_esc_html(f, in[s].prof[k]->layer);
				fprintf(f, ": only in %s</li>\n", s ? "B" : "A");
				n++;
			}
	if (!rc && !n)
		fputs("<li>none: every layer's clock, resolution, unit and options are the same on both sides</li>\n", f);
	fputs("</ul>\n", f);
	return rc;
}

/* Total latency of an item, both sides: the order of the page. */
static double item_total_ns(const struct osp_cmp_item *it)
{
	return (it->a ? (double)it->a->lat.sum : 0.0) + (it->b ? (double)it->b->lat.sum : 0.0);
}

static int cmp_item_total(const void *x, const void *y, void *items)
{
	const struct osp_cmp_item *a = (const struct osp_cmp_item *)items + *(const size_t *)x;
	const struct osp_cmp_item *b = (const struct osp_cmp_item *)items + *(const size_t *)y;
	double ta = item_total_ns(a), tb = item_total_ns(b);
	int l;

	if (ta != tb)
		return ta < tb ? 1 : -1;
	l = strcmp(a->layer, b->layer);
	return l ? l : strcmp(a->name, b->name);
}

/* The indices of @c's items, most total latency (A + B) first; NULL: -ENOMEM. */
static size_t *items_by_total(const struct osp_cmp *c)
{
	size_t *v = calloc(c->n + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < c->n; i++)
		v[i] = i;
	qsort_r(v, c->n, sizeof(*v), cmp_item_total, c->items);
	return v;
}

static void item_title(FILE *f, const struct osp_cmp_item *it)
{
	osp_esc_html(f, it->layer);
	fputs(" / ", f);
	osp_esc_html(f, it->name);
}

/* The table of contents: sections, then each differing operation. */
static void toc(FILE *f, const struct orp_input *in, const struct osp_cmp *c,
		const size_t *order, bool layered)
{
	fputs("<nav><h2 id=\"contents\">Contents</h2>\n<ul>\n"
	      "<li><a href=\"#notes\">Comparability notes</a></li>\n"
	      "<li><a href=\"#summary\">Summary</a></li>\n"
	      "<li><a href=\"#ops\">Operations that differ</a><ul>\n", f);
	for (size_t j = 0; j < c->n; j++) {
		const struct osp_cmp_item *it = &c->items[order[j]];

		if (!osp_cmp_interesting(it->verdict))
			continue;
		fprintf(f, "<li><a href=\"#op-%zu\">", order[j]);
		item_title(f, it);
		fputs("</a></li>\n", f);
	}
	fputs("</ul></li>\n", f);
	if (c->n > c->ninteresting)
		fprintf(f, "<li><a href=\"#same\">%zu operations that do not differ</a></li>\n",
			c->n - c->ninteresting);
	if (layered)
		fputs("<li><a href=\"#layered\">Layered view</a></li>\n", f);
	for (size_t s = 0; s < 2; s++)
		for (size_t k = 0; k < in[s].n; k++) {
			fprintf(f, "<li><a href=\"#p%zu-%zu\">%s: layer ", s, k, s ? "B" : "A");
			osp_esc_html(f, in[s].prof[k]->layer);
			fputs("</a></li>\n", f);
		}
	fputs("</ul></nav>\n", f);
}

/* The rows of @c's differing (@differ) or other items, in @order. */
static void summary_table(FILE *f, const struct osp_cmp *c, const size_t *order, bool differ)
{
	fputs("<table><tr><th class=\"l\">layer / operation</th><th class=\"l\">verdict</th>"
	      "<th>rank</th><th>count A</th><th>count B</th><th>total A</th><th>total B</th>"
	      "<th class=\"l\">reason</th></tr>\n", f);
	for (size_t j = 0; j < c->n; j++) {
		const struct osp_cmp_item *it = &c->items[order[j]];
		char reason[1024], ta[16], tb[16];

		if (osp_cmp_interesting(it->verdict) != differ)
			continue;
		orp_cmp_reason(it, c, reason, sizeof(reason));
		fprintf(f, "<tr%s><td class=\"l\"><a href=\"#op-%zu\">",
			differ ? " class=\"diff\"" : "", order[j]);
		item_title(f, it);
		fprintf(f, "</a></td><td class=\"l\">%s</td><td>%zu</td><td>%" PRIu64 "</td><td>%" PRIu64
			"</td><td>%s</td><td>%s</td><td class=\"l\">",
			osp_cmp_verdict_name(it->verdict), order[j] + 1,
			it->a ? it->a->lat.count : 0, it->b ? it->b->lat.count : 0,
			osp_fmt_ns(ta, sizeof(ta), it->a ? (double)it->a->lat.sum : 0.0),
			osp_fmt_ns(tb, sizeof(tb), it->b ? (double)it->b->lat.sum : 0.0));
		osp_esc_html(f, reason);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void summary(FILE *f, const struct osp_cmp *c, const struct orp_input *in,
		    const size_t *order)
{
	fputs("<h2 id=\"summary\">Summary</h2>\n<p class=\"meta\">A: ", f);
	osp_esc_html(f, in[0].spec);
	fputs("<br>B: ", f);
	osp_esc_html(f, in[1].spec);
	fprintf(f, "<br>method %s, threshold %g %s</p>\n<p>%zu of %zu operations differ.</p>\n",
		osp_dist_method_name(c->method), c->threshold, orp_cmp_unit(c->method),
		c->ninteresting, c->n);
	if (c->ninteresting)
		summary_table(f, c, order, true);
}

/* One operation: its verdict and reason, A and B side by side, its overlay if drawn. */
static int op_section(FILE *f, const struct osp_cmp *c, size_t i, const struct orp_input *in,
		      const struct orp_render *r, const struct html_parts *parts)
{
	const struct osp_cmp_item *it = &c->items[i];
	const struct osp_op *side[2] = { it->a, it->b };
	char reason[1024];

	orp_cmp_reason(it, c, reason, sizeof(reason));
	fprintf(f, "<section id=\"op-%zu\"><h3>", i);
	item_title(f, it);
	fprintf(f, ": %s</h3>\n<p>", osp_cmp_verdict_name(it->verdict));
	osp_esc_html(f, reason);
	fputs("</p>\n<table>", f);
	fprintf(f, ops_head, "side");
	for (size_t s = 0; s < 2; s++) {
		if (side[s])
			op_row(f, s ? "B" : "A", &side[s]->lat,
			       profile_total_ns(find_layer(&in[s], it->layer)));
		else
			fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\" colspan=\"8\">absent</td></tr>\n",
				s ? "B" : "A");
	}
	fputs("</table>\n", f);
	if (i < c->ninteresting && parts->cmp_first + i < parts->cmp_end) {
		int rc = figures(f, r, parts->cmp_first + i, parts->cmp_first + i + 1);

		if (rc)
			return rc;
	}
	fputs("</section>\n", f);
	return 0;
}

/*
 * The comparison: contents, comparability notes, the summary in order of
 * total time, then each operation in that order: those that differ shown,
 * the others inside one collapsed <details>.
 */
static int cmp_part(FILE *f, const struct orp_input *in, const struct osp_cmp *c,
		    const struct orp_render *r, const struct html_parts *parts, bool layered)
{
	size_t *order = items_by_total(c);
	int rc = 0;

	if (!order)
		return -ENOMEM;
	toc(f, in, c, order, layered);
	if (comparability_notes(f, in))
		return -ENOMEM;
	summary(f, c, in, order);
	fputs("<h2 id=\"ops\">Operations that differ</h2>\n", f);
	for (size_t j = 0; !rc && j < c->n; j++)
		if (osp_cmp_interesting(c->items[order[j]].verdict))
			rc = op_section(f, c, order[j], in, r, parts);
	if (!rc && c->n > c->ninteresting) {
		fprintf(f, "<details id=\"same\"><summary>%zu operations that do not differ</summary>\n",
			c->n - c->ninteresting);
		summary_table(f, c, order, false);
		for (size_t j = 0; !rc && j < c->n; j++)
			if (!osp_cmp_interesting(c->items[order[j]].verdict))
				rc = op_section(f, c, order[j], in, r, parts);
		fputs("</details>\n", f);
	}
	free(order);
	return rc;
}

static int write_page(FILE *f, const struct orp_input *in, size_t nin,
		      const struct osp_cmp *c, const struct orp_layered_view *lv,
		      const struct orp_render *r, const struct html_parts *parts)
{
	bool layered = lv->n || parts->layers_end > parts->layers_first;
	int rc = 0;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>osprof %s: ",
		nin == 2 ? "comparison" : "report");
	osp_esc_html(f, in[0].spec);
	if (nin == 2) {
		fputs(" against ", f);
		osp_esc_html(f, in[1].spec);
	}
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>osprof %s: ", style,
		nin == 2 ? "comparison" : "report");
	osp_esc_html(f, in[0].spec);
	if (nin == 2) {
		fputs(" (A) against ", f);
		osp_esc_html(f, in[1].spec);
		fputs(" (B)", f);
	}
	fputs("</h1>\n", f);
	if (nin == 2)
		rc = cmp_part(f, in, c, r, parts, layered);
	if (!rc && layered) {
		fputs("<h2 id=\"layered\">Layered view</h2>\n", f);
		rc = orp_layered_write_html(f, lv);
		if (!rc)
			rc = figures(f, r, parts->layers_first, parts->layers_end);
	}
	for (size_t s = 0; s < nin; s++) {
		for (size_t k = 0; !rc && k < in[s].n; k++) {
			fprintf(f, "<h2 id=\"p%zu-%zu\">%sLayer ", s, k, nin == 2 ? (s ? "B: " : "A: ") : "");
			osp_esc_html(f, in[s].prof[k]->layer);
			fputs("</h2>\n", f);
			rc = profile_meta(f, in[s].spec, in[s].prof[k]);
			if (!rc)
				rc = ops_table(f, in[s].prof[k]);
			/* The charts are A's: B's are in its overlays. */
			if (!rc && s == 0)
				rc = figures(f, r, parts->first[k], parts->end[k]);
		}
	}
	fputs("<p class=\"meta\">Made by osprof-report.</p>\n</body></html>\n", f);
	return rc ? rc : (ferror(f) ? -EIO : 0);
}

/* Draw every chart of the page into r (its directory exists). */
static int draw(struct orp_render *r, const struct orp_input *in, size_t nin,
		const struct osp_cmp *c, uint64_t top, struct html_parts *parts,
		char *err, size_t errlen)
{
	int rc = 0;

	for (size_t k = 0; !rc && k < in[0].n; k++) {
		const struct osp_profile *p = in[0].prof[k];

		parts->first[k] = r->n;
		rc = orp_chart_overview(r, p, top, err, errlen);
		if (!rc)
			rc = orp_chart_timeline(r, p, 0, 0.0, err, errlen);
		if (!rc)
			rc = orp_chart_irq(r, p, err, errlen);
		if (!rc)
			rc = orp_chart_ops(r, p, 0, 0.0, err, errlen); /* most total time first */
		parts->end[k] = r->n;
	}
	parts->layers_first = r->n;
	if (!rc)
		rc = orp_chart_layers(r, in[0].prof, in[0].n, err, errlen);
	parts->layers_end = parts->cmp_first = r->n;
	for (size_t i = 0; !rc && nin == 2 && i < c->ninteresting; i++)
		rc = orp_chart_overlay(r, c, &c->items[i], in[0].spec, in[1].spec,
				       err, errlen);
	parts->cmp_end = r->n;
	return rc ? rc : orp_render_run(r, err, errlen);
}

/* Remove the flat temporary directory @dir and everything in it. */
static void remove_tmpdir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (asprintf(&p, "%s/%s", dir, e->d_name) >= 0) {
			unlink(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

static int opt_method(const struct osp_opt *opt, const char *arg)
{
	if (osp_dist_method_parse(arg, opt->dst)) {
		orp_usage_error(CMD, "unknown method '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct html_args *a)
{
	const struct osp_opt opts[] = {
		{ 'o', "output", OSP_OPT_STR, &a->out },
		{ 'l', "layer", OSP_OPT_STR, &a->cmp.layer },
		{ 'n', "top", OSP_OPT_U64, &a->top, .umin = 1, .umax = 16 },
		{ 'm', "method", OSP_OPT_CALL, &a->cmp.opts.method, .call = opt_method },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc;

	a->top = 12;
	osp_cmp_opts_default(&a->cmp.opts, OSP_DIST_EMD);
	rc = orp_opts_parse(CMD, opts, argc, argv, help);
	if (rc)
		return rc;
	if (!a->out || argc - optind < 1 || argc - optind > 2) {
		orp_usage_error(CMD, "%s", !a->out ? "-o FILE is required"
						  : "one PROFILE, and optionally B, needed");
		return -EINVAL;
	}
	return 0;
}

/* Everything after loading: compare, draw, write. */
static int report(const struct html_args *a, const struct orp_input *in,
		  size_t nin, char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512];
	struct orp_render r;
	struct osp_cmp c = { 0 };
	struct html_parts parts = { 0 };
	struct orp_layered l;
	struct orp_layered_view lv = { 0 };
	const char *twice;
	struct orp_out out;
	int rc;

	/* A TMPDIR too long for the buffer falls back to /tmp. */
	if (!tmp || !*tmp || strlen(tmp) > sizeof(dir) - 32)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/osprof-report-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot create a temporary directory: %.200s",
			 tmp, strerror(e));
		return -e;
	}
	orp_render_init(&r, dir, ORP_FMT_SVG);
	r.scratch = true;
	rc = nin == 2 ? orp_compare_inputs(&in[0], &in[1], &a->cmp, &c, err, errlen) : 0;
	if (!rc && orp_layered_gather(&in[0], 1, &l, &twice) &&
	    orp_layered_build(&l, 0, &lv)) {
		snprintf(err, errlen, "layered view: out of memory");
		rc = -ENOMEM;
	}
	if (!rc)
		rc = draw(&r, in, nin, &c, a->top, &parts, err, errlen);
	if (!rc)
		rc = orp_out_open(&out, a->out, err, errlen);
	if (!rc)
		rc = orp_out_close(&out, write_page(out.f, in, nin, &c, &lv, &r, &parts),
				   err, errlen);
	orp_layered_view_fini(&lv);
	osp_cmp_free(&c);
	orp_render_fini(&r);
	remove_tmpdir(dir);
	return rc;
}

int orp_cmd_html(int argc, char **argv)
{
	struct html_args a = { 0 };
	struct orp_input *in = NULL;
	char err[ORP_ERRLEN];
	size_t nin;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc == 1 ? ORP_EXIT_OK : ORP_EXIT_ERROR;
	nin = (size_t)(argc - optind);
	if (orp_inputs_load(argv + optind, nin, a.cmp.layer, &in, err, sizeof(err))) {
		orp_error("%s", err);
		return ORP_EXIT_ERROR;
	}
	rc = report(&a, in, nin, err, sizeof(err));
	if (rc)
		orp_error("%s", err);
	orp_inputs_free(in, nin);
	return rc ? ORP_EXIT_ERROR : ORP_EXIT_OK;
}
