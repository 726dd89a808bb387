// SPDX-License-Identifier: MIT
/*
 * Every operation through the mount behaves as on the lower directory:
 * contents, metadata, xattrs, rename flags, hard and symbolic links, and
 * the lower's errors passed through unchanged (a table of them, each
 * checked for its exact errno).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "harness.h"

static struct mnt m;

static void up(void)
{
	h_tree(&m);
	h_start(&m, NULL);
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(ops, .init = up, .fini = down, .timeout = 60);

/* A name in the mount, and in the lower directory. */
#define M(name) h_at(m.dir, name)
#define L(name) h_at(m.lower, name)

Test(ops, write_through_mount_lands_in_lower_and_reads_back)
{
	char buf[64] = "";
	char *s;
	int fd;

	cr_assert_eq(h_write_str(M("f"), "hello, osprof\n"), 0);
	s = h_slurp(L("f"), NULL);
	cr_expect_str_eq(s, "hello, osprof\n");
	free(s);
	fd = open(M("f"), O_RDWR | O_APPEND);
	cr_assert_geq(fd, 0);
	cr_expect_eq(write(fd, "more\n", 5), 5);
	cr_expect_eq(pread(fd, buf, 5, 7), 5);
	cr_expect_str_eq(buf, "ospro");
	close(fd);
	s = h_slurp(M("f"), NULL);
	cr_expect_str_eq(s, "hello, osprof\nmore\n");
	free(s);
}

Test(ops, create_mode_and_metadata_changes_reach_lower)
{
	struct stat ls, ms;
	struct timespec tv[2] = { { 1000000000, 5 }, { 1200000000, 7 } };
	int fd = open(M("meta"), O_CREAT | O_WRONLY | O_EXCL, 0640);

	cr_assert_geq(fd, 0);
	close(fd);
	cr_assert_eq(stat(L("meta"), &ls), 0);
	cr_expect_eq(ls.st_mode & 07777, 0640);
	cr_expect_eq(chmod(M("meta"), 0604), 0);
	cr_expect_eq(chown(M("meta"), 123, 456), 0);
	cr_expect_eq(truncate(M("meta"), 12345), 0);
	cr_expect_eq(utimensat(AT_FDCWD, M("meta"), tv, 0), 0);
	cr_assert_eq(stat(L("meta"), &ls), 0);
	cr_assert_eq(stat(M("meta"), &ms), 0);
	cr_expect_eq(ls.st_mode & 07777, 0604);
	cr_expect_eq(ls.st_uid, 123);
	cr_expect_eq(ls.st_gid, 456);
	cr_expect_eq(ls.st_size, 12345);
	cr_expect_eq(ls.st_mtim.tv_sec, 1200000000);
	cr_expect_eq(ls.st_mtim.tv_nsec, 7);
	cr_expect_eq(ls.st_atim.tv_sec, 1000000000);
	cr_expect_eq(ms.st_ino, ls.st_ino, "the mount shows the lower's attributes");
	cr_expect_eq(ms.st_size, ls.st_size);
	cr_expect_eq(ms.st_uid, ls.st_uid);
	cr_expect_eq(open(M("meta"), O_CREAT | O_EXCL | O_WRONLY, 0600), -1);
	cr_expect_eq(errno, EEXIST);
}

Test(ops, xattrs_round_trip_and_errors_pass_through)
{
	char buf[64];
	ssize_t n;

	cr_assert_eq(h_write_str(M("x"), "x"), 0);
	cr_assert_eq(setxattr(M("x"), "user.osprof", "value1", 6, 0), 0);
	n = getxattr(L("x"), "user.osprof", buf, sizeof(buf));
	cr_expect_eq(n, 6);
	cr_expect_eq(memcmp(buf, "value1", 6), 0);
	cr_expect_eq(getxattr(M("x"), "user.osprof", NULL, 0), 6);
	cr_expect_eq(getxattr(M("x"), "user.osprof", buf, 2), -1);
	cr_expect_eq(errno, ERANGE);
	cr_expect_eq(setxattr(M("x"), "user.osprof", "v", 1, XATTR_CREATE), -1);
	cr_expect_eq(errno, EEXIST);
	/* The lower's list, byte for byte (a file system may add its own). */
	{
		char lbuf[64];
		ssize_t ln = listxattr(L("x"), lbuf, sizeof(lbuf));

		n = listxattr(M("x"), buf, sizeof(buf));
		cr_expect_eq(n, ln);
		cr_expect(n == ln && ln > 0 && memcmp(buf, lbuf, (size_t)n) == 0, "the lists differ");
	}
	cr_expect_not_null(memmem(buf, (size_t)n, "user.osprof", 12));
	cr_expect_eq(removexattr(M("x"), "user.osprof"), 0);
	cr_expect_eq(getxattr(L("x"), "user.osprof", buf, sizeof(buf)), -1);
	cr_expect_eq(errno, ENODATA);
	cr_expect_eq(getxattr(M("x"), "user.osprof", buf, sizeof(buf)), -1);
	cr_expect_eq(errno, ENODATA);
}

