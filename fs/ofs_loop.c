// SPDX-License-Identifier: MIT
/*
 * The polling session loop (-o poll_us=N, N > 0).
 *
 * On a VM whose idle vCPUs halt, most of a FUSE round trip is spent
 * waking halted vCPUs: the request wakes a daemon thread on one, the
 * reply wakes the application on another (docs/overhead.md, "The FUSE
 * round trip", has the figures). This loop keeps one worker thread per
 * CPU, each polling /dev/fuse for a while after it replies, so no CPU
 * halts while requests flow, then sleeping until the next.
 *
 * Polling past its first OFS_POLL_IDLE_AFTER_NS runs under SCHED_IDLE
 * when the process may come back from it (struct ofs_poller's may_idle: else
 * it goes on at the normal policy): the scheduler counts such a CPU as
 * idle when it places a waking task and preempts the poller at once, so
 * the application does not wait for it. A request, once read, is served
 * at the normal policy, so a busy machine (a parallel build through the
 * mount) cannot starve it. The workers block the stop signals; the main
 * thread waits for them and wakes every worker through an eventfd.
 *
 * Polling pays only when the next request comes soon after a reply; it
 * costs a CPU for nothing while the mount is idle or requests block in
 * the lower file system (docs/overhead.md#threading: one process's
 * O_DIRECT reads went markedly slower, for twice the daemon CPU, when
 * every worker polled after every request and every wake-up). So:
 *  - only a worker that has just replied polls, and not after a request
 *    that blocked (served in over POLL_BLOCKED_NS): its caller is slow to
 *    come back;
 *  - each worker's window adapts as KVM's halt-polling does
 *    (virt/kvm/kvm_main.c) to the time from its reply to its next
 *    request, starting at 0: a gap longer than the window but within N us
 *    doubles it (from OFS_POLL_GROW_NS), a longer gap halves it, a request
 *    caught while polling keeps it. Requests far apart end with the
 *    pool's sleeping workers, a tight flow with a window just past its gaps;
 *  - sleeping workers wait in epoll with EPOLLEXCLUSIVE, so a request
 *    wakes one of them, as a blocking read() in libfuse's pool does; with
 *    poll() every request woke every sleeper, which found nothing to read.
 * With these, those O_DIRECT reads go at the pool's rate and CPU per
 * request (bench/peer.sh).
 *
 * A request may block for long in the lower file system (a slow disk, a
 * hung NFS server). So that the mount keeps answering, a worker that takes
 * a request and leaves no other worker waiting starts one more, as
 * libfuse's pool does, up to max_threads; the extra workers do not poll,
 * and each leaves as soon as it finds another worker waiting.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_loop.h"
#include "ofs_poll.h"
#include "ofs_sig.h"

struct ofs_loop {
	struct fuse_session *se;
	int fd;          /* /dev/fuse, non-blocking */
	int stop_fd;     /* eventfd: wakes every worker at shutdown */
	uint64_t poll_ns;
	bool may_idle;   /* pollers may poll at idle priority (ofs_poll.h) */
	unsigned npollers; /* workers started at once, kept till the end */
	unsigned max;    /* workers at most, pollers included */
	unsigned idle;   /* atomic: workers waiting for a request */
	int error;       /* first error, -errno (under mu) */
	unsigned extra;  /* under mu: extra workers running */
	pthread_mutex_t mu;
	pthread_cond_t extra_gone;
	/* What each worker is given: a poller's, or an extra worker's. */
	struct worker_arg {
		struct ofs_loop *l;
		bool extra;  /* started for a busy moment: no polling, leaves */
	} as_poller, as_extra;
};

static void *worker(void *arg);

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

/*
 * A worker's own epoll set: /dev/fuse with EPOLLEXCLUSIVE, so a request
 * wakes one sleeping worker, not all of them as poll() would (each wake
 * of an idle vCPU costs the daemon CPU for nothing); the stop eventfd
 * without, so that shutdown wakes them all. -errno on failure.
 */
static int waiter_new(struct ofs_loop *l)
{
	struct epoll_event fuse_ev = { .events = EPOLLIN | EPOLLEXCLUSIVE, .data.fd = l->fd },
			   stop_ev = { .events = EPOLLIN, .data.fd = l->stop_fd };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return -errno;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, l->fd, &fuse_ev) < 0 ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, l->stop_fd, &stop_ev) < 0) {
		int err = -errno;

		close(ep);
		return err;
	}
	return ep;
}

/* Wait until /dev/fuse is readable or the loop stops; false to stop. */
static bool wait_readable(struct ofs_loop *l, int ep)
{
	struct epoll_event ev;

	while (!fuse_session_exited(l->se)) {
		int n = epoll_wait(ep, &ev, 1, -1);

		if (n < 0 && errno != EINTR) {
			stop_all(l, -errno);
			return false;
		}
		if (n > 0)
			return ev.data.fd == l->fd;
	}
	return false;
}

