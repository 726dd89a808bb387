// SPDX-License-Identifier: MIT
/*
 * FUSE over io_uring (protocol 7.42, kernel 6.14+; the kernel's
 * Documentation/filesystems/fuse-io-uring.rst): the requests that reach
 * the daemon come as completions on io_uring rings, and each reply goes
 * back into the ring entry its request came in, committed with the same
 * submission that fetches the entry's next request. No read or write
 * system call per request. The threads of a queue run wherever the
 * scheduler puts them (spawn_locked says why), and with -o poll_us each
 * queue's first thread polls its ring after a reply (ofs_poll.h).
 *
 * The kernel has one FUSE queue per possible CPU and queues a request on
 * its caller's CPU, in the entry of that queue made available last; a
 * queue with no entry registered keeps the whole ring "not ready", every
 * request then waiting in the kernel.
 *
 * Threads. Each thread of a queue has an io_uring of its own (128-byte
 * SQEs, for the command) and its own entries, and waits on its ring
 * alone. That is not for speed but because of whom the kernel hands a
 * request to: it copies a request into an entry in the context of the
 * task that last submitted the entry's command (task work), so an entry
 * whose submitter is blocked (a slow lower file system, an uninterruptible
 * sleep) would hold its request until that thread got back. A thread here
 * submits only its own entries (replies from other threads aside, below),
 * and an entry is available only while its thread waits: a thread that
 * blocks holds its entry in user space, and the kernel hands the next
 * request to an idle thread's. When a thread takes a request and leaves
 * fewer than two threads of its queue idle, it starts one more, up to
 * max_threads, with an entry of its own (the rule of ofs_loop.c, with a
 * spare: a request queued in the kernel while its queue has no entry
 * available waits for the next commit there, not for a registration).
 * Threads
 * stay until the daemon stops: the kernel cancels the commands of a task
 * that exits, which would take its entries with it.
 *
 * A request answered later by another thread (a lock to be waited for,
 * ofs_lock.c) keeps its entry until then, out of the kernel's hands: its
 * thread waits on its ring, not idle, and another thread takes its place
 * in the queue (held_leaves_idle); only at max_threads does the thread
 * register another entry for itself, so that its queue keeps answering
 * however many wait. The other thread writes its reply into the entry but does not commit
 * it: it would become the entry's submitter, and a lock waiter's thread
 * ends after its reply (a request the kernel then handed to the entry
 * would be lost with it: cancelled in the task's exit). It posts a NOP
 * to the entry's thread, whose ring completes it, and that thread
 * commits (after the request it serves, if any).
 *
 * Entry memory: [header | gap | payload], the payload page-aligned (an
 * O_DIRECT write's data is then aligned as it came), the gap holding the
 * in-header and operation header rebuilt just before the payload, so
 * that libfuse parses the request in place, without copying the payload.
 * It stays mapped until the process exits: closing a ring cancels its
 * commands asynchronously, and the kernel may copy a last request into an
 * entry meanwhile.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ofs_poll.h"
#include "ofs_sig.h"
#include "ofs_tr_uring.h"

#define ENT_GAP 4096u        /* header, then in- and operation header before the payload */
#define ENTS_MAX 1100u       /* entries of a thread at most: lock waiters (1024) and more */
#define REGISTER_RETRIES 100 /* -EAGAIN: INIT not in force yet; 1 ms apart */
#define RING_DEPTH 64u       /* commands a thread's ring holds at once before submitting */

struct ofs_tr_ent {
	struct ofs_tr_pending pend;      /* while its request is served */
	struct tr_thread *t;             /* whose ring it is registered on */
	struct ofs_tr_ent *next;         /* the thread's entries */
	struct ofs_fuse_uring_req_header *h;
	char *payload;
	struct iovec iov[2];             /* REGISTER's: header, payload */
	bool registering;                /* its REGISTER not completed yet
					  * (by whoever holds the entry) */
	unsigned retries;
	uint64_t unique;                 /* a reply's, left for its thread to commit */
	bool own_reply;                  /* answered by its own thread, in serve */
};

