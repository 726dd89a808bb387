// SPDX-License-Identifier: MIT
/* The calibrated clock agrees with CLOCK_MONOTONIC; conversions are exact. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <time.h>

#include "osprof/clock.h"

Test(clock, calibrated_clock_tracks_monotonic)
{
	struct osp_clock clk;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	uint64_t c0, c1, t0, t1;
	double ratio;

	cr_assert_eq(osp_clock_init(&clk), 0);
	cr_expect_gt(clk.cycles_per_ns, 0.0);
	t0 = osp_clock_mono_ns();
	c0 = osp_clock_read(&clk);
	nanosleep(&ts, NULL);
	c1 = osp_clock_read(&clk);
	t1 = osp_clock_mono_ns();
	ratio = (double)osp_clock_to_ns(&clk, c1 - c0) / (double)(t1 - t0);
	/* The cycle interval lies inside the monotonic one: within 1%. */
	cr_expect(ratio > 0.99 && ratio <= 1.001, "ratio %f (%s)", ratio,
		  osp_clock_source_name(clk.source));
}

Test(clock, conversion_does_not_overflow)
{
	struct osp_clock clk = { .source = OSP_CLOCK_TSC };
	uint64_t day_cyc = 3ull * 86400 * 1000000000ull;

	/* 3 cycles per ns: mult = 2^34 / 3, shift 34. */
	clk.shift = 34;
	clk.mult = (1ull << 34) / 3 + 1;
	clk.cycles_per_ns = 3.0;
	cr_expect_eq(osp_clock_to_ns(&clk, 3000), 1000);
	cr_expect_eq(osp_clock_to_ns(&clk, day_cyc) / 1000000000ull, 86400);
}

Test(clock, environment_forces_monotonic)
{
	struct osp_clock clk;

	setenv("OSPROF_CLOCK", "monotonic", 1);
	osp_clock_init(&clk);
	cr_expect_eq(clk.source, OSP_CLOCK_MONOTONIC);
	cr_expect_str_eq(osp_clock_source_name(clk.source), "monotonic");
	cr_expect_eq(osp_clock_to_ns(&clk, 123456789), 123456789);
	cr_expect_str_eq(osp_clock_source_name(OSP_CLOCK__COUNT), "?");
	unsetenv("OSPROF_CLOCK");
}
