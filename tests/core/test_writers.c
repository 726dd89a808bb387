// SPDX-License-Identifier: MIT
/* The human stats and timeline views and the OpenMetrics text. */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/escape.h"
#include "osprof/format.h"
#include "osprof/metrics.h"
#include "config.h"
#include "fixture.h"

static char *render(int (*w)(FILE *, const struct osp_profile *),
		    const struct osp_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(w(f, p), 0);
	fclose(f);
	return buf;
}

/* Whether @line (without its newline) is a whole line of @text. */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, line, n) == 0 && (l[n] == '\n' || l[n] == '\0'))
			return true;
	return false;
}

static int om(FILE *f, const struct osp_profile *p)
{
	return osp_write_metrics(f, &(struct osp_om_src){ .p = p }, 1, OSP_OM_OPENMETRICS);
}

Test(writers, fmt_ns_uses_three_digits_and_units)
{
	char b[16];

	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 512), "512ns");
	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 1024), "1.02us");
	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 999.9), "1us");
	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 2097152), "2.1ms");
	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 1.5e9), "1.5s");
	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 0), "0ns");
	cr_expect_str_eq(osp_fmt_ns(b, sizeof(b), 4e12), "4000s");
}

/*
 * The fixture's stats, word for word. read: 1000 x 800 ns + 10 x 3 ms =
 * 30.8 ms in 1010, mean 30.5 us; p50 interpolated in (512, 1024] ns
 * between 800 (min) and 1024; p99 at rank 999.9 still in that bucket, at
 * its bound; CPU 302 ns = (1000 x 300 + 10 x 500) / 1010, wait the rest.
 * getattr: 5 x 2 us, 0.03% of the time. mkdir, empty, is not listed.
 * Empty buckets between peaks are drawn, tails trimmed; 10 of 1000 is
 * 0.4 of a star, so none (bars are in proportion).
 */
Test(writers, stats_sorts_by_total_and_draws_histograms)
{
	static const char want[] =
		"osprof fs profile: 2 operations, 1015 requests in 12.3s\n"
		"clock tsc (2.500 cycles/ns), resolution 1 bucket per power of 2, unit ns\n"
		"options: cache=never attr_timeout_s=0.0 writeback=false\n"
		"source: mount=/mnt/p \"quoted\" pid=4242\n"
		"\n"
		"OPERATION             COUNT     TOTAL      MEAN       P50       P99       MAX  %TIME       CPU      WAIT\n"
		"read                   1010    30.8ms    30.5us     906ns    1.02us       3ms 100.0%     302ns    30.2us\n"
		"getattr                   5      10us       2us       2us       2us       2us   0.0%\n"
		"\n"
		"read: count 1010, total 30.8ms, mean 30.5us\n"
		"               latency : count      distribution\n"
		"       (512ns, 1.02us] : 1000       |****************************************|\n"
		"      (1.02us, 2.05us] : 0          |                                        |\n"
		"       (2.05us, 4.1us] : 0          |                                        |\n"
		"       (4.1us, 8.19us] : 0          |                                        |\n"
		"      (8.19us, 16.4us] : 0          |                                        |\n"
		"      (16.4us, 32.8us] : 0          |                                        |\n"
		"      (32.8us, 65.5us] : 0          |                                        |\n"
		"       (65.5us, 131us] : 0          |                                        |\n"
		"        (131us, 262us] : 0          |                                        |\n"
		"        (262us, 524us] : 0          |                                        |\n"
		"       (524us, 1.05ms] : 0          |                                        |\n"
		"       (1.05ms, 2.1ms] : 0          |                                        |\n"
		"       (2.1ms, 4.19ms] : 10         |                                        |\n"
		"read (cpu time): mean 302ns\n"
		"               latency : count      distribution\n"
		"        (256ns, 512ns] : 1010       |****************************************|\n"
		"\n"
		"getattr: count 5, total 10us, mean 2us\n"
		"               latency : count      distribution\n"
		"      (1.02us, 2.05us] : 5          |****************************************|\n"
		"counters: instructions=123456789012\n"
		"attributes: pmc=unavailable\n"
		"\n";
	struct osp_profile *p = fixture_profile(1);
	char *s = render(osp_write_stats, p), *peaks = strstr(s, "\npeaks:\n");

	cr_assert_not_null(peaks, "%s", s);
	peaks[1] = '\0';
	cr_expect_str_eq(s, want);
	free(s);
	osp_profile_free(p);
}

