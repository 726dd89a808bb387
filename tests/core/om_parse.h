/* SPDX-License-Identifier: MIT */
/*
 * A strict reader of the Prometheus and OpenMetrics text osprof writes,
 * for the tests that check its series exactly (core's writer, the
 * exporter): each sample line split into its name, its labels (values
 * unescaped) and its value, and the samples grouped into series (a
 * histogram's _bucket, _sum and _count lines are one series).
 * Criterion assertions fail the test on anything malformed.
 */
#ifndef TESTS_CORE_OM_PARSE_H
#define TESTS_CORE_OM_PARSE_H

#include <stddef.h>

#define OM_LABELS_MAX 48

/* One sample line; its strings point into the parsed text. */
struct om_sample {
	char *name;
	size_t nl;
	char *key[OM_LABELS_MAX], *val[OM_LABELS_MAX];
	double value;
};

/* Parse @text (modified: look at it before) into at most @max samples;
 * how many. Comment lines are checked for their form only. */
size_t om_parse(char *text, struct om_sample *out, size_t max);
/* The value of label @key of @s, or NULL. */
const char *om_label(const struct om_sample *s, const char *key);

/* One series: a name (a histogram's without its suffix) and its labels
 * but le, "k=v,k=v" in the order written. */
struct om_series {
	char name[64];
	char labels[1024];
	size_t samples;
	double count; /* a histogram's _count, -1 for none */
};
/* The series of @n samples into @out (at most @max); how many. */
size_t om_series_of(const struct om_sample *s, size_t n, struct om_series *out,
		    size_t max);
/* The series named @name with labels @labels, or NULL. */
const struct om_series *om_find(const struct om_series *s, size_t n,
				const char *name, const char *labels);

/*
 * Prometheus's own check of @text, `promtool check metrics`: fails the
 * test with what promtool says when it finds anything; skips the check,
 * saying so, where promtool is not installed (Debian's prometheus).
 */
void om_promtool(const char *text);

#endif
