// SPDX-License-Identifier: MIT
/*
 * Statistics of osprof-bench, on GSL: sample summaries with Student t
 * confidence intervals, the least-squares trend across runs with the CI of
 * its slope, Welch's t-test and the Mann-Whitney U test of a configuration
 * against the baseline. Every quantile and p-value comes from GSL's t and
 * normal distributions; this file only assembles the textbook formulas, so
 * the tests can check them against values computed by hand.
 */
#include "obn.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static bool level_ok(double level)
{
	return level > 0.0 && level < 1.0;
}

/* The two-sided critical value of Student's t for the level. */
static double t_crit(double level, double df)
{
	return gsl_cdf_tdist_Pinv(1.0 - (1.0 - level) / 2.0, df);
}

static void summary_nan(struct obn_summary *s, size_t n)
{
	s->count = n;
	s->mean = s->median = s->min = s->max = NAN;
	s->sd = s->hw = s->low = s->high = NAN;
}

int obn_stats_summarize(const double *x, size_t n, double level,
			struct obn_summary *out)
{
	summary_nan(out, 0);
	if (n == 0 || !level_ok(level))
		return -EINVAL;

	double *sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, x, n * sizeof(*sorted));
	gsl_sort(sorted, 1, n);

	out->count = n;
	out->mean = gsl_stats_mean(x, 1, n);
	out->median = gsl_stats_median_from_sorted_data(sorted, 1, n);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	free(sorted);
	if (n >= 2) {
		out->sd = gsl_stats_sd_m(x, 1, n, out->mean);
		out->hw = t_crit(level, (double)(n - 1)) * out->sd / sqrt((double)n);
		out->low = out->mean - out->hw;
		out->high = out->mean + out->hw;
	}
	return 0;
}

static void trend_nan(struct obn_trend *t, size_t n)
{
	t->count = n;
	t->intercept = t->slope = t->slope_low = t->slope_high = t->p = NAN;
}

int obn_stats_trend(const double *x, const double *y, size_t n, double level,
		    struct obn_trend *out)
{
	double c0, c1, cov00, cov01, cov11, sumsq;

	trend_nan(out, n);
	if (n < 3 || !level_ok(level))
		return -EINVAL;
	if (gsl_stats_variance(x, 1, n) == 0.0)
		return -EINVAL;
	/* GSL estimates cov11 from the residuals: sumsq / (n - 2) / Sxx. */
	gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq);
	out->intercept = c0;
	out->slope = c1;
	if (cov11 <= 0.0) {
		/* Points exactly on a line: the slope is known exactly. */
		out->slope_low = out->slope_high = c1;
		out->p = c1 != 0.0 ? 0.0 : 1.0;
		return 0;
	}
	double se = sqrt(cov11), df = (double)(n - 2);
	double half = t_crit(level, df) * se;
	out->slope_low = c1 - half;
	out->slope_high = c1 + half;
	out->p = 2.0 * gsl_cdf_tdist_Q(fabs(c1) / se, df);
	return 0;
}

static void welch_nan(struct obn_welch *w)
{
	w->diff = w->diff_low = w->diff_high = NAN;
	w->t = w->df = NAN;
	w->p_less = w->p_greater = w->p_different = NAN;
}

int obn_stats_welch(const double *b, size_t nb, const double *x, size_t nx,
		    double level, struct obn_welch *out)
{
	welch_nan(out);
	if (nb < 2 || nx < 2 || !level_ok(level))
		return -EINVAL;

	double mb = gsl_stats_mean(b, 1, nb), mx = gsl_stats_mean(x, 1, nx);
	double qb = gsl_stats_variance_m(b, 1, nb, mb) / (double)nb;
	double qx = gsl_stats_variance_m(x, 1, nx, mx) / (double)nx;
	double se2 = qb + qx;

	out->diff = mx - mb;
	if (se2 <= 0.0)
		return -EDOM;
	double se = sqrt(se2);
	out->df = se2 * se2 /
		  (qb * qb / (double)(nb - 1) + qx * qx / (double)(nx - 1));
	out->t = out->diff / se;
	double half = t_crit(level, out->df) * se;
	out->diff_low = out->diff - half;
	out->diff_high = out->diff + half;
	out->p_less = gsl_cdf_tdist_P(out->t, out->df);
	out->p_greater = gsl_cdf_tdist_Q(out->t, out->df);
	out->p_different = fmin(1.0, 2.0 * fmin(out->p_less, out->p_greater));
	return 0;
}

/* A value and the sample it came from, for ranking the pooled samples. */
struct ranked {
	double v;
	bool is_x;
};

static int ranked_cmp(const void *a, const void *b)
{
	double va = ((const struct ranked *)a)->v;
	double vb = ((const struct ranked *)b)->v;

	return (va > vb) - (va < vb);
}

/*
 * Sum of x's ranks in the pooled sample (ties get their average rank) and
 * the tie term sum(t^3 - t) over groups of t equal values.
 */
static void rank_sum(struct ranked *all, size_t n, double *rx, double *ties)
{
	*rx = 0.0;
	*ties = 0.0;
	qsort(all, n, sizeof(*all), ranked_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && all[j + 1].v == all[i].v)
			j++;
		double t = (double)(j - i + 1);
		double avg_rank = ((double)i + (double)j) / 2.0 + 1.0;
		for (size_t k = i; k <= j; k++)
			if (all[k].is_x)
				*rx += avg_rank;
		*ties += t * t * t - t;
		i = j + 1;
	}
}

int obn_stats_mann_whitney(const double *b, size_t nb, const double *x,
			   size_t nx, struct obn_mw *out)
{
	out->u = out->z = NAN;
	out->p_less = out->p_greater = out->p_different = NAN;
	if (nb < 1 || nx < 1)
		return -EINVAL;

	size_t n = nb + nx;
	struct ranked *all = malloc(n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < nb; i++)
		all[i] = (struct ranked){ .v = b[i], .is_x = false };
	for (size_t i = 0; i < nx; i++)
		all[nb + i] = (struct ranked){ .v = x[i], .is_x = true };
	double rx, ties;
	rank_sum(all, n, &rx, &ties);
	free(all);

	double dn = (double)n, dnb = (double)nb, dnx = (double)nx;
	out->u = rx - dnx * (dnx + 1.0) / 2.0;
	double mu = dnb * dnx / 2.0;
	double var = dnb * dnx / 12.0 * ((dn + 1.0) - ties / (dn * (dn - 1.0)));
	if (!(var > 0.0))
		return -EDOM;
	double sd = sqrt(var);
	out->z = (out->u - mu) / sd;
	/* Continuity correction: half a step of U toward the null mean. */
	out->p_greater = gsl_cdf_ugaussian_Q((out->u - mu - 0.5) / sd);
	out->p_less = gsl_cdf_ugaussian_P((out->u - mu + 0.5) / sd);
	out->p_different = fmin(1.0, 2.0 * fmin(out->p_less, out->p_greater));
	return 0;
}
