// SPDX-License-Identifier: MIT
/*
 * The JSON reader of profiles, on json-c. It validates everything it
 * takes -- types, ranges, bucket indices against the resolution, ascending
 * unique buckets, unique operation names -- and fails with one line that
 * names the offending key path. Unknown top-level keys are ignored (the
 * format's forward compatibility); unknown keys of an operation are kept in
 * its attrs so they round-trip.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "osprof/format.h"

struct rd {
	char *err;
	size_t errlen;
	unsigned res;
};

__attribute__((format(printf, 3, 4)))
static int fail(struct rd *rd, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(rd->err, rd->errlen, "%s%s", path, *path ? ": " : "");

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < rd->errlen)
		vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Build a key path for messages; truncation only shortens a message. */
__attribute__((format(printf, 3, 4)))
static void subpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int get_u64(struct rd *rd, const char *path, struct json_object *o,
		   uint64_t *out)
{
	if (!json_object_is_type(o, json_type_int))
		return fail(rd, path, "must be an unsigned integer");
	if (json_object_get_int64(o) < 0)
		return fail(rd, path, "must not be negative");
	*out = json_object_get_uint64(o);
	return 0;
}

static int get_str(struct rd *rd, const char *path, struct json_object *o,
		   char **out)
{
	if (!json_object_is_type(o, json_type_string))
		return fail(rd, path, "must be a string");
	return osp_str_set(out, json_object_get_string(o)) ? fail(rd, path, "out of memory") : 0;
}

/* Optional member @key of @obj as u64 (left unchanged when absent). */
static int opt_u64(struct rd *rd, const char *path, struct json_object *obj,
		   const char *key, uint64_t *out)
{
	struct json_object *v;
	char p[256];

	if (!json_object_object_get_ex(obj, key, &v))
		return 0;
	subpath(p, sizeof(p), "%s%s%s", path, *path ? "." : "", key);
	return get_u64(rd, p, v, out);
}

static int read_buckets(struct rd *rd, const char *path, struct json_object *arr,
			struct osp_hist *h)
{
	size_t n;
	long last = -1;

	if (!json_object_is_type(arr, json_type_array))
		return fail(rd, path, "must be an array of [index, count] pairs");
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		struct json_object *pair = json_object_array_get_idx(arr, i);
		uint64_t idx, cnt;
		char p[256];
		int err;

		subpath(p, sizeof(p), "%s[%zu]", path, i);
		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2)
			return fail(rd, p, "must be an [index, count] pair");
		err = get_u64(rd, p, json_object_array_get_idx(pair, 0), &idx);
		if (!err)
			err = get_u64(rd, p, json_object_array_get_idx(pair, 1), &cnt);
		if (err)
			return err;
		if (idx >= OSP_HIST_NBUCKETS(h->res))
			return fail(rd, p, "index %llu out of range for resolution %u (0..%u)",
				    (unsigned long long)idx, h->res,
				    OSP_HIST_NBUCKETS(h->res) - 1);
		if ((long)idx <= last)
			return fail(rd, p, "indices must ascend without repeats");
		last = (long)idx;
		if (osp_hist_bucket_set(h, (unsigned)idx, cnt))
			return fail(rd, p, "out of memory");
	}
	return 0;
}

static int read_hist(struct rd *rd, const char *path, struct json_object *obj,
		     struct osp_hist *h)
{
	struct json_object *b;
	char p[256];
	int err;

	if (!json_object_is_type(obj, json_type_object))
		return fail(rd, path, "must be an object");
	err = opt_u64(rd, path, obj, "count", &h->count);
	if (!err)
		err = opt_u64(rd, path, obj, "sum", &h->sum);
	if (!err)
		err = opt_u64(rd, path, obj, "min", &h->min);
	if (!err)
		err = opt_u64(rd, path, obj, "max", &h->max);
	if (err)
		return err;
	subpath(p, sizeof(p), "%s%sbuckets", path, *path ? "." : "");
	if (!json_object_object_get_ex(obj, "buckets", &b))
		return fail(rd, p, "missing");
	return read_buckets(rd, p, b, h);
}

