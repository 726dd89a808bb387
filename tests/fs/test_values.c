// SPDX-License-Identifier: MIT
/*
 * Value profiles (-o values) through a real mount: reads of two sizes at
 * two known latencies (sleepfs) fall each in its own latency peak, in
 * values.json and in `osprof-report show --values`; readdir at the end of
 * a directory lies in its first peak; sequential and backward requests
 * land in the seek buckets they should, counted exactly; reset empties
 * the tables, which only -o values shows; --dump writes them beside its
 * FILE; a hostile values.json is refused in one line with status 2.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "orp.h"
#include "osprof/analysis.h"
#include "osprof/format.h"

static struct mnt m;
static struct sleepfs slow;

static void up(void)
{
	h_tree(&m);
}

/* sleepfs first: the tree is removed with it unmounted. */
static void down(void)
{
	h_cleanup_over(&m, &slow);
}

TestSuite(values, .init = up, .fini = down, .timeout = 120);

/* The mount's values.json, parsed (checked). */
static void values_of(const char *path, struct orp_values *v)
{
	char err[256];
	size_t len;
	char *text = h_slurp(path, &len);

	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	cr_assert_eq(orp_values_parse(v, text, len, err, sizeof(err)), 0, "%s: %s", path, err);
	free(text);
}

static const struct orp_vtable *table(const struct orp_values *v, const char *op,
				      enum osp_value_kind k)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->t[i].op, op) == 0 && v->t[i].kind == k)
			return &v->t[i];
	cr_assert_fail("no table %s %s", op, osp_value_kind_name(k));
	return NULL;
}

static uint64_t cell(const struct orp_vtable *t, unsigned lat, unsigned val)
{
	return t->cell[lat * t->nval + val];
}

/* Requests of value bucket @val over all latencies. */
static uint64_t value_count(const struct orp_values *v, const struct orp_vtable *t, unsigned val)
{
	uint64_t n = 0;

	for (unsigned l = 0; l < v->nlat; l++)
		n += cell(t, l, val);
	return n;
}

/* Requests of every value of @t. */
static uint64_t table_total(const struct orp_values *v, const struct orp_vtable *t)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < t->nval; b++)
		n += value_count(v, t, b);
	return n;
}

/* The peaks of @t's marginal latency histogram. */
static size_t peaks_of(const struct orp_values *v, const struct orp_vtable *t,
		       struct osp_peak *pk)
{
	struct osp_hist h;
	size_t n;

	cr_assert_eq(osp_hist_init(&h, v->res), 0);
	for (unsigned l = 0; l < v->nlat; l++) {
		uint64_t row = 0;

		for (unsigned b = 0; b < t->nval; b++)
			row += cell(t, l, b);
		if (row)
			cr_assert_eq(osp_hist_bucket_set(&h, l, row), 0);
	}
	n = osp_hist_peaks(&h, pk, OSP_PEAKS_MAX);
	osp_hist_fini(&h);
	return n;
}

/* The peak holding latency bucket @l, or -1. */
static int peak_at(const struct osp_peak *pk, size_t n, unsigned l)
{
	for (size_t k = 0; k < n; k++)
		if (l >= pk[k].lo && l <= pk[k].hi)
			return (int)k;
	return -1;
}

/* `osprof-report ARGS` output (stdout) into a malloc'd string; status in *rc. */
static char *report(int *rc, const char *args)
{
	char cmd[PATH_MAX * 3], *out = NULL;
	size_t len = 0;
	FILE *f, *mem = open_memstream(&out, &len);
	int c;

	snprintf(cmd, sizeof(cmd), "%s %s 2>%s/report.err", getenv("OSPROF_REPORT"), args, m.top);
	f = popen(cmd, "r");
	cr_assert(f && mem);
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	*rc = WEXITSTATUS(pclose(f));
	fclose(mem);
	return out;
}

static void read_n(const char *path, size_t size, int n)
{
	char *buf = malloc(size);
	int fd = open(path, O_RDONLY);

	cr_assert(buf && fd >= 0, "%s: %s", path, strerror(errno));
	for (int i = 0; i < n; i++)
		cr_assert_eq(pread(fd, buf, size, 0), (ssize_t)size);
	close(fd);
	free(buf);
}

