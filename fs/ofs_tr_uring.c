// SPDX-License-Identifier: MIT
/*
 * FUSE over io_uring (protocol 7.42, kernel 6.14+; the kernel's
 * Documentation/filesystems/fuse-io-uring.rst): the requests that reach
 * the daemon come as completions on io_uring rings, and each reply goes
 * back into the ring entry its request came in, committed with the same
 * submission that fetches the entry's next request. One system call a
 * round trip: a reply's commit is prepared in the thread's ring and
 * handed to the kernel by the io_uring_submit_and_wait in which the
 * thread waits for its next request (what that saves:
 * docs/overhead.md#threading). The threads of a queue run wherever the
 * scheduler puts them (spawn_locked says why), and with -o poll_us each
 * queue's first thread polls its ring after a reply (ofs_poll.h), its
 * commit submitted first.
 *
 * The kernel has one FUSE queue per possible CPU and queues a request on
 * its caller's CPU, in the entry of that queue made available last; a
 * queue with no entry registered keeps the whole ring "not ready", every
 * request then waiting in the kernel. Only an online CPU's queue receives
 * requests: each gets threads; an offline CPU's queue gets one entry,
 * registered on the ring of the first online queue's first thread (its
 * host), and threads of its own once a request comes there (the CPU came
 * online).
 *
 * A request queued while its queue has no entry available waits in the
 * kernel for the next COMMIT_AND_FETCH on that queue: a REGISTER does not
 * fetch it. Each commit fetches one, so a queue whose entries are all
 * held (below) strands it: nothing is committed there until a lock is
 * released, maybe by the very request stranded. So after each hold,
 * after each thread started for a hold has registered its entry, and
 * after a refused commit, the queue is kicked: a short-lived thread of
 * the daemon, on that CPU, asks the mount's root for statfs; that STATFS
 * is answered here (it never reaches the file system, nor a profile),
 * and its commit fetches what waits. A thread, not a ring's: a kick that
 * finds no entry available waits, stranded in turn, until a commit there.
 * So every registration gets its kick, whatever kicks are out already
 * (one stranded before the registration cannot use the new entry), and
 * a kick's slot is free once its STATFS is answered, not once its thread
 * has run again: a chain of holds must not wait for a thread the
 * scheduler has not run yet. A kick with no slot free is owed to its
 * queue and started when a slot frees. The daemon knows a kick's STATFS
 * by the kick thread's id (kick_tid); none starts once it stops.
 *
 * Threads. Each thread of a queue has an io_uring of its own (128-byte
 * SQEs, for the command) and its own entries, and waits on its ring
 * alone. That is not for speed but because of whom the kernel hands a
 * request to: it copies a request into an entry in the context of the
 * task that last submitted the entry's command (task work), so an entry
 * whose submitter is blocked (a slow lower file system, an uninterruptible
 * sleep) would hold its request until that thread got back. A ring is
 * its thread's alone: no other thread gets an SQE or submits there
 * (replies from other threads come through a mailbox, below), and an
 * entry is available only while its thread waits: a thread that
 * blocks holds its entry in user space, and the kernel hands the next
 * request to an idle thread's. When a thread takes a request and leaves
 * fewer than two threads of its queue idle, it starts one more, up to
 * max_threads, with an entry of its own (the rule of ofs_loop.c, with a
 * spare: a request queued in the kernel while its queue has no entry
 * available waits for the next commit there, not for a registration).
 * Threads stay until the daemon stops: the kernel cancels the commands
 * of a task that exits, which would take its entries with it.
 *
 * A request answered later by another thread (a lock to be waited for,
 * ofs_lock.c) keeps its entry until then, out of the kernel's hands: its
 * thread waits on its ring, not idle, and another thread takes its place
 * in the queue (held_leaves_idle); only at max_threads does the thread
 * register another entry for itself, so that its queue keeps answering
 * however many wait. The other thread writes its reply into the entry
 * but does not commit it: it would become the entry's submitter, and a
 * lock waiter's thread ends after its reply (a request the kernel then
 * handed to the entry would be lost with it: cancelled in the task's
 * exit). It posts the entry to its thread's mailbox and writes the
 * thread's eventfd, whose poll sits in the thread's ring; that thread
 * commits (after the request it serves, if any). The daemon's stop comes
 * the same way.
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
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "ofs_poll.h"
#include "ofs_sig.h"
#include "ofs_tr_cpus.h"
#include "ofs_tr_uring.h"

#define ENT_GAP 4096u        /* header, then in- and operation header before the payload */
#define ENTS_MAX 1100u       /* entries of a thread at most: lock waiters (1024) and more */
#define REGISTER_RETRIES 100 /* -EAGAIN: INIT not in force yet; 1 ms apart */
#define RING_DEPTH 64u       /* commands a thread's ring holds at once before submitting */

