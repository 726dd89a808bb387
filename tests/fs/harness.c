// SPDX-License-Identifier: MIT
/* Mount-level test harness; see harness.h. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "osprof/format.h"
#include "osp_mountinfo.h"

const char *h_osprof_fs(void)
{
	const char *p = getenv("OSPROF_FS");

	cr_assert_not_null(p, "OSPROF_FS must name the osprof-fs binary");
	return p;
}

const char *h_transport(void)
{
	const char *t = getenv("OSPROF_TEST_TRANSPORT");

	return t ? t : "";
}

bool h_passthrough(void)
{
	return strstr(h_transport(), "passthrough") != NULL;
}

bool h_noopen(void)
{
	return strstr(h_transport(), "noopen") != NULL;
}

char *h_path(char *buf, const char *a, const char *b)
{
	snprintf(buf, PATH_MAX, "%s/%s", a, b);
	return buf;
}

char *h_at(const char *a, const char *b)
{
	static char buf[8][PATH_MAX];
	static unsigned i;

	return h_path(buf[i++ % 8], a, b);
}

void h_tree(struct mnt *m)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	memset(m, 0, sizeof(*m));
	snprintf(m->top, sizeof(m->top), "%s/osprof-test-XXXXXX", tmp);
	cr_assert_not_null(mkdtemp(m->top), "mkdtemp: %s", strerror(errno));
	chmod(m->top, 0755); /* other users reach the mount in permission tests */
	snprintf(m->lower, sizeof(m->lower), "%s/lower", m->top);
	snprintf(m->dir, sizeof(m->dir), "%s/mnt", m->top);
	snprintf(m->log, sizeof(m->log), "%s/daemon.log", m->top);
	cr_assert_eq(mkdir(m->lower, 0755), 0);
	cr_assert_eq(mkdir(m->dir, 0755), 0);
}

static bool mounted(const char *dir)
{
	struct osp_mountinfo mi;
	struct osp_mount m;
	bool found = false;

	if (osp_mountinfo_open(&mi, NULL) != 0)
		return false;
	while (!found && osp_mountinfo_next(&mi, &m) == 1)
		found = strcmp(m.point, dir) == 0 && strcmp(m.fstype, "fuse.osprof-fs") == 0;
	osp_mountinfo_close(&mi);
	return found;
}

/* The kernel passes nothing through with the writeback cache: such a
 * mount runs without passthrough (=require would refuse it). */
static bool asks_writeback(const char *const *args)
{
	for (int i = 0; args && args[i]; i++)
		if (strstr(args[i], "writeback") && !strstr(args[i], "no_writeback"))
			return true;
	return false;
}

/* @args name option @opt (a substring of one of them). */
static bool asks(const char *const *args, const char *opt)
{
	for (int i = 0; args && args[i]; i++)
		if (strstr(args[i], opt))
			return true;
	return false;
}

/*
 * The options the transport adds to a mount with @args: none, or
 * OSPROF_TEST_TRANSPORT's. -o noopen is refused under cache=never, with
 * writeback and with passthrough: a mount that asks cache=never itself
 * (it wants every request) or one of the others stays as it is. One that
 * names no cache mode gets the mode closest to the default that noopen
 * allows: auto, with timeouts 0 as never has, so that each lookup and
 * stat still reaches the daemon and a change made on the lower directory
 * is seen at once (auto_inval_data drops the pages then); what differs
 * is what noopen does and that reads go through the page cache. (always
 * would keep a file's pages and attributes a day: the tests that change
 * a lower file and read it through the mount would read stale data.)
 */
static const char *transport_opts(const char *const *args)
{
	if (!h_transport()[0] || (h_passthrough() && asks_writeback(args)))
		return NULL;
	if (!h_noopen())
		return h_transport();
	if (asks_writeback(args) || asks(args, "passthrough") || asks(args, "cache=never"))
		return NULL;
	if (asks(args, "cache=auto") || asks(args, "cache=always"))
		return "noopen";
	return "cache=auto,entry_timeout=0,attr_timeout=0,noopen";
}

