// SPDX-License-Identifier: MIT
/*
 * The profile data model: construction, deep copy and destruction of
 * profiles, operations and key/value lists; checksum verification; merging.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "osprof/escape.h"
#include "osprof/layers.h"
#include "osprof/profile.h"

int osp_str_set(char **field, const char *val)
{
	char *copy = NULL;

	if (val) {
		copy = strdup(val);
		if (!copy)
			return -ENOMEM;
	}
	free(*field);
	*field = copy;
	return 0;
}

struct osp_profile *osp_profile_new(const char *layer, unsigned res)
{
	struct osp_profile *p;

	if (!osp_res_valid(res))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->version = OSP_FORMAT_VERSION;
	p->res = res;
	p->cycles_per_ns = 1.0;
	if (osp_str_set(&p->layer, layer ? layer : OSP_LAYER_FS) ||
	    osp_str_set(&p->unit, "ns") ||
	    osp_str_set(&p->clock_source, "monotonic")) {
		osp_profile_free(p);
		return NULL;
	}
	return p;
}

static void ops_free(struct osp_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++)
		osp_op_fini(&ops[i]);
	free(ops);
}

void osp_profile_free(struct osp_profile *p)
{
	if (!p)
		return;
	free(p->layer);
	free(p->host);
	free(p->clock_source);
	free(p->unit);
	osp_kv_free(&p->source);
	osp_kv_free(&p->options);
	ops_free(p->ops, p->nops);
	osp_profile_drop_timeline(p);
	free(p);
}

void osp_profile_drop_timeline(struct osp_profile *p)
{
	for (size_t i = 0; i < p->nsnaps; i++)
		ops_free(p->snaps[i].ops, p->snaps[i].nops);
	free(p->snaps);
	p->snaps = NULL;
	p->nsnaps = 0;
	p->tl_interval_ns = 0;
	p->tl_dropped = 0;
}

int osp_op_init(struct osp_op *op, const char *name, unsigned res,
		bool has_cpu)
{
	int err;

	memset(op, 0, sizeof(*op));
	op->name = strdup(name);
	if (!op->name)
		return -ENOMEM;
	err = osp_hist_init(&op->lat, res);
	if (!err && has_cpu)
		err = osp_hist_init(&op->cpu, res);
	if (err) {
		osp_op_fini(op);
		return err;
	}
	op->has_cpu = has_cpu;
	return 0;
}

void osp_op_fini(struct osp_op *op)
{
	free(op->name);
	osp_hist_fini(&op->lat);
	osp_hist_fini(&op->cpu);
	for (size_t i = 0; i < op->ncounters; i++)
		free(op->counters[i].name);
	free(op->counters);
	osp_kv_free(&op->attrs);
	memset(op, 0, sizeof(*op));
}

int osp_op_copy(struct osp_op *dst, const struct osp_op *src)
{
	int err;

	memset(dst, 0, sizeof(*dst));
	dst->name = strdup(src->name);
	if (!dst->name)
		return -ENOMEM;
	err = osp_hist_copy(&dst->lat, &src->lat);
	if (!err && src->has_cpu)
		err = osp_hist_copy(&dst->cpu, &src->cpu);
	dst->has_cpu = src->has_cpu;
	for (size_t i = 0; !err && i < src->ncounters; i++)
		err = osp_op_add_counter(dst, src->counters[i].name,
					 src->counters[i].value);
	if (!err)
		err = osp_kv_copy(&dst->attrs, &src->attrs);
	if (err)
		osp_op_fini(dst);
	return err;
}

int osp_op_add_counter(struct osp_op *op, const char *name, uint64_t value)
{
	struct osp_counter *c;
	char *copy = strdup(name);

	if (!copy)
		return -ENOMEM;
	c = realloc(op->counters, (op->ncounters + 1) * sizeof(*c));
	if (!c) {
		free(copy);
		return -ENOMEM;
	}
	op->counters = c;
	c[op->ncounters].name = copy;
	c[op->ncounters].value = value;
	op->ncounters++;
	return 0;
}

/* Room for @n ops in @p, growing geometrically: 0 or -ENOMEM. */
static int ops_reserve(struct osp_profile *p, size_t n)
{
	size_t cap = p->ops_cap > p->nops ? p->ops_cap : p->nops;
	struct osp_op *ops;

	if (n <= cap)
		return 0;
	if (n < 2 * cap)
		n = 2 * cap;
	if (n > SIZE_MAX / sizeof(*ops))
		return -ENOMEM;
	ops = realloc(p->ops, n * sizeof(*ops));
	if (!ops)
		return -ENOMEM;
	p->ops = ops;
	p->ops_cap = n;
	return 0;
}

struct osp_op *osp_profile_add_op(struct osp_profile *p, const char *name,
				  bool has_cpu)
{
	if (ops_reserve(p, p->nops + 1) ||
	    osp_op_init(&p->ops[p->nops], name, p->res, has_cpu))
		return NULL;
	return &p->ops[p->nops++];
}

