// SPDX-License-Identifier: MIT
/*
 * The JSON reader of profiles. It validates everything it takes -- types,
 * ranges, bucket indices against the resolution, ascending unique buckets,
 * unique operation names, min <= max, counts that fit 64 bits, no NUL
 * character in any string it keeps -- and fails with one line that names
 * the offending key path. Unknown top-level keys are ignored (the format's
 * forward compatibility); unknown keys of an operation are kept in its
 * attrs so they round-trip.
 *
 * Its time and memory are linear in the text: json_scan.c validates the
 * whole text first and walks the document; the operations
 * (read_json_op.c) and numbers are read from the text itself, json-c
 * builds only small trees (a header value, an unknown key's value); names
 * are matched through a hash index; a histogram holds only its non-empty
 * buckets. This file reads the document: its header and timeline.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <json-c/json.h>

#include "osprof/format.h"
#include "osprof/parse.h"
#include "read_json.h"

/* Append @key = @json to @l, whose keys are known to be new: no search,
 * so an object of many keys reads in linear time. */
static int kv_append(struct osp_kvlist *l, const char *key, const char *json)
{
	struct osp_kv *kv = &l->items[l->n];

	kv->key = strdup(key);
	kv->json = strdup(json);
	if (!kv->key || !kv->json) {
		free(kv->key);
		free(kv->json);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static int read_kv(struct rd *rd, const char *path, const struct js_span *v,
		   struct osp_kvlist *l)
{
	struct json_object *obj;
	int err = osp_rj_parse(rd, path, v, &obj);

	if (!err && !json_object_is_type(obj, json_type_object))
		err = osp_rj_fail(rd, path, "must be an object");
	if (!err && v->nul)
		err = osp_rj_fail(rd, path, "a key or string holds a NUL character (\\u0000)");
	if (!err) {
		/* json-c's keys are unique: room for all at once. */
		l->items = calloc((size_t)json_object_object_length(obj) + 1,
				  sizeof(*l->items));
		if (!l->items)
			err = osp_rj_fail(rd, path, "out of memory");
	}
	if (!err) {
		json_object_object_foreach(obj, key, val) {
			if (kv_append(l, key, osp_rj_json_text(val))) {
				err = osp_rj_fail(rd, path, "out of memory");
				break;
			}
		}
	}
	json_object_put(obj);
	return err;
}

static int read_snapshot(struct rd *rd, const char *path, const struct js_span *v,
			 struct osp_snapshot *s)
{
	struct js_span k, m, ops = { 0 };
	struct js_iter it;
	bool has_ops = false;
	char key[16], p[96];
	int err = 0;

	if (js_open(&rd->js, v, '{', &it))
		return osp_rj_fail(rd, path, "must be an object");
	while (!err && js_next(&rd->js, &it, &k, &m) == 1) {
		err = osp_rj_key(rd, path, &k, key, sizeof(key));
		if (!err && strcmp(key, "t_ns") == 0) {
			err = osp_rj_u64(rd, path, "t_ns", &m, &s->t_ns);
		} else if (!err && strcmp(key, "ops") == 0) {
			ops = m;
			has_ops = true;
		}
	}
	if (err)
		return err;
	if (!has_ops)
		return osp_rj_fail(rd, path, "ops missing");
	osp_rj_subpath(p, sizeof(p), "%s.ops", path);
	return osp_rj_read_ops(rd, p, &ops, &s->ops, &s->nops);
}

static int read_timeline(struct rd *rd, const struct js_span *tl,
			 struct osp_profile *p)
{
	struct js_span k, m, snaps = { 0 };
	struct js_iter it;
	bool has_snaps = false;
	char key[16];
	size_t n;
	int err = 0;

	if (js_open(&rd->js, tl, '{', &it))
		return osp_rj_fail(rd, "timeline", "must be an object");
	while (!err && js_next(&rd->js, &it, &k, &m) == 1) {
		err = osp_rj_key(rd, "timeline", &k, key, sizeof(key));
		if (!err && strcmp(key, "interval_ns") == 0)
			err = osp_rj_u64(rd, "timeline", "interval_ns", &m, &p->tl_interval_ns);
		else if (!err && strcmp(key, "dropped") == 0)
			err = osp_rj_u64(rd, "timeline", "dropped", &m, &p->tl_dropped);
		else if (!err && strcmp(key, "snapshots") == 0)
			snaps = m, has_snaps = true;
	}
	if (err)
		return err;
	if (!has_snaps)
		return osp_rj_fail(rd, "timeline.snapshots", "missing");
	n = osp_rj_count(rd, &snaps, '[');
	if (js_open(&rd->js, &snaps, '[', &it))
		return osp_rj_fail(rd, "timeline.snapshots", "must be an array");
	p->snaps = calloc(n ? n : 1, sizeof(*p->snaps));
	if (!p->snaps)
		return osp_rj_fail(rd, "timeline", "out of memory");
	for (size_t i = 0; !err && js_next(&rd->js, &it, NULL, &m) == 1; i++) {
		char path[64];

		osp_rj_subpath(path, sizeof(path), "timeline.snapshots[%zu]", i);
		p->nsnaps = i + 1; /* the caller frees what was (partly) built */
		err = read_snapshot(rd, path, &m, &p->snaps[i]);
		/* Ends of consecutive intervals: time does not go back. */
		if (!err && i && p->snaps[i].t_ns < p->snaps[i - 1].t_ns)
			err = osp_rj_fail(rd, path, "t_ns: %llu is before the previous snapshot's %llu",
					  (unsigned long long)p->snaps[i].t_ns,
					  (unsigned long long)p->snaps[i - 1].t_ns);
	}
	return err;
}

/* The top-level keys the format knows; the last of repeated keys counts. */
enum root_key {
	RK_FORMAT, RK_VERSION, RK_RESOLUTION, RK_LAYER, RK_HOST, RK_UNIT,
	RK_SOURCE, RK_OPTIONS, RK_CLOCK, RK_START, RK_ELAPSED, RK_OPS,
	RK_TIMELINE, RK__COUNT
};

static const char *const root_keys[] = {
	[RK_FORMAT] = "format", [RK_VERSION] = "version",
	[RK_RESOLUTION] = "resolution", [RK_LAYER] = "layer", [RK_HOST] = "host",
	[RK_UNIT] = "unit", [RK_SOURCE] = "source", [RK_OPTIONS] = "options",
	[RK_CLOCK] = "clock", [RK_START] = "start_unix_ns",
	[RK_ELAPSED] = "elapsed_ns", [RK_OPS] = "ops", [RK_TIMELINE] = "timeline",
};
_Static_assert(sizeof(root_keys) / sizeof(root_keys[0]) == RK__COUNT,
	       "a name for every top-level key");

struct root {
	bool has[RK__COUNT];
	struct js_span v[RK__COUNT];
	struct json_object *obj[RK__COUNT]; /* parsed on demand */
};

static int collect_root(struct rd *rd, const struct js_span *doc, struct root *r)
{
	struct js_span k, v;
	struct js_iter it;
	char key[32];
	unsigned i;

	if (js_open(&rd->js, doc, '{', &it))
		return osp_rj_fail(rd, "", "a profile must be a JSON object");
	while (js_next(&rd->js, &it, &k, &v) == 1) {
		if (osp_rj_key(rd, "", &k, key, sizeof(key)))
			return -EINVAL;
		if (osp_parse_name(key, root_keys, RK__COUNT, &i) == 0) {
			r->has[i] = true;
			r->v[i] = v;
		}
	}
	return 0;
}

/* The tree of top-level member @k, NULL when absent: 0 or -EINVAL. */
static int root_get(struct rd *rd, struct root *r, enum root_key k,
		    struct json_object **out)
{
	*out = NULL;
	if (!r->has[k])
		return 0;
	if (!r->obj[k] && osp_rj_parse(rd, root_keys[k], &r->v[k], &r->obj[k]))
		return -EINVAL;
	*out = r->obj[k];
	return 0;
}

/* Is it an osprof profile, of a version this reader understands? */
static int check_format(struct rd *rd, struct root *r)
{
	struct json_object *v;
	int64_t version;

	if (root_get(rd, r, RK_FORMAT, &v))
		return -EINVAL;
	if (!json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "osprof") != 0 || r->v[RK_FORMAT].nul)
		return osp_rj_fail(rd, "format", "not an osprof profile (expected \"format\": \"osprof\")");
	if (root_get(rd, r, RK_VERSION, &v))
		return -EINVAL;
	if (!json_object_is_type(v, json_type_int))
		return osp_rj_fail(rd, "version", "missing or not an integer");
	version = json_object_get_int64(v);
	if (version < 1)
		return osp_rj_fail(rd, "version", "%lld is not a valid version", (long long)version);
	if (version > OSP_FORMAT_VERSION)
		return osp_rj_fail(rd, "version",
				   "profile format version %lld is newer than this reader (%d); upgrade osprof",
				   (long long)version, OSP_FORMAT_VERSION);
	return 0;
}

static int read_clock(struct rd *rd, const struct js_span *v,
		      struct osp_profile *p)
{
	struct js_span k, m;
	struct js_iter it;
	char key[16];
	int err = 0;

	if (js_open(&rd->js, v, '{', &it))
		return osp_rj_fail(rd, "clock", "must be an object");
	while (!err && js_next(&rd->js, &it, &k, &m) == 1) {
		struct json_object *o;
		double rate;

		err = osp_rj_key(rd, "clock", &k, key, sizeof(key));
		if (!err && strcmp(key, "source") == 0) {
			free(p->clock_source);
			err = osp_rj_str(rd, "clock", "source", &m, false, &p->clock_source);
		}
		if (err || strcmp(key, "cycles_per_ns") != 0)
			continue;
		err = osp_rj_parse(rd, "clock.cycles_per_ns", &m, &o);
		if (!err && !json_object_is_type(o, json_type_double) &&
		    !json_object_is_type(o, json_type_int))
			err = osp_rj_fail(rd, "clock.cycles_per_ns", "must be a number");
		rate = err ? 0.0 : json_object_get_double(o);
		json_object_put(o);
		/* Every cycle count is divided by it. */
		if (!err && (!isfinite(rate) || rate <= 0.0))
			err = osp_rj_fail(rd, "clock.cycles_per_ns", "%g is not a positive finite rate",
					  rate);
		if (!err)
			p->cycles_per_ns = rate;
	}
	return err;
}

static int read_header(struct rd *rd, struct root *r, struct osp_profile *p)
{
	static const enum root_key strs[] = { RK_LAYER, RK_HOST, RK_UNIT };
	static const enum root_key nums[] = { RK_START, RK_ELAPSED };
	char **sfield[] = { &p->layer, &p->host, &p->unit };
	uint64_t *nfield[] = { &p->start_unix_ns, &p->elapsed_ns };
	int err = 0;

	if (!r->has[RK_LAYER])
		return osp_rj_fail(rd, "layer", "missing");
	for (size_t i = 0; !err && i < 3; i++) {
		if (!r->has[strs[i]])
			continue;
		free(*sfield[i]);
		err = osp_rj_str(rd, "", root_keys[strs[i]], &r->v[strs[i]], false, sfield[i]);
	}
	if (!err && r->has[RK_SOURCE])
		err = read_kv(rd, "source", &r->v[RK_SOURCE], &p->source);
	if (!err && r->has[RK_OPTIONS])
		err = read_kv(rd, "options", &r->v[RK_OPTIONS], &p->options);
	for (size_t i = 0; !err && i < 2; i++)
		if (r->has[nums[i]])
			err = osp_rj_u64(rd, "", root_keys[nums[i]], &r->v[nums[i]], nfield[i]);
	if (!err && r->has[RK_CLOCK])
		err = read_clock(rd, &r->v[RK_CLOCK], p);
	return err;
}

static int read_resolution(struct rd *rd, struct root *r)
{
	struct json_object *v;
	int64_t res;

	if (root_get(rd, r, RK_RESOLUTION, &v))
		return -EINVAL;
	if (!json_object_is_type(v, json_type_int))
		return osp_rj_fail(rd, "resolution", "missing or not an integer");
	res = json_object_get_int64(v);
	if (res != 1 && res != 2 && res != 4 && res != 8)
		return osp_rj_fail(rd, "resolution", "%lld is not one of 1, 2, 4, 8", (long long)res);
	rd->res = (unsigned)res;
	return 0;
}

static struct osp_profile *parse_root(struct rd *rd, const struct js_span *doc)
{
	struct root r = { 0 };
	struct osp_profile *p = NULL;
	int err = collect_root(rd, doc, &r);

	if (!err)
		err = check_format(rd, &r);
	if (!err)
		err = read_resolution(rd, &r);
	if (!err) {
		p = osp_profile_new(NULL, rd->res);
		if (!p)
			err = osp_rj_fail(rd, "", "out of memory");
	}
	if (!err)
		err = read_header(rd, &r, p);
	if (!err && !r.has[RK_OPS])
		err = osp_rj_fail(rd, "ops", "missing");
	if (!err) {
		err = osp_rj_read_ops(rd, "ops", &r.v[RK_OPS], &p->ops, &p->nops);
		p->ops_cap = p->nops;
	}
	if (!err && r.has[RK_TIMELINE])
		err = read_timeline(rd, &r.v[RK_TIMELINE], p);
	for (size_t i = 0; i < RK__COUNT; i++)
		json_object_put(r.obj[i]);
	if (err) {
		osp_profile_free(p);
		return NULL;
	}
	return p;
}

struct osp_profile *osp_read_json(const char *text, size_t len, char *err,
				  size_t errlen)
{
	struct rd rd = { .err = err, .errlen = errlen,
			 .js = { .s = text, .len = len, .err = err, .errlen = errlen } };
	struct osp_profile *p;
	struct js_span doc;

	if (len > INT32_MAX) {
		osp_rj_fail(&rd, "", "input too large");
		return NULL;
	}
	/* Standard JSON only: no comments, single quotes or invalid UTF-8. */
	if (js_check(&rd.js, &doc))
		return NULL;
	rd.tok = json_tokener_new();
	if (!rd.tok) {
		osp_rj_fail(&rd, "", "out of memory");
		return NULL;
	}
	json_tokener_set_flags(rd.tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	p = parse_root(&rd, &doc);
	json_tokener_free(rd.tok);
	return p;
}

int osp_read_stream(FILE *f, char **buf, size_t *len)
{
	struct stat st;
	size_t cap = 0;

	*buf = NULL;
	*len = 0;
	/* A regular file's size is known: one buffer, no copies while it grows
	 * (the extra bytes let fread see the end without growing, and hold the
	 * NUL). */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((uint64_t)st.st_size > OSP_READ_MAX_BYTES)
			return -EFBIG;
		cap = (size_t)st.st_size + 2;
	}
	errno = 0;
	for (;;) {
		size_t n;

		/* A file that grew, or a stream, past the bound. */
		if (*len > OSP_READ_MAX_BYTES) {
			free(*buf);
			*buf = NULL;
			*len = 0;
			return -EFBIG;
		}
		if (*len + 1 >= cap || !*buf) {
			size_t ncap = *len + 1 < cap ? cap : cap ? cap * 2 : 65536;
			char *nb;

			if (ncap > OSP_READ_MAX_BYTES + 2)
				ncap = OSP_READ_MAX_BYTES + 2;
			nb = realloc(*buf, ncap);

			if (!nb) {
				free(*buf);
				*buf = NULL;
				return -ENOMEM;
			}
			*buf = nb;
			cap = ncap;
		}
		n = fread(*buf + *len, 1, cap - 1 - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		int err = errno ? -errno : -EIO;

		free(*buf);
		*buf = NULL;
		*len = 0;
		return err;
	}
	(*buf)[*len] = '\0';
	return 0;
}

int osp_read_path(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "re");
	int rc;

	*buf = NULL;
	*len = 0;
	if (!f)
		return -errno;
	rc = osp_read_stream(f, buf, len);
	fclose(f);
	return rc;
}

const char *osp_read_error(int rc)
{
	_Static_assert(OSP_READ_MAX_BYTES == (size_t)1 << 30, "the words say 1 GiB");
	if (rc == -EFBIG)
		return "over 1 GiB, larger than any profile: not read";
	if (rc == -ENOMEM)
		return "out of memory";
	return strerror(-rc);
}

struct osp_profile *osp_read_json_file(const char *path, char *err,
				       size_t errlen)
{
	struct osp_profile *p = NULL;
	char *buf;
	size_t len;
	int rc = strcmp(path, "-") == 0 ? osp_read_stream(stdin, &buf, &len)
					: osp_read_path(path, &buf, &len);

	if (rc)
		snprintf(err, errlen, "%s: %s", path, osp_read_error(rc));
	else if (len == 0)
		snprintf(err, errlen, "%s: empty file, not a profile", path);
	if (!rc && len) {
		char inner[512];

		p = osp_read_json(buf, len, inner, sizeof(inner));
		if (!p)
			snprintf(err, errlen, "%s: %s", path, inner);
	}
	free(buf);
	return p;
}
