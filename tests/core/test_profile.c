// SPDX-License-Identifier: MIT
/* Key/value metadata, checksum verification and merging of profiles. */
#include <criterion/criterion.h>
#include <errno.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

Test(profile, kv_set_replaces_and_quotes)
{
	struct osp_kvlist l = { 0 };

	osp_kv_set_str(&l, "cache", "never");
	osp_kv_set_str(&l, "cache", "al\"ways");
	osp_kv_set_num(&l, "t", 1.5);
	osp_kv_set_num(&l, "z", 2);
	osp_kv_set_bool(&l, "b", true);
	cr_expect_eq(l.n, 4);
	cr_expect_str_eq(osp_kv_get(&l, "cache"), "\"al\\\"ways\"");
	cr_expect_str_eq(osp_kv_get(&l, "t"), "1.5");
	cr_expect_str_eq(osp_kv_get(&l, "z"), "2.0");
	cr_expect_str_eq(osp_kv_get(&l, "b"), "true");
	cr_expect_null(osp_kv_get(&l, "nope"));
	osp_kv_free(&l);
	cr_expect_eq(l.n, 0);
}

Test(profile, check_names_every_bad_histogram)
{
	struct osp_profile *p = fixture_profile(1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_expect_eq(osp_profile_check(p, f), 0);
	cr_assert_eq(osp_hist_bucket_set(&p->ops[0].cpu, 3, 7), 0);
	p->snaps[0].ops[0].lat.count = 1;
	cr_expect_eq(osp_profile_check(p, f), 2);
	fclose(f);
	cr_expect_not_null(strstr(buf, "warning: read (cpu): buckets add up to 1017, count says 1010"), "%s", buf);
	cr_expect_not_null(strstr(buf, "warning: timeline[0] getattr: buckets add up to 5, count says 1"), "%s", buf);
	free(buf);
	osp_profile_free(p);
}

Test(profile, drop_timeline_leaves_the_ops_and_no_timeline)
{
	struct osp_profile *p = fixture_profile(1);

	osp_profile_drop_timeline(p);
	cr_expect_eq(p->nsnaps, 0);
	cr_expect_null(p->snaps);
	cr_expect_eq(p->tl_interval_ns, 0);
	cr_expect_eq(p->tl_dropped, 0);
	cr_expect_eq(p->nops, 3);
	cr_expect_eq(p->ops[0].lat.count, 1010);
	osp_profile_drop_timeline(p); /* twice is harmless */
	osp_profile_free(p);
}

Test(profile, merge_with_itself_doubles_every_bucket)
{
	struct osp_profile *a = fixture_profile(1), *b = fixture_profile(1);
	char err[128];

	cr_assert_eq(osp_profile_merge(a, b, err, sizeof(err)), 0);
	for (size_t i = 0; i < a->nops; i++) {
		cr_expect_eq(a->ops[i].lat.count, 2 * b->ops[i].lat.count);
		cr_expect_eq(a->ops[i].lat.sum, 2 * b->ops[i].lat.sum);
		cr_expect_eq(a->ops[i].lat.min, b->ops[i].lat.min);
		for (unsigned j = 0; j < OSP_HIST_NBUCKETS(a->ops[i].lat.res); j++)
			cr_expect_eq(osp_hist_bucket(&a->ops[i].lat, j),
				     2 * osp_hist_bucket(&b->ops[i].lat, j));
	}
	cr_expect_eq(a->ops[1].counters[0].value, 2 * 123456789012ull);
	cr_expect_eq(osp_profile_check(a, NULL), 0);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(profile, merge_refuses_other_resolution_or_unit)
{
	struct osp_profile *a = fixture_profile(1), *b = fixture_profile(2);
	char err[128] = "";

	cr_expect_eq(osp_profile_merge(a, b, err, sizeof(err)), -EINVAL);
	cr_expect_not_null(strstr(err, "resolutions differ (1 and 2)"), "%s", err);
	cr_expect_eq(a->ops[0].lat.count, 1010, "unchanged");
	osp_profile_free(b);
	b = fixture_profile(1);
	osp_str_set(&b->unit, "cycles");
	cr_expect_eq(osp_profile_merge(a, b, err, sizeof(err)), -EINVAL);
	cr_expect_not_null(strstr(err, "units differ (ns and cycles)"), "%s", err);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(profile, merge_appends_ops_only_in_source)
{
	struct osp_profile *a = osp_profile_new("fs", 1), *b = fixture_profile(1);
	char err[128];

	cr_assert_eq(osp_profile_merge(a, b, err, sizeof(err)), 0);
	cr_expect_eq(a->nops, 3);
	cr_expect_not_null(osp_profile_find_op(a, "getattr"));
	cr_expect_eq(osp_profile_find_op(a, "read")->lat.count, 1010);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(name_index, finds_every_name_and_refuses_a_repeat)
{
	struct osp_name_index *ix = osp_name_index_new(0);
	enum { N = 5000 };
	static char names[N][16];

	cr_assert_not_null(ix);
	for (size_t i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "op%zu", i);
		cr_assert_eq(osp_name_index_add(ix, names[i], i), 0);
	}
	for (size_t i = 0; i < N; i++)
		cr_expect_eq(osp_name_index_find(ix, names[i]), i);
	cr_expect_eq(osp_name_index_add(ix, "op17", 99), -EEXIST);
	cr_expect_eq(osp_name_index_find(ix, "op17"), 17, "the first position stays");
	cr_expect_eq(osp_name_index_find(ix, "op"), SIZE_MAX);
	cr_expect_eq(osp_name_index_find(ix, ""), SIZE_MAX);
	osp_name_index_free(ix);
	osp_name_index_free(NULL);
}

/*
 * Names are one when they read back alike from JSON, where a byte that is
 * not UTF-8 is written as its Latin-1 code point: "a\xe0b" is "a\u00e0b".
 * A long one (past the hash's 256-byte chunk) too; distinct code points
 * stay distinct.
 */
Test(name_index, names_one_in_json_are_one)
{
	struct osp_name_index *ix = osp_name_index_new(0);
	static char raw[1201], utf[2401];
	size_t r = 0, u = 0;

	cr_assert_not_null(ix);
	cr_assert_eq(osp_name_index_add(ix, "a\xe0" "b", 1), 0);
	cr_expect_eq(osp_name_index_find(ix, "a\xc3\xa0" "b"), 1);
	cr_expect_eq(osp_name_index_add(ix, "a\xc3\xa0" "b", 2), -EEXIST);
	cr_expect_eq(osp_name_index_find(ix, "a\xc3\xa1" "b"), SIZE_MAX);
	cr_expect_eq(osp_name_index_find(ix, "a\xe1" "b"), SIZE_MAX);
	cr_expect_eq(osp_name_index_find(ix, "a\xe0"), SIZE_MAX);
	/* \xed\xa0\x80 (a surrogate) is three bytes that are not UTF-8 */
	cr_assert_eq(osp_name_index_add(ix, "s\xed\xa0\x80", 3), 0);
	cr_expect_eq(osp_name_index_find(ix, "s\xc3\xad\xc2\xa0\xc2\x80"), 3);
	for (int i = 0; i < 400; i++) {
		memcpy(raw + r, "x\xff\xe9", 3);
		r += 3;
		memcpy(utf + u, "x\xc3\xbf\xc3\xa9", 5);
		u += 5;
	}
	cr_assert_eq(osp_name_index_add(ix, raw, 4), 0);
	cr_expect_eq(osp_name_index_find(ix, utf), 4);
	cr_expect(osp_name_same(raw, utf));
	cr_expect(!osp_name_same("ab", "abc"));
	cr_expect(osp_name_same("", ""));
	osp_name_index_free(ix);
}

/* Two profiles of @n ops each, B's names in reverse order plus one new. */
static void big_pair(size_t n, struct osp_profile **a, struct osp_profile **b)
{
	char name[32];

	*a = osp_profile_new("fs", 1);
	*b = osp_profile_new("fs", 1);
	for (size_t i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "op%zu", i);
		cr_assert_eq(osp_hist_record(&osp_profile_add_op(*a, name, false)->lat, 100), 0);
		snprintf(name, sizeof(name), "op%zu", n - 1 - i);
		cr_assert_eq(osp_hist_record(&osp_profile_add_op(*b, name, false)->lat, 5000), 0);
	}
	osp_profile_add_op(*b, "new", false);
}

Test(profile, merge_of_many_ops_is_linear, .timeout = 20)
{
	struct osp_profile *a, *b;
	char err[128];

	/* Pairwise matching took minutes at this size. */
	big_pair(200000, &a, &b);
	cr_assert_eq(osp_profile_merge(a, b, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(a->nops, 200001);
	cr_expect_eq(a->ops[0].lat.count, 2);
	cr_expect_eq(a->ops[0].lat.nbk, 2);
	cr_expect_str_eq(a->ops[200000].name, "new");
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(profile, merge_refuses_counts_past_64_bits)
{
	struct osp_profile *a = fixture_profile(1), *b = fixture_profile(1);
	char err[128] = "";

	b->ops[1].counters[0].value = UINT64_MAX;
	cr_expect_eq(osp_profile_merge(a, b, err, sizeof(err)), -EOVERFLOW);
	cr_expect_not_null(strstr(err, "op getattr: counts would pass 2^64 - 1"), "%s", err);
	osp_profile_free(b);
	b = fixture_profile(1);
	b->elapsed_ns = UINT64_MAX;
	cr_expect_eq(osp_profile_merge(a, b, err, sizeof(err)), -EOVERFLOW);
	cr_expect_not_null(strstr(err, "elapsed"), "%s", err);
	osp_profile_free(a);
	osp_profile_free(b);
}
