// SPDX-License-Identifier: MIT
/*
 * The top view's key map (fs/ofs_top_keys.c) on its own: dense slots in
 * order of first sight, -1 when full (and no cell used for such keys),
 * reset, and threads inserting the same keys at once each key getting
 * exactly one slot.
 */
#include <criterion/criterion.h>
#include <pthread.h>

#include "ofs.h"

Test(top_keys, slots_are_dense_in_order_of_first_sight_then_minus_one)
{
	struct ofs_keys *k = ofs_keys_new(3);
	uint64_t key;
	bool fresh;

	cr_assert_not_null(k);
	cr_expect_eq(ofs_keys_slot(k, 100, &fresh), 0);
	cr_expect(fresh);
	cr_expect_eq(ofs_keys_slot(k, 0, &fresh), 1, "0 is a key like any");
	cr_expect(fresh);
	cr_expect_eq(ofs_keys_slot(k, 100, &fresh), 0);
	cr_expect_not(fresh, "seen before");
	cr_expect_eq(ofs_keys_slot(k, 7, &fresh), 2);
	for (uint64_t i = 1000; i < 1100; i++)
		cr_expect_eq(ofs_keys_slot(k, i, &fresh), -1, "full");
	cr_expect_not(fresh);
	cr_expect_eq(ofs_keys_slot(k, 7, &fresh), 2, "still found when full");
	cr_expect_eq(ofs_keys_slot(k, UINT64_MAX, &fresh), -1, "the one key refused");
	cr_expect_eq(ofs_keys_count(k), 3);
	cr_expect(ofs_keys_key(k, 1, &key));
	cr_expect_eq(key, 0);
	cr_expect_not(ofs_keys_key(k, 3, &key));
	ofs_keys_reset(k);
	cr_expect_eq(ofs_keys_count(k), 0);
	cr_expect_not(ofs_keys_key(k, 0, &key));
	cr_expect_eq(ofs_keys_slot(k, 7, &fresh), 0, "a new life after reset");
	cr_expect(fresh);
	ofs_keys_free(k);
	ofs_keys_free(NULL);
	cr_expect_null(ofs_keys_new(0));
	cr_expect_null(ofs_keys_new(OFS_TOP_MAX + 1));
}

#define THREADS 4
#define KEYS 509 /* prime: each thread's order below is a permutation */

static struct ofs_keys *shared;
static int slots[THREADS][KEYS];
static unsigned fresh_n[THREADS];

static void *insert_all(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	bool fresh;

	for (unsigned i = 0; i < KEYS; i++) {
		/* Each thread in its own order. */
		unsigned key = (i * (2 * t + 1) + t * 97) % KEYS;

		slots[t][key] = ofs_keys_slot(shared, key * 4096u, &fresh);
		fresh_n[t] += fresh;
	}
	return NULL;
}

Test(top_keys, threads_racing_give_each_key_one_slot)
{
	pthread_t th[THREADS];
	bool used[KEYS] = { false };
	unsigned fresh_total = 0;

	shared = ofs_keys_new(KEYS);
	cr_assert_not_null(shared);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, insert_all, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	for (unsigned t = 0; t < THREADS; t++)
		fresh_total += fresh_n[t];
	cr_expect_eq(fresh_total, KEYS, "each key fresh once");
	for (unsigned key = 0; key < KEYS; key++) {
		uint64_t back;

		cr_assert(slots[0][key] >= 0 && slots[0][key] < KEYS);
		for (unsigned t = 1; t < THREADS; t++)
			cr_expect_eq(slots[t][key], slots[0][key], "key %u", key);
		cr_expect_not(used[slots[0][key]], "slot %d given twice", slots[0][key]);
		used[slots[0][key]] = true;
		cr_expect(ofs_keys_key(shared, (unsigned)slots[0][key], &back));
		cr_expect_eq(back, key * 4096u);
	}
	ofs_keys_free(shared);
}
