// SPDX-License-Identifier: MIT
/*
 * The inode table (fs/ofs_inode.c) on its own, on a real directory: the
 * lookup count is the kernel's, and a forget of more lookups than were
 * given -- a bug on one side or the other -- frees the inode as a forget
 * to zero would, is counted for ctl (forget_underflows) and said on
 * stderr once, never silently and never once per request.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_inode.h"
#include "ofs_who.h"

static struct mnt m;

static void up(void)
{
	h_tree(&m);
	cr_redirect_stderr();
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(itab, .init = up, .fini = down, .timeout = 30);

struct counts {
	uint64_t inodes, fds, underflows;
	bool handles;
};

static struct counts counts_of(struct ofs *fs)
{
	struct counts c;

	ofs_itab_stats(fs, &c.inodes, &c.fds, &c.handles, &c.underflows);
	return c;
}

/* @fs's inode table over the test's lower directory. */
static void table_on_lower(struct ofs *fs)
{
	int root, mnt;

	cr_assert_eq(ofs_creds_init(), 0);
	root = open(m.lower, O_PATH | O_DIRECTORY);
	mnt = open(m.lower, O_RDONLY | O_DIRECTORY);
	cr_assert(root >= 0 && mnt >= 0);
	fs->itab = ofs_itab_new(root, mnt, 64);
	cr_assert_not_null(fs->itab);
}

/* Look @name up in the root: its inode, one more lookup reference. */
static struct ofs_inode *look(struct ofs *fs, const char *name)
{
	struct fuse_entry_param e;

	cr_assert_eq(ofs_inode_lookup(fs, ofs_inode_of(fs, FUSE_ROOT_ID), name, &e), 0, "%s",
		     name);
	return ofs_inode_of(fs, e.ino);
}

Test(itab, a_forget_of_more_than_held_is_clamped_counted_and_said_once)
{
	struct ofs fs = { 0 };
	struct ofs_inode *a, *b;

	cr_assert_eq(h_write_str(h_at(m.lower, "a"), "a"), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "b"), "b"), 0);
	table_on_lower(&fs);

	a = look(&fs, "a");
	cr_expect_eq(look(&fs, "a"), a, "the same inode, two references");
	cr_expect_eq(counts_of(&fs).inodes, 1);
	ofs_inode_forget(&fs, a, 1);
	cr_expect_eq(counts_of(&fs).inodes, 1, "one reference left");
	ofs_inode_forget(&fs, a, 5);
	cr_expect_eq(counts_of(&fs).inodes, 0, "freed, as at zero");
	cr_expect_eq(counts_of(&fs).underflows, 1);

	b = look(&fs, "b");
	ofs_inode_forget(&fs, b, 3);
	cr_expect_eq(counts_of(&fs).inodes, 0);
	cr_expect_eq(counts_of(&fs).underflows, 2, "counted every time");
	ofs_itab_free(fs.itab);
	fflush(stderr);
	cr_expect_stderr_eq_str("osprof-fs: forget of 5 lookups of an inode that had 1: clamped to "
				"zero (counted in ctl's forget_underflows; said once)\n");
}

Test(itab, an_inode_path_is_its_path_in_the_mount)
{
	struct ofs fs = { 0 };
	struct fuse_entry_param e;
	struct ofs_inode *d;
	char path[64];

	cr_assert_eq(mkdir(h_at(m.lower, "d"), 0755), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "d/f x"), "f"), 0);
	table_on_lower(&fs);
	cr_expect_eq(ofs_inode_path(&fs, FUSE_ROOT_ID, path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/");
	d = look(&fs, "d");
	cr_assert_eq(ofs_inode_lookup(&fs, d, "f x", &e), 0);
	cr_expect_eq(ofs_inode_path(&fs, e.ino, path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/d/f x");
	/* Renamed in the lower tree: the path follows the file. */
	cr_assert_eq(rename(h_at(m.lower, "d/f x"), h_at(m.lower, "g")), 0);
	cr_expect_eq(ofs_inode_path(&fs, e.ino, path, sizeof(path)), 0);
	cr_expect_str_eq(path, "/g");
	cr_expect_eq(ofs_inode_path(&fs, e.ino, path, 2), -ENAMETOOLONG);
	ofs_itab_free(fs.itab);
}

Test(itab, a_process_name_is_read_once_and_cached)
{
	char comm[OFS_COMM_LEN], self[OFS_COMM_LEN];
	FILE *f = fopen("/proc/self/comm", "r");

	cr_assert_not_null(f);
	cr_assert_not_null(fgets(self, sizeof(self), f));
	fclose(f);
	self[strcspn(self, "\n")] = '\0';
	cr_expect_eq(ofs_comm_of(getpid(), comm), 0);
	cr_expect_str_eq(comm, self);
	/* Cached: a new name in /proc is not read again. */
	cr_assert_eq(h_write_str("/proc/self/comm", "renamed"), 0);
	cr_expect_eq(ofs_comm_of(getpid(), comm), 0);
	cr_expect_str_eq(comm, self);
	cr_expect_eq(ofs_comm_of(0, comm), -ESRCH);
	cr_expect_eq(ofs_comm_of(0x3fffffff, comm), -ENOENT);
}
