// SPDX-License-Identifier: MIT
/*
 * The reader of osprof-fs's profiles per key value (-o by=KEY): the
 * document .osprof/by.json serves and --dump writes beside its FILE as
 * FILE.by.json, format "osprof-by":
 *
 *   {"format": "osprof-by", "version": 1, "key": "pid", "max_values": 64,
 *    "folded_requests": 12, "refused_values": 1, ...,
 *    "values": [{"value": "1234", "label": "grep", "requests": 5230,
 *                "total_ns": 1200000000, "profile": {<a profile>}}, ...],
 *    "other": {"requests": 12, "total_ns": ..., "profile": {<a profile>}}}
 *
 * The envelope is read with json-c; each profile is handed, as text, to
 * core's profile reader, which checks it as it checks any profile. The
 * counts and totals are worked out again from the profiles (the file's
 * own are not trusted) and the values sorted by total time. Input is
 * external: anything malformed is refused with one line naming where.
 * Unknown keys are ignored; a newer version is refused.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orp.h"
#include "orp_by.h"
#include "orp_jread.h"
#include "osprof/format.h"

#define BY_VERSION 1

/* The profile of one value, @o's "profile", through core's reader. */
static int get_profile(json_object *o, const char *where, struct orp_by_value *v,
		       char *err, size_t errlen)
{
	json_object *p;
	const char *text;
	size_t len;
	char why[512];

	if (!json_object_object_get_ex(o, "profile", &p) || !json_object_is_type(p, json_type_object))
		return orp_jread_fail(err, errlen, "%s: expected a \"profile\" object", where);
	text = json_object_to_json_string_length(p, JSON_C_TO_STRING_PLAIN, &len);
	if (!text)
		return -ENOMEM;
	v->p = osp_read_json(text, len, why, sizeof(why));
	if (!v->p) {
		snprintf(err, errlen, "%s.profile: %s", where, why);
		return -EINVAL;
	}
	v->requests = v->total_ns = 0;
	for (size_t i = 0; i < v->p->nops; i++) {
		v->requests += v->p->ops[i].lat.count;
		v->total_ns += v->p->ops[i].lat.sum;
	}
	return 0;
}

static int get_value(json_object *o, const char *where, struct orp_by_value *v, bool other,
		     char *err, size_t errlen)
{
	int rc;

	if (!json_object_is_type(o, json_type_object))
		return orp_jread_fail(err, errlen, "%s: expected an object", where);
	if (other) {
		v->value = strdup("other");
		rc = v->value ? 0 : -ENOMEM;
	} else {
		rc = orp_jread_str(o, where, "value", true, &v->value, err, errlen);
		rc = rc ? rc : orp_jread_str(o, where, "label", false, &v->label, err, errlen);
	}
	return rc ? rc : get_profile(o, where, v, err, errlen);
}

static int value_cmp(const void *a, const void *b)
{
	const struct orp_by_value *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->value, y->value);
}

/* The envelope's own members (format and version checked by the caller). */
static int get_head(json_object *root, struct orp_by *b, char *err, size_t errlen)
{
	json_object *v;
	int rc = orp_jread_str(root, "document", "key", true, &b->key, err, errlen);

	rc = rc ? rc : orp_jread_u64(root, "document", "max_values", false, &b->max_values,
				     err, errlen);
	rc = rc ? rc : orp_jread_u64(root, "document", "folded_requests", false,
				     &b->folded_requests, err, errlen);
	rc = rc ? rc : orp_jread_u64(root, "document", "refused_values", false,
				     &b->refused_values, err, errlen);
	rc = rc ? rc : orp_jread_u64(root, "document", "comm_collisions", false,
				     &b->comm_collisions, err, errlen);
	if (!rc && json_object_object_get_ex(root, "refused_values_more", &v))
		b->refused_more = json_object_get_boolean(v);
	return rc;
}

int orp_by_parse(const char *text, size_t len, struct orp_by *b, char *err, size_t errlen)
{
	json_object *root, *arr, *o;
	uint64_t version;
	int rc;

	memset(b, 0, sizeof(*b));
	rc = orp_jread_doc(text, len, "osprof-by", BY_VERSION,
			   "is it a profile? use show without --by", &root, &version, err, errlen);
	if (rc)
		return rc;
	rc = get_head(root, b, err, errlen);
	if (!rc && (!json_object_object_get_ex(root, "values", &arr) ||
		    !json_object_is_type(arr, json_type_array)))
		rc = orp_jread_fail(err, errlen, "values: expected an array");
	if (!rc) {
		size_t n = json_object_array_length(arr);

		b->v = calloc(n ? n : 1, sizeof(*b->v));
		if (!b->v)
			rc = -ENOMEM;
		for (size_t i = 0; !rc && i < n; i++) {
			char where[48];

			snprintf(where, sizeof(where), "values[%zu]", i);
			rc = get_value(json_object_array_get_idx(arr, i), where, &b->v[i], false,
				       err, errlen);
			b->n = i + 1;
		}
	}
	if (!rc && !json_object_object_get_ex(root, "other", &o))
		rc = orp_jread_fail(err, errlen, "other: missing");
	rc = rc ? rc : get_value(o, "other", &b->other, true, err, errlen);
	if (!rc)
		qsort(b->v, b->n, sizeof(*b->v), value_cmp);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc)
		orp_by_free(b);
	json_object_put(root);
	return rc;
}

int orp_by_load(const char *spec, struct orp_by *b, char *err, size_t errlen)
{
	char *path = strcmp(spec, "-") == 0 ? strdup(spec) : orp_companion(spec, "by", true);
	char *text = NULL, why[ORP_BY_ERRLEN];
	size_t len = 0;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!path) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = strcmp(path, "-") == 0 ? osp_read_stream(stdin, &text, &len)
				    : osp_read_path(path, &text, &len);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no such file (a mount without -o by=KEY has no by.json)",
			 path);
	else if (rc == -EACCES)
		snprintf(err, errlen, "%s: " ORP_NAMES_PRIVATE, path);
	else if (rc)
		snprintf(err, errlen, "%s: %s", path, osp_read_error(rc));
	else if ((rc = orp_by_parse(text, len, b, why, sizeof(why))) != 0) {
		/* A profile given as FILE whose FILE.by.json is missing: say
		 * where the by document was looked for too. */
		char *beside = strcmp(path, spec) == 0 ? orp_companion(spec, "by", false) : NULL;

		if (beside && strcmp(beside, spec) != 0)
			snprintf(err, errlen, "%s: %s (and there is no %s beside it)", path, why,
				 beside);
		else
			snprintf(err, errlen, "%s: %s", path, why);
		free(beside);
	}
	free(text);
	free(path);
	return rc;
}

static void value_free(struct orp_by_value *v)
{
	free(v->value);
	free(v->label);
	osp_profile_free(v->p);
}

void orp_by_free(struct orp_by *b)
{
	for (size_t i = 0; i < b->n; i++)
		value_free(&b->v[i]);
	free(b->v);
	value_free(&b->other);
	free(b->key);
	memset(b, 0, sizeof(*b));
}
