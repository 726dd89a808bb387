// SPDX-License-Identifier: MIT
/*
 * The eBPF layers of a real osprof-fs mount, as root on this kernel:
 * the fuse layer counts exactly the requests the fs layer counts (control
 * requests left out by both, another FUSE mount's never seen), each
 * taking longer in the kernel than in the daemon; the syscall layer counts
 * a workload's calls exactly; the lower layer sees the daemon's reads;
 * --dump writes each layer; unprivileged, one clear line and the fs layer
 * alone.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "osprof/format.h"
#include "../fs/harness.h"
#include "tb_helpers.h"

static struct mnt m, m2;
static struct sleepfs s;

static void up(void)
{
	h_tree(&m);
	h_tree(&m2);
	memset(&s, 0, sizeof(s));
}

static void down(void)
{
	/* sleepfs is mounted inside m.top: unmounted before m.top is removed
	 * (rm -rf through it failed, and left the directory behind). */
	h_cleanup_over(&m, &s);
	h_cleanup(&m2);
}

TestSuite(fs_layers, .init = up, .fini = down, .timeout = 120);

/* Layer @layer of mount @mt from its control file (checksums checked). */
static struct osp_profile *layer_from(struct mnt *mt, const char *name, const char *source);

/* eBPF layer @name of mount @mt (checksums checked). */
static struct osp_profile *layer(struct mnt *mt, const char *name)
{
	return layer_from(mt, name, "\"ebpf\"");
}

/* Layer @name of mount @mt from its control file, served by @source. */
static struct osp_profile *layer_from(struct mnt *mt, const char *name, const char *source)
{
	char path[PATH_MAX + 64], err[256];
	struct osp_profile *p;
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/%s.json", mt->ctl, name);
	text = h_slurp(path, &len);
	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	p = osp_read_json(text, len, err, sizeof(err));
	free(text);
	cr_assert_not_null(p, "%s: %s", path, err);
	cr_assert_eq(osp_profile_check(p, stderr), 0u, "%s: checksums", path);
	cr_assert_str_eq(p->layer, name);
	cr_assert_str_eq(osp_kv_get(&p->source, "layer_source"), source);
	return p;
}

static void ctl(struct mnt *mt, const char *cmd)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/ctl", mt->ctl);
	cr_assert_eq(h_write_str(path, cmd), 0, "%s < %s", path, cmd);
}

/* The fuse layer never sees forgets: they are not FUSE requests with a
 * reply (the kernel queues them apart). */
static bool has_no_fuse_request(const char *op)
{
	return strcmp(op, "forget") == 0 || strcmp(op, "batch_forget") == 0;
}

/*
 * Every fs op has the same count in the fuse layer, and a larger mean;
 * the fuse layer has no op the fs layer lacks. Returns the ops compared.
 */
static size_t expect_layers_agree(const struct osp_profile *fuse, const struct osp_profile *fs)
{
	size_t n = 0;

	for (size_t i = 0; i < fs->nops; i++) {
		const struct osp_op *a = &fs->ops[i], *b = osp_profile_find_op(fuse, a->name);

		if (!a->lat.count || has_no_fuse_request(a->name))
			continue;
		cr_expect_not_null(b, "fuse layer lacks %s", a->name);
		if (!b)
			continue;
		n++;
		cr_expect_eq(b->lat.count, a->lat.count, "%s: fuse %lu, fs %lu", a->name,
			     (unsigned long)b->lat.count, (unsigned long)a->lat.count);
		cr_expect_gt(osp_hist_mean(&b->lat), osp_hist_mean(&a->lat),
			     "%s: fuse mean %.0f ns, fs mean %.0f ns", a->name,
			     osp_hist_mean(&b->lat), osp_hist_mean(&a->lat));
	}
	for (size_t i = 0; i < fuse->nops; i++) {
		const struct osp_op *a = osp_profile_find_op(fs, fuse->ops[i].name);

		cr_expect(a && a->lat.count, "fuse layer has %s (%lu), fs layer not",
			  fuse->ops[i].name, (unsigned long)fuse->ops[i].lat.count);
	}
	return n;
}

/*
 * A child that does @round(@arg) over and over until killed; returns
 * once it has done one.
 */
