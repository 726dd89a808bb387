// SPDX-License-Identifier: MIT
/*
 * What osprof-trace traces, found before anything is loaded: the mount
 * that --mount names (its id, and its device when FUSE), the id of a
 * cgroup v2 directory, and a command started behind a gate so that its
 * very first system call after exec is traced.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "otr.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x1000u
#endif
/* statfs f_type of FUSE and of cgroup v2 (linux/magic.h). */
#define OTR_FUSE_MAGIC 0x65735546
#define OTR_CGROUP2_MAGIC 0x63677270

int otr_mount_resolve(const char *dir, struct otr_mount *m, char *err, size_t errlen)
{
	struct statx stx;
	struct statfs sfs;

	if (statx(AT_FDCWD, dir, 0, STATX_MNT_ID, &stx) != 0 || statfs(dir, &sfs) != 0) {
		int e = errno;

		snprintf(err, errlen, "--mount %s: %s", dir, strerror(e));
		return -e;
	}
	if (!(stx.stx_mask & STATX_MNT_ID)) {
		snprintf(err, errlen, "--mount %s: this kernel does not tell mount ids (statx STATX_MNT_ID, Linux 5.8)", dir);
		return -EOPNOTSUPP;
	}
	m->mnt_id = (int)stx.stx_mnt_id;
	m->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	m->fuse_dev = sfs.f_type == OTR_FUSE_MAGIC ? m->dev : 0;
	return 0;
}

int otr_cgroup_id(const char *dir, uint64_t *id, char *err, size_t errlen)
{
	struct statfs sfs;
	struct stat st;

	if (stat(dir, &st) != 0 || statfs(dir, &sfs) != 0) {
		int e = errno;

		snprintf(err, errlen, "--cgroup %s: %s", dir, strerror(e));
		return -e;
	}
	/* A v1 hierarchy's inode numbers are not the ids the programs see. */
	if (sfs.f_type != OTR_CGROUP2_MAGIC || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--cgroup %s: not a cgroup v2 directory", dir);
		return -EINVAL;
	}
	*id = st.st_ino;
	return 0;
}

/* In the child: wait at the gate, then exec; never returns. */
static void child_run(int gate, char **argv)
{
	sigset_t none;
	char go;

	/* The parent blocks the signals it waits for; the command must not. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* 0 bytes: the parent gave up before releasing us. */
	if (read(gate, &go, 1) != 1)
		_exit(127);
	close(gate);
	execvp(argv[0], argv);
	fprintf(stderr, OTR_PROG ": %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

int otr_cmd_start(struct otr_cmd *c, char **argv, char *err, size_t errlen)
{
	int p[2], e;

	c->pid = -1;
	c->pidfd = c->gate_fd = -1;
	if (pipe2(p, O_CLOEXEC) != 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot start: %s", argv[0], strerror(e));
		return -e;
	}
	c->pid = fork();
	if (c->pid == 0) {
		close(p[1]);
		child_run(p[0], argv);
	}
	e = errno;
	close(p[0]);
	if (c->pid < 0) {
		close(p[1]);
		snprintf(err, errlen, "%s: cannot start: %s", argv[0], strerror(e));
		return -e;
	}
	c->gate_fd = p[1];
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pidfd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: pidfd_open: %s", argv[0], strerror(e));
		otr_cmd_wait(c); /* closing the gate ends it */
		c->pid = -1;
		return -e;
	}
	return 0;
}

int otr_cmd_release(struct otr_cmd *c)
{
	ssize_t n = write(c->gate_fd, "g", 1);
	int e = errno;

	close(c->gate_fd);
	c->gate_fd = -1;
	return n == 1 ? 0 : -e;
}

int otr_cmd_wait(struct otr_cmd *c)
{
	int st;

	if (c->gate_fd >= 0) {
		close(c->gate_fd);
		c->gate_fd = -1;
	}
	while (waitpid(c->pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
