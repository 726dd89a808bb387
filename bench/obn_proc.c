// SPDX-License-Identifier: MIT
/*
 * Child processes for osprof-bench's helper commands (setup, cleanup,
 * fusermount3, remount commands): start, wait, and say how they ended. An
 * exec failure is sent back through a close-on-exec pipe, so "no such
 * program" is told apart from a program that exits with status 127. A
 * detached command (a FUSE daemon started again) runs as a grandchild in
 * its own session, so it is nobody's child here.
 */
#include "obn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* In the child: leave as a grandchild in a session of its own, stdin and
 * stdout on /dev/null. */
static void detach(void)
{
	if (fork() != 0)
		_exit(0);
	setsid();
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
	}
}

/* Start argv (detached or not), wait for the child, report exec's errno. */
static int start(char *const argv[], bool detached, int *wstatus)
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
		if (detached)
			detach();
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

int obn_proc_run(char *const argv[], int *wstatus)
{
	return start(argv, false, wstatus);
}

int obn_proc_detach(char *const argv[])
{
	int st;

	return start(argv, true, &st);
}

int obn_proc_shell(const char *cmd, int *wstatus)
{
	char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };

	return obn_proc_run(argv, wstatus);
}
