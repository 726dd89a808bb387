// SPDX-License-Identifier: MIT
/*
 * The daemon's life: --dump at unmount and on SIGINT/SIGTERM, an in-place
 * mount over its own lower directory, mmap under each caching mode, and
 * one-line errors for every bad start (missing or non-directory lower, bad
 * options, a busy or non-empty mountpoint).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "osprof/format.h"

static struct mnt m;
static struct sleepfs slow; /* started by the tests that need it */

static void up(void)
{
	h_tree(&m);
}

static void down(void)
{
	h_cleanup_over(&m, &slow);
}

TestSuite(daemon, .init = up, .fini = down, .timeout = 60);

static struct osp_profile *read_dump(const char *path)
{
	char err[512];
	struct osp_profile *p = osp_read_json_file(path, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(osp_profile_check(p, stderr), 0);
	return p;
}

Test(daemon, dump_is_written_at_unmount)
{
	char dump[PATH_MAX], file[PATH_MAX];
	const char *args[] = { "--dump", dump, NULL };
	struct osp_profile *p;

	h_path(dump, m.top, "final.json");
	h_start(&m, args);
	cr_assert_eq(h_write_str(h_path(file, m.dir, "a"), "abc"), 0);
	cr_expect_eq(access(dump, F_OK), -1, "nothing before unmount");
	cr_expect_eq(h_stop(&m), 0);
	p = read_dump(dump);
	/* One file created and written, once each. */
	h_expect_data(p, "write", 1);
	cr_expect_eq(h_count(p, "create"), 1);
	{
		char want[PATH_MAX + 2];

		snprintf(want, sizeof(want), "\"%s\"", m.lower);
		cr_expect_str_eq(osp_kv_get(&p->source, "lower"), want);
	}
	osp_profile_free(p);
}

/*
 * Stop the daemon with @sig; with @held, while a file, a directory and a
 * control file are open (their release never comes: the daemon must still
 * free them, which the sanitizer build's leak check verifies).
 */
static void stop_by_signal(int sig, bool held)
{
	char dump[PATH_MAX], file[PATH_MAX], stats[PATH_MAX];
	const char *args[] = { "-o", "cpu_time", "--dump", dump, NULL };
	struct osp_profile *p;
	int status, fds[3] = { -1, -1, -1 };

	h_path(dump, m.top, "sig.json");
	h_start(&m, args);
	cr_assert_eq(h_write_str(h_path(file, m.dir, "a"), "abc"), 0);
	if (held) {
		fds[0] = open(file, O_RDONLY);
		fds[1] = open(m.dir, O_RDONLY | O_DIRECTORY);
		fds[2] = open(h_path(stats, m.ctl, "stats"), O_RDONLY);
		for (int i = 0; i < 3; i++)
			cr_assert_geq(fds[i], 0, "open %d: %s", i, strerror(errno));
	}
	cr_assert_eq(kill(m.pid, sig), 0);
	cr_assert_eq(waitpid(m.pid, &status, 0), m.pid);
	m.pid = 0;
	{
		char *log = h_slurp(m.log, NULL);

		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			  "clean exit on signal %d (wait status %#x): %s", sig, status,
			  log ? log : "");
		free(log);
	}
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	cr_expect_neq(h_sh("grep -q ' %s fuse' /proc/mounts", m.dir), 0, "unmounted");
	p = read_dump(dump);
	h_expect_data(p, "write", 1);
	{
		/* the one create reaches the daemon under passthrough too */
		const char *op = h_passthrough() ? "create" : "write";

		cr_expect(osp_profile_find_op(p, op)->has_cpu, "cpu_time histograms");
		cr_expect_eq(osp_profile_find_op(p, op)->cpu.count, 1, "a CPU time per request");
	}
	osp_profile_free(p);
}

Test(daemon, sigterm_shuts_down_cleanly_and_dumps)
{
	stop_by_signal(SIGTERM, false);
}

