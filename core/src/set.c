// SPDX-License-Identifier: MIT
/*
 * Profile sets: per-thread shards recorded without locks or atomic
 * read-modify-writes, merged by readers under per-operation sequence
 * counters (a seqlock with a single writer, so the writer never waits).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "osprof/clock.h"
#include "set_impl.h"

#define LD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define ST(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

static uint64_t *shard_op(const struct osp_set *set, struct osp_shard *sh,
			  unsigned op)
{
	return sh->words + (size_t)op * set->op_words;
}

/* Thread-exit destructor of the set's key: the shard becomes adoptable. */
static void shard_detach(void *arg)
{
	struct osp_shard *sh = arg;

	pthread_mutex_lock(&sh->set->mu);
	sh->owned = false;
	pthread_mutex_unlock(&sh->set->mu);
}

/* One allocation per shard, a multiple of a cache line: no false sharing. */
static struct osp_shard *shard_alloc(struct osp_set *set)
{
	size_t size = sizeof(struct osp_shard) +
		      set->nops * set->op_words * sizeof(uint64_t);
	struct osp_shard *sh;

	size = (size + 63) & ~(size_t)63;
	sh = aligned_alloc(64, size);
	if (!sh)
		return NULL;
	memset(sh, 0, size);
	sh->set = set;
	return sh;
}

/* Slow path of a thread's first record: adopt an orphan or add a shard. */
static struct osp_shard *shard_attach(struct osp_set *set)
{
	struct osp_shard *sh;

	pthread_mutex_lock(&set->mu);
	for (sh = set->shards; sh; sh = sh->next)
		if (!sh->owned)
			break;
	if (!sh) {
		sh = shard_alloc(set);
		if (sh) {
			ST(&sh->epoch, LD(&set->epoch));
			sh->next = set->shards;
			__atomic_store_n(&set->shards, sh, __ATOMIC_RELEASE);
		}
	}
	if (sh) {
		sh->owned = true;
		if (pthread_setspecific(set->key, sh) != 0) {
			sh->owned = false;
			sh = NULL;
		}
	}
	pthread_mutex_unlock(&set->mu);
	return sh;
}

/* The owner zeroes its shard after a reset, op by op under each seq. */
static void shard_rezero(struct osp_set *set, struct osp_shard *sh,
			 uint64_t epoch)
{
	for (unsigned op = 0; op < set->nops; op++) {
		uint64_t *o = shard_op(set, sh, op);
		uint64_t seq = LD(&o[0]);

		ST(&o[0], seq + 1);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (size_t w = 1; w < set->op_words; w++)
			ST(&o[w], 0);
		__atomic_store_n(&o[0], seq + 2, __ATOMIC_RELEASE);
	}
	ST(&sh->epoch, epoch);
}

static inline void hist_add(uint64_t *h, unsigned idx, uint64_t v)
{
	uint64_t n = LD(&h[SH_COUNT]);

	ST(&h[SH_BUCKETS + idx], LD(&h[SH_BUCKETS + idx]) + 1);
	ST(&h[SH_COUNT], n + 1);
	ST(&h[SH_SUM], LD(&h[SH_SUM]) + v);
	if (n == 0 || v < LD(&h[SH_MIN]))
		ST(&h[SH_MIN], v);
	if (v > LD(&h[SH_MAX]))
		ST(&h[SH_MAX], v);
}

