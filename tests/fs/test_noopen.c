// SPDX-License-Identifier: MIT
/*
 * -o noopen: the kernel answers opens itself. Only the first OPEN,
 * OPENDIR, CREATE and FLUSH reach the daemon (answered ENOSYS), and no
 * RELEASE; what files and listings read and write, compared with the
 * lower files, goes through the daemon's descriptors per inode. The
 * POSIX cases the kernel now handles alone keep their behaviour: O_TRUNC
 * (a SETATTR), O_APPEND, O_CREAT|O_EXCL, FIFOs, fsync, a file unlinked
 * or renamed over while open, O_DIRECT (to the lower disk),
 * permissions (default_permissions), locks between processes (kept in
 * the kernel). Refused: under cache=never,
 * with passthrough, with writeback.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

TestSuite(noopen, .init = up, .fini = down, .timeout = 120);

#define M(p) h_at(m.dir, p)
#define L(p) h_at(m.lower, p)

static void start(const char *cache)
{
	const char *args[] = { "-o", cache, "-o", "noopen", NULL };

	h_start(&m, args);
}

static void expect_file(const char *name, const char *want)
{
	char *got = h_slurp(L(name), NULL);

	cr_assert_not_null(got, "lower %s: %s", name, strerror(errno));
	cr_expect_str_eq(got, want, "lower %s", name);
	free(got);
}

Test(noopen, only_the_first_open_reaches_the_daemon_and_reads_match)
{
	struct osp_profile *p;
	char name[32], want[32];

	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		snprintf(want, sizeof(want), "content %d\n", i);
		cr_assert_eq(h_write_str(L(name), want), 0);
	}
	cr_assert_eq(mkdir(L("d"), 0755), 0);
	start("cache=auto");
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 5; i++) {
			char *got;

			snprintf(name, sizeof(name), "f%d", i);
			snprintf(want, sizeof(want), "content %d\n", i);
			got = h_slurp(M(name), NULL);
			cr_assert_not_null(got, "%s: %s", name, strerror(errno));
			cr_expect_str_eq(got, want);
			free(got);
		}
		cr_assert_eq(h_sh("ls '%s' '%s' >/dev/null", m.dir, M("d")), 0);
	}
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "open"), 1, "open: %llu", (unsigned long long)h_count(p, "open"));
	cr_expect_eq(h_count(p, "opendir"), 1);
	cr_expect_eq(h_count(p, "flush"), 1);
	cr_expect_eq(h_count(p, "release"), 0);
	cr_expect_eq(h_count(p, "releasedir"), 0);
	cr_expect_geq(h_count(p, "read"), 5, "every file read once at least");
	cr_expect_str_eq(osp_kv_get(&p->options, "noopen"), "true");
	cr_expect_str_eq(osp_kv_get(&p->options, "kernel_answered"),
			 "\"open,opendir,create,flush,release,releasedir\"");
	osp_profile_free(p);
	{
		char *v = h_ctl_value(&m, "noopen");

		cr_expect_str_eq(v, "on");
		free(v);
	}
	cr_expect_geq(h_ctl_u64(&m, "iofds"), 5, "a record per file read");
	cr_expect_eq(h_stop(&m), 0);
}

Test(noopen, writes_truncate_append_and_create_as_posix_says)
{
	struct osp_profile *p;
	int fd;

	cr_assert_eq(h_write_str(L("t"), "a long first content\n"), 0);
	cr_assert_eq(h_write_str(L("a"), "one\n"), 0);
	start("cache=always");
	/* O_TRUNC: a SETATTR of size 0 (no OPEN carries it) */
	cr_assert_eq(h_write_str(M("t"), "short\n"), 0);
	expect_file("t", "short\n");
	/* O_APPEND, from two opens */
	for (int i = 0; i < 2; i++) {
		fd = open(M("a"), O_WRONLY | O_APPEND);
		cr_assert_geq(fd, 0, "%s", strerror(errno));
		cr_expect_eq(write(fd, "two\n", 4), 4);
		cr_expect_eq(fsync(fd), 0, "fsync: %s", strerror(errno));
		cr_expect_eq(close(fd), 0);
	}
	expect_file("a", "one\ntwo\ntwo\n");
	/*
	 * Appended to beside the mount: under cache=always the kernel's
	 * size is stale, but the lower file system places the append, as
	 * it did for the lower file opened O_APPEND.
	 */
	fd = open(L("a"), O_WRONLY | O_APPEND);
	cr_assert_eq(write(fd, "ext\n", 4), 4);
	close(fd);
	fd = open(M("a"), O_WRONLY | O_APPEND);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_expect_eq(write(fd, "end\n", 4), 4);
	close(fd);
	expect_file("a", "one\ntwo\ntwo\next\nend\n");
	/* O_CREAT|O_EXCL: EEXIST on an existing file, a new one made */
	cr_expect_eq(open(M("a"), O_CREAT | O_EXCL | O_WRONLY, 0644), -1);
	cr_expect_eq(errno, EEXIST);
	fd = open(M("n"), O_CREAT | O_EXCL | O_RDWR, 0640);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_expect_eq(pwrite(fd, "new\n", 4, 0), 4);
	{
		char buf[8] = "";

		cr_expect_eq(pread(fd, buf, sizeof(buf), 0), 4);
		cr_expect_str_eq(buf, "new\n");
	}
	close(fd);
	expect_file("n", "new\n");
	{
		struct stat st;

		cr_assert_eq(stat(L("n"), &st), 0);
		cr_expect_eq(st.st_mode & 07777, 0640);
	}
	p = h_profile(&m);
	/* CREATE answered ENOSYS once; the kernel makes files with MKNOD */
	cr_expect_eq(h_count(p, "create"), 1);
	cr_expect_eq(h_count(p, "mknod"), 1);
	cr_expect_eq(h_count(p, "open"), 1);
	cr_expect_geq(h_count(p, "fsync"), 2);
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
}

