// SPDX-License-Identifier: MIT
/*
 * Profiles per key value (-o by=KEY) on a real mount: two processes with
 * their own pid, name and uid read their own file in their own top-level
 * directory a known number of times (cache=never: every read reaches the
 * daemon; the noopen variant reads with O_DIRECT for that), and each
 * key's values count exactly their reads; with by_max
 * too small the later values' requests are all in `other` and counted as
 * folded; reset empties every value; a hostile process name comes out
 * escaped in the text and as valid JSON; --dump writes FILE.by.json.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define UID_A 65534
#define UID_B 65533
#define READS_A 5
#define READS_B 7
#define READS_C 3

static struct mnt m;

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(by, .fini = down, .timeout = 120);

/* lower/DIR/FILE of 64 KiB, readable by all. */
static void make_file(const char *dir, const char *file)
{
	char p[PATH_MAX];

	mkdir(h_path(p, m.lower, dir), 0755);
	cr_assert_eq(h_sh("dd if=/dev/zero of='%s/%s/%s' bs=64k count=1 status=none && chmod 644 '%s/%s/%s'",
			  m.lower, dir, file, m.lower, dir, file), 0);
}

/* Mount with -o allow_other,by=KEY[,EXTRA] over d1/f1, d2/f2, d3/f3. */
static void start(const char *key, const char *extra)
{
	char opts[256];
	const char *args[] = { "-o", opts, NULL };

	h_tree(&m);
	make_file("d1", "f1");
	make_file("d2", "f2");
	make_file("d3", "f3");
	snprintf(opts, sizeof(opts), "allow_other,by=%s%s%s", key, extra ? "," : "", extra ? extra : "");
	h_start(&m, args);
}

/*
 * The operation each of the readers' steps sends: a read; under
 * passthrough reads never reach the daemon, so each step opens the file
 * anew and the opens are counted instead.
 */
#define RD (h_passthrough() ? "open" : "read")

/* @n reads of 4 KiB of @rel in the mount, as process @name (under
 * passthrough, each from an open of its own). 0 or errno. */
static int reads(const char *rel, const char *name, int n)
{
	char buf[4096];
	int fd;

	prctl(PR_SET_NAME, name);
	if (h_passthrough()) {
		for (int i = 0; i < n; i++) {
			fd = open(h_at(m.dir, rel), O_RDONLY);
			if (fd < 0)
				return errno;
			if (pread(fd, buf, sizeof(buf), (off_t)i * 4096) != (ssize_t)sizeof(buf)) {
				close(fd);
				return 99;
			}
			close(fd);
		}
		return 0;
	}
	/*
	 * -o noopen keeps the page cache, which would read ahead: O_DIRECT
	 * sends each pread as one read there, as cache=never does.
	 */
	fd = open(h_at(m.dir, rel), O_RDONLY | (h_noopen() ? O_DIRECT : 0));
	if (fd < 0)
		return errno;
	for (int i = 0; i < n; i++)
		if (pread(fd, buf, sizeof(buf), (off_t)i * 4096) != (ssize_t)sizeof(buf)) {
			close(fd);
			return 99;
		}
	close(fd);
	return 0;
}

static int reader_a(void) { return reads("d1/f1", "by_reader_a", READS_A); }
static int reader_b(void) { return reads("d2/f2", "by_reader_b", READS_B); }
static int reader_c(void) { return reads("d3/f3", "by_reader_c", READS_C); }
static int reader_evil(void) { return reads("d1/f1", "ev\"il\nna\x1bme", READS_A); }

/* The two processes, one after the other. */
static void run_ab(void)
{
	cr_assert_eq(h_as(UID_A, UID_A, NULL, 0, reader_a), 0);
	cr_assert_eq(h_as(UID_B, UID_B, NULL, 0, reader_b), 0);
}

/* .osprof/by.json parsed (the caller puts it). */
static json_object *by_json(void)
{
	char p[PATH_MAX + 64];
	size_t len;
	char *text;
	json_object *o;

	snprintf(p, sizeof(p), "%s/by.json", m.ctl);
	text = h_slurp(p, &len);
	cr_assert_not_null(text, "%s: %s", p, strerror(errno));
	o = json_tokener_parse(text);
	cr_assert_not_null(o, "by.json is JSON: %s", text);
	free(text);
	return o;
}

static uint64_t member_u64(json_object *o, const char *key)
{
	json_object *v;

	cr_assert(json_object_object_get_ex(o, key, &v), "member %s", key);
	return json_object_get_uint64(v);
}

