/* SPDX-License-Identifier: MIT */
/*
 * A profile: the plain, owned data of one profile set as DESIGN.md's JSON
 * format describes it -- metadata, one latency histogram (and optionally a
 * CPU-time histogram) per named operation, and an optional timeline of
 * per-interval snapshots. Writers (format.h) print it, the JSON reader
 * builds it, the report tool analyses it. Not thread-safe; no hidden state.
 *
 * Free-form metadata ("source", "options") is kept as an ordered list of
 * key / JSON-literal pairs, so any value round-trips unchanged.
 */
#ifndef OSPROF_PROFILE_H
#define OSPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"

#define OSP_FORMAT_VERSION 1

/* One key and its value as JSON text ("\"auto\"", "1.5", "false", ...). */
struct osp_kv {
	char *key;
	char *json;
};

struct osp_kvlist {
	size_t n;
	struct osp_kv *items;
};

/* A named extra counter of an operation (e.g. an IRQ line's PMC sums). */
struct osp_counter {
	char *name;
	uint64_t value;
};

struct osp_op {
	char *name;
	struct osp_hist lat;          /* latency histogram */
	bool has_cpu;                 /* cpu holds a CPU-time histogram */
	struct osp_hist cpu;          /* CPU time per request (same res) */
	size_t ncounters;
	struct osp_counter *counters; /* optional extra counters */
	struct osp_kvlist attrs;      /* optional extra keys (layer-specific) */
};

struct osp_snapshot {
	uint64_t t_ns; /* end of the interval, ns since the profile's start */
	size_t nops;
	struct osp_op *ops; /* the interval's deltas; only non-empty ops */
};

struct osp_profile {
	int version;             /* OSP_FORMAT_VERSION */
	char *layer;             /* "fs", "lower", "block", "irq" */
	char *host;
	struct osp_kvlist source;  /* where it was taken: mount, lower, pid */
	char *clock_source;      /* "tsc", "cntvct", "monotonic" */
	double cycles_per_ns;
	unsigned res;            /* resolution of every histogram */
	char *unit;              /* "ns" */
	struct osp_kvlist options; /* settings that shape what was seen */
	uint64_t start_unix_ns;
	uint64_t elapsed_ns;
	size_t nops;
	size_t ops_cap;          /* room in ops; when under nops, exactly nops */
	struct osp_op *ops;
	/* timeline; tl_interval_ns == 0 means none */
	uint64_t tl_interval_ns;
	uint64_t tl_dropped;     /* snapshots dropped from a full ring */
	size_t nsnaps;
	struct osp_snapshot *snaps;
};

/*
 * osp_profile_new - an empty profile (version, unit "ns", layer @layer,
 * resolution @res, no ops). NULL on -ENOMEM or a bad resolution.
 */
struct osp_profile *osp_profile_new(const char *layer, unsigned res);
/* Free everything; NULL is accepted. */
void osp_profile_free(struct osp_profile *p);
/* Free @p's snapshots and zero its timeline fields: @p has no timeline. */
void osp_profile_drop_timeline(struct osp_profile *p);

/*
 * osp_profile_add_op - append an empty operation @name (copied); the ops
 * array grows geometrically, so appending n ops costs O(n). Returns the
 * new op or NULL (-ENOMEM). Pointers to earlier ops may move.
 */
struct osp_op *osp_profile_add_op(struct osp_profile *p, const char *name,
				  bool has_cpu);
/*
 * osp_profile_find_op - the first op named @name (as osp_name_same
 * compares names), or NULL. A linear search: for one lookup. Code that looks up every op of a profile
 * builds an osp_name_index instead.
 */
struct osp_op *osp_profile_find_op(const struct osp_profile *p,
				   const char *name);

/*
 * osp_block_split - layer block's operation "DEV.DIR" or "DEV.DIR.queue":
 * the length of DEV, and DIR (or "DIR.queue") in *@op. A name that is not
 * so has no device: 0, and the whole name is the op.
 */
size_t osp_block_split(const char *name, const char **op);

/*
 * A hash index of names to positions in an array (the ops of a profile,
 * the counters of an op), for matching or finding repeats in linear time
 * whatever a file holds: the hash is SipHash keyed at random per process,
 * so no file can choose names that collide. The index borrows the names:
 * they must outlive it unchanged. One writer; lookups may run together.
 */
