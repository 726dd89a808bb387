// SPDX-License-Identifier: MIT
/*
 * The transports themselves (fs/ofs_tr.c, ofs_tr_uring.c), beyond the
 * matrix that runs every mount test under each: a 64 MiB file read
 * through passthrough sends no READ, mmap reads and writes pass through
 * in every caching mode, O_DIRECT, truncating and renaming over a file
 * while it is open, backing ids and descriptors not leaked, a blocking
 * lock while other requests go on over io_uring, a daemon killed
 * mid-workload (ENOTCONN), io_uring's threads pinned on request, and
 * the one line and the fallback (or the refusal, with =require) when
 * enable_uring is N.
 *
 * Tests that need enable_uring hold the lock with_uring.sh takes, set it
 * and put it back in their .fini.
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
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define URING_PARAM "/sys/module/fuse/parameters/enable_uring"

static struct mnt m;
static int uring_lock = -1;
static char uring_old = 0;

static void up(void)
{
	h_tree(&m);
}

static void down(void)
{
	h_cleanup(&m);
	if (uring_old)
		h_sh("echo %c > " URING_PARAM, uring_old);
	if (uring_lock >= 0)
		close(uring_lock);
}

TestSuite(transport, .init = up, .fini = down, .timeout = 120);

/* Hold with_uring.sh's lock and set enable_uring to @v ('Y' or 'N'),
 * put back by the suite's .fini. */
static void set_uring(char v)
{
	const char *path = getenv("OSPROF_URING_LOCK") ? getenv("OSPROF_URING_LOCK")
						     : "/tmp/osprof-enable-uring.lock";
	char *cur;

	uring_lock = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	cr_assert_geq(uring_lock, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(flock(uring_lock, LOCK_EX), 0);
	cur = h_slurp(URING_PARAM, NULL);
	cr_assert_not_null(cur, "this kernel has no FUSE over io_uring");
	uring_old = cur[0];
	free(cur);
	cr_assert_eq(h_sh("echo %c > " URING_PARAM, v), 0);
}

static void expect_ctl(const char *key, const char *want)
{
	char *v = h_ctl_value(&m, key);

	cr_expect(v && strcmp(v, want) == 0, "ctl %s: '%s', expected '%s'", key, v ? v : "(none)", want);
	free(v);
}

static unsigned open_fds(pid_t pid)
{
	char path[64];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

Test(transport, a_64_mib_read_through_passthrough_sends_no_read)
{
	const char *args[] = { "-o", "passthrough=require", NULL };
	struct osp_profile *p;
	char *s;

	cr_assert_eq(h_sh("head -c 64M /dev/urandom > '%s'", h_at(m.lower, "big")), 0);
	h_start(&m, args);
	expect_ctl("passthrough", "on");
	cr_expect_eq(h_sh("cmp '%s' '%s'", h_at(m.dir, "big"), h_at(m.lower, "big")), 0);
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "read"), 0);
	cr_expect_eq(h_count(p, "open"), 1);
	cr_expect_str_eq(osp_kv_get(&p->options, "passthrough"), "true");
	cr_expect_str_eq(osp_kv_get(&p->options, "passed_through"), "\"read,write\"");
	osp_profile_free(p);
	s = h_slurp(h_at(m.ctl, "stats"), NULL);
	cr_expect_not_null(strstr(s, "\nread         passed through: "), "%s", s);
	free(s);
	expect_ctl("passthrough_opens", "1");
	cr_expect_eq(h_stop(&m), 0);
}

