// SPDX-License-Identifier: MIT
/*
 * osprof-trace: profile the system calls of processes, a cgroup or a
 * command with the eBPF layers (bpf/obp.h), without a FUSE mount. The
 * order matters: every input is checked before anything is loaded (bad
 * input changes nothing); the layers load before a command is started
 * (so a tracer that cannot trace never runs it); a command waits at a
 * gate until its pid is in the programs' map, so its first call after
 * exec is counted. Then one loop waits for a signal, the end of what is
 * traced, or the next interval.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "otr.h"
#include "osprof/clock.h"

/* What one run holds, for the loop and the unwinding. */
struct otr_run {
	struct otr_opts o;
	struct obp *b;
	struct otr_layer y[OBP_L__COUNT];
	size_t ny;
	int pidfds[OTR_PIDS_MAX]; /* of -p processes; -1 once ended */
	struct otr_cmd cmd;       /* pid -1 without a command */
	int sigfd;
	struct osp_kvlist source; /* what was traced, for the profiles */
};

static int usage_error(const char *msg)
{
	fprintf(stderr, OTR_PROG ": %s\n", msg);
	return OTR_EXIT_USAGE;
}

/* The -p processes, each as a pidfd (which also proves it exists). */
static int open_pids(struct otr_run *r, char *err, size_t errlen)
{
	for (size_t i = 0; i < r->o.npids; i++) {
		r->pidfds[i] = (int)syscall(SYS_pidfd_open, r->o.pids[i], 0);
		if (r->pidfds[i] < 0) {
			int e = errno;

			snprintf(err, errlen, "-p %d: %s", (int)r->o.pids[i],
				 e == ESRCH ? "no such process" : strerror(e));
			return -e;
		}
	}
	return 0;
}

/* What was traced, as the profiles' "source". */
static int make_source(struct otr_run *r)
{
	char *pids = NULL, *cmd = NULL;
	size_t len = 0, clen = 0;
	FILE *f;
	int err = 0;

	if (r->o.npids) {
		f = open_memstream(&pids, &len);
		if (!f)
			return -ENOMEM;
		for (size_t i = 0; i < r->o.npids; i++)
			fprintf(f, "%s%d", i ? "," : "[", (int)r->o.pids[i]);
		fputc(']', f);
		err = fclose(f) ? -ENOMEM : osp_kv_set_json(&r->source, "pids", pids);
	}
	if (!err && r->o.cmd) {
		f = open_memstream(&cmd, &clen);
		if (!f)
			err = -ENOMEM;
		for (size_t i = 0; f && r->o.cmd[i]; i++)
			fprintf(f, "%s%s", i ? " " : "", r->o.cmd[i]);
		if (f && fclose(f))
			err = -ENOMEM;
		err = err ? err : osp_kv_set_str(&r->source, "command", cmd);
	}
	if (!err && r->o.cgroup)
		err = osp_kv_set_str(&r->source, "cgroup", r->o.cgroup);
	if (!err && r->o.mount)
		err = osp_kv_set_str(&r->source, "mount", r->o.mount);
	free(pids);
	free(cmd);
	return err;
}

/* Check the inputs and turn them into the programs' options. */
static int prepare(struct otr_run *r, struct obp_opts *bo, char *err, size_t errlen)
{
	struct otr_mount m = { 0 };
	int e;

	memset(bo, 0, sizeof(*bo));
	if (r->o.mount) {
		e = otr_mount_resolve(r->o.mount, &m, err, errlen);
		if (e)
			return e;
		bo->mount_filter = true;
		bo->mount_id = m.mnt_id;
		bo->mount_dev = m.dev;
		bo->fuse_dev = m.fuse_dev;
		if (!r->o.layers_given && m.fuse_dev)
			r->o.layers |= OBP_LAYER_BIT(OBP_L_FUSE);
	}
	if (r->o.cgroup && (e = otr_cgroup_id(r->o.cgroup, &bo->cgroup_id, err, errlen)) != 0)
		return e;
	e = open_pids(r, err, errlen);
	if (e)
		return e;
	bo->layers = r->o.layers;
	bo->follow_children = true;
	bo->load_heap = true; /* we end with what we trace */
	return 0;
}

