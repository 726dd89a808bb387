// SPDX-License-Identifier: MIT
/*
 * The operations of the JSON reader (read_json.h), walked over the text
 * with json_scan.c: no json-c tree is built for an operation but for its
 * unknown keys, kept as JSON text in its attrs. Each is checked for what
 * no recording can produce: min above max, values with a count of 0,
 * buckets out of range, repeated or adding up past 2^64 - 1, names
 * repeated (through a hash index) or holding a NUL.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/parse.h"
#include "read_json.h"

/* The members of an operation (and, but for name, cpu and counters, of a
 * histogram) that the format knows. */
enum op_key {
	OK_NAME, OK_COUNT, OK_SUM, OK_MIN, OK_MAX, OK_BUCKETS, OK_CPU,
	OK_COUNTERS, OK__COUNT
};

static const char *const op_keys[] = {
	[OK_NAME] = "name", [OK_COUNT] = "count", [OK_SUM] = "sum",
	[OK_MIN] = "min", [OK_MAX] = "max", [OK_BUCKETS] = "buckets",
	[OK_CPU] = "cpu", [OK_COUNTERS] = "counters",
};
_Static_assert(sizeof(op_keys) / sizeof(op_keys[0]) == OK__COUNT,
	       "a name for every key of an operation");

struct members {
	bool has[OK__COUNT];
	struct js_span v[OK__COUNT]; /* of a repeated key, the last */
	size_t nother;               /* keys the format does not know */
};

static int collect_members(struct rd *rd, const char *path,
			   const struct js_span *obj, struct members *m)
{
	struct js_span k, v;
	struct js_iter it;
	char key[16];
	unsigned i;

	memset(m, 0, sizeof(*m));
	if (js_open(&rd->js, obj, '{', &it))
		return osp_rj_fail(rd, path, "must be an object");
	while (js_next(&rd->js, &it, &k, &v) == 1) {
		if (osp_rj_key(rd, path, &k, key, sizeof(key)))
			return -EINVAL;
		if (osp_parse_name(key, op_keys, OK__COUNT, &i) == 0) {
			m->has[i] = true;
			m->v[i] = v;
		} else {
			m->nother++;
		}
	}
	return 0;
}

/* The [index, count] pairs of the histogram at @path. */
static int read_buckets(struct rd *rd, const char *path, const struct js_span *arr,
			struct osp_hist *h)
{
	const char *dot = *path ? "." : "";
	struct js_span pair, e[3];
	struct js_iter it, pit;
	uint64_t total = 0;
	long last = -1;
	size_t n = 0;
	char p[256];

	if (js_open(&rd->js, arr, '[', &it)) {
		osp_rj_subpath(p, sizeof(p), "%s%sbuckets", path, dot);
		return osp_rj_fail(rd, p, "must be an array of [index, count] pairs");
	}
	while (js_next(&rd->js, &it, NULL, &pair) == 1)
		n++;
	/* Exactly the room the pairs need (at most one per bucket). */
	if (osp_hist_reserve(h, n < OSP_HIST_NBUCKETS_MAX ? (unsigned)n : OSP_HIST_NBUCKETS_MAX))
		return osp_rj_fail(rd, path, "out of memory");
	js_open(&rd->js, arr, '[', &it);
	for (size_t i = 0; js_next(&rd->js, &it, NULL, &pair) == 1; i++) {
		const char *why = NULL;
		uint64_t idx = 0, cnt = 0;
		size_t k = 0;

		if (js_open(&rd->js, &pair, '[', &pit))
			why = "must be an [index, count] pair";
		while (!why && k < 3 && js_next(&rd->js, &pit, NULL, &e[k]) == 1)
			k++;
		if (!why && k != 2)
			why = "must be an [index, count] pair";
		if (!why)
			why = osp_rj_u64_of(rd, &e[0], &idx);
		if (!why)
			why = osp_rj_u64_of(rd, &e[1], &cnt);
		if (!why && idx < OSP_HIST_NBUCKETS(h->res) && (long)idx <= last)
			why = "indices must ascend without repeats";
		/* A wrapped total could pass the checksum against count. */
		if (!why && cnt > UINT64_MAX - total)
			why = "the buckets add up to more than 2^64 - 1";
		if (!why && idx < OSP_HIST_NBUCKETS(h->res) &&
		    osp_hist_bucket_set(h, (unsigned)idx, cnt))
			why = "out of memory";
		if (!why && idx < OSP_HIST_NBUCKETS(h->res)) {
			last = (long)idx;
			total += cnt;
			continue;
		}
		osp_rj_subpath(p, sizeof(p), "%s%sbuckets[%zu]", path, dot, i);
		if (why)
			return osp_rj_fail(rd, p, "%s", why);
		return osp_rj_fail(rd, p, "index %llu out of range for resolution %u (0..%u)",
				   (unsigned long long)idx, h->res, OSP_HIST_NBUCKETS(h->res) - 1);
	}
	return 0;
}

