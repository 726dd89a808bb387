// SPDX-License-Identifier: MIT
/*
 * FUSE over io_uring (protocol 7.42, kernel 6.14+; the kernel's
 * Documentation/filesystems/fuse-io-uring.rst): the requests that reach
 * the daemon come as completions on per-CPU rings, and each reply goes
 * back into the ring entry its request came in, committed with the same
 * submission that fetches the entry's next request. No read or write
 * system call per request, and the request is served on the CPU its
 * caller runs on.
 *
 * The kernel has one FUSE queue per possible CPU and queues a request on
 * its caller's CPU; a queue with no entry registered keeps the whole ring
 * "not ready", every request then waiting in the kernel. So every queue
 * gets an io_uring of its own (128-byte SQEs, for the command), entries
 * (a 288-byte header and a payload buffer as large as a request may be),
 * and threads, pinned to the queue's CPU, that wait for its completions.
 *
 * Threads. One waits in the completion queue at a time (cq_mu); when it
 * takes a request and leaves no other thread waiting on its queue, it
 * starts one more, up to max_threads, as ofs_loop.c does: a request that
 * blocks (a slow lower file system) never stops its queue answering, and
 * a lock to be waited for is handed to ofs_lock.c's waiters anyway. The
 * threads started stay until the daemon stops, because the kernel hands
 * each request to the entry's last submitter (task work: it copies the
 * request in that task's context), and cancels every command a task
 * submitted when it exits: an extra thread that left would take its
 * entries with it. Replies come from any thread (a lock granted by a
 * waiter), so submissions take the ring's sq_mu.
 *
 * Limitation: a request dispatched to an entry whose last submitter is
 * blocked in an uninterruptible sleep (D state, a hung NFS server) waits
 * until that thread gets back; entries committed by other threads keep
 * flowing.
 *
 * Entry memory: [header | gap | payload], the payload page-aligned (an
 * O_DIRECT write's data is then aligned as it came), the gap holding
 * the in-header and operation header rebuilt just before the payload, so
 * that libfuse parses the request in place, without copying the payload.
 * It stays mapped until the process exits: closing a ring cancels its
 * commands asynchronously, and the kernel may copy a last request into an
 * entry meanwhile.
 */
#include <errno.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ofs_tr_uring.h"

#define ENT_GAP 4096u        /* header, then in- and operation header before the payload */
#define ENT_MAX 64u          /* entries per queue at most */
#define REGISTER_RETRIES 100 /* -EAGAIN: INIT not in force yet; 1 ms apart */

enum ent_state { ENT_REGISTERING, ENT_LIVE, ENT_DEAD };

struct ofs_tr_ent {
	struct ofs_tr_pending pend;      /* while its request is served */
	struct tr_queue *q;
	struct ofs_fuse_uring_req_header *h;
	char *payload;
	struct iovec iov[2];             /* REGISTER's: header, payload */
	enum ent_state state;            /* by whoever holds the entry */
	unsigned retries;
};

struct tr_queue {
	struct ofs_tr_uring *u;
	unsigned qid;
	struct io_uring ring;
	bool ring_ok;
	pthread_mutex_t sq_mu;           /* get an SQE and submit */
	pthread_mutex_t cq_mu;           /* the one thread waiting for a CQE */
	_Atomic unsigned idle;           /* threads not serving a request */
	unsigned nthreads;               /* under u->mu */
	pthread_t *th;                   /* [max_threads] */
	struct ofs_tr_ent *ents;         /* [u->nent], set by the first thread */
	char *mem;
	size_t mem_len;
	char stop;                       /* &stop: a NOP's data, "leave" */
	struct thread_arg {
		struct tr_queue *q;
		bool first;              /* registers the entries */
	} as_first, as_extra;
};

struct ofs_tr_uring {
	struct ofs_tr *tr;
	struct fuse_session *se;
	int dev_fd;
	unsigned nq, max_threads, nent;
	size_t payload;                  /* bytes of each entry's payload */
	pthread_mutex_t mu;              /* go, stopping, nthreads, refused */
	pthread_cond_t go_cv;
	bool go, stopping, refused;
	_Atomic uint64_t errors;
	struct tr_queue q[];
};

static void *q_thread(void *arg);

