// SPDX-License-Identifier: MIT
/*
 * Bucket bounds at every resolution against the mathematical definition
 * i = ceil(r * log2(v)) computed in long double, and the histogram
 * operations (merge, checksum, range, percentile).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "osprof/hist.h"

/*
 * The bucket of @v by the definition: the smallest i with v <= 2^(i/r).
 * Returns -1 when long double cannot decide (v within a few ulps of a
 * bound), so only decidable cases are compared.
 */
static int bucket_by_definition(uint64_t v, unsigned r)
{
	long double lv = (long double)v;

	if (v <= 1)
		return 0;
	for (unsigned i = 1; i <= 64 * r; i++) {
		long double b = exp2l((long double)i / r);

		/* Powers of two are exact; other bounds are good to an ulp. */
		if (i % r != 0 && fabsl(lv - b) <= b * 0x1p-61L)
			return -1;
		if (lv <= b)
			return (int)i;
	}
	return (int)(64 * r);
}

ParameterizedTestParameters(hist, bounds_match_definition)
{
	static unsigned res[] = { 1, 2, 4, 8 };

	return cr_make_param_array(unsigned, res, 4);
}

ParameterizedTest(unsigned *r, hist, bounds_match_definition)
{
	unsigned checked = 0;

	for (unsigned i = 1; i <= 64 * *r; i++) {
		long double b = exp2l((long double)i / *r);
		uint64_t f = b >= 0x1p64L ? UINT64_MAX : (uint64_t)floorl(b);

		/* The values around every bound: f-1, f, f+1, f+2. */
		for (int d = -1; d <= 2; d++) {
			uint64_t v = f + (uint64_t)(int64_t)d;
			int want;

			if ((d < 0 && f == 0) || (d > 0 && v < f))
				continue;
			want = bucket_by_definition(v, *r);
			if (want < 0)
				continue;
			cr_expect_eq(osp_bucket_index(v, *r), (unsigned)want,
				     "r=%u v=%llu: got %u want %d", *r,
				     (unsigned long long)v, osp_bucket_index(v, *r), want);
			checked++;
		}
	}
	cr_expect_gt(checked, 3 * 64 * *r, "most bounds were decidable");
}

ParameterizedTestParameters(hist, powers_of_two_and_edges)
{
	static unsigned res[] = { 1, 2, 4, 8 };

	return cr_make_param_array(unsigned, res, 4);
}

ParameterizedTest(unsigned *r, hist, powers_of_two_and_edges)
{
	unsigned res = *r;

	cr_expect_eq(osp_bucket_index(0, res), 0);
	cr_expect_eq(osp_bucket_index(1, res), 0);
	cr_expect_eq(osp_bucket_index(UINT64_MAX, res), 64 * res);
	for (unsigned k = 1; k < 64; k++) {
		uint64_t p = 1ull << k;

		/* 2^k is the inclusive upper bound of bucket k*r ... */
		cr_expect_eq(osp_bucket_index(p, res), k * res, "2^%u r=%u", k, res);
		/*
		 * ... and 2^k + 1 is the first value of the next bucket, once
		 * buckets are wider than one integer (below that some are empty).
		 */
		if (ldexp(1.0, (int)k) * (exp2(1.0 / res) - 1.0) >= 1.0)
			cr_expect_eq(osp_bucket_index(p + 1, res), k * res + 1, "2^%u+1 r=%u", k, res);
		else
			cr_expect_gt(osp_bucket_index(p + 1, res), k * res, "2^%u+1 r=%u", k, res);
		if (p - 1 > 1)
			cr_expect_leq(osp_bucket_index(p - 1, res), k * res);
	}
}

Test(hist, index_is_monotonic_in_value)
{
	for (unsigned r = 1; r <= 8; r *= 2) {
		unsigned prev = 0;

		for (uint64_t v = 0; v < 100000; v++) {
			unsigned i = osp_bucket_index(v, r);

			cr_assert_geq(i, prev);
			/* From 64 ns on, buckets are wider than one ns. */
			if (v > 64)
				cr_assert_leq(i - prev, 1u, "v=%llu r=%u", (unsigned long long)v, r);
			prev = i;
		}
	}
}

