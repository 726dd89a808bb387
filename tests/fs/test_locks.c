// SPDX-License-Identifier: MIT
/*
 * Requests that block never stop the mount answering.
 *
 * Lock requests never hold a worker. One holder and 50 waiters
 * (flock, and fcntl F_SETLKW) on a file of the mount, in the thread-pool
 * and the polling modes: the mount answers a listing within a second
 * throughout; killing waiters frees them (the kernel interrupts their
 * requests); releasing the holder grants the others one by one; SIGTERM
 * with waiters present exits 0 with the dump written.
 *
 * Regression: flock() without LOCK_NB blocked a worker thread inside the
 * daemon; with as many waiters as workers, `ls` of the mount hung, the
 * holder's unlock could never be served and SIGTERM did not stop it.
 *
 * A slow lower file system (sleepfs, reads of 3 s) holds the workers its
 * requests run on, but more are started: a listing answers meanwhile.
 * Regression: the polling loop's fixed two workers were all held.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "osprof/format.h"
#include "harness.h"

static struct mnt m;
static struct sleepfs slow;

static void up(void)
{
	h_tree(&m);
}

static void down(void)
{
	h_cleanup_over(&m, &slow);
}

TestSuite(locks, .init = up, .fini = down, .timeout = 240);

#define NWAITERS 50

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Take the lock on a new descriptor of @path: flock or fcntl F_SETLKW. */
static int take(const char *path, bool posix)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDWR);

	if (fd < 0)
		return -1;
	if (posix ? fcntl(fd, F_SETLKW, &fl) : flock(fd, LOCK_EX)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A child that takes the lock, writes one byte to @report, closes (the
 * lock goes with it) and exits 0; with @hold, it first waits for a byte
 * on @hold (the holder).
 */
static pid_t spawn(const char *path, bool posix, int report, int hold)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char c = 'g';
		int fd = take(path, posix);

		if (fd < 0)
			_exit(10 + (errno & 0x7f));
		if (write(report, &c, 1) != 1)
			_exit(2);
		if (hold >= 0 && read(hold, &c, 1) != 1)
			_exit(3);
		close(fd);
		_exit(0);
	}
	return pid;
}

/* Wait up to @ms for @pid to exit; its status, or -1 on time-out. */
static int reap_within(pid_t pid, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	int st;

	do {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(2000);
	} while (now_ms() < end);
	return -1;
}

/* True when a child lists the mount and stats @name in under a second. */
static bool answers_within_a_second_for(const char *name)
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		DIR *d = opendir(m.dir);
		struct stat sb;
		int n = 0;

		if (!d)
			_exit(1);
		while (readdir(d))
			n++;
		closedir(d);
		_exit(n >= 3 && stat(h_at(m.dir, name), &sb) == 0 ? 0 : 2);
	}
	st = reap_within(pid, 1000);
	if (st == -1) {
		kill(pid, SIGKILL); /* stuck in the kernel: reaped at exit */
		return false;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static bool answers_within_a_second(void)
{
	return answers_within_a_second_for("f");
}

/* Bytes readable from @fd within @ms (each is one grant). */
static int grants_within(int fd, int want, uint64_t ms)
{
	uint64_t end = now_ms() + ms;
	int got = 0;
	char buf[64];

	while (got < want && now_ms() < end) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n > 0)
			got += (int)n;
		else
			usleep(2000);
	}
	return got;
}

/* A holder child with the lock, and the pipes to hear grants and release it. */
struct scene {
	char path[PATH_MAX]; /* the locked file, in the mount */
	int rep[2];          /* a byte per grant */
	int hold[2];         /* a byte releases the holder */
	pid_t holder;
};

/* Mount with @args, make file f and have a holder take its lock. */
static void scene_start(struct scene *sc, const char *const *args, bool posix)
{
	cr_assert_eq(h_write_str(h_path(sc->path, m.lower, "f"), "locked"), 0);
	h_start(&m, args);
	h_path(sc->path, m.dir, "f");
	cr_assert_eq(pipe2(sc->rep, O_NONBLOCK | O_CLOEXEC), 0);
	cr_assert_eq(pipe2(sc->hold, O_CLOEXEC), 0);
	sc->holder = spawn(sc->path, posix, sc->rep[1], sc->hold[0]);
	cr_assert_eq(grants_within(sc->rep[0], 1, 5000), 1, "the holder has the lock");
}

static void scene_release(struct scene *sc)
{
	cr_assert_eq(write(sc->hold[1], "u", 1), 1);
	cr_expect_eq(reap_within(sc->holder, 5000), 0, "the holder unlocked and left");
}

static void scene_end(struct scene *sc)
{
	close(sc->rep[0]);
	close(sc->rep[1]);
	close(sc->hold[0]);
	close(sc->hold[1]);
}

