/* SPDX-License-Identifier: MIT */
/*
 * The log2 bucket the BPF programs record a value in (obp_common.bpf.h),
 * in a header of its own so that a unit test holds it to core's
 * osp_bucket_index (tests/bpf/test_bucket.c).
 */
#ifndef OBP_BUCKET_H
#define OBP_BUCKET_H

#include <linux/types.h>

/*
 * The bucket of @v at resolution 1: the bit length of v - 1, v <= 1 in
 * bucket 0 (core's osp_bucket_index). By halving shifts (clang 14
 * cannot compile __builtin_clzll for BPF), without a branch: each step
 * tests whether the upper half is nonzero as a carry, (hi + mask) >>
 * width, since hi <= mask. Six branches were 2^6 paths for the verifier
 * to walk in every program that records, at each load (what that cost
 * sys_exit: docs/layers.md#what-a-call-costs).
 */
/* One halving step of width @w: 1 when v's bits above @w are not all
 * zero (as a carry), then that many bits counted and shifted out. */
#define OBP_BUCKET_STEP(w)                                   \
	do {                                                 \
		s = (((v >> (w)) + ((1ull << (w)) - 1)) >> (w)) * (w); \
		k += s;                                      \
		v >>= s;                                     \
	} while (0)

static inline __attribute__((always_inline)) __u64 obp_bucket(__u64 v)
{
	__u64 k = 0, s;

	if (v <= 1)
		return 0;
	v -= 1;
	OBP_BUCKET_STEP(32);
	OBP_BUCKET_STEP(16);
	OBP_BUCKET_STEP(8);
	OBP_BUCKET_STEP(4);
	OBP_BUCKET_STEP(2);
	OBP_BUCKET_STEP(1);
	return k + v;
}

#undef OBP_BUCKET_STEP

#endif /* OBP_BUCKET_H */
