// SPDX-License-Identifier: MIT
/*
 * Profile sets: no lost update from many threads, consistent reads while
 * recording, shards surviving thread exit, reset, CPU histograms.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "osprof/set.h"

static const char *const names[] = { "read", "write", "getattr" };

struct worker {
	struct osp_set *set;
	unsigned id;
	unsigned long n;
};

static void *record_many(void *arg)
{
	struct worker *w = arg;

	for (unsigned long i = 0; i < w->n; i++)
		osp_set_record(w->set, i % 3, 100 + (i % 5000) * w->id, 7);
	return NULL;
}

static struct osp_profile *read_all(struct osp_set *set)
{
	struct osp_profile *p = osp_profile_new("fs", osp_set_res(set));

	cr_assert_not_null(p);
	cr_assert_eq(osp_set_snapshot(set, p), 0);
	return p;
}

Test(set, eight_threads_times_a_million_merge_exactly)
{
	struct osp_set *set = osp_set_new(names, 3, 1, false);
	pthread_t th[8];
	struct worker w[8];
	struct osp_profile *p;
	uint64_t total = 0;

	cr_assert_not_null(set);
	for (unsigned i = 0; i < 8; i++) {
		w[i] = (struct worker){ set, i + 1, 1000000 };
		pthread_create(&th[i], NULL, record_many, &w[i]);
	}
	for (unsigned i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	p = read_all(set);
	for (size_t i = 0; i < p->nops; i++) {
		cr_expect(osp_hist_checksum_ok(&p->ops[i].lat), "%s", p->ops[i].name);
		total += p->ops[i].lat.count;
	}
	cr_expect_eq(total, 8000000ull);
	cr_expect_eq(p->ops[0].lat.min, 100);
	cr_expect_eq(osp_set_lost(set), 0);
	osp_profile_free(p);
	osp_set_free(set);
}

struct reader_arg {
	struct osp_set *set;
	atomic_bool stop;
	unsigned reads, bad, regress;
};

static void *read_while_recording(void *arg)
{
	struct reader_arg *r = arg;
	uint64_t last = 0;

	while (!atomic_load(&r->stop)) {
		struct osp_profile *p = osp_profile_new("fs", 1);
		uint64_t n = 0;

		osp_set_snapshot(r->set, p);
		for (size_t i = 0; i < p->nops; i++) {
			if (!osp_hist_checksum_ok(&p->ops[i].lat))
				r->bad++;
			n += p->ops[i].lat.count;
		}
		if (n < last)
			r->regress++;
		last = n;
		r->reads++;
		osp_profile_free(p);
	}
	return NULL;
}

Test(set, reader_sees_consistent_monotonic_totals_while_recording)
{
	struct osp_set *set = osp_set_new(names, 3, 1, false);
	struct reader_arg r = { .set = set };
	pthread_t th[3], rd;
	struct worker w[3];

	pthread_create(&rd, NULL, read_while_recording, &r);
	for (unsigned i = 0; i < 3; i++) {
		w[i] = (struct worker){ set, i + 1, 300000 };
		pthread_create(&th[i], NULL, record_many, &w[i]);
	}
	for (unsigned i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	atomic_store(&r.stop, true);
	pthread_join(rd, NULL);
	cr_expect_gt(r.reads, 0);
	cr_expect_eq(r.bad, 0, "%u of %u reads saw buckets not adding up", r.bad, r.reads);
	cr_expect_eq(r.regress, 0);
	osp_set_free(set);
}

static void *record_once(void *arg)
{
	osp_set_record(arg, 1, 2048, 0);
	return NULL;
}

Test(set, counts_survive_thread_exit_and_shards_are_reused)
{
	struct osp_set *set = osp_set_new(names, 3, 1, false);
	struct osp_profile *p;

	for (int i = 0; i < 50; i++) {
		pthread_t th;

		pthread_create(&th, NULL, record_once, set);
		pthread_join(th, NULL);
	}
	p = osp_profile_new("fs", 1);
	osp_set_snapshot(set, p);
	cr_expect_eq(p->ops[1].lat.count, 50);
	cr_expect_eq(osp_hist_bucket(&p->ops[1].lat, 11), 50);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(set, reset_zeroes_and_recording_continues)
{
	struct osp_set *set = osp_set_new(names, 3, 2, true);
	struct osp_profile *p;

	osp_set_record(set, 0, 1000, 400);
	osp_set_record(set, 2, 10, 5);
	osp_set_reset(set);
	p = osp_profile_new("fs", 2);
	osp_set_snapshot(set, p);
	cr_expect_eq(p->ops[0].lat.count, 0);
	cr_expect_eq(p->ops[2].lat.count, 0);
	cr_expect_eq(p->ops[0].cpu.count, 0);
	osp_profile_free(p);

	osp_set_record(set, 0, 3000, 1000);
	p = osp_profile_new("fs", 2);
	osp_set_snapshot(set, p);
	cr_expect_eq(p->ops[0].lat.count, 1);
	cr_expect_eq(p->ops[0].lat.min, 3000);
	cr_expect_eq(p->ops[0].lat.sum, 3000);
	cr_expect(p->ops[0].has_cpu);
	cr_expect_eq(p->ops[0].cpu.sum, 1000);
	cr_expect_eq(osp_hist_bucket(&p->ops[0].cpu, osp_bucket_index(1000, 2)), 1);
	cr_expect_eq(p->ops[2].lat.count, 0);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(set, rejects_bad_arguments_and_snapshot_mismatch)
{
	struct osp_set *set;
	struct osp_profile *p;

	cr_expect_null(osp_set_new(names, 0, 1, false));
	cr_expect_null(osp_set_new(names, 3, 5, false));
	set = osp_set_new(names, 3, 4, false);
	cr_assert_not_null(set);
	cr_expect_str_eq(osp_set_op_name(set, 2), "getattr");
	cr_expect_null(osp_set_op_name(set, 3));
	p = osp_profile_new("fs", 1);
	cr_expect_eq(osp_set_snapshot(set, p), -EINVAL);
	osp_profile_free(p);
	cr_expect(osp_set_enabled(set));
	osp_set_enable(set, false);
	cr_expect_not(osp_set_enabled(set));
	osp_set_free(set);
}