Test(ops, rename_plain_noreplace_and_exchange)
{
	char *s;

	cr_assert_eq(h_write_str(M("a"), "A"), 0);
	cr_assert_eq(h_write_str(M("b"), "B"), 0);
	cr_expect_eq(renameat2(AT_FDCWD, M("a"), AT_FDCWD, M("b"), RENAME_NOREPLACE), -1);
	cr_expect_eq(errno, EEXIST);
	cr_expect_eq(renameat2(AT_FDCWD, M("a"), AT_FDCWD, M("b"), RENAME_EXCHANGE), 0);
	s = h_slurp(L("a"), NULL);
	cr_expect_str_eq(s, "B");
	free(s);
	s = h_slurp(M("b"), NULL);
	cr_expect_str_eq(s, "A");
	free(s);
	cr_expect_eq(rename(M("a"), M("c")), 0);
	cr_expect_eq(access(L("a"), F_OK), -1);
	cr_expect_eq(access(L("c"), F_OK), 0);
	cr_expect_eq(renameat2(AT_FDCWD, M("nope"), AT_FDCWD, M("d"), RENAME_EXCHANGE), -1);
	cr_expect_eq(errno, ENOENT);
}

Test(ops, hard_and_symbolic_links)
{
	struct stat a, b;
	char buf[64] = "";

	cr_assert_eq(h_write_str(M("orig"), "data"), 0);
	cr_assert_eq(link(M("orig"), M("hard")), 0);
	cr_assert_eq(stat(M("orig"), &a), 0);
	cr_assert_eq(stat(M("hard"), &b), 0);
	cr_expect_eq(a.st_nlink, 2);
	cr_expect_eq(a.st_ino, b.st_ino);
	cr_expect_eq(link(M("orig"), M("hard")), -1);
	cr_expect_eq(errno, EEXIST);
	cr_assert_eq(symlink("orig", M("sym")), 0);
	cr_expect_eq(readlink(M("sym"), buf, sizeof(buf)), 4);
	cr_expect_str_eq(buf, "orig");
	memset(buf, 0, sizeof(buf));
	cr_expect_eq(readlink(L("sym"), buf, sizeof(buf)), 4);
	cr_assert_eq(lstat(M("sym"), &a), 0);
	cr_expect(S_ISLNK(a.st_mode));
	cr_expect_eq(stat(M("sym"), &b), 0, "following the link through the mount");
	cr_expect_eq(b.st_size, 4);
}

Test(ops, directories_and_their_errors)
{
	cr_assert_eq(mkdir(M("d"), 0750), 0);
	cr_expect_eq(mkdir(M("d"), 0750), -1);
	cr_expect_eq(errno, EEXIST);
	cr_assert_eq(h_write_str(M("d/inner"), "i"), 0);
	cr_expect_eq(rmdir(M("d")), -1);
	cr_expect_eq(errno, ENOTEMPTY);
	cr_expect_eq(unlink(M("d/inner")), 0);
	cr_expect_eq(unlink(M("d/inner")), -1);
	cr_expect_eq(errno, ENOENT);
	cr_expect_eq(rmdir(M("d")), 0);
	cr_expect_eq(access(L("d"), F_OK), -1);
	cr_expect_eq(open(M("missing"), O_RDONLY), -1);
	cr_expect_eq(errno, ENOENT);
	cr_expect_eq(mknod(M("fifo"), S_IFIFO | 0644, 0), 0);
	{
		struct stat st;

		cr_expect_eq(stat(L("fifo"), &st), 0);
		cr_expect(S_ISFIFO(st.st_mode));
	}
}

Test(ops, cross_device_errors_come_from_the_lower)
{
	char sub[PATH_MAX];
	int e1, e2;

	h_path(sub, m.lower, "tmpfs");
	cr_assert_eq(mkdir(sub, 0755), 0);
	cr_assert_eq(mount("tmpfs", sub, "tmpfs", 0, "size=1m"), 0, "%s", strerror(errno));
	cr_assert_eq(h_write_str(M("file"), "x"), 0);
	errno = 0;
	rename(M("file"), M("tmpfs/file"));
	e1 = errno;
	link(M("file"), M("tmpfs/file2"));
	e2 = errno;
	/* The daemon holds the inner mount's inodes: stop it before umount. */
	h_stop(&m);
	umount2(sub, MNT_DETACH);
	cr_expect_eq(e1, EXDEV);
	cr_expect_eq(e2, EXDEV);
}

