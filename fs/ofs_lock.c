// SPDX-License-Identifier: MIT
/*
 * Blocking flock() requests, waited for outside the worker pool.
 *
 * A lock request that must wait (FUSE_SETLKW from flock() without
 * LOCK_NB) would hold the worker serving it until the lock is free: with
 * one holder and as many waiters as workers, nothing else is served, the
 * holder's own unlock among them, so the mount freezes. So a worker only
 * tries (LOCK_NB); when that would block, a waiter thread of this file
 * takes the request, blocks in flock() on the lower file and replies when
 * the lock is granted. The worker is free at once.
 *
 * A waiter is cancelled by FUSE_INTERRUPT (the caller got a signal or was
 * killed: a killed caller stays in the kernel until we answer; reply
 * EINTR) and at shutdown (reply ENOTCONN): it is marked, and a signal
 * (OFS_LOCK_SIG, no SA_RESTART) makes its flock() return. A signal sent just
 * before the waiter enters flock() would be lost, so the kicker thread
 * repeats it every few milliseconds until the waiter has left; a
 * cancelled waiter never waits long, a running one is never woken.
 *
 * POSIX (fcntl) locks are not asked for at init (no FUSE_CAP_POSIX_LOCKS):
 * the kernel keeps them itself, local to the mount, and they never reach
 * a worker.
 *
 * Locking: q->mu protects the list, the count and every waiter's cancel
 * flag and thread. Lock order: libfuse's request lock (held around an
 * interrupt callback) before q->mu; fuse_req_interrupt_func is never
 * called with q->mu held.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>

#include "ofs.h"
#include "ofs_list.h"
#include "ofs_lock.h"
#include "ofs_req.h"

/* The signal that interrupts a waiter's flock(). */
#define OFS_LOCK_SIG (SIGRTMIN + 3)
/* How often a cancelled waiter is signalled again until it leaves. */
#define KICK_NS 5000000
/* Waiter threads need little stack: flock() and a reply. */
#define WAITER_STACK (256 * 1024)

struct waiter {
	struct ofs_list link;   /* on q->waiters */
	struct ofs_lockq *q;
	struct ofs_req r;       /* the request, detached from its worker */
	int fd;                 /* the lower file (the request's open file) */
	int op;                 /* LOCK_SH or LOCK_EX, without LOCK_NB */
	pthread_t th;           /* valid once running */
	bool running;           /* under q->mu: th may be signalled */
	bool cancelled;         /* under q->mu */
	int cancel_err;         /* under q->mu: the reply when cancelled (-errno) */
};

struct ofs_lockq {
	pthread_mutex_t mu;
	pthread_cond_t changed;  /* a waiter left, or one was cancelled */
	struct ofs_list waiters;
	unsigned n;              /* waiters on the list */
	unsigned max;            /* refuse more with ENOLCK */
	pthread_t kicker;
	bool stopping;
	uint64_t granted, cancelled, refused; /* totals, for ctl */
};

static void on_lock_sig(int sig)
{
	(void)sig; /* only to make flock() return EINTR */
}

