// SPDX-License-Identifier: MIT
/*
 * The human views of a profile: `stats` (a header naming the clock and
 * settings, a table sorted by total time, an ASCII log2 histogram per
 * operation in the manner of bcc's print_log2_hist, with upper-inclusive
 * bucket ranges as labels, then the peaks of every operation) and
 * `timeline` (one block per snapshot).
 * Every name and value from the profile is written in osprof/escape.h's
 * text spelling, so none can forge a line or drive the terminal.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/analysis.h"
#include "osprof/escape.h"
#include "osprof/format.h"
#include "stream.h"

#define STARS 40

char *osp_fmt_ns(char *buf, size_t len, double ns)
{
	static const struct {
		double div;
		const char *unit;
	} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };
	size_t u = 0;

	if (ns <= 0.0) {
		snprintf(buf, len, "0ns");
		return buf;
	}
	/* Largest unit the value reaches once rounded to three digits. */
	while (u < 3 && ns < units[u].div * 0.9995)
		u++;
	if (u == 0 && ns >= 999.5e9)
		snprintf(buf, len, "%.0fs", ns / 1e9);
	else
		snprintf(buf, len, "%.3g%s", ns / units[u].div, units[u].unit);
	return buf;
}

static void bucket_label(char *buf, size_t len, unsigned i, unsigned res)
{
	char lo[16], hi[16];

	osp_fmt_ns(hi, sizeof(hi), osp_bucket_upper_ns(i, res));
	if (i == 0) {
		snprintf(buf, len, "[0, %s]", hi);
		return;
	}
	osp_fmt_ns(lo, sizeof(lo), osp_bucket_lower_ns(i, res));
	snprintf(buf, len, "(%s, %s]", lo, hi);
}

int osp_write_hist_ascii(FILE *out, const struct osp_hist *h, int indent)
{
	unsigned lo, hi;
	uint64_t peak = 0;

	if (!osp_hist_range(h, &lo, &hi)) {
		fprintf(out, "%*s(empty)\n", indent, "");
		return osp_stream_status(out);
	}
	for (unsigned i = lo; i <= hi; i++)
		if (osp_hist_bucket(h, i) > peak)
			peak = osp_hist_bucket(h, i);
	fprintf(out, "%*s%22s : %-10s %s\n", indent, "", "latency", "count",
		"distribution");
	for (unsigned i = lo; i <= hi; i++) {
		char label[40], bar[STARS + 1];
		/*
		 * In proportion, as bcc's print_log2_hist (no minimum of one
		 * star): 1 against 200,000 draws none, and its count column
		 * still shows it. 128 bits, so no count can overflow.
		 */
		unsigned n = (unsigned)((unsigned __int128)osp_hist_bucket(h, i) * STARS / peak);

		bucket_label(label, sizeof(label), i, h->res);
		memset(bar, '*', n);
		memset(bar + n, ' ', STARS - n);
		bar[STARS] = '\0';
		fprintf(out, "%*s%22s : %-10" PRIu64 " |%s|\n", indent, "", label,
			osp_hist_bucket(h, i), bar);
	}
	return osp_stream_status(out);
}

