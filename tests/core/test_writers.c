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

static int om(FILE *f, const struct osp_profile *p)
{
	return osp_write_openmetrics(f, p, "osprof_fs");
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

Test(writers, stats_sorts_by_total_and_draws_histograms)
{
	struct osp_profile *p = fixture_profile(1);
	char *s = render(osp_write_stats, p);
	char *read_row = strstr(s, "\nread "), *ga_row = strstr(s, "\ngetattr ");

	cr_assert_not_null(read_row, "%s", s);
	cr_assert_not_null(ga_row);
	cr_expect_lt(read_row, ga_row, "read (more total time) comes first");
	cr_expect_null(strstr(s, "\nmkdir "), "empty ops are not listed");
	cr_expect_not_null(strstr(s, "clock tsc (2.500 cycles/ns), resolution 1 bucket per power of 2"));
	cr_expect_not_null(strstr(s, "options: cache=never attr_timeout_s=0.0 writeback=false"));
	/*
	 * 800 ns: bucket 10, (512ns, 1.02us], full bar; 3 ms: bucket 22,
	 * 10 of 1000: 0.4 of a star, so none (bars are in proportion).
	 */
	cr_expect_not_null(strstr(s, "(512ns, 1.02us] : 1000       |****************************************|"), "%s", s);
	cr_expect_not_null(strstr(s, "(2.1ms, 4.19ms] : 10         |                                        |"), "%s", s);
	/* Empty buckets between the peaks are shown, tails are trimmed. */
	cr_expect_not_null(strstr(s, "(1.02us, 2.05us] : 0 "));
	cr_expect_gt(strstr(s, "(256ns, 512ns]"), strstr(s, "read (cpu time)"),
		     "the latency histogram's empty tail is trimmed");
	cr_expect_not_null(strstr(s, "read (cpu time): mean"));
	cr_expect_not_null(strstr(s, "counters: instructions=123456789012"));
	cr_expect_not_null(strstr(s, "attributes: pmc=unavailable"));
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
	snprintf(line, sizeof(line), "(512ns, 1.02us] : %-10" PRIu64 " |%s|\n", n, bar);
	s = render(osp_write_stats, p);
	cr_expect_not_null(strstr(s, line), "want \"%s\" in:\n%s", line, s);
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

Test(writers, stats_lists_the_peaks_of_each_operation)
{
	struct osp_profile *p = fixture_profile(1);
	char *s = render(osp_write_stats, p), *peaks = strstr(s, "\npeaks:\n");

	cr_assert_not_null(peaks, "%s", s);
	cr_expect_gt(peaks, strstr(s, "read (cpu time)"), "peaks follow the histograms");
	cr_expect_not_null(strstr(peaks, "OPERATION        PEAK BUCKETS   LATENCY"), "%s", peaks);
	/* read: 1000 at 800 ns and 10 at 3 ms, two peaks; getattr one. */
	cr_expect_not_null(strstr(peaks, "\nread                1 10..10    (512ns, 1.02us]              1000  99.0%"), "%s", peaks);
	cr_expect_not_null(strstr(peaks, "\n                    2 22..22    (2.1ms, 4.19ms]"), "%s", peaks);
	cr_expect_not_null(strstr(peaks, "\ngetattr             1 "), "%s", peaks);
	cr_expect_null(strstr(peaks, "mkdir"), "an empty op has no peaks");
	free(s);
	osp_profile_free(p);
}

Test(writers, stats_warns_on_bad_checksum_and_empty_profile)
{
	struct osp_profile *p = fixture_profile(1);
	char *s;

	p->ops[1].lat.count++;
	s = render(osp_write_stats, p);
	cr_expect_not_null(strstr(s, "warning: getattr: buckets add up to 5, count says 6"), "%s", s);
	free(s);
	osp_profile_free(p);
	p = osp_profile_new("lower", 1);
	s = render(osp_write_stats, p);
	cr_expect_not_null(strstr(s, "(no requests recorded)"));
	free(s);
	osp_profile_free(p);
}

Test(writers, stats_at_resolution_4_labels_fractional_bounds)
{
	struct osp_profile *p = fixture_profile(4);
	char *s = render(osp_write_stats, p);

	/* 800 ns at r=4: bucket 39, (724ns, 861ns]. */
	cr_expect_not_null(strstr(s, "(724ns, 861ns] : 1000 "), "%s", s);
	free(s);
	osp_profile_free(p);
}

Test(writers, timeline_lists_each_snapshot)
{
	struct osp_profile *p = fixture_profile(1);
	char *s = render(osp_write_timeline, p);

	cr_expect_not_null(strstr(s, "timeline: interval 1s, 2 snapshots, 1 dropped"), "%s", s);
	cr_expect_not_null(strstr(s, "getattr                   5"), "%s", s);
	cr_expect_not_null(strstr(s, "2s  (idle)"), "%s", s);
	free(s);
	osp_profile_drop_timeline(p);
	s = render(osp_write_timeline, p);
	cr_expect_not_null(strstr(s, "timeline off"));
	free(s);
	osp_profile_free(p);
}

Test(writers, openmetrics_buckets_are_cumulative_in_seconds)
{
	struct osp_profile *p = fixture_profile(1);
	char *s = render(om, p);

	cr_expect_not_null(strstr(s, "# TYPE osprof_fs_latency_seconds histogram\n"));
	cr_expect_not_null(strstr(s, "# UNIT osprof_fs_latency_seconds seconds\n"));
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_bucket{op=\"read\",le=\"5.12e-07\"} 0\n"), "%s", s);
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_bucket{op=\"read\",le=\"1.024e-06\"} 1000\n"));
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_bucket{op=\"read\",le=\"0.002097152\"} 1000\n"));
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_bucket{op=\"read\",le=\"0.004194304\"} 1010\n"));
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_bucket{op=\"read\",le=\"+Inf\"} 1010\n"));
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_count{op=\"read\"} 1010\n"));
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_sum{op=\"read\"} 0.0308\n"), "%s", s);
	cr_expect_not_null(strstr(s, "osprof_fs_latency_seconds_bucket{op=\"mkdir\",le=\"+Inf\"} 0\n"));
	cr_expect_not_null(strstr(s, "# TYPE osprof_fs_cpu_seconds histogram\n"));
	cr_expect_null(strstr(s, "osprof_fs_cpu_seconds_count{op=\"getattr\"}"));
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
