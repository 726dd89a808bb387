// SPDX-License-Identifier: MIT
/*
 * A hash index of names to positions: the one by-name lookup of core for
 * anything whose size a file decides (the operations of a profile, the
 * counters of an operation), so that reading, merging and comparing stay
 * linear in the number of operations.
 *
 * Open addressing with linear probing, at most half full. The hash is
 * SipHash-2-4 under a key drawn at random once per process: the names come
 * from files, and a fixed hash would let a file choose names that all
 * collide, making every lookup a walk over all of them again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "osprof/profile.h"

struct ix_slot {
	uint64_t hash;
	const char *name; /* borrowed; NULL: free slot */
	size_t pos;
};

struct osp_name_index {
	size_t n;    /* names held */
	size_t mask; /* slots - 1, slots a power of two */
	struct ix_slot *slot;
};

static uint64_t sip_key[2];
static pthread_once_t sip_once = PTHREAD_ONCE_INIT;

static void sip_key_init(void)
{
	struct timespec ts;

	if (getrandom(sip_key, sizeof(sip_key), GRND_NONBLOCK) == sizeof(sip_key))
		return;
	/* No entropy yet (early boot): still a key no file can know. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sip_key[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	sip_key[1] = (uint64_t)(uintptr_t)&ts ^ ((uint64_t)ts.tv_sec << 32);
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                       \
	do {                                                           \
		v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
		v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2;                 \
		v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0;                 \
		v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
	} while (0)

/* SipHash-2-4 of @len bytes at @in (Aumasson and Bernstein, 2012). */
static uint64_t siphash(const unsigned char *in, size_t len)
{
	uint64_t k0 = sip_key[0], k1 = sip_key[1];
	uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
	uint64_t b = (uint64_t)len << 56, m;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		m = 0;
		for (int k = 7; k >= 0; k--)
			m = m << 8 | in[i + (size_t)k];
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (int k = 0; i + (size_t)k < len; k++)
		b |= (uint64_t)in[i + (size_t)k] << (8 * k);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t name_hash(const char *name)
{
	pthread_once(&sip_once, sip_key_init);
	return siphash((const unsigned char *)name, strlen(name));
}

/* The slot holding @name, or the free slot where it would go. */
static struct ix_slot *ix_probe(const struct osp_name_index *ix, uint64_t h,
				const char *name)
{
	for (size_t i = (size_t)h & ix->mask;; i = (i + 1) & ix->mask) {
		struct ix_slot *s = &ix->slot[i];

		if (!s->name || (s->hash == h && strcmp(s->name, name) == 0))
			return s;
	}
}

static int ix_resize(struct osp_name_index *ix, size_t slots)
{
	struct osp_name_index grown = { ix->n, slots - 1, calloc(slots, sizeof(struct ix_slot)) };

	if (!grown.slot)
		return -ENOMEM;
	for (size_t i = 0; ix->slot && i <= ix->mask; i++)
		if (ix->slot[i].name)
			*ix_probe(&grown, ix->slot[i].hash, ix->slot[i].name) = ix->slot[i];
	free(ix->slot);
	*ix = grown;
	return 0;
}

struct osp_name_index *osp_name_index_new(size_t hint)
{
	struct osp_name_index *ix = calloc(1, sizeof(*ix));
	size_t slots = 16;

	/* Room for @hint names at most half full, so no growth on the way. */
	while (slots / 2 < hint && slots < SIZE_MAX / 4)
		slots *= 2;
	if (ix && ix_resize(ix, slots)) {
		free(ix);
		return NULL;
	}
	return ix;
}

void osp_name_index_free(struct osp_name_index *ix)
{
	if (!ix)
		return;
	free(ix->slot);
	free(ix);
}

int osp_name_index_add(struct osp_name_index *ix, const char *name, size_t pos)
{
	uint64_t h = name_hash(name);
	struct ix_slot *s = ix_probe(ix, h, name);

	if (s->name)
		return -EEXIST;
	if (2 * (ix->n + 1) > ix->mask + 1) {
		if (ix_resize(ix, 2 * (ix->mask + 1)))
			return -ENOMEM;
		s = ix_probe(ix, h, name);
	}
	s->hash = h;
	s->name = name;
	s->pos = pos;
	ix->n++;
	return 0;
}

size_t osp_name_index_find(const struct osp_name_index *ix, const char *name)
{
	const struct ix_slot *s = ix_probe(ix, name_hash(name), name);

	return s->name ? s->pos : SIZE_MAX;
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
