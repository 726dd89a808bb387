// SPDX-License-Identifier: MIT
/*
 * The JSON reader against the writer: exact round trips, and malformed,
 * truncated and out-of-range input rejected with a message naming it.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <unistd.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/format.h"
#include "fixture.h"

static char *to_json(const struct osp_profile *p, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert_eq(osp_write_json(f, p), 0);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

Test(json, round_trip_is_exact)
{
	struct osp_profile *p = fixture_profile(2), *q;
	char err[256] = "", *a, *b;
	size_t len;

	a = to_json(p, &len);
	q = osp_read_json(a, len, err, sizeof(err));
	cr_assert_not_null(q, "%s", err);
	b = to_json(q, NULL);
	cr_expect_str_eq(a, b);
	cr_expect_str_eq(q->layer, "fs");
	cr_expect_str_eq(q->host, "testhost");
	cr_expect_eq(q->res, 2);
	cr_expect_eq(q->nops, 3);
	cr_expect_eq(q->ops[0].lat.count, 1010);
	cr_expect_eq(q->ops[0].lat.max, 3000000);
	cr_expect(q->ops[0].has_cpu);
	cr_expect_eq(q->ops[0].cpu.sum, 1000 * 300 + 10 * 500);
	cr_expect_not(q->ops[1].has_cpu);
	cr_expect_eq(q->ops[1].ncounters, 1);
	cr_expect_eq(q->ops[1].counters[0].value, 123456789012ull);
	cr_expect_str_eq(osp_kv_get(&q->ops[1].attrs, "pmc"), "\"unavailable\"");
	cr_expect_str_eq(osp_kv_get(&q->source, "mount"), "\"/mnt/p \\\"quoted\\\"\"");
	cr_expect_eq(q->nsnaps, 2);
	cr_expect_eq(q->tl_dropped, 1);
	cr_expect_eq(q->snaps[1].nops, 0);
	cr_expect_eq(osp_profile_check(q, NULL), 0);
	free(a);
	free(b);
	osp_profile_free(p);
	osp_profile_free(q);
}

Test(json, strange_bytes_in_names_stay_valid_json)
{
	struct osp_profile *p = osp_profile_new("fs", 1), *q;
	char err[256], *a;
	size_t len;

	osp_str_set(&p->host, "h\x01\xff\xc3\xa9\"\\");
	osp_profile_add_op(p, "op\tname", false);
	a = to_json(p, &len);
	q = osp_read_json(a, len, err, sizeof(err));
	cr_assert_not_null(q, "%s\n%s", err, a);
	cr_expect_str_eq(q->ops[0].name, "op\tname");
	/* Invalid UTF-8 (0xff) comes back as U+00FF; valid é is kept. */
	cr_expect_str_eq(q->host, "h\x01\xc3\xbf\xc3\xa9\"\\");
	free(a);
	osp_profile_free(p);
	osp_profile_free(q);
}

Test(json, every_truncation_is_rejected)
{
	struct osp_profile *p = fixture_profile(1);
	size_t len;
	char *a = to_json(p, &len);

	for (size_t n = 0; n + 1 < len; n++) {
		char err[256] = "";
		struct osp_profile *q = osp_read_json(a, n, err, sizeof(err));

		cr_expect_null(q, "a %zu-byte prefix was accepted", n);
		osp_profile_free(q);
		cr_expect_neq(err[0], '\0', "prefix %zu: no message", n);
		if (q)
			break;
	}
	free(a);
	osp_profile_free(p);
}

struct bad_doc {
	const char *json;
	const char *msg; /* expected substring of the error */
};

