/* SPDX-License-Identifier: MIT */
/*
 * Strict parsing of numbers and names from external input (argv, ctl
 * commands, /proc text): the whole string must be the number, in range, no
 * sign, no blanks, no trailing garbage; or exactly one of the names. Every
 * function writes *out only on success and returns 0, -EINVAL (not such a
 * number or name) or -ERANGE (outside [min, max], or overflow).
 */
#ifndef OSPROF_PARSE_H
#define OSPROF_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* A whole decimal unsigned integer in [@min, @max]. */
int osp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/*
 * The same of the @len bytes at @s, which need no NUL after them (a word
 * of a longer text): digits only, so -EINVAL for "", a sign or anything
 * but a digit; -ERANGE past 2^64 - 1 or outside [@min, @max].
 */
int osp_parse_u64_n(const char *s, size_t len, uint64_t min, uint64_t max,
		    uint64_t *out);

/* The same with an optional binary suffix k, m, g (x1024, 1024^2, 1024^3). */
int osp_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * A duration of the @len bytes at @s (no NUL needed) in ns: a whole number
 * and a unit, ns, us, ms or s ("10ms", "500us", "2s"); "0" may go without
 * one. -EINVAL for anything else, -ERANGE past @max_ns or on overflow.
 */
int osp_parse_duration_n(const char *s, size_t len, uint64_t max_ns, uint64_t *out_ns);
/* The same of a NUL-terminated string. */
int osp_parse_duration(const char *s, uint64_t max_ns, uint64_t *out_ns);

/* A finite non-negative decimal ("0.05", "5", "1e-3") in [@min, @max]. */
int osp_parse_double(const char *s, double min, double max, double *out);

/*
 * The index of @s among the @n strings of @names (an enum's name table;
 * NULL entries never match). -EINVAL when @s is NULL or none matches.
 */
int osp_parse_name(const char *s, const char *const *names, unsigned n,
		   unsigned *out);

#endif /* OSPROF_PARSE_H */
