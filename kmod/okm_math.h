/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Pure arithmetic of osprof.ko: the log2 bucket index, the histogram
 * record and merge, the cycles-to-ns multiply-and-shift, the per-task
 * virtual clock behind pseudo_stop/pseudo_start, and a timer's interval
 * accounting. No kernel includes and no side effects, so the same code is
 * compiled into the module and unit-tested in user space
 * (tests/vm/test_okm_math.c). A kernel includer must have <linux/types.h>
 * (uint64_t, uint32_t, bool) in scope first; user space gets <stdint.h>.
 *
 * Nothing here is thread-safe: callers serialise (per-CPU data with
 * interrupts off, or a lock).
 */
#ifndef OKM_MATH_H
#define OKM_MATH_H

#ifndef __KERNEL__
#include <stdbool.h>
#include <stdint.h>
#endif

/* Buckets 0 .. 64: resolution 1 over the whole 64-bit range. */
#define OKM_NBUCKETS 65u

/*
 * okm_bucket_index - bucket of @v ns: 0 for v <= 1, else ceil(log2(v)),
 * i.e. 64 - clz(v - 1), so bucket i covers (2^(i-1), 2^i] ns. Identical
 * to core's osp_bucket_index(v, 1) (DESIGN.md "Units and buckets").
 */
static inline unsigned int okm_bucket_index(uint64_t v)
{
	if (v <= 1)
		return 0;
	return 64u - (unsigned int)__builtin_clzll((unsigned long long)(v - 1));
}

/* A log2 histogram of ns values with its count, sum, min and max. */
struct okm_hist {
	uint64_t count;                  /* values recorded */
	uint64_t sum_ns;                 /* their sum (wraps after 584 years) */
	uint64_t min_ns;                 /* smallest, 0 when empty */
	uint64_t max_ns;                 /* largest, 0 when empty */
	uint64_t buckets[OKM_NBUCKETS];  /* buckets[i]: values in bucket i */
};

static inline void okm_hist_record(struct okm_hist *h, uint64_t v_ns)
{
	h->buckets[okm_bucket_index(v_ns)]++;
	if (h->count == 0 || v_ns < h->min_ns)
		h->min_ns = v_ns;
	if (v_ns > h->max_ns)
		h->max_ns = v_ns;
	h->count++;
	h->sum_ns += v_ns;
}

/* Add @src into @dst (min and max only from non-empty histograms). */
static inline void okm_hist_merge(struct okm_hist *dst,
				  const struct okm_hist *src)
{
	unsigned int i;

	if (src->count == 0)
		return;
	for (i = 0; i < OKM_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (dst->count == 0 || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
}

/* Sum of the buckets: equals count when the histogram is consistent. */
static inline uint64_t okm_hist_bucket_total(const struct okm_hist *h)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < OKM_NBUCKETS; i++)
		n += h->buckets[i];
	return n;
}

/*
 * Cycles to ns: ns = (cyc * mult) >> shift, computed without a 128-bit
 * type by splitting cyc into 32-bit halves, so it is exact for every
 * 64-bit cyc whose result fits in 64 bits.
 */
struct okm_cyc2ns {
	uint32_t mult;  /* ns per cycle, scaled by 2^shift */
	uint32_t shift; /* 0 .. 32 */
};

/*
 * okm_cyc2ns_init - conversion for a counter running at @khz kHz.
 * Picks the largest shift (most precision) whose mult fits in 32 bits.
 * Returns 0, or -1 when @khz is 0 (no usable rate; @c is then the
 * identity, mult 1 shift 0).
 */
static inline int okm_cyc2ns_init(struct okm_cyc2ns *c, uint64_t khz)
{
	uint32_t shift;

	c->mult = 1;
	c->shift = 0;
	if (khz == 0)
		return -1;
	for (shift = 32; shift > 0; shift--) {
		/* 10^6 ns per ms; cycles per ms = khz */
		uint64_t m = ((uint64_t)1000000u << shift) / khz;

		if (m > 0 && m <= 0xffffffffu) {
			c->mult = (uint32_t)m;
			c->shift = shift;
			return 0;
		}
	}
	c->mult = (uint32_t)(1000000u / khz ? 1000000u / khz : 1u);
	return 0;
}

static inline uint64_t okm_cyc2ns(const struct okm_cyc2ns *c, uint64_t cyc)
{
	uint64_t hi = cyc >> 32, lo = cyc & 0xffffffffu;
	uint64_t lo_ns = (lo * c->mult) >> c->shift;
	uint64_t hi_ns;

	if (c->shift == 32)
		hi_ns = hi * c->mult;
	else
		hi_ns = (hi * c->mult) << (32 - c->shift);
	return hi_ns + lo_ns;
}

/*
 * The virtual clock of one task: it advances only while the task runs on
 * a CPU outside interrupt handlers. pseudo_stop (okm_vclock_pause) freezes
 * it when the task is switched out or an interrupt arrives at top level;
 * pseudo_start (okm_vclock_resume) restarts it. The time spent paused is
 * added to excl_cyc[reason], so a timer can tell how much was excluded and
 * why. Pausing a paused clock or resuming a running one does nothing,
 * which makes unbalanced calls (a probe registered mid-interrupt) harmless.
 */
