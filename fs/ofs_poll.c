// SPDX-License-Identifier: MIT
/* One worker's polling after its reply (ofs_poll.h). */
#include <sched.h>

#include "osprof/clock.h"
#include "ofs_poll.h"

/* A request served in longer than this blocked (page-cache hits, lookups
 * and opens take 2-20 us; an O_DIRECT read here 100 us): its caller is
 * slow to come back, and others are likely blocked too. */
#define POLL_BLOCKED_NS 50000u
/*
 * A worker polls at its normal priority for this long, then at idle
 * priority: most gaps are shorter, and the two sched_setscheduler calls
 * per request cost more than they save (a warm grep under always took
 * 0.77x the time and 0.70x the daemon CPU without them).
 */
#define POLL_IDLE_AFTER_NS 30000u

static void set_policy(int policy)
{
	struct sched_param sp = { 0 };

	sched_setscheduler(0, policy, &sp);
}

static void normal_prio(struct ofs_poller *p)
{
	if (p->idle_prio) {
		set_policy(SCHED_OTHER);
		p->idle_prio = false;
	}
}

void ofs_poller_took(struct ofs_poller *p)
{
	normal_prio(p);
	p->until = 0;
	p->took = osp_clock_mono_ns();
	if (p->max_ns && p->replied)
		p->win = ofs_poll_adapt(p->win, p->took - p->replied, p->max_ns);
}

void ofs_poller_replied(struct ofs_poller *p)
{
	if (!p->max_ns)
		return;
	p->replied = osp_clock_mono_ns();
	p->until = p->replied - p->took > POLL_BLOCKED_NS ? 0 : p->replied + p->win;
}

bool ofs_poller_spin(struct ofs_poller *p)
{
	uint64_t now;

	if (p->until) {
		now = osp_clock_mono_ns();
		if (now < p->until) {
			if (!p->idle_prio && now - p->replied > POLL_IDLE_AFTER_NS) {
				set_policy(SCHED_IDLE);
				p->idle_prio = true;
			}
			return true;
		}
	}
	normal_prio(p);
	p->until = 0;
	return false;
}