Test(noopen, a_fifo_opens_and_passes_data)
{
	char buf[8] = "";
	pid_t pid;
	int fd, st;

	start("cache=auto");
	cr_assert_eq(mkfifo(M("f"), 0644), 0, "%s", strerror(errno));
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		fd = open(M("f"), O_WRONLY);
		_exit(fd >= 0 && write(fd, "pipe", 4) == 4 ? 0 : 1);
	}
	fd = open(M("f"), O_RDONLY);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	cr_expect_eq(read(fd, buf, sizeof(buf) - 1), 4);
	cr_expect_str_eq(buf, "pipe");
	close(fd);
	cr_expect_eq(waitpid(pid, &st, 0), pid);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	cr_expect_eq(h_stop(&m), 0);
}

/* A file unlinked (or renamed over) while open: read, write, read back. */
/* Whether page @pg of lower file @path is in the page cache. */
static bool lower_cached(const char *path, size_t pg)
{
	long psz = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDONLY);
	unsigned char vec[16] = { 0 };
	void *map;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	map = mmap(NULL, 16 * (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	cr_assert_neq(map, MAP_FAILED);
	cr_assert_eq(mincore(map, 16 * (size_t)psz, vec), 0);
	munmap(map, 16 * (size_t)psz);
	close(fd);
	return vec[pg] & 1;
}

/*
 * An O_DIRECT file's reads and writes reach the lower file with O_DIRECT
 * too (the request carries the file's flags): the lower page cache stays
 * empty, as it would natively. Regression: they went through the
 * buffered descriptor, and the lower pages were cached.
 */
Test(noopen, o_direct_reads_and_writes_bypass_the_lower_page_cache)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *buf, *lower = L("direct");
	int fd;

	cr_assert_eq(posix_memalign((void **)&buf, (size_t)psz, (size_t)psz), 0);
	fd = open(lower, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < 16; i++) {
		memset(buf, 'a' + i, (size_t)psz);
		cr_assert_eq(write(fd, buf, (size_t)psz), psz);
	}
	cr_assert_eq(fsync(fd), 0);
	cr_assert_eq(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
	close(fd);
	if (lower_cached(lower, 2))
		cr_skip_test("the lower file system keeps its pages cached (tmpfs?)");
	start("cache=auto");
	fd = open(M("direct"), O_RDWR | O_DIRECT);
	cr_assert_geq(fd, 0, "open O_DIRECT: %s", strerror(errno));
	cr_assert_eq(pread(fd, buf, (size_t)psz, 2 * psz), psz, "%s", strerror(errno));
	cr_expect_eq(buf[0], 'c');
	cr_expect_eq(buf[psz - 1], 'c');
	/* not in whole pages: served buffered, the call succeeds */
	cr_assert_eq(pread(fd, buf, 100, psz + 10), 100, "%s", strerror(errno));
	cr_expect_eq(buf[99], 'b');
	memset(buf, 'z', (size_t)psz);
	cr_assert_eq(pwrite(fd, buf, (size_t)psz, 4 * psz), psz, "%s", strerror(errno));
	close(fd);
	cr_expect_not(lower_cached(lower, 2), "the read went through the lower page cache");
	cr_expect_not(lower_cached(lower, 4), "the write went through the lower page cache");
	fd = open(lower, O_RDONLY);
	cr_assert_eq(pread(fd, buf, (size_t)psz, 4 * psz), psz);
	cr_expect_eq(buf[0], 'z', "the write reached the lower file");
	close(fd);
	free(buf);
	cr_expect_eq(h_stop(&m), 0);
}

static void use_removed(const char *name, bool by_rename)
{
	char buf[32] = "";
	int fd = open(M(name), O_RDWR);

	cr_assert_geq(fd, 0, "%s", strerror(errno));
	if (by_rename) {
		cr_assert_eq(h_write_str(M("other"), "other\n"), 0);
		cr_assert_eq(rename(M("other"), M(name)), 0, "%s", strerror(errno));
	} else {
		cr_assert_eq(unlink(M(name)), 0, "%s", strerror(errno));
	}
	/* other files fill the tables of records and of O_PATH descriptors:
	 * only a pin keeps the removed file's */
	cr_assert_eq(h_sh("cat '%s'/filler* >/dev/null", m.dir), 0);
	cr_expect_eq(pread(fd, buf, sizeof(buf) - 1, 0), 5, "read: %s", strerror(errno));
	cr_expect_str_eq(buf, "data\n");
	cr_expect_eq(pwrite(fd, "more\n", 5, 5), 5, "write: %s", strerror(errno));
	memset(buf, 0, sizeof(buf));
	cr_expect_eq(pread(fd, buf, sizeof(buf) - 1, 0), 10);
	cr_expect_str_eq(buf, "data\nmore\n");
	cr_expect_eq(fsync(fd), 0);
	close(fd);
}

Test(noopen, a_file_removed_while_open_stays_readable_and_writable)
{
	/* fd_cache=16: the daemon keeps few idle descriptors, so the
	 * removed files' would be gone without their pin */
	const char *args[] = { "-o", "cache=auto,noopen,fd_cache=16", NULL };
	char name[32];

	cr_assert_eq(h_write_str(L("u"), "data\n"), 0);
	cr_assert_eq(h_write_str(L("r"), "data\n"), 0);
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "filler%d", i);
		cr_assert_eq(h_write_str(L(name), "x"), 0);
	}
	h_start(&m, args);
	cr_assert_eq(h_sh("cat '%s'/u '%s'/r >/dev/null", m.dir, m.dir), 0);
	use_removed("u", false);
	use_removed("r", true);
	cr_expect_eq(h_stop(&m), 0);
}

