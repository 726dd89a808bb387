// SPDX-License-Identifier: MIT
/*
 * The polling loop's window rule on its own (fs/ofs_poll.h): each worker's
 * window follows the gaps between its reply and its next request, as KVM's
 * halt-polling does, so that a mount whose requests are far apart stops
 * polling and a tight flow polls just past its gaps.
 */
#include <criterion/criterion.h>

#include "ofs_poll.h"

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
