// SPDX-License-Identifier: MIT
/*
 * A bounded, lock-free map from 64-bit keys (an inode, a pid) to dense
 * slots 0 .. max - 1, for per-key tables that the recording path updates
 * without a lock or an allocation (ofs_top.c). Open addressing with linear
 * probing over a power-of-two table at least twice the slots, so a probe
 * always meets an empty cell. A new key is put in a cell by compare-and-
 * swap; the winner then takes the next slot (fetch-and-add) and publishes
 * it in the cell; a thread that finds the key while its slot is being
 * published waits those few instructions. When every slot is taken, new
 * keys get -1 (the caller folds them into "other") and use no cell.
 * Keys are never removed but all at once (ofs_keys_reset).
 */
#include <stdlib.h>

#include "ofs.h"

#define SLOT_PENDING (-2)

struct cell {
	uint64_t key;   /* atomic: 0 empty, else the key + 1 */
	int32_t slot;   /* atomic: SLOT_PENDING until published; -1 none */
};

struct ofs_keys {
	unsigned max;       /* slots */
	unsigned mask;      /* cells - 1 */
	unsigned count;     /* atomic: slots handed out (may pass max by the
			     * racing losers, which take none) */
	uint64_t *slot_key; /* atomic: each slot's key + 1, 0 before */
	struct cell cells[];
};

struct ofs_keys *ofs_keys_new(unsigned max)
{
	unsigned n = 16;
	struct ofs_keys *k;

	if (max == 0 || max > OFS_TOP_MAX)
		return NULL;
	while (n < 2 * max)
		n *= 2;
	k = calloc(1, sizeof(*k) + n * sizeof(k->cells[0]));
	if (!k)
		return NULL;
	k->slot_key = calloc(max, sizeof(k->slot_key[0]));
	if (!k->slot_key) {
		free(k);
		return NULL;
	}
	k->max = max;
	k->mask = n - 1;
	ofs_keys_reset(k);
	return k;
}

void ofs_keys_free(struct ofs_keys *k)
{
	if (!k)
		return;
	free(k->slot_key);
	free(k);
}

void ofs_keys_reset(struct ofs_keys *k)
{
	for (unsigned i = 0; i <= k->mask; i++) {
		__atomic_store_n(&k->cells[i].slot, SLOT_PENDING, __ATOMIC_RELAXED);
		__atomic_store_n(&k->cells[i].key, 0, __ATOMIC_RELEASE);
	}
	for (unsigned i = 0; i < k->max; i++)
		__atomic_store_n(&k->slot_key[i], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&k->count, 0, __ATOMIC_RELEASE);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* Key @want's slot in @c once its inserter published it; -1 when a reset
 * took the key away meanwhile. */
static int published(struct cell *c, uint64_t want)
{
	int s;

	while ((s = __atomic_load_n(&c->slot, __ATOMIC_ACQUIRE)) == SLOT_PENDING) {
		if (__atomic_load_n(&c->key, __ATOMIC_ACQUIRE) != want)
			return -1;
		cpu_relax();
	}
	return s;
}

static unsigned hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull; /* MurmurHash3's finaliser */
	key ^= key >> 33;
	return (unsigned)key;
}

int ofs_keys_slot(struct ofs_keys *k, uint64_t key, bool *fresh)
{
	uint64_t want = key + 1;
	unsigned h = hash(key) & k->mask;

	*fresh = false;
	if (want == 0)
		return -1;
	for (unsigned i = 0; i <= k->mask; i++, h = (h + 1) & k->mask) {
		struct cell *c = &k->cells[h];
		uint64_t got = __atomic_load_n(&c->key, __ATOMIC_ACQUIRE);
		unsigned n;

		if (got == 0) {
			if (__atomic_load_n(&k->count, __ATOMIC_RELAXED) >= k->max)
				return -1; /* full: no cell used for a key without a slot */
			if (!__atomic_compare_exchange_n(&c->key, &got, want, false,
							 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				if (got == want)
					return published(c, want);
				continue; /* another key took it: probe on */
			}
			n = __atomic_fetch_add(&k->count, 1, __ATOMIC_RELAXED);
			if (n >= k->max) {
				__atomic_store_n(&c->slot, -1, __ATOMIC_RELEASE);
				return -1;
			}
			__atomic_store_n(&k->slot_key[n], want, __ATOMIC_RELEASE);
			__atomic_store_n(&c->slot, (int)n, __ATOMIC_RELEASE);
			*fresh = true;
			return (int)n;
		}
		if (got == want)
			return published(c, want);
	}
	return -1;
}

bool ofs_keys_key(struct ofs_keys *k, unsigned slot, uint64_t *key)
{
	uint64_t v = slot < k->max ? __atomic_load_n(&k->slot_key[slot], __ATOMIC_ACQUIRE) : 0;

	if (!v)
		return false;
	*key = v - 1;
	return true;
}

unsigned ofs_keys_count(struct ofs_keys *k)
{
	unsigned n = __atomic_load_n(&k->count, __ATOMIC_ACQUIRE);

	return n < k->max ? n : k->max;
}