/* Map @name shared, write through the map, read it back every way. */
static void mmap_round_trip(const char *cache)
{
	char opt[64];
	const char *args[] = { "-o", "passthrough=require", "-o", opt, NULL };
	struct osp_profile *p;
	char *map, *s;
	int fd;

	snprintf(opt, sizeof(opt), "cache=%s", cache);
	cr_assert_eq(h_write_str(h_at(m.lower, "m"), "0123456789"), 0);
	h_start(&m, args);
	fd = open(h_at(m.dir, "m"), O_RDWR);
	cr_assert_geq(fd, 0);
	map = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(map, MAP_FAILED, "shared mmap under cache=%s: %s", cache, strerror(errno));
	cr_expect_eq(memcmp(map, "0123456789", 10), 0);
	memcpy(map + 2, "ab", 2);
	cr_expect_eq(msync(map, 4096, MS_SYNC), 0);
	munmap(map, 4096);
	close(fd);
	s = h_slurp(h_at(m.dir, "m"), NULL);
	cr_expect_str_eq(s, "01ab456789", "through the mount");
	free(s);
	s = h_slurp(h_at(m.lower, "m"), NULL);
	cr_expect_str_eq(s, "01ab456789", "on the lower file");
	free(s);
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "read") + h_count(p, "write"), 0, "the map's pages never came here");
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
}

Test(transport, mmap_reads_and_writes_pass_through_under_never)
{
	mmap_round_trip("never");
}

Test(transport, mmap_reads_and_writes_pass_through_under_auto)
{
	mmap_round_trip("auto");
}

Test(transport, mmap_reads_and_writes_pass_through_under_always)
{
	mmap_round_trip("always");
}

Test(transport, o_direct_reads_and_writes_pass_through)
{
	const char *args[] = { "-o", "passthrough=require", NULL };
	struct osp_profile *p;
	void *buf;
	int fd;

	cr_assert_eq(posix_memalign(&buf, 4096, 8192), 0);
	cr_assert_eq(h_sh("head -c 1M /dev/urandom > '%s'", h_at(m.lower, "d")), 0);
	h_start(&m, args);
	fd = open(h_at(m.dir, "d"), O_RDWR | O_DIRECT);
	cr_assert_geq(fd, 0, "%s", strerror(errno));
	memset(buf, 'q', 8192);
	cr_expect_eq(pwrite(fd, buf, 8192, 65536), 8192, "%s", strerror(errno));
	memset(buf, 0, 8192);
	cr_expect_eq(pread(fd, buf, 8192, 65536), 8192, "%s", strerror(errno));
	cr_expect_eq(((char *)buf)[8191], 'q');
	close(fd);
	cr_expect_eq(h_sh("cmp '%s' '%s'", h_at(m.dir, "d"), h_at(m.lower, "d")), 0);
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "read") + h_count(p, "write"), 0);
	osp_profile_free(p);
	free(buf);
	cr_expect_eq(h_stop(&m), 0);
}

Test(transport, truncate_and_rename_over_an_open_file)
{
	const char *args[] = { "-o", "passthrough=require", NULL };
	char buf[64] = { 0 };
	int fd;

	cr_assert_eq(h_write_str(h_at(m.lower, "t"), "0123456789"), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "new"), "replacement"), 0);
	h_start(&m, args);
	fd = open(h_at(m.dir, "t"), O_RDWR);
	cr_assert_geq(fd, 0);
	cr_expect_eq(truncate(h_at(m.dir, "t"), 4), 0);
	cr_expect_eq(pread(fd, buf, sizeof(buf), 0), 4, "the open file sees the new size");
	cr_expect_eq(memcmp(buf, "0123", 4), 0);
	cr_expect_eq(pwrite(fd, "XY", 2, 8), 2);
	cr_expect_eq(rename(h_at(m.dir, "new"), h_at(m.dir, "t")), 0);
	/* the open file is the old one, unlinked; the name the new one */
	memset(buf, 0, sizeof(buf));
	cr_expect_eq(pread(fd, buf, sizeof(buf), 0), 10);
	cr_expect_eq(memcmp(buf, "0123\0\0\0\0XY", 10), 0);
	close(fd);
	{
		char *s = h_slurp(h_at(m.dir, "t"), NULL);

		cr_expect_str_eq(s, "replacement");
		free(s);
	}
	cr_expect_eq(h_stop(&m), 0);
}

