// SPDX-License-Identifier: MIT
/*
 * Comparability of two profiles (osprof/comparable.h): the settings that
 * change what reaches the profiler, each difference as a note with the
 * reason it matters. The reasons of known options are in one table; an
 * option this file does not know still differs, with a general reason,
 * so a setting added later is never compared in silence.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/comparable.h"

struct reason {
	const char *key;
	const char *why;
};

static const struct reason option_reasons[] = {
	{ "cache", "kernel caching changes which requests reach the daemon" },
	{ "entry_timeout_s", "the kernel caches lookups this long: it changes how many lookups reach the daemon" },
	{ "attr_timeout_s", "the kernel caches attributes this long: it changes how many getattrs reach the daemon" },
	{ "direct_io", "direct I/O bypasses the page cache: every read and write reaches the daemon" },
	{ "writeback", "writeback caching gathers writes in the kernel: it changes how many writes reach the daemon, and how large" },
	{ "cpu_time", "timing CPU per request adds its cost to every request" },
	{ "cpu_source", "CPU time is measured differently (its cost and what it counts)" },
	{ "threads", "the daemon's threading changes queueing and wake-ups" },
	{ "poll_us", "polling for requests changes wake-up latency" },
	{ "readdirplus", "readdirplus changes how many lookups reach the daemon" },
	{ "read_only", "a read-only mount keeps atime: a file read again sends no getattr" },
	{ "noopen", "the kernel answers opens, closes and flushes itself: they no longer reach the daemon" },
	{ "io_uring_pin", "io_uring threads kept on their queue's CPU change wake-ups" },
	{ "pmc", "performance counters were recorded in one only" },
	{ "pmc_events", "different performance counters were recorded" },
};

static const char why_option[] = "a setting recorded in the profile's options";
static const char why_layer[] = "different layers time different things";
static const char why_layer_source[] = "a different source timed the layer: what it sees and what it costs differ";
static const char why_res[] = "buckets of different widths do not compare bucket by bucket";
static const char why_unit[] = "histograms in different units do not compare bucket by bucket";
static const char why_clock[] = "a different clock: its cost and precision shape the smallest latencies";

static const char *option_why(const char *key)
{
	for (size_t i = 0; i < sizeof(option_reasons) / sizeof(option_reasons[0]); i++)
		if (strcmp(option_reasons[i].key, key) == 0)
			return option_reasons[i].why;
	return why_option;
}

/* Keys that are not settings: the merge record, counts of lost events. */
static bool option_skipped(const char *key)
{
	return strcmp(key, OSP_COMPAT_MERGED_KEY) == 0 || strncmp(key, "lost_", 5) == 0;
}

static int add_note(struct osp_compat *c, const char *key, const char *a,
		    const char *b, const char *why)
{
	struct osp_compat_note *n = realloc(c->notes, (c->n + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	c->notes = n;
	n = &c->notes[c->n];
	n->key = strdup(key);
	n->a = strdup(a);
	n->b = strdup(b);
	n->why = why;
	if (!n->key || !n->a || !n->b) {
		free(n->key);
		free(n->a);
		free(n->b);
		return -ENOMEM;
	}
	c->n++;
	return 0;
}

/* A string field: NULL reads "unset". */
static int cmp_str(struct osp_compat *c, const char *key, const char *a,
		   const char *b, const char *why)
{
	a = a ? a : "unset";
	b = b ? b : "unset";
	return strcmp(a, b) == 0 ? 0 : add_note(c, key, a, b, why);
}

/* A JSON literal that is a number, as a double. */
static bool json_number(const char *json, double *out)
{
	char *end;

	if (!json || !*json || strchr("-0123456789", json[0]) == NULL)
		return false;
	*out = strtod(json, &end);
	return *end == '\0';
}

/* The value of option @key of @p for people, into a new string. */
static char *option_text(const struct osp_profile *p, const char *key)
{
	for (size_t i = 0; i < p->options.n; i++)
		if (strcmp(p->options.items[i].key, key) == 0)
			return osp_kv_text(&p->options.items[i]);
	return strdup(osp_kv_get(&p->options, OSP_COMPAT_MERGED_KEY) ? "mixed" : "unset");
}

static int cmp_option(struct osp_compat *c, const struct osp_profile *a,
		      const struct osp_profile *b, const char *key)
{
	const char *ja = osp_kv_get(&a->options, key), *jb = osp_kv_get(&b->options, key);
	char *ta, *tb;
	double x, y;
	int rc = 0;

	if (ja && jb && json_number(ja, &x) && json_number(jb, &y) && x == y)
		return 0;
	ta = option_text(a, key);
	tb = option_text(b, key);
	if (!ta || !tb)
		rc = -ENOMEM;
	else if (strcmp(ta, tb) != 0 || !ja != !jb)
		rc = add_note(c, key, ta, tb, option_why(key));
	free(ta);
	free(tb);
	return rc;
}

/* Every option of A, then those only B has. */
static int cmp_options(struct osp_compat *c, const struct osp_profile *a,
		       const struct osp_profile *b)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < a->options.n; i++)
		if (!option_skipped(a->options.items[i].key))
			rc = cmp_option(c, a, b, a->options.items[i].key);
	for (size_t i = 0; !rc && i < b->options.n; i++) {
		const char *key = b->options.items[i].key;

		if (!option_skipped(key) && !osp_kv_get(&a->options, key))
			rc = cmp_option(c, a, b, key);
	}
	return rc;
}

static char *source_text(const struct osp_profile *p, const char *key)
{
	for (size_t i = 0; i < p->source.n; i++)
		if (strcmp(p->source.items[i].key, key) == 0)
			return osp_kv_text(&p->source.items[i]);
	return strdup("unset");
}

int osp_profile_comparable(const struct osp_profile *a,
			   const struct osp_profile *b, struct osp_compat *out)
{
	char ra[16], rb[16], *sa = source_text(a, "layer_source");
	char *sb = source_text(b, "layer_source");
	int rc = !sa || !sb ? -ENOMEM : 0;

	*out = (struct osp_compat){ 0 };
	snprintf(ra, sizeof(ra), "%u", a->res);
	snprintf(rb, sizeof(rb), "%u", b->res);
	rc = rc ? rc : cmp_str(out, "layer", a->layer, b->layer, why_layer);
	rc = rc ? rc : cmp_str(out, "layer_source", sa, sb, why_layer_source);
	rc = rc ? rc : cmp_str(out, "resolution", ra, rb, why_res);
	rc = rc ? rc : cmp_str(out, "unit", a->unit, b->unit, why_unit);
	rc = rc ? rc : cmp_str(out, "clock", a->clock_source, b->clock_source, why_clock);
	rc = rc ? rc : cmp_options(out, a, b);
	free(sa);
	free(sb);
	if (rc)
		osp_compat_free(out);
	return rc;
}

void osp_compat_free(struct osp_compat *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->notes[i].key);
		free(c->notes[i].a);
		free(c->notes[i].b);
	}
	free(c->notes);
	*c = (struct osp_compat){ 0 };
}

char *osp_compat_line(const struct osp_compat_note *n, char *buf, size_t len)
{
	snprintf(buf, len, "%s differs: %s vs %s (%s)", n->key, n->a, n->b, n->why);
	return buf;
}
