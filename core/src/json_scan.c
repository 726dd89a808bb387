// SPDX-License-Identifier: MIT
/*
 * The JSON scanner of the profile reader (json_scan.h): one validating
 * pass over the whole text, as strict as json-c's strict mode (no
 * comments, no trailing commas, UTF-8 only), then walks over validated
 * objects and arrays that only skip strings and brackets. Nothing here
 * allocates.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "json_scan.h"
#include "utf8.h"

/* Say why the text is refused at byte @at; past its end, it is cut short. */
static int bad(const struct js *js, size_t at, const char *why)
{
	if (at >= js->len)
		snprintf(js->err, js->errlen, "truncated JSON (input ends after %zu bytes)",
			 js->len);
	else
		snprintf(js->err, js->errlen, "invalid JSON at byte %zu: %s", at, why);
	return -EINVAL;
}

static bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t skip_ws(const struct js *js, size_t p)
{
	while (p < js->len && is_ws(js->s[p]))
		p++;
	return p;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A string at *@pos (its opening quote); *@pos moves past it. */
static int chk_string(const struct js *js, size_t *pos, bool *nul)
{
	const char *s = js->s;
	size_t p = *pos + 1;

	for (;;) {
		unsigned char c;
		size_t n;

		if (p >= js->len)
			return bad(js, p, "");
		c = (unsigned char)s[p];
		if (c == '"') {
			*pos = p + 1;
			return 0;
		}
		if (c < 0x20)
			return bad(js, p, "control character in a string");
		if (c == '\\') {
			if (p + 1 >= js->len)
				return bad(js, p + 1, "");
			c = (unsigned char)s[p + 1];
			if (c == 'u') {
				for (size_t k = 2; k < 6; k++) {
					if (p + k >= js->len)
						return bad(js, p + k, "");
					if (!is_hex(s[p + k]))
						return bad(js, p + k, "bad \\u escape");
				}
				if (memcmp(s + p + 2, "0000", 4) == 0)
					*nul = true;
				p += 6;
			} else if (c && strchr("\"\\/bfnrt", c)) {
				p += 2;
			} else {
				return bad(js, p + 1, "bad escape in a string");
			}
			continue;
		}
		if (osp_utf8_next((const unsigned char *)s + p, js->len - p, &n) < 0)
			return bad(js, p, "invalid UTF-8 in a string");
		p += n;
	}
}

/* A run of digits at *@pos, at least one. */
static int chk_digits(const struct js *js, size_t *pos)
{
	size_t p = *pos;

	if (p >= js->len || !is_digit(js->s[p]))
		return bad(js, p, "bad number");
	while (p < js->len && is_digit(js->s[p]))
		p++;
	*pos = p;
	return 0;
}

/* A number as RFC 8259 spells it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int chk_number(const struct js *js, size_t *pos)
{
	const char *s = js->s;
	size_t p = *pos;
	int err;

	if (p < js->len && s[p] == '-')
		p++;
	if (p < js->len && s[p] == '0')
		p++;
	else if ((err = chk_digits(js, &p)))
		return err;
	if (p < js->len && s[p] == '.') {
		p++;
		if ((err = chk_digits(js, &p)))
			return err;
	}
	if (p < js->len && (s[p] == 'e' || s[p] == 'E')) {
		p++;
		if (p < js->len && (s[p] == '+' || s[p] == '-'))
			p++;
		if ((err = chk_digits(js, &p)))
			return err;
	}
	*pos = p;
	return 0;
}

static int chk_literal(const struct js *js, size_t *pos)
{
	static const char *const lits[] = { "true", "false", "null" };

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(lits[i]), avail = js->len - *pos;

		if (memcmp(js->s + *pos, lits[i], n < avail ? n : avail) != 0)
			continue;
		if (avail < n)
			return bad(js, js->len, "");
		*pos += n;
		return 0;
	}
	return bad(js, *pos, "unexpected character");
}

static int chk_value(const struct js *js, size_t *pos, bool *nul, unsigned depth);

/* An object or array at *@pos, nested @depth deep. */
static int chk_container(const struct js *js, size_t *pos, bool *nul,
			 unsigned depth)
{
	const char *s = js->s;
	char close = s[*pos] == '{' ? '}' : ']';
	size_t p = skip_ws(js, *pos + 1);
	int err;

	if (depth > JS_DEPTH_MAX)
		return bad(js, *pos, "nested too deeply");
	if (p < js->len && s[p] == close) {
		*pos = p + 1;
		return 0;
	}
	for (;;) {
		if (close == '}') {
			p = skip_ws(js, p);
			if (p >= js->len || s[p] != '"')
				return bad(js, p, "expected a string key");
			if ((err = chk_string(js, &p, nul)))
				return err;
			p = skip_ws(js, p);
			if (p >= js->len || s[p] != ':')
				return bad(js, p, "expected ':'");
			p++;
		}
		if ((err = chk_value(js, &p, nul, depth)))
			return err;
		p = skip_ws(js, p);
		if (p < js->len && s[p] == ',') {
			p++;
			continue;
		}
		if (p < js->len && s[p] == close) {
			*pos = p + 1;
			return 0;
		}
		return bad(js, p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
	}
}

static int chk_value(const struct js *js, size_t *pos, bool *nul, unsigned depth)
{
	size_t p = skip_ws(js, *pos);
	int err;

	if (p >= js->len)
		return bad(js, p, "");
	switch (js->s[p]) {
	case '"':
		err = chk_string(js, &p, nul);
		break;
	case '{':
	case '[':
		err = chk_container(js, &p, nul, depth + 1);
		break;
	case '-':
	case '0' ... '9':
		err = chk_number(js, &p);
		break;
	default:
		err = chk_literal(js, &p);
		break;
	}
	if (!err)
		*pos = p;
	return err;
}

int js_check(struct js *js, struct js_span *root)
{
	size_t p = skip_ws(js, 0), start = p;
	int err;

	root->nul = false;
	err = chk_value(js, &p, &root->nul, 0);
	if (err)
		return err;
	root->off = start;
	root->len = p - start;
	p = skip_ws(js, p);
	if (p < js->len)
		return bad(js, p, "more after the end of the value");
	return 0;
}

/* Past the string at @p of validated text, noting a \u0000 in *@nul. */
static size_t skip_string(const struct js *js, size_t p, bool *nul)
{
	for (p++; p < js->len && js->s[p] != '"'; p++) {
		if (js->s[p] != '\\')
			continue;
		p++;
		if (js->s[p] == 'u' && p + 5 <= js->len && memcmp(js->s + p + 1, "0000", 4) == 0)
			*nul = true;
	}
	return p + 1;
}

/* Past the value at @p of validated text: strings and brackets only. */
static size_t skip_value(const struct js *js, size_t p, bool *nul)
{
	unsigned depth = 0;

	if (js->s[p] == '"')
		return skip_string(js, p, nul);
	if (js->s[p] != '{' && js->s[p] != '[') {
		while (p < js->len && !is_ws(js->s[p]) && js->s[p] != ',' &&
		       js->s[p] != ']' && js->s[p] != '}')
			p++;
		return p;
	}
	while (p < js->len) {
		char c = js->s[p];

		if (c == '"') {
			p = skip_string(js, p, nul);
			continue;
		}
		if (c == '{' || c == '[')
			depth++;
		else if ((c == '}' || c == ']') && --depth == 0)
			return p + 1;
		p++;
	}
	return p;
}

int js_open(const struct js *js, const struct js_span *v, char open,
	    struct js_iter *it)
{
	if (v->len == 0 || js->s[v->off] != open)
		return -EINVAL;
	it->pos = v->off + 1;
	it->close = open == '{' ? '}' : ']';
	it->first = true;
	it->done = false;
	return 0;
}

int js_next(const struct js *js, struct js_iter *it, struct js_span *key,
	    struct js_span *val)
{
	size_t p = skip_ws(js, it->pos);

	if (it->done || p >= js->len || js->s[p] == it->close) {
		it->done = true;
		return 0;
	}
	if (!it->first)
		p = skip_ws(js, p + 1); /* the ',' */
	it->first = false;
	if (it->close == '}') {
		key->off = p;
		key->nul = false;
		p = skip_string(js, p, &key->nul);
		key->len = p - key->off;
		p = skip_ws(js, skip_ws(js, p) + 1); /* the ':' */
	}
	val->off = p;
	val->nul = false;
	p = skip_value(js, p, &val->nul);
	val->len = p - val->off;
	it->pos = p;
	return 1;
}