static bool is_op_key(const char *k)
{
	static const char *const known[] = { "name", "count", "sum", "min", "max",
					     "buckets", "cpu", "counters" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(k, known[i]) == 0)
			return true;
	return false;
}

static int read_op_extras(struct rd *rd, const char *path,
			  struct json_object *obj, struct osp_op *op)
{
	struct json_object *c;

	if (json_object_object_get_ex(obj, "counters", &c)) {
		char p[256];

		subpath(p, sizeof(p), "%s.counters", path);
		if (!json_object_is_type(c, json_type_object))
			return fail(rd, p, "must be an object");
		json_object_object_foreach(c, key, val) {
			char q[320];
			uint64_t v;
			int err;

			subpath(q, sizeof(q), "%s.%s", p, key);
			err = get_u64(rd, q, val, &v);
			if (err)
				return err;
			if (osp_op_add_counter(op, key, v))
				return fail(rd, q, "out of memory");
		}
	}
	json_object_object_foreach(obj, key, val) {
		if (is_op_key(key))
			continue;
		if (osp_kv_set_json(&op->attrs, key,
				    json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)))
			return fail(rd, path, "out of memory");
	}
	return 0;
}

static int read_op(struct rd *rd, const char *path, struct json_object *obj,
		   struct osp_op *op)
{
	struct json_object *name, *cpu;
	bool has_cpu;
	char p[256];
	int err;

	if (!json_object_is_type(obj, json_type_object))
		return fail(rd, path, "must be an object");
	subpath(p, sizeof(p), "%s.name", path);
	if (!json_object_object_get_ex(obj, "name", &name))
		return fail(rd, p, "missing");
	if (!json_object_is_type(name, json_type_string) ||
	    json_object_get_string_len(name) == 0)
		return fail(rd, p, "must be a non-empty string");
	has_cpu = json_object_object_get_ex(obj, "cpu", &cpu);
	if (osp_op_init(op, json_object_get_string(name), rd->res, has_cpu))
		return fail(rd, path, "out of memory");
	err = read_hist(rd, path, obj, &op->lat);
	if (!err && has_cpu) {
		subpath(p, sizeof(p), "%s.cpu", path);
		err = read_hist(rd, p, cpu, &op->cpu);
	}
	if (!err)
		err = read_op_extras(rd, path, obj, op);
	return err;
}

static int read_ops(struct rd *rd, const char *path, struct json_object *arr,
		    struct osp_op **ops_out, size_t *n_out)
{
	size_t n;
	struct osp_op *ops;
	struct osp_name_index *ix;
	int err = 0;

	if (!json_object_is_type(arr, json_type_array))
		return fail(rd, path, "must be an array");
	n = json_object_array_length(arr);
	ops = calloc(n ? n : 1, sizeof(*ops));
	if (!ops)
		return fail(rd, path, "out of memory");
	*ops_out = ops;
	*n_out = 0;
	ix = osp_name_index_new(n);
	if (!ix)
		return fail(rd, path, "out of memory");
	for (size_t i = 0; !err && i < n; i++) {
		char p[256];

		subpath(p, sizeof(p), "%s[%zu]", path, i);
		err = read_op(rd, p, json_object_array_get_idx(arr, i), &ops[i]);
		*n_out = i + 1; /* the caller frees what was (partly) built */
		if (!err)
			err = osp_name_index_add(ix, ops[i].name, i);
		if (err == -EEXIST)
			err = fail(rd, p, "duplicate operation name \"%s\"", ops[i].name);
		else if (err == -ENOMEM)
			err = fail(rd, p, "out of memory");
	}
	osp_name_index_free(ix);
	return err;
}