static const struct bad_doc docs[] = {
		{ "", "truncated" },
		{ "[]", "must be a JSON object" },
		{ "{\"format\": \"osprof\"", "truncated" },
		{ "{} x", "invalid JSON at byte 3" },
		{ "{}\n\n", "not an osprof profile" },
		{ "{\"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": []}", "not an osprof profile" },
		{ "{\"format\": \"osprof\", \"version\": 2, \"resolution\": 1, \"layer\": \"fs\", \"ops\": []}", "newer than this reader" },
		{ "{\"format\": \"osprof\", \"version\": 0, \"resolution\": 1, \"layer\": \"fs\", \"ops\": []}", "not a valid version" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 3, \"layer\": \"fs\", \"ops\": []}", "resolution: 3 is not one of" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"ops\": []}", "resolution: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"ops\": []}", "layer: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\"}", "ops: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": 7, \"ops\": []}", "layer: must be a string" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"count\": 1, \"buckets\": []}]}", "ops[0].name: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": -1, \"buckets\": []}]}", "ops[0].count: must not be negative" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 1.5, \"buckets\": []}]}", "ops[0].count: must be an unsigned integer" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 1}]}", "ops[0].buckets: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 1, \"buckets\": [[65, 1]]}]}", "ops[0].buckets[0]: index 65 out of range for resolution 1 (0..64)" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 2, \"buckets\": [[5, 1], [5, 1]]}]}", "ops[0].buckets[1]: indices must ascend" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 1, \"buckets\": [[5]]}]}", "ops[0].buckets[0]: must be an [index, count] pair" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"buckets\": []}, {\"name\": \"r\", \"buckets\": []}]}", "ops[1]: duplicate operation name \"r\"" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"buckets\": [], \"cpu\": {\"count\": 1}}]}", "ops[0].cpu.buckets: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"timeline\": {\"interval_ns\": 5}}", "timeline.snapshots: missing" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"timeline\": {\"snapshots\": [{\"t_ns\": 1, \"ops\": [{\"name\": \"r\", \"buckets\": [[1, \"x\"]]}]}]}}", "timeline.snapshots[0].ops[0].buckets[0]: must be an unsigned integer" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"source\": []}", "source: must be an object" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": \"x\"}}", "clock.cycles_per_ns: must be a number" },
		/* Found by fuzz/fuzz_json.c: read as an empty name, written, then refused. */
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"\\u0000r\", \"buckets\": []}]}", "ops[0].name: holds a NUL character (\\u0000)" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"f\\u0000s\", \"ops\": []}", "layer: holds a NUL character (\\u0000)" },
		/* Found with fuzz/fuzz_json.c's round trip: the writer wrote inf, not JSON. */
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": 1e999}}", "clock.cycles_per_ns: inf is not a positive finite rate" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": -Infinity}}", "invalid JSON" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": -1}}", "clock.cycles_per_ns: -1 is not a positive finite rate" },
		{ "{\"format\": \"osprof\", /* c */ \"version\": 1}", "invalid JSON" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"f\xff\", \"ops\": []}", "invalid JSON" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 2, \"min\": 9, \"max\": 5, \"buckets\": [[4, 2]]}]}", "ops[0].min: 9 is greater than max (5)" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"buckets\": [], \"cpu\": {\"count\": 1, \"min\": 7, \"max\": 6, \"buckets\": [[3, 1]]}}]}", "ops[0].cpu.min: 7 is greater than max (6)" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 0, \"sum\": 5, \"buckets\": []}]}", "ops[0].count: is 0 but sum, min or max is not" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 18446744073709551616, \"buckets\": []}]}", "ops[0].count: too large" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 3, \"buckets\": [[1, 18446744073709551615], [2, 1]]}]}", "ops[0].buckets[1]: the buckets add up to more than 2^64 - 1" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 9223372036854775808, \"min\": 1, \"max\": 1, \"buckets\": [[1, 1]]}, {\"name\": \"w\", \"count\": 9223372036854775808, \"min\": 1, \"max\": 1, \"buckets\": [[1, 1]]}]}", "ops[1]: count: the operations' counts add up to more than 2^64 - 1" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"count\": 1, \"buckets\": [[-1, 1]]}]}", "ops[0].buckets[0]: must not be negative" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": 0}}", "clock.cycles_per_ns: 0 is not a positive finite rate" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": -2.5}}", "clock.cycles_per_ns: -2.5 is not a positive finite rate" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": 1e400}}", "clock.cycles_per_ns: inf is not a positive finite rate" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"cycles_per_ns\": 1e-400}}", "clock.cycles_per_ns: 0 is not a positive finite rate" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"re\\u0000ad\", \"buckets\": []}]}", "ops[0].name: holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"f\\u0000s\", \"ops\": []}", "layer: holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"host\": \"h\\u0000\"}", "host: holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"unit\": \"ns\\u0000\"}", "unit: holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"clock\": {\"source\": \"tsc\\u0000\"}}", "clock.source: holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"source\": {\"mount\": \"/m\\u0000nt\"}}", "source: a key or string holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"options\": {\"ca\\u0000che\": 1}}", "options: a key or string holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"op\\u0000s\": 1}", "key \"op\\u0000s\" holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"buckets\": [], \"counters\": {\"in\\u0000sns\": 1}}]}", "ops[0].counters: key \"in\\u0000sns\" holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"buckets\": [], \"pmc\": \"a\\u0000\"}]}", "ops[0]: a key or string holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [{\"name\": \"r\", \"buckets\": [], \"p\\u0000mc\": 1}]}", "ops[0]: key \"p\\u0000mc\" holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"timeline\": {\"snapshots\": [{\"t_ns\": 1, \"ops\": [{\"name\": \"\\u0000\", \"buckets\": []}]}]}}", "timeline.snapshots[0].ops[0].name: holds a NUL character" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"timeline\": {\"snapshots\": [{\"t_ns\": 10, \"ops\": []}, {\"t_ns\": 5, \"ops\": []}]}}", "timeline.snapshots[1]: t_ns: 5 is before the previous snapshot's 10" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"x\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", "nested too deeply" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"x\": NaN}", "invalid JSON at byte" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [1,]}", "invalid JSON at byte" },
};