/* The bar drawn for bucket 10 ((512ns, 1.02us]) holding @n of @max. */
static void expect_bar(uint64_t n, uint64_t max, unsigned stars)
{
	struct osp_profile *p = osp_profile_new("fs", 1);
	struct osp_op *o = osp_profile_add_op(p, "read", false);
	char *s, line[128], bar[41];

	cr_assert_not_null(o);
	cr_assert_eq(osp_hist_bucket_set(&o->lat, 10, n), 0);
	cr_assert_eq(osp_hist_bucket_set(&o->lat, 20, max), 0);
	o->lat.count = n + max;
	o->lat.sum = n * 800 + max * 800000;
	memset(bar, '*', stars);
	memset(bar + stars, ' ', 40 - stars);
	bar[40] = '\0';
	snprintf(line, sizeof(line), "       (512ns, 1.02us] : %-10" PRIu64 " |%s|", n, bar);
	s = render(osp_write_stats, p);
	cr_expect(has_line(s, line), "want \"%s\" in:\n%s", line, s);
	free(s);
	osp_profile_free(p);
}

Test(writers, bars_are_in_proportion_with_no_minimum_star)
{
	expect_bar(1, 200000, 0);      /* bcc draws none either */
	expect_bar(4999, 200000, 0);   /* 0.99975 of a star */
	expect_bar(5000, 200000, 1);
	expect_bar(100000, 200000, 20);
	expect_bar(199999, 200000, 39);
	expect_bar(200000, 200000, 40); /* the largest bucket, full width */
	expect_bar(UINT64_MAX / 2, UINT64_MAX / 2, 40); /* no overflow */
}

/* read: 1000 at 800 ns and 10 at 3 ms, two peaks, each mean from its
 * bucket's geometric midpoint; getattr one, its mean exact; mkdir none. */
Test(writers, stats_lists_the_peaks_of_each_operation)
{
	static const char want[] =
		"peaks:\n"
		"OPERATION        PEAK BUCKETS   LATENCY                     COUNT  SHARE      MEAN\n"
		"read                1 10..10    (512ns, 1.02us]              1000  99.0%     724ns\n"
		"                    2 22..22    (2.1ms, 4.19ms]                10   1.0%    2.97ms\n"
		"getattr             1 11..11    (1.02us, 2.05us]                5 100.0%       2us\n";
	struct osp_profile *p = fixture_profile(1);
	char *s = render(osp_write_stats, p), *peaks = strstr(s, "\npeaks:\n");

	cr_assert_not_null(peaks, "%s", s);
	cr_expect_gt(peaks, strstr(s, "read (cpu time)"), "peaks follow the histograms");
	cr_expect_str_eq(peaks + 1, want);
	free(s);
	osp_profile_free(p);
}

Test(writers, stats_warns_on_bad_checksum_and_empty_profile)
{
	struct osp_profile *p = fixture_profile(1);
	char *s;

	p->ops[1].lat.count++;
	s = render(osp_write_stats, p);
	cr_expect(has_line(s, "warning: getattr: buckets add up to 5, count says 6"), "%s", s);
	free(s);
	osp_profile_free(p);
	p = osp_profile_new("lower", 1);
	s = render(osp_write_stats, p);
	cr_expect_str_eq(s, "osprof lower profile: 0 operations, 0 requests in 0ns\n"
			 "clock monotonic (1.000 cycles/ns), resolution 1 bucket per power of 2, unit ns\n"
			 "\n(no requests recorded)\n");
	free(s);
	osp_profile_free(p);
}

Test(writers, stats_at_resolution_4_labels_fractional_bounds)
{
	struct osp_profile *p = fixture_profile(4);
	char *s = render(osp_write_stats, p);

	/* 800 ns at r=4: bucket 39, (724ns, 861ns]. */
	cr_expect(has_line(s, "        (724ns, 861ns] : 1000       |****************************************|"),
		  "%s", s);
	free(s);
	osp_profile_free(p);
}