struct ofs_tr_ent {
	struct ofs_tr_pending pend;      /* while its request is served */
	struct tr_thread *t;             /* whose ring it is registered on */
	struct tr_queue *q;              /* its FUSE queue: t's, or an offline
					  * CPU's that t hosts */
	struct ofs_tr_ent *next;         /* the thread's entries */
	struct ofs_fuse_uring_req_header *h;
	char *payload;
	struct iovec iov[2];             /* REGISTER's: header, payload */
	bool registering;                /* its REGISTER not completed yet
					  * (by whoever holds the entry) */
	unsigned retries;
	uint64_t unique;                 /* a reply's, left for its thread to commit */
	struct ofs_tr_ent *posted_next;  /* in its thread's mailbox */
	bool own_reply;                  /* answered by its own thread, in serve */
	bool held;                       /* its request held (serve), not
					  * committed yet (by its thread alone) */
};

struct tr_thread {
	struct tr_queue *q;
	pthread_t th;
	struct io_uring ring;            /* this thread's alone: no other
					  * thread gets an SQE or submits */
	bool ring_ok;
	pthread_mutex_t mb_mu;           /* the mailbox: posted, leave */
	struct ofs_tr_ent *posted;       /* replies other threads wrote, for
					  * this thread to commit */
	bool leave;                      /* the daemon stops */
	int efd;                         /* eventfd: the mailbox has news */
	char wake;                       /* &wake: the eventfd's poll */
	struct ofs_tr_ent *ents;         /* this thread's, a list (never freed
					  * before the daemon ends) */
	_Atomic unsigned nents;          /* of its queue (not those it hosts);
					  * added to by this thread alone */
	_Atomic int held;                /* of those, held for a later reply
					  * (held_change; signed: a commit
					  * made when the daemon stops may
					  * count before the hold does) */
	bool poller;                     /* the queue's first: polls its ring
					  * after a reply (ofs_poll.h) */
	bool host;                       /* registers the offline CPUs' entries */
	bool kicks;                      /* started while requests flow: kicks
					  * its queue once registered */
};

struct tr_queue {
	struct ofs_tr_uring *u;
	unsigned qid;
	bool online;                     /* its CPU, when the rings started */
	_Atomic unsigned idle;           /* threads counted idle (idle_change) */
	_Atomic bool owed;               /* a kick, when a slot frees (kick) */
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
	const char *mountpoint;          /* borrowed: the kicks' */
	bool pin;                        /* threads kept on their queue's CPU */
	struct tr_queue q[];
};

static void *q_thread(void *arg);

/*
 * A thread's state as its queue counts it, changed here alone. Idle: it
 * waits on its ring with an entry of its own in the kernel's hands (or,
 * just started, will), so a request may come to it; a queue whose idle
 * count falls under two grows. Held: its entries whose request another
 * thread answers later, out of the kernel's hands until committed; with
 * all of them held, it is not idle.
 */

/* One thread more of @q idle (@on), or one fewer: the count before. */
static unsigned idle_change(struct tr_queue *q, bool on)
{
	return on ? atomic_fetch_add(&q->idle, 1) : atomic_fetch_sub(&q->idle, 1);
}

/* One more of @t's entries held (@on), or one held committed: how many
 * of its entries are in the kernel's hands after. */
static int held_change(struct tr_thread *t, bool on)
{
	int held = on ? atomic_fetch_add(&t->held, 1) + 1 : atomic_fetch_sub(&t->held, 1) - 1;

	return (int)atomic_load(&t->nents) - held;
}

/* A held entry of @t committed, by whichever thread: @t is idle again if
 * that entry is the one it has in the kernel's hands. */
