// SPDX-License-Identifier: MIT
/*
 * The invariants of ofz.h. The JSON round trip is the strongest of them:
 * whatever a reader accepts, osprof-report may write back (export, merge),
 * and what it writes must read back the same, or profiles decay as they
 * pass through the tools.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/format.h"
#include "osprof/metrics.h"
#include "json_scan.h"
#include "ofz.h"
#include "utf8.h"

void ofz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("osprof fuzz: invariant broken: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void ofz_check_err(const char *who, const char *err, size_t errlen)
{
	const char *end = memchr(err, '\0', errlen);

	if (!end)
		ofz_fail("%s: error message not NUL-terminated", who);
	if (end == err)
		ofz_fail("%s: refused the input without a message", who);
	if (memchr(err, '\n', (size_t)(end - err)))
		ofz_fail("%s: error message of more than one line: '%s'", who, err);
}

/* A stream that drops what it is given: the writers run, nothing is kept. */
static ssize_t drop_write(void *cookie, const char *buf, size_t len)
{
	(void)cookie;
	(void)buf;
	return (ssize_t)len;
}

static FILE *drop_stream(void)
{
	static FILE *f;

	if (!f) {
		f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = drop_write });
		if (!f)
			ofz_fail("fopencookie failed");
	}
	return f;
}

static bool utf8_valid(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str), n;

	for (size_t i = 0; i < len; i += n)
		if (osp_utf8_next(s + i, len - i, &n) < 0)
			return false;
	return true;
}

/*
 * Names must read back as written, except bytes that are not UTF-8: the
 * writer keeps those as their Latin-1 code points, by design.
 */
static void same_name(const char *where, const char *a, const char *b)
{
	a = a ? a : "";
	b = b ? b : "";
	if (strcmp(a, b) != 0 && utf8_valid(a))
		ofz_fail("%s: name '%s' read back as '%s'", where, a, b);
}

static void same_hist(const char *where, const struct osp_hist *a,
		      const struct osp_hist *b)
{
	if (a->res != b->res || a->nbk != b->nbk || a->count != b->count ||
	    a->sum != b->sum || a->min != b->min || a->max != b->max)
		ofz_fail("%s: count, sum, min, max, resolution or bucket count changed",
			 where);
	for (uint32_t k = 0; k < a->nbk; k++)
		if (a->bk[k].idx != b->bk[k].idx || a->bk[k].count != b->bk[k].count)
			ofz_fail("%s: bucket %u changed", where, a->bk[k].idx);
}

static void same_ops(const char *where, const struct osp_op *a, size_t na,
		     const struct osp_op *b, size_t nb)
{
	char w[128];

	if (na != nb)
		ofz_fail("%s: %zu operations read back as %zu", where, na, nb);
	for (size_t i = 0; i < na; i++) {
		snprintf(w, sizeof(w), "%s[%zu]", where, i);
		same_name(w, a[i].name, b[i].name);
		if (a[i].has_cpu != b[i].has_cpu)
			ofz_fail("%s: has_cpu changed", w);
		same_hist(w, &a[i].lat, &b[i].lat);
		if (a[i].has_cpu)
			same_hist(w, &a[i].cpu, &b[i].cpu);
		if (a[i].ncounters != b[i].ncounters)
			ofz_fail("%s: %zu counters read back as %zu", w,
				 a[i].ncounters, b[i].ncounters);
		for (size_t k = 0; k < a[i].ncounters; k++) {
			same_name(w, a[i].counters[k].name, b[i].counters[k].name);
			if (a[i].counters[k].value != b[i].counters[k].value)
				ofz_fail("%s: counter %zu changed", w, k);
		}
		if (a[i].attrs.n != b[i].attrs.n)
			ofz_fail("%s: %zu attributes read back as %zu", w,
				 a[i].attrs.n, b[i].attrs.n);
	}
}