Test(hist, upper_and_lower_bounds_enclose_values)
{
	for (unsigned r = 1; r <= 8; r *= 2)
		for (uint64_t v = 2; v < 5000000; v = v * 3 / 2 + 1) {
			unsigned i = osp_bucket_index(v, r);

			cr_expect(v > osp_bucket_lower_ns(i, r) && v <= osp_bucket_upper_ns(i, r) * (1 + 1e-12),
				  "v=%llu r=%u i=%u", (unsigned long long)v, r, i);
		}
}

Test(hist, init_rejects_bad_resolution)
{
	struct osp_hist h;

	cr_expect_eq(osp_hist_init(&h, 3), -EINVAL);
	cr_expect_null(h.bk);
	cr_expect_eq(osp_hist_init(&h, 16), -EINVAL);
	cr_assert_eq(osp_hist_init(&h, 4), 0);
	cr_expect_eq(h.res, 4u);
	cr_expect_eq(h.nbk, 0u);
	osp_hist_fini(&h);
	osp_hist_fini(NULL);
}

Test(hist, record_keeps_count_sum_min_max_and_checksum)
{
	struct osp_hist h;

	cr_assert_eq(osp_hist_init(&h, 1), 0);
	osp_hist_record(&h, 1000);
	osp_hist_record(&h, 3);
	osp_hist_record(&h, 1024);
	cr_expect_eq(h.count, 3);
	cr_expect_eq(h.sum, 2027);
	cr_expect_eq(h.min, 3);
	cr_expect_eq(h.max, 1024);
	cr_expect_eq(osp_hist_bucket(&h, 10), 2);
	cr_expect_eq(osp_hist_bucket(&h, 2), 1);
	cr_expect(osp_hist_checksum_ok(&h));
	cr_assert_eq(osp_hist_bucket_set(&h, 5, 1), 0);
	cr_expect_not(osp_hist_checksum_ok(&h));
	osp_hist_fini(&h);
}

/*
 * Found by fuzz/fuzz_kmod.c: UINT64_MAX + 1 wrapped to 0 and passed as
 * count 0; saturated, it passed as count UINT64_MAX.
 */
Test(hist, buckets_adding_up_past_2_64_fail_the_checksum)
{
	struct osp_hist h;

	cr_assert_eq(osp_hist_init(&h, 1), 0);
	cr_assert_eq(osp_hist_bucket_set(&h, 0, UINT64_MAX), 0);
	cr_assert_eq(osp_hist_bucket_set(&h, 1, 1), 0);
	cr_expect_not(osp_hist_checksum_ok(&h));
	cr_expect_eq(osp_hist_bucket_total(&h), UINT64_MAX);
	h.count = UINT64_MAX;
	cr_expect_not(osp_hist_checksum_ok(&h));
	cr_assert_eq(osp_hist_bucket_set(&h, 1, 0), 0);
	cr_expect(osp_hist_checksum_ok(&h));
	osp_hist_fini(&h);
}

Test(hist, merge_adds_and_refuses_other_resolution)
{
	struct osp_hist a, b, c;

	osp_hist_init(&a, 2);
	osp_hist_init(&b, 2);
	osp_hist_init(&c, 4);
	osp_hist_record(&a, 100);
	osp_hist_record(&b, 50);
	osp_hist_record(&b, 5000);
	cr_assert_eq(osp_hist_merge(&a, &b), 0);
	cr_expect_eq(a.count, 3);
	cr_expect_eq(a.min, 50);
	cr_expect_eq(a.max, 5000);
	cr_expect_eq(a.sum, 5150);
	cr_expect_eq(osp_hist_merge(&a, &c), -EINVAL);
	cr_expect_eq(a.count, 3);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
	osp_hist_fini(&c);
}