struct osp_name_index;
/* An empty index with room for @hint names; NULL on -ENOMEM. */
struct osp_name_index *osp_name_index_new(size_t hint);
/* NULL is accepted. */
void osp_name_index_free(struct osp_name_index *ix);
/* Add @name at @pos: 0; -EEXIST when @name is there already (its position
 * kept); -ENOMEM. */
int osp_name_index_add(struct osp_name_index *ix, const char *name, size_t pos);
/* The position of @name, or SIZE_MAX when absent. */
size_t osp_name_index_find(const struct osp_name_index *ix, const char *name);
/* Whether names @a and @b are one: the same code points once each byte
 * that is not UTF-8 is taken as its Latin-1 one, as they read back from
 * JSON (the index's equality). */
int osp_name_same(const char *a, const char *b);
/* An index of the names of @ops[0 .. @n) (a repeated name: its first
 * position); NULL on -ENOMEM. */
struct osp_name_index *osp_name_index_ops(const struct osp_op *ops, size_t n);

/* Initialise @op as an empty operation @name at @res; 0 or -ENOMEM. */
int osp_op_init(struct osp_op *op, const char *name, unsigned res,
		bool has_cpu);
void osp_op_fini(struct osp_op *op);
/* Deep copy of @src into uninitialised @dst; 0 or -ENOMEM. */
int osp_op_copy(struct osp_op *dst, const struct osp_op *src);
/* Append counter @name = @value to @op; 0 or -ENOMEM. */
int osp_op_add_counter(struct osp_op *op, const char *name, uint64_t value);

/* Set @key to a JSON literal, replacing an earlier value; 0 or -ENOMEM. */
int osp_kv_set_json(struct osp_kvlist *l, const char *key, const char *json);
int osp_kv_set_str(struct osp_kvlist *l, const char *key, const char *val);
int osp_kv_set_num(struct osp_kvlist *l, const char *key, double val);
int osp_kv_set_u64(struct osp_kvlist *l, const char *key, uint64_t val);
int osp_kv_set_bool(struct osp_kvlist *l, const char *key, bool val);
/* The JSON literal of @key, or NULL. */
const char *osp_kv_get(const struct osp_kvlist *l, const char *key);
/*
 * osp_kv_text - the value of @kv for people: a JSON string's content
 * (decoded; up to a \u0000 it may hold), any other literal as it is. Not
 * escaped: pass it to an osprof/escape.h helper. A new string the caller
 * frees, or NULL (-ENOMEM).
 */
char *osp_kv_text(const struct osp_kv *kv);
/*
 * osp_kv_print - write @l to @out as " key=value" pairs (values as
 * osp_kv_text gives them), each key and value through @esc, the escaping
 * of the language @out is in (osprof/escape.h). 0 or -ENOMEM; stream
 * errors are left in @out's error flag.
 */
int osp_kv_print(FILE *out, const struct osp_kvlist *l,
		 void (*esc)(FILE *out, const char *s));
void osp_kv_free(struct osp_kvlist *l);
int osp_kv_copy(struct osp_kvlist *dst, const struct osp_kvlist *src);

/* Set a string field (layer, host, ...) to a copy of @val; 0 or -ENOMEM. */
int osp_str_set(char **field, const char *val);

/*
 * osp_profile_check - verify every histogram's checksum (buckets add up to
 * count), also in the snapshots. Writes one warning line per bad histogram
 * to @warn (when not NULL), naming it. Returns the number of bad ones.
 */
size_t osp_profile_check(const struct osp_profile *p, FILE *warn);

/*
 * osp_profile_merge - add @src into @dst operation by operation (ops only
 * in @src are appended), in time linear in the number of ops. Refuses,
 * with nothing changed and the reason in @err, profiles whose resolution,
 * unit or an op's cpu resolution differ (-EINVAL) or whose elapsed times
 * add up past 2^64 - 1 (-EOVERFLOW). A bucket, count, sum or counter that
 * would pass 2^64 - 1 (-EOVERFLOW, the op named in @err) or -ENOMEM
 * leaves @dst partly merged: discard it.
 */
int osp_profile_merge(struct osp_profile *dst, const struct osp_profile *src,
		      char *err, size_t errlen);

#endif /* OSPROF_PROFILE_H */