Test(daemon, sigint_shuts_down_cleanly_and_dumps)
{
	stop_by_signal(SIGINT, false);
}

Test(daemon, sigterm_with_files_open_frees_them)
{
	stop_by_signal(SIGTERM, true);
}

Test(daemon, in_place_mount_over_its_own_lower)
{
	char file[PATH_MAX], *s;
	struct osp_profile *p;

	cr_assert_eq(h_write_str(h_path(file, m.lower, "before"), "old"), 0);
	h_start_at(&m, m.lower, m.lower, NULL);
	s = h_slurp(h_path(file, m.lower, "before"), NULL);
	cr_expect_str_eq(s, "old", "the old contents show through");
	free(s);
	cr_assert_eq(h_write_str(h_path(file, m.lower, "during"), "new"), 0);
	/*
	 * cache=never: the read of 3 bytes and the one that finds the end
	 * (noopen, through the page cache: one, the size being known).
	 */
	p = h_profile(&m);
	h_expect_data(p, "read", h_noopen() ? 1 : 2);
	h_expect_data(p, "write", 1);
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
	s = h_slurp(h_path(file, m.lower, "during"), NULL);
	cr_expect_str_eq(s, "new", "what was written is in the directory itself");
	free(s);
	cr_expect_neq(access(h_path(file, m.lower, ".osprof"), F_OK), 0);
}

static void map_file(const char *const *args, int want_errno)
{
	char file[PATH_MAX];
	void *p;
	int fd;

	cr_assert_eq(h_write_str(h_path(file, m.lower, "m"), "mapped data"), 0);
	h_start(&m, args);
	fd = open(h_path(file, m.dir, "m"), O_RDWR);
	cr_assert_geq(fd, 0);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (want_errno) {
		cr_expect_eq(p, MAP_FAILED);
		cr_expect_eq(errno, want_errno, "%s", strerror(errno));
	} else {
		cr_assert_neq(p, MAP_FAILED, "%s", strerror(errno));
		cr_expect_eq(memcmp(p, "mapped data", 11), 0);
		munmap(p, 4096);
	}
	/* A private read-only mapping (how programs run) works in every mode. */
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	cr_expect_neq(p, MAP_FAILED, "%s", strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, 4096);
	close(fd);
}

Test(daemon, shared_mmap_needs_a_caching_mode)
{
	/* cache=never named: the noopen variant leaves it as it is. */
	const char *args[] = { "-o", "cache=never", NULL };

	/* With passthrough, mmap goes to the lower file in every mode. */
	map_file(args, h_passthrough() ? 0 : ENODEV);
}

Test(daemon, shared_mmap_works_with_cache_auto)
{
	const char *args[] = { "-o", "cache=auto", NULL };

	map_file(args, 0);
}

/* Run osprof-fs expecting failure; check status and the one-line reason. */
static void expect_refusal(const char *const *args, const char *reason)
{
	char *err = NULL;
	int st = h_run_fail(args, &err);

	cr_expect_neq(st, 0, "exit status for: %s", reason);
	cr_expect_not_null(strstr(err, reason), "stderr: %s\nwanted: %s", err, reason);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	free(err);
}

