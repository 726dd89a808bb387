// SPDX-License-Identifier: MIT
/*
 * The comparison part of the HTML report (orp_html.c): given B, PROFILE
 * (A) against it -- comparability notes, the summary of the operations
 * that differ, each operation in order of total time (A plus B) with its
 * verdict, reason, A and B side by side and its overlay, those that do
 * not differ in one collapsed <details>. Anchors are ids made of
 * indices, never of names; every string from a profile or the command
 * line goes through core's osp_esc_html, in text only.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "orp_html.h"
#include "osprof/escape.h"
#include "osprof/format.h"

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
			if (!orp_html_find_layer(&in[1 - s], in[s].prof[k]->layer)) {
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

/* The table of contents' entries of the comparison. */
void orp_html_cmp_toc(FILE *f, const struct osp_cmp *c)
{
	size_t *order = items_by_total(c);

	fputs("<li><a href=\"#notes\">Comparability notes</a></li>\n"
	      "<li><a href=\"#summary\">Summary</a></li>\n"
	      "<li><a href=\"#ops\">Operations that differ</a>", f);
	if (order && c->ninteresting) {
		fputs("<ul>\n", f);
		for (size_t j = 0; j < c->n; j++) {
			const struct osp_cmp_item *it = &c->items[order[j]];

			if (!osp_cmp_interesting(it->verdict))
				continue;
			fprintf(f, "<li><a href=\"#op-%zu\">", order[j]);
			item_title(f, it);
			fputs("</a></li>\n", f);
		}
		fputs("</ul>", f);
	}
	fputs("</li>\n", f);
	if (c->n > c->ninteresting)
		fprintf(f, "<li><a href=\"#same\">%zu operations that do not differ</a></li>\n",
			c->n - c->ninteresting);
	free(order);
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
	orp_html_ops_head(f, "side");
	for (size_t s = 0; s < 2; s++) {
		if (side[s])
			orp_html_op_row(f, s ? "B" : "A", &side[s]->lat,
					orp_html_total_ns(orp_html_find_layer(&in[s], it->layer)));
		else
			fprintf(f, "<tr><td class=\"l\">%s</td><td class=\"l\" colspan=\"8\">absent</td></tr>\n",
				s ? "B" : "A");
	}
	fputs("</table>\n", f);
	if (i < c->ninteresting && parts->cmp_first + i < parts->cmp_end) {
		int rc = orp_html_figures(f, r, parts->cmp_first + i, parts->cmp_first + i + 1);

		if (rc)
			return rc;
	}
	fputs("</section>\n", f);
	return 0;
}

int orp_html_cmp(FILE *f, const struct orp_input *in, const struct osp_cmp *c,
		 const struct orp_render *r, const struct html_parts *parts)
{
	size_t *order = items_by_total(c);
	int rc = 0;

	if (!order)
		return -ENOMEM;
	if (comparability_notes(f, in)) {
		free(order);
		return -ENOMEM;
	}
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

