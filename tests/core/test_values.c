// SPDX-License-Identifier: MIT
/*
 * The value buckets of osprof/values.h, shared by osprof-fs (which
 * records them) and osprof-report (which reads them): boundaries of the
 * size and seek buckets, and their labels.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>

#include "osprof/values.h"

struct seek_case {
	int64_t prev, off;
	unsigned bucket;
};

ParameterizedTestParameters(values, seek_distance_lands_in_its_bucket)
{
	static struct seek_case cases[] = {
		{ -1, 0, OSP_VALUE_SEEK_FIRST },
		{ -1, 4096, OSP_VALUE_SEEK_FIRST },
		{ 0, 0, OSP_VALUE_SEEK_SEQ },
		{ 4096, 4096, OSP_VALUE_SEEK_SEQ },
		{ 0, 1, OSP_VALUE_SEEK_FWD + 0 },        /* (1/2, 1] */
		{ 0, 2, OSP_VALUE_SEEK_FWD + 1 },        /* (1, 2] */
		{ 0, 3, OSP_VALUE_SEEK_FWD + 2 },
		{ 0, 4096, OSP_VALUE_SEEK_FWD + 12 },
		{ 0, 4097, OSP_VALUE_SEEK_FWD + 13 },
		{ 1, 0, OSP_VALUE_SEEK_BACK + 0 },
		{ 4096, 0, OSP_VALUE_SEEK_BACK + 12 },
		{ 4097, 0, OSP_VALUE_SEEK_BACK + 13 },
		{ 0, INT64_MAX, OSP_VALUE_SEEK_FWD + 63 },
		{ INT64_MAX, 0, OSP_VALUE_SEEK_BACK + 63 },
	};

	return cr_make_param_array(struct seek_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct seek_case *c, values, seek_distance_lands_in_its_bucket)
{
	unsigned b = osp_value_seek_bucket(c->prev, c->off);

	cr_expect_eq(b, c->bucket, "prev end %lld, offset %lld: bucket %u, expected %u",
		     (long long)c->prev, (long long)c->off, b, c->bucket);
	cr_expect_lt(b, OSP_VALUE_SEEK_N);
}

Test(values, size_buckets_are_log2_of_bytes)
{
	cr_expect_eq(osp_value_size_bucket(0), 0);
	cr_expect_eq(osp_value_size_bucket(1), 0);
	cr_expect_eq(osp_value_size_bucket(512), 9);
	cr_expect_eq(osp_value_size_bucket(513), 10);
	cr_expect_eq(osp_value_size_bucket(65536), 16);
	cr_expect_eq(osp_value_size_bucket(UINT64_MAX), 64);
	cr_expect_lt(osp_value_size_bucket(UINT64_MAX), OSP_VALUE_SIZE_N);
}

Test(values, labels_name_each_bucket_by_its_upper_bound)
{
	char buf[32];

	cr_expect_str_eq(osp_value_label(OSP_VALUE_SIZE, 0, buf, sizeof(buf)), "<=1B");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SIZE, 9, buf, sizeof(buf)), "512B");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SIZE, 16, buf, sizeof(buf)), "64KiB");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SIZE, 64, buf, sizeof(buf)), "16EiB");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SIZE, 65, buf, sizeof(buf)), "?");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SEEK, 0, buf, sizeof(buf)), "first");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SEEK, 1, buf, sizeof(buf)), "sequential");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SEEK, OSP_VALUE_SEEK_FWD + 20, buf, sizeof(buf)),
			 "+1MiB");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SEEK, OSP_VALUE_SEEK_BACK + 12, buf, sizeof(buf)),
			 "-4KiB");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_SEEK, OSP_VALUE_SEEK_N, buf, sizeof(buf)), "?");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_AT_END, 1, buf, sizeof(buf)), "at end");
	cr_expect_str_eq(osp_value_label(OSP_VALUE_AT_END, 0, buf, sizeof(buf)), "not at end");
}

Test(values, kinds_parse_back_from_their_names)
{
	for (unsigned k = 0; k < OSP_VALUE__COUNT; k++)
		cr_expect_eq(osp_value_kind_parse(osp_value_kind_name((enum osp_value_kind)k)), (int)k);
	cr_expect_eq(osp_value_kind_parse("colour"), -1);
	cr_expect_null(osp_value_kind_name(OSP_VALUE__COUNT));
	cr_expect_eq(osp_value_nbuckets(OSP_VALUE__COUNT), 0);
}
