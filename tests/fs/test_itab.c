// SPDX-License-Identifier: MIT
/*
 * The inode table (fs/ofs_inode.c) on its own, on a real directory: the
 * lookup count is the kernel's, and a forget of more lookups than were
 * given -- a bug on one side or the other -- frees the inode as a forget
 * to zero would, is counted for ctl (forget_underflows) and said on
 * stderr once, never silently and never once per request. A backing id
 * registered for an open (passthrough) is registered outside the table's
 * lock, and of two registered at once for one inode one is kept: this
 * file's ioctl() stands in for the kernel's, slow on purpose.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_inode.h"
#include "ofs_tr_impl.h"
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

/* ---- backing ids: the kernel's ioctls stood in for -------------------- */

#define BACKING_OPEN_MS 400 /* each BACKING_OPEN's time here */

static _Atomic int opens_in;      /* BACKING_OPENs under way */
static _Atomic int opens_max;     /* the most under way at once */
static _Atomic int next_id = 1;
static _Atomic int closed[4];     /* ids closed, in order */
static _Atomic int nclosed;

/* The daemon's library calls this one, not libc's (the executable's
 * symbol comes first): backing ids, each after BACKING_OPEN_MS. */
int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == OFS_FUSE_DEV_IOC_BACKING_OPEN) {
		struct timespec ts = { 0, BACKING_OPEN_MS * 1000000L };
		int in = atomic_fetch_add(&opens_in, 1) + 1, max = atomic_load(&opens_max);

		while (in > max && !atomic_compare_exchange_weak(&opens_max, &max, in))
			;
		nanosleep(&ts, NULL);
		atomic_fetch_sub(&opens_in, 1);
		return atomic_fetch_add(&next_id, 1);
	}
	if (req == OFS_FUSE_DEV_IOC_BACKING_CLOSE) {
		int n = atomic_fetch_add(&nclosed, 1);

		if (n < 4)
			closed[n] = (int)*(uint32_t *)arg;
		return 0;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A transport with passthrough in force, its /dev/fuse /dev/null (this
 * file's ioctl answers). */
static struct ofs_tr *fake_tr(void)
{
	struct ofs_tr *tr = calloc(1, sizeof(*tr));

	cr_assert_not_null(tr);
	pthread_mutex_init(&tr->mu, NULL);
	tr->dev_fd = open("/dev/null", O_RDWR);
	atomic_store(&tr->on[OFS_TR_PASSTHROUGH], true);
	return tr;
}

static void drop_none(struct ofs_open *o)
{
	(void)o;
}

struct opener {
	struct ofs *fs;
	struct ofs_open o;
	int id;
};

static void *open_backing(void *arg)
{
	struct opener *op = arg;

	op->id = ofs_inode_backing_get(op->fs, &op->o);
	return NULL;
}

Test(itab, a_slow_backing_open_holds_up_no_lookup)
{
	struct ofs fs = { 0 };
	struct opener op = { .fs = &fs };
	pthread_t th;
	uint64_t t0, took;

	cr_assert_eq(h_write_str(h_at(m.lower, "a"), "a"), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "b"), "b"), 0);
	table_on_lower(&fs);
	fs.tr = fake_tr();
	ofs_inode_open_get(&fs, look(&fs, "a"), &op.o, drop_none);
	cr_assert_eq(pthread_create(&th, NULL, open_backing, &op), 0);
	while (atomic_load(&opens_in) == 0)
		usleep(1000);
	/* a's BACKING_OPEN under way: b is looked up meanwhile */
	t0 = mono_ms();
	look(&fs, "b");
	took = mono_ms() - t0;
	pthread_join(th, NULL);
	cr_expect_lt(took, BACKING_OPEN_MS / 4, "a lookup took %llu ms beside a slow open",
		     (unsigned long long)took);
	cr_expect_eq(op.id, 1);
	ofs_inode_open_put(&fs, &op.o);
	cr_expect_eq(atomic_load(&nclosed), 1, "its last open closes the id");
	cr_expect_eq(closed[0], 1);
	ofs_itab_free(fs.itab);
}

Test(itab, of_two_backing_ids_registered_at_once_one_stays_the_other_closes)
{
	struct ofs fs = { 0 };
	struct opener a = { .fs = &fs }, b = { .fs = &fs };
	struct ofs_inode *in;
	pthread_t ta, tb;

	cr_assert_eq(h_write_str(h_at(m.lower, "a"), "a"), 0);
	table_on_lower(&fs);
	fs.tr = fake_tr();
	in = look(&fs, "a");
	ofs_inode_open_get(&fs, in, &a.o, drop_none);
	ofs_inode_open_get(&fs, in, &b.o, drop_none);
	cr_assert_eq(pthread_create(&ta, NULL, open_backing, &a), 0);
	cr_assert_eq(pthread_create(&tb, NULL, open_backing, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	cr_assert_eq(atomic_load(&opens_max), 2, "both first opens registered at once");
	cr_expect_eq(a.id, b.id, "both pass through to one id: %d, %d", a.id, b.id);
	cr_expect(a.id == 1 || a.id == 2);
	cr_expect_eq(atomic_load(&nclosed), 1, "the other one is closed");
	cr_expect_eq(closed[0], 3 - a.id);
	ofs_inode_open_put(&fs, &a.o);
	cr_expect_eq(atomic_load(&nclosed), 1, "still used by b");
	ofs_inode_open_put(&fs, &b.o);
	cr_expect_eq(atomic_load(&nclosed), 2, "closed with its last open");
	cr_expect_eq(closed[1], a.id);
	ofs_itab_free(fs.itab);
}