/* Criterion passes parameters to another process: pass indices, not pointers. */
ParameterizedTestParameters(json, malformed_is_rejected_with_a_reason)
{
	static int idx[sizeof(docs) / sizeof(docs[0])];

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++)
		idx[i] = (int)i;
	return cr_make_param_array(int, idx, sizeof(docs) / sizeof(docs[0]));
}

ParameterizedTest(int *i, json, malformed_is_rejected_with_a_reason)
{
	const struct bad_doc *d = &docs[*i];
	char err[256] = "";
	struct osp_profile *p = osp_read_json(d->json, strlen(d->json), err, sizeof(err));

	cr_expect_null(p, "accepted: %s", d->json);
	osp_profile_free(p);
	cr_expect_not_null(strstr(err, d->msg), "for %s\n  got: %s\n want: %s", d->json, err, d->msg);
}

Test(json, unknown_keys_are_ignored_and_minimal_profile_reads)
{
	const char *doc = "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 8, \"layer\": \"block\","
			  " \"future\": {\"x\": [1, 2]}, \"ops\": [{\"name\": \"vda.read\", \"count\": 3,"
			  " \"sum\": 30, \"min\": 5, \"max\": 15, \"buckets\": [[19, 1], [32, 2]]}]}";
	char err[256] = "";
	struct osp_profile *p = osp_read_json(doc, strlen(doc), err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_expect_str_eq(p->layer, "block");
	cr_expect_str_eq(p->unit, "ns");
	cr_expect_eq(p->res, 8);
	cr_expect_eq(p->ops[0].lat.nbk, 2);
	cr_expect_eq(osp_hist_bucket(&p->ops[0].lat, 32), 2);
	cr_expect_eq(osp_profile_check(p, NULL), 0);
	osp_profile_free(p);
}

Test(json, file_reader_names_the_file)
{
	char err[512];
	char path[] = "/tmp/osprof-json-XXXXXX";
	int fd = mkstemp(path);
	struct osp_profile *p;

	cr_assert_geq(fd, 0);
	p = osp_read_json_file(path, err, sizeof(err));
	cr_expect_null(p);
	cr_expect_not_null(strstr(err, "empty file"), "%s", err);
	cr_expect_not_null(strstr(err, path));
	cr_assert_eq(write(fd, "{\"format\": 1}", 13), 13);
	close(fd);
	p = osp_read_json_file(path, err, sizeof(err));
	cr_expect_null(p);
	cr_expect_not_null(strstr(err, "not an osprof profile"), "%s", err);
	unlink(path);
	p = osp_read_json_file(path, err, sizeof(err));
	cr_expect_null(p);
	cr_expect_not_null(strstr(err, "No such file"), "%s", err);
}

/* /dev/zero or a runaway file as a profile: refused before it is read. */
Test(json, a_file_over_the_read_bound_is_refused_unread)
{
	char err[512], *buf = (char *)1;
	char path[] = "/tmp/osprof-json-XXXXXX";
	int fd = mkstemp(path);
	size_t len = 1;
	FILE *f;

	cr_assert_geq(fd, 0);
	/* Sparse: no disk, and the reader must not allocate for it. */
	cr_assert_eq(ftruncate(fd, (off_t)OSP_READ_MAX_BYTES + 1), 0);
	f = fdopen(fd, "r");
	cr_assert_not_null(f);
	cr_expect_eq(osp_read_stream(f, &buf, &len), -EFBIG);
	cr_expect_null(buf);
	cr_expect_eq(len, 0);
	fclose(f);
	cr_expect_null(osp_read_json_file(path, err, sizeof(err)));
	cr_expect_not_null(strstr(err, "over 1 GiB"), "%s", err);
	cr_expect_not_null(strstr(err, path), "%s", err);
	unlink(path);
}

/* A profile of @n ops "op0".. with one bucket each at resolution @res. */
static char *many_ops(size_t n, unsigned res, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	cr_assert_not_null(f);
	fprintf(f, "{\"format\": \"osprof\", \"version\": 1, \"resolution\": %u, \"layer\": \"fs\", \"ops\": [", res);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s\n{\"name\": \"op%zu\", \"count\": 1, \"sum\": 9, \"min\": 9, \"max\": 9, \"buckets\": [[%zu, 1]]}",
			i ? "," : "", i, (i * 7) % (64 * res + 1));
	fputs("]}\n", f);
	fclose(f);
	return buf;
}

Test(json, many_ops_read_in_linear_time, .timeout = 30)
{
	size_t len;
	char err[256] = "", *doc = many_ops(200000, 1, &len);
	struct osp_profile *p = osp_read_json(doc, len, err, sizeof(err));

	/* Pairwise duplicate checks took minutes at this size. */
	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(p->nops, 200000);
	cr_expect_str_eq(p->ops[199999].name, "op199999");
	osp_profile_free(p);
	free(doc);
}

Test(json, a_one_bucket_op_costs_one_pair_at_any_resolution)
{
	size_t len, bytes = 0;
	char err[256] = "", *doc = many_ops(1000, 8, &len);
	struct osp_profile *p = osp_read_json(doc, len, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	for (size_t i = 0; i < p->nops; i++)
		bytes += osp_hist_bytes(&p->ops[i].lat);
	/* Dense, it was 513 counters (4 KiB) an op. */
	cr_expect_eq(bytes, p->nops * sizeof(struct osp_bucket));
	osp_profile_free(p);
	free(doc);
}

Test(json, a_value_json_c_would_blow_up_is_refused)
{
	size_t n = (1u << 20) + 100, len;
	char err[256] = "", *doc = NULL;
	FILE *f = open_memstream(&doc, &len);
	struct osp_profile *p;

	fputs("{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"fs\", \"ops\": [], \"source\": {\"x\": \"", f);
	for (size_t i = 0; i < n; i++)
		fputc('a', f);
	fputs("\"}}", f);
	fclose(f);
	p = osp_read_json(doc, len, err, sizeof(err));
	cr_expect_null(p);
	cr_expect_not_null(strstr(err, "source: over 1048576 bytes of JSON in one value"), "%s", err);
	osp_profile_free(p);
	free(doc);
}

Test(json, escaped_names_and_repeated_counters_read_as_json_c_would)
{
	const char *doc = "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"irq\", \"ops\": ["
			  "{\"name\": \"\\u0031\\u0032:timer\", \"buckets\": [], \"counters\": {\"i\": 1, \"i\": 2},"
			  " \"pmc\": \"a\", \"pmc\": \"b\"}]}";
	char err[256] = "";
	struct osp_profile *p = osp_read_json(doc, strlen(doc), err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_expect_str_eq(p->ops[0].name, "12:timer");
	cr_assert_eq(p->ops[0].ncounters, 1);
	cr_expect_eq(p->ops[0].counters[0].value, 2, "the last of a repeated key");
	cr_assert_eq(p->ops[0].attrs.n, 1);
	cr_expect_str_eq(osp_kv_get(&p->ops[0].attrs, "pmc"), "\"b\"");
	osp_profile_free(p);
}
