// SPDX-License-Identifier: MIT
/*
 * One run of one configuration: remount, setup, cold caches, the command's
 * copies, cleanup. The copies are forked first and held at a barrier, as
 * Auto-pilot's semaphore held its threads: each child writes a byte to a
 * "ready" pipe once it is set up and then blocks reading a "go" pipe; when
 * all N bytes have arrived the runner closes the go pipe's write end, and
 * that single close wakes every child at once (EOF). Each child writes the
 * time it left the barrier into shared memory, so the report can show how
 * closely the copies started. Times and CPU come from the kernel: the
 * monotonic clock around the copy, and wait4's rusage of the copy (which
 * includes the descendants it waited for).
 */
#include "obn.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "osprof/clock.h"

const char *const obn_qty_names[OBN_Q_COUNT] = {
	[OBN_Q_ELAPSED] = "elapsed",
	[OBN_Q_USER] = "user",
	[OBN_Q_SYSTEM] = "system",
	[OBN_Q_WAIT] = "wait",
	[OBN_Q_CPU_PCT] = "cpu%",
};
_Static_assert(sizeof(obn_qty_names) / sizeof(obn_qty_names[0]) == OBN_Q_COUNT,
	       "a name per quantity");

const char *const obn_qty_units[OBN_Q_COUNT] = {
	[OBN_Q_ELAPSED] = "s",
	[OBN_Q_USER] = "s",
	[OBN_Q_SYSTEM] = "s",
	[OBN_Q_WAIT] = "s",
	[OBN_Q_CPU_PCT] = "%",
};

volatile sig_atomic_t obn_interrupted;

/* The pipes of one run's barrier, and where exec errors come back. */
struct barrier {
	int ready[2];	/* children -> runner: one byte each when set up */
	int go[2];	/* runner closes go[1]: every child is released */
	int err[2];	/* children -> runner: {index, errno} when exec fails */
	int64_t *start_ns;	/* shared memory: each child's release time */
};

struct exec_failure {
	int index;
	int err;
};

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void barrier_close(struct barrier *b, size_t n)
{
	for (int i = 0; i < 2; i++) {
		close_fd(&b->ready[i]);
		close_fd(&b->go[i]);
		close_fd(&b->err[i]);
	}
	if (b->start_ns && b->start_ns != MAP_FAILED)
		munmap(b->start_ns, n * sizeof(*b->start_ns));
	b->start_ns = NULL;
}

static int barrier_open(struct barrier *b, size_t n)
{
	b->ready[0] = b->ready[1] = b->go[0] = b->go[1] = -1;
	b->err[0] = b->err[1] = -1;
	b->start_ns = mmap(NULL, n * sizeof(*b->start_ns), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b->start_ns == MAP_FAILED || pipe2(b->ready, O_CLOEXEC) < 0 ||
	    pipe2(b->go, O_CLOEXEC) < 0 || pipe2(b->err, O_CLOEXEC) < 0) {
		int err = -errno;
		barrier_close(b, n);
		return err;
	}
	return 0;
}

/* The child's side: never returns. */
static void copy_main(const struct obn_config *cfg, struct barrier *b,
		      unsigned index)
{
	char idx[16], c = 'r';

	/* Signal dispositions are left alone: exec resets our handlers and
	 * keeps what the user's shell set to be ignored. */
	close(b->ready[0]);
	close(b->go[1]);
	close(b->err[0]);
	snprintf(idx, sizeof(idx), "%u", index);
	setenv("OSPROF_THREAD", idx, 1);
	if (write(b->ready[1], &c, 1) != 1)
		_exit(127);
	close(b->ready[1]);
	while (read(b->go[0], &c, 1) < 0 && errno == EINTR)
		;
	b->start_ns[index] = osp_clock_mono_ns();
	if (cfg->shell_cmd)
		execl("/bin/sh", "sh", "-c", cfg->shell_cmd, (char *)NULL);
	else
		execvp(cfg->argv[0], cfg->argv);
	struct exec_failure f = { (int)index, errno };
	if (write(b->err[1], &f, sizeof(f)) != sizeof(f))
		_exit(127);
	_exit(127);
}

