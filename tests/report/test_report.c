// SPDX-License-Identifier: MIT
/*
 * osprof-report, run as a user runs it: every subcommand on real profile
 * files, and every error path. The profiles come from orp-test-mkprof,
 * which records them through core's profile-set API as osprof-fs does;
 * when a mount test has real osprof-fs profiles it can hand them over in
 * the environment (ORP_PROFILE_BASE, ORP_PROFILE_SHIFTED: the same
 * workload with read's cache peak slowed two octaves, ORP_PROFILE_BASE2:
 * a second run of the base workload) and these tests read those instead.
 *
 * ORP_BIN and ORP_MKPROF name the programs (meson sets them). The HTML
 * test renders the report in headless Chromium and is skipped, saying so,
 * when chromium is not installed.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "osprof/format.h"
#include "browser.h"
#include "cli.h"

TestSuite(report, .init = cli_setup, .fini = cli_teardown);

/*
 * A profile of @kind ("base", "base2", "shifted", "lower", "irq", "many",
 * "base-res2"): from ORP_PROFILE_<KIND> when set, else made here.
 */
static char *profile(const char *kind)
{
	static const struct { const char *kind, *mk, *seed, *res; } table[] = {
		{ "base", "base", "0", "1" },     { "base2", "base", "7", "1" },
		{ "shifted", "shifted", "0", "1" }, { "lower", "lower", "0", "1" },
		{ "irq", "irq", "0", "1" },       { "many", "many", "0", "1" },
		{ "base-res2", "base", "0", "2" },
	};
	char env[64], *out = tpath("%s.json", kind);
	struct run r;

	snprintf(env, sizeof(env), "ORP_PROFILE_%s", kind);
	for (char *c = env; *c; c++)
		*c = *c == '-' ? '_' : (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
	if (getenv(env) && *getenv(env))
		return strdup(getenv(env));
	if (exists(out))
		return out;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(table[i].kind, kind) != 0)
			continue;
		r = run_argv((char *const[]){ (char *)env_or("ORP_MKPROF", "orp-test-mkprof"),
					      (char *)table[i].mk, out, (char *)table[i].seed,
					      (char *)table[i].res, NULL });
		cr_assert_eq(r.status, 0, "orp-test-mkprof %s: %s", kind, r.err);
		return out;
	}
	cr_assert_fail("no profile kind %s", kind);
	return NULL;
}

/* A directory @name laid out like an osprof-fs mount: @fs as
 * .osprof/stats.json and @lower as lower.json beside it. */
static char *mount_of(const char *name, const char *fs, const char *lower)
{
	char *mnt = tpath("%s", name), *ctl = tpath("%s/.osprof", name), *text;

	if (exists(ctl))
		return mnt;
	cr_assert_eq(mkdir(mnt, 0755), 0);
	cr_assert_eq(mkdir(ctl, 0755), 0);
	text = slurp(fs);
	spit(tpath("%s/.osprof/stats.json", name), text, strlen(text));
	free(text);
	text = slurp(lower);
	spit(tpath("%s/.osprof/lower.json", name), text, strlen(text));
	free(text);
	return mnt;
}

