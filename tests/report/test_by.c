// SPDX-License-Identifier: MIT
/*
 * osprof-report show --by on osprof-fs's profiles per key value: a mount
 * -o by=file over sleepfs, whose "slow4" takes four times as long a read
 * as "slow", read 6 and 2 times (slow4 has the most total time, 120 ms
 * against 10: a margin of 110 ms, where 1.4 ms reads left 31 ms and a
 * sanitizer build on a loaded CI machine once closed it):
 * the values come out most total time first, --top cuts them, `other`
 * follows, by.json parses back (from the mount, a saved file and stdin)
 * and --format json is valid JSON with the same values. Hostile by.json
 * documents give one error line and exit status 2.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fs/harness.h"
#include "cli.h"

static struct mnt m;
static struct sleepfs slow;

static void reads(const char *name, int n)
{
	char path[PATH_MAX], buf[4096];
	int fd = open(h_path(path, m.dir, name), O_RDONLY);

	cr_assert_geq(fd, 0, "%s", path);
	for (int i = 0; i < n; i++)
		cr_assert_eq(pread(fd, buf, sizeof(buf), (off_t)i * 4096), 4096);
	close(fd);
}

static void up(void)
{
	const char *args[] = { "-o", "by=file", NULL };

	cli_setup();
	h_tree(&m);
	h_sleepfs_start(&slow, m.top, "5000");
	h_start_at(&m, slow.dir, NULL, args);
	reads("slow", 2);
	reads("slow4", 6);
}

static void down(void)
{
	bool bad;

	h_stop(&m);
	h_sleepfs_stop(&slow);
	bad = m.bad_stderr;
	m.bad_stderr = false;
	h_cleanup(&m);
	cli_teardown();
	if (bad)
		abort();
}

TestSuite(by, .init = up, .fini = down, .timeout = 120);

/* Where @s starts in @text, or fail. */
static const char *at(const char *text, const char *s)
{
	const char *p = strstr(text, s);

	cr_assert_not_null(p, "'%s' in:\n%s", s, text);
	return p;
}

Test(by, show_prints_the_values_most_total_time_first_then_other)
{
	struct run r = REPORT("show", "--by", m.dir);
	const char *a, *b, *o;

	cr_assert_eq(r.status, 0, "%s", r.err);
	at(r.out, "by file (");
	a = at(r.out, "==> file /slow4: ");
	b = at(r.out, "==> file /slow: ");
	o = at(r.out, "==> other: 0 requests");
	cr_expect_lt(a, b);
	cr_expect_lt(b, o);
	at(a, "read                      6 ");
	at(b, "read                      2 ");
}

Test(by, top_keeps_the_first_values)
{
	struct run r = REPORT("show", "--by", "--top", "1", m.dir);

	cr_assert_eq(r.status, 0, "%s", r.err);
	at(r.out, "==> file /slow4: ");
	cr_expect_null(strstr(r.out, "==> file /slow: "), "%s", r.out);
	at(r.out, "==> other: ");
}

Test(by, by_json_parses_back_from_a_file_and_stdin)
{
	char src[PATH_MAX + 64], *text;
	const char *file = tpath("run.by.json");
	struct run r1, r2;

	snprintf(src, sizeof(src), "%s/by.json", m.ctl);
	text = own(h_slurp(src, NULL));
	cr_assert_not_null(text);
	spit(file, text, strlen(text));
	r1 = REPORT("show", "--by", (char *)file);
	cr_assert_eq(r1.status, 0, "%s", r1.err);
	at(r1.out, "==> file /slow4: ");
	r2 = run_argv((char *const[]){ "/bin/sh", "-c", "exec \"$0\" show --by - < \"$1\"",
				       (char *)env_or("ORP_BIN", "osprof-report"), (char *)file, NULL });
	cr_assert_eq(r2.status, 0, "%s", r2.err);
	cr_expect_str_eq(strstr(r2.out, "\n"), strstr(r1.out, "\n"),
			 "the same from stdin, but the input's name in the first line");
}

/* --dump FILE writes FILE.by.json beside FILE: --by FILE finds it; a by
 * document saved under a name of its own is read as itself. */
Test(by, by_json_found_beside_a_dump_and_under_its_own_name)
{
	char src[PATH_MAX + 64], *text;
	const char *dump = tpath("run.json"), *beside = tpath("run.by.json"),
		   *own_name = tpath("nearby.json");
	struct run r;

	snprintf(src, sizeof(src), "%s/by.json", m.ctl);
	text = own(h_slurp(src, NULL));
	cr_assert_not_null(text);
	spit(dump, "{}", 2); /* not a by document: must not be what is read */
	spit(beside, text, strlen(text));
	r = REPORT("show", "--by", (char *)dump);
	cr_assert_eq(r.status, 0, "%s", r.err);
	at(r.out, "==> file /slow4: ");
	spit(own_name, text, strlen(text));
	r = REPORT("show", "--by", (char *)own_name);
	cr_assert_eq(r.status, 0, "%s", r.err);
	at(r.out, "==> file /slow4: ");
	cr_assert_eq(unlink(beside), 0);
	r = REPORT("show", "--by", (char *)dump);
	cr_expect_eq(r.status, 2, "run.json alone is no by document: %s", r.out);
	cr_expect_not_null(strstr(r.err, "run.json"), "%s", r.err);
	cr_expect_not_null(strstr(r.err, "and there is no "), "where it looked: %s", r.err);
	cr_expect_not_null(strstr(r.err, "run.by.json beside it"), "%s", r.err);
}