/* Signal cancelled waiters until they have left; sleeps while none is. */
static void *kicker(void *arg)
{
	struct ofs_lockq *q = arg;

	pthread_mutex_lock(&q->mu);
	while (!(q->stopping && q->n == 0)) {
		unsigned kicked = 0;

		for (struct ofs_list *l = q->waiters.next; l != &q->waiters; l = l->next) {
			struct waiter *w = ofs_container_of(l, struct waiter, link);

			if (w->cancelled && w->running) {
				pthread_kill(w->th, OFS_LOCK_SIG);
				kicked++;
			}
		}
		if (!kicked) {
			pthread_cond_wait(&q->changed, &q->mu);
			continue;
		}
		pthread_mutex_unlock(&q->mu);
		nanosleep(&(struct timespec){ 0, KICK_NS }, NULL);
		pthread_mutex_lock(&q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* FUSE_INTERRUPT for a waiting request (libfuse holds the request's lock). */
static void on_interrupt(fuse_req_t req, void *data)
{
	struct waiter *w = data;

	(void)req;
	pthread_mutex_lock(&w->q->mu);
	if (!w->cancelled) {
		w->cancelled = true;
		w->cancel_err = -EINTR; /* the kernel restarts or the caller dies */
	}
	pthread_cond_broadcast(&w->q->changed);
	pthread_mutex_unlock(&w->q->mu);
}

/* 0 while @w may wait, else the -errno to reply with. */
static int cancel_err(struct waiter *w)
{
	int err;

	pthread_mutex_lock(&w->q->mu);
	err = w->cancelled ? w->cancel_err : 0;
	pthread_mutex_unlock(&w->q->mu);
	return err;
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct ofs_lockq *q = w->q;
	sigset_t sig;
	int err = 0;

	sigemptyset(&sig);
	sigaddset(&sig, OFS_LOCK_SIG);
	pthread_sigmask(SIG_UNBLOCK, &sig, NULL);
	for (;;) {
		err = cancel_err(w);
		if (err)
			break;
		if (flock(w->fd, w->op) == 0)
			break;
		if (errno != EINTR) {
			err = -errno;
			break;
		}
	}
	/* After this no interrupt callback runs for w, nor is running. */
	fuse_req_interrupt_func(w->r.req, NULL, NULL);
	ofs_req_reply_err(&w->r, err);
	pthread_mutex_lock(&q->mu);
	ofs_list_del(&w->link);
	q->n--;
	if (err)
		q->cancelled++;
	else
		q->granted++;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->mu);
	free(w);
	return NULL;
}

int ofs_lock_wait(struct ofs_req *r, int fd, int op)
{
	struct ofs_lockq *q = r->fs->lockq;
	struct waiter *w = calloc(1, sizeof(*w));
	pthread_attr_t attr;
	int err;

	if (!w)
		return -ENOMEM;
	w->q = q;
	w->fd = fd;
	w->op = op & ~LOCK_NB;
	pthread_mutex_lock(&q->mu);
	if (q->stopping || q->n >= q->max) {
		q->refused++;
		pthread_mutex_unlock(&q->mu);
		free(w);
		return -ENOLCK;
	}
	/* Linked before it runs: the waiter unlinks itself when it is done. */
	ofs_list_add(&q->waiters, &w->link);
	q->n++;
	pthread_mutex_unlock(&q->mu);
	ofs_req_detach(r, &w->r);
	/*
	 * Before the waiter exists, which replies and frees: this calls
	 * on_interrupt at once if the kernel has interrupted the request.
	 */
	fuse_req_interrupt_func(w->r.req, on_interrupt, w);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, WAITER_STACK);
	pthread_mutex_lock(&q->mu);
	err = pthread_create(&w->th, &attr, waiter_main, w);
	if (err) {
		ofs_list_del(&w->link);
		q->n--;
		q->refused++;
		pthread_cond_broadcast(&q->changed);
	} else {
		w->running = true;
	}
	pthread_mutex_unlock(&q->mu);
	pthread_attr_destroy(&attr);
	if (err) {
		fuse_req_interrupt_func(w->r.req, NULL, NULL);
		/* Recorded here: @r was left closed, the caller's reply adds nothing. */
		ofs_req_close(&w->r);
		free(w);
		return -ENOLCK;
	}
	return 0;
}

int ofs_lock_init(struct ofs *fs, unsigned max_waiters)
{
	struct sigaction sa = { .sa_handler = on_lock_sig };
	struct ofs_lockq *q = calloc(1, sizeof(*q));
	sigset_t sig;
	int err;

	if (!q)
		return -ENOMEM;
	/* No SA_RESTART: the point is to interrupt flock(). */
	sigemptyset(&sa.sa_mask);
	if (sigaction(OFS_LOCK_SIG, &sa, NULL) != 0) {
		err = -errno;
		free(q);
		return err;
	}
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->changed, NULL);
	ofs_list_init(&q->waiters);
	q->max = max_waiters;
	/* Only waiters take the signal: block it here, for every thread after. */
	sigemptyset(&sig);
	sigaddset(&sig, OFS_LOCK_SIG);
	pthread_sigmask(SIG_BLOCK, &sig, NULL);
	err = -pthread_create(&q->kicker, NULL, kicker, q);
	if (err) {
		pthread_cond_destroy(&q->changed);
		pthread_mutex_destroy(&q->mu);
		free(q);
		return err;
	}
	fs->lockq = q;
	return 0;
}

void ofs_lock_cancel_all(struct ofs *fs)
{
	struct ofs_lockq *q = fs->lockq;

	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stopping = true;
	for (struct ofs_list *l = q->waiters.next; l != &q->waiters; l = l->next) {
		struct waiter *w = ofs_container_of(l, struct waiter, link);

		/*
		 * Not EINTR: with no signal pending, the kernel would hand its
		 * restart code to the caller. The mount is going: ENOTCONN is
		 * what the kernel itself says once the daemon is gone.
		 */
		if (!w->cancelled) {
			w->cancelled = true;
			w->cancel_err = -ENOTCONN;
		}
	}
	pthread_cond_broadcast(&q->changed);
	while (q->n > 0)
		pthread_cond_wait(&q->changed, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void ofs_lock_free(struct ofs *fs)
{
	struct ofs_lockq *q = fs->lockq;

	if (!q)
		return;
	ofs_lock_cancel_all(fs);
	pthread_join(q->kicker, NULL);
	pthread_cond_destroy(&q->changed);
	pthread_mutex_destroy(&q->mu);
	free(q);
	fs->lockq = NULL;
}

void ofs_lock_stats(struct ofs *fs, unsigned *waiting, uint64_t *granted,
		    uint64_t *cancelled, uint64_t *refused)
{
	struct ofs_lockq *q = fs->lockq;

	*waiting = 0;
	*granted = *cancelled = *refused = 0;
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	*waiting = q->n;
	*granted = q->granted;
	*cancelled = q->cancelled;
	*refused = q->refused;
	pthread_mutex_unlock(&q->mu);
}