static char *mount_dir(void)
{
	return mount_of("mnt", profile("base"), profile("lower"));
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The first ranked line of compare's output, e.g. "    1 fs       read ...". */
static const char *first_ranked(const char *out)
{
	const char *l = strstr(out, "\n    1 ");

	return l ? l + 1 : "";
}

/* ---- images ---------------------------------------------------------------- */

static void expect_png(const char *path)
{
	struct png_stats s;

	cr_assert(png_stats(path, &s), "%s is not a PNG that libpng decodes", path);
	cr_expect(s.w > 100 && s.h > 100, "%s: %ux%u", path, s.w, s.h);
	cr_expect(s.colours > 2, "%s: %zu colours: blank?", path, s.colours);
}

static void expect_svg(const char *path)
{
	char *t = slurp(path);
	const char *root;

	cr_assert_not_null(t, "%s missing", path);
	cr_expect_eq(strncmp(t, "<?xml", 5), 0, "%s: no XML declaration", path);
	/* The root element: the first tag that is not <?...> or <!...>. */
	for (root = strchr(t, '<'); root && (root[1] == '?' || root[1] == '!');)
		root = strchr(root + 1, '<');
	cr_assert_not_null(root, "%s: no element", path);
	cr_expect_eq(strncmp(root, "<svg", 4), 0, "%s: the root is not <svg>", path);
	cr_expect_not_null(strstr(root, "</svg>"), "%s: root not closed", path);
	free(t);
}

/* ---- what orp-test-mkprof recorded ------------------------------------------ */

#define TRUTH_NB 65 /* buckets at resolution 1 */
#define TRUTH_PEAKS 4

/* One peak() call of orp-test-mkprof, over all its phases. */
struct truth_peak {
	double centre_ns;
	uint64_t count;
	unsigned lo, hi; /* the buckets its values fell in */
	uint64_t sum;
};

/* Every latency orp-test-mkprof recorded for one operation. */
struct truth_op {
	char name[32];
	uint64_t count, sum, min, max;
	uint64_t bucket[TRUTH_NB];
	uint64_t *v; /* every value, sorted */
	size_t npeaks;
	struct truth_peak peak[TRUTH_PEAKS];
};

struct truth {
	char *profile; /* the profile it wrote */
	size_t nops;
	struct truth_op op[40];
	uint64_t requests, sum;
};

/* DESIGN's bucket at resolution 1: v in (2^(i-1), 2^i], 1 and 0 in 0. */
static unsigned truth_bucket(uint64_t ns)
{
	return ns <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(ns - 1);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static struct truth_op *truth_op(struct truth *t, const char *name)
{
	for (size_t i = 0; i < t->nops; i++)
		if (strcmp(t->op[i].name, name) == 0)
			return &t->op[i];
	cr_assert_lt(t->nops, sizeof(t->op) / sizeof(t->op[0]));
	snprintf(t->op[t->nops].name, sizeof(t->op[0].name), "%s", name);
	t->op[t->nops].min = UINT64_MAX;
	return &t->op[t->nops++];
}

/* A profile of @mk (an orp-test-mkprof KIND) at resolution 1 and seed 0,
 * and every latency recorded in it, whatever ORP_PROFILE_* says. */
static struct truth *recorded(const char *mk)
{
	struct truth *t = own(calloc(1, sizeof(*t)));
	char *raw = tpath("%s.raw", mk), name[64];
	unsigned long long ns;
	double centre;
	struct run r;
	FILE *f;

	t->profile = tpath("%s-truth.json", mk);
	r = run_argv((char *const[]){ (char *)env_or("ORP_MKPROF", "orp-test-mkprof"), (char *)mk,
				      t->profile, "0", "1", raw, NULL });
	cr_assert_eq(r.status, 0, "orp-test-mkprof %s: %s", mk, r.err);
	f = fopen(raw, "r");
	cr_assert_not_null(f, "%s", raw);
	while (fscanf(f, "%63s %lf %llu", name, &centre, &ns) == 3) {
		struct truth_op *o = truth_op(t, name);
		unsigned b = truth_bucket(ns);
		size_t k;

		for (k = 0; k < o->npeaks && o->peak[k].centre_ns != centre; k++)
			;
		if (k == o->npeaks) {
			cr_assert_lt(k, TRUTH_PEAKS);
			o->peak[o->npeaks++] = (struct truth_peak){ centre, 0, b, b, 0 };
		}
		o->peak[k].count++;
		o->peak[k].sum += ns;
		o->peak[k].lo = b < o->peak[k].lo ? b : o->peak[k].lo;
		o->peak[k].hi = b > o->peak[k].hi ? b : o->peak[k].hi;
		o->v = realloc(o->v, (o->count + 1) * sizeof(*o->v));
		cr_assert_not_null(o->v);
		o->v[o->count++] = ns;
		o->sum += ns;
		o->min = ns < o->min ? ns : o->min;
		o->max = ns > o->max ? ns : o->max;
		o->bucket[b]++;
		t->requests++;
		t->sum += ns;
	}
	cr_assert(feof(f), "%s: a line that is not OP CENTRE NS", raw);
	fclose(f);
	for (size_t i = 0; i < t->nops; i++)
		qsort(own(t->op[i].v), t->op[i].count, sizeof(uint64_t), cmp_u64);
	return t;
}

/* The same operations, sorted as show's table: most total time first. */
static int cmp_truth_total(const void *a, const void *b)
{
	const struct truth_op *x = *(const struct truth_op *const *)a;
	const struct truth_op *y = *(const struct truth_op *const *)b;

	if (x->sum != y->sum)
		return x->sum < y->sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * DESIGN's percentile p of @o: the bucket where p% of the requests is
 * reached, and within it geometric interpolation between its bounds,
 * narrowed to the recorded min and max.
 */
static double truth_percentile(const struct truth_op *o, double p)
{
	double rank = p / 100.0 * (double)o->count, below = 0.0;
	unsigned i = 0;

	while (i < TRUTH_NB && (o->bucket[i] == 0 || below + (double)o->bucket[i] < rank))
		below += (double)o->bucket[i++];
	cr_assert_lt(i, TRUTH_NB);
	double lo = fmax(i ? ldexp(1.0, (int)i - 1) : 0.0, (double)o->min);
	double hi = fmin(ldexp(1.0, (int)i), (double)o->max);
	double frac = (rank - below) / (double)o->bucket[i];

	return lo <= 0.0 ? hi * frac : hi <= lo ? hi : lo * pow(hi / lo, frac);
}

/* The recorded value of rank p% (1-based, rounded up), as a percentile's
 * bucket must hold it. */
static uint64_t truth_rank(const struct truth_op *o, double p)
{
	uint64_t k = (uint64_t)ceil(p / 100.0 * (double)o->count);

	return o->v[k ? k - 1 : 0];
}

/* A peak's mean as the report gives it: exact when it is the op's only
 * peak, else from its buckets' geometric midpoints. */
static double truth_peak_mean(const struct truth_op *o, const struct truth_peak *pk)
{
	double n = 0.0, sum = 0.0;

	if (o->npeaks == 1)
		return (double)o->sum / (double)o->count;
	for (unsigned i = pk->lo; i <= pk->hi; i++) {
		n += (double)o->bucket[i];
		sum += (double)o->bucket[i] * exp2(i ? i - 0.5 : 0.0);
	}
	return sum / n;
}

/* osp_fmt_ns of @ns, kept until teardown. */
static const char *ns_text(double ns)
{
	return osp_fmt_ns(own(malloc(16)), 16, ns);
}

/* The rows of the table whose header line ends with @header (its newline
 * included) in @text, up to a blank line; each a line, owned. */
static size_t table_rows(const char *text, const char *header, char **row, size_t max)
{
	const char *l = strstr(text, header);
	size_t n = 0;

	cr_assert_not_null(l, "no table %s in:\n%s", header, text);
	/* From the header's own newline, each line up to a blank one. */
	for (l += strlen(header) - 1; l && l[1] && l[1] != '\n'; l = strchr(l + 1, '\n')) {
		cr_assert_lt(n, max);
		row[n++] = own(strndup(l + 1, strcspn(l + 1, "\n")));
	}
	return n;
}

/*
 * One show text of a profile of @t, with @shown of its operations (most
 * total time first; all when 0): the header's counts, every cell of every
 * table row, every histogram row with its stars, every peak row -- each
 * derived from the recorded latencies, not from the profile.
 */
static void expect_show_text(const char *out, const struct truth *t, const char *layer,
			     size_t shown)
{
	const struct truth_op *by_total[40];
	uint64_t requests = 0, sum = 0;
	char *row[128], want[512];
	size_t n;

	for (size_t i = 0; i < t->nops; i++)
		by_total[i] = &t->op[i];
	qsort(by_total, t->nops, sizeof(by_total[0]), cmp_truth_total);
	shown = shown ? shown : t->nops;
	for (size_t i = 0; i < shown; i++) {
		requests += by_total[i]->count;
		sum += by_total[i]->sum;
	}
	snprintf(want, sizeof(want), "osprof %s profile: %zu operations, %llu requests in 4s", layer,
		 shown, (unsigned long long)requests);
	cr_expect_not_null(line_starting(out, want), "no '%s' in:\n%s", want, out);

	n = table_rows(out, "\nOPERATION             COUNT     TOTAL      MEAN       P50       P99       MAX  %TIME\n",
		       row, 128);
	cr_expect_eq(n, shown, "%zu table rows, expected %zu:\n%s", n, shown, out);
	for (size_t i = 0; i < n && i < shown; i++) {
		const struct truth_op *o = by_total[i];
		char name[64], cnt[32], tot[16], mean[16], p50[16], p99[16], max[16], pct[16], extra[8];
		int cells = sscanf(row[i], "%63s %31s %15s %15s %15s %15s %15s %15s %7s", name, cnt, tot,
				   mean, p50, p99, max, pct, extra);

		cr_assert_eq(cells, 8, "row %zu has %d cells: '%s'", i, cells, row[i]);
		cr_expect_str_eq(name, o->name, "row %zu: %s (most total time first)", i, row[i]);
		cr_expect_eq(strtoull(cnt, NULL, 10), o->count, "%s", row[i]);
		cr_expect_str_eq(tot, ns_text((double)o->sum), "total: %s", row[i]);
		cr_expect_str_eq(mean, ns_text((double)o->sum / (double)o->count), "mean: %s", row[i]);
		cr_expect_str_eq(p50, ns_text(truth_percentile(o, 50)), "p50: %s", row[i]);
		cr_expect_str_eq(p99, ns_text(truth_percentile(o, 99)), "p99: %s", row[i]);
		cr_expect_str_eq(max, ns_text((double)o->max), "max: %s", row[i]);
		snprintf(want, sizeof(want), "%.1f%%", 100.0 * (double)o->sum / (double)sum);
		cr_expect_str_eq(pct, want, "%%time: %s", row[i]);
	}

	for (size_t i = 0; i < shown; i++) {
		const struct truth_op *o = by_total[i];
		unsigned lo = truth_bucket(o->min), hi = truth_bucket(o->max);
		uint64_t top = 0;

		snprintf(want, sizeof(want), "\n%s: count %llu, total %s, mean %s\n", o->name,
			 (unsigned long long)o->count, ns_text((double)o->sum),
			 ns_text((double)o->sum / (double)o->count));
		const char *h = strstr(out, want);

		cr_assert_not_null(h, "no '%s' in:\n%s", want + 1, out);
		n = table_rows(h + 1, "latency : count      distribution\n", row, 128);
		/* The bars; then counters or a warning may follow. */
		for (size_t k = 0; k < n; k++)
			if (row[k][strlen(row[k]) - 1] != '|')
				n = k;
		cr_expect_eq(n, hi - lo + 1, "%s: %zu histogram rows, buckets %u..%u", o->name, n, lo, hi);
		for (unsigned b = lo; b <= hi; b++)
			top = o->bucket[b] > top ? o->bucket[b] : top;
		for (unsigned b = lo; b <= hi && b - lo < n; b++) {
			char label[40], bar[41];
			unsigned stars = (unsigned)(o->bucket[b] * 40 / top);

			snprintf(label, sizeof(label), "(%s, %s]", ns_text(ldexp(1.0, (int)b - 1)),
				 ns_text(ldexp(1.0, (int)b)));
			memset(bar, ' ', 40);
			memset(bar, '*', stars);
			bar[40] = '\0';
			snprintf(want, sizeof(want), "%22s : %-10llu |%s|", label,
				 (unsigned long long)o->bucket[b], bar);
			cr_expect_str_eq(row[b - lo], want, "%s bucket %u", o->name, b);
		}
	}

	n = table_rows(out, "\nOPERATION        PEAK BUCKETS   LATENCY                     COUNT  SHARE      MEAN\n",
		       row, 128);
	size_t r = 0;

	for (size_t i = 0; i < shown; i++) {
		const struct truth_op *o = by_total[i];

		for (size_t k = 0; k < o->npeaks; k++, r++) {
			const struct truth_peak *pk = &o->peak[k];
			char buckets[24], range[48];

			/* The peaks mkprof drew lie apart: one row each. */
			if (k)
				cr_assert_gt(pk->lo, o->peak[k - 1].hi + 1, "%s: peaks %zu and %zu touch",
					     o->name, k - 1, k);
			snprintf(buckets, sizeof(buckets), "%u..%u", pk->lo, pk->hi);
			snprintf(range, sizeof(range), "(%s, %s]", ns_text(ldexp(1.0, (int)pk->lo - 1)),
				 ns_text(ldexp(1.0, (int)pk->hi)));
			snprintf(want, sizeof(want), "%-16s %4zu %-9s %-22s %10llu %5.1f%% %9s",
				 k ? "" : o->name, k + 1, buckets, range, (unsigned long long)pk->count,
				 100.0 * (double)pk->count / (double)o->count,
				 ns_text(truth_peak_mean(o, pk)));
			cr_expect(r < n && strcmp(row[r], want) == 0, "peak row %zu: '%s', expected '%s'",
				  r, r < n ? row[r] : "(none)", want);
		}
	}
	cr_expect_eq(n, r, "%zu peak rows, expected %zu:\n%s", n, r, out);
}

/* ---- show ------------------------------------------------------------------ */

Test(report, show_prints_the_recorded_counts_totals_percentiles_buckets_and_peaks)
{
	struct truth *t = recorded("base");
	struct run r = REPORT("show", t->profile);

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.err);
	cr_expect_eq(t->nops, 8);
	cr_expect_eq(t->requests, 4 * (275 + 100 + 200 + 60 + 30 + 30 + 5 + 2));
	cr_expect_not_null(line_starting(r.out, "clock monotonic (1.000 cycles/ns), resolution 1 bucket per power of 2, unit ns"),
			   "%s", r.out);
	cr_expect_not_null(line_starting(r.out, "options: cache=auto"), "%s", r.out);
	cr_expect_not_null(line_starting(r.out, "source: mount=/mnt/test"), "%s", r.out);
	expect_show_text(r.out, t, "fs", 0);
	/* core's stats view prints the peaks, once (show adds none of its own). */
	cr_expect_null(strstr(strstr(r.out, "\npeaks:\n") + 1, "\npeaks:\n"), "%s", r.out);
}

/* Forty operations, each with a peak of ~1 us and one of ~1 ms. */
Test(report, show_of_forty_operations_prints_every_recorded_number)
{
	struct truth *t = recorded("many");
	struct run r = REPORT("show", t->profile);

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(t->nops, 40);
	expect_show_text(r.out, t, "fs", 0);
}

Test(report, show_json_holds_the_recorded_numbers)
{
	struct truth *t = recorded("base");
	struct run r = REPORT("show", "--format", "json", t->profile);
	struct json_object *doc, *prof, *ops;

	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc, "not JSON: %s", r.out);
	cr_assert(json_object_object_get_ex(doc, "profiles", &prof) &&
		  json_object_array_length(prof) == 1, "%s", r.out);
	prof = json_object_array_get_idx(prof, 0);
	cr_expect_eq(json_object_get_int64(json_object_object_get(prof, "operations")), 8);
	cr_assert(json_object_object_get_ex(prof, "ops", &ops));
	cr_assert_eq(json_object_array_length(ops), t->nops);
	for (size_t i = 0; i < t->nops; i++) {
		struct json_object *op = json_object_array_get_idx(ops, i), *peaks;
		const char *name = json_object_get_string(json_object_object_get(op, "name"));
		const struct truth_op *o = truth_op(t, name);
#define U(key) json_object_get_uint64(json_object_object_get(op, key))
#define D(key) json_object_get_double(json_object_object_get(op, key))
		double p50 = D("p50_ns"), p99 = D("p99_ns");

		cr_assert_eq(t->nops, 8, "an operation %s that mkprof did not record", name);
		cr_expect_eq(U("count"), o->count, "%s", name);
		cr_expect_eq(U("sum_ns"), o->sum, "%s", name);
		cr_expect_eq(U("min_ns"), o->min, "%s", name);
		cr_expect_eq(U("max_ns"), o->max, "%s", name);
		cr_expect_float_eq(D("mean_ns"), (double)o->sum / (double)o->count, 1e-9 * D("mean_ns"), "%s", name);
		cr_expect_float_eq(p50, truth_percentile(o, 50), 1e-9 * p50, "%s", name);
		cr_expect_float_eq(p99, truth_percentile(o, 99), 1e-9 * p99, "%s", name);
		/* Whatever the interpolation, a percentile lies in the bucket
		 * of the recorded value of its rank. */
		cr_expect_eq(truth_bucket((uint64_t)ceil(p50)), truth_bucket(truth_rank(o, 50)), "%s p50 %f", name, p50);
		cr_expect_eq(truth_bucket((uint64_t)ceil(p99)), truth_bucket(truth_rank(o, 99)), "%s p99 %f", name, p99);
		cr_expect_float_eq(D("time_share"), (double)o->sum / (double)t->sum, 1e-12, "%s", name);
		cr_expect(json_object_get_boolean(json_object_object_get(op, "checksum_ok")), "%s", name);
		cr_assert(json_object_object_get_ex(op, "peaks", &peaks));
		cr_assert_eq(json_object_array_length(peaks), o->npeaks, "%s", name);
		for (size_t k = 0; k < o->npeaks; k++) {
			struct json_object *pk = json_object_array_get_idx(peaks, k);
			double mean = json_object_get_double(json_object_object_get(pk, "mean_ns"));

			cr_expect_eq(json_object_get_uint64(json_object_object_get(pk, "count")), o->peak[k].count,
				     "%s peak %zu", name, k);
			cr_expect_eq(json_object_get_uint64(json_object_object_get(pk, "lo")), o->peak[k].lo);
			cr_expect_eq(json_object_get_uint64(json_object_object_get(pk, "hi")), o->peak[k].hi);
			cr_expect_float_eq(mean, truth_peak_mean(o, &o->peak[k]), 1e-9 * mean, "%s peak %zu", name, k);
		}
#undef U
#undef D
	}
	json_object_put(doc);
}

/*
 * Operations that never ran count nowhere: "showing N of M" over a
 * profile whose other ops are all at 0 names the ops that had requests,
 * and compare's "N of M operations differ" too.
 */
Test(report, operations_without_requests_are_not_counted)
{
	static const char text[] =
		"{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"resolution\": 1,"
		" \"unit\": \"ns\", \"elapsed_ns\": 1000000, \"ops\": ["
		"{\"name\": \"read\", \"count\": 4, \"sum\": 4000, \"min\": 1000, \"max\": 1000,"
		" \"buckets\": [[10, 4]]},"
		"{\"name\": \"lookup\", \"count\": 2, \"sum\": 1000, \"min\": 500, \"max\": 500,"
		" \"buckets\": [[9, 2]]},"
		"{\"name\": \"mkdir\", \"count\": 0, \"sum\": 0, \"min\": 0, \"max\": 0, \"buckets\": []},"
		"{\"name\": \"rmdir\", \"count\": 0, \"sum\": 0, \"min\": 0, \"max\": 0, \"buckets\": []}]}\n";
	char *path = tpath("ran.json");
	struct run r;

	spit(path, text, sizeof(text) - 1);
	r = REPORT("show", "--top", "1", path);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(line_starting(r.out, "(showing 1 of 2 operations: the totals and %TIME below are of these)"),
			   "%s", r.out);
	r = REPORT("compare", path, path);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(line_starting(r.out, "no operation differs (2 compared)"), "%s", r.out);
}

/* A wrong kind of input is answered with what to give instead. */
Test(report, wrong_inputs_say_what_to_do_next)
{
	static const char stats[] = "osprof fs profile: 1 operations, 4 requests in 1ms\n";
	char *path = tpath("stats.txt");
	struct run r;

	spit(path, stats, sizeof(stats) - 1);
	r = REPORT("show", path);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "(this is the text view: give its JSON, such as "
			 ".osprof/stats.json, or the mount itself)\n"), "%s", r.err);
	r = REPORT("top", path);
	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, ": not an osprof-fs mount (top reads MNT/.osprof/top.json "
			 "of a mount made with -o top)\n"), "%s", r.err);
	if (access("/proc/osprof", F_OK) != 0) {
		r = REPORT("show", "/proc/osprof");
		cr_expect_eq(r.status, 2);
		cr_expect_str_eq(r.err, "osprof-report: /proc/osprof: No such file or directory "
				 "(the kernel module osprof.ko is not loaded: see docs/kmod.md)\n");
	}
}

