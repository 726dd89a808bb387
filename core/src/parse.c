// SPDX-License-Identifier: MIT
/* Strict number parsing for external input; see parse.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "osprof/parse.h"

int osp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int osp_parse_double(const char *s, double min, double max, double *out)
{
	double v;
	char *end;

	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.' || s[0] == '-' || s[0] == '+'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0')
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
