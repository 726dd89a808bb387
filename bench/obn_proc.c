// SPDX-License-Identifier: MIT
/*
 * Child processes for osprof-bench's helper commands (setup, cleanup,
 * fusermount3, remount commands): start, wait, and say how they ended. An
 * exec failure is sent back through a close-on-exec pipe, so "no such
 * program" is told apart from a program that exits with status 127.
 */
#include "obn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int64_t obn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void obn_proc_describe(int wstatus, char *buf, size_t len)
{
	if (WIFEXITED(wstatus))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(wstatus));
	else if (WIFSIGNALED(wstatus))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(wstatus),
			 strsignal(WTERMSIG(wstatus)));
	else
		snprintf(buf, len, "ended with wait status %#x", wstatus);
}

/* Read the child's exec errno from the pipe: 0 when exec succeeded. */
static int exec_error(int fd)
{
	int err = 0;
	ssize_t n;

	do
		n = read(fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(err) ? err : 0;
}

static int wait_child(pid_t pid, int *wstatus)
{
	while (waitpid(pid, wstatus, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

int obn_proc_run(char *const argv[], int *wstatus)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL); /* the child must not inherit unwritten output */
	pid_t pid = fork();
	if (pid < 0) {
		int err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0) {
		close(fds[0]);
		execvp(argv[0], argv);
		int err = errno;
		/* Nothing to do if this fails: the parent then sees status 127. */
		if (write(fds[1], &err, sizeof(err)) != sizeof(err))
			_exit(127);
		_exit(127);
	}
	close(fds[1]);
	int err = exec_error(fds[0]);
	close(fds[0]);
	int rc = wait_child(pid, wstatus);
	return err ? -err : rc;
}

int obn_proc_shell(const char *cmd, int *wstatus)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

	return obn_proc_run(argv, wstatus);
}