struct tr_thread {
	struct tr_queue *q;
	pthread_t th;
	struct io_uring ring;
	bool ring_ok;
	pthread_mutex_t sq_mu;           /* get an SQE and submit: replies may
					  * come from other threads */
	struct ofs_tr_ent *ents;         /* this thread's, a list (never freed
					  * before the daemon ends) */
	unsigned nents;
	unsigned held;                   /* of those, held for a later reply
					  * (by this thread alone;
					  * held_change) */
	bool poller;                     /* the queue's first: polls its ring
					  * after a reply (ofs_poll.h) */
	char stop;                       /* &stop: a NOP's data, "leave" */
};

struct tr_queue {
	struct ofs_tr_uring *u;
	unsigned qid;
	_Atomic unsigned idle;           /* threads counted idle (idle_change) */
	unsigned nthreads;               /* under u->mu */
	struct tr_thread **threads;      /* [max_threads] */
};

struct ofs_tr_uring {
	struct ofs_tr *tr;
	struct fuse_session *se;
	int dev_fd;
	unsigned nq, max_threads;
	uint64_t poll_ns;                /* a poller's window at most; 0: none */
	size_t payload;                  /* bytes of each entry's payload */
	pthread_mutex_t mu;              /* go, stopping, threads, refused */
	pthread_cond_t go_cv;
	bool go, stopping, refused;
	_Atomic uint64_t errors;
	struct tr_queue q[];
};

static void *q_thread(void *arg);

/*
 * A thread's state as its queue counts it, changed here alone. Idle: it
 * waits on its ring with an entry of its own in the kernel's hands (or,
 * just started, will), so a request may come to it; a queue whose idle
 * count falls under two grows. Held: its entries whose request another
 * thread answers later, out of the kernel's hands until this thread
 * commits them; with all of them held, it is not idle.
 */

/* One thread more of @q idle (@on), or one fewer: the count before. */
static unsigned idle_change(struct tr_queue *q, bool on)
{
	return on ? atomic_fetch_add(&q->idle, 1) : atomic_fetch_sub(&q->idle, 1);
}

/* One more of @t's entries held (@on), or one held committed: how many
 * of its entries are in the kernel's hands after. */
static unsigned held_change(struct tr_thread *t, bool on)
{
	if (on)
		t->held++;
	else
		t->held--;
	return t->nents - t->held;
}

struct ofs_tr_uring *ofs_tr_uring_new(struct ofs_tr *tr, struct fuse_session *se,
				      int dev_fd, unsigned nqueues, unsigned max_threads,
				      uint64_t poll_ns, int *err)
{
	struct ofs_tr_uring *u = calloc(1, sizeof(*u) + nqueues * sizeof(u->q[0]));

	*err = -ENOMEM;
	if (!u)
		return NULL;
	u->tr = tr;
	u->se = se;
	u->dev_fd = dev_fd;
	u->nq = nqueues;
	u->max_threads = max_threads < 2 ? 2 : max_threads;
	u->poll_ns = poll_ns;
	pthread_mutex_init(&u->mu, NULL);
	pthread_cond_init(&u->go_cv, NULL);
	for (unsigned i = 0; i < nqueues; i++) {
		u->q[i].u = u;
		u->q[i].qid = i;
		u->q[i].threads = calloc(u->max_threads, sizeof(*u->q[i].threads));
		if (!u->q[i].threads) {
			ofs_tr_uring_free(u);
			return NULL;
		}
	}
	/* whether a ring of 128-byte SQEs can be had was checked before
	 * mounting (ofs_tr.c); each thread makes its own */
	*err = 0;
	return u;
}

/* Start a thread on @q, counted idle (under u->mu); false when it cannot. */
static bool spawn_locked(struct tr_queue *q)
{
	struct ofs_tr_uring *u = q->u;
	struct tr_thread *t;
	bool ok;

	if (u->stopping || q->nthreads >= u->max_threads)
		return false;
	t = calloc(1, sizeof(*t));
	if (!t)
		return false;
	t->q = q;
	t->poller = u->poll_ns && q->nthreads == 0;
	pthread_mutex_init(&t->sq_mu, NULL);
	/*
	 * Requests of this queue come from callers on this CPU, but its
	 * threads are not kept there: one that polls there would take the
	 * CPU from the caller it waits for, and one that sleeps there is
	 * woken on the caller's CPU for every request (what that cost:
	 * docs/overhead.md#threading).
	 */
	idle_change(q, true);
	ok = pthread_create(&t->th, NULL, q_thread, t) == 0;
	if (ok) {
		q->threads[q->nthreads++] = t;
	} else {
		idle_change(q, false);
		pthread_mutex_destroy(&t->sq_mu);
		free(t);
	}
	return ok;
}

