// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task virtual clocks: the machinery behind virtual timers and the
 * lower layer's virtual latencies.
 *
 * A task that uses virtual time gets a context (struct okm_task) with a
 * virtual clock that runs only while the task is on a CPU and outside
 * interrupt handlers. Rather than stopping each of the task's timers on
 * every switch, as the Virtual Timers paper's pseudo_stop does, we stop
 * the task's one clock and let every timer read it: pseudo_stop and
 * pseudo_start cost the same whatever the number of timers.
 *
 * Context switches: preempt notifiers, not a sched_switch probe. A
 * notifier is registered on the one task that needs it, so every other
 * task's switches cost nothing, and the scheduler hands us our context
 * directly (container_of) where a sched_switch probe would look the task
 * up in a table on every switch of the whole system. sched_out runs with
 * interrupts off, so it does arithmetic only.
 *
 * Interrupts: okm_irq.c calls okm_task_irq_enter/exit at the top level of
 * nested hard and soft interrupts; a per-CPU pointer names the context of
 * the task running on that CPU, set by sched_in and cleared by sched_out.
 *
 * Lifetime: a context is created by its own task (preempt notifiers may
 * only be registered on current) and freed at the task's exit, from a
 * sched_process_exit probe, which runs in the exiting task. At unload the
 * remaining contexts are unlinked from their tasks inside stop_machine(),
 * when no CPU can be walking a task's notifier list; each context holds a
 * reference on its task so the list is still there to unlink from.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/tracepoint.h>

#include "okm.h"

/* Bound on live contexts, against a registered process spawning threads. */
#define OKM_TASK_MAX 65536u

static LIST_HEAD(okm_tasks);          /* every context, okm_tasks_lock */
static DEFINE_SPINLOCK(okm_tasks_lock);
static unsigned int okm_ntasks;       /* okm_tasks_lock */
static bool okm_tasks_closing;        /* unload has begun */

/* The context of the task running on this CPU, or NULL. */
static DEFINE_PER_CPU(struct okm_task *, okm_cur_task);

static void okm_task_sched_in(struct preempt_notifier *pn, int cpu)
{
	struct okm_task *t = container_of(pn, struct okm_task, pn);
	unsigned long flags;

	/* Interrupts are on here: keep the irq probes out while we switch. */
	local_irq_save(flags);
	okm_vclock_resume(&t->vc, okm_now());
	__this_cpu_write(okm_cur_task, t);
	local_irq_restore(flags);
}

static void okm_task_sched_out(struct preempt_notifier *pn,
			       struct task_struct *next)
{
	struct okm_task *t = container_of(pn, struct okm_task, pn);

	okm_vclock_pause(&t->vc, okm_now(), OKM_EXCL_SCHED);
	__this_cpu_write(okm_cur_task, NULL);
}

static struct preempt_ops okm_task_pn_ops = {
	.sched_in = okm_task_sched_in,
	.sched_out = okm_task_sched_out,
};

struct okm_task *okm_task_current(void)
{
	struct preempt_notifier *pn;

	/* Only current changes its own list, so walking it here is safe. */
	hlist_for_each_entry(pn, &current->preempt_notifiers, link) {
		if (pn->ops == &okm_task_pn_ops)
			return container_of(pn, struct okm_task, pn);
	}
	return NULL;
}

struct okm_task *okm_task_current_get(gfp_t gfp)
{
	struct okm_task *t = okm_task_current();
	unsigned long flags;

	if (t)
		return t;
	/* An exiting task may be past our exit probe: it must not get one. */
	if (current->flags & PF_EXITING)
		return NULL;
	if (READ_ONCE(okm_ntasks) >= OKM_TASK_MAX || READ_ONCE(okm_tasks_closing))
		return NULL;
	t = kzalloc(sizeof(*t), gfp | __GFP_NOWARN);
	if (!t)
		return NULL;
	get_task_struct(current);
	t->task = current;
	INIT_LIST_HEAD(&t->timers);
	preempt_notifier_init(&t->pn, &okm_task_pn_ops);

	spin_lock_irqsave(&okm_tasks_lock, flags);
	list_add(&t->node, &okm_tasks);
	okm_ntasks++;
	spin_unlock_irqrestore(&okm_tasks_lock, flags);