/* Count of operation @op in a value object's profile. */
static uint64_t op_count(json_object *val, const char *op)
{
	json_object *p, *ops;

	cr_assert(json_object_object_get_ex(val, "profile", &p));
	cr_assert(json_object_object_get_ex(p, "ops", &ops));
	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		json_object *o = json_object_array_get_idx(ops, i), *name;

		json_object_object_get_ex(o, "name", &name);
		if (strcmp(json_object_get_string(name), op) == 0)
			return member_u64(o, "count");
	}
	return 0;
}

/* The value whose @field ("value" or "label") is @s; fails when none. */
static json_object *find_value(json_object *doc, const char *field, const char *s)
{
	json_object *vals, *f;

	cr_assert(json_object_object_get_ex(doc, "values", &vals));
	for (size_t i = 0; i < json_object_array_length(vals); i++) {
		json_object *v = json_object_array_get_idx(vals, i);

		if (json_object_object_get_ex(v, field, &f) &&
		    strcmp(json_object_get_string(f), s) == 0)
			return v;
	}
	cr_assert_fail("no value with %s %s", field, s);
	return NULL;
}

/* Mount by @key, run A and B, expect their reads under the values named. */
static void expect_ab(const char *key, const char *field, const char *a, const char *b)
{
	json_object *doc;

	start(key, NULL);
	run_ab();
	doc = by_json();
	cr_expect_eq(op_count(find_value(doc, field, a), RD), READS_A, "by=%s %s", key, a);
	cr_expect_eq(op_count(find_value(doc, field, b), RD), READS_B, "by=%s %s", key, b);
	cr_expect_eq(member_u64(doc, "folded_requests"), 0);
	json_object_put(doc);
	cr_expect_eq(h_stop(&m), 0);
}

Test(by, pid_counts_each_process_reads)
{
	/* The value is the pid; its label the process name. */
	expect_ab("pid", "label", "by_reader_a", "by_reader_b");
}

Test(by, comm_counts_each_process_name_reads)
{
	expect_ab("comm", "value", "by_reader_a", "by_reader_b");
}

Test(by, uid_counts_each_user_reads)
{
	expect_ab("uid", "value", "65534", "65533");
}

Test(by, dir_counts_each_top_level_directory_reads)
{
	expect_ab("dir", "value", "/d1", "/d2");
}

Test(by, file_counts_each_file_reads)
{
	expect_ab("file", "value", "/d1/f1", "/d2/f2");
}

Test(by, values_past_by_max_fold_into_other_counted)
{
	json_object *doc, *other;

	/* "/" (the lookups of d1, d2, d3) and /d1 take the two values. */
	start("dir", "by_max=2");
	run_ab();
	cr_assert_eq(h_as(UID_A, UID_A, NULL, 0, reader_c), 0);
	doc = by_json();
	cr_expect_eq(json_object_array_length(json_object_object_get(doc, "values")), 2);
	cr_expect_eq(op_count(find_value(doc, "value", "/d1"), RD), READS_A);
	find_value(doc, "value", "/");
	other = json_object_object_get(doc, "other");
	cr_assert_not_null(other);
	cr_expect_eq(op_count(other, RD), READS_B + READS_C);
	cr_expect_eq(member_u64(other, "requests"), member_u64(doc, "folded_requests"));
	cr_expect_gt(member_u64(doc, "folded_requests"), READS_B + READS_C);
	cr_expect_eq(member_u64(doc, "refused_values"), 2, "d2 and d3");
	json_object_put(doc);

	/* reset: every value's profile and other's empty, the values kept
	 * (once the releases are in: over io_uring one may come later). */
	osp_profile_free(h_profile_released(&m));
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "reset\n"), 0);
	doc = by_json();
	cr_expect_eq(json_object_array_length(json_object_object_get(doc, "values")), 2);
	cr_expect_eq(op_count(find_value(doc, "value", "/d1"), RD), 0);
	cr_expect_eq(member_u64(doc, "folded_requests"), 0);
	json_object_put(doc);
	cr_expect_eq(h_stop(&m), 0);
}