int ofs_tr_uring_start(struct ofs_tr_uring *u)
{
	sigset_t old;
	int err = 0;

	ofs_sig_block_stop(&old);
	pthread_mutex_lock(&u->mu);
	/* Two a queue: the one that takes a request leaves the other idle,
	 * so a queue grows only when two are busy at once. */
	for (unsigned i = 0; i < u->nq && !err; i++)
		if (!spawn_locked(&u->q[i]) || !spawn_locked(&u->q[i]))
			err = -EAGAIN;
	pthread_mutex_unlock(&u->mu);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

void ofs_tr_uring_go(struct ofs_tr_uring *u, size_t payload_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	pthread_mutex_lock(&u->mu);
	u->payload = (payload_bytes + page - 1) / page * page;
	u->go = true;
	pthread_cond_broadcast(&u->go_cv);
	pthread_mutex_unlock(&u->mu);
}

/* An SQE of @t's ring (under its sq_mu), zeroed: 128 bytes. */
static struct io_uring_sqe *sqe_get(struct tr_thread *t)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&t->ring);

	if (!sqe) {
		/* Full of commands not submitted yet: submit, and again. */
		io_uring_submit(&t->ring);
		sqe = io_uring_get_sqe(&t->ring);
	}
	if (sqe)
		memset(sqe, 0, 128);
	return sqe;
}

static void sqe_cmd(struct io_uring_sqe *sqe, struct ofs_tr_ent *ent, uint32_t op,
		    uint64_t commit_id)
{
	struct ofs_fuse_uring_cmd_req *cmd = (void *)sqe->cmd;

	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = ent->t->q->u->dev_fd;
	sqe->cmd_op = op;
	cmd->commit_id = commit_id;
	cmd->qid = (uint16_t)ent->t->q->qid;
	io_uring_sqe_set_data(sqe, ent);
	if (op == OFS_FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)ent->iov;
		sqe->len = 2;
	}
}

/* Register @ent on its thread's ring, submitted. A refusal comes back as
 * a completion. 0 or -errno. */
static int register_ent(struct ofs_tr_ent *ent)
{
	struct tr_thread *t = ent->t;
	struct io_uring_sqe *sqe;
	int err = 0;

	pthread_mutex_lock(&t->sq_mu);
	sqe = sqe_get(t);
	if (sqe) {
		ent->registering = true;
		sqe_cmd(sqe, ent, OFS_FUSE_IO_URING_CMD_REGISTER, 0);
		if (io_uring_submit(&t->ring) < 0)
			err = -EIO;
	} else {
		err = -EBUSY;
	}
	pthread_mutex_unlock(&t->sq_mu);
	return err;
}

/* One more entry for @t, registered. 0 or -errno. */
static int add_entry(struct tr_thread *t)
{
	struct ofs_tr_uring *u = t->q->u;
	size_t len = ENT_GAP + u->payload;
	struct ofs_tr_ent *ent;
	char *mem;

	if (t->nents >= ENTS_MAX)
		return -ENOSPC;
	ent = calloc(1, sizeof(*ent));
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	if (!ent || mem == MAP_FAILED) {
		free(ent);
		if (mem != MAP_FAILED)
			munmap(mem, len);
		return -ENOMEM;
	}
	ent->t = t;
	ent->h = (void *)mem;
	ent->payload = mem + ENT_GAP;
	ent->iov[0] = (struct iovec){ ent->h, sizeof(*ent->h) };
	ent->iov[1] = (struct iovec){ ent->payload, u->payload };
	ent->next = t->ents;
	t->ents = ent;
	t->nents++;
	return register_ent(ent);
}

