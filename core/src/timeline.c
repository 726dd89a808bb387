// SPDX-License-Identifier: MIT
/*
 * The timeline of a profile set: a thread wakes every interval, merges the
 * shards and stores the difference from the previous merge as a snapshot
 * in a bounded ring. Differences of cumulative counters lose no event
 * between snapshots (no copy-then-zero). When the ring is full the oldest
 * snapshot is dropped and counted.
 *
 * A snapshot's min and max are exact when the interval moved the
 * cumulative min or max; otherwise they are the tightest integers inside
 * the interval's lowest and highest non-empty buckets.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "osprof/clock.h"
#include "set_impl.h"

struct osp_timeline {
	uint64_t interval_ns;
	unsigned cap;
	pthread_t thread;
	pthread_cond_t cv;      /* signals stop; waits use CLOCK_MONOTONIC */
	bool stop;              /* set->tl_mu */
	struct osp_op *prev;    /* cumulative ops at the last tick */
	struct osp_snapshot *ring;
	unsigned head;          /* index of the oldest snapshot */
	unsigned n;             /* snapshots held */
	uint64_t dropped;
};

static void snap_free(struct osp_snapshot *s)
{
	for (size_t i = 0; i < s->nops; i++)
		osp_op_fini(&s->ops[i]);
	free(s->ops);
	memset(s, 0, sizeof(*s));
}

static void hist_delta_bounds(struct osp_hist *d, const struct osp_hist *cur,
			      const struct osp_hist *prev)
{
	unsigned lo, hi;

	if (!osp_hist_range(d, &lo, &hi))
		return;
	if (prev->count == 0 || cur->min < prev->min) {
		d->min = cur->min;
	} else {
		double b = floor(osp_bucket_lower_ns(lo, d->res)) + 1.0;

		d->min = lo == 0 ? 0 : (uint64_t)b;
		if (d->min < cur->min)
			d->min = cur->min;
	}
	if (cur->max > prev->max) {
		d->max = cur->max;
	} else {
		double b = floor(osp_bucket_upper_ns(hi, d->res));

		d->max = b >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)b;
		if (d->max > cur->max)
			d->max = cur->max;
	}
}

static int hist_delta(struct osp_hist *d, const struct osp_hist *cur,
		      const struct osp_hist *prev)
{
	uint64_t c[OSP_HIST_NBUCKETS_MAX], p[OSP_HIST_NBUCKETS_MAX];
	int err = osp_hist_init(d, cur->res);

	if (err)
		return err;
	osp_hist_to_dense(cur, c);
	osp_hist_to_dense(prev, p);
	for (unsigned i = 0; i < OSP_HIST_NBUCKETS(cur->res); i++)
		c[i] -= p[i];
	err = osp_hist_from_dense(d, c);
	if (err)
		return err;
	d->count = cur->count - prev->count;
	d->sum = cur->sum - prev->sum;
	hist_delta_bounds(d, cur, prev);
	return 0;
}

/* Build the snapshot of @now minus @prev (non-empty ops only). */
static int snap_make(const struct osp_set *set, struct osp_snapshot *s,
		     const struct osp_op *now, const struct osp_op *prev,
		     uint64_t t_ns)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = t_ns;
	s->ops = calloc(set->nops, sizeof(*s->ops));
	if (!s->ops)
		return -ENOMEM;
	for (unsigned i = 0; i < set->nops; i++) {
		struct osp_op *o;

		if (now[i].lat.count == prev[i].lat.count)
			continue;
		o = &s->ops[s->nops];
		memset(o, 0, sizeof(*o));
		o->name = strdup(now[i].name);
		if (!o->name || hist_delta(&o->lat, &now[i].lat, &prev[i].lat) ||
		    (set->cpu && hist_delta(&o->cpu, &now[i].cpu, &prev[i].cpu))) {
			osp_op_fini(o);
			snap_free(s);
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
	struct osp_op *now = osp_set_ops_new(set);
	struct osp_snapshot s;
	uint64_t t = rel_now(set);
	int err;

	if (!now)
		return -ENOMEM;
	err = osp_set_read_ops(set, now);
	if (!err)
		err = snap_make(set, &s, now, tl->prev, t);
	if (!err) {
		struct osp_op *old = tl->prev;

		if (tl->n == tl->cap) {
			snap_free(&tl->ring[tl->head]);
			tl->head = (tl->head + 1) % tl->cap;
			tl->n--;
			tl->dropped++;
		}
		tl->ring[(tl->head + tl->n) % tl->cap] = s;
		tl->n++;
		/* The cumulative ops just read become the next tick's base. */
		tl->prev = now;
		now = old;
	}
	osp_set_ops_free(set, now);
	return err;
}

static void *tl_thread(void *arg)
{
	struct osp_set *set = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&set->tl_mu);
	while (!set->tl->stop) {
		uint64_t ns = (uint64_t)next.tv_nsec + set->tl->interval_ns;

		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		/* Sleep to an absolute deadline: no drift from tick costs. */
		while (!set->tl->stop &&
		       pthread_cond_timedwait(&set->tl->cv, &set->tl_mu, &next) != ETIMEDOUT)
			;
		if (set->tl->stop)
			break;
		tick_locked(set);
	}
	pthread_mutex_unlock(&set->tl_mu);
	return NULL;
}

