// SPDX-License-Identifier: MIT
/*
 * Unit tests of core's analysis (osprof/analysis.h): the distances, the
 * noise estimates and chi-square tail, peak finding and matching, and the
 * comparison of profile sets -- each against values worked out by hand in
 * the comment beside it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "osprof/analysis.h"

#define EPS 1e-6

/* ---- distances on arrays ------------------------------------------------- */

Test(distance, emd_of_mass_moved_two_bins_is_two)
{
	/* All mass from bin 0 to bin 2: it crosses two boundaries.
	 * cumulative differences: 1, 1 -> 2. */
	double p[] = { 1, 0, 0 }, q[] = { 0, 0, 1 };

	cr_expect_float_eq(osp_dist_emd(p, q, 3), 2.0, EPS);
}

Test(distance, emd_of_half_moved_one_bin)
{
	/* p = .5 .5 0, q = 0 .5 .5: cumulative differences .5, .5 -> 1. */
	double p[] = { 0.5, 0.5, 0 }, q[] = { 0, 0.5, 0.5 };

	cr_expect_float_eq(osp_dist_emd(p, q, 3), 1.0, EPS);
	cr_expect_float_eq(osp_dist_emd(q, p, 3), 1.0, EPS);
	cr_expect_float_eq(osp_dist_emd(p, p, 3), 0.0, EPS);
}

Test(distance, chi2_by_hand)
{
	/* 1/2 [(.5-1)^2/1.5 + (.5-0)^2/.5] = 1/2 [1/6 + 1/2] = 1/3. */
	double p[] = { 0.5, 0.5 }, q[] = { 1, 0 };

	cr_expect_float_eq(osp_dist_chi2(p, q, 2), 1.0 / 3.0, EPS);
	/* Disjoint shapes reach the maximum: 1/2 (1/1 + 1/1) = 1. */
	double a[] = { 1, 0 }, b[] = { 0, 1 };

	cr_expect_float_eq(osp_dist_chi2(a, b, 2), 1.0, EPS);
}

Test(distance, jeffrey_by_hand)
{
	/* m = (.75, .25): .5 ln(.5/.75) + .5 ln(.5/.25) + 1 ln(1/.75)
	 *  = -.2027326 + .3465736 + .2876821 = .4315231. */
	double p[] = { 0.5, 0.5 }, q[] = { 1, 0 };

	cr_expect_float_eq(osp_dist_jeffrey(p, q, 2), 0.4315231, EPS);
	/* Disjoint: 1 ln 2 + 1 ln 2 = 2 ln 2 = 1.3862944 (0 ln 0 = 0). */
	double a[] = { 1, 0 }, b[] = { 0, 1 };

	cr_expect_float_eq(osp_dist_jeffrey(a, b, 2), 1.3862944, EPS);
}

Test(distance, minkowski_l1_l2_by_hand)
{
	/* |.5-1| + |.5-0| = 1; sqrt(.25 + .25) = .7071068. */
	double p[] = { 0.5, 0.5 }, q[] = { 1, 0 };

	cr_expect_float_eq(osp_dist_minkowski(p, q, 2, 1.0), 1.0, EPS);
	cr_expect_float_eq(osp_dist_minkowski(p, q, 2, 2.0), 0.7071068, EPS);
}

Test(distance, intersection_by_hand)
{
	/* min(.5, 1) + min(.5, 0) = .5; a shape with itself: 1. */
	double p[] = { 0.5, 0.5 }, q[] = { 1, 0 };

	cr_expect_float_eq(osp_dist_intersection(p, q, 2), 0.5, EPS);
	cr_expect_float_eq(osp_dist_intersection(p, p, 2), 1.0, EPS);
}

/* ---- distances on histograms ------------------------------------------- */

static void fill(struct osp_hist *h, unsigned res, unsigned bucket,
		 uint64_t n)
{
	if (!h->res)
		cr_assert_eq(osp_hist_init(h, res), 0);
	cr_assert_eq(osp_hist_bucket_set(h, bucket, osp_hist_bucket(h, bucket) + n), 0);
	h->count += n;
	h->sum += n * (uint64_t)osp_bucket_upper_ns(bucket, res);
}

Test(hist_distance, emd_is_in_octaves_at_any_resolution)
{
	/* res 2: 4 buckets apart = 2 powers of two; res 1: 2 buckets = 2. */
	struct osp_hist a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
	double v;

	fill(&a, 2, 20, 100);
	fill(&b, 2, 24, 300);
	cr_assert_eq(osp_hist_distance(&a, &b, OSP_DIST_EMD, &v), 0);
	cr_expect_float_eq(v, 2.0, EPS);
	fill(&c, 1, 10, 7);
	fill(&d, 1, 12, 7);
	cr_assert_eq(osp_hist_distance(&c, &d, OSP_DIST_EMD, &v), 0);
	cr_expect_float_eq(v, 2.0, EPS);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
	osp_hist_fini(&c);
	osp_hist_fini(&d);
}