Test(hist, percentile_interpolates_within_bucket)
{
	struct osp_hist h;
	unsigned lo, hi;

	osp_hist_init(&h, 1);
	cr_expect_eq(osp_hist_percentile(&h, 50), 0.0);
	cr_expect_not(osp_hist_range(&h, &lo, &hi));
	/* 100 values in (512, 1024], min 600, max 1000. */
	for (int i = 0; i < 100; i++)
		osp_hist_record(&h, i == 0 ? 600 : 1000);
	/* p0 is the min, p100 the max, p50 geometric inside [600, 1000]. */
	cr_expect_float_eq(osp_hist_percentile(&h, 0), 600.0, 1e-9);
	cr_expect_float_eq(osp_hist_percentile(&h, 100), 1000.0, 1e-9);
	cr_expect_float_eq(osp_hist_percentile(&h, 50), 600.0 * sqrt(1000.0 / 600.0), 1e-6);
	cr_assert(osp_hist_range(&h, &lo, &hi));
	cr_expect_eq(lo, 10);
	cr_expect_eq(hi, 10);
	osp_hist_fini(&h);
}

Test(hist, percentile_walks_buckets_in_order)
{
	struct osp_hist h;

	osp_hist_init(&h, 1);
	for (int i = 0; i < 90; i++)
		osp_hist_record(&h, 100);  /* bucket 7: (64, 128] */
	for (int i = 0; i < 10; i++)
		osp_hist_record(&h, 5000); /* bucket 13: (4096, 8192] */
	cr_expect_leq(osp_hist_percentile(&h, 50), 128.0);
	cr_expect_gt(osp_hist_percentile(&h, 95), 4096.0);
	cr_expect_leq(osp_hist_percentile(&h, 95), 5000.0);
	osp_hist_fini(&h);
}

Test(hist, memory_follows_the_buckets_used_not_the_resolution)
{
	struct osp_hist h, c;

	cr_assert_eq(osp_hist_init(&h, 8), 0);
	cr_expect_eq(osp_hist_bytes(&h), 0, "an empty histogram allocates nothing");
	cr_assert_eq(osp_hist_record(&h, 123456), 0);
	cr_expect_eq(h.nbk, 1u);
	cr_expect_leq(osp_hist_bytes(&h), sizeof(struct osp_bucket),
		      "one bucket at resolution 8: one pair, not 513 counters");
	cr_assert_eq(osp_hist_bucket_set(&h, 512, 3), 0);
	cr_assert_eq(osp_hist_bucket_set(&h, 0, 2), 0);
	cr_assert_eq(osp_hist_copy(&c, &h), 0);
	cr_expect_eq(osp_hist_bytes(&c), 3 * sizeof(struct osp_bucket),
		     "the extremes of the range cost two pairs, not the range");
	osp_hist_fini(&h);
	osp_hist_fini(&c);
}

Test(hist, bucket_set_inserts_updates_and_empties_in_order)
{
	struct osp_hist h;

	cr_assert_eq(osp_hist_init(&h, 1), 0);
	cr_expect_eq(osp_hist_bucket_set(&h, 65, 1), -EINVAL);
	cr_expect_eq(osp_hist_bucket_set(&h, 64, 1), 0);
	cr_expect_eq(osp_hist_bucket_set(&h, 3, 5), 0);
	cr_expect_eq(osp_hist_bucket_set(&h, 10, 7), 0);
	cr_expect_eq(osp_hist_bucket_set(&h, 3, 0), 0);
	cr_expect_eq(osp_hist_bucket_set(&h, 20, 0), 0, "emptying an empty bucket");
	cr_expect_eq(osp_hist_bucket_set(&h, 10, 8), 0);
	cr_assert_eq(h.nbk, 2u);
	cr_expect_eq(h.bk[0].idx, 10u);
	cr_expect_eq(h.bk[0].count, 8u);
	cr_expect_eq(h.bk[1].idx, 64u);
	cr_expect_eq(osp_hist_bucket(&h, 3), 0u);
	cr_expect_eq(osp_hist_bucket(&h, 1000), 0u, "out of range reads as empty");
	osp_hist_fini(&h);
}