static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v;

	cr_assert(json_object_object_get_ex(o, key, &v), "no %s in %s", key,
		  json_object_to_json_string(o));
	return v;
}

static uint64_t ju64(struct json_object *o, const char *key)
{
	return json_object_get_uint64(jget(o, key));
}

/* How many requests of a value a workload made: @kind's bucket @label. */
struct value_want {
	const char *kind, *label;
	uint64_t count;
};

/* The text line of peak @k of @np of @op, as show --values words its JSON @pk. */
static char *peak_line(const char *op, size_t k, size_t np, struct json_object *pk)
{
	struct json_object *vals = jget(pk, "values");
	char *line = NULL, lo[16], hi[16];
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	cr_assert_not_null(f);
	fprintf(f, "%s peak %zu of %zu (%s-%s, %.1f%%, %" PRIu64 " requests):", op, k + 1, np,
		osp_fmt_ns(lo, sizeof(lo), json_object_get_double(jget(pk, "lower_ns"))),
		osp_fmt_ns(hi, sizeof(hi), json_object_get_double(jget(pk, "upper_ns"))),
		100.0 * json_object_get_double(jget(pk, "share")), ju64(pk, "count"));
	for (size_t t = 0; t < json_object_array_length(vals); t++) {
		struct json_object *tab = json_object_array_get_idx(vals, t);
		struct json_object *bks = jget(tab, "buckets");
		uint64_t rest = ju64(tab, "count");
		size_t nb = json_object_array_length(bks);

		fprintf(f, "%s%s:", t ? "; " : " ", json_object_get_string(jget(tab, "value")));
		/* Six values at most, most requests first; the rest as others. */
		for (size_t b = 0; b < nb && b < 6; b++) {
			struct json_object *bk = json_object_array_get_idx(bks, b);

			fprintf(f, "%s %s %.1f%%", b ? "," : "", json_object_get_string(jget(bk, "label")),
				100.0 * json_object_get_double(jget(bk, "share")));
			rest -= ju64(bk, "count");
		}
		if (nb > 6)
			fprintf(f, ", others %.1f%%", 100.0 * (double)rest / (double)ju64(tab, "count"));
	}
	cr_assert_eq(fclose(f), 0);
	return line;
}

/*
 * `show --values --op @op @input`, JSON and text. Each peak's tables add
 * up to the peak's count, the peaks to the op's, which is @count; over
 * the peaks the requests of each value are exactly @want (@nwant; none
 * other); and each peak's text line says what the JSON says. Returns the
 * op's JSON peaks (put with *@doc).
 */
static struct json_object *expect_values_shown(const char *input, const char *op, uint64_t count,
					      const struct value_want *want, size_t nwant,
					      struct json_object **doc)
{
	char cmd[PATH_MAX * 2], *out, *text;
	struct json_object *ops, *o = NULL, *peaks;
	uint64_t in_peaks = 0, seen[16] = { 0 };
	size_t np;
	int rc;

