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
 * to walk in every program that records (2,278 instructions processed
 * for sys_exit's 226, each load of osprof-trace).
 */
static inline __attribute__((always_inline)) __u64 obp_bucket(__u64 v)
{
	__u64 k, s;

	if (v <= 1)
		return 0;
	v -= 1;
	s = ((v >> 32) + 0xffffffffull) >> 32 << 5;
	k = s;
	v >>= s;
	s = ((v >> 16) + 0xffffull) >> 16 << 4;
	k += s;
	v >>= s;
	s = ((v >> 8) + 0xffull) >> 8 << 3;
	k += s;
	v >>= s;
	s = ((v >> 4) + 0xfull) >> 4 << 2;
	k += s;
	v >>= s;
	s = ((v >> 2) + 0x3ull) >> 2 << 1;
	k += s;
	v >>= s;
	s = ((v >> 1) + 0x1ull) >> 1;
	k += s;
	v >>= s;
	return k + v;
}

#endif /* OBP_BUCKET_H */
