// SPDX-License-Identifier: MIT
/*
 * The timeline of a profile set: a thread wakes every interval, merges the
 * shards and stores the difference from the previous merge as a snapshot
 * in a ring. Differences of cumulative counters lose no event between
 * snapshots (no copy-then-zero).
 *
 * Its memory is bounded in bytes, not only in snapshots: the ring of
 * @capacity slots (allocated when the timeline starts) and what its
 * snapshots hold -- for each operation that had events, the op, its name
 * and its non-empty buckets -- are accounted, and the oldest snapshots
 * are dropped (and counted) while the total is over the bound. An
 * interval without events is a slot with its timestamp and nothing else:
 * the tick reads the shards into arrays kept from tick to tick, so it
 * allocates nothing. A tick that cannot allocate is counted as missed;
 * its events are in the next snapshot, which then spans two intervals.
 *
 * A snapshot's histograms are osp_hist_delta's; the ring and its bounds
 * are osprof/ring.h's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "osprof/clock.h"
#include "osprof/ring.h"
#include "set_impl.h"

struct osp_timeline {
	uint64_t interval_ns;
	pthread_t thread;
	bool threaded;          /* its own thread ticks it (else the caller) */
	pthread_cond_t cv;      /* signals stop; waits use CLOCK_MONOTONIC */
	bool stop;              /* set->tl_mu */
	struct osp_op *prev;    /* cumulative ops at the last tick */
	struct osp_op *now;     /* the next tick's read; kept, so as not to
				 * allocate every interval */
	uint64_t *scratch;      /* osp_set_scratch_words() words for the read */
	struct osp_ring *ring;  /* the snapshots, bounded (osprof/ring.h) */
	uint64_t missed;        /* ticks that could not allocate */
};

size_t osp_set_timeline_capacity_max(size_t bound_bytes)
{
	return osp_ring_capacity_max(bound_bytes);
}

/*
 * Build the snapshot of @now minus @prev: only the ops with events, and
 * no allocation at all when there were none.
 */
static int snap_make(const struct osp_set *set, struct osp_snapshot *s,
		     const struct osp_op *now, const struct osp_op *prev,
		     uint64_t t_ns)
{
	size_t busy = 0;

	memset(s, 0, sizeof(*s));
	s->t_ns = t_ns;
	for (unsigned i = 0; i < set->nops; i++)
		busy += now[i].lat.count != prev[i].lat.count;
	if (!busy)
		return 0;
	s->ops = calloc(busy, sizeof(*s->ops));
	if (!s->ops)
		return -ENOMEM;
	for (unsigned i = 0; i < set->nops; i++) {
		struct osp_op *o;

		if (now[i].lat.count == prev[i].lat.count)
			continue;
		o = &s->ops[s->nops];
		o->name = strdup(now[i].name);
		if (!o->name || osp_hist_delta(&o->lat, &now[i].lat, &prev[i].lat) ||
		    (set->cpu && osp_hist_delta(&o->cpu, &now[i].cpu, &prev[i].cpu))) {
			osp_op_fini(o);
			osp_snapshot_fini(s);
			return -ENOMEM;
		}
		o->has_cpu = set->cpu;
		s->nops++;
	}
	return 0;
}

static uint64_t rel_now(const struct osp_set *set)
{
	return osp_clock_mono_ns() -
	       __atomic_load_n(&set->start_mono_ns, __ATOMIC_RELAXED);
}

/* One tick with set->tl_mu held. */
static int tick_locked(struct osp_set *set)
{
	struct osp_timeline *tl = set->tl;
	struct osp_snapshot s;
	int err = osp_set_read_ops_scratch(set, tl->now, tl->scratch);

	if (!err)
		err = snap_make(set, &s, tl->now, tl->prev, rel_now(set));
	if (err) {
		/* prev stays: the next snapshot holds this interval too. */
		tl->missed++;
		return err;
	}
	osp_ring_push(tl->ring, &s);
	/* The cumulative ops just read become the next tick's base. */
	{
		struct osp_op *old = tl->prev;

		tl->prev = tl->now;
		tl->now = old;
	}
	return 0;
}

void osp_tick_every(pthread_mutex_t *mu, pthread_cond_t *cv, const bool *stop,
		    uint64_t interval_ns, void (*tick)(void *ctx), void *ctx)
{
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!*stop) {
		uint64_t ns = (uint64_t)next.tv_nsec + interval_ns;

		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		while (!*stop && pthread_cond_timedwait(cv, mu, &next) != ETIMEDOUT)
			;
		if (!*stop)
			tick(ctx);
	}
}

static void tick_cb(void *set)
{
	tick_locked(set); /* a failure is counted in tl->missed */
}

static void *tl_thread(void *arg)
{
	struct osp_set *set = arg;

	pthread_mutex_lock(&set->tl_mu);
	osp_tick_every(&set->tl_mu, &set->tl->cv, &set->tl->stop, set->tl->interval_ns,
		       tick_cb, set);
	pthread_mutex_unlock(&set->tl_mu);
	return NULL;
}

static void tl_free(const struct osp_set *set, struct osp_timeline *tl)
{
	osp_ring_free(tl->ring);
	free(tl->scratch);
	osp_set_ops_free(set, tl->prev);
	osp_set_ops_free(set, tl->now);
	pthread_cond_destroy(&tl->cv);
	free(tl);
}

void osp_tl_free_locked(struct osp_set *set)
{
	if (!set->tl)
		return;
	tl_free(set, set->tl);
	set->tl = NULL;
}

