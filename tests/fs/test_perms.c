// SPDX-License-Identifier: MIT
/*
 * Root serving other users (allow_other): requests run with the caller's
 * fsuid, fsgid and supplementary groups, so files a user creates are the
 * user's, the lower directory's permissions hold through the mount, and
 * only the mounting user or root may write ctl.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define USER 65534
#define OTHER_GROUP 4321

static struct mnt m;

static void up(void)
{
	const char *args[] = { "-o", "allow_other", NULL };
	char p[PATH_MAX];

	h_tree(&m);
	cr_assert_eq(mkdir(h_path(p, m.lower, "pub"), 0777), 0);
	chmod(p, 0777);
	h_start(&m, args);
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(perms, .init = up, .fini = down, .timeout = 60);

/* Run @fn as uid and gid USER with supplementary @groups (h_as). */
static int as_user(int (*fn)(void), const gid_t *groups, int ngroups)
{
	return h_as(USER, USER, groups, ngroups, fn);
}

static int create_file(void)
{
	char p[PATH_MAX];
	int fd = open(h_path(p, m.dir, "pub/mine"), O_CREAT | O_WRONLY, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	return mkdir(h_path(p, m.dir, "pub/mydir"), 0755) == 0 ? 0 : errno;
}

static int read_secret(void)
{
	char p[PATH_MAX];
	int fd = open(h_path(p, m.dir, "secret"), O_RDONLY);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int read_group_file(void)
{
	char p[PATH_MAX], buf[8];
	int fd = open(h_path(p, m.dir, "groupfile"), O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == 2 ? 0 : 99;
}

static int write_ctl(void)
{
	char p[PATH_MAX];
	int fd = open(h_path(p, m.dir, ".osprof/ctl"), O_WRONLY);

	if (fd < 0)
		return errno;
	if (write(fd, "reset\n", 6) != 6) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	return 0;
}

static int read_stats(void)
{
	char p[PATH_MAX];
	char *s = h_slurp(h_path(p, m.dir, ".osprof/stats"), NULL);
	int ok = s && strstr(s, "osprof fs profile");

	free(s);
	return ok ? 0 : 98;
}

Test(perms, files_a_user_creates_are_the_users)
{
	struct stat st;
	char p[PATH_MAX];

	cr_assert_eq(as_user(create_file, NULL, 0), 0);
	cr_assert_eq(stat(h_path(p, m.lower, "pub/mine"), &st), 0);
	cr_expect_eq(st.st_uid, USER);
	cr_expect_eq(st.st_gid, USER);
	cr_assert_eq(stat(h_path(p, m.lower, "pub/mydir"), &st), 0);
	cr_expect_eq(st.st_uid, USER);
}

Test(perms, another_users_private_file_stays_private)
{
	char p[PATH_MAX];

	cr_assert_eq(h_write_str(h_path(p, m.lower, "secret"), "s3cret"), 0);
	cr_assert_eq(chmod(p, 0600), 0);
	cr_expect_eq(as_user(read_secret, NULL, 0), EACCES);
	cr_expect_eq(read_secret(), 0, "root still reads it");
}

Test(perms, supplementary_groups_are_the_callers)
{
	gid_t g = OTHER_GROUP;
	char p[PATH_MAX];

	cr_assert_eq(h_write_str(h_path(p, m.lower, "groupfile"), "ok"), 0);
	cr_assert_eq(chown(p, 0, OTHER_GROUP), 0);
	cr_assert_eq(chmod(p, 0640), 0);
	cr_expect_eq(as_user(read_group_file, &g, 1), 0);
	cr_expect_eq(as_user(read_group_file, NULL, 0), EACCES);
}

Test(perms, only_the_owner_may_write_ctl)
{
	cr_expect_eq(as_user(write_ctl, NULL, 0), EACCES);
	cr_expect_eq(as_user(read_stats, NULL, 0), 0);
	cr_expect_eq(write_ctl(), 0);
}
