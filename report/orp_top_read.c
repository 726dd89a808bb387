// SPDX-License-Identifier: MIT
/*
 * The reader of osprof-fs's .osprof/top.json ("osprof-top", version 1),
 * for `osprof-report top`: external input, checked member by member. A
 * document that is not JSON, of another format or a newer version, or
 * whose members have the wrong type or a negative or fractional count, is
 * refused with one line naming what is wrong; unknown keys are ignored.
 * On its own (json-c only) so that it is fuzzed directly (fuzz/fuzz_top.c).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"

/* More entries than a daemon's -o top_max allows is no top.json. */
#define TOP_ENTRIES_MAX 65536u

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Member @key of @o as a whole number >= 0 into *@out. */
static int get_u64(json_object *o, const char *where, const char *key, uint64_t *out,
		   char *err, size_t errlen)
{
	json_object *v;
	int64_t i;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return fail(err, errlen, "%s: \"%s\" must be a whole number", where, key);
	i = json_object_get_int64(v);
	/* json-c keeps 2^63 .. 2^64 - 1 as unsigned; int64 reads them clamped. */
	if (i < 0)
		return fail(err, errlen, "%s: \"%s\" is negative", where, key);
	*out = i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
	return 0;
}

static int get_str(json_object *o, const char *where, const char *key, char **out,
		   char *err, size_t errlen)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return fail(err, errlen, "%s: \"%s\" must be a string", where, key);
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : -ENOMEM;
}

/* The counters every entry has. */
static int get_counts(json_object *o, const char *where, struct orp_top_entry *e,
		      char *err, size_t errlen)
{
	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "%s must be an object", where);
	int r = get_u64(o, where, "requests", &e->requests, err, errlen);

	r = r ? r : get_u64(o, where, "read_bytes", &e->read_bytes, err, errlen);
	r = r ? r : get_u64(o, where, "write_bytes", &e->write_bytes, err, errlen);
	r = r ? r : get_u64(o, where, "total_ns", &e->total_ns, err, errlen);
	return r ? r : get_u64(o, where, "p99_ns", &e->p99_ns, err, errlen);
}

static int get_table(json_object *doc, bool procs, struct orp_top_entry **out, size_t *n,
		     struct orp_top_entry *other, char *err, size_t errlen)
{
	const char *key = procs ? "processes" : "files";
	char where[64];
	json_object *arr, *o;
	size_t len;
	int r;

	*out = NULL;
	*n = 0;
	if (!json_object_object_get_ex(doc, key, &arr) || !json_object_is_type(arr, json_type_array))
		return fail(err, errlen, "\"%s\" must be an array", key);
	len = json_object_array_length(arr);
	if (len > TOP_ENTRIES_MAX)
		return fail(err, errlen, "\"%s\" has %zu entries (at most %u)", key, len,
			    TOP_ENTRIES_MAX);
	*out = calloc(len ? len : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < len; i++) {
		struct orp_top_entry *e = &(*out)[i];

		snprintf(where, sizeof(where), "%s[%zu]", key, i);
		o = json_object_array_get_idx(arr, i);
		r = get_counts(o, where, e, err, errlen);
		if (!r && procs) {
			r = get_u64(o, where, "pid", &e->pid, err, errlen);
			r = r ? r : get_u64(o, where, "uid", &e->uid, err, errlen);
		}
		r = r ? r : get_str(o, where, procs ? "comm" : "path", &e->name, err, errlen);
		if (r)
			return r;
		(*n)++;
	}
	snprintf(where, sizeof(where), "other_%s", key);
	/* Absent when the mount's top is off. */
	if (!json_object_object_get_ex(doc, where, &o))
		return 0;
	return get_counts(o, where, other, err, errlen);
}

int orp_top_parse(const char *text, size_t len, struct orp_top_doc *d, char *err,
		  size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *doc = NULL, *v;
	uint64_t version;
	int r;

	memset(d, 0, sizeof(*d));
	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX)
		r = fail(err, errlen, "too large");
	else if (!(doc = json_tokener_parse_ex(tok, text, (int)len)) ||
		 json_tokener_get_error(tok) != json_tokener_success ||
		 tok->char_offset < (int)len)
		r = fail(err, errlen, "not a JSON document (%s)",
			 json_tokener_error_desc(json_tokener_get_error(tok)));
	else if (!json_object_is_type(doc, json_type_object) ||
		 !json_object_object_get_ex(doc, "format", &v) ||
		 !json_object_is_type(v, json_type_string) ||
		 strcmp(json_object_get_string(v), "osprof-top") != 0)
		r = fail(err, errlen, "not an osprof-top document (\"format\": \"osprof-top\")");
	else if ((r = get_u64(doc, "document", "version", &version, err, errlen)) == 0 &&
		 (version != 1))
		r = fail(err, errlen, "version %llu: this " ORP_PROG " reads version 1",
			 (unsigned long long)version);
	if (!r && json_object_object_get_ex(doc, "unix_ns", &v))
		r = get_u64(doc, "document", "unix_ns", &d->unix_ns, err, errlen);
	if (!r) {
		d->enabled = !json_object_object_get_ex(doc, "enabled", &v) ||
			     json_object_get_boolean(v);
		r = get_table(doc, false, &d->files, &d->nfiles, &d->other_files, err, errlen);
	}
	if (!r)
		r = get_table(doc, true, &d->procs, &d->nprocs, &d->other_procs, err, errlen);
	if (r == -ENOMEM)
		fail(err, errlen, "out of memory");
	if (r)
		orp_top_doc_free(d);
	json_object_put(doc);
	json_tokener_free(tok);
	return r;
}

static void entries_free(struct orp_top_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++)
		free(e[i].name);
	free(e);
}

void orp_top_doc_free(struct orp_top_doc *d)
{
	if (!d)
		return;
	entries_free(d->files, d->nfiles);
	entries_free(d->procs, d->nprocs);
	memset(d, 0, sizeof(*d));
}
