// SPDX-License-Identifier: MIT
/*
 * The bounded lock-free key -> slot map of -o by (fs/ofs_keys.c): slots
 * are dense and given in order of first sight, each once; concurrent
 * inserts of overlapping keys from several threads give each key one slot
 * and every caller the same one; past max, keys are refused and the
 * distinct refused keys counted, exactly up to max.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>

#include "ofs_keys.h"

Test(keys, slots_are_given_in_order_of_first_sight_once_each)
{
	struct ofs_keys *k = ofs_keys_new(4);
	bool fresh;

	cr_assert_not_null(k);
	cr_expect_eq(ofs_keys_get(k, 1000, &fresh), 0);
	cr_expect(fresh);
	cr_expect_eq(ofs_keys_get(k, 0, &fresh), 1);
	cr_expect(fresh);
	cr_expect_eq(ofs_keys_get(k, 1000, &fresh), 0);
	cr_expect(!fresh);
	cr_expect_eq(ofs_keys_find(k, 0), 1);
	cr_expect_eq(ofs_keys_find(k, 7), -1);
	cr_expect_eq(ofs_keys_count(k), 2u);
	ofs_keys_free(k);
}

Test(keys, keys_past_max_are_refused_and_counted_once_each)
{
	struct ofs_keys *k = ofs_keys_new(2);
	bool fresh, more;

	cr_assert_not_null(k);
	cr_expect_eq(ofs_keys_get(k, 10, &fresh), 0);
	cr_expect_eq(ofs_keys_get(k, 20, &fresh), 1);
	for (int rep = 0; rep < 3; rep++) {
		cr_expect_eq(ofs_keys_get(k, 30, &fresh), -1);
		cr_expect(!fresh);
	}
	cr_expect_eq(ofs_keys_get(k, 20, &fresh), 1, "a key with a slot keeps it when full");
	cr_expect_eq(ofs_keys_refused(k, &more), 1u);
	cr_expect(!more);
	cr_expect_eq(ofs_keys_get(k, 40, &fresh), -1);
	cr_expect_eq(ofs_keys_refused(k, &more), 2u);
	cr_expect(!more);
	/* More refused keys than it remembers: a lower bound, said. */
	for (uint64_t key = 50; key < 60; key++)
		cr_expect_eq(ofs_keys_get(k, key, &fresh), -1);
	cr_expect_eq(ofs_keys_refused(k, &more), 2u, "the refused keys it remembers, no more");
	cr_expect(more, "and said to be a lower bound");
	cr_expect_eq(ofs_keys_count(k), 2u);
	ofs_keys_free(k);
}

Test(keys, bad_sizes_are_refused)
{
	cr_expect_null(ofs_keys_new(0));
	cr_expect_null(ofs_keys_new(OFS_KEYS_MAX + 1));
}

#define THREADS 8
#define KEYS 3000
#define MAX 2048

static struct ofs_keys *shared;
static int seen[THREADS][KEYS];
static unsigned fresh_count[THREADS];
static pthread_barrier_t go;

/* Each thread asks for every key, from its own starting point. */
static void *inserter(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;

	pthread_barrier_wait(&go);
	for (unsigned i = 0; i < KEYS; i++) {
		unsigned key = (i + t * 397) % KEYS;
		bool fresh;

		seen[t][key] = ofs_keys_get(shared, (uint64_t)key * 7919, &fresh);
		fresh_count[t] += fresh;
	}
	return NULL;
}

