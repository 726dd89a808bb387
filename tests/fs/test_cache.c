// SPDX-License-Identifier: MIT
/*
 * The caching modes: cache=never sends every read to the profiler;
 * cache=auto serves repeated reads from the page cache yet sees a change
 * made to the lower file once the attribute timeout passes, and skips
 * FLUSH for read-only files; cache=always sends only OPEN and RELEASE on
 * warm runs; the profile's options name the mode.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static struct mnt m;

static void up(void)
{
	h_tree(&m);
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(cache, .init = up, .fini = down, .timeout = 60);

static void read_n(const char *path, int n)
{
	for (int i = 0; i < n; i++) {
		char *s = h_slurp(path, NULL);

		cr_assert_not_null(s, "%s", path);
		free(s);
	}
}

Test(cache, never_sends_every_read_and_flush_to_the_profiler)
{
	char lp[PATH_MAX], mp[PATH_MAX];
	struct osp_profile *p;

	if (h_noopen())
		cr_skip_test("the default, cache=never, is this test's subject: noopen is "
			     "refused under it, and its variant mounts cache=auto instead");
	cr_assert_eq(h_write_str(h_path(lp, m.lower, "f"), "0123456789"), 0);
	h_start(&m, NULL);
	read_n(h_path(mp, m.dir, "f"), 10);
	p = h_profile_when(&m, "release", 10);
	/* Each read of a small file: one read with data, one at EOF. */
	h_expect_data(p, "read", 20);
	cr_expect_eq(h_count(p, "flush"), 10);
	cr_expect_eq(h_count(p, "open"), 10);
	cr_expect_eq(h_count(p, "release"), 10);
	cr_expect_str_eq(osp_kv_get(&p->options, "cache"), "\"never\"");
	cr_expect_str_eq(osp_kv_get(&p->options, "direct_io"), h_passthrough() ? "false" : "true");
	cr_expect_str_eq(osp_kv_get(&p->options, "threads"), "\"pool\"", "blocking pool by default");
	osp_profile_free(p);
}

Test(cache, auto_caches_pages_until_the_file_changes)
{
	const char *args[] = { "-o", "cache=auto", NULL };
	struct timespec ts = { 1, 300 * 1000 * 1000 };
	char lp[PATH_MAX], mp[PATH_MAX], *s;
	struct osp_profile *p;
	uint64_t reads;

	cr_assert_eq(h_write_str(h_path(lp, m.lower, "f"), "version one"), 0);
	h_start(&m, args);
	read_n(h_path(mp, m.dir, "f"), 10);
	p = h_profile(&m);
	reads = h_count(p, "read");
	cr_expect_leq(reads, 2, "pages kept across opens: %llu reads", (unsigned long long)reads);
	/* with noopen, the first close's FLUSH (answered ENOSYS), then none */
	cr_expect_eq(h_count(p, "flush"), h_noopen() ? 1 : 0, "read-only closes send no FLUSH");
	cr_expect_str_eq(osp_kv_get(&p->options, "cache"), "\"auto\"");
	cr_expect_str_eq(osp_kv_get(&p->options, "attr_timeout_s"), "1.0");
	/* polling workers by default, but for io_uring's threads */
	if (strstr(h_transport(), "io_uring")) {
		cr_expect_str_eq(osp_kv_get(&p->options, "threads"), "\"pool\"");
		cr_expect_null(osp_kv_get(&p->options, "poll_us"));
	} else {
		cr_expect_str_eq(osp_kv_get(&p->options, "threads"), "\"poll\"");
		cr_expect_str_eq(osp_kv_get(&p->options, "poll_us"), "200");
	}
	osp_profile_free(p);
	/* Changed behind the mount's back: seen once the attributes expire. */
	cr_assert_eq(h_write_str(lp, "version two, longer"), 0);
	nanosleep(&ts, NULL);
	s = h_slurp(mp, NULL);
	cr_expect_str_eq(s, "version two, longer");
	free(s);
	/* Written through the mount: a writable close still flushes. */
	cr_assert_eq(h_write_str(mp, "three"), 0);
	s = h_slurp(mp, NULL);
	cr_expect_str_eq(s, "three");
	free(s);
	/* The one writable close; the read-only ones send none. */
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "flush"), 1);
	osp_profile_free(p);
}

/*
 * Under always, warm runs send nothing per file but OPEN and RELEASE (with
 * noopen, nothing at all): no LOOKUP, READ or GETATTR. (The run after the one whose reads reached the
 * daemon sends one GETATTR per file: the kernel marks a file's atime stale
 * once the daemon has served its pages -- fuse_invalidate_atime -- and a
 * stat asks for atime. That is the kernel's, for any FUSE daemon; the run
 * after it sends none, which is what this checks.)
 */