Test(report, show_top_and_op_choose_operations)
{
	struct truth *t = recorded("base");
	struct run r = REPORT("show", "--top", "1", t->profile);
	struct truth sub = { .profile = t->profile };

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(line_starting(r.out, "(showing 1 of 8 operations: the totals and %TIME below are of these)"),
			   "%s", r.out);
	/* read, the most total time, alone: its share is all of what is shown. */
	expect_show_text(r.out, t, "fs", 1);
	cr_expect_str_eq(line_starting(r.out, "read "),
			 "read                   1100     315ms     286us     785ns    4.16ms    5.21ms 100.0%");
	r = REPORT("show", "--op", "getattr", "--op", "write", t->profile);
	cr_assert_eq(r.status, 0, "%s", r.err);
	sub.op[sub.nops++] = *truth_op(t, "getattr");
	sub.op[sub.nops++] = *truth_op(t, "write");
	expect_show_text(r.out, &sub, "fs", 0);
	cr_expect_null(line_starting(r.out, "read "), "%s", r.out);
	r = REPORT("show", "--op", "nosuch", t->profile);
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "nosuch"));
}

Test(report, show_names_every_histogram_whose_checksum_fails)
{
	char err[512], *bad = tpath("bad.json"), want[PATH_MAX + 128];
	struct osp_profile *p = osp_read_json_file(profile("base"), err, sizeof(err));
	FILE *f;
	struct run r;

	cr_assert_not_null(p, "%s", err);
	osp_profile_find_op(p, "write")->lat.count += 5;
	f = fopen(bad, "w");
	cr_assert_eq(osp_write_json(f, p), 0);
	fclose(f);
	osp_profile_free(p);
	r = REPORT("show", bad);
	cr_expect_eq(r.status, 0);
	snprintf(want, sizeof(want),
		 "osprof-report: warning: %s (layer fs): write: buckets add up to 400, count says 405\n", bad);
	cr_expect_str_eq(r.err, want);
	/* And under write's histogram, once. */
	cr_expect_str_eq(line_starting(r.out, "warning: "), "warning: write: buckets add up to 400, count says 405");
	cr_expect_null(strstr(strstr(r.out, "\nwarning: ") + 1, "\nwarning: "), "%s", r.out);
}

