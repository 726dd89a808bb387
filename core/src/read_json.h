/* SPDX-License-Identifier: MIT */
/*
 * Private to the JSON reader (read_json.c: the document; read_json_op.c:
 * the operations; read_json_val.c: numbers, strings and keys): its state,
 * and the helpers that take one value of the text, saying why not in one
 * line that names the key path.
 */
#ifndef OSPROF_READ_JSON_H
#define OSPROF_READ_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "json_scan.h"
#include "osprof/profile.h"

/*
 * json-c's tree of a value costs about 25 times its text: one operation
 * (two histograms of at most 513 buckets each, a few counters) is a few
 * KiB, so this bound on the text of any one value json-c is given keeps
 * that tree to tens of MiB whatever a file holds.
 */
#define VALUE_TEXT_MAX (1u << 20)

struct rd {
	char *err;
	size_t errlen;
	unsigned res;
	struct js js;
	struct json_tokener *tok;
};

/* Put "<path>: <message>" in rd->err; returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int osp_rj_fail(struct rd *rd, const char *path, const char *fmt, ...);
/* Build a key path for a message (truncation only shortens it). */
__attribute__((format(printf, 3, 4)))
void osp_rj_subpath(char *buf, size_t len, const char *fmt, ...);

/* json-c's tree of the value @v (NULL for a JSON null): 0 or -EINVAL. */
int osp_rj_parse(struct rd *rd, const char *path, const struct js_span *v,
		 struct json_object **out);
/* The key @k decoded into @buf ("" when too long for it); a key holding a
 * NUL is refused. 0 or -EINVAL. */
int osp_rj_key(struct rd *rd, const char *path, const struct js_span *k,
	       char *buf, size_t len);
/* The key @k as a new string; 0 or -EINVAL. */
int osp_rj_key_str(struct rd *rd, const char *path, const struct js_span *k,
		   char **out);
/* NULL with *@out set, or why @v is not an unsigned 64-bit integer. */
const char *osp_rj_u64_of(const struct rd *rd, const struct js_span *v,
			  uint64_t *out);
/* Member @key of @path, the value @v, as u64: 0 or -EINVAL. */
int osp_rj_u64(struct rd *rd, const char *path, const char *key,
	       const struct js_span *v, uint64_t *out);
/* Member @key of @path, the string @v, as a new string (non-empty when
 * @nonempty; never holding a NUL): 0 or -EINVAL. */
int osp_rj_str(struct rd *rd, const char *path, const char *key,
	       const struct js_span *v, bool nonempty, char **out);
/* The members or elements of @v, an object or array (@open '{' or '['). */
size_t osp_rj_count(struct rd *rd, const struct js_span *v, char open);
/* @v as compact JSON text (owned by @v). */
const char *osp_rj_json_text(struct json_object *v);

/* The operations of array @arr at @path into a new array: 0 or -EINVAL
 * (then *@ops_out holds the *@n_out ops built, for the caller to free). */
int osp_rj_read_ops(struct rd *rd, const char *path, const struct js_span *arr,
		    struct osp_op **ops_out, size_t *n_out);

#endif /* OSPROF_READ_JSON_H */