Test(daemon, bad_starts_exit_nonzero_with_one_line)
{
	char file[PATH_MAX], missing[PATH_MAX];

	h_path(file, m.top, "plainfile");
	h_path(missing, m.top, "missing");
	cr_assert_eq(h_write_str(file, "x"), 0);
	{
		const char *a[] = { missing, m.dir, "-f", NULL };

		expect_refusal(a, "No such file or directory");
	}
	{
		const char *a[] = { file, m.dir, "-f", NULL };

		expect_refusal(a, "Not a directory");
	}
	{
		const char *a[] = { m.lower, m.dir, "-f", "-o", "resolution=3", NULL };

		expect_refusal(a, "bad option -o resolution=3: expected 1, 2, 4 or 8");
	}
	{
		const char *a[] = { m.lower, m.dir, "-f", "-o", "cache=sometimes", NULL };

		expect_refusal(a, "bad option -o cache=sometimes");
	}
	{
		const char *a[] = { m.lower, m.dir, "-f", "-o", "timeline=10x", NULL };

		expect_refusal(a, "bad option -o timeline=10x");
	}
	{
		const char *a[] = { m.lower, m.dir, "-f", "-o", "timeline=10,timeline_size=5000000",
				    NULL };

		expect_refusal(a, "-o timeline_size=5000000: a timeline keeps at most 2796202 snapshots in its 64 MiB");
	}
	{
		const char *a[] = { m.lower, m.dir, "-f", "-o", "entry_timeout=-1", NULL };

		expect_refusal(a, "bad option -o entry_timeout=-1");
	}
	{
		const char *a[] = { m.lower, NULL };

		expect_refusal(a, "expected LOWERDIR and MOUNTPOINT");
	}
	{
		const char *a[] = { m.lower, m.dir, "extra", NULL };

		expect_refusal(a, "too many arguments");
	}
	{
		const char *a[] = { m.lower, m.dir, "--dump", "/nonexistent/dir/x.json", NULL };

		expect_refusal(a, "does not exist");
	}
	cr_expect_neq(access(h_path(file, m.dir, ".osprof"), F_OK), 0, "nothing mounted");
}

/*
 * Options neither we nor libfuse know: one line of ours naming them and
 * --help (no libfuse line beside it), status 2 as for any bad option, and
 * nothing mounted. libfuse decides what it knows ("ro" it takes: not
 * named); -o lists come back to us as libfuse joins them.
 */
Test(daemon, unknown_options_are_named_in_one_line_of_ours)
{
	static const struct {
		const char *args[4];
		const char *says;
	} cases[] = {
		{ { "-o", "nonsense" },
		  "osprof-fs: unknown option -o nonsense (see osprof-fs --help)\n" },
		{ { "--frobnicate" },
		  "osprof-fs: unknown option --frobnicate (see osprof-fs --help)\n" },
		{ { "-o", "nonsense,ro,other=1", "--frobnicate" },
		  "osprof-fs: unknown options -o nonsense,other=1 --frobnicate (see osprof-fs --help)\n" },
	};
	char probe[PATH_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *a[8] = { m.lower, m.dir, "-f" };
		char *err = NULL;
		int st;

		for (size_t j = 0; cases[i].args[j]; j++)
			a[3 + j] = cases[i].args[j];
		st = h_run_fail(a, &err);
		cr_expect_eq(st, 2, "status %d for: %s", st, cases[i].says);
		cr_expect_str_eq(err, cases[i].says);
		free(err);
	}
	cr_expect_neq(access(h_path(probe, m.dir, ".osprof"), F_OK), 0, "nothing mounted");
}

Test(daemon, busy_mountpoint_is_refused)
{
	const char *a[] = { NULL, NULL, "-f", NULL };

	h_start(&m, NULL);
	a[0] = m.lower;
	a[1] = m.dir;
	expect_refusal(a, "is busy");
	cr_expect_eq(h_stop(&m), 0);
}

/*
 * A mount hides its mountpoint's files: one with files is refused unless
 * -o nonempty; an empty LOWERDIR beside it reads as swapped arguments.
 * Nothing is mounted by a refusal, and the hidden file is still there.
 */
