// SPDX-License-Identifier: MIT
/*
 * A strict checker of JSON text (RFC 8259) in strict UTF-8 (RFC 3629),
 * for the fuzz targets to hold the profile writer to. Our own reader is
 * no judge here: json-c, even in strict mode, takes NaN, Infinity, "1."
 * and UTF-8 encoded surrogates, so a writer passing those through would
 * round-trip through osprof and still break jq and every other reader.
 * A recursive descent over the bytes; nothing is built.
 */
#include <stdbool.h>
#include <string.h>

#include "ofz.h"

/* Deeper than any profile; bounds the recursion on hostile input. */
#define OFZ_JSON_MAX_DEPTH 256

struct jp {
	const unsigned char *s;
	size_t len, at;
	enum ofz_json_err why; /* set where the text first goes wrong */
};

size_t ofz_utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (avail < n)
		return 0;
	/* The second byte's range rules out overlongs, surrogates, > U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static int peek(const struct jp *j)
{
	return j->at < j->len ? j->s[j->at] : -1;
}

static void skip_ws(struct jp *j)
{
	while (peek(j) == ' ' || peek(j) == '\t' || peek(j) == '\n' || peek(j) == '\r')
		j->at++;
}

static bool literal(struct jp *j, const char *word)
{
	size_t n = strlen(word);

	if (j->len - j->at < n || memcmp(j->s + j->at, word, n) != 0)
		return false;
	j->at += n;
	return true;
}

static bool digits(struct jp *j)
{
	size_t start = j->at;

	while (peek(j) >= '0' && peek(j) <= '9')
		j->at++;
	return j->at > start;
}

static bool number_body(struct jp *j)
{
	if (peek(j) == '-')
		j->at++;
	if (peek(j) == '0') {
		j->at++;
		if (peek(j) >= '0' && peek(j) <= '9')
			return false; /* a leading zero: json-c takes "01e-3" */
	} else if (!(peek(j) >= '1' && peek(j) <= '9') || !digits(j))
		return false;
	if (peek(j) == '.') {
		j->at++;
		if (!digits(j))
			return false;
	}
	if (peek(j) == 'e' || peek(j) == 'E') {
		j->at++;
		if (peek(j) == '+' || peek(j) == '-')
			j->at++;
		if (!digits(j))
			return false;
	}
	return true;
}

/* Also where NaN, Infinity and -Infinity end up: not JSON numbers. */
static bool number(struct jp *j)
{
	if (number_body(j))
		return true;
	j->why = OFZ_JSON_NUMBER;
	return false;
}

/* @c (a byte, or -1 at the end) is one of @set. */
static bool in_set(int c, const char *set)
{
	return c > 0 && strchr(set, c);
}

static bool string(struct jp *j)
{
	if (peek(j) != '"')
		return false;
	j->at++;
	for (;;) {
		int c = peek(j);
		size_t n;

		if (c < 0x20)
			return false;
		if (c == '"') {
			j->at++;
			return true;
		}
		if (c == '\\') {
			j->at++;
			c = peek(j);
			if (c == 'u') {
				j->at++;
				for (int i = 0; i < 4; i++, j->at++)
					if (!in_set(peek(j), "0123456789abcdefABCDEF"))
						return false;
				continue;
			}
			if (!in_set(c, "\"\\/bfnrt"))
				return false;
			j->at++;
			continue;
		}
		n = ofz_utf8_seq(j->s + j->at, j->len - j->at);
		if (!n) {
			j->why = OFZ_JSON_UTF8;
			return false;
		}
		j->at += n;
	}
}

static bool value(struct jp *j, int depth);

/* Members of an object (@close '}') or elements of an array (']'). */
static bool members(struct jp *j, int close, int depth)
{
	j->at++;
	skip_ws(j);
	if (peek(j) == close) {
		j->at++;
		return true;
	}
	for (;;) {
		if (close == '}') {
			skip_ws(j);
			if (!string(j))
				return false;
			skip_ws(j);
			if (peek(j) != ':')
				return false;
			j->at++;
		}
		if (!value(j, depth + 1))
			return false;
		if (peek(j) == close) {
			j->at++;
			return true;
		}
		if (peek(j) != ',')
			return false;
		j->at++;
	}
}

/* A value with the white space around it. */
static bool value(struct jp *j, int depth)
{
	bool ok;

	if (depth > OFZ_JSON_MAX_DEPTH)
		return false;
	skip_ws(j);
	switch (peek(j)) {
	case '{':
	case '[':
		ok = members(j, peek(j) == '{' ? '}' : ']', depth);
		break;
	case '"':
		ok = string(j);
		break;
	case 't':
		ok = literal(j, "true");
		break;
	case 'f':
		ok = literal(j, "false");
		break;
	case 'n':
		ok = literal(j, "null");
		break;
	case '-':
	case '0' ... '9':
	case 'N': /* NaN */
	case 'I': /* Infinity */
		ok = number(j);
		break;
	default:
		ok = false;
	}
	skip_ws(j);
	return ok;
}

enum ofz_json_err ofz_json_strict(const char *text, size_t len, size_t *bad_at)
{
	struct jp j = { (const unsigned char *)text, len, 0, OFZ_JSON_SYNTAX };

	if (value(&j, 0) && j.at == len)
		return OFZ_JSON_OK;
	*bad_at = j.at;
	return j.why;
}
