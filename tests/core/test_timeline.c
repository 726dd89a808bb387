// SPDX-License-Identifier: MIT
/*
 * Timelines: per-interval deltas that add up to the totals, a bounded ring
 * that drops (and counts) the oldest snapshot, the background thread.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <time.h>

#include "osprof/ring.h"
#include "osprof/set.h"

static const char *const names[] = { "read", "write" };

static struct osp_profile *snap(struct osp_set *set)
{
	struct osp_profile *p = osp_profile_new("fs", osp_set_res(set));

	cr_assert_eq(osp_set_snapshot(set, p), 0);
	return p;
}

Test(timeline, deltas_sum_to_totals)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);
	struct osp_profile *p;
	uint64_t count = 0, sum = 0, b[65] = { 0 };

	/* An hour-long interval: only the explicit ticks below fire. */
	cr_assert_eq(osp_set_timeline_start(set, 3600000000000ull, 16), 0);
	for (int k = 0; k < 5; k++) {
		for (int i = 0; i <= k * 10; i++)
			osp_set_record(set, k % 2, 100 * (i + 1), 0);
		cr_assert_eq(osp_set_timeline_tick(set), 0);
	}
	osp_set_record(set, 0, 77, 0); /* in the interval in progress */
	p = snap(set);
	cr_expect_eq(p->nsnaps, 6, "5 ticks and the partial interval");
	for (size_t s = 0; s < p->nsnaps; s++)
		for (size_t i = 0; i < p->snaps[s].nops; i++) {
			const struct osp_hist *h = &p->snaps[s].ops[i].lat;

			if (strcmp(p->snaps[s].ops[i].name, "read") != 0)
				continue;
			count += h->count;
			sum += h->sum;
			for (unsigned j = 0; j < 65; j++)
				b[j] += osp_hist_bucket(h, j);
			cr_expect(osp_hist_checksum_ok(h));
		}
	cr_expect_eq(count, p->ops[0].lat.count);
	cr_expect_eq(sum, p->ops[0].lat.sum);
	for (unsigned j = 0; j < 65; j++)
		cr_expect_eq(b[j], osp_hist_bucket(&p->ops[0].lat, j), "bucket %u", j);
	cr_expect_eq(osp_profile_check(p, NULL), 0);
	/* Interval 2 (k = 1) only had writes. */
	cr_expect_eq(p->snaps[1].nops, 1);
	cr_expect_str_eq(p->snaps[1].ops[0].name, "write");
	cr_expect_eq(p->snaps[1].ops[0].lat.count, 11);
	/* Snapshot min and max stay within the interval's data. */
	cr_expect_eq(p->snaps[1].ops[0].lat.min, 100);
	cr_expect_eq(p->snaps[1].ops[0].lat.max, 1100);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(timeline, full_ring_drops_oldest_and_counts_it)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);
	struct osp_profile *p;
	struct osp_timeline_stats st;

	cr_assert_eq(osp_set_timeline_start(set, 3600000000000ull, 3), 0);
	for (int k = 1; k <= 5; k++) {
		for (int i = 0; i < k; i++)
			osp_set_record(set, 1, 1000, 0);
		osp_set_timeline_tick(set);
	}
	osp_set_timeline_stats(set, &st);
	cr_expect_eq(st.capacity, 3);
	cr_expect_eq(st.dropped, 2);
	p = snap(set);
	cr_expect_eq(p->tl_dropped, 2);
	cr_assert_eq(p->nsnaps, 3);
	/* The survivors are the last three intervals: 3, 4, 5 records. */
	for (int s = 0; s < 3; s++) {
		cr_assert_eq(p->snaps[s].nops, 1);
		cr_expect_eq(p->snaps[s].ops[0].lat.count, (uint64_t)s + 3);
	}
	cr_expect_lt(p->snaps[0].t_ns, p->snaps[2].t_ns + 1);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(timeline, reset_clears_snapshots)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);
	struct osp_profile *p;

	osp_set_timeline_start(set, 3600000000000ull, 4);
	osp_set_record(set, 0, 5, 0);
	osp_set_timeline_tick(set);
	osp_set_reset(set);
	osp_set_record(set, 0, 9, 0);
	osp_set_timeline_tick(set);
	p = snap(set);
	cr_assert_eq(p->nsnaps, 1);
	cr_expect_eq(p->snaps[0].ops[0].lat.count, 1);
	cr_expect_eq(p->snaps[0].ops[0].lat.max, 9);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(timeline, thread_ticks_on_its_own_and_stops)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);
	struct timespec ts = { 0, 120 * 1000 * 1000 };
	struct osp_profile *p;

	cr_expect_eq(osp_set_timeline_start(set, 100000, 4), -EINVAL);
	cr_expect_eq(osp_set_timeline_start(set, 10000000, 0), -EINVAL);
	cr_assert_eq(osp_set_timeline_start(set, 10000000, 1000), 0);
	osp_set_record(set, 0, 5, 0);
	nanosleep(&ts, NULL);
	p = snap(set);
	/* 120 ms at 10 ms: at least a few ticks even on a loaded machine. */
	cr_expect_geq(p->nsnaps, 3);
	cr_expect_eq(p->tl_interval_ns, 10000000);
	osp_profile_free(p);
	osp_set_timeline_stop(set);
	p = snap(set);
	cr_expect_eq(p->nsnaps, 0);
	cr_expect_eq(p->tl_interval_ns, 0);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(timeline, a_ticked_timeline_snapshots_only_when_ticked)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	struct osp_profile *p;

	cr_assert_eq(osp_set_timeline_start_ticked(set, 1000000, 100, OSP_TIMELINE_BOUND_BYTES), 0);
	osp_set_record(set, 0, 5, 0);
	/* 50 intervals pass and no thread ticks: the partial interval only. */
	nanosleep(&ts, NULL);
	p = snap(set);
	cr_expect_eq(p->nsnaps, 1);
	cr_expect_eq(p->tl_interval_ns, 1000000);
	osp_profile_free(p);
	cr_assert_eq(osp_set_timeline_tick(set), 0);
	osp_set_record(set, 1, 7, 0);
	cr_assert_eq(osp_set_timeline_tick(set), 0);
	p = snap(set);
	cr_expect_eq(p->nsnaps, 2, "two ticks, nothing since");
	osp_profile_free(p);
	/* Stopped (no thread to join) and freed cleanly. */
	osp_set_timeline_stop(set);
	cr_expect_eq(osp_set_timeline_tick(set), -EINVAL);
	osp_set_free(set);
}

