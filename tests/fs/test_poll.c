// SPDX-License-Identifier: MIT
/*
 * The polling loop's window rule on its own (fs/ofs_poll.h): each worker's
 * window follows the gaps between its reply and its next request, as KVM's
 * halt-polling does, so that a mount whose requests are far apart stops
 * polling and a tight flow polls just past its gaps. Then one worker's
 * polling (ofs_poll.c), which /dev/fuse's workers and the io_uring
 * threads share: when it polls, at which priority, and when not.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <time.h>

#include "ofs_poll.h"
#include "osprof/clock.h"

#define US 1000u
#define MAX (200 * US)

Test(poll, a_caught_gap_keeps_the_window)
{
	cr_expect_eq(ofs_poll_adapt(40 * US, 40 * US, MAX), 40 * US);
	cr_expect_eq(ofs_poll_adapt(40 * US, 3 * US, MAX), 40 * US);
	cr_expect_eq(ofs_poll_adapt(0, 0, MAX), 0);
}

Test(poll, a_gap_missed_within_the_bound_grows_the_window)
{
	cr_expect_eq(ofs_poll_adapt(0, 1 * US, MAX), OFS_POLL_GROW_NS);
	cr_expect_eq(ofs_poll_adapt(10 * US, 15 * US, MAX), 20 * US);
	cr_expect_eq(ofs_poll_adapt(160 * US, 190 * US, MAX), MAX, "capped at the bound");
	cr_expect_eq(ofs_poll_adapt(0, 3 * US, 5 * US), 5 * US, "a bound under the first step");
}

Test(poll, a_gap_past_the_bound_shrinks_the_window_to_zero)
{
	cr_expect_eq(ofs_poll_adapt(MAX, MAX + 1, MAX), MAX / 2);
	cr_expect_eq(ofs_poll_adapt(20 * US, 1000 * US, MAX), 10 * US);
	cr_expect_eq(ofs_poll_adapt(15 * US, 1000 * US, MAX), 0, "below the first step");
	cr_expect_eq(ofs_poll_adapt(0, 1000 * US, MAX), 0);
}

/* A flow of 30 us gaps settles on a window that catches them, and idling
 * (gaps of a second) takes it back to 0 within a few requests. */
Test(poll, windows_settle_on_the_flow_and_leave_at_idle)
{
	uint64_t w = 0;
	int n;

	for (n = 0; n < 10; n++)
		w = ofs_poll_adapt(w, 30 * US, MAX);
	cr_expect_geq(w, 30 * US);
	cr_expect_leq(w, 80 * US);
	for (n = 0; w && n < 10; n++)
		w = ofs_poll_adapt(w, 1000000 * US, MAX);
	cr_expect_eq(w, 0);
	cr_expect_leq(n, 3);
}

/* ---- one worker's polling (ofs_poll.c), on the real clock ---- */

/* Busy for @us (a sleep would overshoot by the timer slack, 50 us). */
static void busy_us(uint64_t us)
{
	uint64_t end = osp_clock_mono_ns() + us * 1000;

	while (osp_clock_mono_ns() < end)
		;
}

Test(poller, a_zeroed_poller_never_polls)
{
	struct ofs_poller p = { 0 };

	ofs_poller_took(&p);
	ofs_poller_replied(&p);
	cr_expect_eq(p.until_ns, 0);
	cr_expect_not(ofs_poller_spin(&p));
}

/* With a window, a reply starts polling until the window ends, past its
 * first 30 us at idle priority; then back to the normal one. */
Test(poller, polls_for_its_window_then_waits_at_normal_priority)
{
	struct ofs_poller p = { .max_ns = 10000000ull * US, .win_ns = 1000000ull * US, .may_idle = true };

	ofs_poller_took(&p);
	ofs_poller_replied(&p);
	cr_assert_eq(p.until_ns, p.replied_ns + 1000000ull * US);
	busy_us(40);
	cr_expect(ofs_poller_spin(&p), "within the window");
	cr_expect_eq(sched_getscheduler(0), SCHED_IDLE, "past 30 us: idle priority");
	p.until_ns = osp_clock_mono_ns() - 1; /* as if the window had passed */
	cr_expect_not(ofs_poller_spin(&p), "the window is over");
	cr_expect_eq(p.until_ns, 0);
	cr_expect_eq(sched_getscheduler(0), SCHED_OTHER);
}

/* A request that took over 50 us blocked: no polling after it. */
Test(poller, no_polling_after_a_request_that_blocked)
{
	struct ofs_poller p = { .max_ns = MAX, .win_ns = MAX };

	ofs_poller_took(&p);
	busy_us(60);
	ofs_poller_replied(&p);
	cr_expect_eq(p.until_ns, 0);
	cr_expect_not(ofs_poller_spin(&p));
}

/* A request taken while polling at idle priority is served at the
 * normal one, and the window follows the gap since the reply: past the
 * window, within the bound, doubled. */
Test(poller, a_request_taken_restores_priority_and_adapts_the_window)
{
	struct ofs_poller p = { .max_ns = 10000000ull * US, .win_ns = 10 * US, .may_idle = true };

	ofs_poller_took(&p);
	ofs_poller_replied(&p);
	p.until_ns = osp_clock_mono_ns() + 1000000ull * US; /* still polling */
	busy_us(40);
	cr_assert(ofs_poller_spin(&p));
	cr_assert_eq(sched_getscheduler(0), SCHED_IDLE);
	ofs_poller_took(&p);
	cr_expect_eq(sched_getscheduler(0), SCHED_OTHER);
	cr_expect_eq(p.until_ns, 0);
	cr_expect_eq(p.win_ns, 20 * US, "a gap past the window but within the bound doubles it");
}

/* Without may_idle (io_uring's poller; a process that could not come
 * back from SCHED_IDLE) it polls at the normal priority throughout. */
Test(poller, without_may_idle_it_polls_at_the_normal_priority)
{
	struct ofs_poller p = { .max_ns = 10000000ull * US, .win_ns = 1000000ull * US };

	ofs_poller_took(&p);
	ofs_poller_replied(&p);
	busy_us(40);
	cr_expect(ofs_poller_spin(&p), "within the window");
	cr_expect_eq(sched_getscheduler(0), SCHED_OTHER);
}

/* Idle priority only for a process that can leave it: CAP_SYS_NICE or
 * an RLIMIT_NICE of 20; this test runs as root, which has it. */
Test(poller, idle_priority_only_when_it_can_be_left)
{
	cr_expect(ofs_poll_may_idle_with(true, 0));
	cr_expect(ofs_poll_may_idle_with(false, 20));
	cr_expect_not(ofs_poll_may_idle_with(false, 0), "an unprivileged default");
	cr_expect_not(ofs_poll_may_idle_with(false, 19));
	cr_expect(ofs_poll_may_idle(), "root: CAP_SYS_NICE");
}
