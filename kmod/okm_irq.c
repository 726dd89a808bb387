// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts: per line and handler, the handler's duration as a log2
 * histogram and the sums of the configured performance counters' deltas
 * (okm_pmc.c), after Moore et al. Hard interrupts are seen through
 * irq_handler_entry/exit (one pair per handler of a line), the x86 system
 * vectors (local timer, IPIs, ...) through their own irq_vectors
 * tracepoints, soft interrupts through softirq_entry/exit. None of these
 * is exported to modules; okm_tp.c finds them.
 *
 * The same probes drive the virtual clocks (okm_task.c): a per-CPU depth
 * counter makes the outermost entry a pseudo_stop of the task running on
 * that CPU and the outermost exit its pseudo_start, so nested interrupts
 * (a hard interrupt during a softirq) do not stop twice. An exit seen at
 * depth 0 (its entry fired before our probe existed) is ignored, and the
 * exit probes are registered before the entry probes and removed after
 * them, so the depth never goes wrong by more than that.
 *
 * Records: slot = (line or vector or softirq, handler). Slots live in an
 * open-addressed table keyed by the handler's struct irqaction (or our
 * descriptor for vectors and softirqs), filled once on first sight under
 * a raw spinlock, looked up without a lock; their histograms are per CPU.
 * A full table drops the event and counts it (irq_slots parameter).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "okm.h"

static unsigned int irq_slots = 128;
module_param(irq_slots, uint, 0444);
MODULE_PARM_DESC(irq_slots,
		 "interrupt handlers tracked (power of two, 16..4096; default 128)");

#define OKM_IRQ_MAXDEPTH 8

enum okm_irq_kind { OKM_IRQ_HARD, OKM_IRQ_VECTOR, OKM_IRQ_SOFT };

/* A system vector or softirq: the key of its slot, and its labels. */
struct okm_irq_desc {
	enum okm_irq_kind kind;
	const char *tag;   /* the record's irq= */
	const char *name;  /* the record's name=; a vector's tracepoint stem */
};

static const struct okm_irq_desc okm_irq_vecs[] = {
	{ OKM_IRQ_VECTOR, "LOC", "local_timer" },
	{ OKM_IRQ_VECTOR, "RES", "reschedule" },
	{ OKM_IRQ_VECTOR, "CAL", "call_function" },
	{ OKM_IRQ_VECTOR, "CAL", "call_function_single" },
	{ OKM_IRQ_VECTOR, "IWI", "irq_work" },
	{ OKM_IRQ_VECTOR, "PLT", "x86_platform_ipi" },
	{ OKM_IRQ_VECTOR, "SPU", "spurious_apic" },
	{ OKM_IRQ_VECTOR, "ERR", "error_apic" },
	{ OKM_IRQ_VECTOR, "TRM", "thermal_apic" },
	{ OKM_IRQ_VECTOR, "THR", "threshold_apic" },
	{ OKM_IRQ_VECTOR, "DFR", "deferred_error_apic" },
};

static const struct okm_irq_desc okm_irq_softs[] = {
	[HI_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "HI" },
	[TIMER_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "TIMER" },
	[NET_TX_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "NET_TX" },
	[NET_RX_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "NET_RX" },
	[BLOCK_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "BLOCK" },
	[IRQ_POLL_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "IRQ_POLL" },
	[TASKLET_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "TASKLET" },
	[SCHED_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "SCHED" },
	[HRTIMER_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "HRTIMER" },
	[RCU_SOFTIRQ] = { OKM_IRQ_SOFT, "softirq", "RCU" },
};
static_assert(ARRAY_SIZE(okm_irq_softs) == NR_SOFTIRQS);

struct okm_irq_slot {
	const void *key;        /* NULL: free; published with release */
	enum okm_irq_kind kind;
	int irq;                /* hard: the line */
	char tag[12];           /* "11", "LOC", "softirq" */
	char name[32];          /* handler name, sanitised */
};

struct okm_irq_body {
	struct okm_hist h;        /* handler durations, ns */
	u64 pmc[OKM_PMC_MAX];     /* sums of counter deltas */
};

struct okm_irq_cell {
	struct okm_cell c;
	struct okm_irq_body b;
};

/* An interrupt level in progress on a CPU. */
struct okm_irq_frame {
	const void *key;              /* checked at exit */
	int slot;                     /* -1: not recorded */
	u64 t0;
	const struct okm_pmc_set *pmc;
	u64 pmc0[OKM_PMC_MAX];
};