	cr_assert_lt(nwant, 16);
	snprintf(cmd, sizeof(cmd), "show --values --format json --op %s %s", op, input);
	out = report(&rc, cmd);
	cr_assert_eq(rc, 0, "%s", out);
	*doc = json_tokener_parse(out);
	cr_assert_not_null(*doc, "not JSON: %s", out);
	free(out);
	cr_expect_str_eq(json_object_get_string(jget(*doc, "format")), "osprof-show-values");
	ops = jget(json_object_array_get_idx(jget(*doc, "inputs"), 0), "ops");
	for (size_t i = 0; i < json_object_array_length(ops); i++)
		if (strcmp(json_object_get_string(jget(json_object_array_get_idx(ops, i), "op")), op) == 0)
			o = json_object_array_get_idx(ops, i);
	cr_assert_not_null(o, "no op %s in %s", op, json_object_to_json_string(*doc));
	cr_expect_eq(ju64(o, "count"), count, "%s: %" PRIu64 " requests", op, ju64(o, "count"));
	peaks = jget(o, "peaks");
	np = json_object_array_length(peaks);
	snprintf(cmd, sizeof(cmd), "show --values --op %s %s", op, input);
	text = report(&rc, cmd);
	cr_assert_eq(rc, 0, "%s", text);
	for (size_t k = 0; k < np; k++) {
		struct json_object *pk = json_object_array_get_idx(peaks, k), *vals = jget(pk, "values");
		char prefix[64], *line, *wanted = peak_line(op, k, np, pk);

		in_peaks += ju64(pk, "count");
		for (size_t t = 0; t < json_object_array_length(vals); t++) {
			struct json_object *tab = json_object_array_get_idx(vals, t), *bks = jget(tab, "buckets");
			const char *kind = json_object_get_string(jget(tab, "value"));
			uint64_t sum = 0;

			cr_expect_eq(ju64(tab, "count"), ju64(pk, "count"), "%s peak %zu: %s", op, k, kind);
			for (size_t b = 0; b < json_object_array_length(bks); b++) {
				struct json_object *bk = json_object_array_get_idx(bks, b);
				const char *label = json_object_get_string(jget(bk, "label"));
				size_t w = 0;

				while (w < nwant && !(strcmp(want[w].kind, kind) == 0 &&
						      strcmp(want[w].label, label) == 0))
					w++;
				cr_expect_lt(w, nwant, "%s peak %zu: %s %s was never asked for", op, k, kind, label);
				seen[w] += ju64(bk, "count");
				sum += ju64(bk, "count");
			}
			cr_expect_eq(sum, ju64(tab, "count"), "%s peak %zu: %s buckets", op, k, kind);
		}
		snprintf(prefix, sizeof(prefix), "%s peak %zu of ", op, k + 1);
		line = h_line(text, prefix);
		cr_expect_str_eq(line ? line : "(none)", wanted, "in:\n%s", text);
		free(line);
		free(wanted);
	}
	cr_expect_eq(in_peaks, count, "%s: the peaks hold %" PRIu64 " requests", op, in_peaks);
	for (size_t w = 0; w < nwant; w++)
		cr_expect_eq(seen[w], want[w].count, "%s %s %s: %" PRIu64 " requests", op, want[w].kind,
			     want[w].label, seen[w]);
	free(text);
	return peaks;
}

/* The value with most requests in table @kind of peak @k. */
static const char *top_value(struct json_object *peaks, size_t k, const char *kind)
{
	struct json_object *pk = json_object_array_get_idx(peaks, k), *vals, *bks = NULL;

	cr_assert_not_null(pk, "no peak %zu", k + 1);
	vals = jget(pk, "values");
	for (size_t t = 0; t < json_object_array_length(vals); t++)
		if (strcmp(json_object_get_string(jget(json_object_array_get_idx(vals, t), "value")),
			   kind) == 0)
			bks = jget(json_object_array_get_idx(vals, t), "buckets");
	cr_assert(bks && json_object_array_length(bks) > 0, "peak %zu: no %s", k + 1, kind);
	return json_object_get_string(jget(json_object_array_get_idx(bks, 0), "label"));
}

/*
 * 1.3 ms and 5.2 ms (sleepfs's slow and slow4), each mid-bucket: (1.05,
 * 2.10] ms and (4.19, 8.39] ms, with an empty bucket between. This VM is
 * shared (other builds and tests run beside): a request may be delayed by
 * milliseconds, which only ever makes it slower, so every 64 KiB read is
 * in the slow peak, and 90% of the 512 B reads in the fast one. Which
 * peak a request lands in is timing; how many requests of each value
 * there are is not, and is exact.
 */
