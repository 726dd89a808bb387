// SPDX-License-Identifier: MIT
/*
 * orp-bench-speed: the speed targets of issue 3, measured and printed.
 *  1. Comparing two profile sets of 50 operations: under 10 ms. Timed in
 *     process (core's osp_compare, the analysis itself) and end to end
 *     (`osprof-report compare A.json B.json`: start, parse, print).
 *  2. Rendering every chart of a 40-operation profile with a timeline:
 *     under 5 s (`osprof-report plot`, PNG and SVG).
 * The profiles are synthetic (orp_bench_gen.c), recorded through a
 * struct osp_set as osprof-fs records them, and written to a private
 * temporary directory that is removed at the end.
 *
 *   orp-bench-speed [OSPROF_REPORT]   (default: the one built beside it)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "orp_bench_gen.h"
#include "osprof/analysis.h"
#include "osprof/clock.h"
#include "osprof/format.h"
#include "osprof/set.h"

#define COMPARE_RUNS 200
#define CLI_RUNS 20
#define RENDER_RUNS 3

static double now_ms(void)
{
	return (double)osp_clock_mono_ns() / 1e6;
}

/* Sorts @v (callers read the slowest from its end). */
static double median(double *v, size_t n)
{
	gsl_sort(v, 1, n);
	return gsl_stats_median_from_sorted_data(v, 1, n);
}

/*
 * A profile of @nops operations drawn from @mix (one mixture per op), in
 * @phases timeline snapshots (1: no timeline) of @per requests per op.
 */
static struct osp_profile *make_profile(gsl_rng *rng, unsigned nops,
					unsigned phases, unsigned per,
					const struct orp_mixture *mix)
{
	char **names = calloc(nops, sizeof(*names));
	struct osp_profile *p = osp_profile_new("fs", 1);
	struct osp_set *s = NULL;

	for (unsigned i = 0; names && i < nops; i++)
		if (asprintf(&names[i], "op%02u", i) < 0)
			names[i] = NULL;
	if (names && p)
		s = osp_set_new((const char *const *)names, nops, 1, false);
	if (s && phases > 1 && osp_set_timeline_start(s, 3600000000000ull, phases))
		goto fail;
	for (unsigned ph = 0; s && ph < phases; ph++) {
		for (unsigned i = 0; i < nops; i++)
			for (unsigned k = 0; k < per; k++)
				osp_set_record(s, i, orp_gen_value(rng, &mix[i]), 0);
		if (phases > 1 && osp_set_timeline_tick(s))
			goto fail;
	}
	if (!s || osp_set_snapshot(s, p))
		goto fail;
	p->elapsed_ns = 10000000000ull;
	osp_set_free(s);
	for (unsigned i = 0; i < nops; i++)
		free(names[i]);
	free(names);
	return p;
fail:
	osp_set_free(s);
	for (unsigned i = 0; names && i < nops; i++)
		free(names[i]);
	free(names);
	osp_profile_free(p);
	return NULL;
}

static int write_json(const struct osp_profile *p, const char *path)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return -errno;
	rc = osp_write_json(f, p);
	return fclose(f) ? -EIO : rc;
}

/* Run argv quietly; its wall time in ms, or a negative value on failure
 * (compare's exit 1, "differences found", counts as success). */
static double run_ms(char *const *argv)
{
	double t0;
	pid_t pid;
	int st;

	fflush(NULL); /* or the child's exit writes our buffered output again */
	t0 = now_ms();
	pid = fork();

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) > 1)
		return -1.0;
	return now_ms() - t0;
}

