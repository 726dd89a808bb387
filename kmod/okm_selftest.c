// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/osprof/selftest: the Virtual Timers paper's Table I for this
 * machine. Each read runs start and stop of a private virtual and of a
 * global physical timer (through the same code as the exported API), and
 * pseudo_stop/pseudo_start of the reader's own virtual clock, OKM_ST_N
 * times each, and prints the median cost in CPU cycles (TSC), measured
 * with an ordered cycle-counter read on either side. clock_read is the
 * cost of those two reads alone, included in every other figure. Under
 * an emulator (QEMU TCG) the cycles are emulated and say little.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
#endif

#include "okm.h"

#define OKM_ST_N 1001

enum okm_st {
	OKM_ST_START_V,
	OKM_ST_STOP_V,
	OKM_ST_START_P,
	OKM_ST_STOP_P,
	OKM_ST_PSEUDO_START,
	OKM_ST_PSEUDO_STOP,
	OKM_ST_CLOCK,
	OKM_ST__COUNT
};

static const char *const okm_st_labels[] = {
	[OKM_ST_START_V] = "op=start kind=virtual",
	[OKM_ST_STOP_V] = "op=stop kind=virtual",
	[OKM_ST_START_P] = "op=start kind=physical",
	[OKM_ST_STOP_P] = "op=stop kind=physical",
	[OKM_ST_PSEUDO_START] = "op=pseudo_start",
	[OKM_ST_PSEUDO_STOP] = "op=pseudo_stop",
	[OKM_ST_CLOCK] = "op=clock_read",
};
static_assert(ARRAY_SIZE(okm_st_labels) == OKM_ST__COUNT);

static inline u64 okm_st_cycles(void)
{
#ifdef CONFIG_X86
	return rdtsc_ordered();
#else
	return get_cycles();
#endif
}

static int okm_st_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u32 okm_st_clamp(u64 d)
{
	return d > U32_MAX ? U32_MAX : (u32)d;
}

/* One start and stop of timer @id: the cost of each into @start, @stop. */
static void okm_st_timer(struct okm_vt_owner *o, int id, u32 *start, u32 *stop)
{
	u64 c0, c1, c2;

	c0 = okm_st_cycles();
	okm_vt_do_start(o, id);
	c1 = okm_st_cycles();
	okm_vt_do_stop(o, id, NULL);
	c2 = okm_st_cycles();
	*start = okm_st_clamp(c1 - c0);
	*stop = okm_st_clamp(c2 - c1);
}

static void okm_st_run(u32 (*s)[OKM_ST_N], struct okm_vt_owner *o, int vid,
		       int pid, struct okm_task *task)
{
	unsigned long flags;
	u64 c0, c1, c2;
	int i;

	for (i = 0; i < OKM_ST_N; i++) {
		okm_st_timer(o, vid, &s[OKM_ST_START_V][i], &s[OKM_ST_STOP_V][i]);
		okm_st_timer(o, pid, &s[OKM_ST_START_P][i], &s[OKM_ST_STOP_P][i]);

		/* as on a switch: interrupts off, clock read included */
		local_irq_save(flags);
		c0 = okm_st_cycles();
		okm_task_pseudo_stop(task, okm_now(), OKM_EXCL_SCHED);
		c1 = okm_st_cycles();
		okm_task_pseudo_start(task, okm_now());
		c2 = okm_st_cycles();
		local_irq_restore(flags);
		s[OKM_ST_PSEUDO_STOP][i] = okm_st_clamp(c1 - c0);
		s[OKM_ST_PSEUDO_START][i] = okm_st_clamp(c2 - c1);

		c0 = okm_st_cycles();
		c1 = okm_st_cycles();
		s[OKM_ST_CLOCK][i] = okm_st_clamp(c1 - c0);
		if (i % 64 == 0)
			cond_resched();
	}
}

int okm_selftest_show(struct seq_file *m, void *v)
{
	struct okm_vt_owner o;
	u32 (*s)[OKM_ST_N];
	struct okm_task *task;
	int vid, pid, k, ret = 0;

	s = kvmalloc_array(OKM_ST__COUNT, sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	okm_vt_owner_init(&o);
	vid = okm_vt_do_alloc(&o, "selftest.virtual", OKM_VT_VIRTUAL,
			      OKM_VT_PRIVATE);
	pid = okm_vt_do_alloc(&o, "selftest.physical", OKM_VT_PHYSICAL,
			      OKM_VT_GLOBAL);
	task = okm_task_current();
	if (vid < 0 || pid < 0 || !task) {
		ret = vid < 0 ? vid : pid < 0 ? pid : -ENOMEM;
		goto out;
	}
	okm_st_run(s, &o, vid, pid, task);
	seq_printf(m, "clock=%s samples=%d unit=cycles\n", okm_clock_name(),
		   OKM_ST_N);
	for (k = 0; k < OKM_ST__COUNT; k++) {
		sort(s[k], OKM_ST_N, sizeof(u32), okm_st_cmp, NULL);
		seq_printf(m, "%s median_cycles=%u\n", okm_st_labels[k],
			   s[k][OKM_ST_N / 2]);
	}
out:
	okm_vt_owner_release(&o);
	kvfree(s);
	return ret;
}
