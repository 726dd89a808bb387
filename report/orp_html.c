// SPDX-License-Identifier: MIT
/*
 * `osprof-report html PROFILE [B] -o FILE`: one self-contained HTML file
 * -- inline CSS, the charts as inline SVG rendered by gnuplot, no script
 * and no network. A short title (the run's name, its paths in a details
 * line), a table of contents, then "where the time goes" first (the
 * summary, its chart, a table per operation: orp_where.h), given B the
 * comparison (orp_html_cmp.c), the layered view, and per layer its
 * operations table and a few charts: the overview of its top operations,
 * and those that take a tenth of its time or more. Anchors are ids made
 * of indices, never of names.
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

#include "orp_html.h"
#include "orp_where.h"
#include "osprof/escape.h"
#include "osprof/format.h"

#define CMD "html"
/* A layer's operations drawn one by one: at most this many, each with at
 * least this share of the layer's time (the overview shows them all). */
#define OP_CHARTS 3
#define OP_CHART_SHARE 0.1
/* A spec no longer than this is the page's name as it is. */
#define NAME_MAX_SHORT 48

struct html_args {
	const char *out;
	uint64_t top;
	struct orp_cmp_args cmp; /* its layer is --layer */
};

/* What the page holds besides the inputs. */
struct html_page {
	const struct orp_input *in;
	size_t nin;
	const struct osp_cmp *c;           /* nin == 2 */
	const struct orp_where *w;         /* NULL: no "where the time goes" */
	const struct orp_where_view *wv;
	const struct orp_layered_view *lv; /* n == 0: no layered view */
	const struct orp_render *r;
	const struct html_parts *parts;
};