/* Load the layers: every one asked for, or we cannot do what was asked. */
static int load(struct otr_run *r, const struct obp_opts *bo, char *err, size_t errlen)
{
	int e = obp_open(bo, &r->b, err, errlen);

	if (e)
		return e;
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		if (!(r->o.layers & OBP_LAYER_BIT(l)))
			continue;
		if (!(obp_layers(r->b) & OBP_LAYER_BIT(l))) {
			snprintf(err, errlen, "%s", obp_why(r->b, l));
			return -ENOTSUP;
		}
		r->y[r->ny++].l = l;
	}
	for (size_t i = 0; i < r->o.npids; i++) {
		e = obp_pid_add(r->b, r->o.pids[i]);
		if (e) {
			snprintf(err, errlen, "-p %d: cannot trace: %s", (int)r->o.pids[i], strerror(-e));
			return e;
		}
	}
	return 0;
}

/* Start the command behind its gate, trace it, let it go. */
static int start_cmd(struct otr_run *r, char *err, size_t errlen)
{
	int e = otr_cmd_start(&r->cmd, r->o.cmd, err, errlen);

	if (e)
		return e;
	e = obp_pid_add(r->b, r->cmd.pid);
	if (e) {
		snprintf(err, errlen, "%s: cannot trace: %s", r->o.cmd[0], strerror(-e));
		otr_cmd_wait(&r->cmd);
		r->cmd.pid = -1;
		return e;
	}
	e = otr_cmd_release(&r->cmd);
	if (e)
		snprintf(err, errlen, "%s: cannot start: %s", r->o.cmd[0], strerror(-e));
	return e;
}

/* Whether every -p process has ended (none given: never). */
static bool pids_ended(const struct otr_run *r)
{
	for (size_t i = 0; i < r->o.npids; i++)
		if (r->pidfds[i] >= 0)
			return false;
	return r->o.npids > 0;
}

/*
 * Wait for the end: the command's exit; else every -p process's, unless
 * a cgroup is traced too; or SIGINT / SIGTERM. A signal is passed on to
 * the command, whose exit then ends the run (a second signal kills it).
 */
static int run_loop(struct otr_run *r, char *err, size_t errlen)
{
	uint64_t start_ns = osp_clock_mono_ns(), next_ns = start_ns + r->o.interval_ns;
	bool has_cmd = r->cmd.pid > 0, stopping = false;

	for (;;) {
		/* Ended -p processes are -1 here: poll skips them. */
		struct pollfd pf[OTR_PIDS_MAX + 2];
		size_t n = 0;
		int timeout_ms = -1, rc;

		pf[n++] = (struct pollfd){ .fd = r->sigfd, .events = POLLIN };
		if (has_cmd)
			pf[n++] = (struct pollfd){ .fd = r->cmd.pidfd, .events = POLLIN };
		for (size_t i = 0; i < r->o.npids; i++)
			pf[n++] = (struct pollfd){ .fd = r->pidfds[i], .events = POLLIN };
		if (r->o.interval_ns) {
			uint64_t now = osp_clock_mono_ns();

			timeout_ms = now >= next_ns ? 0 : (int)((next_ns - now + 999999) / 1000000);
		}
		rc = poll(pf, n, timeout_ms);
		if (rc < 0 && errno != EINTR) {
			snprintf(err, errlen, "poll: %s", strerror(errno));
			return -errno;
		}
		if (r->o.interval_ns && osp_clock_mono_ns() >= next_ns) {
			for (size_t i = 0; i < r->ny; i++) {
				int e = otr_interval(r->b, &r->y[i], next_ns - start_ns,
						     r->o.interval_ns, true, err, errlen);
				if (e)
					return e;
			}
			next_ns += r->o.interval_ns;
		}
		if (rc <= 0)
			continue;
		if (pf[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				if (!has_cmd)
					return 0;
				kill(r->cmd.pid, stopping ? SIGKILL : (int)si.ssi_signo);
				stopping = true;
			}
		}
		if (has_cmd && (pf[1].revents & POLLIN))
			return 0;
		for (size_t i = 0; i < r->o.npids; i++) {
			if (pf[n - r->o.npids + i].revents & POLLIN) {
				close(r->pidfds[i]);
				r->pidfds[i] = -1;
				pf[n - r->o.npids + i].fd = -1;
			}
		}
		if (!has_cmd && !r->o.cgroup && pids_ended(r))
			return 0;
	}
}

