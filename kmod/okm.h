/* SPDX-License-Identifier: GPL-2.0 */
/*
 * osprof.ko's private header: what the module's files share. One file per
 * concern:
 *   okm_main.c     init and exit order, module parameters
 *   okm_clock.c    the clock (TSC when the kernel trusts it, else ktime)
 *   okm_cell.c     per-CPU histogram cells, their reader, the hist text
 *   okm_task.c     per-task virtual clocks: preempt notifiers, interrupt
 *                  pseudo_stop/pseudo_start, release at task exit
 *   okm_vtimer.c   virtual timers and their exported API
 *   okm_dev.c      /dev/osprof_vt
 *   okm_lower.c    VFS-level latency of registered processes (kretprobes)
 *   okm_block.c    block request latency (block tracepoints)
 *   okm_irq.c      interrupt handler durations (irq tracepoints)
 *   okm_pmc.c      per-CPU performance counters read around handlers
 *   okm_tp.c       finding and registering unexported tracepoints
 *   okm_proc.c     /proc/osprof/ files
 *   okm_ctl.c      /proc/osprof/ctl commands
 *   okm_selftest.c /proc/osprof/selftest
 * Pure arithmetic lives in okm_math.h (unit-tested in user space).
 */
#ifndef OKM_H
#define OKM_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/seqlock.h>
#include <linux/timex.h>
#include <linux/ktime.h>

#include "okm_math.h"
#include "osprof_vt.h"

struct seq_file;
struct task_struct;
struct tracepoint;

/* ---- layers and their switches (okm_ctl.c) ---- */

enum okm_layer {
	OKM_LAYER_LOWER,
	OKM_LAYER_BLOCK,
	OKM_LAYER_IRQ,
	OKM_LAYER__COUNT
};

extern const char *const okm_layer_names[OKM_LAYER__COUNT];
/* Recording switch per layer, read with READ_ONCE by the probes. */
extern bool okm_layer_on[OKM_LAYER__COUNT];
/* Reset generation per layer; a cell of an older one counts as empty. */
extern unsigned int okm_layer_epoch[OKM_LAYER__COUNT];
/* Serialises ctl commands and every change of settings. */
extern struct mutex okm_ctl_mutex;

static inline bool okm_on(enum okm_layer l)
{
	return READ_ONCE(okm_layer_on[l]);
}

static inline unsigned int okm_epoch(enum okm_layer l)
{
	return READ_ONCE(okm_layer_epoch[l]);
}

int okm_ctl_show(struct seq_file *m, void *v);
ssize_t okm_ctl_write(const char __user *ubuf, size_t len);

/* ---- clock (okm_clock.c) ---- */

extern bool okm_clock_tsc;
extern struct okm_cyc2ns okm_clock_c2n;

/*
 * okm_now - the profiling clock: TSC cycles where the kernel trusts the
 * TSC (constant and not marked unstable), else ktime_get_mono_fast_ns(),
 * which is NMI-safe and monotonic across CPUs. Callable in any context.
 */
static inline u64 okm_now(void)
{
	if (likely(okm_clock_tsc))
		return get_cycles();
	return ktime_get_mono_fast_ns();
}

/* Clock units to ns, and to (estimated, for ktime) CPU cycles. */
static inline u64 okm_clock_ns(u64 clk)
{
	return okm_clock_tsc ? okm_cyc2ns(&okm_clock_c2n, clk) : clk;
}

u64 okm_clock_cycles(u64 clk);
int okm_clock_init(const char *mode);
const char *okm_clock_name(void);
/* The clock's rate, "units per ns" with 6 decimals, into @buf. */
void okm_clock_rate_str(char *buf, size_t len);

/* ---- per-CPU histogram cells (okm_cell.c) ---- */

/*
 * A per-CPU cell: one writer (its CPU, interrupts off) publishes under a
 * sequence count, readers on any CPU copy it consistently. A cell whose
 * epoch is older than its layer's was reset: the writer zeroes it on its
 * next record and readers count it as empty.
 */
struct okm_cell {
	seqcount_t seq;
	unsigned int epoch;
};

static inline void okm_cell_init(struct okm_cell *c)
{
	seqcount_init(&c->seq);
	c->epoch = 0;
}

