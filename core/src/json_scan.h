/* SPDX-License-Identifier: MIT */
/*
 * Private to read_json.c: a scanner that validates JSON text and walks
 * its objects and arrays without building them, so the reader hands
 * json-c one operation at a time instead of the whole document. json-c's
 * tree of a profile costs about 25 times the text (a 72 MB file of a
 * million operations took 1.7 GB); walked this way the reader keeps the
 * text and one operation's tree.
 */
#ifndef OSPROF_JSON_SCAN_H
#define OSPROF_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Nesting deeper than this is refused, as json-c does by default. */
#define JS_DEPTH_MAX 32

/* One value (or key) of the text. */
struct js_span {
	size_t off, len; /* its bytes: text[off .. off + len) */
	bool nul;        /* a string in it holds \u0000, a NUL character */
};

struct js {
	const char *s;
	size_t len;
	char *err;
	size_t errlen;
};

/* A walk over the members of an object or the elements of an array. */
struct js_iter {
	size_t pos;   /* the next byte to look at */
	char close;   /* '}' or ']' */
	bool first;
	bool done;
};

/*
 * js_check - validate the whole text as one JSON value (RFC 8259, UTF-8,
 * no more than JS_DEPTH_MAX deep) with only white space around it and
 * set @root to it. 0, or -EINVAL with "invalid JSON at byte N: why" or
 * "truncated JSON (...)" in js->err.
 */
int js_check(struct js *js, struct js_span *root);

/*
 * js_open - start walking @v, a value js_check accepted. Returns 0, or
 * -EINVAL when @v is not a container of the kind @open says ('{' or '[').
 */
int js_open(const struct js *js, const struct js_span *v, char open,
	    struct js_iter *it);
/*
 * js_next - the next member (@key, a string with its quotes, and @val) or
 * element (@val; @key untouched, may be NULL). 1 when one is there, 0 at
 * the end.
 */
int js_next(const struct js *js, struct js_iter *it, struct js_span *key,
	    struct js_span *val);

#endif /* OSPROF_JSON_SCAN_H */
