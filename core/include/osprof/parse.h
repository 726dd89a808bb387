/* SPDX-License-Identifier: MIT */
/*
 * Strict parsing of numbers from external input (argv, ctl commands,
 * /proc text): the whole string must be the number, in range, no sign
 * surprises ("-1" is not a large unsigned), no trailing garbage.
 */
#ifndef OSPROF_PARSE_H
#define OSPROF_PARSE_H

#include <stdint.h>

/*
 * osp_parse_u64 - parse decimal @s into @out, requiring @min <= v <= @max.
 * Returns 0, -EINVAL (not a number, empty, trailing characters, a sign) or
 * -ERANGE (out of [min, max] or overflow). @out is set only on success.
 */
int osp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* The same for a finite double in [@min, @max]. */
int osp_parse_double(const char *s, double min, double max, double *out);

#endif /* OSPROF_PARSE_H */