/* The part of show's output from the line holding @marker to the next "==> ". */
static char *section(const char *out, const char *marker)
{
	const char *from = strstr(out, marker), *to;

	cr_assert_not_null(from, "no %s in:\n%s", marker, out);
	to = strstr(from, "\n==> ");
	return own(strndup(from, to ? (size_t)(to - from + 1) : strlen(from)));
}

Test(report, show_reads_every_layer_of_a_mount)
{
	struct truth *fs = recorded("base"), *lower = recorded("lower");
	char *mnt = mount_of("truth-mnt", fs->profile, lower->profile);
	struct run r = REPORT("show", "--all", mnt);
	char want[PATH_MAX + 32];

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* Where the time goes first (fs and lower are layers of one run),
	 * then each layer under its banner. */
	cr_expect_str_eq(line_starting(r.out, "==> "), "==> where the time goes (fs, lower) <==", "%s", r.out);
	snprintf(want, sizeof(want), "==> %s (layer fs) <==", mnt);
	cr_expect_str_eq(line_starting(strstr(r.out, "\n\n==> ") + 2, "==> "), want, "%s", r.out);
	expect_show_text(section(r.out, "(layer fs) <==\n"), fs, "fs", 0);
	expect_show_text(section(r.out, "(layer lower) <==\n"), lower, "lower", 0);
	r = REPORT("show", "--layer", "lower", mnt);
	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_show_text(r.out, lower, "lower", 0);
	cr_expect_null(strstr(r.out, "osprof fs profile"));
	cr_expect_null(strstr(r.out, "==> "), "one layer, no layered view: %s", r.out);
	r = REPORT("show", "--layer", "block", mnt);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "no layer block (it has: fs, lower)"), "%s", r.err);
}