struct osp_op *osp_profile_find_op(const struct osp_profile *p,
				   const char *name)
{
	for (size_t i = 0; i < p->nops; i++)
		if (osp_name_same(p->ops[i].name, name))
			return &p->ops[i];
	return NULL;
}

int osp_kv_set_json(struct osp_kvlist *l, const char *key, const char *json)
{
	char *val = strdup(json);
	struct osp_kv *items;

	if (!val)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].key, key) == 0) {
			free(l->items[i].json);
			l->items[i].json = val;
			return 0;
		}
	}
	items = realloc(l->items, (l->n + 1) * sizeof(*items));
	if (!items)
		goto nomem;
	l->items = items;
	items[l->n].key = strdup(key);
	if (!items[l->n].key)
		goto nomem;
	items[l->n].json = val;
	l->n++;
	return 0;
nomem:
	free(val);
	return -ENOMEM;
}

int osp_kv_set_str(struct osp_kvlist *l, const char *key, const char *val)
{
	char *json = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&json, &len);
	int err;

	if (!mem)
		return -ENOMEM;
	osp_esc_json(mem, val);
	err = fclose(mem) != 0 || !json ? -ENOMEM : osp_kv_set_json(l, key, json);
	free(json);
	return err;
}

int osp_kv_set_num(struct osp_kvlist *l, const char *key, double val)
{
	char buf[64];

	if (!isfinite(val))
		return osp_kv_set_json(l, key, "null");
	snprintf(buf, sizeof(buf), "%.17g", val);
	/* Keep it a JSON number that reads back as a double (1 -> 1.0). */
	if (!strpbrk(buf, ".eE"))
		strcat(buf, ".0");
	return osp_kv_set_json(l, key, buf);
}

int osp_kv_set_u64(struct osp_kvlist *l, const char *key, uint64_t val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, val);
	return osp_kv_set_json(l, key, buf);
}

int osp_kv_set_bool(struct osp_kvlist *l, const char *key, bool val)
{
	return osp_kv_set_json(l, key, val ? "true" : "false");
}

const char *osp_kv_get(const struct osp_kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].json;
	return NULL;
}

char *osp_kv_text(const struct osp_kv *kv)
{
	struct json_object *v = json_tokener_parse(kv->json);
	char *text;

	if (v && json_object_is_type(v, json_type_string))
		text = strdup(json_object_get_string(v));
	else
		text = strdup(kv->json);
	json_object_put(v);
	return text;
}

int osp_kv_print(FILE *out, const struct osp_kvlist *l,
		 void (*esc)(FILE *out, const char *s))
{
	for (size_t i = 0; i < l->n; i++) {
		char *v = osp_kv_text(&l->items[i]);

		if (!v)
			return -ENOMEM;
		fputc(' ', out);
		esc(out, l->items[i].key);
		fputc('=', out);
		esc(out, v);
		free(v);
	}
	return 0;
}

void osp_kv_free(struct osp_kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].json);
	}
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

int osp_kv_copy(struct osp_kvlist *dst, const struct osp_kvlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++) {
		int err = osp_kv_set_json(dst, src->items[i].key,
					  src->items[i].json);
		if (err) {
			osp_kv_free(dst);
			return err;
		}
	}
	return 0;
}

static size_t check_ops(const struct osp_op *ops, size_t n, const char *where,
			FILE *warn)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		const struct osp_hist *h[2] = { &ops[i].lat, &ops[i].cpu };

		for (int k = 0; k < (ops[i].has_cpu ? 2 : 1); k++) {
			uint64_t total = osp_hist_bucket_total(h[k]);

			if (osp_hist_checksum_ok(h[k]))
				continue;
			bad++;
			if (!warn)
				continue;
			/* A name from a file: escaped, it keeps to one line. */
			fprintf(warn, "warning: %s", where);
			osp_esc_text(warn, ops[i].name);
			fprintf(warn, "%s: buckets add up to %" PRIu64 ", count says %" PRIu64 "\n",
				k ? " (cpu)" : "", total, h[k]->count);
		}
	}
	return bad;
}

size_t osp_profile_check(const struct osp_profile *p, FILE *warn)
{
	size_t bad = check_ops(p->ops, p->nops, "", warn);

	for (size_t s = 0; s < p->nsnaps; s++) {
		char where[64];

		snprintf(where, sizeof(where), "timeline[%zu] ", s);
		bad += check_ops(p->snaps[s].ops, p->snaps[s].nops, where, warn);
	}
	return bad;
}

/* Add @src's counters to @d's, by name (through an index: a file may hold
 * thousands), new ones appended: 0, -EOVERFLOW (a sum would pass
 * 2^64 - 1), -ENOMEM. */