struct okm_irq_cpu {
	unsigned int depth;
	struct okm_irq_frame f[OKM_IRQ_MAXDEPTH];
};

static DEFINE_PER_CPU(struct okm_irq_cpu, okm_irq_cpu);
static struct okm_irq_slot *okm_irq_tab;
static struct okm_irq_cell __percpu **okm_irq_data; /* one per slot */
static unsigned int okm_irq_nslots, okm_irq_bits;
static unsigned int okm_irq_nused;
static DEFINE_RAW_SPINLOCK(okm_irq_claim_lock);
static atomic64_t okm_irq_dropped = ATOMIC64_INIT(0);

/* Interrupts off. The slot of @key, claimed on first sight; -1 if full. */
static int okm_irq_slot(const void *key, enum okm_irq_kind kind, int irq,
			const char *tag, const char *name)
{
	u32 h = hash_ptr(key, okm_irq_bits);
	unsigned int i;

	for (i = 0; i < okm_irq_nslots; i++) {
		unsigned int idx = (h + i) & (okm_irq_nslots - 1);
		struct okm_irq_slot *s = &okm_irq_tab[idx];
		/* pairs with the release below: a keyed slot is filled */
		const void *k = smp_load_acquire(&s->key);

		if (k == key)
			return idx;
		if (k)
			continue;
		raw_spin_lock(&okm_irq_claim_lock);
		if (!s->key) {
			s->kind = kind;
			s->irq = irq;
			if (tag)
				strscpy(s->tag, tag, sizeof(s->tag));
			else
				snprintf(s->tag, sizeof(s->tag), "%d", irq);
			strscpy(s->name, name ? name : "none", sizeof(s->name));
			okm_sanitize_name(s->name);
			okm_irq_nused++;
			/* publish tag and name with the key */
			smp_store_release(&s->key, key);
		}
		raw_spin_unlock(&okm_irq_claim_lock);
		if (READ_ONCE(s->key) == key)
			return idx;
	}
	atomic64_inc(&okm_irq_dropped);
	return -1;
}

static void okm_irq_enter(const void *key, enum okm_irq_kind kind, int irq,
			  const char *tag, const char *name)
{
	struct okm_irq_frame *f;
	struct okm_irq_cpu *c;
	unsigned long flags;

	local_irq_save(flags);
	c = this_cpu_ptr(&okm_irq_cpu);
	if (c->depth == 0)
		okm_task_irq_enter(okm_now());
	if (c->depth < OKM_IRQ_MAXDEPTH) {
		f = &c->f[c->depth];
		f->key = key;
		f->slot = okm_on(OKM_LAYER_IRQ) ?
			  okm_irq_slot(key, kind, irq, tag, name) : -1;
		f->pmc = NULL;
		if (f->slot >= 0) {
			f->pmc = rcu_dereference_sched(okm_pmc_cur);
			okm_pmc_read(f->pmc, f->pmc0);
			/* last, so the duration leaves out our own reads */
			f->t0 = okm_now();
		}
	}
	c->depth++;
	local_irq_restore(flags);
}

static void okm_irq_record(const struct okm_irq_frame *f, u64 t1)
{
	struct okm_irq_cell *cell = this_cpu_ptr(okm_irq_data[f->slot]);
	u64 v1[OKM_PMC_MAX];
	unsigned int i, n = 0;

	if (f->pmc && f->pmc == rcu_dereference_sched(okm_pmc_cur))
		n = okm_pmc_read(f->pmc, v1);
	okm_cell_write_begin(&cell->c, okm_epoch(OKM_LAYER_IRQ), &cell->b,
			     sizeof(cell->b));
	okm_hist_record(&cell->b.h, okm_clock_ns(okm_elapsed(f->t0, t1)));
	for (i = 0; i < n; i++)
		cell->b.pmc[i] += v1[i] - f->pmc0[i];
	okm_cell_write_end(&cell->c);
}

static void okm_irq_exit(const void *key)
{
	struct okm_irq_cpu *c;
	unsigned long flags;
	u64 t1 = okm_now();

	local_irq_save(flags);
	c = this_cpu_ptr(&okm_irq_cpu);
	if (c->depth == 0)
		goto out; /* its entry came before our probe */
	c->depth--;
	if (c->depth < OKM_IRQ_MAXDEPTH) {
		struct okm_irq_frame *f = &c->f[c->depth];

		if (f->slot >= 0 && f->key == key)
			okm_irq_record(f, t1);
	}
	if (c->depth == 0)
		okm_task_irq_exit(okm_now());
out:
	local_irq_restore(flags);
}