/* What no recording can produce, whatever the buckets say. */
static int check_hist(struct rd *rd, const char *path, const struct osp_hist *h)
{
	char p[256];

	switch (osp_hist_fault(h)) {
	case OSP_HIST_FAULT_MIN_OVER_MAX:
		osp_rj_subpath(p, sizeof(p), "%s%smin", path, *path ? "." : "");
		return osp_rj_fail(rd, p, "%llu is greater than max (%llu)",
				   (unsigned long long)h->min, (unsigned long long)h->max);
	case OSP_HIST_FAULT_VALUES_NO_COUNT:
		osp_rj_subpath(p, sizeof(p), "%s%scount", path, *path ? "." : "");
		return osp_rj_fail(rd, p, "is 0 but sum, min or max is not");
	case OSP_HIST_FAULT_NONE:
		break;
	}
	return 0;
}

/* The histogram whose members (count, sum, ...) are @m, at @path. */
static int read_hist(struct rd *rd, const char *path, const struct members *m,
		     struct osp_hist *h)
{
	static const enum op_key keys[] = { OK_COUNT, OK_SUM, OK_MIN, OK_MAX };
	uint64_t *fields[] = { &h->count, &h->sum, &h->min, &h->max };
	int err = 0;

	for (size_t i = 0; !err && i < 4; i++)
		if (m->has[keys[i]])
			err = osp_rj_u64(rd, path, op_keys[keys[i]], &m->v[keys[i]], fields[i]);
	if (!err)
		err = check_hist(rd, path, h);
	if (err)
		return err;
	if (!m->has[OK_BUCKETS]) {
		char p[256];

		osp_rj_subpath(p, sizeof(p), "%s%sbuckets", path, *path ? "." : "");
		return osp_rj_fail(rd, p, "missing");
	}
	return read_buckets(rd, path, &m->v[OK_BUCKETS], h);
}

/* The counters of an op: an object of unsigned integers by name. */
static int read_counters(struct rd *rd, const char *path, const struct js_span *obj,
			 struct osp_op *op)
{
	size_t n = osp_rj_count(rd, obj, '{');
	struct osp_name_index *ix;
	struct js_span k, v;
	struct js_iter it;
	int err = 0;

	if (js_open(&rd->js, obj, '{', &it))
		return osp_rj_fail(rd, path, "must be an object");
	op->counters = calloc(n + 1, sizeof(*op->counters));
	ix = osp_name_index_new(n);
	if (!op->counters || !ix)
		err = osp_rj_fail(rd, path, "out of memory");
	while (!err && js_next(&rd->js, &it, &k, &v) == 1) {
		struct osp_counter *c = &op->counters[op->ncounters];
		size_t pos;

		err = osp_rj_key_str(rd, path, &k, &c->name);
		if (!err)
			err = osp_rj_u64(rd, path, c->name, &v, &c->value);
		pos = err ? SIZE_MAX : osp_name_index_find(ix, c->name);
		if (pos != SIZE_MAX) {
			/* A repeated name: the last value counts, as json-c's would. */
			op->counters[pos].value = c->value;
		} else if (!err && osp_name_index_add(ix, c->name, op->ncounters)) {
			err = osp_rj_fail(rd, path, "out of memory");
		} else if (!err) {
			op->ncounters++;
			continue;
		}
		free(c->name);
		c->name = NULL;
	}
	osp_name_index_free(ix);
	return err;
}

