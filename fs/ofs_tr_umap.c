// SPDX-License-Identifier: MIT
/*
 * The transport's map from a 64-bit key to a node (ofs_tr_umap.h): the
 * requests whose replies the transport handles, by unique, and the
 * backing ids waiting for their OPEN or CREATE reply, by file handle.
 * Put and take under the bucket's lock; the common look-up of a key
 * nobody put sees an empty bucket without it.
 */
#include <stdatomic.h>

#include "ofs_tr_umap.h"

void ofs_tr_umap_init(struct ofs_tr_umap *m)
{
	for (unsigned i = 0; i < OFS_TR_UMAP_BUCKETS; i++) {
		pthread_mutex_init(&m->b[i].mu, NULL);
		atomic_init(&m->b[i].head, NULL);
	}
}

void ofs_tr_umap_destroy(struct ofs_tr_umap *m)
{
	for (unsigned i = 0; i < OFS_TR_UMAP_BUCKETS; i++)
		pthread_mutex_destroy(&m->b[i].mu);
}

static struct ofs_tr_bucket *bucket_of(struct ofs_tr_umap *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return &m->b[(h >> 56) & (OFS_TR_UMAP_BUCKETS - 1)];
}

void ofs_tr_umap_put(struct ofs_tr_umap *m, struct ofs_tr_unode *n)
{
	struct ofs_tr_bucket *b = bucket_of(m, n->key);

	pthread_mutex_lock(&b->mu);
	n->next = atomic_load_explicit(&b->head, memory_order_relaxed);
	atomic_store_explicit(&b->head, n, memory_order_release);
	pthread_mutex_unlock(&b->mu);
}

struct ofs_tr_unode *ofs_tr_umap_take(struct ofs_tr_umap *m, uint64_t key)
{
	struct ofs_tr_bucket *b = bucket_of(m, key);
	struct ofs_tr_unode *n, **pp;

	/* The common reply, of a request nobody noted: no lock. */
	if (!atomic_load_explicit(&b->head, memory_order_acquire))
		return NULL;
	pthread_mutex_lock(&b->mu);
	pp = (struct ofs_tr_unode **)&b->head;
	for (n = *pp; n && n->key != key; n = n->next)
		pp = &n->next;
	if (n) {
		if (pp == (struct ofs_tr_unode **)&b->head)
			atomic_store_explicit(&b->head, n->next, memory_order_release);
		else
			*pp = n->next;
	}
	pthread_mutex_unlock(&b->mu);
	return n;
}
