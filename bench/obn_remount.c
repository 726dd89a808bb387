// SPDX-License-Identifier: MIT
/*
 * Remounting a FUSE view (osprof-fs) between runs, so every run starts with
 * a fresh daemon and empty FUSE caches. Unmounting is always `fusermount3 -u
 * MOUNTPOINT`. Mounting again is either the user's --remount-cmd (a shell
 * command that must return once mounted, or at least start the daemon), or,
 * by default, the daemon's own command line read from /proc/PID/cmdline of
 * the one process that holds /dev/fuse open and names the mount point among
 * its arguments. That command is re-executed from osprof-bench's working
 * directory, detached (its own session, stdin and stdout on /dev/null), so
 * it should use absolute paths: a daemonized FUSE process has changed its
 * directory to "/" and we cannot know where it was started. Each step waits,
 * with a time limit, for what it needs: the old daemon gone, the new mount
 * present.
 */
#include "obn.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "osprof/clock.h"
#include "osprof/format.h"

#define WAIT_LIMIT_NS (10LL * 1000000000)
#define POLL_NS (10 * 1000000L)

struct obn_remount {
	char mnt[PATH_MAX];	/* canonical mount point */
	char *shell_cmd;	/* --remount-cmd, or NULL */
	char **argv;		/* the daemon's command line, NULL-terminated */
	char *desc;		/* the mount command, printable */
	pid_t daemon;		/* the daemon serving the mount, or 0 if unknown */
};

static void nap(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/* Whether the mount at mnt is a FUSE mount right now. */
static bool fuse_mounted(const char *mnt)
{
	struct obn_mount m;

	return obn_sys_mount_of(mnt, &m) == 0 && strcmp(m.point, mnt) == 0 &&
	       strncmp(m.fstype, "fuse", 4) == 0;
}

/* Whether pid holds /dev/fuse open. */
static bool holds_dev_fuse(pid_t pid)
{
	char dir[64], link[600], target[64];
	bool found = false;
	struct dirent *de;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(dir);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = strcmp(target, "/dev/fuse") == 0;
		}
	}
	closedir(d);
	return found;
}

/* /proc/PID/cmdline as a malloc'd NUL-separated buffer. */
static char *read_cmdline(pid_t pid, size_t *len)
{
	char path[64], *buf;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	return osp_read_path(path, &buf, len) == 0 ? buf : NULL;
}

/* Whether an argument of the command line names the mount point. */
static bool names_mount(const char *cmd, size_t len, const char *mnt)
{
	char real[PATH_MAX];
	const char *arg = cmd + strlen(cmd) + 1; /* skip argv[0] */

	for (; arg < cmd + len; arg += strlen(arg) + 1) {
		if (strcmp(arg, mnt) == 0)
			return true;
		if (arg[0] == '/' && realpath(arg, real) && strcmp(real, mnt) == 0)
			return true;
	}
	return false;
}

/* fusermount3 stays around holding /dev/fuse with auto_unmount. */
static bool is_fusermount(const char *cmd)
{
	const char *base = strrchr(cmd, '/');

	base = base ? base + 1 : cmd;
	return strncmp(base, "fusermount", 10) == 0;
}

/*
 * The daemon serving mnt: 1 found (*pid, *cmdline set), 0 none, -EEXIST
 * several (message printed).
 */
static int find_daemon(const char *mnt, bool quiet, pid_t *pid,
		       char **cmdline, size_t *cmdlen)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int found = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		uint64_t num;
		if (osp_parse_u64(de->d_name, 1, INT_MAX, &num) < 0)
			continue; /* not a process */
		pid_t p = (pid_t)num;
		if (p == getpid() || !holds_dev_fuse(p))
			continue;
		size_t len;
		char *cmd = read_cmdline(p, &len);
		if (!cmd || len == 0 || is_fusermount(cmd) ||
		    !names_mount(cmd, len, mnt)) {
			free(cmd);
			continue;
		}
		if (found++) {
			if (!quiet)
				fprintf(stderr, "osprof-bench: --remount: processes %d and %d "
					"both serve %s; give --remount-cmd\n",
					(int)*pid, (int)p, mnt);
			free(cmd);
			free(*cmdline);
			*cmdline = NULL;
			closedir(d);
			return -EEXIST;
		}
		*pid = p;
		*cmdline = cmd;
		*cmdlen = len;
	}
	closedir(d);
	return found;
}

/* Split a NUL-separated command line into argv and a printable form. */
static int adopt_cmdline(struct obn_remount *r, char *cmd, size_t len)
{
	size_t argc = 0, dlen = 0;

	for (size_t i = 0; i < len; i++)
		argc += cmd[i] == '\0';
	if (len && cmd[len - 1] != '\0')
		argc++;
	r->argv = calloc(argc + 1, sizeof(*r->argv));
	r->desc = malloc(len + 2);
	if (!r->argv || !r->desc)
		return -ENOMEM;
	size_t k = 0;
	for (char *a = cmd; a < cmd + len; a += strlen(a) + 1) {
		r->argv[k++] = a;
		dlen += (size_t)sprintf(r->desc + dlen, "%s%s", dlen ? " " : "", a);
	}
	r->argv[k] = NULL;
	return 0;
}