Test(writers, timeline_lists_each_snapshot)
{
	struct osp_profile *p = fixture_profile(1);
	char *s = render(osp_write_timeline, p);

	cr_expect_str_eq(s, "timeline: interval 1s, 2 snapshots, 1 dropped\n"
			 "         T  OPERATION             COUNT      MEAN       P99       MAX\n"
			 "        1s  getattr                   5       2us       2us       2us\n"
			 "        2s  (idle)\n");
	free(s);
	osp_profile_drop_timeline(p);
	s = render(osp_write_timeline, p);
	cr_expect_str_eq(s, "timeline off (enable it with: echo 'timeline 1000' > ctl)\n");
	free(s);
	osp_profile_free(p);
}

Test(writers, openmetrics_buckets_are_cumulative_in_seconds)
{
	struct osp_profile *p = fixture_profile(1);
	char *s = render(om, p);
	/* The mount label is the profile's own source.mount. */
	const char *l = "{mount=\"/mnt/p \\\"quoted\\\"\",layer=\"fs\",op=\"read\"";

#define HAS(fmt, ...) do { \
		char want_[512]; \
		snprintf(want_, sizeof(want_), fmt, __VA_ARGS__); \
		cr_expect_not_null(strstr(s, want_), "no %s in\n%s", want_, s); \
	} while (0)
	HAS("# TYPE %s histogram\n# UNIT %s seconds\n", OSP_OM_LATENCY, OSP_OM_LATENCY);
	HAS("osprof_latency_seconds_bucket%s,le=\"0.000000256\"} 0\n", l);
	HAS("osprof_latency_seconds_bucket%s,le=\"0.000000512\"} 0\n", l);
	HAS("osprof_latency_seconds_bucket%s,le=\"0.000001024\"} 1000\n", l);
	HAS("osprof_latency_seconds_bucket%s,le=\"0.002097152\"} 1000\n", l);
	HAS("osprof_latency_seconds_bucket%s,le=\"0.004194304\"} 1010\n", l);
	HAS("osprof_latency_seconds_bucket%s,le=\"68.719476736\"} 1010\n", l);
	HAS("osprof_latency_seconds_bucket%s,le=\"+Inf\"} 1010\n", l);
	HAS("osprof_latency_seconds_count%s} 1010\n", l);
	HAS("osprof_latency_seconds_sum%s} 0.0308\n", l);
	HAS("# TYPE %s histogram\n", OSP_OM_CPU);
	HAS("osprof_cpu_seconds_count%s} 1010\n", l);
	HAS("osprof_info{mount=\"/mnt/p \\\"quoted\\\"\",layer=\"fs\",version=\"%s\",resolution=\"1\",cache=\"never\",attr_timeout_s=\"0.0\",writeback=\"false\"} 1\n",
	    OSPROF_VERSION);
#undef HAS
	cr_expect_null(strstr(s, "op=\"mkdir\""), "an empty operation is not served");
	cr_expect_null(strstr(s, "osprof_cpu_seconds_count{mount=\"/mnt/p \\\"quoted\\\"\",layer=\"fs\",op=\"getattr\"}"));
	cr_expect_eq(strcmp(s + strlen(s) - 6, "# EOF\n"), 0);
	free(s);
	osp_profile_free(p);
}

Test(writers, a_full_device_gives_eio)
{
	struct osp_profile *p = fixture_profile(1);
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_expect_eq(osp_write_json(f, p), -EIO);
	clearerr(f);
	cr_expect_eq(osp_write_stats(f, p), -EIO);
	fclose(f);
	osp_profile_free(p);
}

Test(writers, csv_fields_are_quoted_only_when_needed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	osp_csv_field(f, "plain");
	fputc(',', f);
	osp_csv_field(f, "a,b");
	fputc(',', f);
	osp_csv_field(f, "say \"hi\"");
	fputc(',', f);
	osp_csv_field(f, "two\nlines");
	fclose(f);
	cr_expect_str_eq(buf, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"");
	free(buf);
}