/* Open a write of @len bytes at @body, zeroing them on a new epoch. */
static inline void okm_cell_write_begin(struct okm_cell *c, unsigned int epoch,
					void *body, size_t len)
{
	raw_write_seqcount_begin(&c->seq);
	if (unlikely(c->epoch != epoch)) {
		memset(body, 0, len);
		c->epoch = epoch;
	}
}

static inline void okm_cell_write_end(struct okm_cell *c)
{
	raw_write_seqcount_end(&c->seq);
}

/*
 * okm_cell_read - copy @len bytes at @body into @dst as one consistent
 * snapshot. Returns false (and zeroes @dst) when the cell is of an older
 * epoch than @epoch.
 */
bool okm_cell_read(const struct okm_cell *c, unsigned int epoch,
		   const void *body, void *dst, size_t len);

/*
 * okm_seq_layer_header - the first line of /proc/osprof/<layer>:
 * "layer=<layer> clock=<name> cycles_per_ns=<rate> enabled=<0|1>".
 */
void okm_seq_layer_header(struct seq_file *m, enum okm_layer l);
/*
 * okm_seq_hist - print @h as "<p>count=N <p>sum_ns=N <p>min_ns=N
 * <p>max_ns=N <p>hist=b:c,..." (sparse, ascending, empty -> "hist=").
 */
void okm_seq_hist(struct seq_file *m, const char *p, const struct okm_hist *h);
/* Replace every byte that would break a key=value record by '_'. */
void okm_sanitize_name(char *s);

/* ---- per-task virtual clocks (okm_task.c) ---- */

/*
 * The per-task context: a preempt notifier on the task, its virtual
 * clock, and its private timers. Created by the task itself (a private
 * timer's allocation, or a lower-layer probe of a registered process),
 * freed when the task exits or the module unloads.
 */
struct okm_task {
	struct preempt_notifier pn;   /* on task->preempt_notifiers */
	struct task_struct *task;     /* referenced until freed */
	struct list_head node;        /* on the global list, okm_tasks_lock */
	struct okm_vclock vc;         /* only on the task's CPU, irqs off */
	struct list_head timers;      /* private timers, under okm_vt_lock */
};

/* The current task's context or NULL. Call from the task itself. */
struct okm_task *okm_task_current(void);
/* The current task's context, created with @gfp if missing; NULL on ENOMEM. */
struct okm_task *okm_task_current_get(gfp_t gfp);
/* Read @t's virtual clock and exclusion totals at @now; interrupts off. */
u64 okm_task_vnow(struct okm_task *t, u64 now, u64 *excl);
/* pseudo_stop / pseudo_start of @t at @now; interrupts off. */
void okm_task_pseudo_stop(struct okm_task *t, u64 now, enum okm_excl why);
void okm_task_pseudo_start(struct okm_task *t, u64 now);
/* Top-level interrupt entry and exit on this CPU; interrupts off. */
void okm_task_irq_enter(u64 now);
void okm_task_irq_exit(u64 now);
unsigned int okm_task_count(void);
int okm_task_init(void);
void okm_task_stop(void);
void okm_task_free(void);

/* ---- virtual timers (okm_vtimer.c) ---- */

/* Who allocated a timer: a /dev/osprof_vt descriptor or the kernel API. */
struct okm_vt_owner {
	struct list_head timers; /* under okm_vt_lock */
	unsigned int ntimers;
};

void okm_vt_owner_init(struct okm_vt_owner *o);
/* Deallocate every timer of @o (descriptor release). */
void okm_vt_owner_release(struct okm_vt_owner *o);
int okm_vt_do_alloc(struct okm_vt_owner *o, const char *name, u32 kind,
		    u32 scope);
int okm_vt_do_start(struct okm_vt_owner *o, u64 id);
int okm_vt_do_stop(struct okm_vt_owner *o, u64 id, struct okm_vt_value *v);
int okm_vt_do_read(struct okm_vt_owner *o, u64 id, struct okm_vt_value *v);
int okm_vt_do_clear(struct okm_vt_owner *o, u64 id);
int okm_vt_do_dealloc(struct okm_vt_owner *o, u64 id);
/* Release @t's private timers; from the task's exit, preemption off. */
void okm_vt_task_exit(struct okm_task *t);
int okm_vt_timers_show(struct seq_file *m, void *v);
unsigned int okm_vt_count(void);
void okm_vt_free(void);