static void held_committed(struct tr_thread *t)
{
	if (held_change(t, false) == 1)
		idle_change(t->q, true);
}

struct ofs_tr_uring *ofs_tr_uring_new(struct ofs_tr *tr, struct fuse_session *se,
				      int dev_fd, unsigned nqueues, unsigned max_threads,
				      uint64_t poll_ns, bool pin, const char *mountpoint,
				      int *err)
{
	struct ofs_tr_uring *u = calloc(1, sizeof(*u) + nqueues * sizeof(u->q[0]));
	bool *online = calloc(nqueues, sizeof(*online));

	*err = -ENOMEM;
	if (!u || !online) {
		free(u);
		free(online);
		return NULL;
	}
	ofs_tr_cpus_online(online, nqueues);
	u->tr = tr;
	u->se = se;
	u->dev_fd = dev_fd;
	u->mountpoint = mountpoint;
	u->nq = nqueues;
	u->max_threads = max_threads < 2 ? 2 : max_threads;
	u->poll_ns = poll_ns;
	u->pin = pin;
	pthread_mutex_init(&u->mu, NULL);
	pthread_cond_init(&u->go_cv, NULL);
	for (unsigned i = 0; i < nqueues; i++) {
		u->q[i].u = u;
		u->q[i].qid = i;
		u->q[i].online = online[i];
		u->q[i].threads = calloc(u->max_threads, sizeof(*u->q[i].threads));
		if (!u->q[i].threads) {
			free(online);
			ofs_tr_uring_free(u);
			return NULL;
		}
	}
	free(online);
	/* whether a ring of 128-byte SQEs can be had was checked before
	 * mounting (ofs_tr.c); each thread makes its own */
	*err = 0;
	return u;
}

/* Start a thread on @q, counted idle (under u->mu); @kicks: requests
 * flow, it kicks @q once registered. False when it cannot. */
static bool spawn_locked(struct tr_queue *q, bool kicks)
{
	struct ofs_tr_uring *u = q->u;
	struct tr_thread *t;
	bool ok;

	if (u->stopping || q->nthreads >= u->max_threads)
		return false;
	t = calloc(1, sizeof(*t));
	if (!t)
		return false;
	t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->efd < 0) {
		free(t);
		return false;
	}
	t->q = q;
	t->poller = u->poll_ns && q->nthreads == 0;
	t->kicks = kicks;
	pthread_mutex_init(&t->mb_mu, NULL);
	/*
	 * Requests of this queue come from callers on this CPU, but its
	 * threads are kept there only with -o io_uring_pin (thread_setup),
	 * which the workload decides: a thread that sleeps there is woken on
	 * the caller's CPU for every request, and the two take turns, where
	 * a free thread runs beside the caller (one that polls there would
	 * take the CPU from the caller it waits for: pinned, none polls).
	 * What each cost: docs/overhead.md#threading.
	 */
	idle_change(q, true);
	ok = pthread_create(&t->th, NULL, q_thread, t) == 0;
	if (ok) {
		q->threads[q->nthreads++] = t;
	} else {
		idle_change(q, false);
		pthread_mutex_destroy(&t->mb_mu);
		close(t->efd);
		free(t);
	}
	return ok;
}

int ofs_tr_uring_start(struct ofs_tr_uring *u)
{
	struct tr_queue *host = NULL;
	sigset_t old;
	int err = 0;

	ofs_sig_block_stop(&old);
	pthread_mutex_lock(&u->mu);
	/* Two an online CPU's queue: the one that takes a request leaves
	 * the other idle, so a queue grows only when two are busy at once.
	 * None an offline one's: its entry is on the host's ring. */
	for (unsigned i = 0; i < u->nq && !err; i++) {
		if (!u->q[i].online)
			continue;
		if (!spawn_locked(&u->q[i], false) || !spawn_locked(&u->q[i], false))
			err = -EAGAIN;
		else if (!host)
			host = &u->q[i];
	}
	if (!err && !host) {
		/* no CPU online as read: serve queue 0 as if it were */
		host = &u->q[0];
		host->online = true;
		if (!spawn_locked(host, false) || !spawn_locked(host, false))
			err = -EAGAIN;
	}
	if (!err)
		host->threads[0]->host = true;
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

/* An SQE of @t's ring, zeroed (128 bytes); @t's thread alone calls it.
 * What it gets goes to the kernel with the thread's next submission
 * (q_thread's, which waits in the same system call). */
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
	cmd->qid = (uint16_t)ent->q->qid;
	io_uring_sqe_set_data(sqe, ent);
	if (op == OFS_FUSE_IO_URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)ent->iov;
		sqe->len = 2;
	}
}