/* Kill and reap the first n children after a failure to start the rest. */
static void abandon(pid_t *pids, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (unsigned i = 0; i < n; i++)
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
}

/* Fork every copy; they wait at the barrier. */
static int fork_copies(const struct obn_config *cfg, struct barrier *b,
		       pid_t *pids, unsigned n)
{
	fflush(NULL);
	for (unsigned i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			copy_main(cfg, b, i);
		if (pids[i] < 0) {
			int err = -errno;
			abandon(pids, i);
			return err;
		}
	}
	close_fd(&b->ready[1]);
	close_fd(&b->go[0]);
	close_fd(&b->err[1]);
	return 0;
}

/* Wait for every child's ready byte, then release them all at once. */
static int release(struct barrier *b, unsigned n)
{
	char buf[64];
	unsigned got = 0;

	while (got < n) {
		ssize_t k = read(b->ready[0], buf, sizeof(buf));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break; /* a child died before the barrier: reaped below */
		got += (unsigned)k;
	}
	close_fd(&b->go[1]);
	return got == n ? 0 : -ECHILD;
}

/* Reap the n copies, recording end time, rusage and status of each. */
static int reap(pid_t *pids, unsigned n, struct obn_copy *copies)
{
	unsigned left = n;

	while (left > 0) {
		struct rusage ru;
		int st;
		pid_t pid = wait4(-1, &st, 0, &ru);
		if (pid < 0) {
			if (errno == EINTR)
				continue; /* the copies got the signal too */
			return -errno;
		}
		int64_t now = osp_clock_mono_ns();
		for (unsigned i = 0; i < n; i++) {
			if (pids[i] != pid)
				continue;
			copies[i].end_ns = now;
			copies[i].wstatus = st;
			copies[i].user_s = tv_s(ru.ru_utime);
			copies[i].system_s = tv_s(ru.ru_stime);
			left--;
		}
	}
	return 0;
}

static void collect_exec_errors(struct barrier *b, struct obn_copy *copies,
				unsigned n)
{
	struct exec_failure f;

	while (read(b->err[0], &f, sizeof(f)) == (ssize_t)sizeof(f))
		if (f.index >= 0 && (unsigned)f.index < n)
			copies[f.index].exec_errno = f.err;
}

/* Run the copies of cfg at the barrier; fills out->copies. */
static int run_copies(const struct obn_opts *o, const struct obn_config *cfg,
		      struct obn_run *out)
{
	struct barrier b;
	unsigned n = o->threads;
	pid_t *pids = calloc(n, sizeof(*pids));
	int rc;

	if (!pids)
		return -ENOMEM;
	rc = barrier_open(&b, n);
	if (rc == 0)
		rc = fork_copies(cfg, &b, pids, n);
	if (rc < 0) {
		barrier_close(&b, n);
		free(pids);
		return rc;
	}
	int64_t go_ns = osp_clock_mono_ns();
	rc = release(&b, n);
	if (rc == 0)
		go_ns = osp_clock_mono_ns();
	int rc2 = reap(pids, n, out->copies);
	collect_exec_errors(&b, out->copies, n);
	for (unsigned i = 0; i < n; i++)
		out->copies[i].start_ns = b.start_ns[i] ? b.start_ns[i] : go_ns;
	barrier_close(&b, n);
	free(pids);
	return rc2;
}

