// SPDX-License-Identifier: MIT
/*
 * Tests of osprof-randread: its latency histogram (bucket bounds and
 * percentiles), its offset generator (deterministic per seed, in range), and
 * the built program on a temporary file: the operation count it reports,
 * O_DIRECT reads of a 4096-aligned size, and the one-line errors for a
 * missing file, a file smaller than a read, bad numbers and an O_DIRECT size
 * that is not a multiple of 512.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_helpers.h"
#include "orr.h"

/* ---- histogram ---- */

Test(randread_lat, small_values_have_exact_buckets)
{
	for (uint64_t v = 0; v < ORR_LAT_SUB; v++) {
		cr_expect_eq(orr_lat_bucket(v), v);
		cr_expect_eq(orr_lat_bucket_max((unsigned)v), v);
	}
}

Test(randread_lat, every_value_lies_within_its_bucket_and_within_1_in_32)
{
	static const uint64_t probes[] = { 32, 33, 63, 64, 65, 1000, 1023, 1024,
		1025, 123456789, (1ULL << 40) - 1, 1ULL << 40, UINT64_MAX };

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		uint64_t v = probes[i];
		unsigned b = orr_lat_bucket(v);
		cr_assert_lt(b, ORR_LAT_BUCKETS);
		cr_expect_geq(orr_lat_bucket_max(b), v, "%" PRIu64, v);
		cr_expect_lt(orr_lat_bucket_max(b - 1), v, "%" PRIu64, v);
		/* The bucket is at most 1/32 of its lower bound wide. */
		cr_expect_leq((double)(orr_lat_bucket_max(b) - orr_lat_bucket_max(b - 1)),
			      (double)orr_lat_bucket_max(b - 1) / 32.0 + 1.0);
	}
	cr_expect_eq(orr_lat_bucket(UINT64_MAX), ORR_LAT_BUCKETS - 1);
	cr_expect_eq(orr_lat_bucket_max(ORR_LAT_BUCKETS - 1), UINT64_MAX);
}

Test(randread_lat, percentiles_of_a_known_distribution)
{
	static struct orr_lat h, other;

	orr_lat_init(&h);
	orr_lat_init(&other);
	/* 1..1000 ns split over two histograms, merged. */
	for (uint64_t v = 1; v <= 1000; v++)
		orr_lat_record(v % 2 ? &h : &other, v);
	orr_lat_merge(&h, &other);
	cr_expect_eq(h.count, 1000);
	cr_expect_eq(h.min_ns, 1);
	cr_expect_eq(h.max_ns, 1000);
	cr_expect_eq(h.sum_ns, 500500);
	/* The 500th value is 500: its bucket (496..503) reports 503. */
	cr_expect_eq(orr_lat_percentile(&h, 50), 503);
	cr_expect_eq(orr_lat_percentile(&h, 90), 911); /* 900 is in 896..911 */
	cr_expect_eq(orr_lat_percentile(&h, 100), 1000); /* clipped to max */
	cr_expect_eq(orr_lat_percentile(&h, 0.01), 1);
}

Test(randread_lat, empty_histogram_has_zero_percentiles)
{
	static struct orr_lat h;

	orr_lat_init(&h);
	cr_expect_eq(orr_lat_percentile(&h, 50), 0);
}

/* ---- offsets ---- */

Test(randread_rng, same_seed_same_offsets_other_seed_others)
{
	struct orr_rng a, b, c;
	int same = 0;

	orr_rng_seed(&a, 42);
	orr_rng_seed(&b, 42);
	orr_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = orr_rng_below(&a, 1000003), y = orr_rng_below(&b, 1000003);
		cr_assert_eq(x, y);
		same += x == orr_rng_below(&c, 1000003);
	}
	cr_expect_lt(same, 5);
}

Test(randread_rng, splitmix64_reference_values)
{
	/* splitmix64 from state 0: the published first outputs. */
	struct orr_rng r;

	orr_rng_seed(&r, 0);
	cr_expect_eq(orr_rng_next(&r), 0xe220a8397b1dcdafULL);
	cr_expect_eq(orr_rng_next(&r), 0x6e789e6aa1b965f4ULL);
}

Test(randread_rng, below_stays_in_range_and_covers_it)
{
	struct orr_rng r;
	int seen[10] = { 0 };

	orr_rng_seed(&r, 7);
	for (int i = 0; i < 10000; i++) {
		uint64_t v = orr_rng_below(&r, 10);
		cr_assert_lt(v, 10);
		seen[v]++;
	}
	for (int i = 0; i < 10; i++)
		cr_expect(seen[i] > 800 && seen[i] < 1200, "%d: %d", i, seen[i]);
	for (int i = 0; i < 100; i++)
		cr_expect_eq(orr_rng_below(&r, 1), 0);
}

/* ---- the program ---- */

static char *tmp, *file;