/* stat and read each of @n files f0.. of the mount. */
static void pass(int n)
{
	char mp[PATH_MAX], name[32];

	for (int i = 0; i < n; i++) {
		struct stat st;
		char *s;

		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(stat(h_path(mp, m.dir, name), &st), 0);
		s = h_slurp(mp, NULL);
		cr_assert_str_eq(s, name);
		free(s);
	}
}

Test(cache, always_sends_only_open_and_release_on_warm_runs)
{
	const char *args[] = { "-o", "cache=always", NULL };
	enum { FILES = 20 };
	char lp[PATH_MAX], ctl[PATH_MAX + 64], name[32];
	struct osp_profile *p;

	for (int i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(h_write_str(h_path(lp, m.lower, name), name), 0);
	}
	h_start(&m, args);
	for (int run = 0; run < 3; run++) {
		if (run == 2) {
			/* every earlier release in first: over io_uring one
			 * queued on another CPU's ring can come after the
			 * reset, and count in the measured run (21, not 20) */
			osp_profile_free(h_profile_released(&m));
			cr_assert_eq(h_write_str(h_path(ctl, m.ctl, "ctl"), "reset\n"), 0);
		}
		pass(FILES);
	}
	/* with noopen, not even those: the kernel answers opens itself */
	p = h_profile_when(&m, "release", h_noopen() ? 0 : FILES);
	cr_expect_eq(h_count(p, "open"), h_noopen() ? 0 : FILES);
	cr_expect_eq(h_count(p, "release"), h_noopen() ? 0 : FILES);
	cr_expect_eq(h_count(p, "lookup"), 0);
	cr_expect_eq(h_count(p, "read"), 0);
	/* A read passed through marks the inode's atime stale (the kernel's
	 * fuse_invalidate_atime): the next stat asks for it, once a file. */
	if (h_passthrough())
		cr_expect_leq(h_count(p, "getattr"), FILES, "%llu", (unsigned long long)h_count(p, "getattr"));
	else
		cr_expect_eq(h_count(p, "getattr"), 0);
	osp_profile_free(p);
}

/*
 * The second pass of a warm run, read-write and read-only: a read that
 * reached the daemon leaves the file's atime stale (the kernel's
 * fuse_invalidate_atime), so the next stat is a GETATTR, one a file;
 * mounted -o ro the kernel keeps atime, and there is none. ctl cannot be
 * written on a read-only mount (EROFS, from the kernel): SIGUSR1 resets.
 */
static void second_pass(bool ro)
{
	const char *args[] = { "-o", ro ? "cache=always,ro" : "cache=always", NULL };
	enum { FILES = 20 };
	char lp[PATH_MAX], name[32];
	struct osp_profile *p;
	int fd;

	for (int i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(h_write_str(h_path(lp, m.lower, name), name), 0);
	}
	h_start(&m, args);
	pass(FILES);
	osp_profile_free(h_profile_released(&m));
	fd = open(h_at(m.ctl, "ctl"), O_WRONLY);
	if (ro)
		cr_expect(fd < 0 && errno == EROFS, "ctl on a read-only mount: %d", fd);
	if (fd >= 0)
		close(fd);
	cr_assert_eq(kill(m.pid, SIGUSR1), 0);
	for (int i = 0; i < 500; i++) {
		p = h_profile(&m);
		if (h_count(p, "lookup") == 0)
			break;
		osp_profile_free(p);
		p = NULL;
		usleep(10000);
	}
	cr_assert_not_null(p, "SIGUSR1 reset the profile within 5 s");
	cr_expect_str_eq(osp_kv_get(&p->options, "read_only"), ro ? "true" : "false");
	osp_profile_free(p);
	pass(FILES);
	p = h_profile_when(&m, "release", h_noopen() ? 0 : FILES);
	cr_expect_eq(h_count(p, "read"), 0, "the pages are cached");
	cr_expect_eq(h_count(p, "getattr"), ro ? 0 : FILES, "%s: %llu getattr", args[1],
		     (unsigned long long)h_count(p, "getattr"));
	osp_profile_free(p);
}

Test(cache, a_read_write_second_pass_asks_each_files_atime)
{
	second_pass(false);
}

Test(cache, a_read_only_second_pass_sends_no_getattr_and_sigusr1_resets)
{
	second_pass(true);
}