/* Releases are asynchronous: wait until the last backing id is closed. */
static void wait_released(void)
{
	for (int i = 0; i < 100; i++) {
		char *v = h_ctl_value(&m, "passthrough_backing_ids");
		bool zero = v && strcmp(v, "0") == 0;

		free(v);
		if (zero)
			return;
		usleep(20000);
	}
}

Test(transport, backing_ids_and_descriptors_are_not_leaked)
{
	const char *args[] = { "-o", "passthrough=require", NULL };
	unsigned before = 0, after;
	char name[32];

	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(h_write_str(h_at(m.lower, name), name), 0);
	}
	h_start(&m, args);
	for (int round = 0; round < 4; round++) {
		int fds[50];

		/* opens of one inode share its id; of 50, 50 ids */
		for (int i = 0; i < 50; i++) {
			snprintf(name, sizeof(name), "f%d", i);
			fds[i] = open(h_at(m.dir, name), round % 2 ? O_RDWR : O_RDONLY);
			cr_assert_geq(fds[i], 0);
		}
		expect_ctl("passthrough_backing_ids", "50");
		for (int i = 0; i < 50; i++)
			close(fds[i]);
		wait_released();
		expect_ctl("passthrough_backing_ids", "0");
		/* after a first round, the inodes' O_PATH descriptors are in
		 * the daemon's cache (-o fd_cache): the baseline */
		if (round == 0)
			before = open_fds(m.pid);
	}
	expect_ctl("passthrough_opens", "200");
	after = open_fds(m.pid);
	cr_expect_eq(after, before, "the daemon's descriptors: %u before, %u after", before, after);
	cr_expect_eq(h_stop(&m), 0);
}

static bool gone(int err)
{
	return err == ENOTCONN || err == ECONNABORTED || err == ECANCELED;
}

/* Kill the daemon while a reader loops: the reader's calls fail
 * (ENOTCONN; ECONNABORTED for one in flight), and so does any after. */
static void killed_mid_workload(const char *opt)
{
	const char *args[] = { "-o", opt, NULL };
	pid_t reader;
	int status;

	cr_assert_eq(h_write_str(h_at(m.lower, "k"), "data"), 0);
	h_start(&m, args);
	reader = fork();
	cr_assert_geq(reader, 0);
	if (reader == 0) {
		for (;;) {
			struct stat st;
			int fd = open(h_at(m.dir, "k"), O_RDONLY);
			char c;

			/* exit status: 0 for ENOTCONN, or for the call in
			 * flight when the connection went, ECONNABORTED (or
			 * ECANCELED: over io_uring, a request the kernel was
			 * handing to a dead task's entry); else the errno */
			if (fd < 0)
				_exit(gone(errno) ? 0 : errno);
			if (read(fd, &c, 1) < 0 || fstat(fd, &st) < 0) {
				int e = errno;

				_exit(gone(e) ? 0 : e);
			}
			close(fd);
		}
	}
	usleep(200000);
	cr_assert_eq(kill(m.pid, SIGKILL), 0);
	waitpid(m.pid, &status, 0);
	m.pid = 0;
	cr_expect_eq(waitpid(reader, &status, 0), reader);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader ended with %#x", status);
	{
		struct stat st;
		int r = 0;

		/* Over io_uring the connection's end completes after the
		 * daemon is reaped (its rings are torn down by the kernel's
		 * workers): a call meanwhile is aborted (ECONNABORTED), one
		 * after it finds no connection. */
		for (int i = 0; i < 200; i++) {
			r = stat(h_at(m.dir, "k"), &st);
			if (r != -1 || errno != ECONNABORTED)
				break;
			usleep(10000);
		}
		cr_expect_eq(r, -1);
		cr_expect_eq(errno, ENOTCONN, "%s", strerror(errno));
	}
	h_sh("fusermount3 -uz '%s'", m.dir);
}