void h_start_at(struct mnt *m, const char *lower, const char *dir,
		const char *const *args)
{
	const char *argv[64];
	int n = 0, status;

	lower = lower ? lower : m->lower;
	dir = dir ? dir : m->dir;
	if (dir != m->dir)
		snprintf(m->dir, sizeof(m->dir), "%s", dir);
	snprintf(m->ctl, sizeof(m->ctl), "%s/.osprof", m->dir);
	argv[n++] = h_osprof_fs();
	argv[n++] = lower;
	argv[n++] = dir;
	argv[n++] = "-f";
	for (int i = 0; args && args[i] && n < 60; i++)
		argv[n++] = args[i];
	if (transport_opts(args)) {
		argv[n++] = "-o";
		argv[n++] = transport_opts(args);
	}
	argv[n] = NULL;
	m->pid = fork();
	cr_assert_geq(m->pid, 0);
	if (m->pid == 0) {
		int fd = open(m->log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		/* Should the test die, the daemon shuts down and unmounts. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (mounted(dir))
			return;
		if (waitpid(m->pid, &status, WNOHANG) == m->pid) {
			char *log = h_slurp(m->log, NULL);

			m->pid = 0;
			cr_assert_fail("osprof-fs exited before mounting: %s", log ? log : "");
		}
		nanosleep(&ts, NULL);
	}
	cr_assert_fail("osprof-fs did not mount %s within 10 s", dir);
}

void h_start(struct mnt *m, const char *const *args)
{
	h_start_at(m, NULL, NULL, args);
}

/*
 * A healthy daemon says nothing: any line on its stderr (a sanitizer
 * report, a libfuse complaint, a warning of ours) fails the test.
 */
static void check_log(struct mnt *m)
{
	char *log = h_slurp(m->log, NULL);

	if (log && log[0]) {
		m->bad_stderr = true;
		fprintf(stderr, "osprof-fs wrote to stderr (%s):\n%s", m->log, log);
	}
	cr_expect_str_empty(log ? log : "", "daemon stderr is not empty");
	free(log);
}

int h_stop(struct mnt *m)
{
	int status = -1;

	if (m->pid <= 0)
		return -1;
	if (h_sh("fusermount3 -u '%s' 2>/dev/null", m->dir) != 0) {
		/* Busy (a test left a file open): lazily detach. */
		h_sh("fusermount3 -uz '%s' 2>/dev/null", m->dir);
	}
	for (int i = 0; i < 1000; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (waitpid(m->pid, &status, WNOHANG) == m->pid)
			break;
		if (i == 999) {
			kill(m->pid, SIGKILL);
			waitpid(m->pid, &status, 0);
			cr_expect_fail("osprof-fs did not exit after unmount");
		}
		nanosleep(&ts, NULL);
	}
	m->pid = 0;
	check_log(m);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void h_cleanup(struct mnt *m)
{
	if (m->pid > 0)
		h_stop(m);
	if (m->top[0])
		h_sh("rm -rf '%s'", m->top);
	if (m->bad_stderr)
		abort();
}

void h_cleanup_over(struct mnt *m, struct sleepfs *s)
{
	if (m->pid > 0)
		h_stop(m);
	h_sleepfs_stop(s);
	h_cleanup(m);
}

struct osp_profile *h_profile(struct mnt *m)
{
	char path[PATH_MAX], err[512];
	struct osp_profile *p;

	snprintf(path, sizeof(path), "%s/stats.json", m->ctl);
	p = osp_read_json_file(path, err, sizeof(err));
	cr_assert_not_null(p, "stats.json: %s", err);
	cr_expect_eq(osp_profile_check(p, stderr), 0, "every checksum holds");
	return p;
}

struct osp_profile *h_profile_when(struct mnt *m, const char *op, uint64_t n)
{
	struct osp_profile *p = h_profile(m);

	for (int i = 0; i < 500 && h_count(p, op) < n; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		osp_profile_free(p);
		p = h_profile(m);
	}
	return p;
}

struct osp_profile *h_profile_released(struct mnt *m)
{
	struct osp_profile *p = h_profile(m);
	const char *noopen = osp_kv_get(&p->options, "noopen");

	/* With noopen no release comes: the opens counted were refused. */
	if (noopen && strcmp(noopen, "true") == 0)
		return p;

	/* a CREATE opens too: its file is released as well */
	for (int i = 0; i < 500 && (h_count(p, "release") < h_count(p, "open") + h_count(p, "create") ||
				    h_count(p, "releasedir") < h_count(p, "opendir")); i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		osp_profile_free(p);
		p = h_profile(m);
	}
	return p;
}

uint64_t h_count(const struct osp_profile *p, const char *op)
{
	const struct osp_op *o = osp_profile_find_op(p, op);

	return o ? o->lat.count : 0;
}

char *h_line(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, prefix, n) == 0)
			return strndup(l, strcspn(l, "\n"));
	return NULL;
}

char *h_ctl_value(const struct mnt *m, const char *key)
{
	char path[PATH_MAX], *text, *prefix = NULL, *line = NULL, *v = NULL;

	snprintf(path, sizeof(path), "%s/ctl", m->ctl);
	text = h_slurp(path, NULL);
	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	cr_assert_geq(asprintf(&prefix, "%s ", key), 0);
	line = h_line(text, prefix);
	if (line)
		v = strdup(line + strlen(prefix));
	free(line);
	free(prefix);
	free(text);
	return v;
}

uint64_t h_ctl_u64(const struct mnt *m, const char *key)
{
	char *v = h_ctl_value(m, key), *end = NULL;
	uint64_t n;

	cr_assert_not_null(v, "ctl has no %s", key);
	errno = 0;
	n = strtoull(v, &end, 10);
	cr_assert(errno == 0 && end != v && *end == '\0', "ctl %s: '%s'", key, v);
	free(v);
	return n;
}

void h_expect_data(const struct osp_profile *p, const char *op, uint64_t n)
{
	const char *pt = osp_kv_get(&p->options, "passed_through");

	if (!h_passthrough()) {
		cr_expect_eq(h_count(p, op), n, "%s: %llu requests, expected %llu", op,
			     (unsigned long long)h_count(p, op), (unsigned long long)n);
		return;
	}
	cr_expect_eq(h_count(p, op), 0, "%s passed through: none reach the fs layer", op);
	cr_expect(pt && strstr(pt, op), "the profile says %s passed through (%s)", op, pt ? pt : "nothing");
}

char *h_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	char *buf = NULL;
	size_t n = 0, cap = 0;

	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r <= 0) {
			if (r < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int h_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), err = 0;
	size_t len = strlen(s);

	if (fd < 0)
		return -errno;
	if (write(fd, s, len) != (ssize_t)len)
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	return err;
}

int h_sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int h_run_fail(const char *const *args, char **err)
{
	int pipefd[2], status;
	const char *argv[32];
	int n = 0;
	pid_t pid;

	argv[n++] = h_osprof_fs();
	for (int i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	cr_assert_eq(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	{
		char buf[4096];
		size_t len = 0;
		ssize_t r;

		while (len < sizeof(buf) - 1 && (r = read(pipefd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)r;
		buf[len] = '\0';
		*err = strdup(buf);
	}
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void h_sleepfs_start(struct sleepfs *s, const char *top, const char *sleep_us)
{
	const char *bin = getenv("SLEEPFS");

	cr_assert_not_null(bin, "SLEEPFS must name the sleepfs binary");
	h_path(s->dir, top, "slow");
	cr_assert_eq(mkdir(s->dir, 0755), 0);
	s->pid = fork();
	if (s->pid == 0) {
		if (s->threaded)
			execl(bin, bin, s->dir, sleep_us, "-f", (char *)NULL);
		else
			execl(bin, bin, s->dir, sleep_us, "-f", "-s", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500; i++) {
		char p[PATH_MAX];
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (access(h_path(p, s->dir, "slow"), R_OK) == 0)
			return;
		nanosleep(&ts, NULL);
	}
	cr_assert_fail("sleepfs did not mount");
}

void h_sleepfs_stop(struct sleepfs *s)
{
	if (s->pid <= 0)
		return;
	h_sh("fusermount3 -u '%s'", s->dir);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
}

int h_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups, int (*fn)(void))
{
	pid_t pid = fork();
	int st;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (setgroups((size_t)ngroups, groups) != 0 || setgid(gid) != 0 ||
		    setuid(uid) != 0)
			_exit(100);
		_exit(fn());
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 101;
}
