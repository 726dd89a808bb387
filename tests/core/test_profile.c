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