Test(values, reads_of_512_and_64k_at_two_latencies_put_each_size_in_its_own_peak)
{
	static const struct value_want want[] = {
		{ "size", "512B", 20 }, { "size", "64KiB", 20 },
		/* Each file's first read, then 19 back to its offset 0. */
		{ "seek", "first", 2 }, { "seek", "-512B", 19 }, { "seek", "-64KiB", 19 },
	};
	const char *args[] = { "-o", "values", NULL };
	struct osp_peak pk[OSP_PEAKS_MAX];
	struct orp_values v;
	struct osp_profile *p;
	struct json_object *doc, *peaks;
	unsigned in_fast = 0;
	size_t np;

	h_sleepfs_start(&slow, m.top, "1300");
	h_start_at(&m, slow.dir, NULL, args);
	read_n(h_at(m.dir, "slow"), 512, 20);
	read_n(h_at(m.dir, "slow4"), 65536, 20);
	values_of(h_at(m.ctl, "values.json"), &v);
	const struct orp_vtable *t = table(&v, "read", OSP_VALUE_SIZE);

	cr_expect_eq(value_count(&v, t, 9), 20, "512 B reads");
	cr_expect_eq(value_count(&v, t, 16), 20, "64 KiB reads");
	cr_expect_eq(table_total(&v, t), 40, "no read of another size");
	/* Timing: a delayed request may make a peak of its own. */
	np = peaks_of(&v, t, pk);
	cr_assert_geq(np, 2, "two peaks of read at least, got %zu", np);
	for (unsigned l = 0; l < v.nlat; l++) {
		if (cell(t, l, 16))
			cr_expect_gt(peak_at(pk, np, l), 0, "64 KiB read in bucket %u: not in peak 1", l);
		if (peak_at(pk, np, l) == 0)
			in_fast += (unsigned)cell(t, l, 9);
	}
	/* Timing too, so a bound: at most the 20 counted above, at least 18. */
	cr_expect_geq(in_fast, 18, "512 B reads in peak 1: %u of 20", in_fast);
	orp_values_fini(&v);
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "read"), 40, "the profile counts each read once too");
	osp_profile_free(p);

	peaks = expect_values_shown(m.dir, "read", 40, want, sizeof(want) / sizeof(want[0]), &doc);
	cr_expect_str_eq(top_value(peaks, 0, "size"), "512B");
	cr_expect_str_eq(top_value(peaks, 1, "size"), "64KiB");
	json_object_put(doc);
	h_stop(&m);
}

Test(values, readdir_past_end_lands_in_the_first_peak)
{
	const char *args[] = { "-o", "values,readdirplus=no", NULL };
	struct osp_peak pk[OSP_PEAKS_MAX];
	struct orp_values v;
	struct osp_profile *p;
	struct json_object *doc, *peaks;
	uint64_t ends = 0, ends_first = 0, readdirs;
	size_t np;

	cr_assert_eq(h_sh("mkdir %s/d && cd %s/d && seq 1 2000 | xargs touch", m.lower, m.lower), 0);
	h_start(&m, args);
	for (int i = 0; i < 20; i++) {
		DIR *d = opendir(h_at(m.dir, "d"));

		cr_assert_not_null(d);
		while (readdir(d))
			;
		closedir(d);
	}
	values_of(h_at(m.ctl, "values.json"), &v);
	const struct orp_vtable *t = table(&v, "readdir", OSP_VALUE_AT_END);

	np = peaks_of(&v, t, pk);
	cr_assert_geq(np, 1);
	for (unsigned l = 0; l < v.nlat; l++) {
		ends += cell(t, l, 1);
		if (peak_at(pk, np, l) == 0) {
			ends_first += cell(t, l, 1);
			cr_expect_eq(cell(t, l, 0), 0, "a readdir with entries in peak 1 (bucket %u)", l);
		}
	}
	/* Each listing ends at its one empty reply: readdir(3) stops there. */
	cr_expect_eq(ends, 20, "readdirs at the end: %" PRIu64, ends);
	/*
	 * A request delayed on this shared VM (other builds and tests run
	 * beside) is only ever slower, and a few delayed ones may make a peak
	 * of their own: peak 1 holds only readdirs at the end, and most.
	 */
	cr_expect_geq(ends_first * 4, ends * 3, "readdirs at the end in peak 1: %" PRIu64 " of %" PRIu64,
		      ends_first, ends);
	/*
	 * How many names a reply holds is the kernel's choice (its buffer),
	 * but each listing of the same directory asks the same: a multiple of
	 * 20 in all, each once in the values as in the profile.
	 */
	p = h_profile(&m);
	readdirs = h_count(p, "readdir");
	osp_profile_free(p);
	cr_expect_eq(value_count(&v, t, 0) + ends, readdirs, "%" PRIu64 " with names, %" PRIu64
		     " at the end, %" PRIu64 " readdirs", value_count(&v, t, 0), ends, readdirs);
	cr_expect_eq(readdirs % 20, 0, "%" PRIu64 " readdirs in 20 listings", readdirs);
	cr_expect_geq(value_count(&v, t, 0), 20, "2,000 names take a reply at least");
	orp_values_fini(&v);

	const struct value_want want[] = { { "at_end", "at end", 20 },
					   { "at_end", "not at end", readdirs - 20 } };

	peaks = expect_values_shown(m.dir, "readdir", readdirs, want, 2, &doc);
	/* The first peak holds the readdirs at the end. */
	cr_expect_str_eq(top_value(peaks, 0, "at_end"), "at end");
	json_object_put(doc);
	h_stop(&m);
}

