// SPDX-License-Identifier: MIT
/*
 * The classic exposition: every source's layers as Prometheus text
 * (format 0.0.4), one histogram family for latency and one for CPU time
 * (the ops that have it), labelled mount, lower, layer, op, and a gauge
 * osprof_source_up per source. Bucket bounds are the layer's fixed set of
 * powers of two (oex_le_set_of), not the profile's own buckets, so every
 * host exposes the same series whatever its resolution; the counts are
 * still exact, since every resolution's bounds include the powers of two.
 * Bounds and sums are written as exact decimals of seconds. The count is
 * the buckets' total, which is the profile's count unless its checksum
 * fails (said on stderr when it is read): a histogram whose +Inf is below
 * one of its buckets would break every quantile computed from it.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "oex.h"
#include "osprof/escape.h"

/* The fixed le sets, documented in exporter/README.md. */
static const struct {
	const char *layer;
	struct oex_le_set le;
} le_sets[] = {
	{ "block", { 10, 36 } }, /* 1.024 us .. 68.7 s: a device is no faster */
	{ "irq", { 6, 30 } },    /* 64 ns .. 1.07 s: handlers are short */
};
/* fs, fuse, syscall, lower and any other layer: 256 ns .. 68.7 s. */
static const struct oex_le_set le_default = { 8, 36 };

struct oex_le_set oex_le_set_of(const char *layer)
{
	for (size_t i = 0; i < sizeof(le_sets) / sizeof(le_sets[0]); i++)
		if (strcmp(layer, le_sets[i].layer) == 0)
			return le_sets[i].le;
	return le_default;
}

uint64_t oex_le_cumulative(const struct osp_hist *h, unsigned exp)
{
	/* Bucket exp * res has upper bound 2^exp exactly. */
	uint64_t last = (uint64_t)exp * h->res, cum = 0;

	for (uint32_t i = 0; i < h->nbk && h->bk[i].idx <= last; i++)
		cum += h->bk[i].count;
	return cum;
}

char *oex_ns_seconds(char *buf, size_t len, uint64_t ns)
{
	uint64_t frac = ns % 1000000000u;
	int end;

	end = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u, frac);
	/* Trailing zeros of the fraction say nothing: "2.500000000" -> "2.5". */
	while (end > 0 && (size_t)end < len && buf[end - 1] == '0')
		buf[--end] = '\0';
	if (end > 0 && (size_t)end < len && buf[end - 1] == '.')
		buf[--end] = '\0';
	return buf;
}

/* {mount="..",lower="..",layer="..",op=".." -- the caller closes it. */
static void labels(FILE *out, const struct oex_source *src, size_t layer,
		   const char *op)
{
	fputs("{mount=\"", out);
	osp_esc_om(out, src->path);
	if (src->lower[layer]) {
		fputs("\",lower=\"", out);
		osp_esc_om(out, src->lower[layer]);
	}
	fputs("\",layer=\"", out);
	osp_esc_om(out, src->prof[layer]->layer);
	fputs("\",op=\"", out);
	osp_esc_om(out, op);
	fputc('"', out);
}

static void write_hist(FILE *out, const char *family,
		       const struct oex_source *src, size_t layer,
		       const char *op, const struct osp_hist *h)
{
	struct oex_le_set le = oex_le_set_of(src->prof[layer]->layer);
	char num[32];

	for (unsigned k = le.lo_exp; k <= le.hi_exp; k++) {
		fprintf(out, "%s_bucket", family);
		labels(out, src, layer, op);
		fprintf(out, ",le=\"%s\"} %" PRIu64 "\n",
			oex_ns_seconds(num, sizeof(num), (uint64_t)1 << k),
			oex_le_cumulative(h, k));
	}
	fprintf(out, "%s_bucket", family);
	labels(out, src, layer, op);
	fprintf(out, ",le=\"+Inf\"} %" PRIu64 "\n", osp_hist_bucket_total(h));
	fprintf(out, "%s_sum", family);
	labels(out, src, layer, op);
	fprintf(out, "} %s\n", oex_ns_seconds(num, sizeof(num), h->sum));
	fprintf(out, "%s_count", family);
	labels(out, src, layer, op);
	fprintf(out, "} %" PRIu64 "\n", osp_hist_bucket_total(h));
}

static void write_family(FILE *out, const struct oex_source *srcs, size_t n,
			 bool cpu)
{
	const char *family = cpu ? OEX_FAMILY_CPU : OEX_FAMILY_LATENCY;
	bool any = false;

	for (size_t s = 0; s < n; s++) {
		for (size_t l = 0; l < srcs[s].n; l++) {
			const struct osp_profile *p = srcs[s].prof[l];

			for (size_t i = 0; i < p->nops; i++) {
				const struct osp_op *o = &p->ops[i];

				if (cpu && !o->has_cpu)
					continue;
				if (!any)
					fprintf(out, "# HELP %s %s of requests per operation, by source and layer (osprof).\n# TYPE %s histogram\n",
						family, cpu ? "CPU time" : "Latency", family);
				any = true;
				write_hist(out, family, &srcs[s], l, o->name,
					   cpu ? &o->cpu : &o->lat);
			}
		}
	}
}

int oex_write_text(FILE *out, const struct oex_source *srcs, size_t n)
{
	write_family(out, srcs, n, false);
	write_family(out, srcs, n, true);
	fprintf(out, "# HELP %s Whether the source could be read at this scrape (1) or not (0).\n# TYPE %s gauge\n",
		OEX_FAMILY_UP, OEX_FAMILY_UP);
	for (size_t s = 0; s < n; s++) {
		fprintf(out, "%s{mount=\"", OEX_FAMILY_UP);
		osp_esc_om(out, srcs[s].path);
		fprintf(out, "\"} %d\n", srcs[s].up ? 1 : 0);
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
