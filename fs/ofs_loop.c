// SPDX-License-Identifier: MIT
/*
 * The polling session loop (-o poll_us=N, N > 0).
 *
 * On a VM whose idle vCPUs halt, most of a FUSE round trip is spent
 * waking halted vCPUs: the request wakes a daemon thread on one, the
 * reply wakes the application on another (measured here: 15 us per round
 * trip when daemon and caller share a CPU, about 100 us when they are on
 * different idle CPUs). This loop keeps one worker thread per CPU polling
 * /dev/fuse for N microseconds after each request, so no CPU halts while
 * requests flow, then blocking in poll() until the next.
 *
 * Polling runs under SCHED_IDLE: the scheduler counts such a CPU as idle
 * when it places a waking task and preempts the poller at once, so the
 * application never waits for it. A request, once read, is served at the
 * normal policy, so a busy machine (a parallel build through the mount)
 * cannot starve it. The workers block the stop signals; the main thread
 * waits for them and wakes every worker through an eventfd.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ofs.h"

struct ofs_loop {
	struct fuse_session *se;
	int fd;          /* /dev/fuse, non-blocking */
	int stop_fd;     /* eventfd: wakes every poller at shutdown */
	uint64_t poll_ns;
	int error;       /* first error, -errno (under mu) */
	pthread_mutex_t mu;
};

static void set_policy(int policy)
{
	struct sched_param sp = { 0 };

	sched_setscheduler(0, policy, &sp);
}

static void stop_all(struct ofs_loop *l, int err)
{
	uint64_t one = 1;

	pthread_mutex_lock(&l->mu);
	if (err && !l->error)
		l->error = err;
	pthread_mutex_unlock(&l->mu);
	fuse_session_exit(l->se);
	if (write(l->stop_fd, &one, sizeof(one)) < 0)
		return; /* the counter is saturated: everyone is waking anyway */
}

/* Wait until /dev/fuse is readable or the loop stops; false to stop. */
static bool wait_readable(struct ofs_loop *l)
{
	struct pollfd p[2] = { { .fd = l->fd, .events = POLLIN },
			       { .fd = l->stop_fd, .events = POLLIN } };

	while (!fuse_session_exited(l->se)) {
		int n = poll(p, 2, -1);

		if (n < 0 && errno != EINTR) {
			stop_all(l, -errno);
			return false;
		}
		if (n > 0 && p[1].revents)
			return false;
		if (n > 0)
			return true;
	}
	return false;
}

static void *worker(void *arg)
{
	struct ofs_loop *l = arg;
	struct fuse_buf buf = { 0 };
	uint64_t until = 0;
	bool polling = false;

	while (!fuse_session_exited(l->se)) {
		int res = fuse_session_receive_buf(l->se, &buf);

		if (res > 0) {
			if (polling) {
				set_policy(SCHED_OTHER);
				polling = false;
			}
			fuse_session_process_buf(l->se, &buf);
			until = osp_clock_mono_ns() + l->poll_ns;
			continue;
		}
		if (res == -EAGAIN) {
			if (osp_clock_mono_ns() < until) {
				if (!polling) {
					set_policy(SCHED_IDLE);
					polling = true;
				}
				continue;
			}
			if (polling) {
				set_policy(SCHED_OTHER);
				polling = false;
			}
			if (!wait_readable(l))
				break;
			until = osp_clock_mono_ns() + l->poll_ns;
			continue;
		}
		if (res == -EINTR)
			continue;
		/* 0: unmounted (ENODEV); else a read error. */
		stop_all(l, res < 0 ? res : 0);
		break;
	}
	/* A signal stopped the session in some thread: wake the others. */
	stop_all(l, 0);
	free(buf.mem);
	return NULL;
}

/*
 * The main thread's part: wait until a worker stops the loop or a signal
 * (SIGINT, SIGTERM: libfuse's handlers mark the session exited) arrives
 * here -- the workers block those signals, so poll() below sees EINTR.
 */
static void wait_for_stop(struct ofs_loop *l)
{
	struct pollfd p = { .fd = l->stop_fd, .events = POLLIN };

	while (!fuse_session_exited(l->se)) {
		if (poll(&p, 1, -1) > 0)
			break;
	}
	stop_all(l, 0);
}

static int start_workers(struct ofs_loop *l, pthread_t *th, unsigned n)
{
	sigset_t stop, old;
	unsigned started = 0;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old); /* inherited by the workers */
	for (; started < n; started++)
		if (pthread_create(&th[started], NULL, worker, l) != 0)
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (int)started;
}

int ofs_loop_poll(struct fuse_session *se, unsigned nthreads, uint64_t poll_ns)
{
	struct ofs_loop l = { .se = se, .fd = fuse_session_fd(se), .poll_ns = poll_ns };
	pthread_t *th = calloc(nthreads, sizeof(*th));
	int flags, started;

	if (!th)
		return -ENOMEM;
	l.stop_fd = eventfd(0, EFD_CLOEXEC);
	flags = fcntl(l.fd, F_GETFL);
	if (l.stop_fd < 0 || flags < 0 || fcntl(l.fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int err = -errno;

		if (l.stop_fd >= 0)
			close(l.stop_fd);
		free(th);
		return err;
	}
	pthread_mutex_init(&l.mu, NULL);
	started = start_workers(&l, th, nthreads);
	if (started == 0)
		stop_all(&l, -EAGAIN);
	else
		wait_for_stop(&l);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	close(l.stop_fd);
	pthread_mutex_destroy(&l.mu);
	free(th);
	return l.error;
}