Test(keys, concurrent_inserts_give_each_key_one_slot_and_every_caller_the_same)
{
	pthread_t th[THREADS];
	unsigned given = 0, refused = 0, fresh = 0;
	bool used[MAX] = { false }, more;

	shared = ofs_keys_new(MAX);
	cr_assert_not_null(shared);
	pthread_barrier_init(&go, NULL, THREADS);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, inserter, (void *)(uintptr_t)t);
	for (unsigned t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	for (unsigned key = 0; key < KEYS; key++) {
		int s = seen[0][key];

		for (unsigned t = 1; t < THREADS; t++)
			cr_assert_eq(seen[t][key], s, "key %u: thread %u got slot %d, thread 0 %d",
				     key, t, seen[t][key], s);
		if (s < 0) {
			refused++;
			continue;
		}
		cr_assert_lt(s, MAX);
		cr_assert(!used[s], "slot %d given twice", s);
		used[s] = true;
		given++;
	}
	for (unsigned t = 0; t < THREADS; t++)
		fresh += fresh_count[t];
	cr_expect_eq(given, MAX, "every slot given");
	cr_expect_eq(refused, KEYS - MAX);
	cr_expect_eq(fresh, MAX, "one caller told to label each slot");
	cr_expect_eq(ofs_keys_count(shared), MAX);
	cr_expect_eq(ofs_keys_refused(shared, &more), KEYS - MAX);
	cr_expect(!more);
	pthread_barrier_destroy(&go);
	ofs_keys_free(shared);
}

Test(keys, a_slot_names_its_key_until_reset)
{
	struct ofs_keys *k = ofs_keys_new(3);
	uint64_t key;
	bool fresh;

	cr_assert_not_null(k);
	cr_expect_eq(ofs_keys_get(k, 100, &fresh), 0);
	cr_expect_eq(ofs_keys_get(k, 0, &fresh), 1, "0 is a key like any");
	cr_expect(fresh);
	cr_expect(ofs_keys_key(k, 1, &key));
	cr_expect_eq(key, 0);
	cr_expect(ofs_keys_key(k, 0, &key));
	cr_expect_eq(key, 100);
	cr_expect_not(ofs_keys_key(k, 2, &key), "not given yet");
	cr_expect_not(ofs_keys_key(k, 3, &key), "past max");
	ofs_keys_reset(k);
	cr_expect_eq(ofs_keys_count(k), 0);
	cr_expect_not(ofs_keys_key(k, 0, &key));
	cr_expect_eq(ofs_keys_find(k, 100), -1);
	cr_expect_eq(ofs_keys_get(k, 7, &fresh), 0, "a new life after reset");
	cr_expect(fresh);
	cr_expect(ofs_keys_key(k, 0, &key));
	cr_expect_eq(key, 7);
	ofs_keys_free(k);
}

/* Gets racing ctl's reset: each returns -1 or a slot in range, and none
 * waits for ever on an entry the reset emptied (the suite's timeout
 * catches that). */
struct race {
	struct ofs_keys *k;
	atomic_bool stop;
	unsigned seed;
	int bad;
};

static void *getter(void *arg)
{
	struct race *r = arg;
	unsigned x = r->seed;
	bool fresh;

	while (!atomic_load(&r->stop)) {
		int s;

		x = x * 1103515245u + 12345u;
		s = ofs_keys_get(r->k, 1 + (x >> 8) % 64, &fresh);
		if (s < -1 || s >= 16)
			r->bad++;
	}
	return NULL;
}

Test(keys, gets_beside_resets_never_wait_for_ever, .timeout = 60)
{
	struct race r[3];
	pthread_t th[3];
	struct ofs_keys *k = ofs_keys_new(16);

	cr_assert_not_null(k);
	for (int i = 0; i < 3; i++) {
		r[i] = (struct race){ .k = k, .seed = 7u + (unsigned)i };
		atomic_init(&r[i].stop, false);
		cr_assert_eq(pthread_create(&th[i], NULL, getter, &r[i]), 0);
	}
	for (int n = 0; n < 200000; n++)
		ofs_keys_reset(k);
	for (int i = 0; i < 3; i++) {
		atomic_store(&r[i].stop, true);
		pthread_join(th[i], NULL);
		cr_expect_eq(r[i].bad, 0);
	}
	ofs_keys_free(k);
}
