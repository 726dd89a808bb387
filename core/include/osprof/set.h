/* SPDX-License-Identifier: MIT */
/*
 * A profile set: a fixed list of named operations, each with a latency
 * histogram and optionally a CPU-time histogram, recorded concurrently.
 *
 * Recording takes no lock and does no atomic read-modify-write: every
 * thread owns a shard (found through a pthread key) and updates it with
 * plain relaxed atomic stores under a per-operation sequence counter, so a
 * reader merging the shards gets a consistent copy of each histogram and
 * never blocks a recorder. A thread's first record attaches its shard (one
 * allocation, one mutex); a shard whose thread exited is adopted by the
 * next new thread, so counts survive thread churn.
 *
 * Reset is an epoch bump: a reader ignores shards of an older epoch and a
 * recorder zeroes its own shard on its next record.
 *
 * The optional timeline takes a snapshot of the per-interval deltas every
 * interval into a ring bounded in snapshots and in bytes (oldest dropped
 * and counted when over either).
 */
#ifndef OSPROF_SET_H
#define OSPROF_SET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

struct osp_set;

/*
 * osp_set_new - a set of @nops operations named @names (copied) at
 * resolution @res, with CPU-time histograms when @cpu.
 * NULL on bad arguments or -ENOMEM (errno set).
 */
struct osp_set *osp_set_new(const char *const *names, unsigned nops,
			    unsigned res, bool cpu);
/* Stop the timeline and free the set; no thread may record any more. */
void osp_set_free(struct osp_set *set);

unsigned osp_set_nops(const struct osp_set *set);
unsigned osp_set_res(const struct osp_set *set);
bool osp_set_has_cpu(const struct osp_set *set);
const char *osp_set_op_name(const struct osp_set *set, unsigned op);

/* Recording switch, read by callers before they take timestamps. */
bool osp_set_enabled(const struct osp_set *set);
void osp_set_enable(struct osp_set *set, bool on);

/*
 * osp_set_record - add one request of operation @op (< nops) that took
 * @lat_ns, and @cpu_ns of CPU time when the set keeps CPU histograms
 * (ignored otherwise). Thread-safe, lock-free after a thread's first call.
 */
void osp_set_record(struct osp_set *set, unsigned op, uint64_t lat_ns,
		    uint64_t cpu_ns);

/* Records lost because a shard could not be allocated. */
uint64_t osp_set_lost(const struct osp_set *set);

/*
 * osp_set_read_ops - merge every shard into @ops, an array of nops
 * operations initialised by the caller (osp_op_init at the set's
 * resolution, names as the set's); their previous contents are replaced.
 * Thread-safe against recorders and other readers. Returns 0, or -ENOMEM
 * with every op of @ops empty (never a partial merge that looks whole).
 */
int osp_set_read_ops(struct osp_set *set, struct osp_op *ops);

/*
 * osp_set_snapshot - append the merged operations (all of them, also the
 * empty ones) to @p, which must have the set's resolution and no ops, and
 * copy the timeline, if any; records lost for want of a shard (see
 * osp_set_lost) are option "lost_records" of @p. 0, -EINVAL or -ENOMEM;
 * on error @p has no ops and no timeline: never a part that looks whole.
 */
int osp_set_snapshot(struct osp_set *set, struct osp_profile *p);

/* Zero every histogram and the timeline. Thread-safe. */
void osp_set_reset(struct osp_set *set);

/*
 * The bytes a timeline may hold by default: its ring of slots (one per
 * snapshot it can keep) and what the snapshots hold -- per operation with
 * events in the interval, the op, its name and its non-empty buckets
 * (bytes asked of malloc, not its overhead). 64 MiB: thousands of busy
 * snapshots of the fs layer's operations (a few KiB each at resolution 1),
 * at least a hundred even at resolution 8 with CPU time and every
 * operation busy, while a daemon left running with a timeline stays
 * small next to the page cache it profiles.
 */
#define OSP_TIMELINE_BOUND_BYTES ((size_t)64 << 20)
/*
 * What a snapshot costs at the least: an interval without events is its
 * slot in the ring (a timestamp) and nothing else.
 */
#define OSP_TIMELINE_SNAPSHOT_MIN_BYTES sizeof(struct osp_snapshot)
/*
 * The largest capacity a timeline of @bound_bytes can have: even idle,
 * a larger ring would not fit. For OSP_TIMELINE_BOUND_BYTES, 2,796,202.
 */
size_t osp_set_timeline_capacity_max(size_t bound_bytes);

/*
 * osp_set_timeline_start - snapshot deltas every @interval_ns into a ring
 * of @capacity snapshots holding at most OSP_TIMELINE_BOUND_BYTES, from a
 * background thread; replaces a running timeline (its snapshots are
 * discarded). 0; -EINVAL (interval under 1 ms or capacity 0); -E2BIG
 * (capacity over osp_set_timeline_capacity_max(OSP_TIMELINE_BOUND_BYTES):
 * the running timeline, if any, is left as it was); -ENOMEM; -errno from
 * pthread_create.
 */
int osp_set_timeline_start(struct osp_set *set, uint64_t interval_ns,
			   unsigned capacity);
/* The same with a bound of @bound_bytes instead of the default one. */
int osp_set_timeline_start_bounded(struct osp_set *set, uint64_t interval_ns,
				   unsigned capacity, size_t bound_bytes);
/*
 * osp_set_timeline_start_ticked - the same timeline without a thread of
 * its own: the caller ticks it (osp_set_timeline_tick) every @interval_ns,
 * so that one thread can tick many sets (a profile per key value).
 */
int osp_set_timeline_start_ticked(struct osp_set *set, uint64_t interval_ns,
				  unsigned capacity, size_t bound_bytes);
/*
 * osp_tick_every - a ticking thread's loop: call @tick(@ctx) every
 * @interval_ns, to absolute CLOCK_MONOTONIC deadlines (a tick's own cost
 * adds no drift), until *@stop. The caller holds @mu, which the waits
 * release, and @tick runs under; @cv, on CLOCK_MONOTONIC, is signalled
 * with *@stop set (under @mu) to end it. Returns with @mu held.
 */
void osp_tick_every(pthread_mutex_t *mu, pthread_cond_t *cv, const bool *stop,
		    uint64_t interval_ns, void (*tick)(void *ctx), void *ctx);
/* Stop the timeline (and its thread) and drop its snapshots; harmless when none. */
void osp_set_timeline_stop(struct osp_set *set);
/* The state of a timeline, all 0 when none runs. */
struct osp_timeline_stats {
	uint64_t interval_ns;
	unsigned capacity;   /* snapshots it can keep */
	unsigned held;       /* snapshots it keeps now */
	size_t bytes;        /* the ring and what its snapshots hold */
	size_t bound_bytes;  /* what bytes may not exceed */
	uint64_t dropped;    /* oldest snapshots dropped, over capacity or bound */
	uint64_t missed;     /* ticks that could not allocate; their events are
			      * in the next snapshot, which spans both */
};
/* Fill @out; thread-safe. */
void osp_set_timeline_stats(struct osp_set *set, struct osp_timeline_stats *out);

/*
 * osp_set_timeline_tick - take one snapshot now, as the timeline thread
 * does every interval (for tests and for a final partial interval).
 * 0, -EINVAL when no timeline runs, -ENOMEM (counted as missed).
 */
int osp_set_timeline_tick(struct osp_set *set);

#endif /* OSPROF_SET_H */