struct ofs_tr_uring *ofs_tr_uring_new(struct ofs_tr *tr, struct fuse_session *se,
				      int dev_fd, unsigned nqueues, unsigned max_threads,
				      int *err)
{
	struct ofs_tr_uring *u = calloc(1, sizeof(*u) + nqueues * sizeof(u->q[0]));

	*err = -ENOMEM;
	if (!u)
		return NULL;
	u->tr = tr;
	u->se = se;
	u->dev_fd = dev_fd;
	u->nq = nqueues;
	u->max_threads = max_threads;
	/* A thread serves one entry at a time: more entries than threads
	 * only hold requests nobody serves. */
	u->nent = max_threads < 2 ? 2 : max_threads > ENT_MAX ? ENT_MAX : max_threads;
	pthread_mutex_init(&u->mu, NULL);
	pthread_cond_init(&u->go_cv, NULL);
	for (unsigned i = 0; i < nqueues; i++) {
		struct tr_queue *q = &u->q[i];
		struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQSIZE };
		/* commands in flight: every entry, and a stop NOP per thread */
		unsigned depth = u->nent + max_threads + 1;

		q->u = u;
		q->qid = i;
		pthread_mutex_init(&q->sq_mu, NULL);
		pthread_mutex_init(&q->cq_mu, NULL);
		q->as_first = (struct thread_arg){ q, true };
		q->as_extra = (struct thread_arg){ q, false };
		q->th = calloc(max_threads, sizeof(*q->th));
		if (!q->th) {
			ofs_tr_uring_free(u);
			return NULL;
		}
		p.cq_entries = 2 * depth;
		*err = io_uring_queue_init_params(depth, &q->ring, &p);
		if (*err) {
			ofs_tr_uring_free(u);
			return NULL;
		}
		q->ring_ok = true;
	}
	*err = 0;
	return u;
}

/* Start a thread on @q as @a, counted idle; false when it cannot. */
static bool spawn_locked(struct tr_queue *q, struct thread_arg *a)
{
	struct ofs_tr_uring *u = q->u;
	pthread_attr_t attr;
	cpu_set_t cpus;
	bool ok;

	if (u->stopping || q->nthreads >= u->max_threads)
		return false;
	pthread_attr_init(&attr);
	/* Requests of this queue come from callers on this CPU. */
	if (q->qid < CPU_SETSIZE) {
		CPU_ZERO(&cpus);
		CPU_SET(q->qid, &cpus);
		pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	}
	atomic_fetch_add(&q->idle, 1);
	ok = pthread_create(&q->th[q->nthreads], &attr, q_thread, a) == 0;
	if (!ok && q->qid < CPU_SETSIZE) {
		/* an offline CPU: anywhere, then */
		pthread_attr_destroy(&attr);
		pthread_attr_init(&attr);
		ok = pthread_create(&q->th[q->nthreads], &attr, q_thread, a) == 0;
	}
	pthread_attr_destroy(&attr);
	if (ok)
		q->nthreads++;
	else
		atomic_fetch_sub(&q->idle, 1);
	return ok;
}

