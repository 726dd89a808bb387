// SPDX-License-Identifier: MIT
/*
 * The BPF programs' bucket (bpf/obp_bucket.h, branch-free so that the
 * verifier walks one path) agrees with core's osp_bucket_index(v, 1) for
 * every value: run in user space, where both compile.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "obp_bucket.h"
#include "osprof/hist.h"

static void expect_same_bucket(uint64_t v)
{
	cr_expect_eq(obp_bucket(v), osp_bucket_index(v, 1), "v=%llu: obp %llu, core %u",
		     (unsigned long long)v, (unsigned long long)obp_bucket(v),
		     osp_bucket_index(v, 1));
}

Test(obp_bucket, zero_one_and_max_match_core)
{
	expect_same_bucket(0);
	expect_same_bucket(1);
	expect_same_bucket(2);
	expect_same_bucket(3);
	expect_same_bucket(UINT64_MAX - 1);
	expect_same_bucket(UINT64_MAX);
	cr_expect_eq(obp_bucket(UINT64_MAX), 64u);
}

Test(obp_bucket, powers_of_two_and_neighbours_match_core)
{
	for (unsigned k = 1; k < 64; k++) {
		uint64_t p = (uint64_t)1 << k;

		expect_same_bucket(p - 1);
		expect_same_bucket(p);
		expect_same_bucket(p + 1);
		/* 2^k is the top of bucket k, 2^k + 1 opens bucket k + 1 */
		cr_expect_eq(obp_bucket(p), k);
		cr_expect_eq(obp_bucket(p + 1), k + 1);
	}
}

Test(obp_bucket, pseudo_random_values_match_core)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		expect_same_bucket(x >> (i % 64));
	}
}