/* Register @ent on its thread's ring (from that thread), submitted with
 * the thread's next submission. A refusal comes back as a completion.
 * 0 or -errno. */
static int register_ent(struct ofs_tr_ent *ent)
{
	struct io_uring_sqe *sqe = sqe_get(ent->t);

	if (!sqe)
		return -EBUSY;
	ent->registering = true;
	sqe_cmd(sqe, ent, OFS_FUSE_IO_URING_CMD_REGISTER, 0);
	return 0;
}

/* One more entry on @t's ring, of queue @q (@t's own, or one it hosts),
 * registered. 0 or -errno. */
static int add_entry(struct tr_thread *t, struct tr_queue *q)
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
	ent->q = q;
	ent->h = (void *)mem;
	ent->payload = mem + ENT_GAP;
	ent->iov[0] = (struct iovec){ ent->h, sizeof(*ent->h) };
	ent->iov[1] = (struct iovec){ ent->payload, u->payload };
	ent->next = t->ents;
	t->ents = ent;
	if (q == t->q)
		atomic_fetch_add(&t->nents, 1);
	return register_ent(ent);
}

/* Commit the reply now in @ent and fetch its next request (from @ent's
 * thread): submitted with the thread's next submission, from when on the
 * entry is the kernel's (it may refill it at once). */
static void commit(struct ofs_tr_ent *ent, uint64_t unique)
{
	struct io_uring_sqe *sqe = sqe_get(ent->t);

	if (!sqe) {
		atomic_fetch_add(&ent->t->q->u->errors, 1);
		return;
	}
	sqe_cmd(sqe, ent, OFS_FUSE_IO_URING_CMD_COMMIT_AND_FETCH, unique);
}

/* Arm the poll of @t's eventfd (from @t's thread). */
static void arm_wake(struct tr_thread *t)
{
	struct io_uring_sqe *sqe = sqe_get(t);

	if (!sqe) {
		atomic_fetch_add(&t->q->u->errors, 1);
		return;
	}
	io_uring_prep_poll_add(sqe, t->efd, POLLIN);
	io_uring_sqe_set_data(sqe, &t->wake);
}

/* Tell @t's thread its mailbox has news (a reply, or leave). */
static void wake(struct tr_thread *t)
{
	uint64_t one = 1;

	/* fails only when the counter would overflow: it is read at
	 * every wake-up, so then a wake-up is due anyway */
	if (write(t->efd, &one, sizeof(one)) < 0)
		return;
}

/*
 * Have @ent's thread commit the reply written into it: posted in the
 * thread's mailbox, and the thread woken through its eventfd, whose poll
 * is in its ring. Committed from here, the entry would have this thread
 * for its submitter, and the kernel cancels it with this thread's exit
 * (a lock waiter's, right after its reply), the request it holds then
 * never answered; and the ring is its thread's alone. False once the
 * daemon stops (the thread may have left): the connection's end answers
 * the request then.
 */
static bool defer_commit(struct ofs_tr_ent *ent, uint64_t unique)
{
	struct tr_thread *t = ent->t;
	bool ok;

	pthread_mutex_lock(&t->mb_mu);
	ok = !t->leave;
	if (ok) {
		ent->unique = unique;
		ent->posted_next = t->posted;
		t->posted = ent;
	}
	pthread_mutex_unlock(&t->mb_mu);
	if (ok)
		wake(t);
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
		/* in serve, or a held request answered by a request its
		 * thread serves later (an unlock): committed here, and
		 * counted so */
		commit(ent, unique);
		err = 0;
		if (ent->held) {
			ent->held = false;
			if (ent->q == ent->t->q)
				held_committed(ent->t);
		} else {
			ent->own_reply = true;
		}
	} else {
		err = defer_commit(ent, unique) ? 0 : -ENOTCONN;
	}
	if (err || len < 0) {
		errno = err ? -err : EINVAL;
		return -1;
	}
	return len;
}