struct obn_remount *obn_remount_prepare(const char *mnt, const char *cmd)
{
	struct obn_remount *r = calloc(1, sizeof(*r));
	char *cmdline = NULL;
	size_t len = 0;

	if (!r || !realpath(mnt, r->mnt)) {
		fprintf(stderr, "osprof-bench: --remount %s: %s\n", mnt,
			strerror(r ? errno : ENOMEM));
		goto fail;
	}
	if (!fuse_mounted(r->mnt)) {
		fprintf(stderr, "osprof-bench: --remount %s: not a FUSE mount point\n",
			mnt);
		goto fail;
	}
	int found = find_daemon(r->mnt, cmd != NULL, &r->daemon, &cmdline, &len);
	if (found < 0 && !cmd)
		goto fail;
	if (cmd) {
		if (found < 0)
			r->daemon = 0; /* ambiguous: do not wait for either */
		r->shell_cmd = strdup(cmd);
		r->desc = strdup(cmd);
		free(cmdline); /* the daemon's pid is enough: to wait for it */
		if (!r->shell_cmd || !r->desc)
			goto fail;
		return r;
	}
	if (found == 0) {
		fprintf(stderr, "osprof-bench: --remount %s: cannot find the process "
			"serving it in /proc (a daemon started with relative paths "
			"cannot be recognized); give --remount-cmd\n", mnt);
		goto fail;
	}
	if (adopt_cmdline(r, cmdline, len) < 0)
		goto fail;
	return r;
fail:
	free(cmdline);
	obn_remount_free(r);
	return NULL;
}

void obn_remount_free(struct obn_remount *r)
{
	if (!r)
		return;
	if (r->argv)
		free(r->argv[0]); /* the command line buffer */
	free(r->argv);
	free(r->desc);
	free(r->shell_cmd);
	free(r);
}

const char *obn_remount_describe(const struct obn_remount *r)
{
	return r->desc;
}

/* Whether pid is still running (a zombie has exited). */
static bool alive(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	bool running = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	/* The state follows the command name's closing parenthesis. */
	char *p = running ? strrchr(buf, ')') : NULL;
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

static int unmount(struct obn_remount *r)
{
	char *argv[] = { "fusermount3", "-u", r->mnt, NULL };
	char how[128];
	int st, rc = obn_proc_run(argv, &st);

	if (rc < 0) {
		fprintf(stderr, "osprof-bench: --remount: cannot run fusermount3: %s\n",
			strerror(-rc));
		return rc;
	}
	if (st != 0) {
		obn_proc_describe(st, how, sizeof(how));
		fprintf(stderr, "osprof-bench: --remount: fusermount3 -u %s %s\n",
			r->mnt, how);
		return -EIO;
	}
	uint64_t deadline = osp_clock_mono_ns() + WAIT_LIMIT_NS;
	while (r->daemon > 0 && alive(r->daemon)) {
		if (osp_clock_mono_ns() > deadline) {
			fprintf(stderr, "osprof-bench: --remount: daemon %d still "
				"running 10 s after unmounting %s\n",
				(int)r->daemon, r->mnt);
			return -ETIMEDOUT;
		}
		nap();
	}
	return 0;
}

static int mount_again(struct obn_remount *r)
{
	char how[128];
	int st, rc;

	if (r->shell_cmd) {
		rc = obn_proc_shell(r->shell_cmd, &st);
		if (rc == 0 && st != 0) {
			obn_proc_describe(st, how, sizeof(how));
			fprintf(stderr, "osprof-bench: --remount-cmd '%s' %s\n",
				r->shell_cmd, how);
			return -EIO;
		}
	} else {
		rc = obn_proc_detach(r->argv);
	}
	if (rc < 0) {
		fprintf(stderr, "osprof-bench: --remount: cannot run '%s': %s\n",
			r->desc, strerror(-rc));
		return rc;
	}
	uint64_t deadline = osp_clock_mono_ns() + WAIT_LIMIT_NS;
	while (!fuse_mounted(r->mnt)) {
		if (osp_clock_mono_ns() > deadline) {
			fprintf(stderr, "osprof-bench: --remount: %s not mounted 10 s "
				"after running '%s'\n", r->mnt, r->desc);
			return -ETIMEDOUT;
		}
		nap();
	}
	return 0;
}

int obn_remount_cycle(struct obn_remount *r)
{
	char *cmdline = NULL;
	size_t len;
	int rc = unmount(r);

	if (rc == 0)
		rc = mount_again(r);
	if (rc < 0)
		return rc;
	/* The next cycle waits for this new daemon to exit. */
	r->daemon = 0;
	if (find_daemon(r->mnt, true, &r->daemon, &cmdline, &len) != 1)
		r->daemon = 0;
	free(cmdline);
	return 0;
}
