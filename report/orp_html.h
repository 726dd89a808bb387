/* SPDX-License-Identifier: MIT */
/*
 * Private to the HTML report: the page (orp_html.c) and its comparison
 * part (orp_html_cmp.c) share the chart indices of each part of the page
 * and the writers of figures and operation rows.
 */
#ifndef ORP_HTML_H
#define ORP_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "orp.h"

/* "where the time goes" charts per operation the page holds, at most. */
#define ORP_HTML_WHERE_CHARTS 6

/* Chart index ranges of each part of the page; SIZE_MAX: not drawn. */
struct html_parts {
	size_t first[ORP_LAYERS_MAX], end[ORP_LAYERS_MAX];
	size_t layers_first, layers_end;
	size_t cmp_first, cmp_end;
	size_t where;                                /* the bars */
	size_t where_op[ORP_HTML_WHERE_CHARTS];      /* per operation, in order */
};

/* Charts [@first, @end) of @r as inline SVG figures with their captions. */
int orp_html_figures(FILE *f, const struct orp_render *r, size_t first, size_t end);
/* The header row of an operations table, its first column @first. */
void orp_html_ops_head(FILE *f, const char *first);
/* One row of an operations table: @label, @h's figures; @total_ns of its layer. */
void orp_html_op_row(FILE *f, const char *label, const struct osp_hist *h, double total_ns);
/* The total latency of @p's operations (0 for NULL). */
double orp_html_total_ns(const struct osp_profile *p);
/* The profile of layer @layer in @in, or NULL. */
const struct osp_profile *orp_html_find_layer(const struct orp_input *in, const char *layer);

/*
 * The comparison of @in[0] (A) against @in[1] (B) in @c: the table of
 * contents' entries (orp_html_cmp_toc), then the part itself:
 * comparability notes, the summary, each operation in order of total
 * time with its overlay (charts [parts->cmp_first, parts->cmp_end)), the
 * ones that do not differ in a collapsed <details>. 0 or -errno.
 */
void orp_html_cmp_toc(FILE *f, const struct osp_cmp *c);
int orp_html_cmp(FILE *f, const struct orp_input *in, const struct osp_cmp *c,
		 const struct orp_render *r, const struct html_parts *parts);

#endif /* ORP_HTML_H */