/* Sequential reads and writes, then a backward read and a forward write. */
Test(values, seek_distances_land_in_their_buckets_exactly)
{
	const char *args[] = { "-o", "values", NULL };
	char buf[4096] = { 0 };
	struct orp_values v;
	int fd;

	cr_assert_eq(h_sh("head -c 65536 /dev/zero > %s/f", m.lower), 0);
	h_start(&m, args);
	fd = open(h_at(m.dir, "f"), O_RDWR);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pread(fd, buf, 4096, i * 4096), 4096);
	cr_assert_eq(pread(fd, buf, 4096, 0), 4096);      /* back 16 KiB */
	cr_assert_eq(pread(fd, buf, 512, 40000), 512);    /* forward 35904 B */
	close(fd);
	fd = open(h_at(m.dir, "f"), O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(pwrite(fd, buf, 100, 0), 100);
	cr_assert_eq(pwrite(fd, buf, 100, 100), 100);
	cr_assert_eq(pwrite(fd, buf, 100, 1100), 100);    /* forward 900 B */
	cr_assert_eq(pwrite(fd, buf, 100, 0), 100);       /* back 1200 B */
	close(fd);
	values_of(h_at(m.ctl, "values.json"), &v);
	const struct orp_vtable *rs = table(&v, "read", OSP_VALUE_SEEK);
	const struct orp_vtable *rz = table(&v, "read", OSP_VALUE_SIZE);
	const struct orp_vtable *ws = table(&v, "write", OSP_VALUE_SEEK);

	cr_expect_eq(value_count(&v, rs, OSP_VALUE_SEEK_FIRST), 1);
	cr_expect_eq(value_count(&v, rs, OSP_VALUE_SEEK_SEQ), 3);
	cr_expect_eq(value_count(&v, rs, OSP_VALUE_SEEK_BACK + 14), 1, "back 16 KiB: (8, 16] KiB");
	cr_expect_eq(value_count(&v, rs, OSP_VALUE_SEEK_FWD + 16), 1, "forward 35904: (32, 64] KiB");
	cr_expect_eq(value_count(&v, rz, 12), 5, "4 KiB reads");
	cr_expect_eq(value_count(&v, rz, 9), 1, "512 B read");
	cr_expect_eq(value_count(&v, ws, OSP_VALUE_SEEK_FIRST), 1);
	cr_expect_eq(value_count(&v, ws, OSP_VALUE_SEEK_SEQ), 1);
	cr_expect_eq(value_count(&v, ws, OSP_VALUE_SEEK_FWD + 10), 1, "forward 900: (512, 1024]");
	cr_expect_eq(value_count(&v, ws, OSP_VALUE_SEEK_BACK + 11), 1, "back 1200: (1024, 2048]");
	/* And nothing else: each request once. */
	cr_expect_eq(table_total(&v, rs), 6);
	cr_expect_eq(table_total(&v, rz), 6);
	cr_expect_eq(table_total(&v, ws), 4);
	cr_expect_eq(table_total(&v, table(&v, "write", OSP_VALUE_SIZE)), 4);
	orp_values_fini(&v);
	h_stop(&m);
}

