// SPDX-License-Identifier: MIT
/*
 * `osprof-report compare --json`: one layer's comparison as JSON, for CI
 * jobs and scripts that would otherwise scrape the text. Every operation
 * is there (not only the differing ones), in the text's ranking, with its
 * verdict, the method's score and the noise guard's figures, both sides'
 * counts, totals and peaks, the peak changes, and the reason line the text
 * prints; the layer's comparability notes beside them. The schema is in
 * report/README.md ("compare --json"); orp_compare.c writes the envelope.
 */
#include <inttypes.h>
#include <math.h>

#include "orp.h"
#include "osprof/hist.h"

static void changes(struct orp_json *j, const struct osp_cmp_item *it)
{
	orp_json_arr(j, "peak_changes");
	for (size_t k = 0; k < it->nchanges; k++) {
		const struct osp_peak_change *c = &it->changes[k];

		orp_json_obj(j, NULL);
		orp_json_str(j, "kind", osp_peak_change_name(c->kind));
		if (c->ia >= 0)
			orp_json_u64(j, "peak_a", (uint64_t)c->ia);
		else
			orp_json_raw(j, "peak_a", "null");
		if (c->ib >= 0)
			orp_json_u64(j, "peak_b", (uint64_t)c->ib);
		else
			orp_json_raw(j, "peak_b", "null");
		orp_json_num(j, "shift_octaves", c->shift_octaves);
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
}

static void item(struct orp_json *j, size_t rank, const struct osp_cmp_item *it,
		 const struct osp_cmp *c)
{
	char reason[1024];

	orp_cmp_reason(it, c, reason, sizeof(reason));
	orp_json_obj(j, NULL);
	orp_json_u64(j, "rank", rank);
	orp_json_str(j, "name", it->name);
	orp_json_str(j, "verdict", osp_cmp_verdict_name(it->verdict));
	orp_json_bool(j, "differs", osp_cmp_interesting(it->verdict));
	orp_json_num(j, "score", it->score);
	orp_json_num(j, "strength", it->strength);
	orp_json_num(j, "noise", it->noise);
	orp_json_num(j, "beyond_noise", it->beyond_noise);
	orp_json_num(j, "p_value", it->p_value);
	orp_json_num(j, "count_change", it->count_change);
	orp_json_num(j, "latency_change", it->latency_change);
	orp_json_num(j, "share_a", it->share_a);
	orp_json_num(j, "share_b", it->share_b);
	orp_json_side(j, "a", it->a);
	orp_json_side(j, "b", it->b);
	changes(j, it);
	orp_json_str(j, "reason", reason);
	orp_json_end(j, '}');
}

int orp_cmp_json_layer(struct orp_json *j, const char *layer,
		       const struct osp_profile *a, const struct osp_profile *b,
		       const struct osp_cmp *c)
{
	char sa[32], sb[32];
	int rc = 0;

	orp_json_obj(j, NULL);
	orp_json_str(j, "layer", layer);
	orp_json_str(j, "source_a", a ? orp_layer_source(sa, sizeof(sa), a) : NULL);
	orp_json_str(j, "source_b", b ? orp_layer_source(sb, sizeof(sb), b) : NULL);
	orp_json_bool(j, "compared", a && b);
	if (a && b) {
		orp_json_u64(j, "resolution", a->res);
		orp_json_u64(j, "operations", c->n);
		orp_json_u64(j, "differ", c->ninteresting);
		rc = orp_compat_json(j, a, b);
		orp_json_arr(j, "ops");
		for (size_t i = 0; i < c->n; i++)
			item(j, i + 1, &c->items[i], c);
		orp_json_end(j, ']');
	}
	orp_json_end(j, '}');
	return rc;
}