Test(timeline, tick_without_timeline_is_einval)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);

	cr_expect_eq(osp_set_timeline_tick(set), -EINVAL);
	osp_set_timeline_stop(set);
	osp_set_free(set);
}

Test(timeline, an_idle_timeline_holds_timestamps_and_its_bytes_stay_flat)
{
	struct osp_set *set = osp_set_new(names, 2, 8, true);
	struct osp_timeline_stats st;
	struct osp_profile *p;
	size_t busy;

	cr_assert_eq(osp_set_timeline_start(set, 3600000000000ull, 1000), 0);
	osp_set_timeline_stats(set, &st);
	cr_expect_eq(st.bytes, 1000 * OSP_TIMELINE_SNAPSHOT_MIN_BYTES, "the ring's slots");
	osp_set_record(set, 0, 5000, 100);
	cr_assert_eq(osp_set_timeline_tick(set), 0);
	osp_set_timeline_stats(set, &st);
	busy = st.bytes;
	cr_expect_gt(busy, 1000 * OSP_TIMELINE_SNAPSHOT_MIN_BYTES);
	/* Ten times round the ring with nothing happening. */
	for (int k = 0; k < 10000; k++) {
		cr_assert_eq(osp_set_timeline_tick(set), 0);
		osp_set_timeline_stats(set, &st);
		if (k < 999)
			cr_assert_eq(st.bytes, busy, "tick %d: an idle interval holds nothing", k);
		else
			cr_assert_eq(st.bytes, 1000 * OSP_TIMELINE_SNAPSHOT_MIN_BYTES,
				     "tick %d: the busy one has gone round", k);
	}
	cr_expect_eq(st.held, 1000);
	cr_expect_eq(st.dropped, 10001 - 1000);
	p = snap(set);
	cr_assert_eq(p->nsnaps, 1000);
	cr_expect_eq(p->snaps[0].nops, 0);
	cr_expect_null(p->snaps[0].ops, "an idle copy allocates nothing either");
	osp_profile_free(p);
	osp_set_free(set);
}