	/* Interrupts off: no switch and no irq probe until we are consistent. */
	local_irq_save(flags);
	okm_vclock_init(&t->vc, okm_now());
	preempt_notifier_register(&t->pn);
	__this_cpu_write(okm_cur_task, t);
	local_irq_restore(flags);
	return t;
}

u64 okm_task_vnow(struct okm_task *t, u64 now, u64 *excl)
{
	unsigned int i;

	for (i = 0; i < OKM_EXCL__COUNT; i++)
		excl[i] = t->vc.excl_cyc[i];
	return okm_vclock_read(&t->vc, now);
}

void okm_task_pseudo_stop(struct okm_task *t, u64 now, enum okm_excl why)
{
	okm_vclock_pause(&t->vc, now, why);
}

void okm_task_pseudo_start(struct okm_task *t, u64 now)
{
	okm_vclock_resume(&t->vc, now);
}

void okm_task_irq_enter(u64 now)
{
	struct okm_task *t = __this_cpu_read(okm_cur_task);

	if (t)
		okm_vclock_pause(&t->vc, now, OKM_EXCL_IRQ);
}

void okm_task_irq_exit(u64 now)
{
	struct okm_task *t = __this_cpu_read(okm_cur_task);

	if (t)
		okm_vclock_resume(&t->vc, now);
}

unsigned int okm_task_count(void)
{
	return READ_ONCE(okm_ntasks);
}

/* sched_process_exit: runs in the exiting task, preemption off. */
static void okm_task_exit_probe(void *data, struct task_struct *p)
{
	struct okm_task *t;
	unsigned long flags;

	if (WARN_ON_ONCE(p != current))
		return;
	okm_lower_task_exit(p);
	t = okm_task_current();
	if (!t)
		return;
	okm_vt_task_exit(t);

	local_irq_save(flags);
	preempt_notifier_unregister(&t->pn);
	if (__this_cpu_read(okm_cur_task) == t)
		__this_cpu_write(okm_cur_task, NULL);
	local_irq_restore(flags);

	spin_lock_irqsave(&okm_tasks_lock, flags);
	list_del(&t->node);
	okm_ntasks--;
	spin_unlock_irqrestore(&okm_tasks_lock, flags);

	put_task_struct(t->task); /* not the last reference: we are it */
	kfree(t);
}

static struct okm_tp okm_task_tps[] = {
	{ .name = "sched_process_exit", .probe = okm_task_exit_probe },
};

int okm_task_init(void)
{
	int ret;

	preempt_notifier_inc();
	ret = okm_tp_register(okm_task_tps, ARRAY_SIZE(okm_task_tps));
	if (ret < 1) {
		/* Without it a task's timers would outlive the task. */
		pr_err("cannot probe sched_process_exit (%d)\n", ret);
		preempt_notifier_dec();
		return ret < 0 ? ret : -ENOENT;
	}
	return 0;
}

/* Stop creating contexts and stop the exit probe; the caller syncs. */
void okm_task_stop(void)
{
	WRITE_ONCE(okm_tasks_closing, true);
	okm_tp_unregister(okm_task_tps, ARRAY_SIZE(okm_task_tps));
}

/*
 * Runs on one CPU while every other CPU spins with interrupts off in the
 * stopper: no CPU is inside a context switch, so no task's notifier list
 * is being walked and we may unlink from tasks other than current.
 */
static int okm_task_detach_all(void *unused)
{
	struct okm_task *t;
	int cpu;

	list_for_each_entry(t, &okm_tasks, node)
		preempt_notifier_unregister(&t->pn);
	for_each_possible_cpu(cpu)
		per_cpu(okm_cur_task, cpu) = NULL;
	return 0;
}

/*
 * Free every context. Called at unload after okm_task_stop(), after every
 * other probe is gone and tracepoint_synchronize_unregister().
 */
void okm_task_free(void)
{
	struct okm_task *t, *n;
	LIST_HEAD(dead);
	unsigned long flags;

	if (!list_empty(&okm_tasks))
		stop_machine(okm_task_detach_all, NULL, NULL);
	spin_lock_irqsave(&okm_tasks_lock, flags);
	list_splice_init(&okm_tasks, &dead);
	okm_ntasks = 0;
	spin_unlock_irqrestore(&okm_tasks_lock, flags);
	list_for_each_entry_safe(t, n, &dead, node) {
		list_del(&t->node);
		WARN_ON_ONCE(!list_empty(&t->timers));
		put_task_struct(t->task);
		kfree(t);
	}
	preempt_notifier_dec();
}