Test(hist, merge_interleaves_sorted_buckets)
{
	struct osp_hist a, b;
	static const unsigned ia[] = { 2, 5, 9 }, ib[] = { 1, 5, 7, 12 };

	osp_hist_init(&a, 1);
	osp_hist_init(&b, 1);
	for (size_t k = 0; k < 3; k++)
		cr_assert_eq(osp_hist_bucket_set(&a, ia[k], 10 + ia[k]), 0);
	for (size_t k = 0; k < 4; k++)
		cr_assert_eq(osp_hist_bucket_set(&b, ib[k], 100 + ib[k]), 0);
	a.count = osp_hist_bucket_total(&a);
	b.count = osp_hist_bucket_total(&b);
	cr_assert_eq(osp_hist_merge(&a, &b), 0);
	cr_assert_eq(a.nbk, 6u);
	for (uint32_t k = 1; k < a.nbk; k++)
		cr_expect_lt(a.bk[k - 1].idx, a.bk[k].idx);
	cr_expect_eq(osp_hist_bucket(&a, 5), 15u + 105u);
	cr_expect_eq(osp_hist_bucket(&a, 1), 101u);
	cr_expect_eq(osp_hist_bucket(&a, 12), 112u);
	cr_expect(osp_hist_checksum_ok(&a));
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(hist, merge_refuses_to_overflow_and_changes_nothing)
{
	struct osp_hist a, b;

	osp_hist_init(&a, 1);
	osp_hist_init(&b, 1);
	cr_assert_eq(osp_hist_bucket_set(&a, 4, UINT64_MAX - 1), 0);
	a.count = UINT64_MAX - 1;
	cr_assert_eq(osp_hist_bucket_set(&b, 4, 2), 0);
	b.count = 2;
	cr_expect_eq(osp_hist_merge(&a, &b), -EOVERFLOW);
	cr_expect_eq(osp_hist_bucket(&a, 4), UINT64_MAX - 1);
	cr_expect_eq(a.count, UINT64_MAX - 1);
	/* The sum alone can pass 2^64 too. */
	osp_hist_clear(&a);
	osp_hist_clear(&b);
	a.sum = UINT64_MAX;
	b.count = 1;
	b.sum = 1;
	cr_expect_eq(osp_hist_merge(&a, &b), -EOVERFLOW);
	cr_expect_eq(a.count, 0u);
	osp_hist_fini(&a);
	osp_hist_fini(&b);
}

Test(hist, bucket_total_saturates_rather_than_wraps)
{
	struct osp_hist h;

	osp_hist_init(&h, 1);
	cr_assert_eq(osp_hist_bucket_set(&h, 1, UINT64_MAX), 0);
	cr_assert_eq(osp_hist_bucket_set(&h, 2, 2), 0);
	h.count = 1; /* a wrapped total would be 1 and pass the checksum */
	cr_expect_eq(osp_hist_bucket_total(&h), UINT64_MAX);
	cr_expect_not(osp_hist_checksum_ok(&h));
	osp_hist_fini(&h);
}

Test(hist, dense_round_trip_keeps_every_bucket)
{
	uint64_t d[OSP_HIST_NBUCKETS_MAX] = { 0 }, e[OSP_HIST_NBUCKETS_MAX];
	struct osp_hist h;

	d[0] = 1;
	d[77] = 2;
	d[512] = 3;
	osp_hist_init(&h, 8);
	cr_assert_eq(osp_hist_from_dense(&h, d), 0);
	cr_expect_eq(h.nbk, 3u);
	cr_expect_eq(osp_hist_bytes(&h), 3 * sizeof(struct osp_bucket));
	osp_hist_to_dense(&h, e);
	cr_expect_arr_eq(d, e, sizeof(d));
	osp_hist_fini(&h);
}

Test(hist, faults_are_what_no_recording_produces)
{
	struct osp_hist h;

	cr_assert_eq(osp_hist_init(&h, 1), 0);
	cr_expect_eq(osp_hist_fault(&h), OSP_HIST_FAULT_NONE, "empty");
	h.sum = 5;
	cr_expect_eq(osp_hist_fault(&h), OSP_HIST_FAULT_VALUES_NO_COUNT);
	h.count = 2;
	h.min = 9;
	h.max = 5;
	cr_expect_eq(osp_hist_fault(&h), OSP_HIST_FAULT_MIN_OVER_MAX);
	h.max = 9;
	cr_expect_eq(osp_hist_fault(&h), OSP_HIST_FAULT_NONE);
	osp_hist_fini(&h);
}
