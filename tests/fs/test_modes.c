// SPDX-License-Identifier: MIT
/*
 * Root serving other users (allow_other), in every caching mode, each test
 * mounting its own: a data change by someone without CAP_FSETID clears
 * SUID and SGID as the lower file system does for that caller, while a
 * non-owner still cannot chmod; a readable, unsearchable directory can be
 * listed. Regressions found by pjdfstest (chmod/12.t, open/06.t).
 * (Its own file: Criterion leaks when one file's suites run in parallel.)
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define USER 65534

static struct mnt m;

static void down(void)
{
	h_cleanup(&m);
}

static int as_user(int (*fn)(void), const gid_t *groups, int ngroups)
{
	return h_as(USER, USER, groups, ngroups, fn);
}

static void modes_up(void)
{
	char p[PATH_MAX];

	h_tree(&m);
	cr_assert_eq(mkdir(h_path(p, m.lower, "pub"), 0777), 0);
	chmod(p, 0777);
}

TestSuite(modes, .init = modes_up, .fini = down, .timeout = 120);

static const char *const cache_modes[] = {
	"allow_other,cache=never", "allow_other,cache=auto",
	"allow_other,cache=always", "allow_other,cache=auto,writeback",
};
#define NMODES (sizeof(cache_modes) / sizeof(cache_modes[0]))

/* What as_user's child does to @target (as_user takes no arguments). */
static char target[PATH_MAX];
enum change { CH_WRITE, CH_TRUNCATE, CH_FALLOCATE, CH__COUNT };
static enum change change;
static const char *const change_names[CH__COUNT] = { "write", "truncate", "fallocate" };

static int change_target(void)
{
	int fd = open(target, O_WRONLY | O_APPEND), err = 0;

	if (fd < 0)
		return errno;
	if (change == CH_WRITE && write(fd, "x", 1) != 1)
		err = errno ? errno : EIO;
	else if (change == CH_TRUNCATE && ftruncate(fd, 0) != 0)
		err = errno;
	else if (change == CH_FALLOCATE && fallocate(fd, 0, 0, 4096) != 0)
		err = errno;
	if (close(fd) != 0 && !err)
		err = errno; /* a write-back error shows here */
	return err;
}

/* Mode bits of lower/@name after the kernel has been told to forget it. */
static mode_t lower_mode(const char *name)
{
	struct stat st;
	char p[PATH_MAX];

	cr_assert_eq(stat(h_path(p, m.lower, name), &st), 0);
	return st.st_mode & 07777;
}

Test(modes, a_non_owners_data_change_clears_suid_and_sgid)
{
	static const mode_t set[] = { 04777, 02777, 06777 };
	char name[64], p[PATH_MAX];
	int err;

	for (size_t mo = 0; mo < NMODES; mo++) {
		const char *args[] = { "-o", cache_modes[mo], NULL };

		h_start(&m, args);
		for (int c = 0; c < CH__COUNT; c++) {
			for (size_t s = 0; s < sizeof(set) / sizeof(set[0]); s++) {
				snprintf(name, sizeof(name), "pub/f%zu-%d-%zu", mo, c, s);
				cr_assert_eq(h_write_str(h_path(p, m.lower, name), "data"), 0);
				cr_assert_eq(chmod(p, set[s]), 0);
				h_path(target, m.dir, name);
				change = (enum change)c;
				err = as_user(change_target, NULL, 0);
				cr_expect_eq(err, 0, "%s: %s by a non-owner: %s",
					     cache_modes[mo], change_names[c], strerror(err));
				cr_expect_eq(lower_mode(name), 0777, "%s: %s of %o left %o",
					     cache_modes[mo], change_names[c], set[s],
					     lower_mode(name));
			}
		}
		/* Root may keep them (CAP_FSETID), as natively. */
		snprintf(name, sizeof(name), "pub/root%zu", mo);
		cr_assert_eq(h_write_str(h_path(p, m.lower, name), "data"), 0);
		cr_assert_eq(chmod(p, 06777), 0);
		h_path(target, m.dir, name);
		change = CH_WRITE;
		cr_expect_eq(change_target(), 0);
		cr_expect_eq(lower_mode(name), 06777, "%s: root's write", cache_modes[mo]);
		cr_expect_eq(h_stop(&m), 0);
	}
}

/* A chmod by a non-owner is still refused: only the kernel's own passes. */
static int chmod_target(void)
{
	return chmod(target, 0777) == 0 ? 0 : errno;
}

Test(modes, a_non_owner_still_cannot_chmod)
{
	const char *args[] = { "-o", cache_modes[3], NULL };
	char p[PATH_MAX];

	cr_assert_eq(h_write_str(h_path(p, m.lower, "pub/theirs"), "x"), 0);
	cr_assert_eq(chmod(p, 04755), 0);
	h_start(&m, args);
	h_path(target, m.dir, "pub/theirs");
	cr_expect_eq(as_user(chmod_target, NULL, 0), EPERM);
	cr_expect_eq(lower_mode("pub/theirs"), 04755);
}

static int list_target(void)
{
	DIR *d = opendir(target);
	int n = 0;

	if (!d)
		return errno;
	while (readdir(d))
		n++;
	closedir(d);
	return n == 3 ? 0 : 99; /* ., .. and the one file */
}

Test(modes, a_readable_unsearchable_directory_can_be_listed)
{
	char p[PATH_MAX];

	cr_assert_eq(mkdir(h_path(p, m.lower, "pub/ro"), 0755), 0);
	cr_assert_eq(h_write_str(h_path(p, m.lower, "pub/ro/a"), "x"), 0);
	cr_assert_eq(chmod(h_path(p, m.lower, "pub/ro"), 0444), 0);
	cr_assert_eq(mkdir(h_path(p, m.lower, "pub/xo"), 0711), 0);
	for (size_t mo = 0; mo < NMODES; mo++) {
		const char *args[] = { "-o", cache_modes[mo], NULL };

		h_start(&m, args);
		h_path(target, m.dir, "pub/ro");
		cr_expect_eq(as_user(list_target, NULL, 0), 0, "%s: 0444 lists", cache_modes[mo]);
		h_path(target, m.dir, "pub/xo");
		cr_expect_eq(as_user(list_target, NULL, 0), EACCES, "%s: 0711 does not",
			     cache_modes[mo]);
		cr_expect_eq(h_stop(&m), 0);
	}
}
