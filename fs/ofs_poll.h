/* SPDX-License-Identifier: MIT */
/*
 * A worker's polling after its reply (fs/ofs_loop.c on /dev/fuse, the
 * io_uring threads of fs/ofs_tr_uring.c): the window rule, apart so that
 * it can be tested on its own -- KVM's halt-polling grow and shrink
 * (virt/kvm/kvm_main.c), applied to the time a worker waited from its
 * reply to its next request -- and the state of one worker's polling.
 */
#ifndef OFS_POLL_H
#define OFS_POLL_H

#include <stdbool.h>
#include <stdint.h>

/* The first window after a gap the window missed by little. */
#define OFS_POLL_GROW_NS 10000u

/*
 * ofs_poll_adapt - the next window of a worker whose window was @win ns
 * and whose last gap was @gap_ns, polling at most @max_ns: kept when the
 * gap was caught (gap <= win), halved (to 0 below OFS_POLL_GROW_NS) when
 * the gap was past @max_ns, else doubled (from OFS_POLL_GROW_NS), never
 * past @max_ns.
 */
static inline uint64_t ofs_poll_adapt(uint64_t win, uint64_t gap_ns, uint64_t max_ns)
{
	if (gap_ns <= win)
		return win;
	if (gap_ns > max_ns)
		return win / 2 < OFS_POLL_GROW_NS ? 0 : win / 2;
	if (win == 0)
		return OFS_POLL_GROW_NS < max_ns ? OFS_POLL_GROW_NS : max_ns;
	return win * 2 < max_ns ? win * 2 : max_ns;
}

/* A poller polls at its normal priority for this long, then, when it may
 * (may_idle), at idle priority (ofs_poll.c says why). */
#define OFS_POLL_IDLE_AFTER_NS 30000u

/*
 * One thread's polling (ofs_poll.c), not shared between threads: it
 * polls for its window after each reply, unless the request blocked.
 * With may_idle, past its first OFS_POLL_IDLE_AFTER_NS at idle priority
 * (SCHED_IDLE: the scheduler then counts the CPU idle when it places a
 * waking task and preempts the poller at once); a request taken is
 * served at the normal priority. Zeroed, with max_ns 0, it never polls.
 */
struct ofs_poller {
	uint64_t max_ns;      /* the window at most (-o poll_us); 0: never */
	uint64_t win_ns;      /* the window now */
	uint64_t until_ns;    /* polling until then; 0: not polling */
	uint64_t replied_ns;  /* the last reply (0: none yet) */
	uint64_t took_ns;     /* when the request in hand was taken */
	bool may_idle;        /* it may poll at idle priority (ofs_poll_may_idle) */
	bool idle_prio;
};

/*
 * ofs_poll_may_idle - whether this process may poll at idle priority:
 * whether it can leave SCHED_IDLE again, which takes CAP_SYS_NICE or an
 * RLIMIT_NICE of 20 (an unprivileged thread would stay idle for good).
 * ofs_poll_may_idle_with says it of a process with CAP_SYS_NICE or not
 * (@cap_sys_nice) and a soft RLIMIT_NICE of @nice_lim.
 */
bool ofs_poll_may_idle(void);
bool ofs_poll_may_idle_with(bool cap_sys_nice, uint64_t nice_lim);

/* A request was taken: back at the normal priority, the window adapted
 * to the gap since the last reply. */
void ofs_poller_took(struct ofs_poller *p);
/* Its reply is out: poll for the window from now, unless it blocked. */
void ofs_poller_replied(struct ofs_poller *p);
/* Nothing to take: true while the window lasts (poll again), false
 * once it has ended (then wait), the priority normal again. */
bool ofs_poller_spin(struct ofs_poller *p);

#endif
