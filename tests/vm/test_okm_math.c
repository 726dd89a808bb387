// SPDX-License-Identifier: MIT
/*
 * kmod/okm_math.h in user space: the kernel's bucket index agrees with
 * core's osp_bucket_index(v, 1) everywhere it matters, histograms record
 * and merge with their checksum intact, the cycles-to-ns multiply and
 * shift is exact, and the virtual clock and timer accounting behind
 * pseudo_stop/pseudo_start add up.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <string.h>

#include "okm_math.h"
#include "osprof/hist.h"
#include "../bucket_cases.h"

static uint64_t okm(uint64_t v)
{
	return okm_bucket_index(v);
}

Test(okm_bucket, zero_one_and_max_match_core)
{
	bucket_expect_ends(okm);
}

Test(okm_bucket, powers_of_two_and_neighbours_match_core)
{
	bucket_expect_powers_of_two(okm);
}

Test(okm_bucket, pseudo_random_values_match_core)
{
	bucket_expect_random(okm, 100000);
}

Test(okm_hist, record_keeps_count_sum_min_max_and_checksum)
{
	struct okm_hist h;

	memset(&h, 0, sizeof(h));
	okm_hist_record(&h, 800);
	okm_hist_record(&h, 3000000);
	okm_hist_record(&h, 0);
	cr_expect_eq(h.count, 3u);
	cr_expect_eq(h.sum_ns, 3000800u);
	cr_expect_eq(h.min_ns, 0u);
	cr_expect_eq(h.max_ns, 3000000u);
	cr_expect_eq(okm_hist_bucket_total(&h), h.count);
	cr_expect_eq(h.buckets[10], 1u); /* 512 < 800 <= 1024 */
	cr_expect_eq(h.buckets[22], 1u); /* 2^21 < 3e6 <= 2^22 */
	cr_expect_eq(h.buckets[0], 1u);
}

Test(okm_hist, merge_adds_and_ignores_empty)
{
	struct okm_hist a, b, empty;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&empty, 0, sizeof(empty));
	okm_hist_record(&a, 100);
	okm_hist_record(&b, 50);
	okm_hist_record(&b, 5000);
	okm_hist_merge(&a, &empty);
	cr_expect_eq(a.count, 1u);
	cr_expect_eq(a.min_ns, 100u);
	okm_hist_merge(&a, &b);
	cr_expect_eq(a.count, 3u);
	cr_expect_eq(a.sum_ns, 5150u);
	cr_expect_eq(a.min_ns, 50u);
	cr_expect_eq(a.max_ns, 5000u);
	cr_expect_eq(okm_hist_bucket_total(&a), 3u);
	/* merging into an empty one takes src's min, not 0 */
	okm_hist_merge(&empty, &b);
	cr_expect_eq(empty.min_ns, 50u);
}

struct c2n_case {
	uint64_t khz;
};

