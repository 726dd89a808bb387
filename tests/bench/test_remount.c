// SPDX-License-Identifier: MIT
/*
 * Tests of osprof-bench --remount on a real FUSE mount served by bt-testfs,
 * whose one file holds the serving daemon's pid: every run must be served by
 * a new daemon, started from the command line read in /proc or from
 * --remount-cmd, and the mount must be back after the series. Skipped where
 * FUSE cannot be mounted (no /dev/fuse, no fusermount3). The mount is always
 * unmounted at the end, whatever happened.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_helpers.h"

static char *tmp, *mnt;

static void unmount_quietly(void)
{
	const char *argv[] = { "/bin/sh", "-c", "fusermount3 -u \"$0\" 2>/dev/null",
			       mnt, NULL };
	struct bt_result r = bt_run(argv);

	bt_result_free(&r);
}

static void fini(void)
{
	if (mnt)
		unmount_quietly();
	bt_rmtree(tmp);
	free(mnt);
	free(tmp);
}

static void init(void)
{
	tmp = bt_tmpdir();
	mnt = bt_path(tmp, "mnt");
	cr_assert_eq(mkdir(mnt, 0755), 0);
}

TestSuite(bench_remount, .init = init, .fini = fini, .timeout = 60);

/* Mount bt-testfs at mnt, or skip the test where FUSE is unavailable. */
static void mount_testfs(void)
{
	int fd = open("/dev/fuse", O_RDWR);

	if (fd < 0)
		cr_skip_test("no usable /dev/fuse");
	close(fd);
	if (system("command -v fusermount3 >/dev/null 2>&1") != 0)
		cr_skip_test("no fusermount3");
	const char *argv[] = { bt_program("OSPROF_TESTFS"), mnt, NULL };
	struct bt_result r = bt_run(argv);
	if (r.code != 0)
		cr_skip_test("cannot mount FUSE here: %s", r.out);
	bt_result_free(&r);
}

static char *served_by(void)
{
	char *pid = bt_path(mnt, "pid"), *got = bt_slurp(pid);

	free(pid);
	cr_assert_not_null(got, "the mount does not answer");
	return got;
}

/* Run 3 remounted runs, each appending the serving pid to a log. */
static char *three_runs(const char *remount_cmd)
{
	char *log = bt_path(tmp, "log"), *cfg, *json = bt_path(tmp, "out.json");
	const char *argv[16] = { bt_program("OSPROF_BENCH"), "-q", "-m", "3",
				 "-M", "3", "--json", json, "--remount", mnt };
	int n = 10;

	cr_assert_gt(asprintf(&cfg, "r=cat %s/pid >> %s", mnt, log), 0);
	if (remount_cmd) {
		argv[n++] = "--remount-cmd";
		argv[n++] = remount_cmd;
	}
	argv[n++] = "-c";
	argv[n++] = cfg;
	argv[n] = NULL;
	struct bt_result r = bt_run(argv);
	cr_assert_eq(r.code, 0, "exit %d:\n%s", r.code, r.out);
	bt_result_free(&r);
	char *got = bt_slurp(log);
	cr_assert_not_null(got);
	json_object *d = bt_json_file(json);
	json_object *rc = bt_jget(d, (const char *const[]){ "settings",
						"remount_cmd", NULL });
	cr_assert_not_null(rc);
	if (!remount_cmd) {
		char *want;
		cr_assert_gt(asprintf(&want, "%s %s", bt_program("OSPROF_TESTFS"),
				      mnt), 0);
		cr_expect_str_eq(json_object_get_string(rc), want);
		free(want);
	}
	json_object_put(d);
	free(cfg);
	free(json);
	free(log);
	return got;
}

static void expect_fresh_daemons(const char *before, const char *log)
{
	char a[16], b[16], c[16];

	cr_assert_eq(sscanf(log, "%15s %15s %15s", a, b, c), 3, "log: %s", log);
	cr_expect(strcmp(a, b) && strcmp(b, c) && strcmp(a, c),
		  "the same daemon served two runs: %s", log);
	char first[16];
	sscanf(before, "%15s", first);
	cr_expect(strcmp(first, a) && strcmp(first, b) && strcmp(first, c),
		  "the original daemon %s served a run: %s", first, log);
}

Test(bench_remount, remounts_with_the_daemon_command_line)
{
	mount_testfs();
	char *before = served_by();
	char *log = three_runs(NULL);

	expect_fresh_daemons(before, log);
	char *after = served_by(); /* mounted again at the end */
	free(after);
	free(before);
	free(log);
}

Test(bench_remount, remounts_with_the_given_command)
{
	mount_testfs();
	char *before = served_by(), *cmd;

	cr_assert_gt(asprintf(&cmd, "%s %s", bt_program("OSPROF_TESTFS"), mnt), 0);
	char *log = three_runs(cmd);
	expect_fresh_daemons(before, log);
	free(before);
	free(log);
	free(cmd);
}

Test(bench_remount, refuses_a_directory_that_is_not_a_fuse_mount)
{
	const char *argv[] = { bt_program("OSPROF_BENCH"), "-q", "--remount", mnt,
			       "--", "true", NULL };
	struct bt_result r = bt_run(argv);

	cr_expect_eq(r.code, 1);
	cr_expect(strstr(r.out, "not a FUSE mount point"), "%s", r.out);
	bt_result_free(&r);
}
