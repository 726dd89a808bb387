// SPDX-License-Identifier: MIT
/*
 * The text report of osprof-bench on stdout: a header naming the machine and
 * the settings, why the series stopped, Auto-pilot's table (one row per
 * configuration and quantity: NAME COUNT MEAN MEDIAN LOW HIGH MIN MAX SDEV%
 * HW% O/H%), the warnings (failed runs, outliers, drifts) and the comparison
 * of each configuration with the baseline. Values that cannot be computed
 * (one run, no variance) print as "-".
 */
#include "obn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

/* v with prec decimals (and a sign when asked), or "-" when unknown. */
static const char *fmt(char *buf, size_t len, double v, int prec, bool sign)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, sign ? "%+.*f" : "%.*f", prec, v);
	return buf;
}

static const char *num(char *buf, size_t len, double v, int prec)
{
	return fmt(buf, len, v, prec, false);
}

/* A signed value, for differences and drifts. */
static const char *snum(char *buf, size_t len, double v, int prec)
{
	return fmt(buf, len, v, prec, true);
}

/* A p-value: three significant digits, "-" when unknown. */
static const char *pval(char *buf, size_t len, double p)
{
	if (isnan(p))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3g", p);
	return buf;
}

static int prec_of(enum obn_qty q)
{
	return q == OBN_Q_CPU_PCT ? 2 : 6;
}

static void print_header(const struct obn_session *s)
{
	const struct obn_opts *o = s->opts;
	const struct obn_machine *m = &s->machine;

	printf("osprof-bench %s: %zu configuration%s, %g%% confidence, "
	       "half-width bound %g%%, %s caches, %u cop%s per run\n",
	       OSPROF_VERSION, o->nconfigs, o->nconfigs == 1 ? "" : "s",
	       o->level * 100.0, o->hw_pct, o->cold ? "cold" : "warm",
	       o->threads, o->threads == 1 ? "y" : "ies");
	printf("machine: %s, %s, %ld x %s, %.1f GiB, cwd on %s (%s)\n", m->host,
	       m->kernel, m->cpus_online, m->cpu_model,
	       (double)m->mem_total_bytes / (1024.0 * 1024 * 1024), m->cwd_mnt.fstype,
	       m->cwd_mnt.point);
	if (s->remount_desc)
		printf("remount before every run: %s\n", s->remount_desc);
	printf("%s\n\n", s->stop_msg);
}

static void print_row(const struct obn_session *s, size_t c, enum obn_qty q)
{
	const struct obn_result *r = &s->results[c];
	const struct obn_summary *x = &r->sum[q];
	char name[96], b[10][48];
	int p = prec_of(q);
	double mean = fabs(x->mean);

	snprintf(name, sizeof(name), "%s:%s", s->opts->configs[c].name,
		 obn_qty_names[q]);
	printf("%-20s %5zu %11s %11s %11s %11s %11s %11s %6s %6s %8s\n", name,
	       x->count, num(b[0], 48, x->mean, p), num(b[1], 48, x->median, p),
	       num(b[2], 48, x->low, p), num(b[3], 48, x->high, p),
	       num(b[4], 48, x->min, p), num(b[5], 48, x->max, p),
	       num(b[6], 48, mean > 0 ? x->sd / mean * 100.0 : NAN, 1),
	       num(b[7], 48, mean > 0 ? x->hw / mean * 100.0 : NAN, 1),
	       c == 0 ? "-" : snum(b[8], 48, r->overhead_pct[q], 1));
}

static void print_table(const struct obn_session *s)
{
	printf("%-20s %5s %11s %11s %11s %11s %11s %11s %6s %6s %8s\n", "NAME",
	       "COUNT", "MEAN", "MEDIAN", "LOW", "HIGH", "MIN", "MAX", "SDEV%",
	       "HW%", "O/H%");
	for (size_t c = 0; c < s->opts->nconfigs; c++)
		for (int q = 0; q < OBN_Q_COUNT; q++)
			print_row(s, c, q);
	printf("(times in seconds; LOW-HIGH is the %g%% confidence interval of "
	       "the mean; the bound applies to each half-width relative to its "
	       "mean, or to the elapsed mean when that is larger, and for cpu%% "
	       "to 100%%)\n", s->opts->level * 100.0);
}

static int print_failures(const struct obn_session *s)
{
	int n = 0;

	for (size_t c = 0; c < s->opts->nconfigs; c++) {
		const struct obn_config *cfg = &s->opts->configs[c];
		for (size_t i = 0; i < cfg->nruns; i++) {
			if (cfg->runs[i].ok)
				continue;
			printf("warning: %s: run %u failed: %s\n", cfg->name,
			       cfg->runs[i].index, cfg->runs[i].failure);
			n++;
		}
	}
	return n;
}