static int cmp_total_desc(const void *a, const void *b)
{
	const struct osp_op *x = *(const struct osp_op *const *)a;
	const struct osp_op *y = *(const struct osp_op *const *)b;

	if (x->lat.sum != y->lat.sum)
		return x->lat.sum < y->lat.sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int write_header(FILE *out, const struct osp_profile *p,
			uint64_t requests, size_t active)
{
	char el[16];
	int err = 0;

	fputs("osprof ", out);
	osp_esc_text(out, p->layer);
	fprintf(out, " profile: %zu operations, %" PRIu64 " requests in %s\nclock ",
		active, requests, osp_fmt_ns(el, sizeof(el), (double)p->elapsed_ns));
	osp_esc_text(out, p->clock_source ? p->clock_source : "?");
	fprintf(out, " (%.3f cycles/ns), resolution %u bucket%s per power of 2, unit ",
		p->cycles_per_ns, p->res, p->res == 1 ? "" : "s");
	osp_esc_text(out, p->unit ? p->unit : "ns");
	fputc('\n', out);
	if (p->options.n) {
		fputs("options:", out);
		err = osp_kv_print(out, &p->options, osp_esc_text);
		fputc('\n', out);
	}
	if (!err && p->source.n) {
		fputs("source:", out);
		err = osp_kv_print(out, &p->source, osp_esc_text);
		fputc('\n', out);
	}
	return err;
}

static void write_table(FILE *out, const struct osp_op **sorted, size_t n,
			uint64_t total_ns, bool any_cpu)
{
	fprintf(out, "\n%-16s %10s %9s %9s %9s %9s %9s %6s", "OPERATION", "COUNT",
		"TOTAL", "MEAN", "P50", "P99", "MAX", "%TIME");
	if (any_cpu)
		fprintf(out, " %9s %9s", "CPU", "WAIT");
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct osp_op *o = sorted[i];
		char t[16], m[16], p50[16], p99[16], mx[16];
		double share = total_ns ? 100.0 * (double)o->lat.sum / (double)total_ns : 0;

		osp_esc_text_col(out, o->name, 16);
		fprintf(out, " %10" PRIu64 " %9s %9s %9s %9s %9s %5.1f%%",
			o->lat.count,
			osp_fmt_ns(t, sizeof(t), (double)o->lat.sum),
			osp_fmt_ns(m, sizeof(m), osp_hist_mean(&o->lat)),
			osp_fmt_ns(p50, sizeof(p50), osp_hist_percentile(&o->lat, 50)),
			osp_fmt_ns(p99, sizeof(p99), osp_hist_percentile(&o->lat, 99)),
			osp_fmt_ns(mx, sizeof(mx), (double)o->lat.max), share);
		if (any_cpu && o->has_cpu) {
			double cpu = osp_hist_mean(&o->cpu);
			double wait = osp_hist_mean(&o->lat) - cpu;

			fprintf(out, " %9s %9s", osp_fmt_ns(t, sizeof(t), cpu),
				osp_fmt_ns(m, sizeof(m), wait > 0 ? wait : 0));
		}
		fputc('\n', out);
	}
}

static int write_op_detail(FILE *out, const struct osp_op *o)
{
	char t[16], m[16];

	fputc('\n', out);
	osp_esc_text(out, o->name);
	fprintf(out, ": count %" PRIu64 ", total %s, mean %s\n", o->lat.count,
		osp_fmt_ns(t, sizeof(t), (double)o->lat.sum),
		osp_fmt_ns(m, sizeof(m), osp_hist_mean(&o->lat)));
	osp_write_hist_ascii(out, &o->lat, 0);
	if (!osp_hist_checksum_ok(&o->lat)) {
		fputs("warning: ", out);
		osp_esc_text(out, o->name);
		fprintf(out, ": buckets add up to %" PRIu64 ", count says %" PRIu64 "\n",
			osp_hist_bucket_total(&o->lat), o->lat.count);
	}
	if (o->has_cpu && o->cpu.count) {
		osp_esc_text(out, o->name);
		fprintf(out, " (cpu time): mean %s\n",
			osp_fmt_ns(m, sizeof(m), osp_hist_mean(&o->cpu)));
		osp_write_hist_ascii(out, &o->cpu, 0);
	}
	if (o->ncounters) {
		fputs("counters:", out);
		for (size_t i = 0; i < o->ncounters; i++) {
			fputc(' ', out);
			osp_esc_text(out, o->counters[i].name);
			fprintf(out, "=%" PRIu64, o->counters[i].value);
		}
		fputc('\n', out);
	}
	if (o->attrs.n) {
		int err;

		fputs("attributes:", out);
		err = osp_kv_print(out, &o->attrs, osp_esc_text);
		fputc('\n', out);
		return err;
	}
	return 0;
}

