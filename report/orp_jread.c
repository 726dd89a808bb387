// SPDX-License-Identifier: MIT
/* Checks every reader of osprof's non-profile JSON documents shares. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orp_jread.h"
#include "osprof/format.h"

int orp_jread_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	for (char *p = err; errlen && *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return -EINVAL;
}

int orp_jread_whole(json_object *v, uint64_t max, uint64_t *out)
{
	int64_t i;

	if (!json_object_is_type(v, json_type_int))
		return -EINVAL;
	i = json_object_get_int64(v);
	if (i < 0)
		return -EINVAL;
	/* Past INT64_MAX json-c keeps it unsigned: take it as such. */
	*out = i == INT64_MAX ? json_object_get_uint64(v) : (uint64_t)i;
	return *out <= max ? 0 : -EINVAL;
}

int orp_jread_u64(json_object *o, const char *where, const char *key, bool need,
		  uint64_t *out, char *err, size_t errlen)
{
	json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(o, key, &v))
		return need ? orp_jread_fail(err, errlen, "%s: no \"%s\"", where, key) : 0;
	if (orp_jread_whole(v, UINT64_MAX, out))
		return orp_jread_fail(err, errlen, "%s: \"%s\" must be a whole number >= 0",
				      where, key);
	return 0;
}

int orp_jread_str(json_object *o, const char *where, const char *key, bool need,
		  char **out, char *err, size_t errlen)
{
	json_object *v;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return need ? orp_jread_fail(err, errlen, "%s: no \"%s\"", where, key) : 0;
	if (!json_object_is_type(v, json_type_string))
		return orp_jread_fail(err, errlen, "%s: \"%s\" must be a string", where, key);
	if (strlen(json_object_get_string(v)) != (size_t)json_object_get_string_len(v))
		return orp_jread_fail(err, errlen, "%s: \"%s\" holds a NUL character", where, key);
	*out = strdup(json_object_get_string(v));
	if (!*out) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* The parse itself: standard JSON (as core's profile reader takes: no
 * comments, single quotes, NaN), white space only after it. */
static int parse(const char *text, size_t len, json_object **root, char *err, size_t errlen)
{
	struct json_tokener *tok;
	enum json_tokener_error e;
	int rc = 0;

	*root = NULL;
	if (len > INT32_MAX)
		return orp_jread_fail(err, errlen, "larger than 2 GiB");
	tok = json_tokener_new();
	if (!tok) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	*root = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	if (!*root || e != json_tokener_success) {
		rc = orp_jread_fail(err, errlen, "invalid JSON at byte %zu: %s",
				    json_tokener_get_parse_end(tok),
				    e == json_tokener_success || e == json_tokener_continue
				    ? "truncated" : json_tokener_error_desc(e));
	} else {
		for (size_t i = json_tokener_get_parse_end(tok); !rc && i < len; i++)
			if (!text[i] || !strchr(" \t\r\n", text[i]))
				rc = orp_jread_fail(err, errlen,
						    "invalid JSON at byte %zu: text after the document", i);
	}
	json_tokener_free(tok);
	if (rc) {
		json_object_put(*root);
		*root = NULL;
	}
	return rc;
}

int orp_jread_doc(const char *text, size_t len, const char *format, uint64_t version,
		  const char *hint, json_object **root, uint64_t *ver, char *err, size_t errlen)
{
	json_object *v;
	int rc = parse(text, len, root, err, errlen);

	if (rc)
		return rc;
	if (!json_object_is_type(*root, json_type_object))
		rc = orp_jread_fail(err, errlen, "not a JSON object");
	else if (!json_object_object_get_ex(*root, "format", &v) ||
		 !json_object_is_type(v, json_type_string) ||
		 strcmp(json_object_get_string(v), format) != 0)
		rc = orp_jread_fail(err, errlen, "not an %s document (\"format\": \"%s\")%s%s",
				    format, format, hint ? ": " : "", hint ? hint : "");
	else if ((rc = orp_jread_u64(*root, "document", "version", true, ver, err, errlen)) == 0) {
		if (*ver == 0)
			rc = orp_jread_fail(err, errlen, "version 0: versions start at 1");
		else if (*ver > version)
			rc = orp_jread_fail(err, errlen,
					    "version %llu is newer than this osprof-report reads (%llu): upgrade it",
					    (unsigned long long)*ver, (unsigned long long)version);
	}
	if (rc) {
		json_object_put(*root);
		*root = NULL;
	}
	return rc;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Is @path's last component @name.json, or does it end in .@name.json? */
static bool named(const char *path, const char *name)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t blen = strlen(base), nlen = strlen(name);
	const char *tail;

	if (blen < nlen + 5)
		return false;
	tail = base + blen - (nlen + 5);
	if (strncmp(tail, name, nlen) != 0 || strcmp(tail + nlen, ".json") != 0)
		return false;
	return tail == base || tail[-1] == '.';
}

char *orp_companion(const char *spec, const char *name, bool or_self)
{
	struct stat st;
	char *p = NULL;

	if (is_dir(spec)) {
		char *ctl = NULL;
		bool mount;

		if (asprintf(&ctl, "%s/.osprof", spec) < 0)
			return NULL;
		mount = is_dir(ctl);
		free(ctl);
		return asprintf(&p, mount ? "%s/.osprof/%s.json" : "%s/%s.json", spec, name) < 0
			       ? NULL : p;
	}
	if (stat(spec, &st) != 0 || !S_ISREG(st.st_mode) || named(spec, name))
		return strdup(spec);
	p = osp_file_beside(spec, name);
	if (p && or_self && stat(p, &st) != 0) {
		free(p);
		return strdup(spec);
	}
	return p;
}
