// SPDX-License-Identifier: MIT
/*
 * A hash index of names to positions: the one by-name lookup of core for
 * anything whose size a file decides (the operations of a profile, the
 * counters of an operation), so that reading, merging and comparing stay
 * linear in the number of operations.
 *
 * The table is json-c's (linkhash), which core links already; its hash
 * is libsodium's SipHash-2-4 (crypto_shorthash) under a key drawn at
 * random once per process: the names come from files, and a hash a file
 * could predict would let it choose names that all collide, making every
 * lookup a walk over all of them again.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <json-c/linkhash.h>
#include <sodium.h>

#include "osprof/profile.h"

static unsigned char key[crypto_shorthash_KEYBYTES];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_err; /* sodium_init failed: no index can be made */

static void key_init(void)
{
	if (sodium_init() < 0) {
		key_err = -ENOMEM;
		return;
	}
	crypto_shorthash_keygen(key);
}

static unsigned long name_hash(const void *k)
{
	const char *name = k;
	unsigned char h[crypto_shorthash_BYTES];
	unsigned long v;

	crypto_shorthash(h, (const unsigned char *)name, strlen(name), key);
	memcpy(&v, h, sizeof(v) < sizeof(h) ? sizeof(v) : sizeof(h));
	return v;
}

static int name_equal(const void *a, const void *b)
{
	return strcmp(a, b) == 0;
}

/* The index is the table itself: names are borrowed keys, positions values. */
struct osp_name_index *osp_name_index_new(size_t hint)
{
	/* json-c grows its table at two thirds full: room for @hint first. */
	int size = hint < INT_MAX / 4 ? (int)(hint + hint / 2) + 16 : INT_MAX / 2;

	pthread_once(&key_once, key_init);
	if (key_err)
		return NULL;
	return (struct osp_name_index *)lh_table_new(size, NULL, name_hash, name_equal);
}

void osp_name_index_free(struct osp_name_index *ix)
{
	if (ix)
		lh_table_free((struct lh_table *)ix);
}

int osp_name_index_add(struct osp_name_index *ix, const char *name, size_t pos)
{
	struct lh_table *t = (struct lh_table *)ix;

	if (lh_table_lookup_ex(t, name, NULL))
		return -EEXIST;
	return lh_table_insert(t, name, (void *)(uintptr_t)pos) ? -ENOMEM : 0;
}

size_t osp_name_index_find(const struct osp_name_index *ix, const char *name)
{
	void *v;

	if (!lh_table_lookup_ex((struct lh_table *)(uintptr_t)ix, name, &v))
		return SIZE_MAX;
	return (size_t)(uintptr_t)v;
}

struct osp_name_index *osp_name_index_ops(const struct osp_op *ops, size_t n)
{
	struct osp_name_index *ix = osp_name_index_new(n);

	for (size_t i = 0; ix && i < n; i++) {
		/* A repeated name keeps its first position, as find_op does. */
		if (osp_name_index_add(ix, ops[i].name, i) == -ENOMEM) {
			osp_name_index_free(ix);
			return NULL;
		}
	}
	return ix;
}