int ofs_tr_uring_start(struct ofs_tr_uring *u)
{
	sigset_t stop, old;
	int err = 0;

	/* The threads leave the stop signals to the session loop's thread. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	pthread_mutex_lock(&u->mu);
	for (unsigned i = 0; i < u->nq && !err; i++)
		if (!spawn_locked(&u->q[i], &u->q[i].as_first))
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

/* An SQE of @q's ring (under sq_mu), zeroed: 128 bytes. */
static struct io_uring_sqe *sqe_get(struct tr_queue *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	if (!sqe) {
		/* Cannot happen (the ring holds every command), but submit
		 * what waits and try once more rather than lose a reply. */
		io_uring_submit(&q->ring);
		sqe = io_uring_get_sqe(&q->ring);
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
	sqe->fd = ent->q->u->dev_fd;
	sqe->cmd_op = op;
	cmd->commit_id = commit_id;
	cmd->qid = (uint16_t)ent->q->qid;
	io_uring_sqe_set_data(sqe, ent);
	if (op == OFS_FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)ent->iov;
		sqe->len = 2;
	}
}

/* Queue a REGISTER of @ent (under sq_mu); the caller submits. */
static int register_locked(struct ofs_tr_ent *ent)
{
	struct io_uring_sqe *sqe = sqe_get(ent->q);

	if (!sqe)
		return -EBUSY;
	ent->state = ENT_REGISTERING;
	sqe_cmd(sqe, ent, OFS_FUSE_IO_URING_CMD_REGISTER, 0);
	return 0;
}

/* The first thread of @q: once INIT is answered, the entries, registered. */
static int register_queue(struct tr_queue *q)
{
	struct ofs_tr_uring *u = q->u;
	size_t one = ENT_GAP + u->payload;
	int err = 0;

	q->mem_len = one * u->nent;
	q->mem = mmap(NULL, q->mem_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	q->ents = calloc(u->nent, sizeof(*q->ents));
	if (q->mem == MAP_FAILED || !q->ents) {
		if (q->mem != MAP_FAILED)
			munmap(q->mem, q->mem_len);
		q->mem = NULL;
		return -ENOMEM;
	}
	pthread_mutex_lock(&q->sq_mu);
	for (unsigned i = 0; i < u->nent && !err; i++) {
		struct ofs_tr_ent *ent = &q->ents[i];
		char *base = q->mem + i * one;

		ent->q = q;
		ent->h = (void *)base;
		ent->payload = base + ENT_GAP;
		ent->iov[0] = (struct iovec){ ent->h, sizeof(*ent->h) };
		ent->iov[1] = (struct iovec){ ent->payload, u->payload };
		err = register_locked(ent);
	}
	/* A refusal comes back as a completion, read by the loop. */
	if (!err && io_uring_submit(&q->ring) < 0)
		err = -EIO;
	pthread_mutex_unlock(&q->sq_mu);
	return err;
}

/* Commit the reply now in @ent and fetch its next request. */
static int commit(struct ofs_tr_ent *ent, uint64_t unique)
{
	struct tr_queue *q = ent->q;
	struct io_uring_sqe *sqe;
	int res;

	pthread_mutex_lock(&q->sq_mu);
	sqe = sqe_get(q);
	if (sqe) {
		sqe_cmd(sqe, ent, OFS_FUSE_IO_URING_CMD_COMMIT_AND_FETCH, unique);
		/* From here on the entry is the kernel's: it may refill it
		 * and another thread take it before submit returns. */
		res = io_uring_submit(&q->ring);
	} else {
		res = -EBUSY;
	}
	pthread_mutex_unlock(&q->sq_mu);
	if (res < 0)
		atomic_fetch_add(&q->u->errors, 1);
	return res < 0 ? res : 0;
}

ssize_t ofs_tr_uring_reply(struct ofs_tr_ent *ent, const struct iovec *iov, int count,
			   void (*patch)(void *arg, struct ofs_fuse_uring_req_header *h,
					 char *payload, size_t len),
			   void *arg)
{
	const struct fuse_out_header *out = iov[0].iov_base;
	uint64_t unique = out->unique;
	ssize_t len = ofs_tr_uring_fill(ent->h, ent->payload, ent->q->u->payload, iov, count);
	int err;

	if (len < 0) {
		/* Larger than any request the kernel may ask: it gets EIO. */
		struct fuse_out_header eo = { sizeof(eo), -EIO, unique };
		struct iovec e = { &eo, sizeof(eo) };

		ofs_tr_uring_fill(ent->h, ent->payload, ent->q->u->payload, &e, 1);
		atomic_fetch_add(&ent->q->u->errors, 1);
	} else if (patch) {
		patch(arg, ent->h, ent->payload, ent->h->ring_ent_in_out.payload_sz);
	}
	err = commit(ent, unique);
	if (err || len < 0) {
		errno = err ? -err : EINVAL;
		return -1;
	}
	return len;
}

/* Start one more thread on @q: all its threads are busy. */
static void add_thread(struct tr_queue *q)
{
	pthread_mutex_lock(&q->u->mu);
	/* Failing to is no error: the busy threads serve, later. */
	spawn_locked(q, &q->as_extra);
	pthread_mutex_unlock(&q->u->mu);
}

static void serve(struct ofs_tr_ent *ent)
{
	struct ofs_tr_uring *u = ent->q->u;
	const struct fuse_in_header *in = (const void *)ent->h->in_out;
	struct fuse_buf buf = { 0 };
	char *start;
	ssize_t len = ofs_tr_uring_rebuild(ent->h, ent->payload, ENT_GAP, u->payload, &start);

	ent->pend.node.key = in->unique;
	ent->pend.opcode = in->opcode;
	ent->pend.ent = ent;
	if (len < 0) {
		/* The kernel's numbers do not add up: answer, or the entry
		 * is lost. */
		struct fuse_out_header eo = { sizeof(eo), -EIO, in->unique };
		struct iovec e = { &eo, sizeof(eo) };

		atomic_fetch_add(&u->errors, 1);
		ofs_tr_uring_fill(ent->h, ent->payload, u->payload, &e, 1);
		commit(ent, in->unique);
		return;
	}
	ofs_tr_note(u->tr, &ent->pend);
	buf.mem = start;
	buf.size = (size_t)len;
	fuse_session_process_buf(u->se, &buf);
}

/* A completion with an error: what it says of the entry. */
static void ent_error(struct ofs_tr_ent *ent, int res)
{
	struct tr_queue *q = ent->q;
	struct ofs_tr_uring *u = q->u;
	bool refuse = false;

	if (res == -ENOTCONN || res == -ECANCELED || res == -ECONNABORTED) {
		/* the connection ends, or this ring */
		ent->state = ENT_DEAD;
		return;
	}
	if (ent->state == ENT_REGISTERING) {
		if (res == -EAGAIN && ++ent->retries < REGISTER_RETRIES) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
		} else {
			ent->state = ENT_DEAD;
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
	pthread_mutex_lock(&q->sq_mu);
	if (register_locked(ent) == 0)
		io_uring_submit(&q->ring);
	pthread_mutex_unlock(&q->sq_mu);
}

static void *q_thread(void *arg)
{
	struct thread_arg *a = arg;
	struct tr_queue *q = a->q;
	struct ofs_tr_uring *u = q->u;

	if (a->first) {
		bool go;
		int err;

		pthread_mutex_lock(&u->mu);
		while (!u->go && !u->stopping)
			pthread_cond_wait(&u->go_cv, &u->mu);
		go = u->go && !u->stopping;
		pthread_mutex_unlock(&u->mu);
		err = go ? register_queue(q) : 0;
		if (err)
			ofs_tr_uring_refused(u->tr, err);
		if (!go || err) {
			atomic_fetch_sub(&q->idle, 1);
			return NULL;
		}
	}
	for (;;) {
		struct io_uring_cqe *cqe;
		struct ofs_tr_ent *ent;
		int res, err;

		pthread_mutex_lock(&q->cq_mu);
		do
			err = io_uring_wait_cqe(&q->ring, &cqe);
		while (err == -EINTR);
		if (err) {
			pthread_mutex_unlock(&q->cq_mu);
			atomic_fetch_add(&u->errors, 1);
			break;
		}
		ent = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&q->ring, cqe);
		pthread_mutex_unlock(&q->cq_mu);
		if ((void *)ent == &q->stop)
			break;
		if (res < 0) {
			ent_error(ent, res);
			continue;
		}
		ent->state = ENT_LIVE;
		if (atomic_fetch_sub(&q->idle, 1) == 1)
			add_thread(q);
		serve(ent);
		atomic_fetch_add(&q->idle, 1);
	}
	atomic_fetch_sub(&q->idle, 1);
	return NULL;
}

void ofs_tr_uring_stop(struct ofs_tr_uring *u)
{
	pthread_mutex_lock(&u->mu);
	u->stopping = true;
	pthread_cond_broadcast(&u->go_cv);
	pthread_mutex_unlock(&u->mu);
	for (unsigned i = 0; i < u->nq; i++) {
		struct tr_queue *q = &u->q[i];

		/* nthreads no longer grows: one NOP each, each leaves on one */
		pthread_mutex_lock(&q->sq_mu);
		for (unsigned t = 0; t < q->nthreads; t++) {
			struct io_uring_sqe *sqe = sqe_get(q);

			if (!sqe)
				break;
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data(sqe, &q->stop);
		}
		io_uring_submit(&q->ring);
		pthread_mutex_unlock(&q->sq_mu);
		for (unsigned t = 0; t < q->nthreads; t++)
			pthread_join(q->th[t], NULL);
		q->nthreads = 0;
	}
}

void ofs_tr_uring_free(struct ofs_tr_uring *u)
{
	if (!u)
		return;
	for (unsigned i = 0; i < u->nq; i++) {
		struct tr_queue *q = &u->q[i];

		if (q->ring_ok)
			io_uring_queue_exit(&q->ring);
		/* q->mem stays mapped: see the top of this file. */
		free(q->ents);
		free(q->th);
		pthread_mutex_destroy(&q->sq_mu);
		pthread_mutex_destroy(&q->cq_mu);
	}
	pthread_cond_destroy(&u->go_cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
}

void ofs_tr_uring_stats(const struct ofs_tr_uring *u, unsigned *queues, unsigned *threads,
			unsigned *entries, uint64_t *errors)
{
	struct ofs_tr_uring *m = (struct ofs_tr_uring *)u;

	*queues = u->nq;
	*threads = 0;
	pthread_mutex_lock(&m->mu);
	for (unsigned i = 0; i < u->nq; i++)
		*threads += u->q[i].nthreads;
	*entries = u->go ? u->nq * u->nent : 0;
	pthread_mutex_unlock(&m->mu);
	*errors = atomic_load(&m->errors);
}
