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

#include "orp_by.h"
#include "osprof/format.h"

#define BY_VERSION 1

static int fail(char *err, size_t errlen, const char *where, const char *why)
{
	snprintf(err, errlen, "%s: %s", where, why);
	return -EINVAL;
}

/* Member @key of object @o as a string (NULL when absent and !@need). */
static int get_str(json_object *o, const char *key, bool need, char **out,
		   const char *where, char *err, size_t errlen)
{
	json_object *v;
	char w[128];

	*out = NULL;
	snprintf(w, sizeof(w), "%s%s%s", where, where[0] ? "." : "", key);
	if (!json_object_object_get_ex(o, key, &v))
		return need ? fail(err, errlen, w, "missing") : 0;
	if (!json_object_is_type(v, json_type_string))
		return fail(err, errlen, w, "expected a string");
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return fail(err, errlen, w, "a string holding a NUL character");
	*out = strdup(json_object_get_string(v));
	return *out ? 0 : -ENOMEM;
}

/* Member @key of @o as a whole number >= 0 (0 when absent). */
static int get_u64(json_object *o, const char *key, uint64_t *out, char *err, size_t errlen)
{
	json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return fail(err, errlen, key, "expected a whole number >= 0");
	*out = json_object_get_uint64(v);
	return 0;
}

/* The profile of one value, @o's "profile", through core's reader. */
static int get_profile(json_object *o, const char *where, struct orp_by_value *v,
		       char *err, size_t errlen)
{
	json_object *p;
	const char *text;
	size_t len;
	char why[512];

	if (!json_object_object_get_ex(o, "profile", &p) || !json_object_is_type(p, json_type_object))
		return fail(err, errlen, where, "expected a \"profile\" object");
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
		return fail(err, errlen, where, "expected an object");
	if (other) {
		v->value = strdup("other");
		rc = v->value ? 0 : -ENOMEM;
	} else {
		rc = get_str(o, "value", true, &v->value, where, err, errlen);
		rc = rc ? rc : get_str(o, "label", false, &v->label, where, err, errlen);
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

/* The envelope's own members. */
static int get_head(json_object *root, struct orp_by *b, char *err, size_t errlen)
{
	char *format = NULL;
	uint64_t version;
	json_object *v;
	int rc = get_str(root, "format", true, &format, "", err, errlen);

	if (!rc && strcmp(format, "osprof-by") != 0)
		rc = fail(err, errlen, "format", "not \"osprof-by\" (is it a profile? use show without --by)");
	free(format);
	rc = rc ? rc : get_u64(root, "version", &version, err, errlen);
	if (!rc && version != BY_VERSION)
		rc = fail(err, errlen, "version", version > BY_VERSION ?
			  "newer than this osprof-report reads (1): upgrade it" : "expected 1");
	rc = rc ? rc : get_str(root, "key", true, &b->key, "", err, errlen);
	rc = rc ? rc : get_u64(root, "max_values", &b->max_values, err, errlen);
	rc = rc ? rc : get_u64(root, "folded_requests", &b->folded_requests, err, errlen);
	rc = rc ? rc : get_u64(root, "refused_values", &b->refused_values, err, errlen);
	rc = rc ? rc : get_u64(root, "comm_collisions", &b->comm_collisions, err, errlen);
	if (!rc && json_object_object_get_ex(root, "refused_values_more", &v))
		b->refused_more = json_object_get_boolean(v);
	return rc;
}

int orp_by_parse(const char *text, size_t len, struct orp_by *b, char *err, size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *root = NULL, *arr, *o;
	enum json_tokener_error jerr = json_tokener_success;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	if (!tok)
		return -ENOMEM;
	if (len > INT32_MAX) {
		rc = fail(err, errlen, "document", "larger than 2 GiB");
		goto out;
	}
	root = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!root || jerr != json_tokener_success) {
		snprintf(err, errlen, "invalid JSON at byte %zu: %s", json_tokener_get_parse_end(tok),
			 jerr == json_tokener_success || jerr == json_tokener_continue
			 ? "truncated" : json_tokener_error_desc(jerr));
		rc = -EINVAL;
		goto out;
	}
	/* White space may follow (@text need not end in a NUL). */
	for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
		if (!strchr(" \t\r\n", text[i]) || !text[i]) {
			snprintf(err, errlen, "invalid JSON at byte %zu: text after the document", i);
			rc = -EINVAL;
			goto out;
		}
	}
	if (!json_object_is_type(root, json_type_object)) {
		rc = fail(err, errlen, "document", "expected an object");
		goto out;
	}
	rc = get_head(root, b, err, errlen);
	if (!rc && (!json_object_object_get_ex(root, "values", &arr) ||
		    !json_object_is_type(arr, json_type_array)))
		rc = fail(err, errlen, "values", "expected an array");
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
		rc = fail(err, errlen, "other", "missing");
	rc = rc ? rc : get_value(o, "other", &b->other, true, err, errlen);
	if (!rc)
		qsort(b->v, b->n, sizeof(*b->v), value_cmp);
out:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc)
		orp_by_free(b);
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

/* The file @spec names: itself, or a mount's or control directory's by.json. */
static char *by_path(const char *spec)
{
	static const char *const tries[] = { "%s/.osprof/by.json", "%s/by.json" };
	struct stat st;
	char *path;

	if (strcmp(spec, "-") == 0 || stat(spec, &st) != 0 || !S_ISDIR(st.st_mode))
		return strdup(spec);
	for (size_t i = 0; i < 2; i++) {
		if (asprintf(&path, tries[i], spec) < 0)
			return NULL;
		if (stat(path, &st) == 0)
			return path;
		free(path);
	}
	return asprintf(&path, "%s/.osprof/by.json", spec) < 0 ? NULL : path;
}

int orp_by_load(const char *spec, struct orp_by *b, char *err, size_t errlen)
{
	char *path = by_path(spec), *text = NULL, why[ORP_BY_ERRLEN];
	size_t len = 0;
	FILE *f;
	int rc;

	memset(b, 0, sizeof(*b));
	if (!path) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	rc = f ? osp_read_stream(f, &text, &len) : -errno;
	if (f && f != stdin)
		fclose(f);
	if (rc == -ENOENT)
		snprintf(err, errlen, "%s: no such file (a mount without -o by=KEY has no by.json)",
			 path);
	else if (rc)
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
	else if ((rc = orp_by_parse(text, len, b, why, sizeof(why))) != 0)
		snprintf(err, errlen, "%s: %s", path, why);
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
