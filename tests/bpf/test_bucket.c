// SPDX-License-Identifier: MIT
/*
 * The BPF programs' bucket (bpf/obp_bucket.h, branch-free so that the
 * verifier walks one path) agrees with core's osp_bucket_index(v, 1) for
 * every value: run in user space, where both compile.
 */
#include <criterion/criterion.h>
#include <stdint.h>

#include "obp_bucket.h"
#include "../bucket_cases.h"

static uint64_t obp(uint64_t v)
{
	return obp_bucket(v);
}

Test(obp_bucket, zero_one_and_max_match_core)
{
	bucket_expect_ends(obp);
}

Test(obp_bucket, powers_of_two_and_neighbours_match_core)
{
	bucket_expect_powers_of_two(obp);
}

Test(obp_bucket, pseudo_random_values_match_core)
{
	bucket_expect_random(obp, 1000000);
}
