/* SPDX-License-Identifier: MIT */
/*
 * Private to set.c and timeline.c: the layout of a profile set, its
 * shards, and the timeline ring.
 */
#ifndef OSPROF_SET_IMPL_H
#define OSPROF_SET_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "osprof/set.h"

/*
 * A shard is one thread's copy of every histogram, laid out as 64-bit
 * words: per op, a sequence counter then the latency histogram (count,
 * sum, min, max, buckets...) and, with CPU time, the CPU histogram. All
 * words are accessed with __atomic builtins: the owner stores, any reader
 * loads.
 */
struct osp_shard {
	struct osp_shard *next; /* immutable once published */
	struct osp_set *set;    /* for the thread-exit destructor */
	uint64_t epoch;         /* epoch its data belongs to (atomic) */
	bool owned;             /* a live thread records into it (set->mu) */
	uint64_t words[];       /* nops * op_words */
};

/* Word offsets inside one histogram of a shard. */
enum { SH_COUNT, SH_SUM, SH_MIN, SH_MAX, SH_BUCKETS };

struct osp_timeline;

struct osp_set {
	unsigned nops;
	unsigned res;
	unsigned nbuckets;
	bool cpu;
	char **names;
	size_t hist_words;   /* SH_BUCKETS + nbuckets */
	size_t op_words;     /* 1 (seq) + hist_words * (cpu ? 2 : 1) */
	pthread_key_t key;   /* this thread's shard */
	pthread_mutex_t mu;  /* shard attach/detach; never on the record path */
	struct osp_shard *shards; /* list head, published with release */
	uint64_t epoch;      /* bumped by reset (atomic) */
	bool enabled;        /* atomic */
	uint64_t lost;       /* atomic; records without a shard */
	uint64_t start_mono_ns; /* start of the current epoch (atomic) */
	uint64_t start_unix_ns; /* (atomic) */
	/* Serialises reset against timeline ticks and start/stop. */
	pthread_mutex_t tl_mu;
	struct osp_timeline *tl; /* tl_mu */
};

/* Timeline internals (timeline.c), called with set->tl_mu held. */
void osp_tl_free_locked(struct osp_set *set);
void osp_tl_reset_locked(struct osp_set *set);
int osp_tl_copy_locked(struct osp_set *set, struct osp_profile *p,
		       const struct osp_op *now);

/*
 * osp_set_read_ops with caller scratch of osp_set_scratch_words() words
 * (NULL: -ENOMEM, every op emptied), so that a timeline tick allocates
 * nothing when nothing happened.
 */
size_t osp_set_scratch_words(const struct osp_set *set);
int osp_set_read_ops_scratch(struct osp_set *set, struct osp_op *ops,
			     uint64_t *scratch);

/* Allocate @n ops initialised with the set's names and resolution. */
struct osp_op *osp_set_ops_new(const struct osp_set *set);
void osp_set_ops_free(const struct osp_set *set, struct osp_op *ops);

#endif /* OSPROF_SET_IMPL_H */
