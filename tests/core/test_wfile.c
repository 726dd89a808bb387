// SPDX-License-Identifier: MIT
/*
 * core/prog's osp_wfile: an output replaced whole when it is a regular
 * file (mode kept, no temporary file left, the old one kept on abort), a
 * link's target replaced and the link kept, and a FIFO or device written
 * in place, never renamed over (a rename over /dev/null, as root, would
 * put a regular file in its place).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "osp_wfile.h"

static char dir[64];
static mode_t old_umask;

static void setup(void)
{
	strcpy(dir, "/tmp/osprof-wfile-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	/* not the usual 022: a mode of 0640 shows the umask was applied */
	old_umask = umask(027);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf --one-file-system '%s'", dir);
	cr_expect_eq(system(cmd), 0);
	umask(old_umask);
}

TestSuite(wfile, .init = setup, .fini = teardown);

static const char *at(const char *name)
{
	static char p[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
}

static char *get(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	cr_assert_geq(n, 0);
	buf[n] = '\0';
	close(fd);
	return buf;
}

/* The names in the directory, sorted, one string: "a b c". */
static char *names(void)
{
	static char out[512];
	struct dirent **list;
	int n = scandir(dir, &list, NULL, alphasort);

	cr_assert_geq(n, 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.') {
			if (out[0])
				strcat(out, " ");
			strcat(out, list[i]->d_name);
		}
		free(list[i]);
	}
	free(list);
	return out;
}

static void write_whole(const char *path, const char *text)
{
	struct osp_wfile w;

	cr_assert_eq(osp_wfile_open(&w, path, 0666), 0);
	cr_assert_eq(fputs(text, w.f) >= 0, true);
	cr_assert_eq(osp_wfile_commit(&w), 0);
}

Test(wfile, a_new_file_gets_the_umasks_mode_and_no_temporary_stays)
{
	struct stat st;

	write_whole(at("out"), "new\n");
	cr_assert_str_eq(get(at("out")), "new\n");
	cr_assert_eq(stat(at("out"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640);
	cr_assert_str_eq(names(), "out");
}

/* osprof-fs runs with umask 0 (a FUSE daemon's) and asks for 0644: its
 * dumps are not world-writable, and the descriptor is close-on-exec. */
Test(wfile, a_new_file_under_umask_0_gets_the_mode_asked_for)
{
	struct osp_wfile w;
	struct stat st;
	mode_t old = umask(0);

	cr_assert_eq(osp_wfile_open(&w, at("dump"), 0644), 0);
	umask(old);
	cr_assert_eq(fcntl(fileno(w.f), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	cr_assert_eq(fputs("x\n", w.f) >= 0, true);
	cr_assert_eq(osp_wfile_commit(&w), 0);
	cr_assert_eq(stat(at("dump"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_str_eq(names(), "dump");
}

Test(wfile, a_regular_file_is_replaced_and_keeps_its_mode)
{
	struct stat before, after;

	put(at("out"), "old old old\n", 0600);
	cr_assert_eq(stat(at("out"), &before), 0);
	write_whole(at("out"), "new\n");
	cr_assert_str_eq(get(at("out")), "new\n");
	cr_assert_eq(stat(at("out"), &after), 0);
	cr_assert_eq(after.st_mode & 07777, 0600);
	/* replaced by a rename: another inode */
	cr_assert_neq(after.st_ino, before.st_ino);
	cr_assert_str_eq(names(), "out");
}

Test(wfile, an_abort_keeps_the_old_file_and_leaves_no_temporary)
{
	struct osp_wfile w;

	put(at("out"), "old\n", 0644);
	cr_assert_eq(osp_wfile_open(&w, at("out"), 0666), 0);
	fputs("half", w.f);
	osp_wfile_abort(&w);
	cr_assert_str_eq(get(at("out")), "old\n");
	cr_assert_str_eq(names(), "out");
}

Test(wfile, a_link_stays_a_link_and_its_target_is_replaced)
{
	struct stat st;

	put(at("target"), "old\n", 0604);
	cr_assert_eq(symlink("target", at("link")), 0);
	write_whole(at("link"), "new\n");
	cr_assert_eq(lstat(at("link"), &st), 0);
	cr_assert(S_ISLNK(st.st_mode));
	cr_assert_str_eq(get(at("target")), "new\n");
	cr_assert_eq(stat(at("target"), &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0604);
	cr_assert_str_eq(names(), "link target");
}

Test(wfile, a_fifo_is_written_in_place_not_replaced)
{
	struct stat st;
	char buf[64];
	ssize_t n;
	int rd;

	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	/* a reader first, so that the writer's open does not wait */
	rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	cr_assert_geq(rd, 0);
	write_whole(at("fifo"), "through the pipe\n");
	n = read(rd, buf, sizeof(buf) - 1);
	cr_assert_eq(n, 17);
	buf[n] = '\0';
	cr_assert_str_eq(buf, "through the pipe\n");
	close(rd);
	cr_assert_eq(lstat(at("fifo"), &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_str_eq(names(), "fifo");
}

Test(wfile, a_device_like_dev_null_stays_a_device)
{
	struct stat st;

	/* a null device of our own (1:3), not the machine's /dev/null */
	if (mknod(at("null"), S_IFCHR | 0666, makedev(1, 3)) != 0)
		cr_skip_test("mknod needs CAP_MKNOD: %s", strerror(errno));
	write_whole(at("null"), "gone\n");
	cr_assert_eq(lstat(at("null"), &st), 0);
	cr_assert(S_ISCHR(st.st_mode));
	cr_assert_eq(major(st.st_rdev), 1);
	cr_assert_eq(minor(st.st_rdev), 3);
	cr_assert_str_eq(names(), "null");
}

Test(wfile, a_directory_or_a_missing_parent_is_an_error_that_creates_nothing)
{
	struct osp_wfile w;

	cr_assert_eq(mkdir(at("d"), 0755), 0);
	cr_assert_eq(osp_wfile_open(&w, at("d"), 0666), -EISDIR);
	cr_assert_eq(osp_wfile_open(&w, at("no/such/out"), 0666), -ENOENT);
	cr_assert_str_eq(names(), "d");
}