static int print_outliers(const struct obn_session *s)
{
	int n = 0;
	char b[3][48];

	for (size_t c = 0; c < s->opts->nconfigs; c++) {
		const struct obn_config *cfg = &s->opts->configs[c];
		const struct obn_result *r = &s->results[c];
		for (size_t i = 0; i < r->noutliers; i++) {
			const struct obn_outlier *x = &r->outliers[i];
			int p = prec_of(x->q);
			printf("warning: %s: run %u: %s %s %s is an outlier: z = %.2f "
			       "(|z| > %g; mean %s)\n", cfg->name,
			       cfg->runs[x->run].index, obn_qty_names[x->q],
			       num(b[0], 48, x->value, p), obn_qty_units[x->q],
			       x->z, s->opts->zmax,
			       num(b[1], 48, r->sum[x->q].mean, p));
			n++;
		}
	}
	return n;
}

static void print_trend(const struct obn_session *s, size_t c,
			enum obn_trend_qty t)
{
	const struct obn_trend *tr = &s->results[c].trend[t];
	bool mem = t == OBN_T_MEM_FREE;
	double scale = mem ? 1.0 / (1024 * 1024) : 1.0;
	const char *unit = mem ? "MiB" : "s";
	int p = mem ? 2 : 6;
	char b[4][48];

	printf("warning: %s: %s %s by %s %s per run (%g%% CI of the slope %s .. "
	       "%s, p = %s): %s\n", s->opts->configs[c].name,
	       mem ? "free memory (MemAvailable)" : obn_trend_names[t],
	       tr->slope > 0 ? "grows" : "shrinks",
	       num(b[0], 48, fabs(tr->slope) * scale, p), unit,
	       s->opts->level * 100.0, snum(b[1], 48, tr->slope_low * scale, p),
	       snum(b[2], 48, tr->slope_high * scale, p), pval(b[3], 48, tr->p),
	       mem ? "a leak, or another process growing?" :
		     "the runs are not independent");
}

static int print_trends(const struct obn_session *s)
{
	int n = 0;

	for (size_t c = 0; c < s->opts->nconfigs; c++)
		for (int t = 0; t < OBN_T_COUNT; t++)
			if (s->results[c].trend_warn[t]) {
				print_trend(s, c, t);
				n++;
			}
	return n;
}

static const char *verdict(const struct obn_session *s, const struct obn_welch *w)
{
	double alpha = 1.0 - s->opts->level;

	if (isnan(w->p_different))
		return "cannot tell (too few runs or no variance)";
	if (w->p_different >= alpha)
		return "no significant difference";
	return w->diff > 0 ? "greater than the baseline" : "less than the baseline";
}

static void print_comparison(const struct obn_session *s, size_t c, enum obn_qty q)
{
	const struct obn_result *r = &s->results[c];
	const struct obn_welch *w = &r->welch[q];
	const struct obn_mw *u = &r->mw[q];
	int p = prec_of(q);
	char b[12][48];

	printf("%s vs %s, %s: difference %s %s (%s%%), %g%% CI [%s, %s]\n",
	       s->opts->configs[c].name, s->opts->configs[0].name,
	       obn_qty_names[q], snum(b[0], 48, w->diff, p), obn_qty_units[q],
	       snum(b[1], 48, r->overhead_pct[q], 1), s->opts->level * 100.0,
	       snum(b[2], 48, w->diff_low, p), snum(b[3], 48, w->diff_high, p));
	printf("    Welch t = %s, df = %s: p(less) = %s, p(greater) = %s, "
	       "p(different) = %s\n", num(b[4], 48, w->t, 3),
	       num(b[5], 48, w->df, 1), pval(b[6], 48, w->p_less),
	       pval(b[7], 48, w->p_greater), pval(b[8], 48, w->p_different));
	printf("    Mann-Whitney U = %s, z = %s: p(less) = %s, p(greater) = %s, "
	       "p(different) = %s\n", num(b[9], 48, u->u, 1),
	       num(b[10], 48, u->z, 3), pval(b[6], 48, u->p_less),
	       pval(b[7], 48, u->p_greater), pval(b[8], 48, u->p_different));
	double alpha = 1.0 - s->opts->level;
	bool disagree = !isnan(w->p_different) && !isnan(u->p_different) &&
			((w->p_different < alpha) != (u->p_different < alpha));
	printf("    => %s%s\n", verdict(s, w),
	       disagree ? " (Mann-Whitney disagrees: skewed samples?)" : "");
}

static void print_comparisons(const struct obn_session *s)
{
	if (s->opts->nconfigs < 2)
		return;
	printf("\nComparisons with the baseline '%s' (Welch's t-test; "
	       "Mann-Whitney U for skewed samples):\n", s->opts->configs[0].name);
	for (size_t c = 1; c < s->opts->nconfigs; c++)
		for (int q = 0; q < OBN_Q_COUNT; q++)
			if (q != OBN_Q_CPU_PCT)
				print_comparison(s, c, q);
}

int obn_report_print(const struct obn_session *s)
{
	print_header(s);
	if (s->results[0].nok || s->opts->nconfigs > 1)
		print_table(s);
	else
		printf("no successful run: nothing to summarize\n");
	int warned = print_failures(s);
	warned += print_outliers(s);
	warned += print_trends(s);
	if (!warned)
		printf("no warnings: no failed run, no |z| > %g, no drift\n",
		       s->opts->zmax);
	print_comparisons(s);
	if (fflush(stdout) != 0 || ferror(stdout))
		return -EIO;
	return 0;
}