void osp_set_record(struct osp_set *set, unsigned op, uint64_t lat_ns,
		    uint64_t cpu_ns)
{
	struct osp_shard *sh = pthread_getspecific(set->key);
	/*
	 * The bucket indices are worked out before the sequence counter goes
	 * odd, so a reader retries only while shard words change; and the
	 * set's fields are read once, not again after the fence (a compiler
	 * barrier).
	 */
	unsigned lat_idx = osp_bucket_index(lat_ns, set->res);
	unsigned cpu_idx = set->cpu ? osp_bucket_index(cpu_ns, set->res) : 0;
	uint64_t epoch, seq, *o, *cpu_h;

	if (__builtin_expect(!sh, 0)) {
		sh = shard_attach(set);
		if (!sh) {
			__atomic_fetch_add(&set->lost, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	epoch = LD(&set->epoch);
	if (__builtin_expect(LD(&sh->epoch) != epoch, 0))
		shard_rezero(set, sh, epoch);
	o = shard_op(set, sh, op);
	cpu_h = set->cpu ? o + 1 + set->hist_words : NULL;
	seq = LD(&o[0]);
	ST(&o[0], seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	hist_add(o + 1, lat_idx, lat_ns);
	if (cpu_h)
		hist_add(cpu_h, cpu_idx, cpu_ns);
	__atomic_store_n(&o[0], seq + 2, __ATOMIC_RELEASE);
}

/* Add a consistent copy of one shard histogram to @h, whose buckets are
 * kept dense in @acc until the last shard is folded in. */
static void hist_fold(struct osp_hist *h, uint64_t *acc, const uint64_t *tmp,
		      unsigned nb)
{
	if (tmp[SH_COUNT] == 0)
		return;
	for (unsigned i = 0; i < nb; i++)
		acc[i] += tmp[SH_BUCKETS + i];
	if (h->count == 0 || tmp[SH_MIN] < h->min)
		h->min = tmp[SH_MIN];
	if (tmp[SH_MAX] > h->max)
		h->max = tmp[SH_MAX];
	h->count += tmp[SH_COUNT];
	h->sum += tmp[SH_SUM];
}

/*
 * Copy op @op of shard @sh into @tmp (op_words words) consistently.
 * Returns false when the shard belongs to an older epoch (it counts as
 * empty). A reader retries while the owner is mid-record; the owner never
 * waits for it.
 */
static bool shard_read_op(const struct osp_set *set, struct osp_shard *sh,
			  unsigned op, uint64_t epoch, uint64_t *tmp)
{
	uint64_t *o = shard_op(set, sh, op);

	for (unsigned tries = 0;; tries++) {
		uint64_t s1 = __atomic_load_n(&o[0], __ATOMIC_ACQUIRE), s2, ep;

		if (s1 & 1) {
			if (tries > 64)
				sched_yield();
			continue;
		}
		ep = LD(&sh->epoch);
		for (size_t w = 1; w < set->op_words; w++)
			tmp[w] = LD(&o[w]);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = LD(&o[0]);
		if (s1 == s2)
			return ep == epoch;
		if (tries > 64)
			sched_yield();
	}
}

/* Merge op @op of every shard into @o (cleared first); @w: op_words +
 * 2 * nbuckets words of scratch. 0 or -ENOMEM. */
static int read_op(struct osp_set *set, unsigned op, uint64_t epoch,
		   struct osp_op *o, uint64_t *w)
{
	uint64_t *tmp = w, *acc = w + set->op_words, *cacc = acc + set->nbuckets;
	bool cpu = set->cpu && o->has_cpu;
	struct osp_shard *sh;
	int err;

	osp_hist_clear(&o->lat);
	if (o->has_cpu)
		osp_hist_clear(&o->cpu);
	memset(acc, 0, 2 * set->nbuckets * sizeof(*acc));
	for (sh = __atomic_load_n(&set->shards, __ATOMIC_ACQUIRE); sh; sh = sh->next) {
		if (!shard_read_op(set, sh, op, epoch, tmp))
			continue;
		hist_fold(&o->lat, acc, tmp + 1, set->nbuckets);
		if (cpu)
			hist_fold(&o->cpu, cacc, tmp + 1 + set->hist_words, set->nbuckets);
	}
	err = osp_hist_from_dense(&o->lat, acc);
	if (!err && cpu)
		err = osp_hist_from_dense(&o->cpu, cacc);
	return err;
}

size_t osp_set_scratch_words(const struct osp_set *set)
{
	return set->op_words + 2 * set->nbuckets;
}

int osp_set_read_ops_scratch(struct osp_set *set, struct osp_op *ops,
			     uint64_t *scratch)
{
	uint64_t epoch = LD(&set->epoch);
	int err = scratch ? 0 : -ENOMEM;

	for (unsigned op = 0; !err && op < set->nops; op++)
		err = read_op(set, op, epoch, &ops[op], scratch);
	/* Never half a set that looks whole: on error every op is empty. */
	for (unsigned op = 0; err && op < set->nops; op++) {
		osp_hist_clear(&ops[op].lat);
		osp_hist_clear(&ops[op].cpu);
	}
	return err;
}

int osp_set_read_ops(struct osp_set *set, struct osp_op *ops)
{
	uint64_t *w = malloc(osp_set_scratch_words(set) * sizeof(uint64_t));
	int err = osp_set_read_ops_scratch(set, ops, w);

	free(w);
	return err;
}

struct osp_op *osp_set_ops_new(const struct osp_set *set)
{
	struct osp_op *ops = calloc(set->nops, sizeof(*ops));

	if (!ops)
		return NULL;
	for (unsigned i = 0; i < set->nops; i++) {
		if (osp_op_init(&ops[i], set->names[i], set->res, set->cpu)) {
			osp_set_ops_free(set, ops);
			return NULL;
		}
	}
	return ops;
}

void osp_set_ops_free(const struct osp_set *set, struct osp_op *ops)
{
	if (!ops)
		return;
	for (unsigned i = 0; i < set->nops; i++)
		osp_op_fini(&ops[i]);
	free(ops);
}

struct osp_set *osp_set_new(const char *const *names, unsigned nops,
			    unsigned res, bool cpu)
{
	struct osp_set *set;

	if (!names || nops == 0 || !osp_res_valid(res)) {
		errno = EINVAL;
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (!set)
		return NULL;
	set->names = calloc(nops, sizeof(char *));
	if (!set->names)
		goto err_set;
	for (unsigned i = 0; i < nops; i++) {
		set->names[i] = strdup(names[i]);
		if (!set->names[i])
			goto err_names;
	}
	if (pthread_key_create(&set->key, shard_detach) != 0)
		goto err_names;
	set->nops = nops;
	set->res = res;
	set->nbuckets = OSP_HIST_NBUCKETS(res);
	set->cpu = cpu;
	set->hist_words = SH_BUCKETS + set->nbuckets;
	set->op_words = 1 + set->hist_words * (cpu ? 2 : 1);
	set->enabled = true;
	set->start_mono_ns = osp_clock_mono_ns();
	set->start_unix_ns = osp_clock_unix_ns();
	pthread_mutex_init(&set->mu, NULL);
	pthread_mutex_init(&set->tl_mu, NULL);
	return set;

err_names:
	for (unsigned i = 0; i < nops; i++)
		free(set->names[i]);
	free(set->names);
err_set:
	free(set);
	errno = ENOMEM;
	return NULL;
}

void osp_set_free(struct osp_set *set)
{
	struct osp_shard *sh, *next;

	if (!set)
		return;
	osp_set_timeline_stop(set);
	pthread_key_delete(set->key);
	for (sh = set->shards; sh; sh = next) {
		next = sh->next;
		free(sh);
	}
	for (unsigned i = 0; i < set->nops; i++)
		free(set->names[i]);
	free(set->names);
	pthread_mutex_destroy(&set->mu);
	pthread_mutex_destroy(&set->tl_mu);
	free(set);
}

unsigned osp_set_nops(const struct osp_set *set) { return set->nops; }
unsigned osp_set_res(const struct osp_set *set) { return set->res; }
bool osp_set_has_cpu(const struct osp_set *set) { return set->cpu; }

const char *osp_set_op_name(const struct osp_set *set, unsigned op)
{
	return op < set->nops ? set->names[op] : NULL;
}

bool osp_set_enabled(const struct osp_set *set)
{
	return __atomic_load_n(&set->enabled, __ATOMIC_RELAXED);
}

void osp_set_enable(struct osp_set *set, bool on)
{
	__atomic_store_n(&set->enabled, on, __ATOMIC_RELAXED);
}

uint64_t osp_set_lost(const struct osp_set *set)
{
	return __atomic_load_n(&set->lost, __ATOMIC_RELAXED);
}

void osp_set_reset(struct osp_set *set)
{
	pthread_mutex_lock(&set->tl_mu);
	ST(&set->start_mono_ns, osp_clock_mono_ns());
	ST(&set->start_unix_ns, osp_clock_unix_ns());
	__atomic_fetch_add(&set->epoch, 1, __ATOMIC_RELEASE);
	ST(&set->lost, 0);
	if (set->tl)
		osp_tl_reset_locked(set);
	pthread_mutex_unlock(&set->tl_mu);
}

int osp_set_snapshot(struct osp_set *set, struct osp_profile *p)
{
	struct osp_op *now;
	int err = 0;

	if (p->res != set->res || p->nops != 0)
		return -EINVAL;
	now = osp_set_ops_new(set);
	if (!now)
		return -ENOMEM;
	pthread_mutex_lock(&set->tl_mu);
	err = osp_set_read_ops(set, now);
	p->start_unix_ns = LD(&set->start_unix_ns);
	p->elapsed_ns = osp_clock_mono_ns() - LD(&set->start_mono_ns);
	if (!err && set->tl)
		err = osp_tl_copy_locked(set, p, now);
	pthread_mutex_unlock(&set->tl_mu);
	/* Records the profile lacks are said in it, not only in ctl. */
	if (!err && osp_set_lost(set))
		err = osp_kv_set_u64(&p->options, "lost_records", osp_set_lost(set));
	if (!err) {
		/* Hand the merged ops over to the profile. */
		p->ops = now;
		p->nops = p->ops_cap = set->nops;
		return 0;
	}
	/* No part of a profile that would look whole. */
	osp_profile_drop_timeline(p);
	osp_set_ops_free(set, now);
	return err;
}