void osp_tl_reset_locked(struct osp_set *set)
{
	struct osp_timeline *tl = set->tl;

	osp_ring_clear(tl->ring);
	tl->missed = 0;
	for (unsigned i = 0; i < set->nops; i++) {
		osp_hist_clear(&tl->prev[i].lat);
		if (set->cpu)
			osp_hist_clear(&tl->prev[i].cpu);
	}
}

/*
 * Copy the ring into @p, plus the interval in progress (deltas from the
 * last tick to @now) when it is not empty, so the snapshots always add up
 * to the totals taken at the same moment, unless some were dropped. On
 * error @p has no timeline.
 */
int osp_tl_copy_locked(struct osp_set *set, struct osp_profile *p,
		       const struct osp_op *now)
{
	struct osp_timeline *tl = set->tl;
	struct osp_snapshot partial;
	int err;

	err = snap_make(set, &partial, now, tl->prev, rel_now(set));
	if (err)
		return err;
	err = osp_ring_copy(tl->ring, p, tl->interval_ns, 1);
	if (err) {
		osp_snapshot_fini(&partial);
		return err;
	}
	if (partial.nops)
		p->snaps[p->nsnaps++] = partial;
	else
		osp_snapshot_fini(&partial);
	return 0;
}

void osp_set_timeline_stop(struct osp_set *set)
{
	pthread_t th;
	bool threaded;

	pthread_mutex_lock(&set->tl_mu);
	if (!set->tl) {
		pthread_mutex_unlock(&set->tl_mu);
		return;
	}
	set->tl->stop = true;
	pthread_cond_signal(&set->tl->cv);
	th = set->tl->thread;
	threaded = set->tl->threaded;
	pthread_mutex_unlock(&set->tl_mu);
	if (threaded)
		pthread_join(th, NULL);
	pthread_mutex_lock(&set->tl_mu);
	osp_tl_free_locked(set);
	pthread_mutex_unlock(&set->tl_mu);
}

/* A timeline, not started: 0, -EINVAL, -E2BIG or -ENOMEM. */
static int tl_new(const struct osp_set *set, uint64_t interval_ns,
		  unsigned capacity, size_t bound_bytes, struct osp_timeline **out)
{
	struct osp_timeline *tl;
	pthread_condattr_t ca;
	int err;

	if (interval_ns < 1000000)
		return -EINVAL;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	err = osp_ring_new(capacity, bound_bytes, &tl->ring);
	if (err) {
		free(tl);
		return err;
	}
	tl->interval_ns = interval_ns;
	tl->scratch = malloc(osp_set_scratch_words(set) * sizeof(uint64_t));
	/* prev starts empty, so the first snapshot holds everything since the
	 * set's start (or last reset) and the snapshots add up to the totals. */
	tl->prev = osp_set_ops_new(set);
	tl->now = osp_set_ops_new(set);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tl->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (!tl->scratch || !tl->prev || !tl->now) {
		tl_free(set, tl);
		return -ENOMEM;
	}
	*out = tl;
	return 0;
}

/* Replace the timeline by a new one, ticked by its own thread or not. */
static int tl_start(struct osp_set *set, uint64_t interval_ns, unsigned capacity,
		    size_t bound_bytes, bool threaded)
{
	struct osp_timeline *tl;
	int err = tl_new(set, interval_ns, capacity, bound_bytes, &tl);

	if (err)
		return err;
	osp_set_timeline_stop(set);
	pthread_mutex_lock(&set->tl_mu);
	set->tl = tl;
	tl->threaded = threaded;
	err = threaded ? -pthread_create(&tl->thread, NULL, tl_thread, set) : 0;
	if (err)
		osp_tl_free_locked(set);
	pthread_mutex_unlock(&set->tl_mu);
	return err;
}

int osp_set_timeline_start_bounded(struct osp_set *set, uint64_t interval_ns,
				   unsigned capacity, size_t bound_bytes)
{
	return tl_start(set, interval_ns, capacity, bound_bytes, true);
}

int osp_set_timeline_start_ticked(struct osp_set *set, uint64_t interval_ns,
				  unsigned capacity, size_t bound_bytes)
{
	return tl_start(set, interval_ns, capacity, bound_bytes, false);
}

int osp_set_timeline_start(struct osp_set *set, uint64_t interval_ns,
			   unsigned capacity)
{
	return osp_set_timeline_start_bounded(set, interval_ns, capacity,
					      OSP_TIMELINE_BOUND_BYTES);
}

void osp_set_timeline_stats(struct osp_set *set, struct osp_timeline_stats *out)
{
	struct osp_timeline *tl;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&set->tl_mu);
	tl = set->tl;
	if (tl) {
		struct osp_ring_stats rs;

		osp_ring_stats(tl->ring, &rs);
		out->interval_ns = tl->interval_ns;
		out->capacity = rs.capacity;
		out->held = rs.held;
		out->bytes = rs.bytes;
		out->bound_bytes = rs.bound_bytes;
		out->dropped = rs.dropped;
		out->missed = tl->missed;
	}
	pthread_mutex_unlock(&set->tl_mu);
}

int osp_set_timeline_tick(struct osp_set *set)
{
	int err = -EINVAL;

	pthread_mutex_lock(&set->tl_mu);
	if (set->tl)
		err = tick_locked(set);
	pthread_mutex_unlock(&set->tl_mu);
	return err;
}