Test(transport, a_killed_daemon_leaves_enotconn_with_passthrough)
{
	killed_mid_workload("passthrough=require");
}

Test(transport, a_killed_daemon_leaves_enotconn_with_io_uring)
{
	set_uring('Y');
	killed_mid_workload("io_uring=require");
}

Test(transport, a_blocking_lock_leaves_io_uring_answering)
{
	const char *args[] = { "-o", "io_uring=require", NULL };
	int holder, status;
	pid_t waiter;

	set_uring('Y');
	cr_assert_eq(h_write_str(h_at(m.lower, "l"), "x"), 0);
	h_start(&m, args);
	expect_ctl("transport", "io_uring");
	holder = open(h_at(m.dir, "l"), O_RDWR);
	cr_assert_geq(holder, 0);
	cr_assert_eq(flock(holder, LOCK_EX), 0);
	waiter = fork();
	cr_assert_geq(waiter, 0);
	if (waiter == 0) {
		int fd = open(h_at(m.dir, "l"), O_RDWR);

		_exit(fd >= 0 && flock(fd, LOCK_EX) == 0 ? 0 : 1);
	}
	usleep(200000);
	cr_expect_eq(waitpid(waiter, &status, WNOHANG), 0, "the waiter waits");
	/* meanwhile every other request is answered */
	for (int i = 0; i < 200; i++) {
		struct stat st;
		char name[32];

		snprintf(name, sizeof(name), "n%d", i);
		cr_assert_eq(h_write_str(h_at(m.dir, name), name), 0);
		cr_assert_eq(stat(h_at(m.dir, name), &st), 0);
	}
	cr_expect_eq(flock(holder, LOCK_UN), 0);
	cr_expect_eq(waitpid(waiter, &status, 0), waiter);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the waiter got the lock");
	close(holder);
	cr_expect_eq(h_stop(&m), 0);
}

/* Threads of daemon @pid allowed on one CPU alone (Cpus_allowed_list a
 * single number). */
static unsigned pinned_threads(pid_t pid)
{
	char path[96], *st, *l;
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", (int)pid, e->d_name);
		st = h_slurp(path, NULL);
		if (!st)
			continue; /* gone meanwhile */
		l = strstr(st, "Cpus_allowed_list:");
		if (l) {
			l += strlen("Cpus_allowed_list:");
			l += strspn(l, " \t");
			n += l[strspn(l, "0123456789")] == '\n';
		}
		free(st);
	}
	closedir(d);
	return n;
}

/*
 * -o io_uring_pin keeps each online queue's threads (two at least) on
 * its CPU, and the profile says so; without it none is kept there (the
 * machine's CPUs all allowed); without io_uring it is refused.
 */
Test(transport, io_uring_pin_keeps_the_threads_on_their_cpu)
{
	const char *pin[] = { "-o", "io_uring=require,io_uring_pin", NULL };
	const char *free_[] = { "-o", "io_uring=require", NULL };
	const char *alone[] = { m.lower, m.dir, "-f", "-o", "io_uring_pin", NULL };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct osp_profile *p;
	char *err = NULL;

	if (ncpu < 2)
		cr_skip_test("one CPU: every thread is on it anyway");
	set_uring('Y');
	h_start(&m, free_);
	cr_assert_eq(h_write_str(h_at(m.dir, "f"), "x"), 0);
	cr_expect_eq(pinned_threads(m.pid), 0);
	cr_expect_eq(h_stop(&m), 0);
	h_start(&m, pin);
	cr_assert_eq(h_write_str(h_at(m.dir, "f"), "y"), 0);
	cr_expect_geq(pinned_threads(m.pid), 2 * (unsigned)ncpu, "two threads a CPU, pinned");
	p = h_profile(&m);
	cr_expect_str_eq(osp_kv_get(&p->options, "io_uring_pin"), "true");
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
	cr_expect_eq(h_run_fail(alone, &err), 2);
	cr_expect_str_eq(err, "osprof-fs: -o io_uring_pin needs -o io_uring (it keeps the io_uring "
			      "threads on their queue's CPU)\n");
	free(err);
}

