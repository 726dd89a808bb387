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
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "orp_jread.h"

/* More entries than a daemon's -o top_max allows is no top.json. */
#define TOP_ENTRIES_MAX 65536u

/* The counters every entry has. */
static int get_counts(json_object *o, const char *where, struct orp_top_entry *e,
		      char *err, size_t errlen)
{
	if (!json_object_is_type(o, json_type_object))
		return orp_jread_fail(err, errlen, "%s must be an object", where);
	int r = orp_jread_u64(o, where, "requests", true, &e->requests, err, errlen);

	r = r ? r : orp_jread_u64(o, where, "read_bytes", true, &e->read_bytes, err, errlen);
	r = r ? r : orp_jread_u64(o, where, "write_bytes", true, &e->write_bytes, err, errlen);
	r = r ? r : orp_jread_u64(o, where, "total_ns", true, &e->total_ns, err, errlen);
	return r ? r : orp_jread_u64(o, where, "p99_ns", true, &e->p99_ns, err, errlen);
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
		return orp_jread_fail(err, errlen, "\"%s\" must be an array", key);
	len = json_object_array_length(arr);
	if (len > TOP_ENTRIES_MAX)
		return orp_jread_fail(err, errlen, "\"%s\" has %zu entries (at most %u)", key, len,
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
			r = orp_jread_u64(o, where, "pid", true, &e->pid, err, errlen);
			r = r ? r : orp_jread_u64(o, where, "uid", true, &e->uid, err, errlen);
		}
		r = r ? r : orp_jread_str(o, where, procs ? "comm" : "path", true, &e->name, err, errlen);
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
	json_object *doc, *v;
	uint64_t version;
	int r;

	memset(d, 0, sizeof(*d));
	r = orp_jread_doc(text, len, "osprof-top", 1, NULL, &doc, &version, err, errlen);
	if (r)
		return r;
	r = orp_jread_u64(doc, "document", "unix_ns", false, &d->unix_ns, err, errlen);
	if (!r) {
		d->enabled = !json_object_object_get_ex(doc, "enabled", &v) ||
			     json_object_get_boolean(v);
		r = get_table(doc, false, &d->files, &d->nfiles, &d->other_files, err, errlen);
	}
	if (!r)
		r = get_table(doc, true, &d->procs, &d->nprocs, &d->other_procs, err, errlen);
	if (r == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (r)
		orp_top_doc_free(d);
	json_object_put(doc);
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