static int read_kv(struct rd *rd, const char *path, struct json_object *obj,
		   struct osp_kvlist *l)
{
	if (!json_object_is_type(obj, json_type_object))
		return fail(rd, path, "must be an object");
	json_object_object_foreach(obj, key, val) {
		if (osp_kv_set_json(l, key,
				    json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)))
			return fail(rd, path, "out of memory");
	}
	return 0;
}

static int read_timeline(struct rd *rd, struct json_object *tl,
			 struct osp_profile *p)
{
	struct json_object *snaps;
	size_t n;
	int err;

	if (!json_object_is_type(tl, json_type_object))
		return fail(rd, "timeline", "must be an object");
	err = opt_u64(rd, "timeline", tl, "interval_ns", &p->tl_interval_ns);
	if (!err)
		err = opt_u64(rd, "timeline", tl, "dropped", &p->tl_dropped);
	if (err)
		return err;
	if (!json_object_object_get_ex(tl, "snapshots", &snaps))
		return fail(rd, "timeline.snapshots", "missing");
	if (!json_object_is_type(snaps, json_type_array))
		return fail(rd, "timeline.snapshots", "must be an array");
	n = json_object_array_length(snaps);
	p->snaps = calloc(n ? n : 1, sizeof(*p->snaps));
	if (!p->snaps)
		return fail(rd, "timeline", "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(snaps, i), *ops;
		char path[64];

		subpath(path, sizeof(path), "timeline.snapshots[%zu]", i);
		if (!json_object_is_type(s, json_type_object))
			return fail(rd, path, "must be an object");
		p->nsnaps = i + 1;
		err = opt_u64(rd, path, s, "t_ns", &p->snaps[i].t_ns);
		if (err)
			return err;
		if (!json_object_object_get_ex(s, "ops", &ops))
			return fail(rd, path, "ops missing");
		strncat(path, ".ops", sizeof(path) - strlen(path) - 1);
		err = read_ops(rd, path, ops, &p->snaps[i].ops, &p->snaps[i].nops);
		if (err)
			return err;
	}
	return 0;
}

/* Is it an osprof profile, of a version this reader understands? */
static int check_format(struct rd *rd, struct json_object *root)
{
	struct json_object *v;
	int64_t version;

	if (!json_object_object_get_ex(root, "format", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "osprof") != 0)
		return fail(rd, "format", "not an osprof profile (expected \"format\": \"osprof\")");
	if (!json_object_object_get_ex(root, "version", &v) ||
	    !json_object_is_type(v, json_type_int))
		return fail(rd, "version", "missing or not an integer");
	version = json_object_get_int64(v);
	if (version < 1)
		return fail(rd, "version", "%lld is not a valid version", (long long)version);
	if (version > OSP_FORMAT_VERSION)
		return fail(rd, "version",
			    "profile format version %lld is newer than this reader (%d); upgrade osprof",
			    (long long)version, OSP_FORMAT_VERSION);
	return 0;
}

static int read_header(struct rd *rd, struct json_object *root,
		       struct osp_profile *p)
{
	struct json_object *v;
	int err = 0;

	if (!json_object_object_get_ex(root, "layer", &v))
		return fail(rd, "layer", "missing");
	err = get_str(rd, "layer", v, &p->layer);
	if (!err && json_object_object_get_ex(root, "host", &v))
		err = get_str(rd, "host", v, &p->host);
	if (!err && json_object_object_get_ex(root, "unit", &v))
		err = get_str(rd, "unit", v, &p->unit);
	if (!err && json_object_object_get_ex(root, "source", &v))
		err = read_kv(rd, "source", v, &p->source);
	if (!err && json_object_object_get_ex(root, "options", &v))
		err = read_kv(rd, "options", v, &p->options);
	if (!err)
		err = opt_u64(rd, "", root, "start_unix_ns", &p->start_unix_ns);
	if (!err)
		err = opt_u64(rd, "", root, "elapsed_ns", &p->elapsed_ns);
	if (!err && json_object_object_get_ex(root, "clock", &v)) {
		struct json_object *c;

		if (!json_object_is_type(v, json_type_object))
			return fail(rd, "clock", "must be an object");
		if (json_object_object_get_ex(v, "source", &c))
			err = get_str(rd, "clock.source", c, &p->clock_source);
		if (!err && json_object_object_get_ex(v, "cycles_per_ns", &c)) {
			if (!json_object_is_type(c, json_type_double) &&
			    !json_object_is_type(c, json_type_int))
				return fail(rd, "clock.cycles_per_ns", "must be a number");
			p->cycles_per_ns = json_object_get_double(c);
		}
	}
	return err;
}