void osp_tl_free_locked(struct osp_set *set)
{
	struct osp_timeline *tl = set->tl;

	if (!tl)
		return;
	for (unsigned i = 0; i < tl->n; i++)
		snap_free(&tl->ring[(tl->head + i) % tl->cap]);
	free(tl->ring);
	osp_set_ops_free(set, tl->prev);
	pthread_cond_destroy(&tl->cv);
	free(tl);
	set->tl = NULL;
}

void osp_tl_reset_locked(struct osp_set *set)
{
	struct osp_timeline *tl = set->tl;

	for (unsigned i = 0; i < tl->n; i++)
		snap_free(&tl->ring[(tl->head + i) % tl->cap]);
	tl->head = tl->n = 0;
	tl->dropped = 0;
	for (unsigned i = 0; i < set->nops; i++) {
		osp_hist_clear(&tl->prev[i].lat);
		if (set->cpu)
			osp_hist_clear(&tl->prev[i].cpu);
	}
}

static int ops_copy_n(struct osp_op **dst, const struct osp_op *src, size_t n)
{
	*dst = calloc(n ? n : 1, sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (osp_op_copy(&(*dst)[i], &src[i])) {
			while (i--)
				osp_op_fini(&(*dst)[i]);
			free(*dst);
			*dst = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Copy the ring into @p, plus the interval in progress (deltas from the
 * last tick to @now) when it is not empty, so the snapshots always add up
 * to the totals taken at the same moment, unless some were dropped.
 */
int osp_tl_copy_locked(struct osp_set *set, struct osp_profile *p,
		       const struct osp_op *now)
{
	struct osp_timeline *tl = set->tl;
	struct osp_snapshot partial;
	size_t n = tl->n;
	int err;

	err = snap_make(set, &partial, now, tl->prev, rel_now(set));
	if (err)
		return err;
	p->snaps = calloc(n + 1, sizeof(*p->snaps));
	if (!p->snaps) {
		snap_free(&partial);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct osp_snapshot *s = &tl->ring[(tl->head + i) % tl->cap];

		p->snaps[i].t_ns = s->t_ns;
		err = ops_copy_n(&p->snaps[i].ops, s->ops, s->nops);
		if (err) {
			p->nsnaps = i;
			snap_free(&partial);
			return err;
		}
		p->snaps[i].nops = s->nops;
	}
	p->nsnaps = n;
	if (partial.nops)
		p->snaps[p->nsnaps++] = partial;
	else
		snap_free(&partial);
	p->tl_interval_ns = tl->interval_ns;
	p->tl_dropped = tl->dropped;
	return 0;
}

void osp_set_timeline_stop(struct osp_set *set)
{
	pthread_t th;

	pthread_mutex_lock(&set->tl_mu);
	if (!set->tl) {
		pthread_mutex_unlock(&set->tl_mu);
		return;
	}
	set->tl->stop = true;
	pthread_cond_signal(&set->tl->cv);
	th = set->tl->thread;
	pthread_mutex_unlock(&set->tl_mu);
	pthread_join(th, NULL);
	pthread_mutex_lock(&set->tl_mu);
	osp_tl_free_locked(set);
	pthread_mutex_unlock(&set->tl_mu);
}

int osp_set_timeline_start(struct osp_set *set, uint64_t interval_ns,
			   unsigned capacity)
{
	struct osp_timeline *tl;
	pthread_condattr_t ca;
	int err;

	if (interval_ns < 1000000 || capacity == 0)
		return -EINVAL;
	tl = calloc(1, sizeof(*tl));
	if (!tl)
		return -ENOMEM;
	tl->interval_ns = interval_ns;
	tl->cap = capacity;
	tl->ring = calloc(capacity, sizeof(*tl->ring));
	tl->prev = osp_set_ops_new(set);
	if (!tl->ring || !tl->prev) {
		free(tl->ring);
		osp_set_ops_free(set, tl->prev);
		free(tl);
		return -ENOMEM;
	}
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tl->cv, &ca);
	pthread_condattr_destroy(&ca);

	osp_set_timeline_stop(set);
	pthread_mutex_lock(&set->tl_mu);
	/*
	 * prev starts empty, so the first snapshot holds everything since the
	 * set's start (or last reset) and the snapshots add up to the totals.
	 */
	set->tl = tl;
	err = -pthread_create(&tl->thread, NULL, tl_thread, set);
	if (err)
		osp_tl_free_locked(set);
	pthread_mutex_unlock(&set->tl_mu);
	return err;
}

void osp_set_timeline_info(struct osp_set *set, uint64_t *interval_ns,
			   unsigned *capacity, uint64_t *dropped)
{
	pthread_mutex_lock(&set->tl_mu);
	*interval_ns = set->tl ? set->tl->interval_ns : 0;
	*capacity = set->tl ? set->tl->cap : 0;
	*dropped = set->tl ? set->tl->dropped : 0;
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