Test(by, hostile_process_name_is_escaped_in_text_and_valid_json)
{
	char p[PATH_MAX + 64], *text;
	json_object *doc;

	start("comm", NULL);
	cr_assert_eq(h_as(UID_A, UID_A, NULL, 0, reader_evil), 0);
	doc = by_json();
	cr_expect_eq(op_count(find_value(doc, "value", "ev\"il\nna\x1bme"), RD), READS_A);
	json_object_put(doc);
	snprintf(p, sizeof(p), "%s/by", m.ctl);
	text = h_slurp(p, NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "==> comm ev\"il\\nna\\x1bme: "), "%s", text);
	cr_expect_null(strchr(text, '\x1b'), "no raw escape byte");
	free(text);
	cr_expect_eq(h_stop(&m), 0);
}

Test(by, files_absent_without_by_and_dump_writes_by_json_beside)
{
	char dump[PATH_MAX + 32], opt[PATH_MAX + 64], p[PATH_MAX + 64];
	const char *args[] = { "-o", opt, NULL };
	json_object *doc;
	char *text;

	h_tree(&m);
	h_start(&m, NULL);
	cr_expect_neq(access(h_at(m.ctl, "by"), F_OK), 0, "no .osprof/by without -o by");
	cr_expect_neq(access(h_at(m.ctl, "by.json"), F_OK), 0);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "\nby none\nby_max 64\n"), "%s", text);
	free(text);
	cr_expect_eq(h_stop(&m), 0);

	make_file("d1", "f1");
	snprintf(dump, sizeof(dump), "%s/run.json", m.top);
	snprintf(opt, sizeof(opt), "allow_other,by=uid,dump=%s", dump);
	h_start(&m, args);
	cr_assert_eq(h_as(UID_A, UID_A, NULL, 0, reader_a), 0);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "\nby uid\nby_max 64\n"), "%s", text);
	free(text);
	cr_expect_eq(h_stop(&m), 0);
	snprintf(p, sizeof(p), "%s/run.by.json", m.top);
	text = h_slurp(p, NULL);
	cr_assert_not_null(text, "%s written at unmount", p);
	doc = json_tokener_parse(text);
	cr_assert_not_null(doc);
	cr_expect_eq(op_count(find_value(doc, "value", "65534"), RD), READS_A);
	json_object_put(doc);
	free(text);
}

/* The sum of operation @op's counts over the snapshots of @val's timeline;
 * *@nsnaps the snapshots. */
static uint64_t timeline_count(json_object *val, const char *op, size_t *nsnaps)
{
	json_object *p, *tl, *snaps;
	uint64_t n = 0;

	cr_assert(json_object_object_get_ex(val, "profile", &p));
	cr_assert(json_object_object_get_ex(p, "timeline", &tl), "the value has a timeline");
	cr_assert(json_object_object_get_ex(tl, "snapshots", &snaps));
	*nsnaps = json_object_array_length(snaps);
	for (size_t s = 0; s < *nsnaps; s++) {
		json_object *snap = json_object_array_get_idx(snaps, s), *ops;

		cr_assert(json_object_object_get_ex(snap, "ops", &ops));
		for (size_t i = 0; i < json_object_array_length(ops); i++) {
			json_object *o = json_object_array_get_idx(ops, i), *name;

			json_object_object_get_ex(o, "name", &name);
			if (strcmp(json_object_get_string(name), op) == 0)
				n += member_u64(o, "count");
		}
	}
	return n;
}

Test(by, the_timeline_covers_every_value)
{
	json_object *doc;
	size_t na, nb;

	/* Snapshots every 10 ms while A reads, a pause, then B. */
	start("pid", "timeline=10");
	cr_assert_eq(h_as(UID_A, UID_A, NULL, 0, reader_a), 0);
	usleep(50000);
	cr_assert_eq(h_as(UID_B, UID_B, NULL, 0, reader_b), 0);
	usleep(30000);
	doc = by_json();
	/* Each value's snapshots add up to its own reads, exactly. */
	cr_expect_eq(timeline_count(find_value(doc, "label", "by_reader_a"), RD, &na), READS_A);
	cr_expect_eq(timeline_count(find_value(doc, "label", "by_reader_b"), RD, &nb), READS_B);
	cr_expect_geq(na, 3, "ticks every 10 ms over 80 ms or more: %zu", na);
	cr_expect_geq(nb, 3, "%zu", nb);
	json_object_put(doc);
	/* ctl turns it off for the values as for the totals. */
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "timeline off\n"), 0);
	doc = by_json();
	cr_expect_not(json_object_object_get_ex(json_object_object_get(find_value(doc, "label", "by_reader_a"),
								       "profile"),
						"timeline", NULL));
	json_object_put(doc);
	cr_expect_eq(h_stop(&m), 0);
}