Test(ops, fallocate_copy_range_and_seek_data)
{
	int fd = open(M("sparse"), O_CREAT | O_RDWR, 0644), fd2;
	char buf[8] = "";

	cr_assert_geq(fd, 0);
	cr_expect_eq(fallocate(fd, 0, 0, 8192), 0);
	cr_expect_eq(fallocate(fd, FALLOC_FL_KEEP_SIZE, 8192, 4096), 0);
	{
		struct stat st;

		fstat(fd, &st);
		cr_expect_eq(st.st_size, 8192);
	}
	cr_expect_eq(pwrite(fd, "DATA", 4, 1 << 20), 4);
	cr_expect_eq(lseek(fd, 16384, SEEK_DATA), 1 << 20, "hole skipped by SEEK_DATA");
	{
		/* Where preallocated space counts as a hole is the lower's call. */
		int lfd = open(L("sparse"), O_RDONLY);

		cr_expect_eq(lseek(fd, 0, SEEK_HOLE), lseek(lfd, 0, SEEK_HOLE));
		cr_expect_eq(lseek(fd, 1 << 20, SEEK_HOLE), lseek(lfd, 1 << 20, SEEK_HOLE));
		close(lfd);
	}
	fd2 = open(M("copy"), O_CREAT | O_RDWR, 0644);
	cr_assert_geq(fd2, 0);
	{
		loff_t in = 1 << 20, out = 0;

		cr_expect_eq(copy_file_range(fd, &in, fd2, &out, 4, 0), 4);
	}
	cr_expect_eq(pread(fd2, buf, 4, 0), 4);
	cr_expect_str_eq(buf, "DATA");
	cr_expect_eq(fsync(fd), 0);
	cr_expect_eq(fdatasync(fd2), 0);
	close(fd);
	close(fd2);
}

Test(ops, flock_conflicts_and_statfs_and_access)
{
	int a = open(M("lock"), O_CREAT | O_RDWR, 0644), b, dfd;
	struct statvfs ms, ls;

	b = open(M("lock"), O_RDWR);
	cr_assert_geq(a, 0);
	cr_assert_geq(b, 0);
	cr_expect_eq(flock(a, LOCK_EX), 0);
	cr_expect_eq(flock(b, LOCK_EX | LOCK_NB), -1);
	cr_expect_eq(errno, EWOULDBLOCK);
	cr_expect_eq(flock(a, LOCK_UN), 0);
	cr_expect_eq(flock(b, LOCK_EX | LOCK_NB), 0);
	close(a);
	close(b);
	cr_assert_eq(statvfs(m.dir, &ms), 0);
	cr_assert_eq(statvfs(m.lower, &ls), 0);
	cr_expect_eq(ms.f_blocks, ls.f_blocks);
	cr_expect_eq(ms.f_bsize, ls.f_bsize);
	cr_expect_eq(access(M("lock"), R_OK | W_OK), 0);
	cr_expect_eq(access(M("lock"), X_OK), -1);
	cr_expect_eq(errno, EACCES);
	dfd = open(m.dir, O_RDONLY | O_DIRECTORY);
	cr_expect_eq(fsync(dfd), 0);
	close(dfd);
}

static int names(const char *dir, char list[][32], int max)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	cr_assert_not_null(d);
	while ((de = readdir(d)) && n < max)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			snprintf(list[n++], 32, "%s", de->d_name);
	closedir(d);
	qsort(list, (size_t)n, 32, (int (*)(const void *, const void *))strcmp);
	return n;
}

Test(ops, listing_matches_lower_and_hides_control_dir)
{
	static char a[3000][32], b[3000][32];
	char p[PATH_MAX];
	int na, nb;

	/* Enough entries for several readdir calls. */
	cr_assert_eq(h_sh("cd '%s' && mkdir big && cd big && seq 1 2500 | xargs touch", m.lower), 0);
	cr_assert_eq(h_write_str(M("top"), "t"), 0);
	na = names(m.dir, a, 3000);
	nb = names(m.lower, b, 3000);
	cr_expect_eq(na, nb);
	for (int i = 0; i < na && i < nb; i++)
		cr_expect_str_eq(a[i], b[i]);
	for (int i = 0; i < na; i++)
		cr_expect_str_neq(a[i], ".osprof");
	cr_expect_eq(access(m.ctl, F_OK), 0, "yet it can be looked up");
	na = names(h_path(p, m.dir, "big"), a, 3000);
	cr_expect_eq(na, 2500);
}