static int counters_merge(struct osp_op *d, const struct osp_op *src)
{
	struct osp_name_index *ix;
	int rc = 0;

	if (!src->ncounters)
		return 0;
	ix = osp_name_index_new(d->ncounters + src->ncounters);
	if (!ix)
		return -ENOMEM;
	for (size_t k = 0; !rc && k < d->ncounters; k++)
		if (osp_name_index_add(ix, d->counters[k].name, k) == -ENOMEM)
			rc = -ENOMEM;
	for (size_t c = 0; !rc && c < src->ncounters; c++) {
		const struct osp_counter *sc = &src->counters[c];
		size_t k = osp_name_index_find(ix, sc->name);

		if (k != SIZE_MAX) {
			if (d->counters[k].value > UINT64_MAX - sc->value)
				rc = -EOVERFLOW;
			else
				d->counters[k].value += sc->value;
			continue;
		}
		rc = osp_op_add_counter(d, sc->name, sc->value);
		k = d->ncounters - 1;
		if (!rc && osp_name_index_add(ix, d->counters[k].name, k) == -ENOMEM)
			rc = -ENOMEM;
	}
	osp_name_index_free(ix);
	return rc;
}

/* Add op @so into op @d of the same name: 0, -EOVERFLOW, -ENOMEM. */
static int op_merge(struct osp_op *d, const struct osp_op *so)
{
	int rc = osp_hist_merge(&d->lat, &so->lat);

	if (!rc && so->has_cpu && d->has_cpu)
		rc = osp_hist_merge(&d->cpu, &so->cpu);
	if (!rc)
		rc = counters_merge(d, so);
	return rc;
}

/* Everything that refuses a merge, checked before anything changes; the
 * ops only @src has are added to @ix at the positions they will take. */
static int merge_check(struct osp_profile *dst, const struct osp_profile *src,
		       struct osp_name_index *ix, size_t *nnew, char *err,
		       size_t errlen)
{
	if (dst->res != src->res) {
		snprintf(err, errlen,
			 "resolutions differ (%u and %u): profiles cannot be added bucket by bucket",
			 dst->res, src->res);
		return -EINVAL;
	}
	if (strcmp(dst->unit ? dst->unit : "", src->unit ? src->unit : "") != 0) {
		snprintf(err, errlen, "units differ (%s and %s)",
			 dst->unit ? dst->unit : "?", src->unit ? src->unit : "?");
		return -EINVAL;
	}
	if (dst->elapsed_ns > UINT64_MAX - src->elapsed_ns) {
		snprintf(err, errlen, "elapsed times add up to more than 2^64 - 1 ns");
		return -EOVERFLOW;
	}
	*nnew = 0;
	for (size_t i = 0; i < src->nops; i++) {
		const struct osp_op *so = &src->ops[i];
		size_t pos = osp_name_index_find(ix, so->name);
		const struct osp_op *d;

		if (pos == SIZE_MAX) {
			if (osp_name_index_add(ix, so->name, dst->nops + *nnew)) {
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			++*nnew;
			continue;
		}
		if (pos >= dst->nops)
			continue; /* a name @src repeats: merged into its first */
		d = &dst->ops[pos];
		if (so->has_cpu && d->has_cpu && d->cpu.res != so->cpu.res) {
			snprintf(err, errlen, "op %s: cpu resolutions differ", so->name);
			return -EINVAL;
		}
	}
	return 0;
}

int osp_profile_merge(struct osp_profile *dst, const struct osp_profile *src,
		      char *err, size_t errlen)
{
	struct osp_name_index *ix = osp_name_index_ops(dst->ops, dst->nops);
	size_t nnew;
	int rc;

	if (!ix) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = merge_check(dst, src, ix, &nnew, err, errlen);
	if (!rc && ops_reserve(dst, dst->nops + nnew)) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
	}
	/* Room is reserved: the ops do not move from here on. */
	for (size_t i = 0; !rc && i < src->nops; i++) {
		const struct osp_op *so = &src->ops[i];
		size_t pos = osp_name_index_find(ix, so->name);

		if (pos == dst->nops) {
			rc = osp_op_copy(&dst->ops[pos], so);
			if (!rc)
				dst->nops++;
		} else {
			rc = op_merge(&dst->ops[pos], so);
		}
		if (rc == -EOVERFLOW)
			snprintf(err, errlen, "op %s: counts would pass 2^64 - 1", so->name);
		else if (rc)
			snprintf(err, errlen, "op %s: out of memory", so->name);
	}
	if (!rc)
		dst->elapsed_ns += src->elapsed_ns;
	osp_name_index_free(ix);
	return rc;
}

size_t osp_block_split(const char *name, const char **op)
{
	const char *dot = strrchr(name, '.');

	if (dot && dot > name && strcmp(dot + 1, "queue") == 0) {
		const char *before = memrchr(name, '.', (size_t)(dot - name));

		if (before)
			dot = before;
	}
	if (!dot || dot == name || !dot[1]) {
		*op = name;
		return 0;
	}
	*op = dot + 1;
	return (size_t)(dot - name);
}