static int finish(struct otr_run *r, char *err, size_t errlen)
{
	obp_enable(r->b, false);
	for (size_t i = 0; i < r->ny; i++) {
		char *path = r->o.out ? otr_out_path(r->o.out, r->y[i].l, r->o.first) : NULL;
		int e;

		if (r->o.out && !path) {
			snprintf(err, errlen, "%s: out of memory", r->o.out);
			return -ENOMEM;
		}
		e = otr_finish(r->b, &r->y[i], &r->source, r->o.interval_ns, path, err, errlen);
		free(path);
		if (e)
			return e;
	}
	return 0;
}

static int block_signals(struct otr_run *r, char *err, size_t errlen)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
	    (r->sigfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		snprintf(err, errlen, "signalfd: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct otr_run r; /* large; zeroed */
	char err[OTR_ERRLEN] = "";
	struct obp_opts bo;
	int rc, status = OTR_EXIT_OK;

	r.sigfd = -1;
	r.cmd.pid = -1;
	r.cmd.pidfd = r.cmd.gate_fd = -1;
	for (size_t i = 0; i < OTR_PIDS_MAX; i++)
		r.pidfds[i] = -1;
	rc = otr_opts_parse(&r.o, argc, argv, err, sizeof(err));
	if (rc)
		return rc > 0 ? OTR_EXIT_OK : usage_error(err);
	rc = prepare(&r, &bo, err, sizeof(err));
	if (rc) {
		status = OTR_EXIT_USAGE;
		goto out_pids;
	}
	rc = make_source(&r);
	if (rc) {
		snprintf(err, sizeof(err), "out of memory");
		status = OTR_EXIT_CANNOT;
		goto out_pids;
	}
	/* Signals are blocked before the command starts: its end or ours is
	 * never missed. The child unblocks them before it execs. */
	rc = block_signals(&r, err, sizeof(err));
	rc = rc ? rc : load(&r, &bo, err, sizeof(err));
	if (rc) {
		status = OTR_EXIT_CANNOT;
		goto out_obp;
	}
	if (r.o.cmd && (rc = start_cmd(&r, err, sizeof(err))) != 0) {
		status = OTR_EXIT_CANNOT;
		goto out_cmd;
	}
	/* Tests (and people) wait for this line before they start work. */
	fputs(OTR_PROG ": tracing layer", stderr);
	for (size_t i = 0; i < r.ny; i++)
		fprintf(stderr, "%s%s", i ? "," : r.ny > 1 ? "s " : " ", obp_layer_name(r.y[i].l));
	fputs(r.o.cmd ? "\n" : " (Ctrl-C ends)\n", stderr);
	rc = run_loop(&r, err, sizeof(err));
	rc = rc ? rc : finish(&r, err, sizeof(err));
	if (rc)
		status = OTR_EXIT_CANNOT;
out_cmd:
	/* The command's status is ours, unless we failed ourselves. */
	if (r.cmd.pid > 0) {
		int st = otr_cmd_wait(&r.cmd);

		if (!rc)
			status = st < 0 ? OTR_EXIT_CANNOT : st;
	}
out_obp:
	for (size_t i = 0; i < r.ny; i++)
		otr_layer_fini(&r.y[i]);
	obp_close(r.b);
	if (r.sigfd >= 0)
		close(r.sigfd);
out_pids:
	for (size_t i = 0; i < r.o.npids; i++)
		if (r.pidfds[i] >= 0)
			close(r.pidfds[i]);
	osp_kv_free(&r.source);
	if (rc)
		fprintf(stderr, OTR_PROG ": %s\n", err);
	return status;
}
