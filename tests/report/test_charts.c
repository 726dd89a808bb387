// SPDX-License-Identifier: MIT
/*
 * The charts of `osprof-report plot`, rendered by the real gnuplot into
 * SVG and read back: histograms read in latency (the x axis titled
 * "latency", ticks 1us, 10us, 1ms ..., no axis of bucket numbers), overview
 * panels on one x range with axis titles, per-operation charts in order of
 * total time, no legend of one entry, one timeline heat map per operation
 * in the viridis palette, and wall-clock times on the timeline when asked.
 *
 * The profile is written here with known numbers: three operations whose
 * file and alphabetical order (getattr, read, write) is the reverse of
 * their order by total time, and a timeline of three one-second intervals
 * from 2024-11-21 14:40:00 UTC (getattr absent from the last).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

TestSuite(charts, .init = cli_setup, .fini = cli_teardown);

static const char tl_profile[] =
	"{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"host\": \"h\",\n"
	" \"clock\": {\"source\": \"tsc\", \"cycles_per_ns\": 3.0}, \"resolution\": 1, \"unit\": \"ns\",\n"
	" \"start_unix_ns\": 1732200000000000000, \"elapsed_ns\": 3000000000,\n"
	" \"ops\": [\n"
	"  {\"name\": \"getattr\", \"count\": 200, \"sum\": 300000, \"min\": 1100, \"max\": 2000, \"buckets\": [[11, 200]]},\n"
	"  {\"name\": \"read\", \"count\": 1000, \"sum\": 300720000, \"min\": 600, \"max\": 4000000, \"buckets\": [[10, 900], [22, 100]]},\n"
	"  {\"name\": \"write\", \"count\": 500, \"sum\": 400000000, \"min\": 600000, \"max\": 1000000, \"buckets\": [[20, 500]]}\n"
	" ],\n"
	" \"timeline\": {\"interval_ns\": 1000000000, \"snapshots\": [\n"
	"  {\"t_ns\": 1000000000, \"ops\": [\n"
	"   {\"name\": \"getattr\", \"count\": 100, \"sum\": 150000, \"min\": 1100, \"max\": 2000, \"buckets\": [[11, 100]]},\n"
	"   {\"name\": \"read\", \"count\": 334, \"sum\": 102240000, \"min\": 600, \"max\": 4000000, \"buckets\": [[10, 300], [22, 34]]},\n"
	"   {\"name\": \"write\", \"count\": 200, \"sum\": 160000000, \"min\": 600000, \"max\": 1000000, \"buckets\": [[20, 200]]}]},\n"
	"  {\"t_ns\": 2000000000, \"ops\": [\n"
	"   {\"name\": \"getattr\", \"count\": 100, \"sum\": 150000, \"min\": 1100, \"max\": 2000, \"buckets\": [[11, 100]]},\n"
	"   {\"name\": \"read\", \"count\": 333, \"sum\": 99240000, \"min\": 600, \"max\": 4000000, \"buckets\": [[10, 300], [22, 33]]},\n"
	"   {\"name\": \"write\", \"count\": 200, \"sum\": 160000000, \"min\": 600000, \"max\": 1000000, \"buckets\": [[20, 200]]}]},\n"
	"  {\"t_ns\": 3000000000, \"ops\": [\n"
	"   {\"name\": \"read\", \"count\": 333, \"sum\": 99240000, \"min\": 600, \"max\": 4000000, \"buckets\": [[10, 300], [22, 33]]},\n"
	"   {\"name\": \"write\", \"count\": 100, \"sum\": 80000000, \"min\": 600000, \"max\": 1000000, \"buckets\": [[20, 100]]}]}\n"
	" ]}}\n";

static char *profile(void)
{
	char *path = tpath("tl.json");

	if (!exists(path))
		spit(path, tl_profile, strlen(tl_profile));
	return path;
}

/* plot --format svg PROFILE -o DIR [@extra...]: its output, checked. */
static char *plot_svg(const char *dir, const char *opt, const char *val)
{
	struct run r = opt ? REPORT("plot", "--format", "svg", (char *)opt, (char *)val,
				    profile(), "-o", tpath("%s", dir))
			   : REPORT("plot", "--format", "svg", profile(), "-o", tpath("%s", dir));

	cr_assert_eq(r.status, 0, "plot: %s", r.err);
	return r.out;
}

/* A chart's file in the test's directory, read whole (freed at teardown). */
static char *chart(const char *dir, const char *file)
{
	char *text = slurp(tpath("%s/%s", dir, file));

	cr_assert_not_null(text, "%s/%s was not written", dir, file);
	return own(text);
}

