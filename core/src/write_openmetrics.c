// SPDX-License-Identifier: MIT
/*
 * osprof's metric family as text (osprof/metrics.h): Prometheus's text
 * format 0.0.4, or OpenMetrics 1.0 (# UNIT, # EOF). The series and their
 * labels are osp_om_walk's; this file only spells them. Every `le` is a
 * power of two of nanoseconds written as an exact decimal of seconds,
 * cumulative, then +Inf. The count is the buckets' total, which is the
 * profile's count unless its checksum fails: a histogram whose +Inf is
 * below one of its buckets would break every quantile computed from it.
 * Label values are escaped with osp_esc_om (read back exactly when they
 * are UTF-8); names are fixed or made valid by the walk.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "osprof/escape.h"
#include "osprof/metrics.h"
#include "stream.h"

/* What a family's writer needs to start the family at its first series. */
struct fam {
	FILE *out;
	const char *help;
	const char *type;
	bool unit;  /* write # UNIT (OpenMetrics) */
	bool begun;
};

static void begin(struct fam *f, const char *family)
{
	if (f->begun)
		return;
	f->begun = true;
	fprintf(f->out, "# HELP %s %s\n# TYPE %s %s\n", family, f->help, family, f->type);
	if (f->unit)
		fprintf(f->out, "# UNIT %s seconds\n", family);
}

/* {a="..",b=".." -- the caller closes it, or adds le. */
static void labels(FILE *out, const struct osp_om_series *s)
{
	for (size_t i = 0; i < s->nlabels; i++) {
		fprintf(out, "%c%s=\"", i ? ',' : '{', s->name[i]);
		osp_esc_om(out, s->value[i]);
		fputc('"', out);
	}
	if (!s->nlabels)
		fputc('{', out);
}

static int write_hist(void *ctx, const struct osp_om_series *s)
{
	struct fam *f = ctx;
	struct osp_om_le le = osp_om_le_of(s->src->p->layer);
	uint64_t total = osp_hist_bucket_total(s->h);
	char num[32];
	FILE *out = f->out;

	begin(f, s->family);
	for (unsigned k = le.lo_exp; k <= le.hi_exp; k++) {
		fprintf(out, "%s_bucket", s->family);
		labels(out, s);
		fprintf(out, "%sle=\"%s\"} %" PRIu64 "\n", s->nlabels ? "," : "",
			osp_om_seconds(num, sizeof(num), (uint64_t)1 << k),
			osp_om_le_cumulative(s->h, k));
	}
	fprintf(out, "%s_bucket", s->family);
	labels(out, s);
	fprintf(out, "%sle=\"+Inf\"} %" PRIu64 "\n", s->nlabels ? "," : "", total);
	fprintf(out, "%s_sum", s->family);
	labels(out, s);
	fprintf(out, "} %s\n", osp_om_seconds(num, sizeof(num), s->h->sum));
	fprintf(out, "%s_count", s->family);
	labels(out, s);
	fprintf(out, "} %" PRIu64 "\n", total);
	return ferror(out) ? -EIO : 0;
}

static int write_info(void *ctx, const struct osp_om_series *s)
{
	struct fam *f = ctx;

	begin(f, s->family);
	fputs(s->family, f->out);
	labels(f->out, s);
	fputs("} 1\n", f->out);
	return ferror(f->out) ? -EIO : 0;
}

int osp_write_metrics(FILE *out, const struct osp_om_src *src, size_t n,
		      unsigned flags)
{
	bool om = flags & OSP_OM_OPENMETRICS;
	struct fam lat = { out, "Latency of requests by layer and operation (osprof).",
			   "histogram", om, false };
	struct fam cpu = { out, "CPU time of requests by layer and operation, where profiled (osprof).",
			   "histogram", om, false };
	struct fam info = { out, "The osprof version and settings of each profile served (osprof).",
			    "gauge", false, false };
	int rc = osp_om_walk(src, n, OSP_OM_LATENCY, write_hist, &lat);

	if (rc == 0)
		rc = osp_om_walk(src, n, OSP_OM_CPU, write_hist, &cpu);
	if (rc == 0)
		rc = osp_om_walk(src, n, OSP_OM_INFO, write_info, &info);
	if (rc == 0 && om)
		fputs("# EOF\n", out);
	if (rc == -ENOMEM)
		return rc;
	return osp_stream_status(out);
}