/* Commit the reply now in @ent and fetch its next request. */
static int commit(struct ofs_tr_ent *ent, uint64_t unique)
{
	struct tr_thread *t = ent->t;
	struct io_uring_sqe *sqe;
	int res;

	pthread_mutex_lock(&t->sq_mu);
	sqe = sqe_get(t);
	if (sqe) {
		sqe_cmd(sqe, ent, OFS_FUSE_IO_URING_CMD_COMMIT_AND_FETCH, unique);
		/* From here on the entry is the kernel's: it may refill it
		 * before submit returns. */
		res = io_uring_submit(&t->ring);
	} else {
		res = -EBUSY;
	}
	pthread_mutex_unlock(&t->sq_mu);
	if (res < 0)
		atomic_fetch_add(&t->q->u->errors, 1);
	return res < 0 ? res : 0;
}

/*
 * Have @ent's thread commit the reply written into it (a NOP on its ring,
 * its data the entry's address with bit 0 set). False when that thread is
 * gone (the daemon stops): the caller commits.
 */
static bool defer_commit(struct ofs_tr_ent *ent, uint64_t unique)
{
	struct tr_thread *t = ent->t;
	struct io_uring_sqe *sqe;
	bool ok = false;

	pthread_mutex_lock(&t->q->u->mu);
	if (!t->q->u->stopping) {
		pthread_mutex_lock(&t->sq_mu);
		sqe = sqe_get(t);
		if (sqe) {
			ent->unique = unique;
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, (void *)((uintptr_t)ent | 1));
			ok = io_uring_submit(&t->ring) >= 0;
		}
		pthread_mutex_unlock(&t->sq_mu);
	}
	pthread_mutex_unlock(&t->q->u->mu);
	return ok;
}

ssize_t ofs_tr_uring_reply(struct ofs_tr_ent *ent, const struct iovec *iov, int count,
			   void (*patch)(void *arg, struct ofs_fuse_uring_req_header *h,
					 char *payload, size_t len),
			   void *arg)
{
	struct ofs_tr_uring *u = ent->t->q->u;
	const struct fuse_out_header *out = iov[0].iov_base;
	uint64_t unique = out->unique;
	ssize_t len = ofs_tr_uring_fill(ent->h, ent->payload, u->payload, iov, count);
	int err;

	if (len < 0) {
		/* Larger than any request the kernel may ask: it gets EIO. */
		struct fuse_out_header eo = { sizeof(eo), -EIO, unique };
		struct iovec e = { &eo, sizeof(eo) };

		ofs_tr_uring_fill(ent->h, ent->payload, u->payload, &e, 1);
		atomic_fetch_add(&u->errors, 1);
	} else if (patch) {
		patch(arg, ent->h, ent->payload, ent->h->ring_ent_in_out.payload_sz);
	}
	if (pthread_equal(pthread_self(), ent->t->th)) {
		ent->own_reply = true;
		err = commit(ent, unique);
	} else {
		err = defer_commit(ent, unique) ? 0 : commit(ent, unique);
	}
	if (err || len < 0) {
		errno = err ? -err : EINVAL;
		return -1;
	}
	return len;
}

/* All of @q's threads are busy: start one more. False when it cannot
 * (at max_threads, stopping, out of memory). */
static bool add_thread(struct tr_queue *q)
{
	bool ok;

	pthread_mutex_lock(&q->u->mu);
	ok = spawn_locked(q);
	pthread_mutex_unlock(&q->u->mu);
	return ok;
}

/* Serve @ent's request. True when it is held: not answered yet, another
 * thread will (a lock waiter), and the entry stays out of the kernel's
 * hands until this thread commits it (the NOP, q_thread). */
static bool serve(struct ofs_tr_ent *ent)
{
	struct tr_thread *t = ent->t;
	struct ofs_tr_uring *u = t->q->u;
	const struct fuse_in_header *in = (const void *)ent->h->in_out;
	uint64_t unique = in->unique;
	struct fuse_buf buf = { 0 };
	char *start;
	ssize_t len = ofs_tr_uring_rebuild(ent->h, ent->payload, ENT_GAP, u->payload, &start);

	ent->pend.node.key = unique;
	ent->pend.opcode = in->opcode;
	ent->pend.ent = ent;
	if (len < 0) {
		/* The kernel's numbers do not add up: answer, or the entry
		 * is lost. */
		struct fuse_out_header eo = { sizeof(eo), -EIO, unique };
		struct iovec e = { &eo, sizeof(eo) };

		atomic_fetch_add(&u->errors, 1);
		ofs_tr_uring_fill(ent->h, ent->payload, u->payload, &e, 1);
		commit(ent, unique);
		return false;
	}
	ofs_tr_note(u->tr, &ent->pend);
	buf.mem = start;
	buf.size = (size_t)len;
	ent->own_reply = false;
	fuse_session_process_buf(u->se, &buf);
	/* Not answered here: another thread answers, and posts the NOP that
	 * has this thread commit -- also when it answered already. */
	return !ent->own_reply;
}

