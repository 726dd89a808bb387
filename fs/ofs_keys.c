// SPDX-License-Identifier: MIT
/*
 * The bounded lock-free key -> slot map (ofs_keys.h). An entry goes from
 * empty to holding its key once (CAS) and never back; its slot goes from
 * pending to a slot number or refused once, published with release. The
 * counters that bound the table (entries used, slots given, keys refused)
 * move by CAS only when a key is first seen, never on a lookup.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "ofs_keys.h"

#define SLOT_PENDING (-2)
#define SLOT_REFUSED (-1)

struct entry {
	_Atomic uint64_t key;  /* OFS_KEYS_EMPTY until taken */
	atomic_int slot;       /* SLOT_PENDING until published */
};

struct ofs_keys {
	struct entry *e;
	_Atomic uint64_t *slot_key; /* each slot's key, OFS_KEYS_EMPTY until given */
	uint64_t mask;         /* entries - 1 */
	unsigned max;          /* slots that may be given */
	atomic_uint used;      /* entries taken (or being taken) */
	atomic_uint nslots;    /* slots given */
	atomic_uint nrefused;  /* entries holding a refused key */
	atomic_bool more;      /* a key was refused without an entry */
};

/* splitmix64's finaliser: pids and uids are dense, entries must not be. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct ofs_keys *ofs_keys_new(unsigned max)
{
	struct ofs_keys *k;
	uint64_t n = 4;

	if (max == 0 || max > OFS_KEYS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	while (n < 4 * (uint64_t)max)
		n *= 2;
	k = calloc(1, sizeof(*k));
	if (k) {
		k->e = malloc(n * sizeof(*k->e));
		k->slot_key = malloc(max * sizeof(*k->slot_key));
	}
	if (!k || !k->e || !k->slot_key) {
		ofs_keys_free(k);
		errno = ENOMEM;
		return NULL;
	}
	k->mask = n - 1;
	k->max = max;
	ofs_keys_reset(k);
	return k;
}

void ofs_keys_reset(struct ofs_keys *k)
{
	/* The key first: a get that found it and waits for its slot sees
	 * it gone (published) rather than a slot nothing will publish. */
	for (uint64_t i = 0; i <= k->mask; i++) {
		atomic_store_explicit(&k->e[i].key, OFS_KEYS_EMPTY, memory_order_release);
		atomic_store_explicit(&k->e[i].slot, SLOT_PENDING, memory_order_release);
	}
	for (unsigned i = 0; i < k->max; i++)
		atomic_store_explicit(&k->slot_key[i], OFS_KEYS_EMPTY, memory_order_relaxed);
	atomic_store(&k->used, 0);
	atomic_store(&k->nslots, 0);
	atomic_store(&k->nrefused, 0);
	atomic_store(&k->more, false);
}

void ofs_keys_free(struct ofs_keys *k)
{
	if (!k)
		return;
	free(k->e);
	free(k->slot_key);
	free(k);
}

/* Add one to @c unless it is at @limit: its old value, or -1. */
static int take(atomic_uint *c, unsigned limit)
{
	unsigned v = atomic_load_explicit(c, memory_order_relaxed);

	do {
		if (v >= limit)
			return -1;
	} while (!atomic_compare_exchange_weak_explicit(c, &v, v + 1, memory_order_relaxed,
							memory_order_relaxed));
	return (int)v;
}

/*
 * The slot of an entry found holding @key: wait for its inserter to
 * publish -- unless a reset empties the entry meanwhile, which nothing
 * would publish again: then -1 (the request goes to the caller's fold).
 */
static int published(struct entry *e, uint64_t key)
{
	int s;

	for (unsigned spins = 0;
	     (s = atomic_load_explicit(&e->slot, memory_order_acquire)) == SLOT_PENDING; spins++) {
		if (atomic_load_explicit(&e->key, memory_order_acquire) != key)
			return -1;
		if (spins % 64 == 63)
			sched_yield(); /* the inserter was preempted between two stores */
	}
	return s >= 0 ? s : -1;
}

int ofs_keys_get(struct ofs_keys *k, uint64_t key, bool *fresh)
{
	uint64_t h = mix(key);

	*fresh = false;
	for (uint64_t i = 0; i <= k->mask; i++, h++) {
		struct entry *e = &k->e[h & k->mask];
		uint64_t cur = atomic_load_explicit(&e->key, memory_order_acquire);
		int s;

		if (cur == key)
			return published(e, key);
		if (cur != OFS_KEYS_EMPTY)
			continue;
		/* At most max slots and max refused keys: half the entries. */
		if (take(&k->used, 2 * k->max) < 0) {
			atomic_store_explicit(&k->more, true, memory_order_relaxed);
			return -1;
		}
		if (!atomic_compare_exchange_strong_explicit(&e->key, &cur, key, memory_order_acq_rel,
							     memory_order_acquire)) {
			atomic_fetch_sub_explicit(&k->used, 1, memory_order_relaxed);
			if (cur == key)
				return published(e, key);
			continue; /* another key took it: probe on */
		}
		s = take(&k->nslots, k->max);
		if (s < 0) {
			atomic_fetch_add_explicit(&k->nrefused, 1, memory_order_relaxed);
		} else {
			atomic_store_explicit(&k->slot_key[s], key, memory_order_release);
			*fresh = true;
		}
		atomic_store_explicit(&e->slot, s < 0 ? SLOT_REFUSED : s, memory_order_release);
		return s;
	}
	return -1; /* unreachable: the table is never more than half full */
}

int ofs_keys_find(const struct ofs_keys *k, uint64_t key)
{
	uint64_t h = mix(key);

	for (uint64_t i = 0; i <= k->mask; i++, h++) {
		const struct entry *e = &k->e[h & k->mask];
		uint64_t cur = atomic_load_explicit(&e->key, memory_order_acquire);
		int s;

		if (cur == OFS_KEYS_EMPTY)
			return -1;
		if (cur != key)
			continue;
		s = atomic_load_explicit(&e->slot, memory_order_acquire);
		return s >= 0 ? s : -1;
	}
	return -1;
}

bool ofs_keys_key(const struct ofs_keys *k, unsigned slot, uint64_t *key)
{
	if (slot >= k->max)
		return false;
	*key = atomic_load_explicit(&k->slot_key[slot], memory_order_acquire);
	return *key != OFS_KEYS_EMPTY;
}

unsigned ofs_keys_count(const struct ofs_keys *k)
{
	return atomic_load_explicit(&k->nslots, memory_order_acquire);
}

uint64_t ofs_keys_refused(const struct ofs_keys *k, bool *more)
{
	*more = atomic_load_explicit(&k->more, memory_order_relaxed);
	return atomic_load_explicit(&k->nrefused, memory_order_relaxed);
}