/* hist.h's promise: non-empty buckets only, ascending, in range. */
static void check_hist_shape(const struct osp_hist *h, unsigned res)
{
	if (h->res != res)
		ofz_fail("a histogram of resolution %u in a profile of %u", h->res, res);
	if (h->nbk > h->cap || h->nbk > OSP_HIST_NBUCKETS(res) || (h->nbk && !h->bk))
		ofz_fail("%u buckets held in room for %u", h->nbk, h->cap);
	for (uint32_t k = 0; k < h->nbk; k++)
		if (h->bk[k].count == 0 || h->bk[k].idx >= OSP_HIST_NBUCKETS(res) ||
		    (k && h->bk[k].idx <= h->bk[k - 1].idx))
			ofz_fail("bucket %u: index %u, count 0 or out of order", k,
				 h->bk[k].idx);
}

/* 1 when @h fails its checksum, the buckets added without wrapping. */
static size_t hist_bad(const struct osp_hist *h, unsigned res)
{
	uint64_t total = 0;

	check_hist_shape(h, res);
	for (uint32_t k = 0; k < h->nbk; k++)
		if (__builtin_add_overflow(total, h->bk[k].count, &total))
			return 1;
	return total != h->count;
}

static size_t ops_bad(const struct osp_op *ops, size_t n, unsigned res)
{
	size_t bad = 0;

	for (size_t i = 0; i < n; i++) {
		bad += hist_bad(&ops[i].lat, res);
		if (ops[i].has_cpu)
			bad += hist_bad(&ops[i].cpu, res);
	}
	return bad;
}

static void check_checksums(const struct osp_profile *p)
{
	size_t bad = ops_bad(p->ops, p->nops, p->res), said, lines = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t s = 0; s < p->nsnaps; s++)
		bad += ops_bad(p->snaps[s].ops, p->snaps[s].nops, p->res);
	f = open_memstream(&buf, &len);
	if (!f)
		ofz_fail("open_memstream failed");
	said = osp_profile_check(p, f);
	fclose(f);
	for (size_t i = 0; i < len; i++)
		lines += buf[i] == '\n';
	free(buf);
	if (said != bad || lines != bad)
		ofz_fail("%zu histograms fail their checksum; osp_profile_check says %zu in %zu lines",
			 bad, said, lines);
}

static char *json_text(const struct osp_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		ofz_fail("open_memstream failed");
	err = osp_write_json(f, p);
	if (fclose(f) != 0 || err)
		ofz_fail("osp_write_json failed (%d) on an accepted profile", err);
	return buf;
}

/* @p's JSON read back; @p's text in *@text, its length in *@len. */
static struct osp_profile *reread(const struct osp_profile *p, char **text,
				  size_t *len)
{
	char err[512];
	struct osp_profile *q;
	struct js_span root;
	struct js js;

	*text = json_text(p, len);
	/* json-c is lenient (NaN, "1.", loose UTF-8): core's scanner is not. */
	js = (struct js){ .s = *text, .len = *len, .err = err, .errlen = sizeof(err) };
	if (js_check(&js, &root)) {
		fprintf(stderr, "%.*s\n", (int)*len, *text);
		ofz_fail("the JSON writer's output (above) is not RFC 8259 JSON in UTF-8: %s", err);
	}
	q = osp_read_json(*text, *len, err, sizeof(err));
	if (!q) {
		fprintf(stderr, "%.*s\n", (int)*len, *text);
		ofz_fail("the JSON writer's output (above) is refused: %s", err);
	}
	return q;
}

static void same_profile(const struct osp_profile *p, const struct osp_profile *q)
{
	same_name("layer", p->layer, q->layer);
	if (p->res != q->res || p->start_unix_ns != q->start_unix_ns ||
	    p->elapsed_ns != q->elapsed_ns)
		ofz_fail("resolution, start or elapsed time changed");
	same_ops("ops", p->ops, p->nops, q->ops, q->nops);
	if (p->nsnaps != q->nsnaps)
		ofz_fail("%zu snapshots read back as %zu", p->nsnaps, q->nsnaps);
	for (size_t s = 0; s < p->nsnaps; s++) {
		if (p->snaps[s].t_ns != q->snaps[s].t_ns)
			ofz_fail("timeline[%zu]: t_ns changed", s);
		same_ops("timeline", p->snaps[s].ops, p->snaps[s].nops,
			 q->snaps[s].ops, q->snaps[s].nops);
	}
}