/*
 * @t's request was held (serve): @t has one entry fewer in the kernel's
 * hands. Whether it waits idle: only with an entry left there. With
 * none, another thread takes its place in the queue; only when none can
 * be started does @t register another entry (up to ENTS_MAX) -- then a
 * request handed to it waits while @t serves another, but the queue
 * keeps answering however many locks wait.
 */
static bool held_leaves_idle(struct tr_thread *t)
{
	if (held_change(t, true) > 0)
		return true;
	if (add_thread(t->q))
		return false;
	if (add_entry(t) != 0) {
		atomic_fetch_add(&t->q->u->errors, 1);
		return false;
	}
	return true;
}

/* A completion with an error: what it says of the entry. */
static void ent_error(struct ofs_tr_ent *ent, int res)
{
	struct ofs_tr_uring *u = ent->t->q->u;
	bool refuse = false;

	if (res == -ENOTCONN || res == -ECANCELED || res == -ECONNABORTED) {
		/* the connection ends, or this ring */
		return;
	}
	if (ent->registering) {
		if (res == -EAGAIN && ++ent->retries < REGISTER_RETRIES) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
		} else {
			pthread_mutex_lock(&u->mu);
			refuse = !u->refused;
			u->refused = true;
			pthread_mutex_unlock(&u->mu);
			if (refuse)
				ofs_tr_uring_refused(u->tr, res);
			return;
		}
	} else {
		/* A commit refused (its request gone): register the entry
		 * anew, or the queue loses it. */
		atomic_fetch_add(&u->errors, 1);
	}
	register_ent(ent);
}

/* Wait until INIT is answered (false: the daemon stops first), then
 * make the ring and the first entry. */
static bool thread_setup(struct tr_thread *t)
{
	struct ofs_tr_uring *u = t->q->u;
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQSIZE,
				     .cq_entries = 2 * RING_DEPTH };
	bool go;
	int err;

	pthread_mutex_lock(&u->mu);
	while (!u->go && !u->stopping)
		pthread_cond_wait(&u->go_cv, &u->mu);
	go = u->go && !u->stopping;
	pthread_mutex_unlock(&u->mu);
	if (!go)
		return false;
	err = io_uring_queue_init_params(RING_DEPTH, &t->ring, &p);
	/* ring_ok under the lock, stopping looked at again: a stop that came
	 * meanwhile either sees the ring (and posts its NOP) or is seen here;
	 * else this thread would wait for a NOP never sent, and the stop's
	 * join with it. */
	pthread_mutex_lock(&u->mu);
	t->ring_ok = !err;
	go = !u->stopping;
	pthread_mutex_unlock(&u->mu);
	if (!go)
		return false;
	if (!err)
		err = add_entry(t);
	if (err) {
		ofs_tr_uring_refused(u->tr, err);
		return false;
	}
	return true;
}