Test(values, reset_empties_and_dump_writes_them_beside_the_profile)
{
	char dump[PATH_MAX];
	const char *args[] = { "-o", "values", "--dump", dump, NULL };
	struct orp_values v;
	char *text;

	snprintf(dump, sizeof(dump), "%s/run.json", m.top);
	cr_assert_eq(h_sh("head -c 8192 /dev/zero > %s/f", m.lower), 0);
	h_start(&m, args);
	read_n(h_at(m.dir, "f"), 4096, 3);
	values_of(h_at(m.ctl, "values.json"), &v);
	cr_expect_eq(value_count(&v, table(&v, "read", OSP_VALUE_SIZE), 12), 3);
	orp_values_fini(&v);
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "reset\n"), 0);
	values_of(h_at(m.ctl, "values.json"), &v);
	for (size_t i = 0; i < v.n; i++)
		for (size_t c = 0; c < (size_t)v.nlat * v.t[i].nval; c++)
			cr_expect_eq(v.t[i].cell[c], 0, "%s %s cell %zu after reset", v.t[i].op,
				     osp_value_kind_name(v.t[i].kind), c);
	orp_values_fini(&v);
	text = h_slurp(h_at(m.ctl, "values"), NULL);
	cr_assert_not_null(text);
	/* Every table there, and not one row. */
	cr_expect_str_eq(text, "value profiles, resolution 1: per latency bucket, the requests of each value\n"
			 "\nread size (bytes)\n\nread seek (bytes)\n\nwrite size (bytes)\n"
			 "\nwrite seek (bytes)\n\nreaddir at_end (bool)\n\nreaddirplus at_end (bool)\n");
	free(text);
	read_n(h_at(m.dir, "f"), 512, 2);
	cr_assert_eq(h_stop(&m), 0);
	values_of(h_at(m.top, "run.values.json"), &v);
	cr_expect_eq(value_count(&v, table(&v, "read", OSP_VALUE_SIZE), 9), 2);
	cr_expect_eq(table_total(&v, table(&v, "read", OSP_VALUE_SIZE)), 2);
	orp_values_fini(&v);
	/* show --values of the dump reads the values beside it. */
	{
		static const struct value_want want[] = {
			{ "size", "512B", 2 }, { "seek", "first", 1 }, { "seek", "-512B", 1 },
		};
		struct json_object *doc;

		expect_values_shown(dump, "read", 2, want, 3, &doc);
		json_object_put(doc);
	}
}

Test(values, absent_without_the_option)
{
	struct stat st;
	char *text;

	h_start(&m, NULL);
	cr_expect_eq(stat(h_at(m.ctl, "values.json"), &st), -1);
	cr_expect_eq(errno, ENOENT);
	cr_expect_eq(stat(h_at(m.ctl, "values"), &st), -1);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\nvalues off\n"), "%s", text);
	free(text);
	h_stop(&m);
}

/* Hostile values.json: one line on stderr, exit status 2, nothing else. */
Test(values, hostile_values_json_is_refused_in_one_line)
{
	static const char *const bad[] = {
		"",
		"{",
		"[]",
		"{\"format\":\"osprof\",\"version\":1}",
		"{\"format\":\"osprof-values\",\"version\":2,\"resolution\":1,\"ops\":[]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":3,\"ops\":[]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[{\"op\":\"read\",\"value\":\"size\",\"buckets\":[[65,0,1]]}]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[{\"op\":\"read\",\"value\":\"seek\",\"buckets\":[[1,132,1]]}]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[{\"op\":\"read\",\"value\":\"size\",\"buckets\":[[1,1,-1]]}]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[{\"op\":\"read\",\"value\":\"size\",\"buckets\":[[1,1,18446744073709551615],[1,1,1]]}]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[{\"op\":\"read\",\"value\":\"colour\",\"buckets\":[]}]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[{\"op\":\"a\\nb\",\"value\":\"size\",\"buckets\":[]},{\"op\":\"a\\nb\",\"value\":\"size\",\"buckets\":[]}]}",
		"{\"format\":\"osprof-values\",\"version\":1,\"resolution\":1,\"ops\":[]} trailing",
	};
	char path[PATH_MAX], cmd[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *out, *err;
		size_t len;
		int rc;

		snprintf(path, sizeof(path), "%s/bad%zu.values.json", m.top, i);
		cr_assert_eq(h_write_str(path, bad[i]), 0);
		snprintf(cmd, sizeof(cmd), "show --values %s", path);
		out = report(&rc, cmd);
		err = h_slurp(h_at(m.top, "report.err"), &len);
		cr_assert_not_null(err);
		cr_expect_eq(rc, 2, "input %zu: status %d", i, rc);
		cr_expect_str_empty(out, "input %zu printed '%s'", i, out);
		cr_expect(len > 0 && strchr(err, '\n') == err + len - 1,
			  "input %zu: one line expected, got '%s'", i, err);
		cr_expect(strncmp(err, "osprof-report: ", 15) == 0, "%s", err);
		free(out);
		free(err);
	}
}