Test(timeline, the_byte_bound_drops_the_oldest_and_is_never_passed)
{
	struct osp_set *set = osp_set_new(names, 2, 8, false);
	size_t slots = 64 * OSP_TIMELINE_SNAPSHOT_MIN_BYTES, bound = slots + 4096;
	struct osp_timeline_stats st;
	struct osp_profile *p;

	cr_assert_eq(osp_set_timeline_start_bounded(set, 3600000000000ull, 64, bound), 0);
	for (int k = 0; k < 200; k++) {
		/* Many buckets an interval: a few hundred bytes a snapshot. */
		for (uint64_t v = 2; v < 100000000; v = v * 5 / 4 + 1)
			osp_set_record(set, (unsigned)k % 2, v, 0);
		cr_assert_eq(osp_set_timeline_tick(set), 0);
		osp_set_timeline_stats(set, &st);
		cr_assert_leq(st.bytes, bound, "tick %d", k);
	}
	cr_expect_eq(st.bound_bytes, bound);
	cr_expect_lt(st.held, 64, "the bytes, not the slots, ran out");
	cr_expect_gt(st.held, 0);
	cr_expect_eq(st.dropped, 200 - st.held);
	p = snap(set);
	/* The newest survive, in order. */
	cr_expect_eq(p->tl_dropped, st.dropped);
	cr_expect_eq(p->nsnaps, st.held);
	for (size_t s = 1; s < p->nsnaps; s++)
		cr_expect_lt(p->snaps[s - 1].t_ns, p->snaps[s].t_ns + 1);
	osp_profile_free(p);
	osp_set_free(set);
}

Test(timeline, a_ring_that_cannot_fit_even_idle_is_e2big)
{
	struct osp_set *set = osp_set_new(names, 2, 1, false);
	struct osp_timeline_stats st;
	size_t max = osp_set_timeline_capacity_max(OSP_TIMELINE_BOUND_BYTES);

	cr_expect_eq(max, OSP_TIMELINE_BOUND_BYTES / OSP_TIMELINE_SNAPSHOT_MIN_BYTES);
	cr_assert_eq(osp_set_timeline_start(set, 1000000000, 16), 0);
	/* `timeline 1 10000000`: ten million 1 ms snapshots. */
	cr_expect_eq(osp_set_timeline_start(set, 1000000, 10000000), -E2BIG);
	cr_expect_eq(osp_set_timeline_start(set, 1000000, (unsigned)max + 1), -E2BIG);
	osp_set_timeline_stats(set, &st);
	cr_expect_eq(st.interval_ns, 1000000000, "the running timeline is left as it was");
	cr_expect_eq(st.capacity, 16);
	cr_expect_eq(osp_set_timeline_start_bounded(set, 1000000, 5, 4 * OSP_TIMELINE_SNAPSHOT_MIN_BYTES),
		     -E2BIG);
	cr_expect_eq(osp_set_timeline_start_bounded(set, 1000000, 4, 4 * OSP_TIMELINE_SNAPSHOT_MIN_BYTES), 0);
	osp_set_free(set);
}

/* Add @n values of @v_ns to op @name of @p (created when absent). */
static void add(struct osp_profile *p, const char *name, unsigned n, uint64_t v_ns)
{
	struct osp_op *o = osp_profile_find_op(p, name);

	if (!o)
		o = osp_profile_add_op(p, name, false);
	cr_assert_not_null(o);
	for (unsigned i = 0; i < n; i++)
		cr_assert_eq(osp_hist_record(&o->lat, v_ns), 0);
}