/* Hand @t's prepared commands to the kernel now (from @t's thread): before
 * a kick, whose request must find them registered or committed. */
static void flush(struct tr_thread *t)
{
	if (io_uring_submit(&t->ring) < 0)
		atomic_fetch_add(&t->q->u->errors, 1);
}

/* All of @q's threads are busy: start one more, which kicks @q once
 * registered when @kicks (a hold). False when it cannot (at max_threads,
 * stopping, out of memory). */
static bool add_thread(struct tr_queue *q, bool kicks)
{
	bool ok;

	pthread_mutex_lock(&q->u->mu);
	ok = spawn_locked(q, kicks);
	pthread_mutex_unlock(&q->u->mu);
	return ok;
}

/* A request came to an entry of offline queue @q (hosted): its CPU is
 * online now; it gets threads of its own, as an online one did. */
static void host_grow(struct tr_queue *q)
{
	pthread_mutex_lock(&q->u->mu);
	if (q->nthreads == 0 && spawn_locked(q, true))
		spawn_locked(q, true);
	pthread_mutex_unlock(&q->u->mu);
}

/*
 * The kicks in flight, process-wide (a kick thread may outlive the rings
 * it kicks: its statfs returns when /dev/fuse closes): each slot is 0
 * (free), -1 (taken, the thread not yet in statfs) or the kick thread's
 * id while its STATFS is out, so that kick_of knows it by the caller's
 * id. Freed by whoever is first: the answer (kick_done), or the thread
 * when its statfs returns unanswered (the connection ends), each by a
 * compare-and-swap from the id it saw, so neither frees a slot taken
 * again since.
 */
#define KICKS_MAX 64
static _Atomic int kick_tid[KICKS_MAX];

/* A kick's: its slot, its CPU, the mount's path (its own copy). */
struct kick_arg {
	unsigned slot, cpu;
	char path[];
};

/* Keep the calling thread on CPU @cpu. False when it may not run there
 * (it stays free then). */
static bool pin_to(unsigned cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return pthread_setaffinity_np(pthread_self(), sizeof(one), &one) == 0;
}

/* Free slot @slot if it still holds @tid. */
static void kick_free(unsigned slot, int tid)
{
	atomic_compare_exchange_strong(&kick_tid[slot], &tid, 0);
}

static void *kick_thread(void *arg)
{
	struct kick_arg *k = arg;
	struct statfs sf;
	int tid = -1;

	/* Pinned, this thread runs there when the call returns: the kernel
	 * queues its request on that CPU's queue. statfs of the mountpoint
	 * sends STATFS alone (the mount's root is reached without a lookup). */
	if (pin_to(k->cpu)) {
		tid = (int)gettid();
		atomic_store(&kick_tid[k->slot], tid);
		statfs(k->path, &sf);
	}
	kick_free(k->slot, tid);
	free(k);
	return NULL;
}

/* A free slot, taken (-1 in it); -1 when every slot is in use. */
static int kick_slot(void)
{
	for (int i = 0; i < KICKS_MAX; i++) {
		int zero = 0;

		if (atomic_compare_exchange_strong(&kick_tid[i], &zero, -1))
			return i;
	}
	return -1;
}

/*
 * Have a request queued on @q's CPU (see the top), whose commit fetches
 * one stranded there. A CPU the daemon may not run on is not kicked (nor
 * then do its callers run there); none once the daemon stops. With every
 * slot in use, the kick is owed to @q (kick_done starts it).
 */
static void kick(struct tr_queue *q)
{
	struct ofs_tr_uring *u = q->u;
	size_t len = u->mountpoint ? strlen(u->mountpoint) + 1 : 0;
	struct kick_arg *k;
	pthread_attr_t attr;
	pthread_t th;
	sigset_t old;
	bool stopping;
	int err, slot;

	pthread_mutex_lock(&u->mu);
	stopping = u->stopping;
	pthread_mutex_unlock(&u->mu);
	if (stopping || !len)
		return;
	slot = kick_slot();
	if (slot < 0) {
		atomic_store(&q->owed, true);
		return;
	}
	k = malloc(sizeof(*k) + len);
	if (!k) {
		atomic_store(&kick_tid[slot], 0);
		atomic_fetch_add(&u->errors, 1);
		return;
	}
	k->slot = (unsigned)slot;
	k->cpu = q->qid;
	memcpy(k->path, u->mountpoint, len);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ofs_sig_block_stop(&old);
	err = pthread_create(&th, &attr, kick_thread, k);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		free(k);
		atomic_store(&kick_tid[slot], 0);
		atomic_fetch_add(&u->errors, 1);
	}
}