Test(ops, o_direct_reads_and_writes_work)
{
	char *buf;
	int fd;

	cr_assert_eq(posix_memalign((void **)&buf, 4096, 8192), 0);
	memset(buf, 'z', 8192);
	fd = open(M("direct"), O_CREAT | O_RDWR | O_DIRECT, 0644);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_expect_eq(pwrite(fd, buf, 8192, 0), 8192, "%s", strerror(errno));
	memset(buf, 0, 8192);
	cr_expect_eq(pread(fd, buf, 512, 4096), 512, "%s", strerror(errno));
	cr_expect_eq(buf[0], 'z');
	cr_expect_eq(buf[511], 'z');
	close(fd);
	free(buf);
}

/*
 * Failing calls, one row each, checked for their exact errno. Rows marked
 * "daemon" are answered by the passthrough's handler with the lower's
 * error (the kernel cannot tell beforehand), so they check the sign
 * conversion at the reply (ofs_reply_err, fs/ofs.h); the others the
 * kernel answers from what the daemon told it before (the entry, the
 * attributes). EEXIST on O_EXCL, link and rename, EXDEV and EWOULDBLOCK
 * are checked in the tests above.
 */
/* What a row calls, on path p (and q, or the xattr name). */
enum call {
	C_STAT,
	C_OPEN,        /* with arg's flags */
	C_MKDIR,
	C_RMDIR,
	C_UNLINK,
	C_RENAME,      /* p onto q */
	C_READLINK,
	C_GETXATTR,    /* name q into a buffer of arg bytes */
	C_SETXATTR,    /* name q */
	C_REMOVEXATTR, /* name q */
	C_ACCESS,      /* mask arg */
	C_UTIMES,
	C_TRUNCATE,
	C_SEEK_DATA,   /* from offset arg */
};

struct row {
	const char *what;
	enum call call;
	const char *p, *q;
	int arg;
	int want;            /* the errno expected */
	bool daemon;         /* the handler's own error reply carries it */
	bool immutable;      /* needs "imm" immutable on the lower */
};

/* 300 bytes: over the lower's NAME_MAX, under FUSE's 1024 (the daemon sees it). */
static char long_name[301];

static const struct row rows[] = {
	{ "lookup of a missing name", C_STAT, "missing", .want = ENOENT, .daemon = true },
	{ "open of a missing file", C_OPEN, "missing", .arg = O_RDONLY, .want = ENOENT,
	  .daemon = true },
	{ "lookup of a name too long", C_STAT, long_name, .want = ENAMETOOLONG, .daemon = true },
	{ "rmdir of a non-empty directory", C_RMDIR, "full", .want = ENOTEMPTY, .daemon = true },
	{ "rename onto a non-empty directory", C_RENAME, "empty", "full", .want = ENOTEMPTY,
	  .daemon = true },
	{ "getxattr of a missing attribute", C_GETXATTR, "f", "user.none", 64, .want = ENODATA,
	  .daemon = true },
	{ "removexattr of a missing attribute", C_REMOVEXATTR, "f", "user.none",
	  .want = ENODATA, .daemon = true },
	/* ERANGE is also what libfuse sends for a positive (wrong-signed)
	 * error: this row alone would not see a sign flipped. */
	{ "getxattr into too small a buffer", C_GETXATTR, "f", "user.big", 2, .want = ERANGE,
	  .daemon = true },
	{ "setxattr outside any namespace", C_SETXATTR, "f", "nonamespace.x",
	  .want = EOPNOTSUPP, .daemon = true },
	{ "access X_OK of a mode 0644 file", C_ACCESS, "f", .arg = X_OK, .want = EACCES,
	  .daemon = true },
	{ "seek to data past the end", C_SEEK_DATA, "f", .arg = 4096, .want = ENXIO,
	  .daemon = true },
	{ "unlink of an immutable file", C_UNLINK, "imm", .want = EPERM, .daemon = true,
	  .immutable = true },
	{ "open for writing of an immutable file", C_OPEN, "imm", .arg = O_WRONLY,
	  .want = EPERM, .daemon = true, .immutable = true },
	{ "utimes of an immutable file", C_UTIMES, "imm", .want = EPERM, .daemon = true,
	  .immutable = true },
	{ "truncate of an immutable file", C_TRUNCATE, "imm", .want = EPERM, .daemon = true,
	  .immutable = true },
	{ "mkdir of an existing directory", C_MKDIR, "empty", .want = EEXIST },
	{ "rmdir of a file", C_RMDIR, "f", .want = ENOTDIR },
	{ "lookup through a file", C_STAT, "f/x", .want = ENOTDIR },
	{ "unlink of a directory", C_UNLINK, "empty", .want = EISDIR },
	{ "open of a directory for writing", C_OPEN, "empty", .arg = O_WRONLY, .want = EISDIR },
	{ "readlink of a file", C_READLINK, "f", .want = EINVAL },
};