Test(hist_distance, ops_and_latency_are_relative_differences)
{
	/* counts 100 and 300: |100-300|/300 = 2/3; sums 100*1024, 300*1024
	 * (bucket 10's upper bound): also 2/3. */
	struct osp_hist a = { 0 }, b = { 0 };
	double v;

	fill(&a, 1, 10, 100);
	fill(&b, 1, 10, 300);
	cr_assert_eq(osp_hist_distance(&a, &b, OSP_DIST_OPS, &v), 0);
	cr_expect_float_eq(v, 2.0 / 3.0, EPS);
	cr_assert_eq(osp_hist_distance(&a, &b, OSP_DIST_LATENCY, &v), 0);
	cr_expect_float_eq(v, 2.0 / 3.0, EPS);
	/* Same shape: every shape method says 0. */
	for (int m = OSP_DIST_EMD; m <= OSP_DIST_INTERSECT; m++) {
		cr_assert_eq(osp_hist_distance(&a, &b, (enum osp_dist_method)m, &v), 0);
		cr_expect_float_eq(v, 0.0, EPS, "method %d", m);
	}
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(hist_distance, refuses_mixed_resolutions_and_empty_shapes)
{
	struct osp_hist a = { 0 }, b = { 0 }, e = { 0 };
	double v;

	fill(&a, 1, 10, 1);
	fill(&b, 2, 10, 1);
	cr_assert_eq(osp_hist_init(&e, 1), 0);
	cr_expect_eq(osp_hist_distance(&a, &b, OSP_DIST_EMD, &v), -EINVAL);
	cr_expect_eq(osp_hist_distance(&a, &e, OSP_DIST_CHI2, &v), -EINVAL);
	cr_expect_eq(osp_hist_distance(&a, &a, OSP_DIST__COUNT, &v), -EINVAL);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
	osp_hist_fini(&e);
}

Test(hist_distance, method_names_round_trip)
{
	for (unsigned m = 0; m < OSP_DIST__COUNT; m++) {
		enum osp_dist_method back;

		cr_assert_eq(osp_dist_method_parse(osp_dist_method_name(m), &back), 0);
		cr_expect_eq(back, m);
		cr_expect(osp_dist_default_threshold(m) > 0);
	}
	enum osp_dist_method x;

	cr_expect_eq(osp_dist_method_parse("EMD ", &x), -EINVAL);
}

/* ---- noise --------------------------------------------------------------- */

Test(noise, chi2_tail_matches_tables)
{
	/* dof 2: Q(1, x/2) = exp(-x/2) exactly; exp(-1) = .3678794.
	 * Table values: chi2(1) 3.841459 and chi2(4) 9.487729 at p = .05;
	 * chi2(10) 23.20925 at p = .01. */
	cr_expect_float_eq(osp_chi2_sf(2.0, 2), 0.3678794, EPS);
	cr_expect_float_eq(osp_chi2_sf(3.841459, 1), 0.05, 1e-6);
	cr_expect_float_eq(osp_chi2_sf(9.487729, 4), 0.05, 1e-6);
	cr_expect_float_eq(osp_chi2_sf(23.20925, 10), 0.01, 1e-6);
	cr_expect_float_eq(osp_chi2_sf(0.0, 3), 1.0, EPS);
	cr_expect_float_eq(osp_chi2_sf(5.0, 0), 1.0, EPS);
}

Test(noise, chi2_test_by_hand)
{
	/* A = 50, 50; B = 30, 70 (equal totals: factors 1).
	 * chi2 = 20^2/80 + 20^2/120 = 5 + 3.3333333 = 8.3333333, dof 1,
	 * p = erfc(sqrt(chi2 / 2)) = erfc(2.0412415) = .0038924. */
	struct osp_hist a = { 0 }, b = { 0 };
	double stat, p;
	unsigned dof;

	fill(&a, 1, 10, 50);
	fill(&a, 1, 11, 50);
	fill(&b, 1, 10, 30);
	fill(&b, 1, 11, 70);
	cr_assert_eq(osp_chi2_test(&a, &b, &stat, &dof, &p), 0);
	cr_expect_float_eq(stat, 25.0 / 3.0, EPS);
	cr_expect_eq(dof, 1);
	cr_expect_float_eq(p, 0.0038924, 1e-6);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(noise, chi2_test_pools_sparse_buckets)
{
	/* Buckets 10..13 hold 3, 3, 3, 3 in both: pooled 12 + 12 = 24 > 10
	 * after two buckets -> bins (6,6), (6,6): chi2 0, dof 1, p 1. */
	struct osp_hist a = { 0 }, b = { 0 };
	double stat, p;
	unsigned dof;

	for (unsigned i = 10; i < 14; i++) {
		fill(&a, 1, i, 3);
		fill(&b, 1, i, 3);
	}
	cr_assert_eq(osp_chi2_test(&a, &b, &stat, &dof, &p), 0);
	cr_expect_float_eq(stat, 0.0, EPS);
	cr_expect_eq(dof, 1);
	cr_expect_float_eq(p, 1.0, EPS);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(noise, emd_noise_by_hand)
{
	/* A and B: 100 in bucket 5, 100 in bucket 6. The pooled CDF is .5
	 * after bucket 5 and 0 or 1 elsewhere: sum sqrt(F(1-F)) = .5.
	 * sqrt(1/200 + 1/200) .5 = .1 * .5 = .05. At resolution 2 the same
	 * buckets are half an octave apart: .025. */
	struct osp_hist a = { 0 }, b = { 0 };

	fill(&a, 1, 5, 100);
	fill(&a, 1, 6, 100);
	fill(&b, 1, 5, 100);
	fill(&b, 1, 6, 100);
	cr_expect_float_eq(osp_emd_noise(&a, &b), 0.05, EPS);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	fill(&a, 2, 5, 100);
	fill(&a, 2, 6, 100);
	fill(&b, 2, 5, 100);
	fill(&b, 2, 6, 100);
	cr_expect_float_eq(osp_emd_noise(&a, &b), 0.025, EPS);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(noise, emd_beyond_noise_by_hand)
{
	/*
	 * A: 500 in bucket 10, 500 in 30. B: 420, 60 in bucket 12, 520.
	 * sqrt(1/1000 + 1/1000) = .0447214. After buckets 10 and 11: |.5 -
	 * .42| = .08, F = 920/2000 = .46, sd = .0447214 sqrt(.46 .54) =
	 * .0222890, leaving .0577110 each. After 12..29, 18 boundaries: |.5 -
	 * .48| = .02 under its sd .0223562, leaving nothing. So .1154220, of
	 * an EMD of .16 + .36 = .52 whose noise level is 2 x .0222890 + 18 x
	 * .0223562 = .4469898.
	 */
	struct osp_hist a = { 0 }, b = { 0 };

	fill(&a, 1, 10, 500);
	fill(&a, 1, 30, 500);
	fill(&b, 1, 10, 420);
	fill(&b, 1, 12, 60);
	fill(&b, 1, 30, 520);
	cr_expect_float_eq(osp_emd_beyond_noise(&a, &b), 2 * 0.05771099, EPS);
	cr_expect_float_eq(osp_emd_noise(&a, &b), 0.4469898, EPS);
	/* Never more than the EMD; nothing for identical histograms. */
	cr_expect_float_eq(osp_emd_beyond_noise(&a, &a), 0.0, EPS);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(percentile, interpolates_geometrically_within_the_bucket)
{
	/* 50 x 600 ns and 50 x 1000 ns, both in bucket 10 (512, 1024].
	 * Clamped to [min, max] = [600, 1000]; p50 sits halfway on a log
	 * scale: 600 (1000/600)^.5 = 774.5967. */
	struct osp_hist h;

	cr_assert_eq(osp_hist_init(&h, 1), 0);
	for (int i = 0; i < 50; i++) {
		osp_hist_record(&h, 600);
		osp_hist_record(&h, 1000);
	}
	cr_expect_float_eq(osp_hist_percentile(&h, 50), 774.5967, 1e-3);
	cr_expect_float_eq(osp_hist_percentile(&h, 100), 1000.0, 1e-9);
	osp_hist_fini(&h);
}

/* ---- peaks --------------------------------------------------------------- */

static void set_buckets(struct osp_hist *h, unsigned first, const uint64_t *c,
			size_t n)
{
	cr_assert_eq(osp_hist_init(h, 1), 0);
	for (size_t i = 0; i < n; i++)
		fill(h, 1, first + (unsigned)i, c[i]);
}

Test(peaks, a_jagged_bucket_does_not_split_a_peak)
{
	/* 100, 40, 60, 20: the valley 40 is not under half of 60 (30), so
	 * one peak, buckets 2..5, mode 2, 220 requests. */
	static const uint64_t c[] = { 100, 40, 60, 20 };
	struct osp_hist h;
	struct osp_peak pk[4];

	set_buckets(&h, 2, c, 4);
	cr_assert_eq(osp_hist_peaks(&h, pk, 4), 1);
	cr_expect_eq(pk[0].lo, 2);
	cr_expect_eq(pk[0].hi, 5);
	cr_expect_eq(pk[0].mode, 2);
	cr_expect_eq(pk[0].count, 220);
	cr_expect_float_eq(pk[0].share, 1.0, EPS);
	osp_hist_fini(&h);
}

Test(peaks, two_paths_separated_by_a_deep_valley)
{
	/* 1000 300 5 200 400 from bucket 10: maxima 1000 (10) and 400 (14),
	 * valley 5 (12): 5 < 200 and 400 - 5 = 395 > 2 sqrt(405) = 40.2.
	 * The valley bucket goes left: peaks 10..12 (1305) and 13..14 (600);
	 * shares 1305/1905 = .6850394 and 600/1905 = .3149606. */
	static const uint64_t c[] = { 1000, 300, 5, 200, 400 };
	struct osp_hist h;
	struct osp_peak pk[4];

	set_buckets(&h, 10, c, 5);
	cr_assert_eq(osp_hist_peaks(&h, pk, 4), 2);
	cr_expect_eq(pk[0].lo, 10);
	cr_expect_eq(pk[0].hi, 12);
	cr_expect_eq(pk[0].count, 1305);
	cr_expect_eq(pk[1].lo, 13);
	cr_expect_eq(pk[1].hi, 14);
	cr_expect_eq(pk[1].mode, 14);
	cr_expect_float_eq(pk[0].share, 0.6850394, EPS);
	cr_expect_float_eq(pk[1].share, 0.3149606, EPS);
	osp_hist_fini(&h);
}

Test(peaks, stray_requests_are_noise_not_a_peak)
{
	/* 1000 in bucket 10, 2 in bucket 20: the dip 2 - 0 is not over
	 * 2 sqrt(2) = 2.83, so the strays join the peak (10..20, 1002). */
	struct osp_hist h = { 0 };
	struct osp_peak pk[4];

	fill(&h, 1, 10, 1000);
	fill(&h, 1, 20, 2);
	cr_assert_eq(osp_hist_peaks(&h, pk, 4), 1);
	cr_expect_eq(pk[0].lo, 10);
	cr_expect_eq(pk[0].hi, 20);
	cr_expect_eq(pk[0].count, 1002);
	/* Ten strays are a peak: 10 > 2 sqrt(10) = 6.3. */
	fill(&h, 1, 20, 8);
	cr_expect_eq(osp_hist_peaks(&h, pk, 4), 2);
	osp_hist_fini(&h);
}

Test(peaks, small_counts_need_a_significant_dip)
{
	/* 5 0 3: valley 0 < 1.5, but 3 - 0 < 2 sqrt(3) = 3.46: one peak. */
	static const uint64_t c[] = { 5, 0, 3 };
	struct osp_hist h;
	struct osp_peak pk[4];

	set_buckets(&h, 10, c, 3);
	cr_expect_eq(osp_hist_peaks(&h, pk, 4), 1);
	osp_hist_fini(&h);
}

Test(peaks, a_plateau_is_one_maximum_and_mode_is_its_first_bucket)
{
	static const uint64_t c[] = { 50, 50 };
	struct osp_hist h;
	struct osp_peak pk[4];

	set_buckets(&h, 10, c, 2);
	cr_assert_eq(osp_hist_peaks(&h, pk, 4), 1);
	cr_expect_eq(pk[0].mode, 10);
	osp_hist_fini(&h);
}

Test(peaks, mean_is_exact_for_one_peak_and_from_midpoints_otherwise)
{
	/* One peak: sum / count = 100 x 1024 / 100 = 1024 (fill records the
	 * upper bound). Two peaks: bucket 10 alone has midpoint 2^9.5 =
	 * 724.0773 ns; bucket 20 alone 2^19.5 = 741455.2 ns. */
	struct osp_hist h = { 0 };
	struct osp_peak pk[4];

	fill(&h, 1, 10, 100);
	cr_assert_eq(osp_hist_peaks(&h, pk, 4), 1);
	cr_expect_float_eq(pk[0].mean_ns, 1024.0, EPS);
	fill(&h, 1, 20, 100);
	cr_assert_eq(osp_hist_peaks(&h, pk, 4), 2);
	cr_expect_float_eq(pk[0].mean_ns, 724.0773, 1e-3);
	cr_expect_float_eq(pk[1].mean_ns, 741455.2, 0.1);
	cr_expect_float_eq(pk[0].centre_log2, 9.5, EPS);
	osp_hist_fini(&h);
}

Test(peaks, too_many_peaks_fold_the_smallest_into_a_neighbour)
{
	/* 1000 @10, 50 @14, 800 @18 with room for 2: the 50 joins the
	 * neighbour across the shallower valley; both valleys are 0, so the
	 * left one: peaks 10..14 (1050) and 18 (800). */
	struct osp_hist h = { 0 };
	struct osp_peak pk[2];

	fill(&h, 1, 10, 1000);
	fill(&h, 1, 14, 50);
	fill(&h, 1, 18, 800);
	cr_assert_eq(osp_hist_peaks(&h, pk, 2), 2);
	cr_expect_eq(pk[0].count, 1050);
	cr_expect_eq(pk[1].count, 800);
	osp_hist_fini(&h);
}

Test(peaks, empty_histogram_has_none)
{
	struct osp_hist h;
	struct osp_peak pk[2];

	cr_assert_eq(osp_hist_peaks(&(struct osp_hist){ .res = 1 }, pk, 2), 0);
	cr_assert_eq(osp_hist_init(&h, 4), 0);
	cr_expect_eq(osp_hist_peaks(&h, pk, 2), 0);
	osp_hist_fini(&h);
}

static struct osp_peak mkpeak(double centre, double share)
{
	return (struct osp_peak){ .centre_log2 = centre, .share = share };
}

Test(peaks, matching_finds_moved_added_removed_and_reshared)
{
	/* A: 9.5 (.6), 20 (.4); B: 11.5 (.3), 20 (.4), 25 (.3).
	 * Closest first: 20-20 (0 apart, share same: same), then 9.5-11.5
	 * (2 apart, within 2: moved +2); 25 is left: added. */
	struct osp_peak a[] = { mkpeak(9.5, 0.6), mkpeak(20, 0.4) };
	struct osp_peak b[] = { mkpeak(11.5, 0.3), mkpeak(20, 0.4), mkpeak(25, 0.3) };
	struct osp_peak_change ch[5];
	size_t n = osp_peaks_match(a, 2, b, 3, ch);

	cr_assert_eq(n, 3);
	cr_expect_eq(ch[0].kind, OSP_PEAK_MOVED);
	cr_expect_float_eq(ch[0].shift_octaves, 2.0, EPS);
	cr_expect_eq(ch[1].kind, OSP_PEAK_SAME);
	cr_expect_eq(ch[2].kind, OSP_PEAK_ADDED);
	cr_expect_eq(ch[2].ib, 2);

	/* A: 10 (.5), 14 (.5); B: 10 (.8): 14 removed, 10 reshared
	 * (.5 -> .8 is over .1). */
	struct osp_peak c[] = { mkpeak(10, 0.5), mkpeak(14, 0.5) };
	struct osp_peak d[] = { mkpeak(10.2, 0.8) };

	n = osp_peaks_match(c, 2, d, 1, ch);
	cr_assert_eq(n, 2);
	cr_expect_eq(ch[0].kind, OSP_PEAK_RESHARED);
	cr_expect_eq(ch[1].kind, OSP_PEAK_REMOVED);
	cr_expect_eq(ch[1].ia, 1);
}

/* ---- comparison of profile sets ------------------------------------------ */

static struct osp_op *op_with(struct osp_profile *p, const char *name,
			      unsigned bucket, uint64_t n, uint64_t v_ns)
{
	struct osp_op *op = osp_profile_find_op(p, name);

	if (!op)
		op = osp_profile_add_op(p, name, false);
	cr_assert_not_null(op);
	for (uint64_t i = 0; i < n; i++)
		osp_hist_record(&op->lat, v_ns);
	cr_assert_eq(osp_bucket_index(v_ns, p->res), bucket);
	return op;
}

static const struct osp_cmp_item *item(const struct osp_cmp *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->items[i].name, name) == 0)
			return &c->items[i];
	cr_assert_fail("no item %s", name);
	return NULL;
}

/* osp_compare of one profile against another. */
static int compare1(const struct osp_profile *a, const struct osp_profile *b,
		    const struct osp_cmp_opts *o, struct osp_cmp *c)
{
	return osp_compare(&a, 1, &b, 1, o, c);
}

Test(compare, shifted_op_ranks_first_and_the_rest_is_set_aside)
{
	/*
	 * read: 1000 x 800 ns (bucket 10) in A, 1000 x 3000 ns (bucket 12) in
	 * B: every request moved 2 buckets, EMD = 2 octaves; its peak moved
	 * +2 octaves. write: identical (equal). mkdir: 1 request of 1 us
	 * against ~4 ms of latency: tiny. rename: in B only.
	 */
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(a, "read", 10, 1000, 800);
	op_with(b, "read", 12, 1000, 3000);
	op_with(a, "write", 13, 500, 5000);
	op_with(b, "write", 13, 500, 5000);
	op_with(a, "mkdir", 10, 1, 1000);
	op_with(b, "mkdir", 10, 1, 1000);
	op_with(b, "rename", 14, 300, 10000);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_assert_eq(c.n, 4);
	cr_expect_str_eq(c.items[0].name, "read");
	cr_expect_eq(c.items[0].verdict, OSP_CMP_DIFFERENT);
	cr_expect_float_eq(c.items[0].score, 2.0, EPS);
	cr_assert_eq(c.items[0].nchanges, 1);
	cr_expect_eq(c.items[0].changes[0].kind, OSP_PEAK_MOVED);
	cr_expect_float_eq(c.items[0].changes[0].shift_octaves, 2.0, EPS);
	cr_expect_eq(item(&c, "rename")->verdict, OSP_CMP_ONLY_B);
	cr_expect_eq(item(&c, "write")->verdict, OSP_CMP_EQUAL);
	cr_expect_eq(item(&c, "mkdir")->verdict, OSP_CMP_TINY);
	cr_expect_eq(c.ninteresting, 2);
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

/*
 * An operation with no request in either set is no item: "N of M
 * operations differ" and --all speak of operations that ran. An op in
 * one set with requests and in the other at zero is still compared.
 */
Test(compare, operations_that_never_ran_are_no_items)
{
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(a, "read", 10, 1000, 800);
	op_with(b, "read", 10, 1000, 800);
	op_with(a, "write", 13, 0, 5000);
	op_with(b, "write", 13, 40, 5000);
	op_with(a, "mkdir", 10, 0, 1000);
	op_with(b, "mkdir", 10, 0, 1000);
	op_with(a, "rmdir", 10, 0, 1000);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_expect_eq(c.n, 2, "read and write, not mkdir or rmdir: %zu items", c.n);
	cr_expect_eq(item(&c, "write")->verdict, OSP_CMP_ONLY_B);
	for (size_t i = 0; i < c.n; i++)
		cr_expect(strcmp(c.items[i].name, "mkdir") && strcmp(c.items[i].name, "rmdir"),
			  "item %s never ran", c.items[i].name);
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(compare, a_small_sample_over_threshold_is_noise)
{
	/*
	 * A: 6 @ bucket 10, 4 @ 11; B: 3 @ 10, 7 @ 11. EMD = |.6 - .3| = .3,
	 * over the default threshold .2. Noise: pooled F = 9/20 = .45 after
	 * bucket 10, sqrt(.45 * .55) = .4974937; sqrt(1/10 + 1/10) .4974937
	 * = .4472136 * .4974937 = .2224860; 3 x that = .667 > .3. The
	 * chi-square test cannot help: pooled to 10 a bin, A and B make one
	 * bin (6+3, then 10+10), dof 0, p 1. So sampling noise explains it.
	 */
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(a, "read", 10, 6, 800);
	op_with(a, "read", 11, 4, 1500);
	op_with(b, "read", 10, 3, 800);
	op_with(b, "read", 11, 7, 1500);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_assert_eq(c.n, 1);
	cr_expect_float_eq(c.items[0].score, 0.3, EPS);
	cr_expect_float_eq(c.items[0].noise, 0.2224860, EPS);
	cr_expect_float_eq(c.items[0].p_value, 1.0, EPS);
	cr_expect_eq(c.items[0].verdict, OSP_CMP_NOISE);
	cr_expect_eq(c.ninteresting, 0);
	osp_cmp_free(&c);
	/* With the guard off it is a difference. */
	o.noise_factor = 0;
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_expect_eq(c.items[0].verdict, OSP_CMP_DIFFERENT);
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

/* read of 500 x 800 ns and 500 x 800 ms in A; B's as given. */
static enum osp_cmp_verdict far_peaks_verdict(uint64_t fast, uint64_t moved, uint64_t slow)
{
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	enum osp_cmp_verdict v;
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(a, "read", 10, 500, 800);
	op_with(a, "read", 30, 500, 800000000);
	op_with(b, "read", 10, fast, 800);
	op_with(b, "read", 12, moved, 3000);
	op_with(b, "read", 30, slow, 800000000);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_assert_eq(c.n, 1);
	/* Far-off peaks make the EMD's noise level large (about .45): the
	 * EMD guard cannot decide, the chi-square test must. */
	cr_expect_gt(3 * c.items[0].noise, c.items[0].score);
	cr_expect_lt(c.items[0].p_value, 1e-6);
	v = c.items[0].verdict;
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
	return v;
}

Test(compare, a_score_over_the_threshold_by_noise_alone_is_noise)
{
	/*
	 * 300 fast requests move 2 octaves (EMD .6, .557 beyond noise: see
	 * emd_beyond_noise_by_hand for the sums): a difference. 60 move 2
	 * octaves and the slow peak wobbles by 20 requests, within its
	 * noise: EMD .52 over the threshold .2, the chi-square test sure the
	 * distributions differ, but only .115 of it beyond noise -- the
	 * score is the wobble's, not the change's.
	 */
	cr_expect_eq(far_peaks_verdict(200, 300, 500), OSP_CMP_DIFFERENT);
	cr_expect_eq(far_peaks_verdict(420, 60, 520), OSP_CMP_NOISE);
}

Test(compare, differences_rank_by_strength_not_score)
{
	/*
	 * read: twice the requests, the same shape (EMD 0): strength 10 (a
	 * +100% count over its 10% threshold). write: 300 of 1000 requests
	 * moved one octave: EMD .3, 1.5 times its threshold, and total
	 * latency 5 ms to 6.5 ms, +30%, 3 times its: strength 3. By score
	 * alone write would rank first.
	 */
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(a, "read", 10, 1000, 800);
	op_with(b, "read", 10, 2000, 800);
	op_with(a, "write", 13, 1000, 5000);
	op_with(b, "write", 13, 700, 5000);
	op_with(b, "write", 14, 300, 10000);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_assert_eq(c.ninteresting, 2);
	cr_expect_str_eq(c.items[0].name, "read");
	cr_expect_float_eq(c.items[0].strength, 10.0, EPS);
	cr_expect_str_eq(c.items[1].name, "write");
	cr_expect_float_eq(c.items[1].score, 0.3, EPS);
	cr_expect_eq(c.items[1].why, OSP_CMP_WHY_SHAPE | OSP_CMP_WHY_LATENCY);
	cr_expect_float_eq(c.items[1].strength, 3.0, EPS);
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(compare, identical_sets_have_no_difference_with_any_method)
{
	struct osp_profile *a = osp_profile_new("fs", 2);
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(a, "read", 20, 1000, 800);
	op_with(a, "write", 25, 100, 5000);
	for (unsigned m = 0; m < OSP_DIST__COUNT; m++) {
		osp_cmp_opts_default(&o, (enum osp_dist_method)m);
		o.equal_frac = 0; /* make every method rate them */
		cr_assert_eq(compare1(a, a, &o, &c), 0);
		cr_expect_eq(c.ninteresting, 0, "method %s", osp_dist_method_name(m));
		cr_expect_float_eq(c.items[0].score, 0.0, EPS);
		osp_cmp_free(&c);
	}
	osp_profile_free(a);
}

Test(compare, layers_are_matched_by_name_and_checked)
{
	struct osp_profile *fs = osp_profile_new("fs", 1), *lo = osp_profile_new("lower", 1);
	struct osp_profile *lo2 = osp_profile_new("lower", 2);
	const struct osp_profile *a[2] = { fs, lo }, *b[2] = { lo, fs };
	const struct osp_profile *dup[2] = { fs, fs }, *bad[1] = { lo2 };
	struct osp_cmp_opts o;
	struct osp_cmp c;

	op_with(fs, "read", 10, 100, 800);
	op_with(lo, "read", 12, 100, 3000);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	/* Same layers in another order: nothing differs. */
	cr_assert_eq(osp_compare(a, 2, b, 2, &o, &c), 0);
	cr_expect_eq(c.n, 2);
	cr_expect_eq(c.ninteresting, 0);
	osp_cmp_free(&c);
	cr_expect_eq(osp_compare(dup, 2, b, 2, &o, &c), -EINVAL);
	cr_expect_eq(osp_compare(a, 2, bad, 1, &o, &c), -EINVAL);
	o.min_share = 2;
	cr_expect_eq(osp_compare(a, 2, b, 2, &o, &c), -EINVAL);
	osp_profile_free(fs);
	osp_profile_free(lo);
	osp_profile_free(lo2);
}

Test(compare, many_ops_match_by_name_in_linear_time, .timeout = 30)
{
	/* 100,000 ops, B's in reverse order: pairwise matching took minutes. */
	enum { N = 100000 };
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_opts o;
	struct osp_cmp c;
	char name[32];

	for (size_t i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "op%zu", i);
		cr_assert_eq(osp_hist_record(&osp_profile_add_op(a, name, false)->lat, 800), 0);
		snprintf(name, sizeof(name), "op%zu", N - 1 - i);
		cr_assert_eq(osp_hist_record(&osp_profile_add_op(b, name, false)->lat,
					     i == 0 ? 900000 : 800), 0);
	}
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	o.min_share = 0.0;
	o.noise_factor = 0.0;
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_expect_eq(c.n, N, "every op matched its namesake");
	cr_expect_str_eq(c.items[0].name, "op99999");
	cr_expect_eq(c.items[0].verdict, OSP_CMP_DIFFERENT);
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(compare, an_item_holds_only_the_peaks_it_has)
{
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_opts o;
	struct osp_cmp c;

	/* A million ops once cost 2.4 KiB each in fixed peak arrays. */
	cr_expect_lt(sizeof(struct osp_cmp_item), 256);
	op_with(a, "read", 10, 1000, 800);
	op_with(b, "read", 12, 1000, 3000);
	op_with(a, "mkdir", 10, 1, 1000);
	op_with(b, "mkdir", 10, 1, 1000);
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, &o, &c), 0);
	cr_expect_eq(item(&c, "read")->npeaks_a, 1);
	cr_expect_eq(item(&c, "read")->peaks_b[0].mode, 12);
	cr_expect_eq(item(&c, "mkdir")->verdict, OSP_CMP_TINY);
	cr_expect_null(item(&c, "mkdir")->peaks_a, "set aside: no peaks kept");
	osp_cmp_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

/* ---- volume: request count and total latency ----------------------------- */

Test(volume, count_test_is_the_exact_binomial_tail)
{
	/* 10 against 20 of 30 at q = 1/2: 2 P(X >= 20) = .0987371;
	 * 1400 against 1600: .0002786; exposures 2 and 1 make q = 1/3 and
	 * 10 against 10 is 2 P(X >= 10) = .1837915; equal counts give 1. */
	cr_expect_float_eq(osp_count_test(10, 20, 1, 1), 0.0987371, EPS);
	cr_expect_float_eq(osp_count_test(20, 10, 1, 1), 0.0987371, EPS);
	cr_expect_float_eq(osp_count_test(1400, 1600, 1, 1), 0.0002786, 1e-7);
	cr_expect_float_eq(osp_count_test(10, 10, 2, 1), 0.1837915, EPS);
	cr_expect_float_eq(osp_count_test(500, 500, 1, 1), 1.0, EPS);
	cr_expect_float_eq(osp_count_test(0, 0, 1, 1), 1.0, EPS);
	/* Counts past 2^32 stay exact enough to be told apart. */
	cr_expect_lt(osp_count_test(5e9, 5.01e9, 1, 1), 1e-6);
	cr_expect_gt(osp_count_test(5e9, 5e9 + 1e4, 1, 1), 0.1);
}

/*
 * The pairs below share one base: 600 requests of 800 ns (bucket 10, a
 * cache hit) and 400 of 100 us (bucket 17, a disk read) -- 1000 requests,
 * 40.48 ms in all -- a size at which each answer is beyond doubt.
 */
static struct osp_profile *base_profile(unsigned scale, uint64_t slow_ns)
{
	struct osp_profile *p = osp_profile_new("fs", 1);

	cr_assert_not_null(p);
	op_with(p, "read", 10, 600 * scale, 800);
	op_with(p, "read", 17, 400 * scale, slow_ns);
	return p;
}

/* Compare @a with @b by the defaults; the one item. */
static struct osp_cmp_item verdict_of(const struct osp_profile *a,
				      const struct osp_profile *b,
				      const struct osp_cmp_opts *opts)
{
	struct osp_cmp_opts o;
	struct osp_cmp c;
	struct osp_cmp_item it;

	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	cr_assert_eq(compare1(a, b, opts ? opts : &o, &c), 0);
	cr_assert_eq(c.n, 1);
	it = c.items[0];
	osp_cmp_free(&c); /* the peaks go; the verdict and figures stay */
	return it;
}

/* One known answer: B's buckets against the base, and what osp_compare
 * must say of them with the default options. */
struct verdict_case {
	const char *what;
	struct { unsigned bucket; uint64_t n, v_ns; } b[3];
	enum osp_cmp_verdict verdict;
	unsigned why;
	double count_change, latency_change;
};

static const struct verdict_case verdict_cases[] = {
	/* 10 of the 400 slow requests are fast in B: EMD .01 x 7 = .07,
	 * requests +0%, latency -(10 x 99.2 us) / 40.48 ms = -2.5%. */
	{ "the same workload again is similar",
	  { { 10, 610, 800 }, { 17, 390, 100000 } },
	  OSP_CMP_SIMILAR, 0, 0.0, -992000.0 / 40.48e6 },
	/* EMD 0 (shape unchanged); requests +100%: 1000 against 2000, p far
	 * under .27%; total latency doubles with them. */
	{ "twice the requests with the same shape differ in count (and total)",
	  { { 10, 1200, 800 }, { 17, 800, 100000 } },
	  OSP_CMP_DIFFERENT, OSP_CMP_WHY_COUNT | OSP_CMP_WHY_LATENCY, 1.0, 1.0 },
	/* 300 fast requests from 800 ns to 3 us (bucket 12): EMD .3 x 2 =
	 * .6 octaves; requests +0%, latency +300 x 2.2 us / 40.48 ms = +1.6%. */
	{ "a changed shape with the same volume differs in shape",
	  { { 10, 300, 800 }, { 12, 300, 3000 }, { 17, 400, 100000 } },
	  OSP_CMP_DIFFERENT, OSP_CMP_WHY_SHAPE, 0.0, 660000.0 / 40.48e6 },
	/*
	 * The 400 slow requests take 130 us instead of 100 us: the same
	 * bucket 17 (64..131 us), so the same shape (EMD 0) and count, but
	 * total latency +400 x 30 us / 40.48 ms = +29.6%. Noise: E[X^2] from
	 * the midpoints is .4 x 2^33 = 3.4e9 ns^2 (the 800 ns ones add
	 * nothing to speak of), sd sqrt(2000 x 3.4e9) = 2.6 ms, z = 12 ms /
	 * 2.6 ms = 4.6, p = 4e-6.
	 */
	{ "a slow peak slower within its bucket differs in total latency",
	  { { 10, 600, 800 }, { 17, 400, 130000 } },
	  OSP_CMP_DIFFERENT, OSP_CMP_WHY_LATENCY, 0.0, 12e6 / 40.48e6 },
};

Test(volume, each_kind_of_change_is_named_by_its_test)
{
	for (size_t k = 0; k < sizeof(verdict_cases) / sizeof(verdict_cases[0]); k++) {
		const struct verdict_case *vc = &verdict_cases[k];
		struct osp_profile *a = base_profile(1, 100000), *b = osp_profile_new("fs", 1);
		struct osp_cmp_item it;

		for (size_t j = 0; j < 3 && vc->b[j].n; j++)
			op_with(b, "read", vc->b[j].bucket, vc->b[j].n, vc->b[j].v_ns);
		it = verdict_of(a, b, NULL);
		cr_expect_eq(it.verdict, vc->verdict, "%s: verdict", vc->what);
		cr_expect_eq(it.why, vc->why, "%s: why %#x", vc->what, it.why);
		cr_expect_float_eq(it.count_change, vc->count_change, EPS, "%s", vc->what);
		cr_expect_float_eq(it.latency_change, vc->latency_change, EPS, "%s", vc->what);
		if (vc->why & OSP_CMP_WHY_COUNT)
			cr_expect_lt(it.count_p, 1e-20, "%s", vc->what);
		if (vc->why == OSP_CMP_WHY_LATENCY)
			cr_expect(it.latency_p < 1e-5 && it.latency_p > 1e-7,
				  "%s: p %g", vc->what, it.latency_p);
		osp_profile_free(a);
		osp_profile_free(b);
	}
}

Test(volume, a_small_count_change_within_noise_is_noise)
{
	/* 20 against 30 requests, one bucket: +50% but p = .2; the EMD is 0. */
	struct osp_profile *a = osp_profile_new("fs", 1), *b = osp_profile_new("fs", 1);
	struct osp_cmp_item it;

	op_with(a, "read", 10, 20, 800);
	op_with(b, "read", 10, 30, 800);
	it = verdict_of(a, b, NULL);
	cr_expect_eq(it.verdict, OSP_CMP_NOISE);
	cr_expect_gt(it.count_p, 0.1);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(volume, thresholds_turn_off_and_per_time_compares_rates)
{
	/* Twice the requests in twice the time: a change of count, not of
	 * rate, so per second both are equal (set aside as such). With the
	 * volume tests off, only the shape is left: similar. */
	struct osp_profile *a = base_profile(1, 100000), *b = base_profile(2, 100000);
	struct osp_cmp_opts o;

	a->elapsed_ns = 1000000000;
	b->elapsed_ns = 2000000000;
	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	o.per_time = true;
	cr_expect_eq(verdict_of(a, b, &o).verdict, OSP_CMP_EQUAL);
	cr_expect_float_eq(verdict_of(a, b, &o).count_change, 0.0, EPS);
	o.per_time = false;
	o.count_frac = o.latency_frac = -1;
	cr_expect_eq(verdict_of(a, b, &o).verdict, OSP_CMP_SIMILAR);
	o.count_frac = NAN;
	cr_expect_eq(compare1(a, b, &o, &(struct osp_cmp){ 0 }), -EINVAL);
	osp_profile_free(a);
	osp_profile_free(b);
}

/* Buckets that add up past 2^64 (a hostile profile): the peak's count
 * saturates instead of converting a double out of range (fuzz-found). */
Test(peaks, count_past_2_64_saturates)
{
	struct osp_hist h;
	struct osp_peak pk[4];
	size_t n;

	cr_assert_eq(osp_hist_init(&h, 1), 0);
	cr_assert_eq(osp_hist_bucket_set(&h, 0, UINT64_MAX), 0);
	cr_assert_eq(osp_hist_bucket_set(&h, 1, 1), 0);
	h.count = UINT64_MAX;
	n = osp_hist_peaks(&h, pk, 4);
	cr_assert_geq(n, 1u);
	cr_expect_eq(pk[0].count, UINT64_MAX);
	osp_hist_fini(&h);
}