static void make_file(void)
{
	char block[4096];

	tmp = bt_tmpdir();
	file = bt_path(tmp, "data");
	FILE *f = fopen(file, "w");
	cr_assert_not_null(f);
	for (int i = 0; i < 256; i++) { /* 1 MiB */
		memset(block, 'a' + i % 26, sizeof(block));
		cr_assert_eq(fwrite(block, 1, sizeof(block), f), sizeof(block));
	}
	cr_assert_eq(fclose(f), 0);
}

static void remove_file(void)
{
	bt_rmtree(tmp);
	free(tmp);
	free(file);
}

TestSuite(randread, .init = make_file, .fini = remove_file, .timeout = 60);

#define RANDREAD(...) bt_run_program("OSPROF_RANDREAD", \
				      (const char *const[]){ __VA_ARGS__, NULL })

static uint64_t operations(const char *out)
{
	const char *p = strstr(out, "\noperations: ");

	cr_assert_not_null(p, "no operation count in:\n%s", out);
	return strtoull(p + 13, NULL, 10);
}

Test(randread, reports_the_operations_it_did)
{
	struct bt_result r = RANDREAD(file, "--ops", "1000", "--procs", "3");

	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_expect_eq(operations(r.out), 3000, "%s", r.out);
	cr_expect(strstr(r.out, "3 processes, 512-byte reads"), "%s", r.out);
	cr_expect(strstr(r.out, "throughput: "), "%s", r.out);
	cr_expect(strstr(r.out, "latency: p50 "), "%s", r.out);
	cr_expect(strstr(r.out, ", p99.9 "), "%s", r.out);
	bt_result_free(&r);
}

Test(randread, runs_for_the_seconds_asked)
{
	struct bt_result r = RANDREAD(file, "--seconds", "0.2", "--procs", "1");

	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_expect_gt(operations(r.out), 10, "%s", r.out);
	const char *e = strstr(r.out, "elapsed: ");
	cr_assert_not_null(e);
	double secs = strtod(e + 9, NULL);
	cr_expect(secs >= 0.2 && secs < 1.0, "elapsed %f", secs);
	bt_result_free(&r);
}

Test(randread, direct_io_reads_a_4096_aligned_size)
{
	int fd = open(file, O_RDONLY | O_DIRECT);

	if (fd < 0 && errno == EINVAL)
		cr_skip_test("the test directory's file system has no O_DIRECT");
	if (fd >= 0)
		close(fd);
	struct bt_result r = RANDREAD(file, "--direct", "--size", "4k", "--ops",
				      "200", "--procs", "2", "--seed", "9");
	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_expect_eq(operations(r.out), 400, "%s", r.out);
	cr_expect(strstr(r.out, "4096-byte reads"), "%s", r.out);
	cr_expect(strstr(r.out, "O_DIRECT"), "%s", r.out);
	bt_result_free(&r);
}

/* Arrays, not pointers: Criterion copies parameters into a new process. */
struct bad_case {
	char args[5][32];	/* "FILE" is replaced by the test file */
	char message[80];
};

ParameterizedTestParameters(randread, bad_input_gives_a_one_line_error)
{
	static struct bad_case cases[] = {
		{ { "/nonexistent/file" }, "/nonexistent/file: No such file or directory" },
		{ { "FILE", "--size", "2m" }, "smaller than --size 2097152" },
		{ { "FILE", "--procs", "0" }, "--procs: '0' is out of range" },
		{ { "FILE", "--procs", "two" }, "--procs: 'two' is not a whole number" },
		{ { "FILE", "--size", "4kb" }, "--size: '4kb' is not a whole number" },
		{ { "FILE", "--seconds", "-1" }, "--seconds: '-1' is not a number" },
		{ { "FILE", "--ops", "5", "--seconds", "1" }, "not both" },
		{ { "FILE", "--direct", "--size", "1000" },
		  "--direct: --size 1000 is not a multiple of 512 bytes" },
		{ { "--ops", "5" }, "no FILE given" },
		{ { "FILE", "FILE" }, "one FILE only" },
		{ { "/" }, "/: not a regular file or a block device" },
	};
	return cr_make_param_array(struct bad_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, randread, bad_input_gives_a_one_line_error)
{
	const char *argv[8] = { bt_program("OSPROF_RANDREAD") };

	for (int i = 0; i < 5 && c->args[i][0]; i++)
		argv[i + 1] = strcmp(c->args[i], "FILE") == 0 ? file : c->args[i];
	struct bt_result r = bt_run(argv);
	cr_expect_eq(r.code, 2, "exit %d:\n%s", r.code, r.out);
	cr_expect(strstr(r.out, c->message), "expected '%s' in:\n%s", c->message,
		  r.out);
	/* One line, naming the program. */
	cr_expect(strncmp(r.out, "osprof-randread: ", 17) == 0, "%s", r.out);
	cr_expect_eq(strchr(r.out, '\n'), r.out + strlen(r.out) - 1, "%s", r.out);
	bt_result_free(&r);
}