Test(noopen, a_listing_of_many_replies_gives_every_name)
{
	char name[64];
	DIR *d;
	struct dirent *de;
	unsigned seen = 0;
	static bool found[2000];

	cr_assert_eq(mkdir(L("big"), 0755), 0);
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "big/a_rather_long_file_name_%04d", i);
		cr_assert_eq(h_write_str(L(name), ""), 0);
	}
	start("cache=auto");
	/* twice: the second from the start of the same stream */
	for (int pass = 0; pass < 2; pass++) {
		memset(found, 0, sizeof(found));
		seen = 0;
		d = opendir(M("big"));
		cr_assert_not_null(d, "%s", strerror(errno));
		while ((de = readdir(d))) {
			int i;

			if (sscanf(de->d_name, "a_rather_long_file_name_%d", &i) == 1 &&
			    i >= 0 && i < 2000 && !found[i]) {
				found[i] = true;
				seen++;
			}
		}
		closedir(d);
		cr_expect_eq(seen, 2000, "pass %d: %u of 2000 names", pass, seen);
	}
	cr_expect_eq(h_stop(&m), 0);
}

static char secret_path[PATH_MAX];

static int read_secret(void)
{
	int fd = open(secret_path, O_RDONLY);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

Test(noopen, another_user_cannot_read_a_private_file)
{
	const char *args[] = { "-o", "cache=auto,noopen,allow_other", NULL };

	cr_assert_eq(h_write_str(L("secret"), "s\n"), 0);
	cr_assert_eq(chmod(L("secret"), 0600), 0);
	h_start(&m, args);
	/* root reads it (and so the daemon would, for anyone, unchecked) */
	cr_assert_eq(h_sh("cat '%s' >/dev/null", M("secret")), 0);
	snprintf(secret_path, sizeof(secret_path), "%s", M("secret"));
	cr_expect_eq(h_as(65534, 65534, NULL, 0, read_secret), EACCES);
	cr_expect_eq(h_stop(&m), 0);
}

/* In a child: 0 when a non-blocking lock of @path conflicts (EWOULDBLOCK). */
static int lock_conflicts(const char *path, bool posix)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_RDWR), r;

		if (fd < 0)
			_exit(2);
		r = posix ? fcntl(fd, F_SETLK, &fl) : flock(fd, LOCK_EX | LOCK_NB);
		_exit(r == -1 && (errno == EWOULDBLOCK || errno == EAGAIN) ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

Test(noopen, locks_between_processes_hold_in_the_kernel)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct osp_profile *p;
	int fd;

	cr_assert_eq(h_write_str(L("l"), "lock\n"), 0);
	start("cache=auto");
	fd = open(M("l"), O_RDWR);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flock(fd, LOCK_EX), 0);
	cr_expect_eq(lock_conflicts(M("l"), false), 0, "a second flock conflicts");
	cr_assert_eq(flock(fd, LOCK_UN), 0);
	cr_expect_eq(lock_conflicts(M("l"), false), 1, "unlocked: granted");
	cr_assert_eq(fcntl(fd, F_SETLK, &fl), 0);
	cr_expect_eq(lock_conflicts(M("l"), true), 0, "a second fcntl lock conflicts");
	close(fd);
	cr_expect_eq(lock_conflicts(M("l"), true), 1, "closed: its lock went with it");
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "flock"), 0, "no lock reaches the daemon");
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
}

Test(noopen, refused_under_never_with_passthrough_and_with_writeback)
{
	static const char *const sets[][2] = {
		{ "noopen", "cache=auto or cache=always" },
		{ "noopen,cache=never", "cache=auto or cache=always" },
		{ "noopen,cache=auto,passthrough", "exclude each other" },
		{ "noopen,cache=always,writeback", "exclude each other" },
	};

	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		const char *args[] = { m.lower, m.dir, "-f", "-o", sets[i][0], NULL };
		char *err = NULL;

		cr_expect_eq(h_run_fail(args, &err), 2, "-o %s", sets[i][0]);
		cr_expect(strstr(err, sets[i][1]) != NULL, "-o %s: %s", sets[i][0], err);
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
		free(err);
	}
}