Test(transport, io_uring_with_enable_uring_n_falls_back_in_one_line)
{
	const char *args[] = { "-o", "io_uring", NULL };
	char *log;

	set_uring('N');
	h_start(&m, args);
	expect_ctl("transport", "dev");
	cr_expect_eq(h_write_str(h_at(m.dir, "f"), "works"), 0);
	log = h_slurp(m.log, NULL);
	cr_expect_str_eq(log, "osprof-fs: io_uring off: the fuse module's enable_uring is N "
			      "(/sys/module/fuse/parameters/enable_uring)\n");
	free(log);
	/* said, and not a failure: the harness fails on anything else */
	cr_assert_eq(truncate(m.log, 0), 0);
	cr_expect_eq(h_stop(&m), 0);
}

Test(transport, io_uring_required_with_enable_uring_n_refuses_to_mount)
{
	const char *args[] = { m.lower, m.dir, "-f", "-o", "io_uring=require", NULL };
	char *err = NULL;

	set_uring('N');
	cr_expect_eq(h_run_fail(args, &err), 1);
	cr_expect_str_eq(err, "osprof-fs: -o io_uring=require: the fuse module's enable_uring is N "
			      "(/sys/module/fuse/parameters/enable_uring)\n");
	free(err);
	cr_expect_neq(h_sh("grep -q ' %s fuse' /proc/mounts", m.dir), 0, "nothing mounted");
}

Test(transport, passthrough_with_writeback_falls_back_or_refuses)
{
	const char *args[] = { "-o", "passthrough,cache=auto,writeback", NULL };
	const char *req[] = { m.lower, m.dir, "-f", "-o", "passthrough=require,cache=auto,writeback", NULL };
	char *log, *err = NULL;

	h_start(&m, args);
	expect_ctl("passthrough", "off (-o writeback is on (the kernel passes nothing through with the writeback cache))");
	log = h_slurp(m.log, NULL);
	cr_expect_str_eq(log, "osprof-fs: passthrough off: -o writeback is on (the kernel passes nothing through with the writeback cache)\n");
	free(log);
	cr_assert_eq(truncate(m.log, 0), 0);
	cr_expect_eq(h_stop(&m), 0);
	cr_expect_eq(h_run_fail(req, &err), 1);
	cr_expect_str_eq(err, "osprof-fs: -o passthrough=require: -o writeback is on (the kernel passes nothing through with the writeback cache)\n");
	free(err);
}

Test(transport, passthrough_and_io_uring_combine)
{
	const char *args[] = { "-o", "passthrough=require,io_uring=require,cache=auto", NULL };
	struct osp_profile *p;

	set_uring('Y');
	cr_assert_eq(h_sh("head -c 8M /dev/urandom > '%s'", h_at(m.lower, "big")), 0);
	h_start(&m, args);
	expect_ctl("transport", "io_uring");
	expect_ctl("passthrough", "on");
	cr_expect_eq(h_sh("cmp '%s' '%s'", h_at(m.dir, "big"), h_at(m.lower, "big")), 0);
	cr_expect_eq(h_write_str(h_at(m.dir, "new"), "written"), 0);
	{
		char *s = h_slurp(h_at(m.lower, "new"), NULL);

		cr_expect_str_eq(s, "written");
		free(s);
	}
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "read") + h_count(p, "write"), 0);
	cr_expect_eq(h_count(p, "open"), 1);
	cr_expect_eq(h_count(p, "create"), 1);
	cr_expect_str_eq(osp_kv_get(&p->options, "transport"), "\"io_uring\"");
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
}

Test(transport, without_either_nothing_changes)
{
	h_start(&m, NULL);
	expect_ctl("transport", "dev");
	expect_ctl("passthrough", "off (not asked for)");
	cr_expect_eq(h_stop(&m), 0);
}