ParameterizedTestParameters(okm_cyc2ns, exact_multiply_and_shift)
{
	static struct c2n_case cases[] = {
		{ 1000 }, { 999 }, { 1000000 }, { 2594313 }, { 2596147 },
		{ 3000000 }, { 4000000 }, { 5600000 }, { 25000 },
	};
	return cr_make_param_array(struct c2n_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct c2n_case *c, okm_cyc2ns, exact_multiply_and_shift)
{
	static const uint64_t cycs[] = { 0, 1, 1000, 2594313, 1ull << 32,
					 (1ull << 32) + 12345, 1ull << 40,
					 123456789012345ull };
	struct okm_cyc2ns k;

	cr_assert_eq(okm_cyc2ns_init(&k, c->khz), 0);
	cr_expect_leq(k.shift, 32u);
	for (size_t i = 0; i < sizeof(cycs) / sizeof(cycs[0]); i++) {
		unsigned __int128 exact = ((unsigned __int128)cycs[i] * k.mult) >> k.shift;
		double want = (double)cycs[i] * 1e6 / (double)c->khz;
		uint64_t got = okm_cyc2ns(&k, cycs[i]);

		cr_expect_eq(got, (uint64_t)exact, "khz %llu cyc %llu: %llu != %llu",
			     (unsigned long long)c->khz, (unsigned long long)cycs[i],
			     (unsigned long long)got, (unsigned long long)exact);
		/* and close to the true value: 1e-6 relative, plus rounding */
		cr_expect(got <= want + 1 && got + 1 + want * 1e-6 >= want,
			  "khz %llu cyc %llu: %llu vs %.1f",
			  (unsigned long long)c->khz, (unsigned long long)cycs[i],
			  (unsigned long long)got, want);
	}
}

Test(okm_cyc2ns, zero_rate_is_the_identity)
{
	struct okm_cyc2ns k;

	cr_expect_eq(okm_cyc2ns_init(&k, 0), -1);
	cr_expect_eq(okm_cyc2ns(&k, 12345), 12345u);
}

Test(okm_vclock, pause_and_resume_exclude_time_by_reason)
{
	struct okm_vclock vc;

	okm_vclock_init(&vc, 100);
	cr_expect_eq(okm_vclock_read(&vc, 150), 50u);
	okm_vclock_pause(&vc, 150, OKM_EXCL_SCHED);      /* switched out */
	cr_expect_eq(okm_vclock_read(&vc, 400), 50u);    /* frozen */
	okm_vclock_resume(&vc, 300);
	cr_expect_eq(vc.excl_cyc[OKM_EXCL_SCHED], 150u);
	cr_expect_eq(okm_vclock_read(&vc, 310), 60u);
	okm_vclock_pause(&vc, 320, OKM_EXCL_IRQ);        /* interrupt */
	okm_vclock_pause(&vc, 325, OKM_EXCL_IRQ);        /* nested: no-op */
	okm_vclock_resume(&vc, 340);
	okm_vclock_resume(&vc, 345);                     /* unbalanced: no-op */
	cr_expect_eq(vc.excl_cyc[OKM_EXCL_IRQ], 20u);
	cr_expect_eq(okm_vclock_read(&vc, 350), 80u);
	/* virtual + excluded = physical */
	cr_expect_eq(okm_vclock_read(&vc, 350) + vc.excl_cyc[0] + vc.excl_cyc[1],
		     350u - 100u);
}

Test(okm_vclock, clock_going_backwards_does_not_wrap)
{
	struct okm_vclock vc;

	okm_vclock_init(&vc, 1000);
	cr_expect_eq(okm_vclock_read(&vc, 900), 0u);
	okm_vclock_pause(&vc, 900, OKM_EXCL_SCHED);
	okm_vclock_resume(&vc, 800);
	cr_expect_eq(vc.excl_cyc[OKM_EXCL_SCHED], 0u);
	cr_expect_eq(okm_vclock_read(&vc, 850), 50u);
}

Test(okm_tacct, intervals_add_up_and_state_is_checked)
{
	struct okm_tacct t;
	uint64_t excl0[OKM_EXCL__COUNT] = { 0, 0 };
	uint64_t excl1[OKM_EXCL__COUNT] = { 30, 5 };
	uint64_t total, ex[OKM_EXCL__COUNT];

	okm_tacct_clear(&t);
	cr_expect_not(okm_tacct_stop(&t, 10, excl0));
	cr_expect(okm_tacct_start(&t, 100, excl0));
	cr_expect_not(okm_tacct_start(&t, 110, excl0));
	/* a live read includes the running interval, not counted in intervals */
	okm_tacct_read(&t, true, 150, excl1, &total, ex);
	cr_expect_eq(total, 50u);
	cr_expect_eq(ex[OKM_EXCL_SCHED], 30u);
	cr_expect_eq(t.intervals, 0u);
	okm_tacct_read(&t, false, 150, NULL, &total, ex);
	cr_expect_eq(total, 0u);
	cr_expect(okm_tacct_stop(&t, 200, excl1));
	cr_expect_eq(t.last_cyc, 100u);
	cr_expect_eq(t.intervals, 1u);
	cr_expect_eq(t.excl_total[OKM_EXCL_IRQ], 5u);
	cr_expect(okm_tacct_start(&t, 300, excl1));
	cr_expect(okm_tacct_stop(&t, 340, excl1));
	cr_expect_eq(t.total_cyc, 140u);
	cr_expect_eq(t.intervals, 2u);
	cr_expect_eq(t.last_cyc, 40u);
	okm_tacct_clear(&t);
	cr_expect_eq(t.total_cyc, 0u);
	cr_expect_not(t.running);
}