/*
 * Written and read back, @p keeps its data; written again, the bytes are
 * the same. The first writing may normalise (bytes that are not UTF-8
 * become their Latin-1 code points, json-c respells literals), so when
 * its bytes differ from the second's, the second and third must agree.
 */
static void check_round_trip(const struct osp_profile *p)
{
	size_t len1, len2, len3;
	char *t1, *t2, *t3;
	struct osp_profile *q = reread(p, &t1, &len1), *r;

	same_profile(p, q);
	r = reread(q, &t2, &len2);
	same_profile(q, r);
	if (len1 != len2 || memcmp(t1, t2, len1) != 0) {
		osp_profile_free(reread(r, &t3, &len3));
		if (len2 != len3 || memcmp(t2, t3, len2) != 0) {
			fprintf(stderr, "second:\n%.*s\nthird:\n%.*s\n", (int)len2,
				t2, (int)len3, t3);
			ofz_fail("writing a re-read profile gives other bytes each time");
		}
		free(t3);
	}
	free(t1);
	free(t2);
	osp_profile_free(q);
	osp_profile_free(r);
}

/* Characters [a-zA-Z_] (and digits after the first; ':' too in a metric
 * name) from @s: where they end. */
static const char *om_name_end(const char *s, bool colon)
{
	const char *e = s;

	while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || *e == '_' ||
	       (colon && *e == ':') || (e > s && *e >= '0' && *e <= '9'))
		e++;
	return e;
}

/*
 * One sample line of OpenMetrics text, as a scraper reads it: a metric
 * name, labels {name="value",...} whose names are valid and distinct and
 * whose values escape only \\, \" and \n, a space and a value. The
 * label names come from a profile's option keys: outside input.
 */
static void check_om_line(const char *l, size_t len)
{
	const char *e = om_name_end(l, true), *end = l + len;
	struct { const char *s; size_t len; } names[OSP_OM_LABELS_MAX];
	size_t n = 0;

	if (e == l)
		ofz_fail("a metrics line without a metric name");
	if (e < end && *e == '{') {
		do {
			const char *ln = e + 1, *le = om_name_end(ln, false);

			if (le == ln || le + 1 >= end || *le != '=' || le[1] != '"' ||
			    n == OSP_OM_LABELS_MAX)
				ofz_fail("a metrics label with a bad name");
			names[n].s = ln;
			names[n].len = (size_t)(le - ln);
			for (size_t k = 0; k < n; k++)
				if (names[k].len == names[n].len && memcmp(names[k].s, ln, names[n].len) == 0)
					ofz_fail("a metrics label given twice in a series");
			n++;
			for (e = le + 2; e < end && *e != '"'; e++)
				if (*e == '\\' && (++e >= end || (*e != '\\' && *e != '"' && *e != 'n')))
					ofz_fail("a metrics label value with a bad escape");
			if (e >= end)
				ofz_fail("a metrics label value not closed");
			e++;
		} while (e < end && *e == ',');
		if (e >= end || *e != '}')
			ofz_fail("metrics labels not closed");
		e++;
	}
	if (e >= end || *e != ' ' || e + 1 >= end)
		ofz_fail("a metrics line without a value");
}

/* The metrics text of @p, line by line. */
static void check_metrics(const struct osp_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		ofz_fail("open_memstream failed");
	if (osp_write_metrics(f, &(struct osp_om_src){ .p = p }, 1, OSP_OM_OPENMETRICS))
		ofz_fail("a text writer failed on an accepted profile");
	fclose(f);
	for (char *l = buf, *nl; l < buf + len; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(buf + len - l));
		if (!nl)
			ofz_fail("metrics text not ended by a newline");
		if (*l != '#')
			check_om_line(l, (size_t)(nl - l));
	}
	free(buf);
}

void ofz_check_profile(const struct osp_profile *p)
{
	FILE *out = drop_stream();

	check_checksums(p);
	if (osp_write_stats(out, p) || osp_write_timeline(out, p))
		ofz_fail("a text writer failed on an accepted profile");
	check_metrics(p);
	check_round_trip(p);
}
