/* SPDX-License-Identifier: MIT */
/*
 * A timeline's store: a ring of snapshots (per-interval deltas) bounded
 * in snapshots and in bytes, the oldest dropped (and counted) while over
 * either; and the delta of two cumulative readings of a profile, which
 * is what goes into it. A profile set's timeline (set.h) keeps one; so
 * does each eBPF layer's in osprof-fs, and osprof-trace's intervals.
 *
 * Bytes are what the snapshots hold -- for each operation with events,
 * the op, its name and its non-empty buckets -- plus the ring's slots.
 * Not thread-safe: its owner locks.
 */
#ifndef OSPROF_RING_H
#define OSPROF_RING_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

struct osp_ring;

struct osp_ring_stats {
	unsigned capacity;   /* snapshots it can keep */
	unsigned held;       /* snapshots it keeps now */
	size_t bytes;        /* its slots and what its snapshots hold */
	size_t bound_bytes;  /* what bytes may not exceed */
	uint64_t dropped;    /* oldest dropped, over capacity or bound */
};

/* What a snapshot costs at the least: its slot in the ring. */
#define OSP_RING_SLOT_BYTES sizeof(struct osp_snapshot)

/* The largest capacity a ring of @bound_bytes can have (idle slots). */
size_t osp_ring_capacity_max(size_t bound_bytes);

/*
 * osp_ring_new - an empty ring of @capacity snapshots and @bound_bytes.
 * 0; -EINVAL (capacity 0); -E2BIG (capacity over osp_ring_capacity_max);
 * -ENOMEM. *@out is set only on success.
 */
int osp_ring_new(unsigned capacity, size_t bound_bytes, struct osp_ring **out);
/* NULL is accepted. */
void osp_ring_free(struct osp_ring *r);
/*
 * osp_ring_push - keep @s as the newest snapshot, taking what it holds
 * (@s is left empty); the oldest go while over capacity or bound, @s
 * itself when it alone is over the bound.
 */
void osp_ring_push(struct osp_ring *r, struct osp_snapshot *s);
/* Drop every snapshot and zero the dropped count (a reset). */
void osp_ring_clear(struct osp_ring *r);
/*
 * osp_ring_copy - deep copies of the snapshots, oldest first, as @p's
 * timeline (which it must not have) with interval @interval_ns and the
 * ring's dropped count; with room in p->snaps for @extra more, which the
 * caller may append (an interval in progress). 0, or -ENOMEM with @p
 * left without a timeline.
 */
int osp_ring_copy(const struct osp_ring *r, struct osp_profile *p,
		  uint64_t interval_ns, size_t extra);
void osp_ring_stats(const struct osp_ring *r, struct osp_ring_stats *out);

/*
 * osp_snapshot_delta - what happened between two cumulative readings of
 * one profile set, @prev (NULL: nothing before) then @cur, as a snapshot
 * at @t_ns: the ops of @cur whose count moved, matched by name, their
 * latency (and CPU) histograms osp_hist_delta's. Allocates nothing when
 * nothing moved. 0; -EINVAL (resolutions differ); -ENOMEM; on error @s
 * is empty.
 */
int osp_snapshot_delta(struct osp_snapshot *s, const struct osp_profile *cur,
		       const struct osp_profile *prev, uint64_t t_ns);
/* Free what @s holds and empty it. */
void osp_snapshot_fini(struct osp_snapshot *s);
/* What @s holds beyond its slot, in bytes. */
size_t osp_snapshot_bytes(const struct osp_snapshot *s);

#endif /* OSPROF_RING_H */
