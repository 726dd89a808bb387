// SPDX-License-Identifier: MIT
/* One thread's polling after its reply (ofs_poll.h). */
#include <sched.h>
#include <sys/resource.h>

#include "osprof/clock.h"
#include "ofs_cap.h"
#include "ofs_poll.h"

/* A request served in longer than this blocked (it went to the disk, not
 * the caches: docs/overhead.md#threading has the times of each): its
 * caller is slow to come back, and others are likely blocked too. */
#define POLL_BLOCKED_NS 50000u
/*
 * Why OFS_POLL_IDLE_AFTER_NS at the normal priority first: most gaps are
 * shorter, and the two sched_setscheduler calls per request would cost
 * more than they save (docs/overhead.md#threading).
 */

bool ofs_poll_may_idle_with(bool cap_sys_nice, uint64_t nice_lim)
{
	return cap_sys_nice || nice_lim >= 20;
}

bool ofs_poll_may_idle(void)
{
	struct rlimit rl = { 0, 0 };

	if (getrlimit(RLIMIT_NICE, &rl) != 0)
		rl.rlim_cur = 0;
	return ofs_poll_may_idle_with(ofs_cap_effective(CAP_SYS_NICE), (uint64_t)rl.rlim_cur);
}

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
	p->until_ns = 0;
	p->took_ns = osp_clock_mono_ns();
	if (p->max_ns && p->replied_ns)
		p->win_ns = ofs_poll_adapt(p->win_ns, p->took_ns - p->replied_ns, p->max_ns);
}

void ofs_poller_replied(struct ofs_poller *p)
{
	if (!p->max_ns)
		return;
	p->replied_ns = osp_clock_mono_ns();
	p->until_ns = p->replied_ns - p->took_ns > POLL_BLOCKED_NS ? 0 : p->replied_ns + p->win_ns;
}

bool ofs_poller_spin(struct ofs_poller *p)
{
	uint64_t now;

	if (p->until_ns) {
		now = osp_clock_mono_ns();
		if (now < p->until_ns) {
			if (p->may_idle && !p->idle_prio &&
			    now - p->replied_ns > OFS_POLL_IDLE_AFTER_NS) {
				set_policy(SCHED_IDLE);
				p->idle_prio = true;
			}
			return true;
		}
	}
	normal_prio(p);
	p->until_ns = 0;
	return false;
}
