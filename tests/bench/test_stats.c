// SPDX-License-Identifier: MIT
/*
 * Unit tests of osprof-bench's statistics (its number parsing is core's,
 * tested in tests/core/test_parse.c). The expected values were computed by
 * hand from the textbook formulas (written out in each test) with quantiles
 * and p-values evaluated in 30-digit arithmetic (mpmath's regularized
 * incomplete beta for Student's t, its normal cdf), independently of GSL,
 * which the code under test uses.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>

#include <gsl/gsl_errno.h>

#include "obn.h"

static void no_gsl_abort(void)
{
	gsl_set_error_handler_off();
}

TestSuite(bench_stats, .init = no_gsl_abort);

#define EPS 1e-9

Test(bench_stats, summary_matches_hand_computation)
{
	/* n = 8, mean = 40 / 8 = 5, sum of squared deviations 32, so
	 * sd = sqrt(32 / 7) = 2.13808993529939; median (4 + 5) / 2 = 4.5;
	 * t(0.975, 7) = 2.36462425159279 and hw = t * sd / sqrt(8). */
	const double x[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct obn_summary s;

	cr_assert_eq(obn_stats_summarize(x, 8, 0.95, &s), 0);
	cr_expect_eq(s.count, 8);
	cr_expect_float_eq(s.mean, 5.0, EPS);
	cr_expect_float_eq(s.median, 4.5, EPS);
	cr_expect_float_eq(s.min, 2.0, EPS);
	cr_expect_float_eq(s.max, 9.0, EPS);
	cr_expect_float_eq(s.sd, 2.13808993529939507, EPS);
	cr_expect_float_eq(s.hw, 1.78748791823621090, EPS);
	cr_expect_float_eq(s.low, 5.0 - 1.78748791823621090, EPS);
	cr_expect_float_eq(s.high, 5.0 + 1.78748791823621090, EPS);
}

Test(bench_stats, summary_of_one_value_has_no_interval)
{
	const double x[] = { 3.5 };
	struct obn_summary s;

	cr_assert_eq(obn_stats_summarize(x, 1, 0.95, &s), 0);
	cr_expect_float_eq(s.mean, 3.5, EPS);
	cr_expect_float_eq(s.median, 3.5, EPS);
	cr_expect(isnan(s.sd) && isnan(s.hw) && isnan(s.low));
}

Test(bench_stats, summary_rejects_empty_sample_and_bad_level)
{
	const double x[] = { 1, 2 };
	struct obn_summary s;

	cr_expect_eq(obn_stats_summarize(x, 0, 0.95, &s), -EINVAL);
	cr_expect_eq(s.count, 0);
	cr_expect_eq(obn_stats_summarize(x, 2, 1.0, &s), -EINVAL);
	cr_expect_eq(obn_stats_summarize(x, 2, 0.0, &s), -EINVAL);
}

Test(bench_stats, summary_of_constant_sample_has_zero_half_width)
{
	const double x[] = { 7, 7, 7 };
	struct obn_summary s;

	cr_assert_eq(obn_stats_summarize(x, 3, 0.95, &s), 0);
	cr_expect_float_eq(s.sd, 0.0, EPS);
	cr_expect_float_eq(s.hw, 0.0, EPS);
}

Test(bench_stats, welch_matches_hand_computation)
{
	/* b: mean 12, variance 10 / 4 = 2.5; x: mean 95 / 6, variance
	 * 65 / 30. se^2 = 2.5 / 5 + (65 / 30) / 6 = 0.861111;
	 * t = (95/6 - 12) / se = 4.13092194661582;
	 * df = se^4 / ((0.5)^2 / 4 + (0.361111)^2 / 5) = 8.37108013937282;
	 * p(greater) = P(T_df > t), CI = diff -+ t(0.975, df) * se. */
	const double b[] = { 10, 12, 11, 13, 14 };
	const double x[] = { 15, 14, 16, 18, 17, 15 };
	struct obn_welch w;

	cr_assert_eq(obn_stats_welch(b, 5, x, 6, 0.95, &w), 0);
	cr_expect_float_eq(w.diff, 95.0 / 6.0 - 12.0, EPS);
	cr_expect_float_eq(w.t, 4.13092194661582272, EPS);
	cr_expect_float_eq(w.df, 8.37108013937282230, EPS);
	cr_expect_float_eq(w.p_greater, 0.00149352004766706598, 1e-12);
	cr_expect_float_eq(w.p_less, 0.998506479952332934, 1e-12);
	cr_expect_float_eq(w.p_different, 0.00298704009533413195, 1e-12);
	cr_expect_float_eq(w.diff_low, 1.70985154493155293, 1e-8);
	cr_expect_float_eq(w.diff_high, 5.95681512173511374, 1e-8);
}

Test(bench_stats, welch_is_symmetric_in_its_direction)
{
	const double b[] = { 10, 12, 11, 13, 14 };
	const double x[] = { 15, 14, 16, 18, 17, 15 };
	struct obn_welch w;

	cr_assert_eq(obn_stats_welch(x, 6, b, 5, 0.95, &w), 0);
	cr_expect_float_eq(w.t, -4.13092194661582272, EPS);
	cr_expect_float_eq(w.p_less, 0.00149352004766706598, 1e-12);
	cr_expect_float_eq(w.p_different, 0.00298704009533413195, 1e-12);
}