static void okm_irq_hard_entry(void *data, int irq, struct irqaction *action)
{
	okm_irq_enter(action, OKM_IRQ_HARD, irq, NULL, action->name);
}

static void okm_irq_hard_exit(void *data, int irq, struct irqaction *action,
			      int ret)
{
	okm_irq_exit(action);
}

static void okm_irq_vec_entry(void *data, int vector)
{
	const struct okm_irq_desc *d = data;

	okm_irq_enter(d, d->kind, vector, d->tag, d->name);
}

static void okm_irq_vec_exit(void *data, int vector)
{
	okm_irq_exit(data);
}

static void okm_irq_soft_entry(void *data, unsigned int vec)
{
	const struct okm_irq_desc *d;

	if (vec >= NR_SOFTIRQS)
		return;
	d = &okm_irq_softs[vec];
	okm_irq_enter(d, d->kind, vec, d->tag, d->name);
}

static void okm_irq_soft_exit(void *data, unsigned int vec)
{
	if (vec >= NR_SOFTIRQS)
		return;
	okm_irq_exit(&okm_irq_softs[vec]);
}

/* Exits first: see the header comment. */
#define OKM_IRQ_NTPS (2 * (2 + ARRAY_SIZE(okm_irq_vecs)))
static struct okm_tp okm_irq_tps[OKM_IRQ_NTPS];
static char okm_irq_tpnames[OKM_IRQ_NTPS][40];

/* Append the tracepoint "<stem>_<side>" with @probe and @data. */
static void okm_irq_add_tp(unsigned int *n, const char *stem, const char *side,
			   void *probe, const void *data)
{
	char *name = okm_irq_tpnames[*n];

	snprintf(name, sizeof(okm_irq_tpnames[0]), "%s_%s", stem, side);
	okm_irq_tps[(*n)++] = (struct okm_tp){ .name = name, .probe = probe,
					       .data = (void *)data };
}

/* Append one side ("entry" or "exit") of every tracepoint we probe. */
static void okm_irq_add_side(unsigned int *n, const char *side, void *hard,
			     void *soft, void *vec)
{
	unsigned int i;

	okm_irq_add_tp(n, "irq_handler", side, hard, NULL);
	okm_irq_add_tp(n, "softirq", side, soft, NULL);
	for (i = 0; i < ARRAY_SIZE(okm_irq_vecs); i++)
		okm_irq_add_tp(n, okm_irq_vecs[i].name, side, vec,
			       &okm_irq_vecs[i]);
}

static void okm_irq_build_tps(void)
{
	unsigned int n = 0;

	okm_irq_add_side(&n, "exit", okm_irq_hard_exit, okm_irq_soft_exit,
			 okm_irq_vec_exit);
	okm_irq_add_side(&n, "entry", okm_irq_hard_entry, okm_irq_soft_entry,
			 okm_irq_vec_entry);
	WARN_ON_ONCE(n != OKM_IRQ_NTPS);
}