/* Keys of op @obj the format does not know, kept as JSON text in attrs. */
static int read_attrs(struct rd *rd, const char *path, const struct js_span *obj,
		      size_t n, struct osp_op *op)
{
	struct osp_name_index *ix = osp_name_index_new(n);
	struct js_span k, v;
	struct js_iter it;
	char key[16];
	unsigned i;
	int err = 0;

	op->attrs.items = calloc(n, sizeof(*op->attrs.items));
	if (!ix || !op->attrs.items)
		err = osp_rj_fail(rd, path, "out of memory");
	js_open(&rd->js, obj, '{', &it);
	while (!err && js_next(&rd->js, &it, &k, &v) == 1) {
		struct osp_kv *kv = &op->attrs.items[op->attrs.n];
		struct json_object *o;
		size_t pos;

		err = osp_rj_key(rd, path, &k, key, sizeof(key));
		if (!err && osp_parse_name(key, op_keys, OK__COUNT, &i) == 0)
			continue;
		if (!err)
			err = osp_rj_key_str(rd, path, &k, &kv->key);
		if (!err)
			err = osp_rj_parse(rd, path, &v, &o);
		if (!err) {
			kv->json = strdup(osp_rj_json_text(o));
			json_object_put(o);
			if (!kv->json)
				err = osp_rj_fail(rd, path, "out of memory");
		}
		pos = err ? SIZE_MAX : osp_name_index_find(ix, kv->key);
		if (pos != SIZE_MAX) {
			/* A repeated key: the last value counts, as json-c's would. */
			free(op->attrs.items[pos].json);
			op->attrs.items[pos].json = kv->json;
			kv->json = NULL;
		} else if (!err && osp_name_index_add(ix, kv->key, op->attrs.n)) {
			err = osp_rj_fail(rd, path, "out of memory");
		} else if (!err) {
			op->attrs.n++;
			continue;
		}
		free(kv->key);
		free(kv->json);
		kv->key = kv->json = NULL;
	}
	osp_name_index_free(ix);
	return err;
}

/* One operation from its text @v. */
static int read_op(struct rd *rd, const char *path, const struct js_span *v,
		   struct osp_op *op)
{
	struct members m, cm;
	char p[256];
	int err = collect_members(rd, path, v, &m);

	if (err)
		return err;
	if (!m.has[OK_NAME]) {
		osp_rj_subpath(p, sizeof(p), "%s.name", path);
		return osp_rj_fail(rd, p, "missing");
	}
	err = osp_rj_str(rd, path, "name", &m.v[OK_NAME], true, &op->name);
	if (err)
		return err;
	osp_hist_init(&op->lat, rd->res);
	op->has_cpu = m.has[OK_CPU];
	if (op->has_cpu)
		osp_hist_init(&op->cpu, rd->res);
	err = read_hist(rd, path, &m, &op->lat);
	if (!err && op->has_cpu) {
		osp_rj_subpath(p, sizeof(p), "%s.cpu", path);
		err = collect_members(rd, p, &m.v[OK_CPU], &cm);
		if (!err)
			err = read_hist(rd, p, &cm, &op->cpu);
	}
	if (!err && m.has[OK_COUNTERS]) {
		osp_rj_subpath(p, sizeof(p), "%s.counters", path);
		err = read_counters(rd, p, &m.v[OK_COUNTERS], op);
	}
	if (!err && m.nother)
		err = read_attrs(rd, path, v, m.nother, op);
	/* The name and keys said so themselves; a string in an attribute not. */
	if (!err && v->nul)
		err = osp_rj_fail(rd, path, "a key or string holds a NUL character (\\u0000)");
	return err;
}

int osp_rj_read_ops(struct rd *rd, const char *path, const struct js_span *arr,
		    struct osp_op **ops_out, size_t *n_out)
{
	size_t n = osp_rj_count(rd, arr, '[');
	struct osp_name_index *ix;
	struct js_span v;
	struct js_iter it;
	uint64_t total = 0;
	int err = 0;

	if (js_open(&rd->js, arr, '[', &it))
		return osp_rj_fail(rd, path, "must be an array");
	*ops_out = calloc(n ? n : 1, sizeof(**ops_out));
	if (!*ops_out)
		return osp_rj_fail(rd, path, "out of memory");
	*n_out = 0;
	ix = osp_name_index_new(n);
	if (!ix)
		return osp_rj_fail(rd, path, "out of memory");
	for (size_t i = 0; !err && js_next(&rd->js, &it, NULL, &v) == 1; i++) {
		struct osp_op *op = &(*ops_out)[i];
		char p[256];

		osp_rj_subpath(p, sizeof(p), "%s[%zu]", path, i);
		err = read_op(rd, p, &v, op);
		*n_out = i + 1; /* the caller frees what was (partly) built */
		if (!err)
			err = osp_name_index_add(ix, op->name, i);
		if (err == -EEXIST)
			err = osp_rj_fail(rd, p, "duplicate operation name \"%s\"", op->name);
		else if (err == -ENOMEM)
			err = osp_rj_fail(rd, p, "out of memory");
		/* Requests past 2^64 cannot be, and would wrap every total. */
		if (!err && op->lat.count > UINT64_MAX - total)
			err = osp_rj_fail(rd, p, "count: the operations' counts add up to more than 2^64 - 1");
		total += err ? 0 : op->lat.count;
	}
	osp_name_index_free(ix);
	return err;
}

