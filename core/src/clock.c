// SPDX-License-Identifier: MIT
/*
 * Clock selection and calibration. The TSC is used only when the CPU says
 * it is invariant (constant_tsc and nonstop_tsc in /proc/cpuinfo): then it
 * ticks at one rate on every CPU and across idle states, and a delta taken
 * on one CPU and finished on another still means elapsed time. Its rate is
 * measured against CLOCK_MONOTONIC over a short busy interval, several
 * times, keeping the median, and turned into a multiply-and-shift so the
 * recording path never divides or touches floating point.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/clock.h"

static const char *const source_names[] = {
	[OSP_CLOCK_TSC] = "tsc",
	[OSP_CLOCK_CNTVCT] = "cntvct",
	[OSP_CLOCK_MONOTONIC] = "monotonic",
};
_Static_assert(sizeof(source_names) / sizeof(source_names[0]) ==
		       OSP_CLOCK__COUNT,
	       "a name for every clock source");

const char *osp_clock_source_name(enum osp_clock_source src)
{
	return (unsigned)src < OSP_CLOCK__COUNT ? source_names[src] : "?";
}

void osp_clock_init_monotonic(struct osp_clock *clk)
{
	clk->source = OSP_CLOCK_MONOTONIC;
	clk->mult = 1;
	clk->shift = 0;
	clk->cycles_per_ns = 1.0;
}

#if defined(__x86_64__)
/* True when /proc/cpuinfo lists both flags that make the TSC invariant. */
static bool tsc_invariant(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[4096];
	bool ok = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
		break;
	}
	fclose(f);
	return ok;
}
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Counter ticks per ns, measured over a 4 ms busy wait, median of 5. */
static double measure_rate(const struct osp_clock *clk)
{
	double rates[5];

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = osp_clock_mono_ns(), c0 = osp_clock_read(clk);
		uint64_t t1, c1;

		do {
			t1 = osp_clock_mono_ns();
		} while (t1 - t0 < 4000000);
		c1 = osp_clock_read(clk);
		rates[i] = (double)(c1 - c0) / (double)(t1 - t0);
	}
	qsort(rates, 5, sizeof(rates[0]), cmp_double);
	return rates[2];
}

/*
 * Choose mult and shift so that (cyc * mult) >> shift == cyc / rate with
 * about 32 bits of precision in mult: the product is taken in 128 bits, so
 * any 64-bit delta converts without overflow.
 */
static void set_mult_shift(struct osp_clock *clk, double rate)
{
	double ns_per_cyc = 1.0 / rate;
	unsigned shift = 32;

	while (shift < 63 && ns_per_cyc * (double)(1ull << shift) < 4294967296.0)
		shift++;
	clk->shift = shift;
	clk->mult = (uint64_t)(ns_per_cyc * (double)(1ull << shift) + 0.5);
	clk->cycles_per_ns = rate;
}

int osp_clock_init(struct osp_clock *clk)
{
	const char *want = getenv("OSPROF_CLOCK");

	osp_clock_init_monotonic(clk);
	if (want && strcmp(want, "monotonic") == 0)
		return 0;
#if defined(__x86_64__)
	if (!tsc_invariant() && !(want && strcmp(want, "tsc") == 0))
		return 0;
	clk->source = OSP_CLOCK_TSC;
#elif defined(__aarch64__)
	clk->source = OSP_CLOCK_CNTVCT;
#else
	return 0;
#endif
	{
		double rate = measure_rate(clk);

		if (!(rate > 0.001 && rate < 1000.0)) {
			/* A counter that does not advance sanely: do not trust it. */
			osp_clock_init_monotonic(clk);
			return 0;
		}
		set_mult_shift(clk, rate);
	}
	return 0;
}
