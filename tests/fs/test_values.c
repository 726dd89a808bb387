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

/* The line of @out that starts with @prefix, in @buf; "" when none. */
static const char *line_of(const char *out, const char *prefix, char *buf, size_t len)
{
	const char *p = strstr(out, prefix), *nl;

	buf[0] = '\0';
	if (p) {
		nl = strchr(p, '\n');
		snprintf(buf, len, "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
	}
	return buf;
}

/*
 * 1.3 ms and 5.2 ms (sleepfs's slow and slow4), each mid-bucket: (1.05,
 * 2.10] ms and (4.19, 8.39] ms, with an empty bucket between. This VM is
 * shared (other builds and tests run beside): a request may be delayed by
 * milliseconds, which only ever makes it slower, so every 64 KiB read is
 * in the slow peak, and 90% of the 512 B reads in the fast one.
 */
Test(values, reads_of_512_and_64k_at_two_latencies_put_each_size_in_its_own_peak)
{
	const char *args[] = { "-o", "values", NULL };
	struct osp_peak pk[OSP_PEAKS_MAX];
	struct orp_values v;
	char *out, cmd[PATH_MAX + 64], l1[512], l2[512];
	unsigned in_fast = 0;
	size_t np;
	int rc;

	h_sleepfs_start(&slow, m.top, "1300");
	h_start_at(&m, slow.dir, NULL, args);
	read_n(h_at(m.dir, "slow"), 512, 20);
	read_n(h_at(m.dir, "slow4"), 65536, 20);
	values_of(h_at(m.ctl, "values.json"), &v);
	const struct orp_vtable *t = table(&v, "read", OSP_VALUE_SIZE);

	cr_expect_eq(value_count(&v, t, 9), 20, "512 B reads");
	cr_expect_eq(value_count(&v, t, 16), 20, "64 KiB reads");
	np = peaks_of(&v, t, pk);
	cr_assert_geq(np, 2, "two peaks of read at least, got %zu", np);
	for (unsigned l = 0; l < v.nlat; l++) {
		if (cell(t, l, 16))
			cr_expect_gt(peak_at(pk, np, l), 0, "64 KiB read in bucket %u: not in peak 1", l);
		if (peak_at(pk, np, l) == 0)
			in_fast += (unsigned)cell(t, l, 9);
	}
	cr_expect_geq(in_fast, 18, "512 B reads in peak 1: %u of 20", in_fast);
	orp_values_fini(&v);

	snprintf(cmd, sizeof(cmd), "show --values --op read %s", m.dir);
	out = report(&rc, cmd);
	cr_assert_eq(rc, 0, "%s", out);
	line_of(out, "read peak 1 of ", l1, sizeof(l1));
	line_of(out, "read peak 2 of ", l2, sizeof(l2));
	cr_expect(strstr(l1, "size: 512B "), "peak 1: %s", out);
	cr_expect(strstr(l2, "size: 64KiB "), "peak 2: %s", out);
	free(out);

	snprintf(cmd, sizeof(cmd), "show --values --format json %s", m.dir);
	out = report(&rc, cmd);
	cr_assert_eq(rc, 0, "%s", out);
	struct json_object *doc = json_tokener_parse(out), *o;

	cr_assert_not_null(doc, "not JSON: %s", out);
	cr_expect(json_object_object_get_ex(doc, "format", &o) &&
		  strcmp(json_object_get_string(o), "osprof-show-values") == 0, "%s", out);
	cr_expect(strstr(out, "\"label\":\"512B\"") && strstr(out, "\"label\":\"64KiB\""), "%s", out);
	json_object_put(doc);
	free(out);
	h_stop(&m);
}

Test(values, readdir_past_end_lands_in_the_first_peak)
{
	const char *args[] = { "-o", "values,readdirplus=no", NULL };
	struct osp_peak pk[OSP_PEAKS_MAX];
	struct orp_values v;
	char *out, cmd[PATH_MAX + 64];
	uint64_t ends = 0, ends_first = 0;
	size_t np;
	int rc;

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
	cr_expect_geq(ends, 20, "one readdir at the end per listing at least");
	/*
	 * A request delayed on this shared VM (other builds and tests run
	 * beside) is only ever slower, and a few delayed ones may make a peak
	 * of their own: peak 1 holds only readdirs at the end, and most.
	 */
	cr_expect_geq(ends_first * 4, ends * 3, "readdirs at the end in peak 1: %" PRIu64 " of %" PRIu64,
		      ends_first, ends);
	cr_expect_geq(value_count(&v, t, 0), 20 * 2, "a 4 KiB reply holds ~100 of 2000 names");
	orp_values_fini(&v);

	snprintf(cmd, sizeof(cmd), "show --values --op readdir %s", m.dir);
	out = report(&rc, cmd);
	cr_assert_eq(rc, 0, "%s", out);
	cr_expect(strstr(out, "readdir peak 1 of ") && strstr(out, "at_end:"), "%s", out);
	/* The first peak holds the readdirs at the end. */
	char *p1 = strstr(out, "readdir peak 1 of "), *nl = p1 ? strchr(p1, '\n') : NULL;

	cr_assert(p1 && nl);
	*nl = '\0';
	cr_expect(strstr(p1, "at end"), "%s", p1);
	free(out);
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
	cr_expect(strstr(text, "read size (bytes)\n\nread seek"), "%s", text);
	free(text);
	read_n(h_at(m.dir, "f"), 512, 2);
	cr_assert_eq(h_stop(&m), 0);
	values_of(h_at(m.top, "run.values.json"), &v);
	cr_expect_eq(value_count(&v, table(&v, "read", OSP_VALUE_SIZE), 9), 2);
	orp_values_fini(&v);
	/* show --values of the dump reads the values beside it. */
	{
		char cmd[PATH_MAX + 32], *out;
		int rc;

		snprintf(cmd, sizeof(cmd), "show --values --op read %s", dump);
		out = report(&rc, cmd);
		cr_expect_eq(rc, 0, "%s", out);
		cr_expect(strstr(out, "size: 512B "), "%s", out);
		free(out);
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