/* The peaks of each of @n ops (osp_hist_peaks), one row a peak. */
static void write_peaks(FILE *out, const struct osp_op *const *ops, size_t n,
			unsigned res)
{
	bool header = false;

	for (size_t i = 0; i < n; i++) {
		struct osp_peak pk[OSP_PEAKS_MAX];
		size_t np = osp_hist_peaks(&ops[i]->lat, pk, OSP_PEAKS_MAX);

		if (np && !header) {
			fprintf(out, "\npeaks:\n%-16s %4s %-9s %-22s %10s %6s %9s\n",
				"OPERATION", "PEAK", "BUCKETS", "LATENCY", "COUNT",
				"SHARE", "MEAN");
			header = true;
		}
		for (size_t k = 0; k < np; k++) {
			char lo[16], hi[16], mean[16], range[40], buckets[24];

			osp_fmt_ns(lo, sizeof(lo), osp_bucket_lower_ns(pk[k].lo, res));
			osp_fmt_ns(hi, sizeof(hi), osp_bucket_upper_ns(pk[k].hi, res));
			snprintf(range, sizeof(range), "(%s, %s]", lo, hi);
			snprintf(buckets, sizeof(buckets), "%u..%u", pk[k].lo, pk[k].hi);
			osp_esc_text_col(out, k == 0 ? ops[i]->name : "", 16);
			fprintf(out, " %4zu %-9s %-22s %10" PRIu64 " %5.1f%% %9s\n",
				k + 1, buckets, range,
				pk[k].count, 100.0 * pk[k].share,
				osp_fmt_ns(mean, sizeof(mean), pk[k].mean_ns));
		}
	}
}

int osp_write_stats(FILE *out, const struct osp_profile *p)
{
	const struct osp_op **sorted = calloc(p->nops ? p->nops : 1, sizeof(*sorted));
	uint64_t requests = 0, total_ns = 0;
	size_t n = 0;
	bool any_cpu = false;
	int err;

	if (!sorted)
		return -ENOMEM;
	for (size_t i = 0; i < p->nops; i++) {
		if (p->ops[i].lat.count == 0)
			continue;
		sorted[n++] = &p->ops[i];
		requests += p->ops[i].lat.count;
		total_ns += p->ops[i].lat.sum;
		any_cpu |= p->ops[i].has_cpu;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_total_desc);
	err = write_header(out, p, requests, n);
	if (!err && n == 0)
		fputs("\n(no requests recorded)\n", out);
	else if (!err)
		write_table(out, sorted, n, total_ns, any_cpu);
	for (size_t i = 0; !err && i < n; i++)
		err = write_op_detail(out, sorted[i]);
	if (!err)
		write_peaks(out, sorted, n, p->res);
	free(sorted);
	return err ? err : osp_stream_status(out);
}

int osp_write_timeline(FILE *out, const struct osp_profile *p)
{
	char iv[16];

	if (p->tl_interval_ns == 0 && p->nsnaps == 0) {
		fputs("timeline off (enable it with: echo 'timeline 1000' > ctl)\n", out);
		return osp_stream_status(out);
	}
	fprintf(out, "timeline: interval %s, %zu snapshots, %" PRIu64 " dropped\n",
		osp_fmt_ns(iv, sizeof(iv), (double)p->tl_interval_ns), p->nsnaps,
		p->tl_dropped);
	fprintf(out, "%10s  %-16s %10s %9s %9s %9s\n", "T", "OPERATION", "COUNT",
		"MEAN", "P99", "MAX");
	for (size_t s = 0; s < p->nsnaps; s++) {
		const struct osp_snapshot *sn = &p->snaps[s];
		char t[16];

		osp_fmt_ns(t, sizeof(t), (double)sn->t_ns);
		if (sn->nops == 0)
			fprintf(out, "%10s  (idle)\n", t);
		for (size_t i = 0; i < sn->nops; i++) {
			const struct osp_hist *h = &sn->ops[i].lat;
			char m[16], q[16], x[16];

			fprintf(out, "%10s  ", i == 0 ? t : "");
			osp_esc_text_col(out, sn->ops[i].name, 16);
			fprintf(out, " %10" PRIu64 " %9s %9s %9s\n", h->count,
				osp_fmt_ns(m, sizeof(m), osp_hist_mean(h)),
				osp_fmt_ns(q, sizeof(q), osp_hist_percentile(h, 99)),
				osp_fmt_ns(x, sizeof(x), (double)h->max));
		}
	}
	return osp_stream_status(out);
}