/* Wait until the daemon has @n lock requests waiting (up to 10 s). */
static void wait_for_waiters(uint64_t n)
{
	uint64_t end = now_ms() + 10000;

	while (h_ctl_u64(&m, "locks_waiting") < n && now_ms() < end)
		usleep(10000);
	cr_expect_eq(h_ctl_u64(&m, "locks_waiting"), n, "each waits in the daemon");
}

static void holder_and_waiters(const char *cache, bool posix)
{
	const char *args[] = { "-o", cache, NULL };
	/* flock waits in the daemon, but with noopen (cache=auto here) in
	 * the kernel: then only what the waiters see is checked */
	bool in_daemon = !posix && !(h_noopen() && strcmp(cache, "cache=never") != 0);
	struct scene sc;
	pid_t w[NWAITERS];
	int granted, st;

	scene_start(&sc, args, posix);
	for (int i = 0; i < NWAITERS; i++)
		w[i] = spawn(sc.path, posix, sc.rep[1], -1);
	usleep(300000);
	/* First, and fatal: reading ctl below would hang on a frozen mount. */
	cr_assert(answers_within_a_second(), "the mount answers while %d wait", NWAITERS);
	if (in_daemon)
		wait_for_waiters(NWAITERS);
	cr_expect_eq(grants_within(sc.rep[0], 1, 100), 0, "nobody got the held lock");
	for (int i = 0; i < 4; i++)
		cr_expect(answers_within_a_second(), "the mount answers while %d wait (%d)",
			  NWAITERS, i);

	/* Killing waiters frees them: the kernel interrupts their requests. */
	for (int i = 0; i < NWAITERS / 2; i++)
		kill(w[i], SIGKILL);
	for (int i = 0; i < NWAITERS / 2; i++) {
		st = reap_within(w[i], 5000);
		cr_expect(st != -1 && WIFSIGNALED(st), "killed waiter %d is gone", i);
	}
	cr_expect(answers_within_a_second(), "the mount answers after the kills");
	if (in_daemon) {
		uint64_t end = now_ms() + 5000;

		while (h_ctl_u64(&m, "locks_cancelled") < NWAITERS / 2 && now_ms() < end)
			usleep(10000);
		cr_expect_eq(h_ctl_u64(&m, "locks_cancelled"), NWAITERS / 2);
		cr_expect_eq(h_ctl_u64(&m, "locks_waiting"), NWAITERS - NWAITERS / 2);
	}

	/* Releasing the holder grants the next, and so on. */
	scene_release(&sc);
	granted = grants_within(sc.rep[0], NWAITERS - NWAITERS / 2, 20000);
	cr_expect_eq(granted, NWAITERS - NWAITERS / 2, "every live waiter got the lock");
	for (int i = NWAITERS / 2; i < NWAITERS; i++) {
		st = reap_within(w[i], 5000);
		cr_expect(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
			  "waiter %d: status %#x", i, st);
	}
	if (in_daemon)
		cr_expect_eq(h_ctl_u64(&m, "locks_granted_after_wait"), NWAITERS - NWAITERS / 2);
	scene_end(&sc);
	cr_expect_eq(h_stop(&m), 0);
}

/*
 * Over io_uring, a waiter's reply is handed to the thread of the ring
 * entry its request came in (its mailbox), which commits it. Once all
 * are granted no entry is counted held. Regression: the replier
 * committed the entry itself, and the count of its thread's held
 * entries stayed one too high for each (ctl io_uring_held).
 */
Test(locks, replies_handed_to_their_ring_leave_nothing_held)
{
	uint64_t end;
	struct scene sc;
	pid_t w[4];

	if (!strstr(h_transport(), "io_uring"))
		cr_skip_test("io_uring only");
	scene_start(&sc, NULL, false);
	for (int i = 0; i < 4; i++)
		w[i] = spawn(sc.path, false, sc.rep[1], -1);
	wait_for_waiters(4);
	cr_expect_eq(h_ctl_u64(&m, "io_uring_held"), 4, "each waiter's entry is held");
	scene_release(&sc);
	cr_expect_eq(grants_within(sc.rep[0], 4, 10000), 4, "every waiter got the lock");
	for (int i = 0; i < 4; i++)
		cr_expect_eq(reap_within(w[i], 5000), 0, "waiter %d", i);
	/* the last commits are the rings' threads' to make: a moment */
	end = now_ms() + 2000;
	while (h_ctl_u64(&m, "io_uring_held") > 0 && now_ms() < end)
		usleep(10000);
	cr_expect_eq(h_ctl_u64(&m, "io_uring_held"), 0);
	cr_expect(answers_within_a_second(), "the mount answers after");
	scene_end(&sc);
	cr_expect_eq(h_stop(&m), 0);
}

Test(locks, flock_waiters_in_the_worker_pool)
{
	holder_and_waiters("cache=never", false);
}

