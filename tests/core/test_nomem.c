// SPDX-License-Identifier: MIT
/*
 * Allocation failures come back to the caller: every allocation that core
 * makes in a call is failed in turn (the linker wraps malloc, calloc,
 * realloc, aligned_alloc, strdup and strndup of this program and of the
 * core library linked into it), and whenever one failed the call must
 * return an error -- never 0 with an empty or partial result that looks
 * whole. Also: an idle timeline tick allocates nothing at all.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/analysis.h"
#include "osprof/format.h"
#include "osprof/kmod.h"
#include "osprof/metrics.h"
#include "osprof/set.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__real_aligned_alloc(size_t align, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_aligned_alloc(size_t align, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static long fail_at = -1; /* the allocation (0, 1, ... since armed) to fail */
static long nalloc;       /* allocations since armed */
static bool failed;       /* one was failed */

static bool fail_now(void)
{
	if (fail_at < 0)
		return false;
	if (nalloc++ != fail_at)
		return false;
	failed = true;
	return true;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
void *__wrap_aligned_alloc(size_t a, size_t n) { return fail_now() ? NULL : __real_aligned_alloc(a, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fail_now() ? NULL : __real_strndup(s, n); }

/* Fail allocation @n from now on (LONG_MAX: only count them). */
static void arm(long n)
{
	nalloc = 0;
	failed = false;
	fail_at = n;
}

static void disarm(void)
{
	fail_at = -1;
}

static const char *const names[] = { "read", "write", "getattr" };

/* A set with CPU time, a timeline of a few busy and idle intervals, and
 * records in the interval in progress. */
static struct osp_set *busy_set(void)
{
	struct osp_set *set = osp_set_new(names, 3, 2, true);

	cr_assert_not_null(set);
	cr_assert_eq(osp_set_timeline_start(set, 3600000000000ull, 16), 0);
	for (int k = 0; k < 4; k++) {
		for (int i = 0; i < 20; i++)
			osp_set_record(set, (unsigned)(k + i) % 3, 100u << (i % 12), 50);
		cr_assert_eq(osp_set_timeline_tick(set), 0);
		cr_assert_eq(osp_set_timeline_tick(set), 0); /* idle */
	}
	osp_set_record(set, 0, 77, 7);
	return set;
}

Test(nomem, snapshot_returns_enomem_and_no_part_of_a_profile)
{
	for (long n = 0;; n++) {
		struct osp_set *set = busy_set();
		struct osp_profile *p = osp_profile_new("fs", 2);
		int rc;

		arm(n);
		rc = osp_set_snapshot(set, p);
		disarm();
		if (!failed) {
			cr_assert_eq(rc, 0);
			cr_expect_eq(p->nops, 3);
			cr_expect_gt(p->nsnaps, 0);
			cr_expect_gt(n, 5, "the snapshot allocates: the test must fail some");
			osp_profile_free(p);
			osp_set_free(set);
			break;
		}
		cr_expect_eq(rc, -ENOMEM, "allocation %ld failed, snapshot returned %d", n, rc);
		cr_expect_eq(p->nops, 0, "allocation %ld: ops handed over anyway", n);
		cr_expect_eq(p->nsnaps, 0, "allocation %ld: a partial timeline", n);
		osp_profile_free(p);
		osp_set_free(set);
	}
}

Test(nomem, a_tick_that_cannot_allocate_is_missed_and_loses_no_event)
{
	for (long n = 0;; n++) {
		struct osp_set *set = busy_set();
		struct osp_timeline_stats st;
		struct osp_profile *p;
		uint64_t count = 0;
		int rc;

		arm(n);
		rc = osp_set_timeline_tick(set);
		disarm();
		osp_set_timeline_stats(set, &st);
		if (!failed) {
			cr_assert_eq(rc, 0);
			cr_expect_eq(st.missed, 0);
			osp_set_free(set);
			break;
		}
		cr_expect_eq(rc, -ENOMEM, "allocation %ld failed, tick returned %d", n, rc);
		cr_expect_eq(st.missed, 1);
		/* The next tick takes the missed interval's events. */
		cr_assert_eq(osp_set_timeline_tick(set), 0);
		p = osp_profile_new("fs", 2);
		cr_assert_eq(osp_set_snapshot(set, p), 0);
		for (size_t s = 0; s < p->nsnaps; s++)
			for (size_t i = 0; i < p->snaps[s].nops; i++)
				if (strcmp(p->snaps[s].ops[i].name, "read") == 0)
					count += p->snaps[s].ops[i].lat.count;
		cr_expect_eq(p->tl_dropped, 0);
		cr_expect_eq(count, p->ops[0].lat.count, "allocation %ld: events lost", n);
		osp_profile_free(p);
		osp_set_free(set);
	}
}

Test(nomem, an_idle_tick_allocates_nothing)
{
	struct osp_set *set = busy_set();

	/* The first tick takes the 77; the next two leave both arrays of
	 * cumulative counts room for every bucket in use. */
	for (int k = 0; k < 3; k++)
		cr_assert_eq(osp_set_timeline_tick(set), 0);
	arm(LONG_MAX);
	for (int k = 0; k < 1000; k++)
		cr_assert_eq(osp_set_timeline_tick(set), 0);
	disarm();
	cr_expect_eq(nalloc, 0, "%ld allocations in 1000 idle ticks", nalloc);
	osp_set_free(set);
}

static const char doc[] =
	"{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"irq\","
	" \"host\": \"h\\u00e9\", \"source\": {\"pid\": 5}, \"options\": {\"cache\": \"auto\"},"
	" \"clock\": {\"source\": \"tsc\", \"cycles_per_ns\": 2.5}, \"ops\": ["
	"{\"name\": \"1:timer\", \"count\": 3, \"sum\": 30, \"min\": 5, \"max\": 15,"
	" \"buckets\": [[3, 1], [4, 2]], \"cpu\": {\"count\": 3, \"sum\": 3, \"min\": 1,"
	" \"max\": 1, \"buckets\": [[0, 3]]}, \"counters\": {\"instructions\": 9}, \"pmc\": \"available\"},"
	"{\"name\": \"2:n\\u0065t\", \"buckets\": []}],"
	" \"timeline\": {\"interval_ns\": 5, \"snapshots\": [{\"t_ns\": 1, \"ops\": ["
	"{\"name\": \"1:timer\", \"count\": 1, \"min\": 5, \"max\": 5, \"buckets\": [[3, 1]]}]}]}}";

/* Fail each allocation of @read in turn: no profile, and a message. */
static void each_failure_says_out_of_memory(struct osp_profile *(*read)(char *, size_t))
{
	for (long n = 0;; n++) {
		char err[256] = "";
		struct osp_profile *p;

		arm(n);
		p = read(err, sizeof(err));
		disarm();
		if (!failed) {
			cr_assert_not_null(p, "%s", err);
			osp_profile_free(p);
			break;
		}
		cr_expect_null(p, "allocation %ld failed, yet a profile came back", n);
		cr_expect_not_null(strstr(err, "out of memory"), "allocation %ld: %s", n, err);
		osp_profile_free(p);
	}
}

static struct osp_profile *read_doc(char *err, size_t errlen)
{
	return osp_read_json(doc, sizeof(doc) - 1, err, errlen);
}

static struct osp_profile *read_block(char *err, size_t errlen)
{
	static const char text[] =
		"layer=block clock=tsc cycles_per_ns=2.5 enabled=1\n"
		"dev=vda dir=read count=3 sum_ns=30 min_ns=5 max_ns=15 hist=3:1,4:2\n"
		"dev=vda dir=write count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1\n";

	return osp_read_kmod("block", text, sizeof(text) - 1, err, errlen);
}

Test(nomem, json_reader_says_out_of_memory)
{
	each_failure_says_out_of_memory(read_doc);
}

Test(nomem, kmod_reader_says_out_of_memory)
{
	each_failure_says_out_of_memory(read_block);
}

Test(nomem, merge_and_compare_return_enomem)
{
	char err[256];
	struct osp_profile *b = osp_read_json(doc, sizeof(doc) - 1, err, sizeof(err));

	cr_assert_not_null(b, "%s", err);
	for (long n = 0;; n++) {
		struct osp_profile *a = osp_profile_new("irq", 1);
		int rc;

		cr_assert_not_null(osp_profile_add_op(a, "1:timer", true));
		arm(n);
		rc = osp_profile_merge(a, b, err, sizeof(err));
		disarm();
		osp_profile_free(a);
		if (!failed) {
			cr_assert_eq(rc, 0, "%s", err);
			break;
		}
		cr_expect_eq(rc, -ENOMEM, "allocation %ld failed, merge returned %d", n, rc);
	}
	for (long n = 0;; n++) {
		const struct osp_profile *set[] = { b };
		struct osp_cmp_opts o;
		struct osp_cmp c;
		int rc;

		osp_cmp_opts_default(&o, OSP_DIST_EMD);
		arm(n);
		rc = osp_compare(set, 1, set, 1, &o, &c);
		disarm();
		if (!failed) {
			cr_assert_eq(rc, 0);
			osp_cmp_free(&c);
			break;
		}
		cr_expect_eq(rc, -ENOMEM, "allocation %ld failed, compare returned %d", n, rc);
	}
	osp_profile_free(b);
}

Test(nomem, metrics_writer_returns_enomem)
{
	char err[256];
	struct osp_profile *fs = osp_read_json(doc, sizeof(doc) - 1, err, sizeof(err));
	struct osp_profile *blk = read_block(err, sizeof(err));

	cr_assert_not_null(fs, "%s", err);
	cr_assert_not_null(blk, "%s", err);
	cr_assert_eq(osp_kv_set_str(&fs->options, "cache", "auto"), 0);
	cr_assert_eq(osp_kv_set_str(&fs->source, "lower", "/data"), 0);
	for (long n = 0;; n++) {
		/* The second mount's block layer is not served: its labels
		 * are still made, to find that out. */
		struct osp_om_src src[] = { { .p = fs }, { .mount = "/m", .p = blk },
					    { .mount = "/n", .p = blk } };
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		int rc;

		cr_assert_not_null(f);
		arm(n);
		rc = osp_write_metrics(f, src, 3, OSP_OM_OPENMETRICS);
		disarm();
		fclose(f);
		free(buf);
		if (!failed) {
			cr_assert_eq(rc, 0);
			break;
		}
		cr_expect_eq(rc, -ENOMEM, "allocation %ld failed, the writer returned %d", n, rc);
	}
	osp_profile_free(fs);
	osp_profile_free(blk);
}

Test(nomem, records_lost_for_want_of_a_shard_are_in_the_profile)
{
	struct osp_set *set = osp_set_new(names, 3, 1, false);
	struct osp_profile *p = osp_profile_new("fs", 1);

	arm(0); /* this thread's shard */
	osp_set_record(set, 0, 100, 0);
	disarm();
	cr_assert(failed);
	cr_expect_eq(osp_set_lost(set), 1);
	cr_assert_eq(osp_set_snapshot(set, p), 0);
	cr_expect_str_eq(osp_kv_get(&p->options, "lost_records"), "1");
	osp_profile_free(p);
	osp_set_free(set);
}
