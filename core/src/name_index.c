// SPDX-License-Identifier: MIT
/*
 * A hash index of names to positions: the one by-name lookup of core for
 * anything whose size a file decides (the operations of a profile, the
 * counters of an operation), so that reading, merging and comparing stay
 * linear in the number of operations.
 *
 * The table is json-c's (linkhash), which core links already; its hash
 * is libsodium's keyed BLAKE2b (crypto_generichash) under a key drawn at
 * random once per process: the names come from files, and a hash a file
 * could predict would let it choose names that all collide, making every
 * lookup a walk over all of them again.
 *
 * Two names are one when they are one in JSON, where every profile goes:
 * the writer spells a byte that is not UTF-8 as its Latin-1 code point,
 * so "a\xe0" (not UTF-8) and "a\xc3\xa0" (U+00E0) read back alike. So
 * names are hashed and compared by their code points (osp_utf8_unit), and
 * a reader refuses such a pair as a repeat rather than writing a profile
 * that reads back different.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <json-c/linkhash.h>
#include <sodium.h>

#include "osprof/profile.h"
#include "utf8.h"

static unsigned char key[crypto_generichash_KEYBYTES];
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_err; /* sodium_init failed: no index can be made */

static void key_init(void)
{
	if (sodium_init() < 0) {
		key_err = -ENOMEM;
		return;
	}
	crypto_generichash_keygen(key);
}

/* The hash of @k's code points, each as its UTF-8 (fed in chunks: no
 * allocation, whatever the name's length). */
static unsigned long name_hash(const void *k)
{
	const unsigned char *s = k;
	size_t n = strlen(k), len, used = 0;
	unsigned char buf[256], h[crypto_generichash_BYTES_MIN];
	crypto_generichash_state st;
	unsigned long v;

	crypto_generichash_init(&st, key, sizeof(key), sizeof(h));
	while (n) {
		int32_t cp = osp_utf8_unit(s, n, &len);

		if (used > sizeof(buf) - 4) {
			crypto_generichash_update(&st, buf, used);
			used = 0;
		}
		if (cp < 0x80) {
			buf[used++] = (unsigned char)cp;
		} else if (cp < 0x800) {
			buf[used++] = (unsigned char)(0xc0 | cp >> 6);
			buf[used++] = (unsigned char)(0x80 | (cp & 0x3f));
		} else {
			/* a valid sequence, as it is */
			memcpy(buf + used, s, len);
			used += len;
		}
		s += len;
		n -= len;
	}
	crypto_generichash_update(&st, buf, used);
	crypto_generichash_final(&st, h, sizeof(h));
	memcpy(&v, h, sizeof(v) < sizeof(h) ? sizeof(v) : sizeof(h));
	return v;
}

static int name_equal(const void *a, const void *b)
{
	const unsigned char *x = a, *y = b;
	size_t nx = strlen(a), ny = strlen(b), lx, ly;

	while (nx && ny) {
		if (osp_utf8_unit(x, nx, &lx) != osp_utf8_unit(y, ny, &ly))
			return 0;
		x += lx;
		nx -= lx;
		y += ly;
		ny -= ly;
	}
	return nx == ny;
}

int osp_name_same(const char *a, const char *b)
{
	return name_equal(a, b);
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