/* The kick of slot @slot (by thread @tid) is answered: its slot is free,
 * and a kick owed to a queue starts in it. */
static void kick_done(struct ofs_tr_uring *u, unsigned slot, int tid)
{
	kick_free(slot, tid);
	for (unsigned i = 0; i < u->nq; i++)
		if (atomic_exchange(&u->q[i].owed, false)) {
			kick(&u->q[i]);
			break;
		}
}

/* The slot of the kick whose STATFS @in is, by its caller's id; -1 when
 * it is none. */
static int kick_of(const struct fuse_in_header *in)
{
	if (in->opcode != FUSE_STATFS || (int)in->pid <= 0)
		return -1;
	for (int i = 0; i < KICKS_MAX; i++)
		if (atomic_load(&kick_tid[i]) == (int)in->pid)
			return i;
	return -1;
}

/* Answer @ent's request when it is a kick, with nothing counted (it is no
 * request of a caller): true then, its commit fetching what waited. */
static bool answer_kick(struct ofs_tr_ent *ent)
{
	const struct fuse_in_header *in = (const void *)ent->h->in_out;
	struct ofs_tr_uring *u = ent->t->q->u;
	struct fuse_out_header oh = { sizeof(oh) + sizeof(struct fuse_statfs_out), 0, in->unique };
	struct fuse_statfs_out sf = { 0 };
	struct iovec o[2] = { { &oh, sizeof(oh) }, { &sf, sizeof(sf) } };
	uint64_t unique = in->unique;
	int slot = kick_of(in);

	if (slot < 0)
		return false;
	ofs_tr_uring_fill(ent->h, ent->payload, u->payload, o, 2);
	commit(ent, unique);
	kick_done(u, (unsigned)slot, (int)in->pid);
	return true;
}

/* Serve @ent's request. True when it is held: not answered yet, another
 * thread will (a lock waiter), and the entry stays out of the kernel's
 * hands until this thread commits it (take_mail). */
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
	/* Not answered here: another thread answers, and posts the entry
	 * for this thread to commit -- also when it answered already. */
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
	if (add_thread(t->q, true))
		return false;
	if (add_entry(t, t->q) != 0) {
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
		 * anew, or the queue loses it; a refused commit fetched
		 * nothing, and a registration fetches nothing either. */
		atomic_fetch_add(&u->errors, 1);
		refuse = true;
	}
	if (register_ent(ent) == 0 && refuse) {
		flush(ent->t);
		kick(ent->q);
	}
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
	t->ring_ok = !err;
	if (!err && u->pin && t->q->online)
		pin_to(t->q->qid);
	/* a stop from here on is seen by the eventfd's poll (it sets leave,
	 * then writes), a stop before it by the check above */
	if (!err) {
		arm_wake(t);
		err = add_entry(t, t->q);
	}
	/* the host: one entry for each offline CPU's queue, or the ring is
	 * never ready */
	for (unsigned i = 0; !err && t->host && i < u->nq; i++)
		if (!u->q[i].online)
			err = add_entry(t, &u->q[i]);
	if (err) {
		ofs_tr_uring_refused(u->tr, err);
		return false;
	}
	flush(t);
	if (t->kicks)
		kick(t->q);
	return true;
}

/* @t's eventfd's poll completed: commit the replies other threads posted
 * to it, and poll again. False: the daemon stops. */