/* Fill the run's quantities from its copies; note the first failed copy. */
static void summarize_copies(const struct obn_config *cfg, struct obn_run *r)
{
	int64_t first = INT64_MAX, last = INT64_MIN, longest = 0;
	double user = 0, sys = 0;

	for (unsigned i = 0; i < r->ncopies; i++) {
		const struct obn_copy *c = &r->copies[i];
		if (c->end_ns - c->start_ns > longest)
			longest = c->end_ns - c->start_ns;
		first = c->start_ns < first ? c->start_ns : first;
		last = c->start_ns > last ? c->start_ns : last;
		user += c->user_s;
		sys += c->system_s;
		if (!r->ok)
			continue;
		if (c->exec_errno) {
			r->ok = false;
			r->exec_errno = c->exec_errno;
			snprintf(r->failure, sizeof(r->failure),
				 "cannot execute '%s': %s", cfg->argv ?
				 cfg->argv[0] : "/bin/sh", strerror(c->exec_errno));
		} else if (c->wstatus != 0) {
			char how[128];
			obn_proc_describe(c->wstatus, how, sizeof(how));
			r->ok = false;
			snprintf(r->failure, sizeof(r->failure), "copy %u %s%s", i,
				 how, WIFEXITED(c->wstatus) &&
				 WEXITSTATUS(c->wstatus) == 127 ?
				 " (command not found?)" : "");
		}
	}
	double elapsed = (double)longest / 1e9;
	r->start_spread_ns = last - first;
	r->q[OBN_Q_ELAPSED] = elapsed;
	r->q[OBN_Q_USER] = user;
	r->q[OBN_Q_SYSTEM] = sys;
	r->q[OBN_Q_WAIT] = elapsed - user - sys;
	r->q[OBN_Q_CPU_PCT] = elapsed > 0 ? (user + sys) / elapsed * 100.0 : 0.0;
}

/* Run a --setup or --cleanup command; false (with r->failure) if it failed. */
static bool run_hook(const char *what, const char *cmd, struct obn_run *r)
{
	char how[128];
	int st, rc = obn_proc_shell(cmd, &st);

	if (rc == 0 && st == 0)
		return true;
	if (rc < 0)
		snprintf(how, sizeof(how), "could not start: %s", strerror(-rc));
	else
		obn_proc_describe(st, how, sizeof(how));
	if (r->ok) {
		r->ok = false;
		snprintf(r->failure, sizeof(r->failure), "%s command %s", what, how);
	}
	return false;
}

static void export_env(const struct obn_config *cfg, unsigned run_no)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", run_no);
	setenv("OSPROF_RUN", num, 1);
	setenv("OSPROF_CONFIG", cfg->name, 1);
}

/* The measured part: caches, memory, the copies. */
static int measure(const struct obn_opts *o, const struct obn_config *cfg,
		   struct obn_run *out)
{
	int rc;

	if (o->cold) {
		rc = obn_sys_drop_caches();
		if (rc < 0) {
			fprintf(stderr, "osprof-bench: cannot drop caches: %s\n",
				strerror(-rc));
			return rc;
		}
	}
	if (obn_sys_mem_available(&out->mem_before_bytes))
		out->mem_before_bytes = 0;
	rc = run_copies(o, cfg, out);
	if (rc < 0) {
		fprintf(stderr, "osprof-bench: cannot run the copies of '%s': %s\n",
			cfg->name, strerror(-rc));
		return rc;
	}
	if (obn_sys_mem_available(&out->mem_after_bytes))
		out->mem_after_bytes = 0;
	summarize_copies(cfg, out);
	return 0;
}

int obn_run_one(const struct obn_opts *o, struct obn_remount *rm,
		const struct obn_config *cfg, unsigned run_no,
		struct obn_run *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->index = run_no;
	out->ok = true;
	out->ncopies = o->threads;
	out->copies = calloc(o->threads, sizeof(*out->copies));
	if (!out->copies)
		return -ENOMEM;
	export_env(cfg, run_no);
	/* Remount before setup, so what setup writes into the mount (ctl
	 * commands) applies to this run; caches are dropped after setup, so
	 * whatever setup read is cold again. */
	if (rm) {
		rc = obn_remount_cycle(rm);
		if (rc < 0)
			return rc;
	}
	if (o->setup && !run_hook("setup", o->setup, out))
		return 0;
	rc = measure(o, cfg, out);
	if (o->cleanup)
		run_hook("cleanup", o->cleanup, out);
	return rc;
}

void obn_run_free(struct obn_run *r)
{
	free(r->copies);
	r->copies = NULL;
}