static void help(void)
{
	printf("Usage: " ORP_PROG " html -o FILE [OPTION]... PROFILE [B]\n"
	       "Write one self-contained HTML report (inline SVG charts, no scripts, no\n"
	       "network): a short title (the run's name; its paths in a details line),\n"
	       "contents, then for several layers of one run (a mount, a run directory,\n"
	       "or a list a/fs.json,a/fuse.json) \"where the time goes\" first: per FUSE\n"
	       "operation the layers stacked for the same requests, as a chart of\n"
	       "shares, a summary table and a table per operation with the counts of\n"
	       "each step; given a second profile set B, the comparison of PROFILE (A)\n"
	       "against it (comparability notes, each operation in order of total time\n"
	       "with A and B side by side and overlays of those that differ, the others\n"
	       "collapsed); the layered view (fuse against fs, each layer's top entries,\n"
	       "every request of each layer a panel each); then per layer the\n"
	       "operations table with peaks, the overview of its top operations and a\n"
	       "chart of each operation that takes a tenth of its time (three at most).\n\n"
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

/*
 * Tables and figures never wider than the page: a long name wraps
 * anywhere, a chart scales down; a cell keeps its leading blanks (a
 * step of "where the time goes" is indented under its level). The contents' entries of a section on
 * a line or two, so "where the time goes" starts on the first screen.
 */
static const char style[] =
	"body{font-family:sans-serif;margin:2em auto;padding:0 1em;color:#222;max-width:1100px}"
	"h1{font-size:1.6em;margin-bottom:.2em;overflow-wrap:anywhere}"
	"h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}"
	"h3{font-size:1.05em;margin:1.4em 0 .3em;overflow-wrap:anywhere}"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.85em;max-width:100%}"
	"td,th{border:1px solid #ddd;padding:.2em .5em;text-align:right;overflow-wrap:anywhere}"
	"td.l,th.l{text-align:left}td.l{white-space:pre-wrap}th{background:#f0f3f7}"
	"tr.diff td{background:#fff4f0}.meta{color:#555;font-size:.9em;overflow-wrap:anywhere}"
	"p{overflow-wrap:anywhere}"
	"figure{margin:1em 0}figcaption{color:#555;font-size:.9em;overflow-wrap:anywhere}"
	"svg{max-width:100%;height:auto}section{margin:.5em 0 1.5em}"
	"nav ul{margin:.2em 0}nav li{overflow-wrap:anywhere}"
	"nav ul ul{padding-left:1em}nav ul ul li{display:inline-block;margin-right:1em}"
	"details>summary{cursor:pointer;font-weight:bold;margin:1em 0}"
	"details.meta>summary{font-weight:normal;margin:.3em 0}";

/* ---- shared with orp_html_cmp.c ------------------------------------------ */

/*
 * Drop the empty groups gnuplot's SVG terminal writes around every
 * element it draws nothing into ("<g fill=... >\n</g>\n"): a twentieth
 * of a chart's bytes, and nothing a browser shows. In place.
 */
static void drop_empty_groups(char *text)
{
	static const char open[] = "<g fill=\"none\" color=\"";
	char *in = text, *out = text;

	while (*in) {
		char *gt = strncmp(in, open, sizeof(open) - 1) == 0 ? strchr(in, '>') : NULL;

		/* One tag (no '<' inside it) closed at once. */
		if (gt && strncmp(gt, ">\n</g>\n", 7) == 0 && !memchr(in + 1, '<', (size_t)(gt - in - 1))) {
			in = gt + 7;
			continue;
		}
		*out++ = *in++;
	}
	*out = '\0';
}

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
	drop_empty_groups(text);
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

int orp_html_figures(FILE *f, const struct orp_render *r, size_t first, size_t end)
{
	for (size_t i = first; i < end && i < r->n; i++) {
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

void orp_html_ops_head(FILE *f, const char *first)
{
	fputs("<tr><th class=\"l\">", f);
	osp_esc_html(f, first);
	fputs("</th><th>count</th><th>total</th><th>mean</th><th>p50</th>"
	      "<th>p99</th><th>max</th><th>% time</th><th class=\"l\">peaks</th></tr>\n", f);
}

void orp_html_op_row(FILE *f, const char *label, const struct osp_hist *h, double total_ns)
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

double orp_html_total_ns(const struct osp_profile *p)
{
	double total = 0.0;

	for (size_t i = 0; p && i < p->nops; i++)
		total += (double)p->ops[i].lat.sum;
	return total;
}

const struct osp_profile *orp_html_find_layer(const struct orp_input *in, const char *layer)
{
	for (size_t k = 0; k < in->n; k++)
		if (strcmp(in->prof[k]->layer, layer) == 0)
			return in->prof[k];
	return NULL;
}

/* The profiles of @in in the layered view's order (fuse, fs, syscall ...). */
static void layer_order(const struct orp_input *in, size_t *order)
{
	for (size_t i = 0; i < in->n; i++) {
		size_t j = i;

		for (; j > 0 && orp_layer_rank(in->prof[order[j - 1]]->layer) >
				     orp_layer_rank(in->prof[i]->layer); j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
}

/* ---- the title ------------------------------------------------------------- */

static bool name_sep(char c)
{
	return c == '.' || c == '-' || c == '_';
}

/*
 * The short name of an input: its spec when short and whole; for a list
 * of paths, the directory they share and the stem their file names
 * share ("demo/profile" for demo/profile.json,demo/profile.fuse.json);
 * else the spec's last component. Into @buf (raw bytes: escape them).
 */
static char *input_name(char *buf, size_t len, const char *spec)
{
	const char *comma = strchr(spec, ','), *slash;
	size_t common = strlen(spec), dir, stem;

	if (!comma && strlen(spec) <= NAME_MAX_SHORT) {
		snprintf(buf, len, "%s", spec);
		return buf;
	}
	if (!comma) {
		size_t n = strlen(spec);

		while (n > 1 && spec[n - 1] == '/')
			n--;
		slash = memrchr(spec, '/', n - 1);
		snprintf(buf, len, "%.*s", (int)(n - (slash ? (size_t)(slash + 1 - spec) : 0)),
			 slash ? slash + 1 : spec);
		return buf;
	}
	/* The prefix every part shares. */
	common = (size_t)(comma - spec);
	for (const char *p = comma + 1; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t k = 0, plen = strchr(p, ',') ? (size_t)(strchr(p, ',') - p) : strlen(p);

		while (k < common && k < plen && spec[k] == p[k])
			k++;
		common = k;
	}
	slash = memrchr(spec, '/', common);
	dir = slash ? (size_t)(slash - spec) : 0;
	/* The stem: the shared part of the file names, up to a separator. */
	stem = common;
	while (stem > (slash ? dir + 1 : 0) && !name_sep(spec[stem - 1]))
		stem--;
	while (stem > (slash ? dir + 1 : 0) && name_sep(spec[stem - 1]))
		stem--;
	if (slash) {
		const char *d = memrchr(spec, '/', dir);
		size_t from = d ? (size_t)(d + 1 - spec) : 0;

		if (stem > dir + 1)
			snprintf(buf, len, "%.*s/%.*s", (int)(dir - from), spec + from,
				 (int)(stem - dir - 1), spec + dir + 1);
		else
			snprintf(buf, len, "%.*s", (int)(dir - from), spec + from);
	} else {
		snprintf(buf, len, "%.*s", (int)stem, spec);
	}
	if (!*buf)
		snprintf(buf, len, "%.*s", (int)(comma - spec), spec);
	return buf;
}

/* One input's paths, a list item each (a list's parts apart). */
static void input_paths(FILE *f, const char *spec)
{
	const char *p = spec;

	if (!strchr(spec, ',') || access(spec, F_OK) == 0) {
		fputs("<li>", f);
		osp_esc_html(f, spec);
		fputs("</li>\n", f);
		return;
	}
	while (p) {
		const char *e = strchr(p, ',');
		char *part = strndup(p, e ? (size_t)(e - p) : strlen(p));

		fputs("<li>", f);
		osp_esc_html(f, part ? part : "?");
		fputs("</li>\n", f);
		free(part);
		p = e ? e + 1 : NULL;
	}
}

/* The value of source key @key of any profile of @in, or NULL (freed by the caller). */
static char *source_text(const struct orp_input *in, const char *key)
{
	for (size_t k = 0; k < in->n; k++)
		for (size_t i = 0; i < in->prof[k]->source.n; i++)
			if (strcmp(in->prof[k]->source.items[i].key, key) == 0)
				return osp_kv_text(&in->prof[k]->source.items[i]);
	return NULL;
}

/* "layers fs, fuse; mount M of L; host H" for input @in. */
static void input_meta(FILE *f, const struct orp_input *in)
{
	char *mount = source_text(in, "mount"), *lower = source_text(in, "lower"), el[16];

	size_t order[ORP_LAYERS_MAX];

	layer_order(in, order);
	fprintf(f, "%zu layer%s: ", in->n, in->n == 1 ? "" : "s");
	for (size_t k = 0; k < in->n; k++) {
		fputs(k ? ", " : "", f);
		osp_esc_html(f, in->prof[order[k]]->layer);
	}
	if (mount) {
		fputs(" &middot; mount ", f);
		osp_esc_html(f, mount);
	}
	if (lower) {
		fputs(mount ? " of " : " &middot; lower ", f);
		osp_esc_html(f, lower);
	}
	if (in->n) {
		fputs(" &middot; host ", f);
		osp_esc_html(f, in->prof[0]->host ? in->prof[0]->host : "?");
		fprintf(f, " &middot; %s", osp_fmt_ns(el, sizeof(el), (double)in->prof[0]->elapsed_ns));
	}
	free(mount);
	free(lower);
}

static void head(FILE *f, const struct html_page *pg)
{
	char a[256], b[256];
	const char *what = pg->nin == 2 ? "comparison" : "report";

	input_name(a, sizeof(a), pg->in[0].spec);
	if (pg->nin == 2)
		input_name(b, sizeof(b), pg->in[1].spec);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>osprof %s: ", what);
	osp_esc_html(f, a);
	if (pg->nin == 2) {
		fputs(" against ", f);
		osp_esc_html(f, b);
	}
	fprintf(f, "</title>\n<style>%s</style></head>\n<body>\n<h1>osprof %s: ", style, what);
	osp_esc_html(f, a);
	if (pg->nin == 2) {
		fputs(" (A) against ", f);
		osp_esc_html(f, b);
		fputs(" (B)", f);
	}
	fputs("</h1>\n", f);
	for (size_t s = 0; s < pg->nin; s++) {
		fprintf(f, "<p class=\"meta\">%s", pg->nin == 2 ? (s ? "B: " : "A: ") : "");
		input_meta(f, &pg->in[s]);
		fputs("</p>\n", f);
	}
	fputs("<details class=\"meta\"><summary>inputs</summary><ul>\n", f);
	for (size_t s = 0; s < pg->nin; s++)
		input_paths(f, pg->in[s].spec);
	fputs("</ul></details>\n", f);
}

/* ---- contents ---------------------------------------------------------------- */

static void toc(FILE *f, const struct html_page *pg)
{
	fputs("<nav><h2 id=\"contents\">Contents</h2>\n<ul>\n", f);
	if (pg->w) {
		fputs("<li><a href=\"#where\">Where the time goes</a><ul>\n", f);
		for (size_t i = 1; i < pg->wv->n; i++) {
			fprintf(f, "<li><a href=\"#where-%zu\">", i - 1);
			osp_esc_html(f, pg->w->ops[pg->wv->op[i]].name);
			fputs("</a></li>\n", f);
		}
		fputs("</ul></li>\n", f);
	}
	if (pg->nin == 2)
		orp_html_cmp_toc(f, pg->c);
	if (pg->lv->n || pg->parts->layers_end > pg->parts->layers_first)
		fputs("<li><a href=\"#layered\">Layered view</a></li>\n", f);
	fputs("<li>Layers<ul>\n", f);
	for (size_t s = 0; s < pg->nin; s++) {
		size_t order[ORP_LAYERS_MAX];

		layer_order(&pg->in[s], order);
		for (size_t i = 0; i < pg->in[s].n; i++) {
			size_t k = order[i];

			fprintf(f, "<li><a href=\"#p%zu-%zu\">%s", s, k,
				pg->nin == 2 ? (s ? "B: " : "A: ") : "");
			osp_esc_html(f, pg->in[s].prof[k]->layer);
			fputs("</a></li>\n", f);
		}
	}
	fputs("</ul></li>\n</ul></nav>\n", f);
}

/* ---- sections ---------------------------------------------------------------- */

static int where_part(FILE *f, const struct html_page *pg)
{
	const struct html_parts *parts = pg->parts;
	int rc;

	fprintf(f, "<h2 id=\"where\">Where the time goes%s</h2>\n", pg->nin == 2 ? " (A)" : "");
	orp_where_html_intro(f, pg->w);
	rc = parts->where == SIZE_MAX ? 0 : orp_html_figures(f, pg->r, parts->where, parts->where + 1);
	if (!rc)
		rc = orp_table_write_html(&pg->wv->t[0], f);
	for (size_t i = 1; !rc && i < pg->wv->n; i++) {
		size_t op = pg->wv->op[i];

		fprintf(f, "<section id=\"where-%zu\">\n", i - 1);
		rc = orp_table_write_html(&pg->wv->t[i], f);
		if (!rc && op < ORP_HTML_WHERE_CHARTS && parts->where_op[op] != SIZE_MAX)
			rc = orp_html_figures(f, pg->r, parts->where_op[op], parts->where_op[op] + 1);
		fputs("</section>\n", f);
	}
	return rc;
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

static int ops_table(FILE *f, const struct osp_profile *p)
{
	const struct osp_op **v = calloc(p->nops + 1, sizeof(*v));
	double total = orp_html_total_ns(p);
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->nops; i++)
		if (p->ops[i].lat.count)
			v[n++] = &p->ops[i];
	qsort(v, n, sizeof(*v), orp_cmp_op_total);
	fputs("<table>", f);
	orp_html_ops_head(f, "operation");
	for (size_t i = 0; i < n; i++)
		orp_html_op_row(f, v[i]->name, &v[i]->lat, total);
	fputs("</table>\n", f);
	free(v);
	return 0;
}

static int write_page(FILE *f, const struct html_page *pg)
{
	const struct html_parts *parts = pg->parts;
	int rc = 0;

	head(f, pg);
	toc(f, pg);
	if (pg->w)
		rc = where_part(f, pg);
	if (!rc && pg->nin == 2)
		rc = orp_html_cmp(f, pg->in, pg->c, pg->r, parts);
	if (!rc && (pg->lv->n || parts->layers_end > parts->layers_first)) {
		fputs("<h2 id=\"layered\">Layered view</h2>\n", f);
		rc = orp_layered_write_html(f, pg->lv);
		if (!rc)
			rc = orp_html_figures(f, pg->r, parts->layers_first, parts->layers_end);
	}
	for (size_t s = 0; s < pg->nin; s++) {
		size_t order[ORP_LAYERS_MAX];

		layer_order(&pg->in[s], order);
		for (size_t i = 0; !rc && i < pg->in[s].n; i++) {
			size_t k = order[i];

			fprintf(f, "<h2 id=\"p%zu-%zu\">%sLayer ", s, k,
				pg->nin == 2 ? (s ? "B: " : "A: ") : "");
			osp_esc_html(f, pg->in[s].prof[k]->layer);
			fputs("</h2>\n", f);
			rc = profile_meta(f, pg->in[s].spec, pg->in[s].prof[k]);
			if (!rc)
				rc = ops_table(f, pg->in[s].prof[k]);
			/* The charts are A's: B's are in its overlays. */
			if (!rc && s == 0)
				rc = orp_html_figures(f, pg->r, parts->first[k], parts->end[k]);
		}
	}
	fputs("<p class=\"meta\">Made by osprof-report.</p>\n</body></html>\n", f);
	return rc ? rc : (ferror(f) ? -EIO : 0);
}

/* ---- charts ------------------------------------------------------------------ */

/* Draw every chart of the page into r (its directory exists). */
static int draw(struct orp_render *r, const struct html_page *pg, uint64_t top,
		struct html_parts *parts, char *err, size_t errlen)
{
	const struct orp_input *in = pg->in;
	int rc = 0;

	parts->where = SIZE_MAX;
	for (size_t i = 0; i < ORP_HTML_WHERE_CHARTS; i++)
		parts->where_op[i] = SIZE_MAX;
	if (pg->w) {
		size_t before = r->n;

		rc = orp_chart_where(r, pg->w, 0, err, errlen);
		parts->where = !rc && r->n > before ? before : SIZE_MAX;
		for (size_t i = 0; !rc && i < pg->w->n && i < ORP_HTML_WHERE_CHARTS; i++) {
			before = r->n;
			rc = orp_chart_where_op(r, &pg->w->ops[i], err, errlen);
			parts->where_op[i] = !rc && r->n > before ? before : SIZE_MAX;
		}
	}
	for (size_t k = 0; !rc && k < in[0].n; k++) {
		const struct osp_profile *p = in[0].prof[k];

		parts->first[k] = r->n;
		rc = orp_chart_overview(r, p, top, err, errlen);
		if (!rc)
			rc = orp_chart_timeline(r, p, OP_CHARTS, OP_CHART_SHARE, err, errlen);
		if (!rc)
			rc = orp_chart_irq(r, p, err, errlen);
		if (!rc)
			rc = orp_chart_ops(r, p, OP_CHARTS, OP_CHART_SHARE, err, errlen);
		parts->end[k] = r->n;
	}
	parts->layers_first = r->n;
	if (!rc)
		rc = orp_chart_layers(r, in[0].prof, in[0].n, err, errlen);
	parts->layers_end = parts->cmp_first = r->n;
	for (size_t i = 0; !rc && pg->nin == 2 && i < pg->c->ninteresting; i++)
		rc = orp_chart_overlay(r, pg->c, &pg->c->items[i], in[0].spec, in[1].spec,
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

/* The views of A's layers: where the time goes, the layered view. */
static int views(const struct orp_input *a, struct orp_where *w, bool *have_where,
		 struct orp_where_view *wv, struct orp_layered_view *lv)
{
	struct orp_layered l;
	const char *twice;
	int rc;

	*have_where = false;
	if (!orp_layered_gather(a, 1, &l, &twice))
		return 0;
	rc = orp_where_build(&l, w);
	if (!rc) {
		*have_where = true;
		rc = orp_where_view_build(w, 0, NULL, 0, wv);
	} else if (rc == -ENOENT) {
		rc = 0;
	}
	return rc ? rc : orp_layered_build(&l, 0, lv);
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
	struct orp_where w = { 0 };
	struct orp_where_view wv = { 0 };
	struct orp_layered_view lv = { 0 };
	struct html_page pg = { in, nin, &c, NULL, &wv, &lv, &r, &parts };
	bool have_where = false;
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
	if (!rc && views(&in[0], &w, &have_where, &wv, &lv)) {
		snprintf(err, errlen, "layered views: out of memory");
		rc = -ENOMEM;
	}
	pg.w = have_where ? &w : NULL;
	if (!rc)
		rc = draw(&r, &pg, a->top, &parts, err, errlen);
	if (!rc)
		rc = orp_out_open(&out, a->out, err, errlen);
	if (!rc)
		rc = orp_out_close(&out, write_page(out.w.f, &pg), err, errlen);
	orp_layered_view_fini(&lv);
	orp_where_view_fini(&wv);
	orp_where_fini(&w);
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