Test(locks, flock_waiters_with_polling_workers)
{
	holder_and_waiters("cache=auto", false);
}

Test(locks, fcntl_waiters_in_the_worker_pool)
{
	holder_and_waiters("cache=never", true);
}

Test(locks, fcntl_waiters_with_polling_workers)
{
	holder_and_waiters("cache=auto", true);
}

/*
 * The profile records a waited-for flock with its whole wait, once; and
 * a LOCK_NB attempt on a held lock fails at once with EWOULDBLOCK.
 */
Test(locks, a_wait_is_timed_whole_and_nonblocking_fails_at_once)
{
	struct osp_profile *p;
	const struct osp_op *op;
	struct scene sc;
	pid_t waiter;
	int fd;

	if (h_noopen())
		cr_skip_test("noopen: flock stays in the kernel, no wait reaches the daemon");
	scene_start(&sc, NULL, false);
	fd = open(sc.path, O_RDWR);
	cr_assert_geq(fd, 0);
	cr_expect_eq(flock(fd, LOCK_EX | LOCK_NB), -1);
	cr_expect_eq(errno, EWOULDBLOCK);
	close(fd);
	waiter = spawn(sc.path, false, sc.rep[1], -1);
	wait_for_waiters(1);
	usleep(300000); /* the wait from here on is at least 300 ms */
	scene_release(&sc);
	cr_expect_eq(reap_within(waiter, 5000), 0);
	p = h_profile(&m);
	op = osp_profile_find_op(p, "flock");
	cr_assert_not_null(op);
	/* holder, the LOCK_NB try, the waiter (its unlock is its close). */
	cr_expect_eq(op->lat.count, 3);
	/* Timing: 300 ms of the wait at least (a timer may fire early by a little). */
	cr_expect_geq(op->lat.max, 250000000u, "the wait is in the latency: %lu ns",
		      (unsigned long)op->lat.max);
	osp_profile_free(p);
	scene_end(&sc);
}

Test(locks, sigterm_with_waiters_exits_cleanly_and_dumps)
{
	char dump[PATH_MAX], err[256];
	const char *args[] = { "--dump", dump, NULL };
	struct osp_profile *p;
	struct scene sc;
	pid_t w[10];
	int st;

	if (h_noopen())
		cr_skip_test("noopen: flock stays in the kernel, no waiter is in the daemon");
	h_path(dump, m.top, "dump.json");
	scene_start(&sc, args, false);
	for (int i = 0; i < 10; i++)
		w[i] = spawn(sc.path, false, sc.rep[1], -1);
	wait_for_waiters(10);
	cr_assert_eq(kill(m.pid, SIGTERM), 0);
	st = reap_within(m.pid, 10000);
	cr_assert_neq(st, -1, "the daemon stopped");
	m.pid = 0;
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
	/* Each waiter had its answer: none hangs. */
	for (int i = 0; i < 10; i++)
		cr_expect_neq(reap_within(w[i], 5000), -1, "waiter %d left", i);
	cr_assert_eq(write(sc.hold[1], "u", 1), 1);
	cr_expect_neq(reap_within(sc.holder, 5000), -1);
	p = osp_read_json_file(dump, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	/* The holder's and each waiter's, answered at shutdown: once each. */
	cr_expect_eq(h_count(p, "flock"), 11);
	osp_profile_free(p);
	scene_end(&sc);
}

static void slow_lower(const char *cache)
{
	const char *args[] = { "-o", cache, NULL };
	pid_t r[6];
	int st;

	slow.threaded = true; /* the lower answers others while reads sleep */
	h_sleepfs_start(&slow, m.top, "3000000");
	h_start_at(&m, slow.dir, NULL, args);
	for (int i = 0; i < 6; i++) {
		r[i] = fork();
		cr_assert_geq(r[i], 0);
		if (r[i] == 0) {
			static char buf[4096] __attribute__((aligned(4096)));
			/* O_DIRECT: each read reaches the daemon, none waits on another's page. */
			int fd = open(h_at(m.dir, "slow"), O_RDONLY | O_DIRECT);

			_exit(fd >= 0 && pread(fd, buf, sizeof(buf), 0) == sizeof(buf) ? 0 : 1);
		}
	}
	usleep(300000);
	cr_expect(answers_within_a_second_for("slow4"),
		  "%s: the mount answers while 6 reads wait on the lower file system", cache);
	for (int i = 0; i < 6; i++) {
		st = reap_within(r[i], 10000);
		cr_expect(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0, "read %d: %#x", i, st);
	}
	cr_expect_eq(h_stop(&m), 0);
}

Test(locks, a_slow_lower_file_system_with_polling_workers)
{
	slow_lower("cache=auto");
}

Test(locks, a_slow_lower_file_system_in_the_worker_pool)
{
	slow_lower("cache=never");
}