static pid_t looping_child(void (*round)(const char *arg), const char *arg)
{
	int ready[2];
	pid_t pid;
	char c;

	cr_assert_eq(pipe(ready), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		for (bool first = true;; first = false) {
			round(arg);
			if (first)
				(void)!write(ready[1], "x", 1);
		}
	}
	close(ready[1]);
	cr_assert_eq(read(ready[0], &c, 1), 1);
	close(ready[0]);
	return pid;
}

/* A round of keeping mount @dir busy: stat and read its file busy. */
static void busy_round(const char *dir)
{
	char f[PATH_MAX + 8], buf[512];
	struct stat st;
	int fd;

	snprintf(f, sizeof(f), "%s/busy", dir);
	fd = open(f, O_RDONLY);
	stat(f, &st);
	if (fd >= 0) {
		(void)!pread(fd, buf, sizeof(buf), 0);
		close(fd);
	}
}

static pid_t busy(const char *dir)
{
	return looping_child(busy_round, dir);
}

Test(fs_layers, fuse_counts_a_slow_lower_exactly)
{
	enum { READS = 20 };
	struct osp_profile *fuse, *fs, *fuse2;
	const struct osp_op *rd;
	char buf[4096], path[PATH_MAX + 8];
	pid_t other;
	int fd, status;

	h_sleepfs_start(&s, m.top, "1200");
	h_start_at(&m, s.dir, NULL, NULL);
	/* A second FUSE mount, busy all along: none of its requests may
	 * reach the first mount's fuse layer. */
	cr_assert_eq(h_write_str(h_at(m2.lower, "busy"), "x"), 0);
	h_start(&m2, NULL);
	other = busy(m2.dir);
	ctl(&m, "reset\n");
	snprintf(path, sizeof(path), "%s/slow", m.dir);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	for (int i = 0; i < READS; i++)
		cr_assert_eq(pread(fd, buf, sizeof(buf), (off_t)i * 4096), (ssize_t)sizeof(buf));
	close(fd);
	kill(other, SIGKILL);
	waitpid(other, &status, 0);

	fs = h_profile(&m);
	fuse = layer(&m, "fuse");
	cr_expect_eq(h_count(fs, "read"), (uint64_t)READS);
	rd = osp_profile_find_op(fuse, "read");
	cr_assert_not_null(rd);
	cr_expect_eq(rd->lat.count, (uint64_t)READS);
	/* 1.2 ms = 2^20.2 ns: the peak is bucket 21, (1.05 ms, 2.10 ms],
	 * 0.9 ms below its upper bound, room for the transport's tens of us
	 * even on a loaded machine under a sanitizer -- unless the load
	 * slowed the lower file system itself past it: then the fs layer's
	 * peak moved too. */
	cr_expect(tb_peak(&rd->lat) == 21 ||
		  tb_peak(&rd->lat) == tb_peak(&osp_profile_find_op(fs, "read")->lat),
		  "the 1.2 ms peak: bucket 21 holds %lu of %d, the fs layer's peak is %u",
		  (unsigned long)osp_hist_bucket(&rd->lat, 21), READS,
		  tb_peak(&osp_profile_find_op(fs, "read")->lat));
	cr_expect_geq(rd->lat.min, 1200000u);
	cr_expect_geq(expect_layers_agree(fuse, fs), 3u, "open, read, flush/release compared");
	/* The busy mount's own fuse layer did see its requests. */
	fuse2 = layer(&m2, "fuse");
	cr_expect_gt(tb_count(fuse2, "lookup"), 0u);
	osp_profile_free(fuse2);
	osp_profile_free(fuse);
	osp_profile_free(fs);
	cr_expect_eq(h_stop(&m2), 0);
	cr_expect_eq(h_stop(&m), 0);
}