/* Run @r through the mount: 0 when the call succeeded, else its errno. */
static int run(const struct row *r)
{
	char buf[64];
	const char *p = M(r->p), *q = r->q ? M(r->q) : NULL;
	int fd, res = 0;

	errno = 0;
	switch (r->call) {
	case C_STAT: {
		struct stat st;

		res = stat(p, &st);
		break;
	}
	case C_OPEN:
		fd = open(p, r->arg);
		if (fd >= 0 && h_noopen() && r->immutable) {
			/*
			 * -o noopen: the kernel answers the open itself, so
			 * the lower's EPERM comes with the first write (the
			 * daemon opens the lower file for it then).
			 */
			res = write(fd, "x", 1) == 1 ? 0 : errno;
			close(fd);
			return res;
		}
		if (fd >= 0)
			close(fd);
		res = fd < 0 ? -1 : 0;
		break;
	case C_MKDIR:
		res = mkdir(p, 0755);
		break;
	case C_RMDIR:
		res = rmdir(p);
		break;
	case C_UNLINK:
		res = unlink(p);
		break;
	case C_RENAME:
		res = rename(p, q);
		break;
	case C_READLINK:
		res = readlink(p, buf, sizeof(buf)) < 0 ? -1 : 0;
		break;
	case C_GETXATTR:
		res = getxattr(p, r->q, buf, (size_t)r->arg) < 0 ? -1 : 0;
		break;
	case C_SETXATTR:
		res = setxattr(p, r->q, "v", 1, 0);
		break;
	case C_REMOVEXATTR:
		res = removexattr(p, r->q);
		break;
	case C_ACCESS:
		res = access(p, r->arg);
		break;
	case C_UTIMES:
		res = utimensat(AT_FDCWD, p, NULL, 0);
		break;
	case C_TRUNCATE:
		res = truncate(p, 0);
		break;
	case C_SEEK_DATA:
		fd = open(p, O_RDONLY);
		if (fd < 0)
			return errno;
		res = lseek(fd, r->arg, SEEK_DATA) < 0 ? -1 : 0;
		res = res ? errno : 0;
		close(fd);
		return res;
	}
	return res ? errno : 0;
}

/* Set or clear the immutable flag of lower file @path: 0 or -errno. */
static int set_immutable(const char *path, bool on)
{
	int fd = open(path, O_RDONLY), flags, err = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
		err = -errno;
	} else {
		flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags) != 0)
			err = -errno;
	}
	close(fd);
	return err;
}

Test(ops, each_failing_call_fails_with_the_lower_errno)
{
	bool immutable;

	memset(long_name, 'n', sizeof(long_name) - 1);
	cr_assert_eq(h_write_str(L("f"), "x"), 0);
	cr_assert_eq(chmod(L("f"), 0644), 0);
	cr_assert_eq(setxattr(L("f"), "user.big", "0123456789", 10, 0), 0);
	cr_assert_eq(mkdir(L("empty"), 0755), 0);
	cr_assert_eq(mkdir(L("full"), 0755), 0);
	cr_assert_eq(h_write_str(L("full/inner"), "i"), 0);
	cr_assert_eq(h_write_str(L("imm"), "i"), 0);
	/* The lower's file system may have no such flag: those rows are skipped. */
	immutable = set_immutable(L("imm"), true) == 0;
	if (!immutable)
		cr_log_warn("no immutable flag on the lower: its rows are skipped");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		int got;

		if (r->immutable && !immutable)
			continue;
		got = run(r);
		cr_expect_eq(got, r->want, "%s%s: errno %d (%s), expected %d (%s)", r->what,
			     r->daemon ? " (daemon)" : "", got, strerror(got), r->want,
			     strerror(r->want));
	}
	if (immutable)
		cr_expect_eq(set_immutable(L("imm"), false), 0);
	/* Nothing was changed by the failing calls. */
	cr_expect_eq(access(L("full/inner"), F_OK), 0);
	cr_expect_eq(access(L("imm"), F_OK), 0);
}
