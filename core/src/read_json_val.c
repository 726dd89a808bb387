// SPDX-License-Identifier: MIT
/*
 * The values of the JSON reader (read_json.h): numbers read from the text
 * itself, so every one up to 2^64 - 1 is exact and a larger one refused,
 * never clamped; strings decoded without json-c when they hold no escape;
 * keys checked for NUL characters; and the messages naming where.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/parse.h"
#include "read_json.h"

int osp_rj_fail(struct rd *rd, const char *path, const char *fmt, ...)
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
void osp_rj_subpath(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* json-c's tree of the value @v (NULL for a JSON null): 0 or -EINVAL. */
int osp_rj_parse(struct rd *rd, const char *path, const struct js_span *v,
		 struct json_object **out)
{
	enum json_tokener_error e;

	*out = NULL;
	if (v->len > VALUE_TEXT_MAX)
		return osp_rj_fail(rd, path, "over %u bytes of JSON in one value; refused",
				   VALUE_TEXT_MAX);
	json_tokener_reset(rd->tok);
	*out = json_tokener_parse_ex(rd->tok, rd->js.s + v->off, (int)v->len);
	e = json_tokener_get_error(rd->tok);
	if (e == json_tokener_continue) {
		/* A number is complete only once something follows it. */
		*out = json_tokener_parse_ex(rd->tok, "", 1);
		e = json_tokener_get_error(rd->tok);
	}
	if (e == json_tokener_success)
		return 0;
	json_object_put(*out);
	*out = NULL;
	return osp_rj_fail(rd, "", "invalid JSON at byte %zu: %s",
			   v->off + json_tokener_get_parse_end(rd->tok),
			   json_tokener_error_desc(e));
}

/*
 * Refuse key @k for its NUL character, quoting it as the file spells it
 * (JSON text holds no raw control character, so the message stays one
 * line): json-c would cut the key there, and it could pass for another.
 */
static int key_nul(struct rd *rd, const char *path, const struct js_span *k)
{
	int n = k->len > 48 ? 48 : (int)k->len;

	return osp_rj_fail(rd, path, "key %.*s%s holds a NUL character (\\u0000)", n,
			   rd->js.s + k->off, n < (int)k->len ? "..." : "");
}

/*
 * The key of a member, decoded into @buf ("" when longer than @len - 1:
 * no key the format knows is). A key with a NUL is refused.
 */
int osp_rj_key(struct rd *rd, const char *path, const struct js_span *k,
	       char *buf, size_t len)
{
	const char *raw = rd->js.s + k->off + 1;
	size_t n = k->len - 2;
	struct json_object *o;

	buf[0] = '\0';
	if (k->nul)
		return key_nul(rd, path, k);
	if (!memchr(raw, '\\', n)) {
		if (n < len) {
			memcpy(buf, raw, n);
			buf[n] = '\0';
		}
		return 0;
	}
	if (osp_rj_parse(rd, path, k, &o))
		return -EINVAL;
	if ((size_t)json_object_get_string_len(o) < len)
		strcpy(buf, json_object_get_string(o));
	json_object_put(o);
	return 0;
}

/*
 * NULL with *@out set, or why the value @v is not an unsigned 64-bit
 * integer. Read from the text itself, so every value up to 2^64 - 1 reads
 * exactly and a larger one is refused, never rounded or clamped.
 */
const char *osp_rj_u64_of(const struct rd *rd, const struct js_span *v,
			  uint64_t *out)
{
	const char *s = rd->js.s + v->off;
	bool neg = v->len && s[0] == '-';
	uint64_t x;
	int err = osp_parse_u64_n(s + neg, v->len - neg, 0, UINT64_MAX, &x);

	if (err == -EINVAL)
		return "must be an unsigned integer";
	if (neg)
		return "must not be negative";
	if (err)
		return "too large (at most 18446744073709551615)";
	*out = x;
	return NULL;
}

/* Paths are built only for a message: reading stays cheap. */
int osp_rj_u64(struct rd *rd, const char *path, const char *key,
	       const struct js_span *v, uint64_t *out)
{
	const char *why = osp_rj_u64_of(rd, v, out);
	char p[256];

	if (!why)
		return 0;
	osp_rj_subpath(p, sizeof(p), "%s%s%s", path, *path && *key ? "." : "", key);
	return osp_rj_fail(rd, p, "%s", why);
}

/*
 * The string value @v (of member @key of @path), decoded into a new string
 * in *@out (owned by the caller). Refused: not a string, empty when
 * @nonempty, or holding a NUL.
 */
int osp_rj_str(struct rd *rd, const char *path, const char *key,
	       const struct js_span *v, bool nonempty, char **out)
{
	const char *raw = rd->js.s + v->off + 1, *why = NULL;
	struct json_object *o;
	size_t n = v->len - 2;
	char p[256];

	*out = NULL;
	if (v->len < 2 || raw[-1] != '"')
		why = nonempty ? "must be a non-empty string" : "must be a string";
	else if (v->nul)
		why = "holds a NUL character (\\u0000)";
	else if (nonempty && n == 0)
		why = "must be a non-empty string";
	/* Without escapes the text is the string: no tree to build. */
	else if (!memchr(raw, '\\', n))
		*out = strndup(raw, n);
	else if (!osp_rj_parse(rd, path, v, &o)) {
		*out = strdup(json_object_get_string(o));
		json_object_put(o);
	} else {
		return -EINVAL;
	}
	if (!why && !*out)
		why = "out of memory";
	if (!why)
		return 0;
	osp_rj_subpath(p, sizeof(p), "%s%s%s", path, *path && *key ? "." : "", key);
	return osp_rj_fail(rd, p, "%s", why);
}

/* Count the members or elements of @v (validated text). */
size_t osp_rj_count(struct rd *rd, const struct js_span *v, char open)
{
	struct js_span k, e;
	struct js_iter it;
	size_t n = 0;

	if (js_open(&rd->js, v, open, &it))
		return 0;
	while (js_next(&rd->js, &it, &k, &e) == 1)
		n++;
	return n;
}

const char *osp_rj_json_text(struct json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						 JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Key @k of an object at @path as a new string: 0 or -EINVAL said. */
int osp_rj_key_str(struct rd *rd, const char *path, const struct js_span *k,
		   char **out)
{
	*out = NULL;
	return k->nul ? key_nul(rd, path, k) : osp_rj_str(rd, path, "", k, false, out);
}

