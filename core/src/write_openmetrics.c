// SPDX-License-Identifier: MIT
/*
 * OpenMetrics (and Prometheus text) exposition of a profile: one histogram
 * family for latency and, when present, one for CPU time, labelled by
 * operation. Every `le` is an upper bucket bound 2^(i/r) ns expressed in
 * seconds, so the classic buckets line up exactly with ours (and with a
 * native histogram of schema log2 r). Buckets are cumulative from bucket 0
 * to the operation's highest non-empty one, then +Inf. Operation and
 * layer names are label values and HELP text only (escaped, and read back
 * exactly when they are UTF-8); metric names are sanitised.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "osprof/escape.h"
#include "osprof/format.h"
#include "stream.h"

static void write_hist(FILE *out, const char *family, const char *op,
		       const struct osp_hist *h)
{
	uint64_t cum = 0;
	unsigned lo, hi;

	if (osp_hist_range(h, &lo, &hi)) {
		for (unsigned i = 0; i <= hi; i++) {
			cum += osp_hist_bucket(h, i);
			fprintf(out, "%s_bucket{op=\"", family);
			osp_esc_om(out, op);
			fprintf(out, "\",le=\"%.9g\"} %" PRIu64 "\n",
				osp_bucket_upper_ns(i, h->res) / 1e9, cum);
		}
	}
	fprintf(out, "%s_bucket{op=\"", family);
	osp_esc_om(out, op);
	fprintf(out, "\",le=\"+Inf\"} %" PRIu64 "\n", h->count);
	fprintf(out, "%s_sum{op=\"", family);
	osp_esc_om(out, op);
	fprintf(out, "\"} %.9g\n", (double)h->sum / 1e9);
	fprintf(out, "%s_count{op=\"", family);
	osp_esc_om(out, op);
	fprintf(out, "\"} %" PRIu64 "\n", h->count);
}

static void write_family(FILE *out, const struct osp_profile *p,
			 const char *prefix, bool cpu)
{
	char family[256];

	snprintf(family, sizeof(family), "%s_%s_seconds", prefix,
		 cpu ? "cpu" : "latency");
	fprintf(out, "# TYPE %s histogram\n# UNIT %s seconds\n", family, family);
	fprintf(out, "# HELP %s %s of ", family, cpu ? "CPU time" : "Latency");
	osp_esc_om(out, p->layer);
	fprintf(out, "-layer requests by operation (osprof, resolution %u).\n", p->res);
	for (size_t i = 0; i < p->nops; i++) {
		const struct osp_op *o = &p->ops[i];

		if (cpu && !o->has_cpu)
			continue;
		write_hist(out, family, o->name, cpu ? &o->cpu : &o->lat);
	}
}

int osp_write_openmetrics(FILE *out, const struct osp_profile *p,
			  const char *prefix)
{
	bool any_cpu = false;
	char name[200];

	/* Callers build @prefix from a layer name: keep the metric name valid. */
	osp_metric_name(name, sizeof(name), prefix);
	for (size_t i = 0; i < p->nops; i++)
		any_cpu |= p->ops[i].has_cpu;
	write_family(out, p, name, false);
	if (any_cpu)
		write_family(out, p, name, true);
	fputs("# EOF\n", out);
	return osp_stream_status(out);
}
