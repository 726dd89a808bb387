// SPDX-License-Identifier: MIT
/*
 * The reader of osprof-fs's value profiles (-o values: MOUNT/.osprof/
 * values.json, or FILE.values.json beside a --dump FILE): external input,
 * so every field is checked and a refusal says why in one line. The
 * format: {"format": "osprof-values", "version": 1, "resolution": R,
 * "ops": [{"op": "read", "value": "size", "unit": "bytes", "buckets":
 * [[latency bucket, value bucket, count], ...]}, ...]}; value buckets as
 * osprof/values.h lays them out. Unknown keys are ignored; a newer version
 * is refused. Kept apart from the view (orp_values.c) for its fuzzer.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "orp_jread.h"

/* Member @key of @o when it has type @t: 0, or -EINVAL said. */
static int member(struct json_object *o, const char *key, enum json_type t,
		  struct json_object **out, const char *where, char *err, size_t errlen)
{
	if (!json_object_object_get_ex(o, key, out))
		return orp_jread_fail(err, errlen, "%s: no \"%s\"", where, key);
	if (!json_object_is_type(*out, t))
		return orp_jread_fail(err, errlen, "%s: \"%s\" is not %s", where, key,
			    t == json_type_int ? "a whole number" :
			    t == json_type_string ? "a string" :
			    t == json_type_array ? "an array" : "an object");
	return 0;
}

static int read_buckets(struct orp_vtable *t, unsigned nlat, struct json_object *arr,
			size_t ti, char *err, size_t errlen)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(arr, i);
		uint64_t lat, val, c, *cell;

		if (!json_object_is_type(b, json_type_array) || json_object_array_length(b) != 3)
			return orp_jread_fail(err, errlen, "ops[%zu].buckets[%zu]: expected [latency bucket, value bucket, count]",
				    ti, i);
		if (orp_jread_whole(json_object_array_get_idx(b, 0), nlat - 1, &lat) ||
		    orp_jread_whole(json_object_array_get_idx(b, 1), t->nval - 1, &val) ||
		    orp_jread_whole(json_object_array_get_idx(b, 2), UINT64_MAX, &c))
			return orp_jread_fail(err, errlen, "ops[%zu].buckets[%zu]: expected a latency bucket 0..%u, a %s bucket 0..%u and a count >= 0",
				    ti, i, nlat - 1, osp_value_kind_name(t->kind), t->nval - 1);
		cell = &t->cell[lat * t->nval + val];
		if (*cell > UINT64_MAX - c)
			return orp_jread_fail(err, errlen, "ops[%zu].buckets[%zu]: count overflows", ti, i);
		*cell += c;
	}
	return 0;
}

static int read_table(struct orp_values *v, struct json_object *o, size_t ti,
		      char *err, size_t errlen)
{
	struct orp_vtable *t = &v->t[v->n];
	struct json_object *op, *kind, *arr;
	char where[32];
	int k;

	snprintf(where, sizeof(where), "ops[%zu]", ti);
	if (!json_object_is_type(o, json_type_object))
		return orp_jread_fail(err, errlen, "%s is not an object", where);
	if (member(o, "op", json_type_string, &op, where, err, errlen) ||
	    member(o, "value", json_type_string, &kind, where, err, errlen) ||
	    member(o, "buckets", json_type_array, &arr, where, err, errlen))
		return -EINVAL;
	if (json_object_get_string_len(op) == 0 || json_object_get_string_len(op) >= ORP_VALUES_OPLEN ||
	    memchr(json_object_get_string(op), '\0', (size_t)json_object_get_string_len(op)))
		return orp_jread_fail(err, errlen, "%s: \"op\" must be a name of 1 to %d bytes", where,
			    ORP_VALUES_OPLEN - 1);
	k = osp_value_kind_parse(json_object_get_string(kind));
	if (k < 0)
		return orp_jread_fail(err, errlen, "%s: unknown \"value\" '%.40s' (size, seek or at_end)", where,
			    json_object_get_string(kind));
	for (size_t i = 0; i < v->n; i++)
		if ((int)v->t[i].kind == k && strcmp(v->t[i].op, json_object_get_string(op)) == 0)
			return orp_jread_fail(err, errlen, "%s: op '%s' value %s given twice", where,
				    v->t[i].op, osp_value_kind_name(v->t[i].kind));
	memcpy(t->op, json_object_get_string(op), (size_t)json_object_get_string_len(op) + 1);
	t->kind = (enum osp_value_kind)k;
	t->nval = osp_value_nbuckets(t->kind);
	t->cell = calloc((size_t)v->nlat * t->nval, sizeof(*t->cell));
	if (!t->cell)
		return orp_jread_fail(err, errlen, "out of memory"), -ENOMEM;
	v->n++;
	return read_buckets(t, v->nlat, arr, ti, err, errlen);
}

static int read_doc(struct orp_values *v, struct json_object *root, char *err, size_t errlen)
{
	struct json_object *o;
	uint64_t res;
	size_t n;

	if (member(root, "resolution", json_type_int, &o, "document", err, errlen))
		return -EINVAL;
	if (orp_jread_whole(o, OSP_RES_MAX, &res) || !osp_res_valid((unsigned)res))
		return orp_jread_fail(err, errlen, "resolution must be 1, 2, 4 or 8");
	v->res = (unsigned)res;
	v->nlat = OSP_HIST_NBUCKETS(v->res);
	if (member(root, "ops", json_type_array, &o, "document", err, errlen))
		return -EINVAL;
	n = json_object_array_length(o);
	if (n > ORP_VALUES_TABLES_MAX)
		return orp_jread_fail(err, errlen, "%zu tables in ops, at most %d", n, ORP_VALUES_TABLES_MAX);
	for (size_t i = 0; i < n; i++) {
		int e = read_table(v, json_object_array_get_idx(o, i), i, err, errlen);

		if (e)
			return e;
	}
	return 0;
}

int orp_values_parse(struct orp_values *v, const char *text, size_t len, char *err,
		     size_t errlen)
{
	struct json_object *root;
	uint64_t ver;
	int rc;

	memset(v, 0, sizeof(*v));
	rc = orp_jread_doc(text, len, "osprof-values", 1, NULL, &root, &ver, err, errlen);
	if (rc)
		return rc;
	rc = read_doc(v, root, err, errlen);
	json_object_put(root);
	if (rc)
		orp_values_fini(v);
	return rc;
}

void orp_values_fini(struct orp_values *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->t[i].cell);
	memset(v, 0, sizeof(*v));
}