/* Many kinds of request; each op's counts agree between fuse and fs. */
Test(fs_layers, every_operation_agrees)
{
	struct osp_profile *fuse, *fs;
	char buf[256];
	struct stat st;
	size_t n;
	int fd;

	h_start(&m, NULL);
	ctl(&m, "reset\n");
	cr_assert_eq(mkdir(h_at(m.dir, "d"), 0755), 0);
	for (int i = 0; i < 30; i++) {
		char name[32];

		snprintf(name, sizeof(name), "d/f%d", i);
		fd = open(h_at(m.dir, name), O_CREAT | O_RDWR, 0644);
		cr_assert_geq(fd, 0);
		cr_assert_eq(pwrite(fd, "hello", 5, 0), 5);
		cr_assert_eq(pread(fd, buf, 5, 0), 5);
		cr_assert_eq(fsync(fd), 0);
		close(fd);
		cr_assert_eq(stat(h_at(m.dir, name), &st), 0);
		cr_assert_eq(chmod(h_at(m.dir, name), 0600), 0);
	}
	cr_assert_eq(setxattr(h_at(m.dir, "d/f0"), "user.k", "v", 1, 0), 0);
	cr_assert_eq(getxattr(h_at(m.dir, "d/f0"), "user.k", buf, sizeof(buf)), 1);
	cr_assert_eq(symlink("f0", h_at(m.dir, "d/ln")), 0);
	cr_assert_eq(readlink(h_at(m.dir, "d/ln"), buf, sizeof(buf)), 2);
	cr_assert_eq(rename(h_at(m.dir, "d/f1"), h_at(m.dir, "d/g1")), 0);
	cr_assert_eq(unlink(h_at(m.dir, "d/g1")), 0);
	cr_assert_eq(h_sh("ls -l '%s' >/dev/null", h_at(m.dir, "d")), 0);
	fs = h_profile(&m);
	fuse = layer(&m, "fuse");
	n = expect_layers_agree(fuse, fs);
	/* The ops ls -l asks for beside the loop's are coreutils': a bound. */
	cr_expect_geq(n, 12u, "only %zu ops compared", n);
	osp_profile_free(fuse);
	osp_profile_free(fs);
	cr_expect_eq(h_stop(&m), 0);
}

/*
 * The workload, a child: opens @file (the call that makes it one of the
 * mount's processes: its first request ends inside it, so that call's
 * start was not seen and it is not counted), makes @n preads and @nstat
 * fstats on it, @k 2 ms sleeps, opens it again and closes both. Exits 0,
 * or the number of the step that failed.
 */
static pid_t workload_start(const char *file, int n, int nstat, int k)
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct timespec two_ms = { 0, 2000000 };
		int fd = open(file, O_RDONLY), fd2;
		struct stat st;
		char c;

		if (fd < 0)
			_exit(1);
		for (int i = 0; i < n; i++)
			if (pread(fd, &c, 1, i % 16) != 1)
				_exit(2);
		for (int i = 0; i < nstat; i++)
			if (fstat(fd, &st) != 0)
				_exit(3);
		for (int i = 0; i < k; i++)
			nanosleep(&two_ms, NULL);
		fd2 = open(file, O_RDONLY);
		if (fd2 < 0)
			_exit(4);
		close(fd2);
		close(fd);
		_exit(0);
	}
	return pid;
}

static void workload_wait(pid_t pid)
{
	int status;

	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "workload status %d", status);
}

/*
 * A round of a watcher of control directory @ctl: read stats (open, read
 * to the end, close), a getppid and a 1 ms sleep.
 */