Test(daemon, nonempty_mountpoint_is_refused_unless_asked)
{
	char file[PATH_MAX], probe[PATH_MAX], *s, *err = NULL, want[3 * PATH_MAX];
	const char *a[] = { m.lower, m.dir, "-f", NULL };
	int st;

	cr_assert_eq(h_write_str(h_path(file, m.dir, "existing.txt"), "mine"), 0);
	/* The lower directory is empty: the two look swapped. */
	st = h_run_fail(a, &err);
	snprintf(want, sizeof(want), "osprof-fs: mountpoint %s is not empty but lower "
		 "directory %s is: the arguments look swapped (osprof-fs LOWERDIR "
		 "MOUNTPOINT)\n", m.dir, m.lower);
	cr_expect_eq(st, 2);
	cr_expect_str_eq(err, want);
	free(err);
	cr_assert_eq(h_write_str(h_path(file, m.lower, "data.txt"), "lower"), 0);
	st = h_run_fail(a, &err);
	snprintf(want, sizeof(want), "osprof-fs: mountpoint %s is not empty: the mount "
		 "would hide its files (-o nonempty to mount anyway)\n", m.dir);
	cr_expect_eq(st, 2);
	cr_expect_str_eq(err, want);
	free(err);
	cr_expect_neq(access(h_path(probe, m.dir, ".osprof"), F_OK), 0, "nothing mounted");
	{
		const char *args[] = { "-o", "nonempty", NULL };

		h_start(&m, args);
	}
	s = h_slurp(h_path(file, m.dir, "data.txt"), NULL);
	cr_expect_str_eq(s, "lower", "-o nonempty mounts over the files");
	free(s);
	cr_expect_neq(access(h_path(file, m.dir, "existing.txt"), F_OK), 0, "hidden");
	cr_expect_eq(h_stop(&m), 0);
	s = h_slurp(h_path(file, m.dir, "existing.txt"), NULL);
	cr_expect_str_eq(s, "mine", "unmounted, the file shows again");
	free(s);
}

Test(daemon, help_documents_every_option)
{
	static const char *const opts[] = {
		"resolution=", "cache=", "entry_timeout=", "attr_timeout=",
		"writeback", "cpu_time", "vtimers", "noprofile", "timeline=",
		"timeline_size=", "ctl_name=", "ctl_group=", "fd_cache=", "readdirplus=", "--dump",
		"allow_other", "nonempty", "-f", "-d", "-s", "max_threads",
	};
	char cmd[PATH_MAX + 32], out[PATH_MAX], *s;

	snprintf(out, sizeof(out), "%s/help.txt", m.top);
	snprintf(cmd, sizeof(cmd), "'%s' --help > '%s'", h_osprof_fs(), out);
	cr_assert_eq(h_sh("%s", cmd), 0);
	s = h_slurp(out, NULL);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		cr_expect_not_null(strstr(s, opts[i]), "--help lacks %s", opts[i]);
	free(s);
}

Test(daemon, other_control_directory_name)
{
	const char *args[] = { "-o", "ctl_name=.prof", NULL };
	char p[PATH_MAX];

	h_start(&m, args);
	cr_expect_eq(access(h_path(p, m.dir, ".prof/stats"), R_OK), 0);
	cr_expect_neq(access(h_path(p, m.dir, ".osprof"), F_OK), 0);
	cr_expect_eq(h_stop(&m), 0);
}

Test(daemon, polling_workers_serve_and_stop_cleanly)
{
	const char *args[] = { "-o", "poll_us=100", NULL };
	char file[PATH_MAX], *s;
	struct osp_profile *p;
	int status;

	h_start(&m, args);
	for (int i = 0; i < 50; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%d", i);
		cr_assert_eq(h_write_str(h_path(file, m.dir, name), name), 0);
		s = h_slurp(file, NULL);
		cr_expect_str_eq(s, name);
		free(s);
	}
	/*
	 * Each file written once, read back in two (its bytes, then the
	 * end; noopen, through the page cache: in one, the size known).
	 */
	p = h_profile(&m);
	h_expect_data(p, "write", 50);
	h_expect_data(p, "read", h_noopen() ? 50 : 100);
	osp_profile_free(p);
	/* Idle long past the window (workers asleep), then a signal. */
	usleep(300 * 1000);
	cr_assert_eq(kill(m.pid, SIGTERM), 0);
	cr_assert_eq(waitpid(m.pid, &status, 0), m.pid);
	m.pid = 0;
	cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clean exit");
	cr_expect_neq(h_sh("grep -q ' %s fuse' /proc/mounts", m.dir), 0, "unmounted");
	/* And stopped by fusermount3 -u while busy polling. */
	h_start(&m, args);
	cr_assert_eq(h_write_str(h_path(file, m.dir, "again"), "x"), 0);
	cr_expect_eq(h_stop(&m), 0);
}

