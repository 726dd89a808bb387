/* SPDX-License-Identifier: MIT */
/*
 * The profiling clock: the CPU's cycle counter (TSC on x86-64, CNTVCT on
 * arm64), calibrated once against CLOCK_MONOTONIC into a multiply-and-shift
 * that turns cycle deltas into nanoseconds. Where no usable counter exists
 * (no invariant TSC, another architecture, or OSPROF_CLOCK=monotonic in the
 * environment) the "cycles" are CLOCK_MONOTONIC nanoseconds and the
 * conversion is the identity.
 *
 * A clock is a small value object: initialise it once, share it read-only
 * between threads. Every profile records which clock it was taken with.
 */
#ifndef OSPROF_CLOCK_H
#define OSPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

enum osp_clock_source {
	OSP_CLOCK_TSC,       /* x86-64 rdtsc, invariant TSC required */
	OSP_CLOCK_CNTVCT,    /* arm64 virtual counter */
	OSP_CLOCK_MONOTONIC, /* clock_gettime(CLOCK_MONOTONIC), in ns */
	OSP_CLOCK__COUNT
};

struct osp_clock {
	enum osp_clock_source source;
	uint64_t mult;        /* ns = (cyc * mult) >> shift */
	unsigned shift;
	double cycles_per_ns; /* the calibrated rate, as profiles record it */
};

/* "tsc", "cntvct" or "monotonic". */
const char *osp_clock_source_name(enum osp_clock_source src);

/*
 * osp_clock_init - choose and calibrate the clock.
 * Honours OSPROF_CLOCK=tsc|monotonic from the environment. Calibration
 * takes about 20 ms. Always succeeds (falls back to CLOCK_MONOTONIC); the
 * return value is 0.
 */
int osp_clock_init(struct osp_clock *clk);

/* Initialise @clk as CLOCK_MONOTONIC in ns (no calibration). */
void osp_clock_init_monotonic(struct osp_clock *clk);

static inline uint64_t osp_clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Wall-clock time in ns since the epoch (profiles' start_unix_ns). */
static inline uint64_t osp_clock_unix_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Read the clock's counter: cycles, or ns for OSP_CLOCK_MONOTONIC. */
static inline uint64_t osp_clock_read(const struct osp_clock *clk)
{
#if defined(__x86_64__)
	if (clk->source == OSP_CLOCK_TSC) {
		uint32_t lo, hi;

		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		return ((uint64_t)hi << 32) | lo;
	}
#elif defined(__aarch64__)
	if (clk->source == OSP_CLOCK_CNTVCT) {
		uint64_t v;

		__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	return osp_clock_mono_ns();
}

/* Convert a counter delta to ns (exact 128-bit multiply, no overflow). */
static inline uint64_t osp_clock_to_ns(const struct osp_clock *clk,
				       uint64_t cyc)
{
	return (uint64_t)(((unsigned __int128)cyc * clk->mult) >> clk->shift);
}

#endif /* OSPROF_CLOCK_H */