static void ctl_reader_round(const char *ctl)
{
	struct timespec ms = { 0, 1000000 };
	char path[PATH_MAX + 16], buf[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/stats", ctl);
	fd = open(path, O_RDONLY);
	while (fd >= 0 && read(fd, buf, sizeof(buf)) > 0)
		;
	if (fd >= 0)
		close(fd);
	(void)getppid();
	nanosleep(&ms, NULL);
}

static pid_t ctl_reader_start(const char *ctl)
{
	return looping_child(ctl_reader_round, ctl);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
}

/*
 * Mount m with @args, a file on it; a reader of .osprof/stats in a loop
 * beside the workload (@n preads, @nstat fstats, @k sleeps) since a
 * reset: the syscall layer then, with the counts every -o syscall has.
 */
static struct osp_profile *workload_beside_a_reader(const char *const *args, int n, int nstat,
						    int k)
{
	struct osp_profile *sys;
	pid_t reader;

	cr_assert_eq(h_write_str(h_at(m.lower, "file"), "0123456789abcdef"), 0);
	h_start(&m, args);
	reader = ctl_reader_start(m.ctl);
	ctl(&m, "reset\n");
	workload_wait(workload_start(h_at(m.dir, "file"), n, nstat, k));
	sys = layer(&m, "syscall");
	reap(reader);
	cr_expect_eq(tb_count(sys, "pread64"), (uint64_t)n);
	cr_expect_eq(tb_count(sys, "fstat") + tb_count(sys, "newfstatat"), (uint64_t)nstat);
	return sys;
}

/* Every op of @p is one of @names (NULL-terminated). */
static void expect_only(const struct osp_profile *p, const char *const *names)
{
	for (size_t i = 0; i < p->nops; i++) {
		bool known = false;

		for (size_t j = 0; names[j] && !known; j++)
			known = strcmp(p->ops[i].name, names[j]) == 0;
		cr_expect(known, "syscall layer has %s (%lu)", p->ops[i].name,
			  (unsigned long)p->ops[i].lat.count);
	}
}

/*
 * A process that uses the mount is the syscall layer's workload, and the
 * layer counts its calls on the mount exactly: N preads, M fstats, the
 * second open (by the descriptor it returned) and both closes; not its
 * sleeps. Meanwhile a reader of .osprof/stats in a loop adds nothing:
 * reading the control directory makes no process the mount's, and its
 * files' descriptors are not the mount's. The daemon's reads of the
 * lower file are in the lower layer.
 */
Test(fs_layers, syscall_layer_counts_the_mounts_calls_of_the_workload)
{
	static const char *const calls[] = { "pread64", "fstat", "newfstatat", "openat", "close",
					     NULL };
	enum { N = 57, M = 31, K = 5 };
	struct osp_profile *sys = workload_beside_a_reader(NULL, N, M, K), *lower;

	cr_expect_eq(tb_count(sys, "openat"), 1u);
	cr_expect_eq(tb_count(sys, "close"), 2u);
	expect_only(sys, calls);
	cr_expect_str_eq(osp_kv_get(&sys->options, "calls"), "\"mount\"");
	/* cache=never: every pread reached the daemon, which read the lower
	 * file once per request, and timed it itself. */
	lower = layer_from(&m, "lower", "\"osprof-fs\"");
	cr_expect_eq(tb_count(lower, "pread64"), (uint64_t)N);
	osp_profile_free(lower);
	osp_profile_free(sys);
	cr_expect_eq(h_stop(&m), 0);
}

/*
 * -o syscall=all: every call of the workload, its sleeps too; still none
 * of the reader's (no getppid, no read) nor of this process, which reads
 * the control directory and waits for its children (no wait4: as
 * scripts/run.sh's shell does).
 */
Test(fs_layers, syscall_all_counts_every_call_of_the_workload_only)
{
	static const char *const args[] = { "-o", "syscall=all", NULL };
	enum { N = 23, M = 11, K = 5 };
	struct osp_profile *sys = workload_beside_a_reader(args, N, M, K);

	tb_expect_2ms_sleeps(sys, K);
	cr_expect_eq(tb_count(sys, "getppid"), 0u, "the reader's calls");
	cr_expect_eq(tb_count(sys, "read"), 0u, "the reader's calls");
	cr_expect_eq(tb_count(sys, "wait4"), 0u, "this process's calls");
	cr_expect_str_eq(osp_kv_get(&sys->options, "calls"), "\"all\"");
	osp_profile_free(sys);
	cr_expect_eq(h_stop(&m), 0);
}

/*
 * Calls that never reach the daemon are still the mount's: with
 * cache=always the workload's preads after the first come from the page
 * cache (as with FUSE passthrough they would go to the lower file), yet
 * the syscall layer times every one of them on the mount's descriptor.
 */
Test(fs_layers, syscall_layer_times_calls_the_daemon_never_sees)
{
	static const char *const args[] = { "-o", "cache=always", NULL };
	enum { N = 200, M = 3, K = 0 };
	struct osp_profile *sys = workload_beside_a_reader(args, N, M, K), *fs = h_profile(&m);

	cr_expect_lt(h_count(fs, "read"), (uint64_t)N / 10, "reads from the page cache");
	osp_profile_free(fs);
	osp_profile_free(sys);
	cr_expect_eq(h_stop(&m), 0);
}

/* disable stops the eBPF layers with the fs layer; --dump writes each. */
Test(fs_layers, disable_and_dump)
{
	char dump[PATH_MAX + 16], err[256];
	struct osp_profile *fuse, *d;
	struct stat st;

	snprintf(dump, sizeof(dump), "%s/run.json", m.top);
	h_start(&m, (const char *const[]){ "--dump", dump, "-o", "layers=fuse:lower", NULL });
	ctl(&m, "disable\n");
	ctl(&m, "reset\n");
	for (int i = 0; i < 10; i++)
		stat(h_at(m.dir, "nothing"), &st);
	fuse = layer(&m, "fuse");
	cr_expect_eq(fuse->nops, 0u, "disabled: nothing recorded");
	osp_profile_free(fuse);
	cr_expect_eq(access(h_at(m.ctl, "syscall"), F_OK), -1, "syscall layer not asked for");
	ctl(&m, "enable\n");
	for (int i = 0; i < 10; i++)
		stat(h_at(m.dir, "nothing"), &st);
	cr_expect_eq(h_stop(&m), 0);
	snprintf(dump, sizeof(dump), "%s/run.fuse.json", m.top);
	d = osp_read_json_file(dump, err, sizeof(err));
	cr_assert_not_null(d, "%s: %s", dump, err);
	cr_expect_str_eq(d->layer, "fuse");
	cr_expect_eq(tb_count(d, "lookup"), 10u);
	osp_profile_free(d);
	snprintf(dump, sizeof(dump), "%s/run.lower.json", m.top);
	d = osp_read_json_file(dump, err, sizeof(err));
	cr_assert_not_null(d, "%s: %s", dump, err);
	cr_expect_str_eq(d->layer, "lower");
	cr_expect_str_eq(osp_kv_get(&d->source, "layer_source"), "\"osprof-fs\"");
	cr_expect_eq(tb_count(d, "newfstatat"), 10u, "each lookup stats the name, once");
	osp_profile_free(d);
}

#define NOBODY 65534

/*
 * Start osprof-fs as NOBODY on m's tree with -o @opt (or none),
 * stderr into top/unpriv.log; returns its pid. The tree is handed over.
 */
static pid_t start_unprivileged(const char *opt)
{
	char log[PATH_MAX + 16];
	pid_t pid;

	cr_assert_eq(chmod(m.top, 0755), 0);
	cr_assert_eq(chown(m.lower, NOBODY, NOBODY), 0);
	cr_assert_eq(chown(m.dir, NOBODY, NOBODY), 0);
	snprintf(log, sizeof(log), "%s/unpriv.log", m.top);
	snprintf(m.ctl, sizeof(m.ctl), "%s/.osprof", m.dir); /* h_start would */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		const char *bin = h_osprof_fs();

		if (fd < 0 || dup2(fd, 2) < 0 || setgroups(0, NULL) != 0 ||
		    setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
			_exit(126);
		if (opt)
			execl(bin, bin, m.lower, m.dir, "-f", "-o", opt, (char *)NULL);
		else
			execl(bin, bin, m.lower, m.dir, "-f", (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* The unprivileged daemon said exactly one line, and it holds @what. */
static void expect_said_once(const char *what)
{
	char log[PATH_MAX + 16], *text;

	snprintf(log, sizeof(log), "%s/unpriv.log", m.top);
	text = h_slurp(log, NULL);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, what), "%s", text);
	cr_expect_eq(strchr(text, '\n'), text + strlen(text) - 1, "one line: %s", text);
	free(text);
}

/* Run as NOBODY: the fs layer works, no eBPF layer is served, CPU time
 * comes from the thread clock. */
static int fs_layer_alone(void)
{
	char *ctl = h_slurp(h_at(m.ctl, "ctl"), NULL), *stats;
	int ok;

	if (!ctl)
		return errno ? errno : EIO;
	stats = h_slurp(h_at(m.ctl, "stats"), NULL);
	ok = stats && strstr(stats, "osprof fs profile") && strstr(ctl, "\nebpf_layers none\n") &&
	     /* why each layer is off, in ctl too (lower: the daemon's own) */
	     strstr(ctl, "\nebpf_fuse_off not permitted (eBPF needs root: CAP_BPF and CAP_PERFMON)\n") &&
	     strstr(ctl, "\nebpf_syscall_off not permitted (eBPF needs root: CAP_BPF and CAP_PERFMON)\n") &&
	     strstr(ctl, "\nebpf_block_off not permitted (eBPF needs root: CAP_BPF and CAP_PERFMON)\n") &&
	     strstr(ctl, "\nebpf_irq_off not permitted (eBPF needs root: CAP_BPF and CAP_PERFMON)\n") && !strstr(ctl, "\nebpf_lower_off") &&
	     strstr(ctl, "\nlower_source daemon\n") &&
	     access(h_at(m.ctl, "fuse"), F_OK) != 0 &&
	     /* -o cpu_time falls back to the thread clock, quietly */
	     strstr(ctl, "\ncpu_source thread_cputime\n");
	free(stats);
	free(ctl);
	return ok ? 0 : EPROTO;
}

Test(fs_layers, unprivileged_says_why_once_and_goes_on)
{
	pid_t pid = start_unprivileged("cpu_time");
	int status, mounted = 0;

	for (int i = 0; i < 500 && !mounted; i++) {
		struct timespec ts = { 0, 10000000 };

		mounted = h_sh("grep -qF ' %s ' /proc/self/mountinfo", m.dir) == 0;
		if (!mounted)
			nanosleep(&ts, NULL);
	}
	cr_assert(mounted, "the unprivileged daemon did not mount");
	cr_expect_eq(h_as(NOBODY, NOBODY, NULL, 0, fs_layer_alone), 0);
	cr_expect_eq(h_sh("fusermount3 -u '%s'", m.dir), 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
	expect_said_once("osprof-fs: eBPF layers off (the fs and lower layers go on): not permitted");
}

Test(fs_layers, unprivileged_with_layers_asked_for_refuses)
{
	pid_t pid = start_unprivileged("layers=fuse");
	int status;

	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d", status);
	expect_said_once("osprof-fs: eBPF layer fuse off: not permitted");
	cr_expect_neq(h_sh("grep -qF ' %s ' /proc/self/mountinfo", m.dir), 0, "left mounted");
}

/* The share of read's latency that was CPU time, in @p (cpu_time). */
static double read_cpu_share(const struct osp_profile *p)
{
	const struct osp_op *o = osp_profile_find_op(p, "read");

	cr_assert_not_null(o, "no reads");
	cr_assert(o->has_cpu, "no CPU histogram");
	cr_assert_eq(o->cpu.count, o->lat.count);
	return o->lat.sum ? (double)o->cpu.sum / (double)o->lat.sum : 0.0;
}

/*
 * -o cpu_time takes each request's virtual time from eBPF: a read that
 * waits 2 ms for its lower file system (sleepfs) used next to no CPU, a
 * read the daemon's thread spends copying cached pages used nearly all
 * of its latency.
 */
Test(fs_layers, cpu_time_is_virtual_time)
{
	static char big[1 << 20];
	struct osp_profile *p;
	char *ctl_text;
	double share;
	int fd;

	h_sleepfs_start(&s, m.top, "2000");
	h_start_at(&m, s.dir, NULL, (const char *const[]){ "-o", "cpu_time", NULL });
	ctl_text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(ctl_text);
	cr_expect_not_null(strstr(ctl_text, "\ncpu_source ebpf_vtime\n"), "%s", ctl_text);
	free(ctl_text);
	fd = open(h_at(m.dir, "slow"), O_RDONLY);
	cr_assert_geq(fd, 0);
	/* A first read pays the daemon's first-touch costs (its buffers, and
	 * ASan's shadow pages in that build): not part of what is measured. */
	cr_assert_eq(pread(fd, big, 4096, 0), 4096);
	ctl(&m, "reset\n");
	for (int i = 0; i < 10; i++)
		cr_assert_eq(pread(fd, big, 4096, 0), 4096);
	close(fd);
	p = h_profile(&m);
	share = read_cpu_share(p);
	/* Tens of us of CPU against 2 ms of waiting (a sanitizer build on a
	 * busy machine took 0.14 once, first read included); copying reads
	 * below take over 0.6. */
	cr_expect_lt(share, 0.25, "sleeping reads: CPU %.3f of latency", share);
	cr_expect_eq(strcmp(osp_kv_get(&p->options, "cpu_source"), "\"ebpf_vtime\""), 0);
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);

	/* A 64 MiB file in the page cache, read 1 MiB at a time: each FUSE
	 * read is a copy by the daemon's thread, on the CPU throughout (m2's
	 * tree is up()'s). */
	fd = open(h_at(m2.lower, "big"), O_CREAT | O_RDWR, 0644);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	close(fd);
	h_start(&m2, (const char *const[]){ "-o", "cpu_time", NULL });
	fd = open(h_at(m2.dir, "big"), O_RDONLY);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < 64; i++)
		cr_assert_eq(read(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	close(fd);
	p = h_profile(&m2);
	share = read_cpu_share(p);
	cr_expect_gt(share, 0.6, "copying reads: CPU %.3f of latency", share);
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m2), 0);
}

/* The sum of operation @op's counts over @p's snapshots. */
static uint64_t snapshot_count(const struct osp_profile *p, const char *op)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nsnaps; i++)
		for (size_t k = 0; k < p->snaps[i].nops; k++)
			if (strcmp(p->snaps[i].ops[k].name, op) == 0)
				n += p->snaps[i].ops[k].lat.count;
	return n;
}