/* utime + stime of process @pid in clock ticks, its ended threads counted. */
static unsigned long cpu_ticks(pid_t pid)
{
	char path[64], *s, *p;
	unsigned long ut = 0, st = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	s = h_slurp(path, NULL);
	cr_assert_not_null(s);
	p = strrchr(s, ')'); /* the name may hold anything but ends at the last ')' */
	cr_assert_not_null(p);
	cr_assert_eq(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st),
		     2, "%s", s);
	free(s);
	return ut + st;
}

/*
 * Requests that block (1 ms reads in sleepfs) leave the polling workers
 * asleep: the daemon spends on each what serving it costs (50-70 us here,
 * counted in 10 ms ticks), where a worker polling through each read would
 * add most of the 1 ms. The bound, 300 us, leaves room for sanitizers on
 * a loaded machine. An idle mount costs nothing at all (the bound allows
 * for the ticks' grain).
 */
Test(daemon, polling_sleeps_while_requests_block_and_while_idle)
{
	const char *args[] = { "-o", "cache=never,poll_us=200", NULL };
	enum { READS = 400 };
	char path[PATH_MAX], buf[4096];
	unsigned long c0, c1, c2;
	double tck = (double)sysconf(_SC_CLK_TCK), us_per_read;
	int fd, n;

	h_sleepfs_start(&slow, m.top, "1000");
	h_start_at(&m, slow.dir, NULL, args);
	fd = open(h_path(path, m.dir, "slow"), O_RDONLY);
	cr_assert_geq(fd, 0);
	/* Warm-up: threads started, windows settled. The file is 1 MiB. */
	for (n = 0; n < 10 && pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf); n++)
		;
	c0 = cpu_ticks(m.pid);
	for (n = 0; n < READS; n++)
		if (pread(fd, buf, sizeof(buf), (off_t)(n % 256) * 4096) != (ssize_t)sizeof(buf))
			break;
	c1 = cpu_ticks(m.pid);
	close(fd);
	cr_assert_eq(n, READS, "read %d of %d: %s", n, READS, strerror(errno));
	us_per_read = (double)(c1 - c0) / tck * 1e6 / READS;
	cr_expect_lt(us_per_read, 300.0, "daemon CPU per 1 ms read: %.0f us", us_per_read);
	usleep(500 * 1000);
	c2 = cpu_ticks(m.pid);
	cr_expect_leq(c2 - c1, 3, "daemon CPU in 0.5 s idle: %lu ticks", c2 - c1);
}

/*
 * Regression: the timeline's thread was started before daemonizing, whose
 * fork only the calling thread survives: a daemon started without -f took
 * no timeline snapshot.
 */
Test(daemon, threads_survive_daemonizing)
{
	char cmd[3 * PATH_MAX], stats[PATH_MAX];
	char *s;
	unsigned n = 0;

	snprintf(cmd, sizeof(cmd), "'%s' '%s' '%s' -o timeline=50", h_osprof_fs(), m.lower,
		 m.dir);
	cr_assert_eq(h_sh("%s", cmd), 0, "started in the background");
	usleep(1000000);
	s = h_slurp(h_path(stats, m.dir, ".osprof/timeline"), NULL);
	cr_expect_not_null(s);
	cr_expect(s && sscanf(s, "timeline: interval 50ms, %u snapshots", &n) == 1, "%s", s);
	/* Timing: a second at least, however late the read comes. */
	cr_expect_geq(n, 10, "a snapshot every 50 ms for a second: %u", n);
	free(s);
	cr_expect_eq(h_sh("fusermount3 -u '%s'", m.dir), 0);
}