/* Whether gnuplot drew @label as a text element of the SVG. */
static bool svg_text(const char *svg, const char *label)
{
	char want[128];

	snprintf(want, sizeof(want), ">%s<", label);
	return strstr(svg, want) != NULL;
}

Test(charts, histogram_x_axis_is_labelled_in_latency)
{
	static const struct { const char *file, *labels[4]; } want[] = {
		{ "op-fs-read.svg", { "1us", "10us", "100us", "1ms" } },
		/* One bucket: too narrow for two decades, so 1-2-5 steps. */
		{ "op-fs-write.svg", { "500us", "1ms" } },
		{ "op-fs-getattr.svg", { "1us", "2us" } },
		{ "overview-fs.svg", { "1us", "10us", "1ms" } },
	};

	plot_svg("svg", NULL, NULL);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *svg = chart("svg", want[i].file);

		cr_expect(svg_text(svg, "latency"), "%s: no axis title 'latency'", want[i].file);
		for (size_t k = 0; k < 4 && want[i].labels[k]; k++)
			cr_expect(svg_text(svg, want[i].labels[k]), "%s: no tick '%s'",
				  want[i].file, want[i].labels[k]);
	}
	/* 1us sits where 1000 ns does: log2(1000) + 0.5, as bucket 10 is
	 * drawn over [9.5, 10.5] for (512, 1024] ns. */
	cr_expect_not_null(strstr(chart("svg", "op-fs-read.gp"), "'1us' 10.4658"));
	/* Latency in human units only: no axis of bucket numbers above. */
	cr_expect_null(strstr(chart("svg", "op-fs-read.gp"), "\nset x2tics"));
	cr_expect_not_null(strstr(chart("svg", "op-fs-read.gp"), "unset x2tics"));
	cr_expect(!svg_text(chart("svg", "op-fs-read.svg"),
			    "bucket b: latency in (2^((b-1)/1), 2^(b/1)] ns"));
}

Test(charts, overview_panels_share_one_x_range_with_axis_titles)
{
	const char *gp, *multi;

	plot_svg("ov", NULL, NULL);
	gp = chart("ov", "overview-fs.gp");
	multi = strstr(gp, "set multiplot");
	cr_assert_not_null(multi);
	cr_expect_not_null(strstr(gp, "set xrange"), "no x range");
	cr_expect_null(strstr(strstr(gp, "set xrange") + 1, "set xrange"),
		       "more than one x range: the panels differ");
	cr_expect(strstr(gp, "set xrange") < multi, "the x range is not shared");
	cr_expect_null(strstr(gp, "font ',7'"), "a font shrunk below the terminal's");
	cr_expect(svg_text(chart("ov", "overview-fs.svg"), "requests"));
}

/* The image names of @out whose base starts with @prefix, in order, joined. */
static char *names_with(const char *out, const char *prefix)
{
	char *copy = own(strdup(out)), *save = NULL, *joined = own(calloc(1, strlen(out) + 1));

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		const char *base = strrchr(l, '/') ? strrchr(l, '/') + 1 : l;

		if (strncmp(base, prefix, strlen(prefix)) == 0) {
			strcat(joined, *joined ? " " : "");
			strcat(joined, base);
		}
	}
	return joined;
}

Test(charts, per_operation_charts_come_in_order_of_total_time)
{
	const char *out = plot_svg("order", NULL, NULL);

	cr_expect_str_eq(names_with(out, "op-"),
			 "op-fs-write.svg op-fs-read.svg op-fs-getattr.svg");
	cr_expect_str_eq(names_with(out, "timeline-"),
			 "timeline-fs-write.svg timeline-fs-read.svg timeline-fs-getattr.svg");
}

/* The legend entries of each plot command of script @gp: never exactly one. */
static void expect_no_single_entry_legend(const char *name, const char *gp)
{
	const char *p = gp;

	while ((p = strstr(p, "\nplot ")) != NULL) {
		const char *end = p + 1;
		int titles = 0;

		/* The command runs on while its lines end in a backslash. */
		while ((end = strchr(end, '\n')) && end[-1] == '\\')
			end++;
		for (const char *t = strstr(p, " title "); t && (!end || t < end);
		     t = strstr(t + 1, " title "))
			titles++;
		cr_expect_neq(titles, 1, "%s: a legend of one entry", name);
		p = end ? end : p + 1;
	}
}