static struct osp_profile *parse_root(struct rd *rd, struct json_object *root)
{
	struct json_object *v;
	struct osp_profile *p;
	int64_t res;
	int err;

	if (!json_object_is_type(root, json_type_object)) {
		fail(rd, "", "a profile must be a JSON object");
		return NULL;
	}
	if (check_format(rd, root))
		return NULL;
	if (!json_object_object_get_ex(root, "resolution", &v) ||
	    !json_object_is_type(v, json_type_int)) {
		fail(rd, "resolution", "missing or not an integer");
		return NULL;
	}
	res = json_object_get_int64(v);
	if (res != 1 && res != 2 && res != 4 && res != 8) {
		fail(rd, "resolution", "%lld is not one of 1, 2, 4, 8", (long long)res);
		return NULL;
	}
	rd->res = (unsigned)res;
	p = osp_profile_new(NULL, rd->res);
	if (!p) {
		fail(rd, "", "out of memory");
		return NULL;
	}
	err = read_header(rd, root, p);
	if (!err && !json_object_object_get_ex(root, "ops", &v))
		err = fail(rd, "ops", "missing");
	if (!err)
		err = read_ops(rd, "ops", v, &p->ops, &p->nops);
	if (!err && json_object_object_get_ex(root, "timeline", &v))
		err = read_timeline(rd, v, p);
	if (err) {
		osp_profile_free(p);
		return NULL;
	}
	return p;
}

struct osp_profile *osp_read_json(const char *text, size_t len, char *err,
				  size_t errlen)
{
	struct rd rd = { .err = err, .errlen = errlen };
	struct json_tokener *tok;
	struct json_object *root;
	struct osp_profile *p = NULL;
	enum json_tokener_error jerr;

	if (len > INT32_MAX) {
		fail(&rd, "", "input too large");
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		fail(&rd, "", "out of memory");
		return NULL;
	}
	/* Standard JSON only: no comments, single quotes or invalid UTF-8. */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (jerr == json_tokener_continue) {
		fail(&rd, "", "truncated JSON (input ends after %zu bytes)", len);
	} else if (jerr != json_tokener_success) {
		fail(&rd, "", "invalid JSON at byte %zu: %s",
		     json_tokener_get_parse_end(tok), json_tokener_error_desc(jerr));
	} else {
		/* Strict mode has already refused anything after the object. */
		p = parse_root(&rd, root);
	}
	json_object_put(root);
	json_tokener_free(tok);
	return p;
}

struct osp_profile *osp_read_json_file(const char *path, char *err,
				       size_t errlen)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct osp_profile *p;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t n;

		if (cap - len < 65536) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536);

			if (!nb) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
		goto fail;
	}
	if (f != stdin)
		fclose(f);
	if (len == 0) {
		snprintf(err, errlen, "%s: empty file, not a profile", path);
		free(buf);
		return NULL;
	}
	{
		char inner[512];

		p = osp_read_json(buf, len, inner, sizeof(inner));
		if (!p)
			snprintf(err, errlen, "%s: %s", path, inner);
	}
	free(buf);
	return p;
fail:
	if (f != stdin)
		fclose(f);
	free(buf);
	return NULL;
}
