/* SPDX-License-Identifier: MIT */
/*
 * A log2 bucket function held to core's osp_bucket_index(v, 1) on the
 * values where one goes wrong: 0, 1, the top, every power of two and its
 * neighbours, and pseudo-random values of every length. Shared by the
 * kernel module's (tests/vm/test_okm_math.c) and the BPF programs'
 * (tests/bpf/test_bucket.c) tests; include after criterion.h.
 */
#ifndef TESTS_BUCKET_CASES_H
#define TESTS_BUCKET_CASES_H

#include <stdint.h>

#include "osprof/hist.h"

/* The bucket of @v by the function under test. */
typedef uint64_t (*bucket_fn)(uint64_t v);

static void bucket_expect_core(bucket_fn f, uint64_t v)
{
	cr_expect_eq(f(v), osp_bucket_index(v, 1), "v=%llu: %llu, core %u", (unsigned long long)v,
		     (unsigned long long)f(v), osp_bucket_index(v, 1));
}

static void bucket_expect_ends(bucket_fn f)
{
	bucket_expect_core(f, 0);
	bucket_expect_core(f, 1);
	bucket_expect_core(f, 2);
	bucket_expect_core(f, 3);
	bucket_expect_core(f, UINT64_MAX);
	bucket_expect_core(f, UINT64_MAX - 1);
	cr_expect_eq(f(0), 0u);
	cr_expect_eq(f(1), 0u);
	cr_expect_eq(f(UINT64_MAX), 64u);
}

static void bucket_expect_powers_of_two(bucket_fn f)
{
	for (unsigned k = 1; k < 64; k++) {
		uint64_t p = (uint64_t)1 << k;

		bucket_expect_core(f, p - 1);
		bucket_expect_core(f, p);
		bucket_expect_core(f, p + 1);
		/* 2^k is the top of bucket k, 2^k + 1 opens bucket k + 1 */
		cr_expect_eq(f(p), k);
		cr_expect_eq(f(p + 1), k + 1);
	}
}

static void bucket_expect_random(bucket_fn f, int n)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		bucket_expect_core(f, x >> (i % 64));
	}
}

#endif /* TESTS_BUCKET_CASES_H */