/* Each interrupt line's counters, as the kernel module sums them per line. */
Test(report, show_prints_each_interrupt_line_with_its_counters)
{
	struct truth *t = recorded("irq");
	struct run r = REPORT("show", t->profile);
	char head[128], want[256];

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(t->nops, 3);
	expect_show_text(r.out, t, "irq", 0);
	for (size_t i = 0; i < t->nops; i++) {
		unsigned long long n = t->op[i].count;
		const char *h;

		snprintf(head, sizeof(head), "\n%s: count %llu,", t->op[i].name, n);
		h = strstr(r.out, head);
		cr_assert_not_null(h, "no %s in:\n%s", head + 1, r.out);
		snprintf(want, sizeof(want), "counters: cycles=%llu instructions=%llu branches=%llu"
			 " branch_misses=%llu l1i_misses=%llu l1d_misses=%llu", n * (3000 + 1000 * i),
			 n * (2500 + 400 * i), n * (500 + 50 * i), n * (10 + 5 * i), n * (40 + 10 * i),
			 n * (60 + 20 * i));
		cr_expect_str_eq(line_starting(h + 1, "counters:"), want, "%s", t->op[i].name);
	}
}

/* ---- plot ------------------------------------------------------------------ */

/* Each line of plot's output is an image; its script sits beside it. */
static size_t check_plot_output(const char *out, void (*check)(const char *))
{
	char *copy = strdup(out), *save = NULL;
	size_t n = 0;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *gp = strdup(l), *script;

		strcpy(strrchr(gp, '.'), ".gp");
		check(l);
		script = slurp(gp);
		cr_assert_not_null(script, "no script beside %s", l);
		cr_expect_not_null(strstr(script, " << EOD\n"), "%s: data not inline", gp);
		cr_expect_not_null(strstr(script, "set output '"), "%s", gp);
		free(script);
		/* The same data, for other tools, in a .dat file beside it. */
		strcpy(strrchr(gp, '.'), ".dat");
		script = slurp(gp);
		cr_assert_not_null(script, "no data file %s", gp);
		cr_expect_not_null(strstr(script, "(index 0)\n"), "%s", gp);
		free(script);
		free(gp);
		n++;
	}
	free(copy);
	return n;
}

Test(report, plot_png_draws_every_chart_beside_its_script)
{
	char *dir = tpath("png");
	struct run r = REPORT("plot", profile("base"), "-o", dir);

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* The overview, 8 operations, a timeline of each. */
	cr_expect_eq(check_plot_output(r.out, expect_png), 17, "%s", r.out);
	cr_expect(exists(tpath("png/op-fs-read.png")));
	cr_expect(exists(tpath("png/overview-fs.png")));
	cr_expect(exists(tpath("png/timeline-fs-read.png")));
	cr_expect(!exists(tpath("png/gnuplot-0.log")), "logs of a good run are removed");
}

Test(report, plot_svg_and_pdf_are_valid)
{
	struct run r = REPORT("plot", "--format", "svg", profile("base"), "-o", tpath("svg"));
	char *pdf;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(check_plot_output(r.out, expect_svg), 17);
	r = REPORT("plot", "--format", "pdf", profile("irq"), "-o", tpath("pdf"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	pdf = own(slurp(tpath("pdf/irq.pdf")));
	cr_assert_not_null(pdf);
	cr_expect_eq(strncmp(pdf, "%PDF-", 5), 0);
}

Test(report, plot_draws_layers_irq_and_overlays)
{
	struct run r = REPORT("plot", mount_dir(), "-o", tpath("mnt-charts"));

	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_png(tpath("mnt-charts/layers.png"));
	expect_png(tpath("mnt-charts/where.png"));
	expect_png(tpath("mnt-charts/where-read.png"));
	expect_png(tpath("mnt-charts/op-lower-write.png"));
	r = REPORT("plot", profile("irq"), "-o", tpath("irq"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_png(tpath("irq/irq.png"));
	r = REPORT("plot", profile("base"), "--compare", profile("shifted"), "-o", tpath("ov"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_png(tpath("ov/compare-fs-read.png"));
}

Test(report, plot_says_in_one_line_when_gnuplot_fails)
{
	struct run r;

	setenv("OSPROF_GNUPLOT", "/bin/false", 1);
	r = REPORT("plot", profile("base"), "-o", tpath("f"));
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "gnuplot failed"), "%s", r.err);
	setenv("OSPROF_GNUPLOT", "/nonexistent/gnuplot", 1);
	r = REPORT("plot", profile("base"), "-o", tpath("g"));
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "install gnuplot"), "%s", r.err);
	unsetenv("OSPROF_GNUPLOT");
}

/* ---- compare --------------------------------------------------------------- */

Test(report, compare_ranks_the_shifted_operation_first)
{
	struct run r = REPORT("compare", profile("base"), profile("shifted"));
	struct truth *a = recorded("base"), *b = recorded("shifted");
	const struct truth_op *ra = truth_op(a, "read"), *rb = truth_op(b, "read");
	char want[256];

	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect_eq(strncmp(first_ranked(r.out), "    1 fs       read ", 20), 0, "%s", r.out);
	cr_expect(line_starting(r.out, "1 of 8 operations differ:"), "%s", r.out);
	/* Of the recorded profiles: read's counts and totals, its cache peak's move. */
	r = REPORT("compare", a->profile, b->profile);
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	snprintf(want, sizeof(want), "    1 fs       read               different  %10llu %10llu %9s %9s",
		 (unsigned long long)ra->count, (unsigned long long)rb->count, ns_text((double)ra->sum),
		 ns_text((double)rb->sum));
	cr_expect_str_eq(line_starting(r.out, "    1 "), want);
	snprintf(want, sizeof(want), "; peak near %s moved to %s (+2.0 octaves); ",
		 ns_text(truth_peak_mean(ra, &ra->peak[0])), ns_text(truth_peak_mean(rb, &rb->peak[0])));
	cr_expect_not_null(strstr(r.out, want), "%s in:\n%s", want, r.out);
	cr_expect_null(line_starting(r.out, "    2 "), "one operation ranked: %s", r.out);
}

Test(report, compare_of_identical_profiles_finds_nothing)
{
	struct run r = REPORT("compare", profile("base"), profile("base"));

	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(line_starting(r.out, "no operation differs (8 compared)"), "%s", r.out);
	cr_expect_null(strstr(r.out, " RANK "), "nothing ranked: %s", r.out);
	/* A second run of the same workload: sampling noise only. */
	r = REPORT("compare", "--all", profile("base"), profile("base2"));
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(line_starting(r.out, "no operation differs (8 compared)"), "%s", r.out);
}

Test(report, compare_every_shape_method_finds_the_shift)
{
	static const char *const shape[] = { "emd", "chi2", "jeffrey", "l1", "l2", "intersect" };

	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		struct run r = REPORT("compare", "--method", (char *)shape[i],
				      profile("base"), profile("shifted"));

		cr_expect_eq(r.status, 1, "%s: %s", shape[i], r.out);
		cr_expect_eq(strncmp(first_ranked(r.out), "    1 fs       read ", 20), 0,
			     "%s: %s", shape[i], r.out);
	}
	/* Totals cannot see it: the counts are equal and read's total
	 * latency, ruled by its disk peak, moves under 1%. */
	struct run r = REPORT("compare", "--method", "ops", profile("base"), profile("shifted"));

	cr_expect_eq(r.status, 0, "%s", r.out);
}

Test(report, compare_plot_draws_the_overlays)
{
	struct run r = REPORT("compare", "--plot", tpath("cmp"), "--format", "svg",
			      profile("base"), profile("shifted"));

	cr_assert_eq(r.status, 1, "%s", r.err);
	expect_svg(tpath("cmp/compare-fs-read.svg"));
	cr_expect(exists(tpath("cmp/compare-fs-read.gp")));
}

Test(report, compare_refuses_bad_arguments_and_mixed_resolutions)
{
	struct run r = REPORT("compare", profile("base"), profile("base-res2"));

	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "resolution"), "%s", r.err);
	r = REPORT("compare", "--method", "nope", profile("base"), profile("base"));
	cr_expect_eq(r.status, 2);
	r = REPORT("compare", "--threshold", "-1", profile("base"), profile("base"));
	cr_expect_eq(r.status, 2);
	r = REPORT("compare", "--min-share", "0.5x", profile("base"), profile("base"));
	cr_expect_eq(r.status, 2);
	r = REPORT("compare", profile("base"));
	cr_expect_eq(r.status, 2);
}