static bool take_mail(struct tr_thread *t)
{
	struct ofs_tr_ent *ent, *next;
	uint64_t posts;
	bool leave;

	/* read first: a reply posted after the mailbox is emptied writes
	 * the eventfd again, and the poll armed below completes */
	if (read(t->efd, &posts, sizeof(posts)) < 0 && errno != EAGAIN)
		atomic_fetch_add(&t->q->u->errors, 1);
	pthread_mutex_lock(&t->mb_mu);
	ent = t->posted;
	t->posted = NULL;
	leave = t->leave;
	pthread_mutex_unlock(&t->mb_mu);
	for (; ent; ent = next) {
		next = ent->posted_next;
		/* the entry is back in the kernel's hands, and this thread
		 * idle again if it had no other there */
		commit(ent, ent->unique);
		ent->held = false;
		if (ent->q == t->q)
			held_committed(t);
	}
	if (leave) {
		flush(t);
		return false;
	}
	arm_wake(t);
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

		/* After a reply, for the poller's window, its commit handed
		 * over first: a request comes as task work, which the kernel
		 * runs when it interrupts this thread (the ring's default
		 * notification), so the completion appears in the ring as
		 * this thread looks. */
		err = -EAGAIN;
		if (p.until_ns) {
			flush(t);
			while ((err = io_uring_peek_cqe(&t->ring, &cqe)) == -EAGAIN &&
			       ofs_poller_spin(&p))
				;
		}
		/* Nothing polled: hand over what this thread prepared (the
		 * last reply's commit) and wait, in one system call. Task
		 * work (a request copied into one of this thread's entries)
		 * runs in here. */
		while (err) {
			res = io_uring_submit_and_wait(&t->ring, 1);
			if (res < 0 && res != -EINTR && res != -EAGAIN && res != -EBUSY)
				break;
			err = io_uring_peek_cqe(&t->ring, &cqe);
		}
		if (err) {
			atomic_fetch_add(&q->u->errors, 1);
			break;
		}
		ent = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&t->ring, cqe);
		if ((void *)ent == &t->wake) {
			if (!take_mail(t))
				break;
			continue;
		}
		if (res < 0) {
			ent_error(ent, res);
			continue;
		}
		ent->registering = false;
		ent->held = false;
		if (answer_kick(ent))
			continue;
		if (ent->q != q) {
			/* an offline CPU's queue, online now */
			host_grow(ent->q);
			ent->held = serve(ent);
			if (ent->held) {
				flush(t);
				kick(ent->q);
			}
			continue;
		}
		/* Fewer than two left idle: one more. A request the kernel
		 * queues while no entry of its queue is available waits for
		 * the next commit on that queue: a new entry's registration
		 * does not fetch it. So one thread stays idle, with an entry,
		 * while the next one starts. Started before this
		 * request is served, in its time (tens of us:
		 * docs/overhead.md#threading): serving it may block (a slow
		 * lower file system), and its queue needs the spare then. */
		if (idle_change(q, false) <= 2)
			add_thread(q, false);
		ofs_poller_took(&p);
		if (!serve(ent)) {
			idle_change(q, true);
			/* answered: its entry is back in the kernel's hands */
			ofs_poller_replied(&p);
			continue;
		}
		ent->held = true;
		if (held_leaves_idle(t))
			idle_change(q, true);
		/* whatever came while this queue had no entry available
		 * waits for a commit there */
		flush(t);
		kick(q);
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

			pthread_mutex_lock(&t->mb_mu);
			t->leave = true;
			pthread_mutex_unlock(&t->mb_mu);
			wake(t);
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
			pthread_mutex_destroy(&t->mb_mu);
			close(t->efd);
			free(t);
		}
		free(q->threads);
	}
	pthread_cond_destroy(&u->go_cv);
	pthread_mutex_destroy(&u->mu);
	free(u);
}

void ofs_tr_uring_stats(const struct ofs_tr_uring *u, unsigned *queues, uint64_t *errors,
			unsigned *held)
{
	struct ofs_tr_uring *w = (struct ofs_tr_uring *)u;
	int n = 0;

	*queues = u->nq;
	*errors = atomic_load(&w->errors);
	/* threads are added under mu, and never removed before free */
	pthread_mutex_lock(&w->mu);
	for (unsigned i = 0; i < u->nq; i++)
		for (unsigned k = 0; k < u->q[i].nthreads; k++)
			n += atomic_load(&u->q[i].threads[k]->held);
	pthread_mutex_unlock(&w->mu);
	*held = n > 0 ? (unsigned)n : 0;
}