enum okm_excl {
	OKM_EXCL_SCHED, /* switched out */
	OKM_EXCL_IRQ,   /* in a hard or soft interrupt handler */
	OKM_EXCL__COUNT
};

struct okm_vclock {
	uint64_t acc_cyc;                 /* virtual time up to run_start */
	uint64_t run_start_cyc;           /* start of the current run */
	uint64_t pause_start_cyc;         /* start of the current pause */
	uint64_t excl_cyc[OKM_EXCL__COUNT]; /* time paused, by reason */
	bool running;                     /* false while paused */
	uint8_t paused_by;                /* enum okm_excl, while paused */
};

static inline void okm_vclock_init(struct okm_vclock *vc, uint64_t now)
{
	unsigned int i;

	vc->acc_cyc = 0;
	vc->run_start_cyc = now;
	vc->pause_start_cyc = now;
	for (i = 0; i < OKM_EXCL__COUNT; i++)
		vc->excl_cyc[i] = 0;
	vc->running = true;
	vc->paused_by = OKM_EXCL_SCHED;
}

/* Elapsed from @from to @to, 0 when the clock went backwards. */
static inline uint64_t okm_elapsed(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

/* pseudo_stop: freeze the virtual clock at @now because of @why. */
static inline void okm_vclock_pause(struct okm_vclock *vc, uint64_t now,
				    enum okm_excl why)
{
	if (!vc->running)
		return;
	vc->acc_cyc += okm_elapsed(vc->run_start_cyc, now);
	vc->pause_start_cyc = now;
	vc->paused_by = (uint8_t)why;
	vc->running = false;
}

/* pseudo_start: let the virtual clock run again from @now. */
static inline void okm_vclock_resume(struct okm_vclock *vc, uint64_t now)
{
	if (vc->running)
		return;
	if (vc->paused_by < OKM_EXCL__COUNT)
		vc->excl_cyc[vc->paused_by] +=
			okm_elapsed(vc->pause_start_cyc, now);
	vc->run_start_cyc = now;
	vc->running = true;
}

/* The virtual clock's reading at @now. */
static inline uint64_t okm_vclock_read(const struct okm_vclock *vc,
				       uint64_t now)
{
	if (!vc->running)
		return vc->acc_cyc;
	return vc->acc_cyc + okm_elapsed(vc->run_start_cyc, now);
}

/*
 * A timer's accounting. @clk is the clock the timer runs on: the physical
 * counter, or its task's virtual clock; @excl the clock's exclusion totals
 * (all zero for physical timers) so a stop can say what was left out.
 */
struct okm_tacct {
	uint64_t total_cyc;                   /* sum of finished intervals */
	uint64_t intervals;                   /* number of finished intervals */
	uint64_t last_cyc;                    /* the last finished interval */
	uint64_t start_cyc;                   /* clk at start, while running */
	uint64_t excl_start[OKM_EXCL__COUNT]; /* excl at start */
	uint64_t excl_total[OKM_EXCL__COUNT]; /* excluded in finished intervals */
	bool running;
};

static inline void okm_tacct_clear(struct okm_tacct *t)
{
	unsigned int i;

	t->total_cyc = 0;
	t->intervals = 0;
	t->last_cyc = 0;
	t->start_cyc = 0;
	for (i = 0; i < OKM_EXCL__COUNT; i++) {
		t->excl_start[i] = 0;
		t->excl_total[i] = 0;
	}
	t->running = false;
}

/* Start an interval at @clk. False (nothing changed) if already running. */
static inline bool okm_tacct_start(struct okm_tacct *t, uint64_t clk,
				   const uint64_t *excl)
{
	unsigned int i;

	if (t->running)
		return false;
	t->start_cyc = clk;
	for (i = 0; i < OKM_EXCL__COUNT; i++)
		t->excl_start[i] = excl[i];
	t->running = true;
	return true;
}

/* End the interval at @clk. False (nothing changed) if not running. */
static inline bool okm_tacct_stop(struct okm_tacct *t, uint64_t clk,
				  const uint64_t *excl)
{
	unsigned int i;

	if (!t->running)
		return false;
	t->last_cyc = okm_elapsed(t->start_cyc, clk);
	t->total_cyc += t->last_cyc;
	t->intervals++;
	for (i = 0; i < OKM_EXCL__COUNT; i++)
		t->excl_total[i] += okm_elapsed(t->excl_start[i], excl[i]);
	t->running = false;
	return true;
}

/*
 * Totals as of @clk: finished intervals plus, when @live and the timer
 * runs, the interval in progress (not counted in *intervals). @excl may be
 * NULL when !live.
 */
static inline void okm_tacct_read(const struct okm_tacct *t, bool live,
				  uint64_t clk, const uint64_t *excl,
				  uint64_t *total_cyc, uint64_t *excl_cyc)
{
	unsigned int i;

	*total_cyc = t->total_cyc;
	for (i = 0; i < OKM_EXCL__COUNT; i++)
		excl_cyc[i] = t->excl_total[i];
	if (!live || !t->running)
		return;
	*total_cyc += okm_elapsed(t->start_cyc, clk);
	for (i = 0; i < OKM_EXCL__COUNT; i++)
		excl_cyc[i] += okm_elapsed(t->excl_start[i], excl[i]);
}

#endif /* OKM_MATH_H */