static void *q_thread(void *arg)
{
	struct tr_thread *t = arg;
	struct tr_queue *q = t->q;
	/*
	 * Never at idle priority, so at most OFS_POLL_IDLE_AFTER_NS: the
	 * kernel hands the next request to the entry committed last -- the
	 * poller's -- and copies it in when that thread runs, which at idle
	 * priority beside a busy task could be much later (on /dev/fuse a
	 * sleeping worker at the normal priority takes it instead).
	 */
	uint64_t max_ns = q->u->poll_ns < OFS_POLL_IDLE_AFTER_NS ? q->u->poll_ns : OFS_POLL_IDLE_AFTER_NS;
	struct ofs_poller p = { .max_ns = t->poller ? max_ns : 0 };

	if (!thread_setup(t)) {
		idle_change(q, false);
		return NULL;
	}
	for (;;) {
		struct io_uring_cqe *cqe;
		struct ofs_tr_ent *ent;
		int res, err;

		/* After a reply, for the poller's window: a request comes
		 * as task work, which the kernel runs when it interrupts
		 * this thread (the ring's default notification), so the
		 * completion appears in the ring as this thread looks. */
		err = -EAGAIN;
		while (p.until_ns && (err = io_uring_peek_cqe(&t->ring, &cqe)) == -EAGAIN &&
		       ofs_poller_spin(&p))
			;
		/* Nothing polled: wait. Task work (a request copied into
		 * one of this thread's entries) runs in here. */
		if (err)
			do
				err = io_uring_wait_cqe(&t->ring, &cqe);
			while (err == -EINTR);
		if (err) {
			atomic_fetch_add(&q->u->errors, 1);
			break;
		}
		ent = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&t->ring, cqe);
		if ((void *)ent == &t->stop)
			break;
		if ((uintptr_t)ent & 1) {
			/* another thread's reply, to commit from here: the
			 * entry is back in the kernel's hands, and this thread
			 * idle again if it had no other there */
			ent = (void *)((uintptr_t)ent & ~(uintptr_t)1);
			commit(ent, ent->unique);
			if (held_change(t, false) == 1)
				idle_change(q, true);
			continue;
		}
		if (res < 0) {
			ent_error(ent, res);
			continue;
		}
		ent->registering = false;
		/* Fewer than two left idle: one more. A request the kernel
		 * queues while no entry of its queue is available waits for
		 * the next commit on that queue: a new entry's registration
		 * does not fetch it. So one thread stays idle, with an entry,
		 * while the next one starts. */
		if (idle_change(q, false) <= 2)
			add_thread(q);
		ofs_poller_took(&p);
		if (!serve(ent)) {
			idle_change(q, true);
			/* answered: its entry is back in the kernel's hands */
			ofs_poller_replied(&p);
		} else if (held_leaves_idle(t)) {
			idle_change(q, true);
		}
	}
	idle_change(q, false);
	return NULL;
}

void ofs_tr_uring_stop(struct ofs_tr_uring *u)
{
	pthread_mutex_lock(&u->mu);
	u->stopping = true;
	pthread_cond_broadcast(&u->go_cv);
	pthread_mutex_unlock(&u->mu);
	/* No thread is started any more: each is told to leave, joined. */
	for (unsigned i = 0; i < u->nq; i++) {
		struct tr_queue *q = &u->q[i];

		for (unsigned k = 0; k < q->nthreads; k++) {
			struct tr_thread *t = q->threads[k];

			if (t->ring_ok) {
				struct io_uring_sqe *sqe;

				pthread_mutex_lock(&t->sq_mu);
				sqe = sqe_get(t);
				if (sqe) {
					io_uring_prep_nop(sqe);
					io_uring_sqe_set_data(sqe, &t->stop);
					io_uring_submit(&t->ring);
				}
				pthread_mutex_unlock(&t->sq_mu);
			}
		}
		for (unsigned k = 0; k < q->nthreads; k++)
			pthread_join(q->threads[k]->th, NULL);
	}
}

void ofs_tr_uring_free(struct ofs_tr_uring *u)
{
	if (!u)
		return;
	for (unsigned i = 0; i < u->nq; i++) {
		struct tr_queue *q = &u->q[i];

		for (unsigned k = 0; q->threads && k < q->nthreads; k++) {
			struct tr_thread *t = q->threads[k];
			struct ofs_tr_ent *e, *next;

			if (t->ring_ok)
				io_uring_queue_exit(&t->ring);
			/* the entries' memory stays mapped: see the top */
			for (e = t->ents; e; e = next) {
				next = e->next;
				free(e);
			}
			pthread_mutex_destroy(&t->sq_mu);
			free(t);
		}
		free(q->threads);
	}
	pthread_cond_destroy(&u->go_cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
}

void ofs_tr_uring_stats(const struct ofs_tr_uring *u, unsigned *queues, uint64_t *errors)
{
	*queues = u->nq;
	*errors = atomic_load(&((struct ofs_tr_uring *)u)->errors);
}