/*
 * Every worker is busy: start an extra one (detached; it counts itself
 * out), unless max_threads run or the loop stops.
 */
static void add_worker(struct ofs_loop *l)
{
	pthread_attr_t attr;
	pthread_t th;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_mutex_lock(&l->mu);
	/* Failing to start one is no error: the busy workers serve, later. */
	if (l->npollers + l->extra < l->max && !fuse_session_exited(l->se) &&
	    pthread_create(&th, &attr, worker, &l->as_extra) == 0)
		l->extra++;
	pthread_mutex_unlock(&l->mu);
	pthread_attr_destroy(&attr);
}

static void *worker(void *arg)
{
	struct worker_arg *a = arg;
	struct ofs_loop *l = a->l;
	struct fuse_buf buf = { 0 };
	bool extra = a->extra;
	/* Extra workers never poll. */
	struct ofs_poller p = { .max_ns = extra ? 0 : l->poll_ns, .may_idle = l->may_idle };
	int ep = waiter_new(l);

	/* A poller that cannot wait stops the loop; an extra worker without
	 * a descriptor to spare (at the open-file limit) just leaves, as
	 * when add_worker cannot start one: the busy workers serve, later. */
	if (ep < 0 && !extra)
		stop_all(l, ep);
	if (ep >= 0)
		__atomic_add_fetch(&l->idle, 1, __ATOMIC_ACQ_REL);
	while (ep >= 0 && !fuse_session_exited(l->se)) {
		int res = fuse_session_receive_buf(l->se, &buf);

		if (res > 0) {
			if (__atomic_sub_fetch(&l->idle, 1, __ATOMIC_ACQ_REL) == 0)
				add_worker(l);
			ofs_poller_took(&p);
			fuse_session_process_buf(l->se, &buf);
			/* An extra worker is not needed once another waits. */
			if (extra && __atomic_load_n(&l->idle, __ATOMIC_ACQUIRE) > 0)
				break;
			__atomic_add_fetch(&l->idle, 1, __ATOMIC_ACQ_REL);
			ofs_poller_replied(&p);
			continue;
		}
		if (res == -EAGAIN) {
			if (ofs_poller_spin(&p))
				continue;
			/* Woken for a request another worker took: sleep again,
			 * without polling, until one is left for this one. */
			if (!wait_readable(l, ep))
				break;
			continue;
		}
		if (res == -EINTR)
			continue;
		/* 0: unmounted (ENODEV); else a read error. */
		stop_all(l, res < 0 ? res : 0);
		break;
	}
	/* A signal stopped the session in some thread: wake the others. */
	if (fuse_session_exited(l->se))
		stop_all(l, 0);
	free(buf.mem);
	if (ep >= 0)
		close(ep);
	if (extra) {
		pthread_mutex_lock(&l->mu);
		l->extra--;
		pthread_cond_broadcast(&l->extra_gone);
		pthread_mutex_unlock(&l->mu);
	}
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
	sigset_t old;
	unsigned started = 0;

	ofs_sig_block_stop(&old); /* inherited by the workers */
	for (; started < n; started++)
		if (pthread_create(&th[started], NULL, worker, &l->as_poller) != 0)
			break;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return (int)started;
}

int ofs_loop_poll(struct fuse_session *se, unsigned nthreads, unsigned max_threads,
		  uint64_t poll_ns)
{
	struct ofs_loop l = { .se = se, .fd = fuse_session_fd(se), .poll_ns = poll_ns,
			      .may_idle = ofs_poll_may_idle(),
			      .npollers = nthreads,
			      .max = max_threads > nthreads ? max_threads : nthreads };
	pthread_t *th = calloc(nthreads, sizeof(*th));
	int flags, started;

	if (!th)
		return -ENOMEM;
	l.as_poller = (struct worker_arg){ &l, false };
	l.as_extra = (struct worker_arg){ &l, true };
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
	pthread_cond_init(&l.extra_gone, NULL);
	started = start_workers(&l, th, nthreads);
	if (started == 0)
		stop_all(&l, -EAGAIN);
	else
		wait_for_stop(&l);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	/* Extra workers are detached: wait until the last has counted out. */
	pthread_mutex_lock(&l.mu);
	while (l.extra > 0)
		pthread_cond_wait(&l.extra_gone, &l.mu);
	pthread_mutex_unlock(&l.mu);
	close(l.stop_fd);
	pthread_cond_destroy(&l.extra_gone);
	pthread_mutex_destroy(&l.mu);
	free(th);
	return l.error;
}