/* ---- /dev/osprof_vt (okm_dev.c) ---- */

int okm_dev_init(void);
void okm_dev_exit(void);

/* ---- lower layer (okm_lower.c) ---- */

#define OKM_MAX_PIDS 32

bool okm_lower_pid_registered(pid_t tgid);
/* Copy the registered tgids into @out (OKM_MAX_PIDS); returns how many. */
unsigned int okm_lower_pids(pid_t *out);
/*
 * okm_lower_pids_update - change the registered set atomically: @plan
 * gets a copy of the set (at most OKM_MAX_PIDS) to edit and returns 0 to
 * install it or -errno to leave the set as it was. @plan runs under a
 * spinlock: it must not sleep. Returns @plan's result.
 */
int okm_lower_pids_update(int (*plan)(pid_t *pids, unsigned int *n, void *arg),
			  void *arg);
/* A task exits (exit probe): forget its process if it was the last thread. */
void okm_lower_task_exit(struct task_struct *p);
int okm_lower_show(struct seq_file *m, void *v);
void okm_lower_ctl_show(struct seq_file *m);
int okm_lower_init(void);
void okm_lower_stop(void);
void okm_lower_free(void);

/* ---- block layer (okm_block.c) ---- */

int okm_block_show(struct seq_file *m, void *v);
void okm_block_ctl_show(struct seq_file *m);
int okm_block_init(void);
void okm_block_stop(void);
void okm_block_free(void);

/* ---- interrupts (okm_irq.c) and their counters (okm_pmc.c) ---- */

int okm_irq_show(struct seq_file *m, void *v);
void okm_irq_ctl_show(struct seq_file *m);
int okm_irq_init(void);
void okm_irq_stop(void);
void okm_irq_free(void);

#define OKM_PMC_MAX 8

struct okm_pmc_set;
/* The configured counters; RCU(-sched) protected, replaced under ctl. */
extern struct okm_pmc_set __rcu *okm_pmc_cur;

/*
 * okm_pmc_parse - parse "name,name,..." (or "none") into event ids.
 * Returns the number of events (0 for none) or -EINVAL.
 */
int okm_pmc_parse(const char *list, u8 *ids);
/* Counters for @ids on every online CPU; never NULL except on ENOMEM. */
struct okm_pmc_set *okm_pmc_set_create(const u8 *ids, unsigned int n);
void okm_pmc_set_destroy(struct okm_pmc_set *s);
/* Install @s (ctl mutex held), wait for readers, destroy the old one. */
void okm_pmc_install(struct okm_pmc_set *s);
/* Counters usable: read into @vals (n values); interrupts off. */
unsigned int okm_pmc_read(const struct okm_pmc_set *s, u64 *vals);
bool okm_pmc_available(const struct okm_pmc_set *s);
unsigned int okm_pmc_count(const struct okm_pmc_set *s);
const char *okm_pmc_event_name(const struct okm_pmc_set *s, unsigned int i);
void okm_pmc_ctl_show(struct seq_file *m);
int okm_pmc_init(void);
void okm_pmc_free(void);

/* ---- tracepoints (okm_tp.c) ---- */

/* A probe on a kernel tracepoint found by name (exported or not). */
struct okm_tp {
	const char *name;
	void *probe;
	void *data;
	struct tracepoint *tp; /* found by okm_tp_register */
	bool registered;
};

/*
 * Find @n tracepoints by name and register on those this kernel has;
 * returns how many, or -errno when one failed and none succeeded.
 */
int okm_tp_register(struct okm_tp *tps, unsigned int n);
void okm_tp_unregister(struct okm_tp *tps, unsigned int n);

/* ---- /proc/osprof (okm_proc.c, okm_selftest.c) ---- */

int okm_proc_init(void);
void okm_proc_exit(void);
int okm_selftest_show(struct seq_file *m, void *v);

#endif /* OKM_H */
