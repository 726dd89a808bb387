// SPDX-License-Identifier: MIT
/*
 * The project's one number parser for external input: whole-string decimal
 * integers, sizes with binary suffixes and finite decimals, each with a
 * range. strtoull alone accepts "-1" (as a huge value), leading blanks and
 * trailing garbage, and strtod accepts "nan" and "inf": these reject them
 * all, so every value is either exactly what the user wrote or refused.
 * Also the lookup of a name in an enum's name table.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/parse.h"

/* strtoull on the leading digits; *end gets the first unparsed character. */
static int parse_digits(const char *s, uint64_t *val, char **end)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL; /* rejects "", " 1", "-1", "+1" */
	errno = 0;
	unsigned long long v = strtoull(s, end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	*val = v;
	return 0;
}

int osp_parse_u64_n(const char *s, size_t len, uint64_t min, uint64_t max,
		    uint64_t *out)
{
	uint64_t v = 0;
	bool over = false;
	size_t i;

	if (!s || len == 0)
		return -EINVAL;
	for (i = 0; i < len && isdigit((unsigned char)s[i]); i++) {
		unsigned d = (unsigned)(s[i] - '0');

		over |= v > (UINT64_MAX - d) / 10;
		v = v * 10 + d;
	}
	/* As strtoull: too many digits is -ERANGE, whatever follows them. */
	if (i == 0)
		return -EINVAL;
	if (over)
		return -ERANGE;
	if (i < len)
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int osp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return osp_parse_u64_n(s, s ? strlen(s) : 0, min, max, out);
}

int osp_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v, mult = 1;
	char *end;
	int err = parse_digits(s, &v, &end);

	if (err)
		return err;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		mult = 1ULL << 10;
		break;
	case 'm': case 'M':
		mult = 1ULL << 20;
		break;
	case 'g': case 'G':
		mult = 1ULL << 30;
		break;
	default:
		return -EINVAL;
	}
	if (mult != 1 && end[1] != '\0')
		return -EINVAL;
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	v *= mult;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int osp_parse_duration_n(const char *s, size_t len, uint64_t max_ns, uint64_t *out_ns)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	size_t n = 0;
	uint64_t v;
	int err;

	while (s && n < len && isdigit((unsigned char)s[n]))
		n++;
	err = osp_parse_u64_n(s, n, 0, UINT64_MAX, &v);
	if (err)
		return err;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (len - n != strlen(units[i].name) || memcmp(s + n, units[i].name, len - n) != 0)
			continue;
		if (v > UINT64_MAX / units[i].ns || v * units[i].ns > max_ns)
			return -ERANGE;
		*out_ns = v * units[i].ns;
		return 0;
	}
	if (n != len || v != 0)
		return -EINVAL; /* a unit is needed, but for 0 */
	*out_ns = 0;
	return 0;
}

int osp_parse_duration(const char *s, uint64_t max_ns, uint64_t *out_ns)
{
	return osp_parse_duration_n(s, s ? strlen(s) : 0, max_ns, out_ns);
}

int osp_parse_double(const char *s, double min, double max, double *out)
{
	char *end;

	/* A digit or a dot first: no blanks, signs, "nan" or "inf". */
	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end != '\0')
		return -EINVAL;
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int osp_parse_name(const char *s, const char *const *names, unsigned n,
		   unsigned *out)
{
	for (unsigned i = 0; s && i < n; i++) {
		if (names[i] && strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}