static void bench_compare(gsl_rng *rng, const char *bin, const char *dir)
{
	struct orp_mixture ma[50], mb[50];
	struct osp_profile *a, *b;
	struct osp_cmp_opts o;
	double t[COMPARE_RUNS], cli[CLI_RUNS], med;
	char pa[512], pb[512];
	size_t found = 0;

	for (int i = 0; i < 50; i++) {
		orp_gen_mixture(rng, 1, &ma[i]);
		orp_gen_change(rng, &ma[i], i % 5 == 0 ? ORP_GEN_SHIFT : ORP_GEN_SAME, &mb[i]);
	}
	a = make_profile(rng, 50, 1, 20000, ma);
	b = make_profile(rng, 50, 1, 20000, mb);
	if (!a || !b) {
		fprintf(stderr, "orp-bench-speed: cannot make profiles\n");
		exit(2);
	}
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	for (int r = 0; r < COMPARE_RUNS; r++) {
		struct osp_cmp c;
		double t0 = now_ms();

		osp_compare((const struct osp_profile *const *)&a, 1,
			    (const struct osp_profile *const *)&b, 1, &o, &c);
		t[r] = now_ms() - t0;
		found = c.ninteresting;
		osp_cmp_free(&c);
	}
	snprintf(pa, sizeof(pa), "%s/a.json", dir);
	snprintf(pb, sizeof(pb), "%s/b.json", dir);
	printf("compare, two sets of 50 operations (20000 requests each, 10 changed; %zu found):\n",
	       found);
	med = median(t, COMPARE_RUNS); /* sorts t: the slowest is last */
	printf("  osp_compare in process: median %.4f ms, slowest %.4f ms over %d runs\n",
	       med, t[COMPARE_RUNS - 1], COMPARE_RUNS);
	if (write_json(a, pa) == 0 && write_json(b, pb) == 0) {
		char *argv[] = { (char *)bin, "compare", pa, pb, NULL };

		for (int r = 0; r < CLI_RUNS; r++)
			cli[r] = run_ms(argv);
		printf("  osprof-report compare A.json B.json: median %.2f ms over %d runs (process start and JSON parsing included)\n",
		       median(cli, CLI_RUNS), CLI_RUNS);
	}
	osp_profile_free(a);
	osp_profile_free(b);
}

static void bench_render(gsl_rng *rng, const char *bin, const char *dir)
{
	struct orp_mixture m[40];
	struct osp_profile *p;
	char path[512], out[512];
	const char *fmts[] = { "png", "svg" };

	for (int i = 0; i < 40; i++)
		orp_gen_mixture(rng, 1, &m[i]);
	p = make_profile(rng, 40, 10, 500, m);
	snprintf(path, sizeof(path), "%s/p40.json", dir);
	if (!p || write_json(p, path)) {
		fprintf(stderr, "orp-bench-speed: cannot write %s\n", path);
		exit(2);
	}
	osp_profile_free(p);
	printf("plot, every chart of a 40-operation profile with a 10-snapshot timeline\n"
	       "  (40 histograms, overview, timeline heat map: 42 charts):\n");
	for (int f = 0; f < 2; f++) {
		double t[RENDER_RUNS];

		snprintf(out, sizeof(out), "%s/charts-%s", dir, fmts[f]);
		for (int r = 0; r < RENDER_RUNS; r++) {
			char *argv[] = { (char *)bin, "plot", "--format", (char *)fmts[f],
					 path, "-o", out, NULL };

			t[r] = run_ms(argv);
		}
		printf("  %s: median %.0f ms over %d runs%s\n", fmts[f], median(t, RENDER_RUNS),
		       RENDER_RUNS, t[0] < 0 ? " (FAILED)" : "");
	}
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : ORP_REPORT_BIN;
	char dir[] = "/tmp/orp-bench-speed-XXXXXX", cmd[600];
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	if (!mkdtemp(dir)) {
		perror("orp-bench-speed: mkdtemp");
		return 2;
	}
	gsl_rng_set(rng, 7);
	printf("osprof-report speed (%s)\n\n", bin);
	bench_compare(rng, bin, dir);
	putchar('\n');
	bench_render(rng, bin, dir);
	gsl_rng_free(rng);
	/* Our own private directory, known to be flat but for the charts. */
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
