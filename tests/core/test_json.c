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
		{ "{\"format\": \"osprof\", /* c */ \"version\": 1}", "invalid JSON" },
		{ "{\"format\": \"osprof\", \"version\": 1, \"resolution\": 1, \"layer\": \"f\xff\", \"ops\": []}", "invalid JSON" },
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
