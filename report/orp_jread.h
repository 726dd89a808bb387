/* SPDX-License-Identifier: MIT */
/*
 * Reading osprof's JSON documents other than profiles (by.json, top.json,
 * values.json), which are external input: one place for what each reader
 * checks the same way -- standard JSON, one object and only white space
 * after it, its "format" and "version", whole numbers and strings -- and
 * for the one-line error naming what is wrong. Profiles have core's own
 * reader (osp_read_json). json-c and core only, so that fuzz targets link
 * it alone. Also where such a document is, beside a mount or a profile.
 */
#ifndef ORP_JREAD_H
#define ORP_JREAD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Format @fmt into @err as one line (control characters, which a name
 * from the input may hold, become '?'). Returns -EINVAL. */
int orp_jread_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * orp_jread_doc - parse @len bytes of @text as one JSON object whose
 * "format" is @format and whose "version" is 1..@version; @hint (or NULL)
 * follows the message when the format differs. *@root is the object (the
 * caller puts it) and *@ver its version. 0, -EINVAL (said in @err) or
 * -ENOMEM.
 */
int orp_jread_doc(const char *text, size_t len, const char *format, uint64_t version,
		  const char *hint, json_object **root, uint64_t *ver, char *err, size_t errlen);

/* @v as a whole number in [0, @max] into *@out: 0 or -EINVAL (unsaid). */
int orp_jread_whole(json_object *v, uint64_t max, uint64_t *out);

/* Member @key of @o as a whole number >= 0 (json-c keeps 2^63..2^64-1
 * unsigned); absent: 0, or an error when @need. @where names @o. */
int orp_jread_u64(json_object *o, const char *where, const char *key, bool need,
		  uint64_t *out, char *err, size_t errlen);

/* Member @key of @o as a string without NUL characters, strdup'd into
 * *@out; absent: NULL, or an error when @need. */
int orp_jread_str(json_object *o, const char *where, const char *key, bool need,
		  char **out, char *err, size_t errlen);

/*
 * Where the companion document @name ("by", "values") of @spec is: a
 * mount's .osprof/@name.json, another directory's @name.json; a file named
 * @name.json or *.@name.json itself; another file FILE, FILE with .@name before its
 * extension (as --dump writes it) -- or, if that is missing and @or_self,
 * FILE itself (a document saved under a name of its own); @spec itself
 * when it is none of these (the caller's read then names it). A new
 * string, or NULL (ENOMEM).
 */
char *orp_companion(const char *spec, const char *name, bool or_self);

#endif