/*
 * The eBPF layers run in the fs layer's timeline: snapshots every
 * interval whose counts add up to the totals; reset empties them, and
 * `timeline off` stops them.
 */
Test(fs_layers, timeline_covers_the_ebpf_layers)
{
	struct timespec pause = { 0, 30000000 };
	struct osp_profile *fuse;
	struct stat st;

	h_start(&m, (const char *const[]){ "-o", "layers=fuse:syscall,timeline=20", NULL });
	for (int round = 0; round < 5; round++) {
		for (int i = 0; i < 20; i++)
			stat(h_at(m.dir, "nothing"), &st);
		nanosleep(&pause, NULL);
	}
	fuse = layer(&m, "fuse");
	cr_expect_eq(fuse->tl_interval_ns, 20000000u);
	/* Timing: how many intervals 5 rounds take; the lookups are 100. */
	cr_expect_geq(fuse->nsnaps, 3u, "5 rounds 30 ms apart in 20 ms intervals");
	cr_expect_eq(tb_count(fuse, "lookup"), 100u);
	cr_expect_eq(snapshot_count(fuse, "lookup"), tb_count(fuse, "lookup"),
		     "the snapshots add up to the total");
	osp_profile_free(fuse);

	ctl(&m, "reset\n");
	fuse = layer(&m, "fuse");
	cr_expect_eq(snapshot_count(fuse, "lookup"), tb_count(fuse, "lookup"));
	/* Reading the control files is not profiled: nothing since the reset. */
	cr_expect_eq(tb_count(fuse, "lookup"), 0u, "reset emptied the layer and its timeline");
	osp_profile_free(fuse);

	ctl(&m, "timeline off\n");
	fuse = layer(&m, "fuse");
	cr_expect_eq(fuse->tl_interval_ns, 0u);
	cr_expect_eq(fuse->nsnaps, 0u);
	osp_profile_free(fuse);
	cr_expect_eq(h_stop(&m), 0);
}