/* ---- merge ----------------------------------------------------------------- */

Test(report, merge_of_a_profile_with_itself_doubles_every_bucket)
{
	char err[512], *out = tpath("merged.json");
	struct run r = REPORT("merge", profile("base"), profile("base"), "-o", out);
	struct osp_profile *a, *m;

	cr_assert_eq(r.status, 0, "%s", r.err);
	a = osp_read_json_file(profile("base"), err, sizeof(err));
	m = osp_read_json_file(out, err, sizeof(err));
	cr_assert_not_null(a);
	cr_assert_not_null(m, "%s", err);
	cr_assert_eq(m->nops, a->nops);
	for (size_t i = 0; i < a->nops; i++) {
		const struct osp_hist *x = &a->ops[i].lat, *y = &osp_profile_find_op(m, a->ops[i].name)->lat;

		cr_expect_eq(y->count, 2 * x->count, "%s", a->ops[i].name);
		cr_expect_eq(y->sum, 2 * x->sum);
		cr_expect_eq(y->min, x->min);
		cr_expect_eq(y->max, x->max);
		for (unsigned b = 0; b < OSP_HIST_NBUCKETS(x->res); b++)
			cr_expect_eq(osp_hist_bucket(y, b), 2 * osp_hist_bucket(x, b), "%s bucket %u",
				     a->ops[i].name, b);
	}
	cr_expect_eq(m->nsnaps, 0);
	cr_expect_not_null(strstr(r.err, "timelines are not merged"));
	osp_profile_free(a);
	osp_profile_free(m);
}

Test(report, merge_refuses_mixed_resolutions_and_layers)
{
	char *out = tpath("m.json");
	struct run r = REPORT("merge", profile("base"), profile("base-res2"), "-o", out);

	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1, "%s", r.err);
	cr_expect_not_null(strstr(r.err, "resolutions differ (1 and 2)"), "%s", r.err);
	cr_expect(!exists(out));
	r = REPORT("merge", profile("base"), profile("lower"), "-o", out);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "layer"), "%s", r.err);
	cr_expect(!exists(out));
	r = REPORT("merge", mount_dir(), "-o", out);
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "--layer"), "%s", r.err);
	r = REPORT("merge", profile("base"));
	cr_expect_eq(r.status, 2);
}

/* ---- export ---------------------------------------------------------------- */

Test(report, export_json_round_trips)
{
	char err[512], *out = tpath("e.json");
	struct run r = REPORT("export", "--format", "json", profile("base"), "-o", out);
	struct osp_profile *a, *b;

	cr_assert_eq(r.status, 0, "%s", r.err);
	a = osp_read_json_file(profile("base"), err, sizeof(err));
	b = osp_read_json_file(out, err, sizeof(err));
	cr_assert_not_null(b, "%s", err);
	cr_assert_eq(a->nops, b->nops);
	for (size_t i = 0; i < a->nops; i++) {
		cr_assert_eq(a->ops[i].lat.nbk, b->ops[i].lat.nbk);
		for (uint32_t k = 0; k < a->ops[i].lat.nbk; k++) {
			cr_expect_eq(a->ops[i].lat.bk[k].idx, b->ops[i].lat.bk[k].idx);
			cr_expect_eq(a->ops[i].lat.bk[k].count, b->ops[i].lat.bk[k].count);
		}
	}
	cr_expect_eq(b->nsnaps, a->nsnaps);
	osp_profile_free(a);
	osp_profile_free(b);
	r = REPORT("export", "--format", "json", mount_dir());
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "choose one with --layer"), "%s", r.err);
}

Test(report, export_csv_has_a_row_per_bucket)
{
	struct run r = REPORT("export", "--format", "csv", profile("base"));
	unsigned long long total = 0;
	char *save = NULL;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_eq(strncmp(r.out, "layer,op,hist,count,sum_ns,min_ns,max_ns,bucket,lower_ns,upper_ns,bucket_count\n", 79), 0);
	for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "fs,read,lat,", 12) == 0)
			total += strtoull(strrchr(l, ',') + 1, NULL, 10);
	}
	cr_expect_eq(total, 1100); /* read's requests in the base profile */
}

Test(report, export_openmetrics_ends_once)
{
	struct run r = REPORT("export", "--format", "openmetrics", mount_dir());
	const char *eof;
	char want[600];

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* read's 1100 requests in fs, 900 + 100 in lower: every bucket. Every
	 * layer in one family, the mount labelled as it was named. */
	snprintf(want, sizeof(want), "osprof_latency_seconds_bucket{mount=\"%s\",layer=\"fs\",op=\"read\",le=\"+Inf\"} 1100",
		 mount_dir());
	cr_expect_str_eq(line_starting(r.out, want), want);
	snprintf(want, sizeof(want), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"read\"} 1100",
		 mount_dir());
	cr_expect_str_eq(line_starting(r.out, want), want);
	snprintf(want, sizeof(want), "osprof_latency_seconds_bucket{mount=\"%s\",layer=\"lower\",op=\"read\",le=\"+Inf\"} 1000",
		 mount_dir());
	cr_expect_str_eq(line_starting(r.out, want), want);
	eof = strstr(r.out, "# EOF\n");
	cr_assert_not_null(eof);
	cr_expect_str_eq(eof, "# EOF\n", "one # EOF, at the end");
}

/* ---- the kernel module's layers ------------------------------------------ */

/* A directory laid out like /proc/osprof, from the kmod tests' samples. */
static char *proc_dir(void)
{
	static const char *const layers[] = { "lower", "block", "irq" };
	const char *data = getenv("ORP_KMOD_DATA");
	char *dir = tpath("proc-osprof");

	if (!data || !*data)
		cr_skip_test("ORP_KMOD_DATA (the kernel module's sample /proc text) not set");
	cr_assert_eq(mkdir(dir, 0755), 0);
	for (size_t i = 0; i < 3; i++) {
		char *src, *text;

		cr_assert(asprintf(&src, "%s/%s.txt", data, layers[i]) > 0);
		text = slurp(src);
		cr_assert_not_null(text, "%s", src);
		spit(tpath("proc-osprof/%s", layers[i]), text, strlen(text));
		free(text);
		free(src);
	}
	return dir;
}

/* From the kmod sample of @layer: its records with requests, and the
 * requests of all (each record's count=, not vcount=). */