Test(charts, no_legend_has_a_single_entry)
{
	DIR *d;
	struct dirent *e;
	size_t n = 0, lines = 0;
	const char *out = plot_svg("keys", "--compare", profile());

	for (const char *c = strchr(out, '\n'); c; c = strchr(c + 1, '\n'))
		lines++;
	d = opendir(tpath("keys"));
	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL) {
		const char *dot = strrchr(e->d_name, '.');

		if (!dot || strcmp(dot, ".gp") != 0)
			continue;
		expect_no_single_entry_legend(e->d_name, chart("keys", e->d_name));
		n++;
	}
	closedir(d);
	/* Per op (3): its chart, its timeline, its overlay; and the overview. */
	cr_expect_eq(n, 3 * 3 + 1, "%zu charts", n);
	cr_expect_eq(lines, n, "plot names each chart once: %s", out);
	/* The overlay has two entries: A and B. */
	cr_expect_not_null(strstr(chart("keys", "compare-fs-read.gp"), " title 'B: "));
}

/* The requests in the heat map data $tl of script @gp. */
static double timeline_total(const char *gp)
{
	const char *p = strstr(gp, "$tl << EOD\n"), *end;
	double sum = 0;

	cr_assert_not_null(p, "no heat map data");
	end = strstr(p, "\nEOD\n");
	for (p = strchr(p, '\n') + 1; p && p < end; p = strchr(p, '\n') + 1) {
		unsigned b;
		size_t s;
		double c;

		/* A blank line ends a row; sscanf would read on past it. */
		if (*p != '\n' && sscanf(p, "%u %zu %lf", &b, &s, &c) == 3 && !isnan(c))
			sum += c;
	}
	return sum;
}

Test(charts, timeline_is_one_heat_map_per_operation_in_viridis)
{
	static const struct { const char *file; double requests; } want[] = {
		{ "tl/timeline-fs-getattr.gp", 200 },
		{ "tl/timeline-fs-read.gp", 1000 },
		{ "tl/timeline-fs-write.gp", 500 },
	};

	plot_svg("tl", NULL, NULL);
	cr_expect(!exists(tpath("tl/timeline-fs.gp")), "all operations merged");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const char *gp = chart("tl", want[i].file + 3);

		cr_expect_eq(timeline_total(gp), want[i].requests, "%s", want[i].file);
		cr_expect_not_null(strstr(gp, "set palette defined (0 '#440154'"),
				   "%s: not viridis", want[i].file);
		cr_expect_not_null(strstr(gp, "'#fde725')"), "%s", want[i].file);
		cr_expect_null(strstr(gp, "set palette rgb"), "%s", want[i].file);
	}
}

Test(charts, wall_clock_mode_labels_times_of_day)
{
	const char *svg;
	struct run r;

	plot_svg("wall", "--timeline-clock", "wall");
	svg = chart("wall", "timeline-fs-read.svg");
	cr_expect(svg_text(svg, "14:40:01"), "no wall-clock time");
	cr_expect(svg_text(svg, "14:40:03"));
	cr_expect(svg_text(svg, "end of interval, UTC, from 2024-11-21"));
	/* The default is time since the start. */
	plot_svg("elapsed", NULL, NULL);
	svg = chart("elapsed", "timeline-fs-read.svg");
	cr_expect(svg_text(svg, "1s") && svg_text(svg, "3s"), "no elapsed time");
	cr_expect(!svg_text(svg, "14:40:01"));
	r = REPORT("plot", "--timeline-clock", "sundial", profile(), "-o", tpath("bad"));
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--timeline-clock"), "%s", r.err);
}

/*
 * The HTML report shows the per-operation charts in the same order, of
 * the operations with a tenth of the layer's time: write (57%) and read
 * (43%), not getattr (0.04%), which the overview shows.
 */
Test(charts, html_charts_come_in_order_of_total_time)
{
	char *html = tpath("order.html"), *page;
	struct run r = REPORT("html", profile(), "-o", html);
	const char *w, *rd;

	cr_assert_eq(r.status, 0, "html: %s", r.err);
	page = own(slurp(html));
	cr_assert_not_null(page);
	/* Each chart's caption names its operation: "fs read: 333 requests". */
	w = strstr(page, "<figcaption>fs write:");
	rd = strstr(page, "<figcaption>fs read:");
	cr_assert(w && rd, "charts missing from the page");
	cr_expect(w < rd, "write, then read: the order of total time");
	cr_expect_null(strstr(page, "<figcaption>fs getattr:"), "getattr has 0.04%% of the time");
	cr_expect_not_null(strstr(page, "<figcaption>fs layer: the 3 operations with the most total latency"));
}
