// SPDX-License-Identifier: MIT
/*
 * The eBPF layers' timeline and its thread (ofs_bpf.h's
 * ofs_bpf_timeline_start and _stop, which also start and stop the
 * daemon's own lower layer's, a core timeline of its own).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "osprof/ring.h"
#include "osprof/set.h"
#include "obp.h"
#include "ofs_bpf.h"
#include "ofs_bpf_impl.h"

/*
 * The eBPF layers' timeline runs with the fs layer's (same interval and
 * capacity, each layer bounded in bytes as the fs layer is): a thread
 * reads every layer each interval and keeps the difference from its last
 * reading. A read that fails is counted (missed); its events land in the
 * next snapshot.
 */
struct ofs_bpf_tl {
	pthread_mutex_t mu;      /* everything below; the thread ticks under it */
	pthread_cond_t cv;       /* signals stop; CLOCK_MONOTONIC */
	pthread_t thread;
	bool running, stop;
	uint64_t interval_ns;
	uint64_t missed;
	struct osp_profile *prev[OBP_L__COUNT]; /* last reading, NULL: none */
	struct osp_ring *ring[OBP_L__COUNT];
};

int ofs_bpf_tl_new(struct ofs *fs)
{
	struct ofs_bpf_tl *tl = calloc(1, sizeof(*tl));
	pthread_condattr_t ca;

	if (!tl) {
		fprintf(stderr, "osprof-fs: eBPF layers: out of memory\n");
		return -ENOMEM;
	}
	pthread_mutex_init(&tl->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tl->cv, &ca);
	pthread_condattr_destroy(&ca);
	fs->bpf_tl = tl;
	return 0;
}

void ofs_bpf_tl_free(struct ofs *fs)
{
	if (fs->bpf_tl) {
		pthread_mutex_destroy(&fs->bpf_tl->mu);
		pthread_cond_destroy(&fs->bpf_tl->cv);
		free(fs->bpf_tl);
		fs->bpf_tl = NULL;
	}
}

/* Layer @l's snapshot since its last reading, now; 0 or -errno. */
static int tl_delta(struct ofs *fs, enum obp_layer l, struct osp_snapshot *s,
		    struct osp_profile **cur)
{
	int err = obp_profile(fs->bpf, l, cur);

	if (err)
		return err;
	err = osp_snapshot_delta(s, *cur, fs->bpf_tl->prev[l], (*cur)->elapsed_ns);
	if (err) {
		osp_profile_free(*cur);
		*cur = NULL;
	}
	return err;
}

static void tl_tick_locked(struct ofs *fs)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;

	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		struct osp_profile *cur;
		struct osp_snapshot s;

		if (!tl->ring[l])
			continue;
		if (tl_delta(fs, l, &s, &cur) != 0) {
			tl->missed++;
			continue;
		}
		osp_ring_push(tl->ring[l], &s);
		osp_profile_free(tl->prev[l]);
		tl->prev[l] = cur;
	}
}

static void *tl_thread(void *arg)
{
	struct ofs *fs = arg;
	struct ofs_bpf_tl *tl = fs->bpf_tl;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&tl->mu);
	while (!tl->stop) {
		uint64_t ns = (uint64_t)next.tv_nsec + tl->interval_ns;

		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		/* An absolute deadline: no drift from the ticks' cost. */
		while (!tl->stop && pthread_cond_timedwait(&tl->cv, &tl->mu, &next) != ETIMEDOUT)
			;
		if (!tl->stop)
			tl_tick_locked(fs);
	}
	pthread_mutex_unlock(&tl->mu);
	return NULL;
}

/* Drop every snapshot and reading (the rings stay). Under tl->mu. */
static void tl_clear_locked(struct ofs_bpf_tl *tl)
{
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		if (tl->ring[l])
			osp_ring_clear(tl->ring[l]);
		osp_profile_free(tl->prev[l]);
		tl->prev[l] = NULL;
	}
	tl->missed = 0;
}

/* Free the rings: the timeline is off. Under tl->mu, its thread gone. */
static void tl_drop_locked(struct ofs_bpf_tl *tl)
{
	tl_clear_locked(tl);
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		osp_ring_free(tl->ring[l]);
		tl->ring[l] = NULL;
	}
}

void ofs_bpf_timeline_stop(struct ofs *fs)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;

	if (fs->lower)
		osp_set_timeline_stop(fs->lower);
	if (!tl)
		return;
	pthread_mutex_lock(&tl->mu);
	if (!tl->running) {
		pthread_mutex_unlock(&tl->mu);
		return;
	}
	tl->stop = true;
	pthread_cond_signal(&tl->cv);
	pthread_mutex_unlock(&tl->mu);
	pthread_join(tl->thread, NULL);
	pthread_mutex_lock(&tl->mu);
	tl->running = false;
	tl_drop_locked(tl);
	pthread_mutex_unlock(&tl->mu);
}

int ofs_bpf_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;
	int err = 0;

	if (fs->lower) {
		err = osp_set_timeline_start(fs->lower, interval_ns, capacity);
		if (err)
			return err;
	}
	if (!tl)
		return 0;
	ofs_bpf_timeline_stop(fs);
	pthread_mutex_lock(&tl->mu);
	for (unsigned l = 0; !err && l < OBP_L__COUNT; l++)
		if (obp_layers(fs->bpf) & OBP_LAYER_BIT(l))
			err = osp_ring_new(capacity, OSP_TIMELINE_BOUND_BYTES, &tl->ring[l]);
	tl->interval_ns = interval_ns;
	tl->stop = false;
	err = err ? err : -pthread_create(&tl->thread, NULL, tl_thread, fs);
	if (err)
		tl_drop_locked(tl);
	tl->running = !err;
	pthread_mutex_unlock(&tl->mu);
	return err;
}

int ofs_bpf_tl_copy(struct ofs *fs, enum obp_layer l, struct osp_profile *p)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;
	struct osp_profile *cur = NULL;
	struct osp_snapshot partial;
	int err = 0;

	pthread_mutex_lock(&tl->mu);
	if (!tl->running || !tl->ring[l])
		goto out;
	err = tl_delta(fs, l, &partial, &cur);
	if (err)
		goto out;
	/* The partial interval is against this later reading: use its
	 * totals too, so the two agree. */
	err = osp_ring_copy(tl->ring[l], cur, tl->interval_ns, 1);
	if (err) {
		osp_snapshot_fini(&partial);
		goto out;
	}
	if (partial.nops)
		cur->snaps[cur->nsnaps++] = partial;
	else
		osp_snapshot_fini(&partial);
	/* @p takes @cur's ops and timeline. */
	{
		struct osp_profile t = *p;

		*p = *cur;
		*cur = t;
	}
out:
	pthread_mutex_unlock(&tl->mu);
	osp_profile_free(cur);
	return err;
}

void ofs_bpf_tl_reset(struct ofs *fs)
{
	if (!fs->bpf_tl) { /* none yet: the maps alone */
		obp_reset(fs->bpf);
		return;
	}
	pthread_mutex_lock(&fs->bpf_tl->mu);
	obp_reset(fs->bpf);
	tl_clear_locked(fs->bpf_tl);
	pthread_mutex_unlock(&fs->bpf_tl->mu);
}