/* Operation @op's count in the table of by value @v. */
static uint64_t table_count(json_object *v, const char *op)
{
	json_object *ops = json_object_object_get(json_object_object_get(v, "table"), "ops");

	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		json_object *o = json_object_array_get_idx(ops, i);

		if (strcmp(json_object_get_string(json_object_object_get(o, "name")), op) == 0)
			return json_object_get_uint64(json_object_object_get(o, "count"));
	}
	return 0;
}

Test(by, format_json_has_the_values_in_order)
{
	struct run r = REPORT("show", "--by", "--format", "json", m.dir);
	json_object *doc, *in, *vals, *v[3];

	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc, "%s", r.out);
	in = json_object_array_get_idx(json_object_object_get(doc, "inputs"), 0);
	cr_assert_not_null(in);
	cr_expect_str_eq(json_object_get_string(json_object_object_get(in, "key")), "file");
	/* The two files, and the root (the lookups of their names). */
	vals = json_object_object_get(in, "values");
	cr_assert_eq(json_object_array_length(vals), 3, "%s", r.out);
	cr_expect_eq(json_object_get_uint64(json_object_object_get(in, "value_count")), 3);
	for (size_t i = 0; i < 3; i++)
		v[i] = json_object_array_get_idx(vals, i);
	/* Most total time first: 6 reads of 20 ms, 2 of 5 ms, lookups. */
	cr_expect_str_eq(json_object_get_string(json_object_object_get(v[0], "value")), "/slow4");
	cr_expect_str_eq(json_object_get_string(json_object_object_get(v[1], "value")), "/slow");
	cr_expect_str_eq(json_object_get_string(json_object_object_get(v[2], "value")), "/");
	for (size_t i = 1; i < 3; i++)
		cr_expect_geq(json_object_get_uint64(json_object_object_get(v[i - 1], "total_ns")),
			      json_object_get_uint64(json_object_object_get(v[i], "total_ns")));
	cr_expect_eq(table_count(v[0], "read"), 6);
	cr_expect_eq(table_count(v[1], "read"), 2);
	cr_expect_eq(table_count(v[2], "read"), 0);
	cr_expect_eq(json_object_get_uint64(json_object_object_get(in, "folded_requests")), 0);
	cr_expect_not_null(json_object_object_get(in, "other"));
	json_object_put(doc);
}

/* Each hostile document: exit status 2, one line on stderr, nothing out. */
Test(by, hostile_documents_give_one_error_line_and_status_2)
{
	static const char *const docs[] = {
		"",
		"{",
		"[]",
		"{\"format\": \"osprof\", \"version\": 1}",
		"{\"format\": \"osprof-by\", \"version\": 2, \"key\": \"pid\"}",
		"{\"format\": \"osprof-by\", \"version\": -1}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": 7}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": {}}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": [7]}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": "
		"[{\"value\": \"a\\u0000b\", \"profile\": {}}], \"other\": {}}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": "
		"[{\"value\": \"x\\n\\u001b[31m\", \"profile\": {\"format\": \"osprof\", \"version\": 1, "
		"\"layer\": \"fs\", \"resolution\": 1, \"ops\": [{\"name\": \"read\", \"count\": 1, "
		"\"sum\": 5, \"min\": 5, \"max\": 5, \"buckets\": [[99999, 1]]}]}}], \"other\": {}}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": [], "
		"\"other\": {\"profile\": 3}}",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": []} x",
		"{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"pid\", \"values\": [], "
		"\"max_values\": 1e999}",
	};

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		const char *file = tpath("bad%zu.json", i);
		struct run r;
		const char *nl;

		spit(file, docs[i], strlen(docs[i]));
		r = REPORT("show", "--by", (char *)file);
		cr_expect_eq(r.status, 2, "doc %zu: status %d", i, r.status);
		cr_expect_eq(r.outlen, 0, "doc %zu: %s", i, r.out);
		nl = strchr(r.err, '\n');
		cr_expect(nl && nl[1] == '\0', "doc %zu: one line: %s", i, r.err);
		cr_expect_eq(strncmp(r.err, "osprof-report: ", 15), 0, "doc %zu: %s", i, r.err);
		cr_expect_null(strchr(r.err, '\x1b'), "doc %zu: escaped", i);
	}
}