static void kmod_totals(const char *layer, size_t *ops, unsigned long long *requests)
{
	char *text = own(slurp(tpath("proc-osprof/%s", layer)));

	cr_assert_not_null(text);
	*ops = 0;
	*requests = 0;
	for (const char *c = strstr(text, " count="); c; c = strstr(c + 1, " count=")) {
		unsigned long long n = strtoull(c + 7, NULL, 10);

		*ops += n > 0;
		*requests += n;
	}
}

Test(report, proc_osprof_layers_are_read_through_the_kmod_reader)
{
	static const char *const layers[] = { "lower", "block", "irq" };
	char *dir = proc_dir(), want[128];
	struct run r = REPORT("show", dir);
	unsigned long long requests;
	size_t ops;

	cr_assert_eq(r.status, 0, "%s", r.err);
	for (size_t i = 0; i < 3; i++) {
		snprintf(want, sizeof(want), "(layer %s) <==\n", layers[i]);
		const char *sec = section(r.out, want);

		kmod_totals(layers[i], &ops, &requests);
		snprintf(want, sizeof(want), "osprof %s profile: %zu operations, %llu requests in ",
			 layers[i], ops, requests);
		cr_expect_not_null(line_starting(sec, want), "%s in:\n%s", want, sec);
	}
	r = REPORT("compare", dir, dir);
	cr_expect_eq(r.status, 0, "%s", r.out);
	r = REPORT("plot", "--format", "svg", dir, "-o", tpath("kplot"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	expect_svg(tpath("kplot/irq.svg"));
	expect_svg(tpath("kplot/layers.svg"));
}

/* ---- html ------------------------------------------------------------------ */

Test(report, html_is_one_self_contained_file_that_renders, .timeout = 60)
{
	char *html = tpath("r.html"), *page, *png = tpath("shot.png");
	struct run r = REPORT("html", profile("base"), profile("shifted"), "-o", html);
	struct png_stats s;

	cr_assert_eq(r.status, 0, "%s", r.err);
	page = own(slurp(html));
	cr_assert_not_null(page);
	cr_expect_eq(strncmp(page, "<!DOCTYPE html>", 15), 0);
	cr_expect_not_null(strstr(page, "1 of 8 operations differ"));
	cr_expect_not_null(strstr(page, "<svg"));
	cr_expect_null(strstr(page, "<script"));
	cr_expect_null(strstr(page, " src="));
	cr_expect_null(strstr(page, "<link"));
	cr_expect_null(strstr(page, "https://"));
	if (!have_chromium())
		cr_skip_test("chromium is not installed: the rendering is not checked");
	chromium_screenshot(html, png, 1200, 900);
	cr_assert(png_stats(png, &s), "chromium wrote no PNG");
	cr_expect(s.colours > 8, "screenshot has %zu colours: blank", s.colours);
	cr_expect(s.nonwhite > 0.02, "screenshot is %.1f%% non-white: blank", 100 * s.nonwhite);
}

/*
 * A profile of three ops for the HTML comparison: "read" at @read_bucket,
 * and two hostile names that are the same on both sides; @opts is the
 * inside of its options object.
 */
static char *cmp_profile(const char *file, unsigned read_bucket, const char *opts)
{
	static const char fmt[] =
		"{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"host\": \"h\","
		" \"clock\": {\"source\": \"tsc\", \"cycles_per_ns\": 2.5}, \"resolution\": 1,"
		" \"unit\": \"ns\", \"options\": {%s}, \"elapsed_ns\": 4000000000, \"ops\": [\n"
		"{\"name\": \"read\", \"count\": 1000, \"sum\": %llu, \"min\": %llu, \"max\": %llu,"
		" \"buckets\": [[%u, 1000]]},\n"
		"{\"name\": \"<img src=x onerror=alert(1)>\", \"count\": 500, \"sum\": 1500000,"
		" \"min\": 3000, \"max\": 3000, \"buckets\": [[12, 500]]},\n"
		"{\"name\": \"</td><script>alert(2)</script>&amp;\", \"count\": 300, \"sum\": 60000,"
		" \"min\": 200, \"max\": 200, \"buckets\": [[8, 300]]}]}\n";
	unsigned long long v = 3ull << (read_bucket - 2); /* inside the bucket */
	char *path = tpath("%s", file), *text;
	int len = asprintf(&text, fmt, opts, v * 1000, v, v, read_bucket);

	cr_assert_gt(len, 0);
	spit(path, text, (size_t)len);
	free(text);
	return path;
}

/* Every href="#X" in @dom names an element id="X"; @page, the HTML
 * before parsing, had as many: none lost, none made up. */
static void expect_anchors_resolve(const char *dom, const char *page)
{
	size_t n = 0, written = 0;

	/* Written with either quote (gnuplot's SVG uses '); parsed, with ". */
	for (const char *h = strchr(page, 'h'); h; h = strchr(h + 1, 'h'))
		written += strncmp(h, "href=\"#", 7) == 0 || strncmp(h, "href='#", 7) == 0;

	for (const char *h = strstr(dom, "href=\"#"); h; h = strstr(h + 1, "href=\"#")) {
		const char *start = h + 7, *end = strchr(start, '"');
		char id[128];

		cr_assert_not_null(end);
		cr_assert_lt((size_t)(end - start), sizeof(id) - 6);
		snprintf(id, sizeof(id), "id=\"%.*s\"", (int)(end - start), start);
		cr_expect_not_null(strstr(dom, id), "anchor #%s resolves to nothing", id + 4);
		n++;
	}
	cr_expect_geq(n, 6, "the contents and the summary link %zu anchors", n);
	cr_expect_eq(n, written, "%zu anchors parsed of %zu written", n, written);
}

Test(report, html_comparison_shows_both_sides_and_collapses_what_does_not_differ, .timeout = 90)
{
	char *a = cmp_profile("cmpA.json", 10, "\"cache\": \"auto\", \"writeback\": false");
	char *b = cmp_profile("cmpB.json", 14, "\"cache\": \"never\", \"<b>k</b>\": \"<i>v\"");
	char *html = tpath("cmp.html"), *page, *dom, *details, *details_end, *read_sec;
	struct run r = REPORT("html", a, b, "-o", html);
	static const char *const want[] = {
		/* Both sides: each one's table and options. */
		"<h2 id=\"p0-0\">A: Layer fs</h2>",
		"<h2 id=\"p1-0\">B: Layer fs</h2>",
		"options: cache=auto writeback=false",
		"options: cache=never &lt;b&gt;k&lt;/b&gt;=&lt;i&gt;v",
		/* The comparability notes name each option that differs. */
		"layer fs: cache differs: auto vs never",
		"layer fs: writeback differs: false vs unset",
		"layer fs: &lt;b&gt;k&lt;/b&gt; differs: unset vs &lt;i&gt;v",
		"1 of 3 operations differ",
		/* Hostile names as text. */
		"&lt;img src=x onerror=alert(1)&gt;",
		"&lt;/td&gt;&lt;script&gt;alert(2)&lt;/script&gt;&amp;amp;",
	};

	cr_assert_eq(r.status, 0, "%s", r.err);
	page = own(slurp(html));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_not_null(strstr(page, want[i]), "no %s in:\n%s", want[i], page);
	/* Hostile names are text, never markup. */
	cr_expect_null(strstr(page, "<img"));
	cr_expect_null(strstr(page, "<script"));
	cr_expect_null(strstr(page, "<b>k"));
	/* Operations in order of total time: the img op (1.5ms) before the other (60us). */
	cr_expect_lt(strstr(page, "fs / &lt;img"), strstr(page, "fs / &lt;/td&gt;"));
	if (!have_chromium())
		cr_skip_test("chromium is not installed: the rendering is not checked");
	dom = chromium_dom(html, 1200); /* run_argv owns it */
	cr_assert_not_null(strstr(dom, "</html>"), "%s", dom);
	cr_expect_null(strstr(dom, "<img"), "a name became an element");
	cr_expect_null(strstr(dom, "<script"), "a name became an element");
	cr_expect_null(strstr(dom, "<i>"), "an option became an element");
	expect_anchors_resolve(dom, page);
	/* read differs and is shown; the two others sit in a closed <details>. */
	details = strstr(dom, "<details id=\"same\">");
	cr_assert_not_null(details, "no collapsed section (or it is open): %s", dom);
	details_end = strstr(details, "</details>");
	cr_assert_not_null(details_end);
	read_sec = strstr(dom, "<h3>fs / read: different</h3>");
	cr_assert_not_null(read_sec, "%s", dom);
	cr_expect(read_sec < details, "the differing op is outside the details");
	cr_expect_not_null(strstr(details, "fs / &lt;img src=x onerror=alert(1)&gt;: equal"), "%s", details);
	cr_expect(strstr(details, "fs / &lt;img src=x onerror=alert(1)&gt;: equal") < details_end);
	cr_expect(strstr(details, "&lt;script&gt;alert(2)&lt;/script&gt;&amp;amp;: equal") < details_end);
	cr_expect_not_null(strstr(details, "&lt;script&gt;alert(2)&lt;/script&gt;&amp;amp;: equal"), "%s", details);
	/* Both sides' tables are there once parsed. */
	cr_expect_not_null(strstr(dom, "<h2 id=\"p1-0\">B: Layer fs</h2>"));
	chromium_screenshot(html, tpath("cmp.png"), 1200, 900);
}

/* ---- help and usage -------------------------------------------------------- */

Test(report, every_subcommand_has_help_with_examples)
{
	static const char *const cmds[] = { "show", "plot", "compare", "html", "export", "merge" };

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		struct run r = REPORT((char *)cmds[i], "--help");

		cr_expect_eq(r.status, 0, "%s", cmds[i]);
		cr_expect_not_null(strstr(r.out, "Usage: osprof-report"), "%s", cmds[i]);
		cr_expect_not_null(strstr(r.out, "Examples:"), "%s", cmds[i]);
	}
	struct run r = REPORT("--help");

	cr_expect_eq(r.status, 0);
	r = REPORT("frobnicate");
	cr_expect_eq(r.status, 2);
	cr_expect_eq(count_lines(r.err), 1);
}

/* ---- every error path of every subcommand ------------------------------------ */

enum bad_input { BAD_MISSING, BAD_GARBAGE, BAD_TRUNCATED, BAD_EMPTY, BAD_VERSION,
		 BAD_BUCKET, BAD_DIR, BAD_KMOD, BAD__COUNT };

/* Indices only: Criterion runs each case in a fresh process image, where
 * a pointer from the generator would point nowhere. */
struct bad_case {
	int cmd;
	enum bad_input input;
};

static const char *const bad_cmds[] = { "show", "plot", "compare-a", "compare-b",
					"html", "export", "merge" };
#define NBAD_CMDS (sizeof(bad_cmds) / sizeof(bad_cmds[0]))

/* Make the bad input; return its path and what stderr must say. */
static char *bad_input(enum bad_input b, const char **expect)
{
	char *p = tpath("bad-%d", (int)b), *text;
	size_t len;

	switch (b) {
	case BAD_MISSING:
		*expect = "No such file or directory";
		return p;
	case BAD_GARBAGE:
		spit(p, "this is not { json", 18);
		*expect = "invalid JSON";
		return p;
	case BAD_TRUNCATED:
		text = own(slurp(profile("base")));
		len = strlen(text) / 2;
		spit(p, text, len);
		*expect = "truncated";
		return p;
	case BAD_EMPTY:
		spit(p, "", 0);
		*expect = "empty file";
		return p;
	case BAD_VERSION:
		text = "{\"format\": \"osprof\", \"version\": 99, \"layer\": \"fs\", \"resolution\": 1, \"ops\": []}";
		spit(p, text, strlen(text));
		*expect = "newer than this reader";
		return p;
	case BAD_BUCKET:
		text = "{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"resolution\": 1,"
		       " \"ops\": [{\"name\": \"read\", \"count\": 1, \"buckets\": [[900, 1]]}]}";
		spit(p, text, strlen(text));
		*expect = "ops[0].buckets[0]: index 900 out of range";
		return p;
	case BAD_DIR:
		cr_assert_eq(mkdir(p, 0755), 0);
		*expect = "not an osprof-fs mount";
		return p;
	default:
		cr_assert_eq(mkdir(p, 0755), 0);
		text = "op=read count=x1 sum_ns=0 min_ns=0 max_ns=0 hist=\n";
		spit(tpath("bad-%d/lower", (int)b), text, strlen(text));
		*expect = "lower line 1: key 'count': not a number";
		return p;
	}
}

ParameterizedTestParameters(report, bad_input_gives_one_line_and_exit_2)
{
	static struct bad_case cases[NBAD_CMDS * BAD__COUNT];
	size_t n = 0;

	for (size_t c = 0; c < NBAD_CMDS; c++)
		for (int b = 0; b < BAD__COUNT; b++)
			cases[n++] = (struct bad_case){ (int)c, (enum bad_input)b };
	return cr_make_param_array(struct bad_case, cases, n);
}

ParameterizedTest(struct bad_case *bc, report, bad_input_gives_one_line_and_exit_2)
{
	const char *expect, *cmd = bad_cmds[bc->cmd];
	char *bad = bad_input(bc->input, &expect), *out = tpath("out-file");
	struct run r;

	if (strcmp(cmd, "show") == 0)
		r = REPORT("show", bad);
	else if (strcmp(cmd, "plot") == 0)
		r = REPORT("plot", bad, "-o", out);
	else if (strcmp(cmd, "compare-a") == 0)
		r = REPORT("compare", bad, profile("base"));
	else if (strcmp(cmd, "compare-b") == 0)
		r = REPORT("compare", profile("base"), bad);
	else if (strcmp(cmd, "html") == 0)
		r = REPORT("html", bad, "-o", out);
	else if (strcmp(cmd, "export") == 0)
		r = REPORT("export", "--format", "csv", bad, "-o", out);
	else
		r = REPORT("merge", profile("base"), bad, "-o", out);
	cr_expect_eq(r.status, 2, "%s on bad input %d: status %d", cmd, bc->input, r.status);
	cr_expect_eq(count_lines(r.err), 1, "%s: stderr: %s", cmd, r.err);
	cr_expect_eq(strncmp(r.err, "osprof-report: ", 15), 0, "%s", r.err);
	cr_expect_not_null(strstr(r.err, bad), "%s: the message names the input: %s", cmd, r.err);
	cr_expect_not_null(strstr(r.err, expect), "%s: expected '%s' in: %s", cmd, expect, r.err);
	cr_expect(!exists(out), "%s left an output behind", cmd);
}