/* Two cumulative readings of a set whose ops come and go (the eBPF
 * layers'): the delta matches them by name, new ops whole. */
Test(timeline, snapshot_delta_matches_ops_by_name)
{
	struct osp_profile *prev = osp_profile_new("fuse", 1), *cur = osp_profile_new("fuse", 1);
	struct osp_snapshot s;

	add(prev, "a", 3, 1000);
	add(prev, "z", 1, 10);
	add(cur, "b", 2, 5000);  /* new since prev, listed first */
	add(cur, "a", 3, 1000);
	add(cur, "a", 2, 70000);
	add(cur, "z", 1, 10);    /* unchanged: not in the snapshot */
	cr_assert_eq(osp_snapshot_delta(&s, cur, prev, 42), 0);
	cr_expect_eq(s.t_ns, 42u);
	cr_assert_eq(s.nops, 2u);
	cr_expect_str_eq(s.ops[0].name, "b");
	cr_expect_eq(s.ops[0].lat.count, 2u);
	cr_expect_str_eq(s.ops[1].name, "a");
	cr_expect_eq(s.ops[1].lat.count, 2u);
	cr_expect_eq(osp_hist_bucket(&s.ops[1].lat, osp_bucket_index(70000, 1)), 2u);
	cr_expect_eq(osp_hist_bucket(&s.ops[1].lat, osp_bucket_index(1000, 1)), 0u);
	osp_snapshot_fini(&s);
	cr_expect_eq(s.nops, 0u);

	/* Nothing before: everything that has events. */
	cr_assert_eq(osp_snapshot_delta(&s, cur, NULL, 7), 0);
	cr_expect_eq(s.nops, 3u);
	osp_snapshot_fini(&s);
	/* Nothing moved: nothing allocated. */
	cr_assert_eq(osp_snapshot_delta(&s, cur, cur, 8), 0);
	cr_expect_eq(s.nops, 0u);
	cr_expect_null(s.ops);
	osp_profile_free(prev);
	osp_profile_free(cur);
}

/* A ring keeps the newest within its capacity, and copies them out. */
Test(timeline, ring_keeps_the_newest_and_copies_them)
{
	struct osp_profile *p = osp_profile_new("fs", 1), *cur = osp_profile_new("fs", 1);
	struct osp_ring_stats st;
	struct osp_ring *r;

	cr_expect_eq(osp_ring_new(0, 1 << 20, &r), -EINVAL);
	cr_expect_eq(osp_ring_new(100, 10 * OSP_RING_SLOT_BYTES, &r), -E2BIG);
	cr_assert_eq(osp_ring_new(3, 1 << 20, &r), 0);
	for (unsigned i = 1; i <= 5; i++) {
		struct osp_snapshot s;

		add(cur, "read", 1, 100 * i);
		cr_assert_eq(osp_snapshot_delta(&s, cur, NULL, i), 0);
		osp_ring_push(r, &s);
		cr_expect_null(s.ops, "the ring took it");
	}
	osp_ring_stats(r, &st);
	cr_expect_eq(st.held, 3u);
	cr_expect_eq(st.dropped, 2u);
	cr_assert_eq(osp_ring_copy(r, p, 1000000, 1), 0);
	cr_assert_eq(p->nsnaps, 3u);
	cr_expect_eq(p->snaps[0].t_ns, 3u, "the oldest kept");
	cr_expect_eq(p->snaps[2].t_ns, 5u);
	cr_expect_eq(p->tl_dropped, 2u);
	cr_expect_eq(p->tl_interval_ns, 1000000u);
	osp_ring_clear(r);
	osp_ring_stats(r, &st);
	cr_expect_eq(st.held, 0u);
	cr_expect_eq(st.dropped, 0u);
	osp_ring_free(r);
	osp_profile_free(p);
	osp_profile_free(cur);
}