/* Show order: hard lines by number, then vectors, then softirqs. */
static int okm_irq_cmp(const void *a, const void *b)
{
	const struct okm_irq_slot *x = &okm_irq_tab[*(const u16 *)a];
	const struct okm_irq_slot *y = &okm_irq_tab[*(const u16 *)b];

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	/* hard lines and softirqs by number, vectors by name */
	if (x->kind != OKM_IRQ_VECTOR && x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return strcmp(x->name, y->name);
}

int okm_irq_show(struct seq_file *m, void *v)
{
	unsigned int epoch = okm_epoch(OKM_LAYER_IRQ);
	struct okm_irq_body *sum, *tmp;
	const struct okm_pmc_set *pmc;
	unsigned int i, k, n = 0;
	u16 *order;
	int cpu;

	sum = kmalloc(2 * sizeof(*sum), GFP_KERNEL);
	order = kmalloc_array(okm_irq_nslots, sizeof(*order), GFP_KERNEL);
	if (!sum || !order) {
		kfree(sum);
		kfree(order);
		return -ENOMEM;
	}
	tmp = sum + 1;
	for (i = 0; i < okm_irq_nslots; i++) {
		/* pairs with okm_irq_slot's release: names are set */
		if (smp_load_acquire(&okm_irq_tab[i].key))
			order[n++] = i;
	}
	sort(order, n, sizeof(*order), okm_irq_cmp, NULL);

	okm_seq_layer_header(m, OKM_LAYER_IRQ);
	/* ctl holds the mutex while it swaps the set: names stay put. */
	mutex_lock(&okm_ctl_mutex);
	pmc = rcu_dereference_protected(okm_pmc_cur,
					lockdep_is_held(&okm_ctl_mutex));
	for (k = 0; k < n; k++) {
		const struct okm_irq_slot *s = &okm_irq_tab[order[k]];

		memset(sum, 0, sizeof(*sum));
		for_each_possible_cpu(cpu) {
			struct okm_irq_cell *c = per_cpu_ptr(okm_irq_data[order[k]], cpu);

			if (!okm_cell_read(&c->c, epoch, &c->b, tmp, sizeof(*tmp)))
				continue;
			okm_hist_merge(&sum->h, &tmp->h);
			for (i = 0; i < OKM_PMC_MAX; i++)
				sum->pmc[i] += tmp->pmc[i];
		}
		if (!sum->h.count)
			continue;
		seq_printf(m, "irq=%s name=%s ", s->tag, s->name);
		okm_seq_hist(m, "", &sum->h);
		if (!okm_pmc_available(pmc)) {
			seq_puts(m, " pmc=unavailable\n");
			continue;
		}
		seq_puts(m, " pmc=available");
		for (i = 0; i < okm_pmc_count(pmc); i++)
			seq_printf(m, " %s=%llu", okm_pmc_event_name(pmc, i),
				   sum->pmc[i]);
		seq_putc(m, '\n');
	}
	mutex_unlock(&okm_ctl_mutex);
	kfree(order);
	kfree(sum);
	return 0;
}

void okm_irq_ctl_show(struct seq_file *m)
{
	unsigned int i, nprobes = 0;

	for (i = 0; i < OKM_IRQ_NTPS; i++)
		nprobes += okm_irq_tps[i].registered;
	seq_printf(m, "irq_slots %u/%u\nirq_dropped %lld\nirq_tracepoints %u/%u\n",
		   READ_ONCE(okm_irq_nused), okm_irq_nslots,
		   (long long)atomic64_read(&okm_irq_dropped), nprobes,
		   (unsigned int)OKM_IRQ_NTPS);
}

int okm_irq_init(void)
{
	unsigned int i;
	int cpu, ret;

	if (irq_slots < 16 || irq_slots > 4096 || !is_power_of_2(irq_slots)) {
		pr_err("irq_slots=%u: need a power of two in 16..4096\n",
		       irq_slots);
		return -EINVAL;
	}
	okm_irq_nslots = irq_slots;
	okm_irq_bits = ilog2(irq_slots);
	okm_irq_tab = kcalloc(okm_irq_nslots, sizeof(*okm_irq_tab), GFP_KERNEL);
	okm_irq_data = kcalloc(okm_irq_nslots, sizeof(*okm_irq_data),
			       GFP_KERNEL);
	if (!okm_irq_tab || !okm_irq_data) {
		ret = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < okm_irq_nslots; i++) {
		okm_irq_data[i] = alloc_percpu(struct okm_irq_cell);
		if (!okm_irq_data[i]) {
			ret = -ENOMEM;
			goto err_free;
		}
		for_each_possible_cpu(cpu)
			okm_cell_init(&per_cpu_ptr(okm_irq_data[i], cpu)->c);
	}
	okm_irq_build_tps();
	ret = okm_tp_register(okm_irq_tps, OKM_IRQ_NTPS);
	if (ret < 0)
		goto err_free;
	if (!okm_irq_tps[0].registered)
		pr_warn("irq: irq_handler tracepoints missing\n");
	return 0;

err_free:
	okm_irq_free();
	return ret;
}

void okm_irq_stop(void)
{
	okm_tp_unregister(okm_irq_tps, OKM_IRQ_NTPS);
}

void okm_irq_free(void)
{
	unsigned int i;

	if (okm_irq_data) {
		for (i = 0; i < okm_irq_nslots; i++)
			free_percpu(okm_irq_data[i]);
	}
	kfree(okm_irq_data);
	okm_irq_data = NULL;
	kfree(okm_irq_tab);
	okm_irq_tab = NULL;
}
