/* SPDX-License-Identifier: MIT */
/*
 * The transport's map from a 64-bit key (a unique, a file handle) to a
 * node (ofs_tr_umap.c): a node is embedded in what it keys, which the
 * map neither allocates nor frees. Safe under threads.
 */
#ifndef OSPROF_FS_OFS_TR_UMAP_H
#define OSPROF_FS_OFS_TR_UMAP_H

#include <pthread.h>
#include <stdint.h>

struct ofs_tr_unode {
	uint64_t key;                /* never 0 */
	struct ofs_tr_unode *next;   /* under its bucket's lock */
};
#define OFS_TR_UMAP_BUCKETS 256u
struct ofs_tr_umap {
	struct ofs_tr_bucket {
		pthread_mutex_t mu;
		struct ofs_tr_unode *_Atomic head;
	} b[OFS_TR_UMAP_BUCKETS];
};
void ofs_tr_umap_init(struct ofs_tr_umap *m);
void ofs_tr_umap_destroy(struct ofs_tr_umap *m);
/* Add @n (its key set). Keys are unique: the caller never adds one twice. */
void ofs_tr_umap_put(struct ofs_tr_umap *m, struct ofs_tr_unode *n);
/*
 * Remove and return the node of @key, or NULL. An empty bucket is seen
 * without its lock: a key is looked up only after it was added, by the
 * same thread or one that synchronised with it.
 */
struct ofs_tr_unode *ofs_tr_umap_take(struct ofs_tr_umap *m, uint64_t key);

#endif /* OSPROF_FS_OFS_TR_UMAP_H */
