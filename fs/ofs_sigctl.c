// SPDX-License-Identifier: MIT
/*
 * SIGUSR1: reset the profile. A reset takes locks, which a signal
 * handler may not: the handler writes one byte into a pipe (write(2) is
 * async-signal-safe), and a thread of ours reads it and runs the reset
 * through ctl's own command path, so it is the same reset, said the same
 * way in ctl's last_error should it fail. The pipe's write end is the one
 * state a handler can reach: a global, set before the handler is
 * installed. At the stop SIGUSR1 is ignored from then on, and the pipe
 * stays open until the process exits (a handler already running may
 * still write).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_ctl.h"
#include "ofs_sig.h"
#include "ofs_sigctl.h"

struct ofs_sigctl {
	int rfd, wfd;        /* the pipe: the handler writes, the thread reads */
	pthread_t thread;
};

/* The write end for the handler; -1 when none is installed. */
static volatile sig_atomic_t sigctl_wfd = -1;

static void on_usr1(int sig)
{
	int saved = errno, fd = sigctl_wfd;
	char one = 1;

	(void)sig;
	/* A full pipe means resets are already pending: nothing is lost. */
	if (fd >= 0) {
		ssize_t n = write(fd, &one, 1);

		(void)n;
	}
	errno = saved;
}

static void *reset_loop(void *arg)
{
	struct ofs *fs = arg;
	char buf[64];
	ssize_t n;

	for (;;) {
		n = read(fs->sigctl->rfd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		/* A 0 byte is ofs_sigctl_stop's: the last one read. */
		if (memchr(buf, 0, (size_t)n))
			break;
		ofs_ctl_command(fs, "reset\n");
	}
	return NULL;
}

int ofs_sigctl_start(struct ofs *fs)
{
	struct ofs_sigctl *s = calloc(1, sizeof(*s));
	struct sigaction sa = { .sa_handler = on_usr1, .sa_flags = SA_RESTART };
	int fds[2], err;
	sigset_t old;

	if (!s)
		return -ENOMEM;
	if (pipe2(fds, O_CLOEXEC) != 0) {
		err = -errno;
		free(s);
		return err;
	}
	s->rfd = fds[0];
	s->wfd = fds[1];
	/* A burst of signals must not block the handler: writes that would
	 * are dropped, the resets they ask for being pending anyway. */
	fcntl(s->wfd, F_SETFL, O_NONBLOCK);
	fs->sigctl = s;
	ofs_sig_block_stop(&old); /* the stop signals stay the loop's */
	err = -pthread_create(&s->thread, NULL, reset_loop, fs);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		close(s->rfd);
		close(s->wfd);
		free(s);
		fs->sigctl = NULL;
		return err;
	}
	sigemptyset(&sa.sa_mask);
	sigctl_wfd = s->wfd;
	sigaction(SIGUSR1, &sa, NULL);
	return 0;
}

void ofs_sigctl_stop(struct ofs *fs)
{
	struct ofs_sigctl *s = fs->sigctl;
	struct sigaction ign = { .sa_handler = SIG_IGN };
	char stop = 0;

	if (!s)
		return;
	/*
	 * Ignored, not given its default back: a SIGUSR1 now would end the
	 * daemon before its dump. A handler that started before may still
	 * write: both ends of the pipe stay open until the process exits.
	 */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGUSR1, &ign, NULL);
	sigctl_wfd = -1;
	fcntl(s->wfd, F_SETFL, 0); /* the stop byte must get in */
	while (write(s->wfd, &stop, 1) < 0 && errno == EINTR)
		;
	pthread_join(s->thread, NULL);
	free(s);
	fs->sigctl = NULL;
}