Test(bench_stats, welch_without_variance_is_undefined)
{
	const double b[] = { 1, 1, 1 }, x[] = { 2, 2 };
	struct obn_welch w;

	cr_expect_eq(obn_stats_welch(b, 3, x, 2, 0.95, &w), -EDOM);
	cr_expect_float_eq(w.diff, 1.0, EPS);
	cr_expect(isnan(w.p_different));
	cr_expect_eq(obn_stats_welch(b, 1, x, 2, 0.95, &w), -EINVAL);
}

Test(bench_stats, mann_whitney_matches_hand_computation)
{
	/* Pooled ranks: 10..13 -> 1..4, the two 14 -> 5.5, the two 15 -> 7.5,
	 * 16, 17, 18 -> 9, 10, 11. Rank sum of x = 5.5 + 7.5 + 7.5 + 9 + 10
	 * + 11 = 50.5, U = 50.5 - 6 * 7 / 2 = 29.5 (pairs with x > b: 29 and
	 * one tie). Mean of U 15; with two ties of two, var = 30 / 12 *
	 * (12 - 12 / 110) = 29.7272727; z = 14.5 / sqrt(var) = 2.65944166;
	 * p(greater) = Q((14.5 - 0.5) / sd), p(less) = P((14.5 + 0.5) / sd). */
	const double b[] = { 10, 12, 11, 13, 14 };
	const double x[] = { 15, 14, 16, 18, 17, 15 };
	struct obn_mw u;

	cr_assert_eq(obn_stats_mann_whitney(b, 5, x, 6, &u), 0);
	cr_expect_float_eq(u.u, 29.5, EPS);
	cr_expect_float_eq(u.z, 2.65944166497762463, EPS);
	cr_expect_float_eq(u.p_greater, 0.00511824262733544751, 1e-12);
	cr_expect_float_eq(u.p_less, 0.997030646566797186, 1e-12);
	cr_expect_float_eq(u.p_different, 2 * 0.00511824262733544751, 1e-12);
}

Test(bench_stats, mann_whitney_of_all_ties_is_undefined)
{
	const double b[] = { 4, 4 }, x[] = { 4, 4, 4 };
	struct obn_mw u;

	cr_expect_eq(obn_stats_mann_whitney(b, 2, x, 3, &u), -EDOM);
	cr_expect_float_eq(u.u, 3.0, EPS); /* 6 pairs, each a tie */
	cr_expect(isnan(u.p_different));
}

Test(bench_stats, mann_whitney_two_sided_p_never_exceeds_one)
{
	const double b[] = { 1, 2, 3 }, x[] = { 1, 2, 3 };
	struct obn_mw u;

	cr_assert_eq(obn_stats_mann_whitney(b, 3, x, 3, &u), 0);
	cr_expect_float_eq(u.u, 4.5, EPS);
	cr_expect_float_eq(u.p_different, 1.0, EPS);
}

Test(bench_stats, trend_matches_hand_computation)
{
	/* x = 1..5, mean 3, Sxx = 10; y mean 3, Sxy = 9.7: slope 0.97,
	 * intercept 3 - 0.97 * 3 = 0.09; residual sum of squares 0.091, so
	 * se = sqrt(0.091 / 3 / 10) = 0.0550757054728610; t(0.975, 3) =
	 * 3.18244630528371; p = 2 P(T_3 > 0.97 / se). */
	const double x[] = { 1, 2, 3, 4, 5 };
	const double y[] = { 1.0, 2.1, 2.9, 4.2, 4.8 };
	struct obn_trend t;

	cr_assert_eq(obn_stats_trend(x, y, 5, 0.95, &t), 0);
	cr_expect_float_eq(t.slope, 0.97, EPS);
	cr_expect_float_eq(t.intercept, 0.09, EPS);
	cr_expect_float_eq(t.slope_low, 0.794724524606999662, 1e-9);
	cr_expect_float_eq(t.slope_high, 1.14527547539300034, 1e-9);
	cr_expect_float_eq(t.p, 0.000399041629936678371, 1e-12);
}

Test(bench_stats, trend_of_exact_line_is_certain)
{
	const double x[] = { 1, 2, 3, 4 }, y[] = { 3, 5, 7, 9 };
	struct obn_trend t;

	cr_assert_eq(obn_stats_trend(x, y, 4, 0.95, &t), 0);
	cr_expect_float_eq(t.slope, 2.0, EPS);
	cr_expect_float_eq(t.slope_low, 2.0, EPS);
	cr_expect_float_eq(t.slope_high, 2.0, EPS);
	cr_expect_float_eq(t.p, 0.0, EPS);
}

Test(bench_stats, trend_needs_three_distinct_points)
{
	const double x[] = { 1, 1, 1 }, y[] = { 1, 2, 3 };
	struct obn_trend t;

	cr_expect_eq(obn_stats_trend(x, y, 2, 0.95, &t), -EINVAL);
	cr_expect_eq(obn_stats_trend(x, y, 3, 0.95, &t), -EINVAL);
	cr_expect(isnan(t.slope));
}