/*
 * -o lower_source=ebpf: the kernel times the daemon's system calls, its
 * waits and its /dev/fuse I/O left out; its preads are the workload's.
 */
Test(fs_layers, lower_from_ebpf)
{
	enum { N = 40 };
	struct osp_profile *lower;
	char *ctl_text, c;
	int fd;

	cr_assert_eq(h_write_str(h_at(m.lower, "file"), "0123456789abcdef"), 0);
	h_start(&m, (const char *const[]){ "-o", "layers=fuse:lower,lower_source=ebpf", NULL });
	ctl_text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(ctl_text);
	cr_expect_not_null(strstr(ctl_text, "\nlower_source ebpf\n"), "%s", ctl_text);
	free(ctl_text);
	ctl(&m, "reset\n");
	fd = open(h_at(m.dir, "file"), O_RDONLY);
	cr_assert_geq(fd, 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(pread(fd, &c, 1, i % 16), 1);
	close(fd);
	lower = layer(&m, "lower");
	cr_expect_eq(tb_count(lower, "pread64"), (uint64_t)N, "one pread of the lower file a read");
	cr_expect_eq(tb_count(lower, "read") + tb_count(lower, "writev"), 0u,
		     "its requests and replies on /dev/fuse are not lower calls");
	cr_expect_eq(tb_count(lower, "futex") + tb_count(lower, "poll"), 0u, "nor its waits");
	osp_profile_free(lower);
	cr_expect_eq(h_stop(&m), 0);
}
