// SPDX-License-Identifier: GPL-2.0
/*
 * Performance counters read around interrupt handlers (Moore et al.,
 * "Profiling Interrupt Handler Performance through Kernel
 * Instrumentation"): one pinned kernel counter per configured event per
 * online CPU, created with perf_event_create_kernel_counter() as
 * kernel/watchdog_perf.c does, and read at handler entry and exit.
 *
 * Reading: perf_event_read_local() is what we want but 6.1 does not
 * export it; okm_pmc_read() does what it does for a CPU-bound counter on
 * its own CPU with interrupts off: ask the PMU to fold the hardware
 * counter into event->count when the event is on this CPU, then read the
 * count. Counters that are not scheduled (oncpu elsewhere) read unchanged,
 * so their deltas are zero rather than wrong.
 *
 * Where the CPU has no usable counters (most VMs, QEMU TCG), creation
 * fails; the set then counts no event, the irq file says pmc=unavailable,
 * and durations are recorded all the same. An event this PMU lacks (an
 * L1I miss event, say) is dropped alone: the others are still counted,
 * and ctl lists what was dropped (pmc_unsupported) and why (pmc_error).
 *
 * The configured set is RCU protected: `irq_events` in ctl builds a new
 * set, installs it, waits for every reader (irq probes run with
 * interrupts or bottom halves off, which synchronize_rcu() waits for) and
 * only then releases the old counters.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "okm.h"

struct okm_pmc_event {
	const char *name;
	u32 type;
	u64 config;
};

#define OKM_HWC(cache, op, result) \
	(PERF_COUNT_HW_CACHE_##cache | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
	 (PERF_COUNT_HW_CACHE_RESULT_##result << 16))

static const struct okm_pmc_event okm_pmc_events[] = {
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "ref_cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "branch_instructions", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "cache_references", PERF_TYPE_HARDWARE,
	  PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "l1i_misses", PERF_TYPE_HW_CACHE, OKM_HWC(L1I, READ, MISS) },
	{ "l1d_misses", PERF_TYPE_HW_CACHE, OKM_HWC(L1D, READ, MISS) },
	{ "llc_misses", PERF_TYPE_HW_CACHE, OKM_HWC(LL, READ, MISS) },
	{ "dtlb_misses", PERF_TYPE_HW_CACHE, OKM_HWC(DTLB, READ, MISS) },
	{ "itlb_misses", PERF_TYPE_HW_CACHE, OKM_HWC(ITLB, READ, MISS) },
};

/* DESIGN.md's default: IPC, misprediction and L1 miss rates. */
static const char okm_pmc_default[] =
	"instructions,branch_instructions,branch_misses,l1i_misses,l1d_misses";

struct okm_pmc_cpu {
	struct perf_event *ev[OKM_PMC_MAX];
};

struct okm_pmc_set {
	unsigned int n;              /* events counted (columns of pcpu) */
	u8 ids[OKM_PMC_MAX];         /* their indices in okm_pmc_events */
	unsigned int nwant;          /* events asked for */
	u8 want[OKM_PMC_MAX];        /* what irq_events asked for */
	unsigned int ndropped;       /* asked for but on no CPU */
	u8 dropped[OKM_PMC_MAX];
	int err;                     /* first creation error, -errno */
	unsigned int cpu_misses;     /* (event, CPU) pairs that failed */
	struct okm_pmc_cpu __percpu *pcpu;
};

struct okm_pmc_set __rcu *okm_pmc_cur;

int okm_pmc_parse(const char *list, u8 *ids)
{
	const char *p = list;
	unsigned int n = 0, i, k;

	if (!strcmp(list, "none"))
		return 0;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == 0 || n == OKM_PMC_MAX)
			return -EINVAL;
		for (i = 0; i < ARRAY_SIZE(okm_pmc_events); i++) {
			if (strlen(okm_pmc_events[i].name) == len &&
			    !strncmp(okm_pmc_events[i].name, p, len))
				break;
		}
		if (i == ARRAY_SIZE(okm_pmc_events))
			return -EINVAL;
		for (k = 0; k < n; k++) {
			if (ids[k] == i)
				return -EINVAL; /* listed twice */
		}
		ids[n++] = i;
		p += len;
		if (*p == ',') {
			p++;
			if (!*p)
				return -EINVAL; /* trailing comma */
		}
	}
	return n ? (int)n : -EINVAL;
}

void okm_pmc_set_destroy(struct okm_pmc_set *s)
{
	unsigned int i;
	int cpu;

	if (!s)
		return;
	if (s->pcpu) {
		for_each_possible_cpu(cpu) {
			struct okm_pmc_cpu *c = per_cpu_ptr(s->pcpu, cpu);

			for (i = 0; i < OKM_PMC_MAX; i++) {
				if (c->ev[i])
					perf_event_release_kernel(c->ev[i]);
				c->ev[i] = NULL;
			}
		}
		free_percpu(s->pcpu);
	}
	kfree(s);
}

static struct perf_event *okm_pmc_create(const struct okm_pmc_event *e, int cpu)
{
	struct perf_event_attr attr = {
		.type = e->type,
		.config = e->config,
		.size = sizeof(attr),
		.pinned = 1,
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

/*
 * Counters for each asked-for event on every online CPU. An event no CPU
 * can count (not supported by this PMU, or no PMU at all) is dropped and
 * listed in ctl; one that fails on some CPUs only (a pinned counter that
 * does not fit, a hybrid CPU) is kept and reads as zero there.
 */
struct okm_pmc_set *okm_pmc_set_create(const u8 *ids, unsigned int n)
{
	struct okm_pmc_set *s;
	unsigned int i, ok;
	int cpu;

	if (WARN_ON_ONCE(n > OKM_PMC_MAX))
		return NULL;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->nwant = n;
	memcpy(s->want, ids, n);
	if (!n) {
		s->err = -ENOENT;
		return s;
	}
	s->pcpu = alloc_percpu(struct okm_pmc_cpu);
	if (!s->pcpu) {
		kfree(s);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const struct okm_pmc_event *e = &okm_pmc_events[ids[i]];

		ok = 0;
		for_each_online_cpu(cpu) {
			struct okm_pmc_cpu *c = per_cpu_ptr(s->pcpu, cpu);
			struct perf_event *ev = okm_pmc_create(e, cpu);
			int err = 0;

			if (IS_ERR(ev)) {
				err = PTR_ERR(ev);
			} else if (ev->state == PERF_EVENT_STATE_ERROR) {
				/* pinned, but could not be scheduled */
				perf_event_release_kernel(ev);
				err = -EBUSY;
			}
			if (err) {
				if (!s->err)
					s->err = err;
				s->cpu_misses++;
				continue;
			}
			c->ev[s->n] = ev;
			ok++;
		}
		if (ok) {
			s->ids[s->n++] = ids[i];
			continue;
		}
		s->dropped[s->ndropped++] = ids[i];
	}
	if (s->ndropped)
		pr_info("irq: %u of %u performance counters unavailable (error %d), see pmc_unsupported in ctl\n",
			s->ndropped, n, s->err);
	return s;
}

void okm_pmc_install(struct okm_pmc_set *s)
{
	struct okm_pmc_set *old;

	old = rcu_replace_pointer(okm_pmc_cur, s,
				  lockdep_is_held(&okm_ctl_mutex));
	synchronize_rcu();
	okm_pmc_set_destroy(old);
}

unsigned int okm_pmc_read(const struct okm_pmc_set *s, u64 *vals)
{
	const struct okm_pmc_cpu *c;
	unsigned int i;
	int cpu;

	if (!s || !s->n)
		return 0;
	cpu = smp_processor_id();
	c = this_cpu_ptr(s->pcpu);
	for (i = 0; i < s->n; i++) {
		struct perf_event *ev = c->ev[i];

		if (!ev) {
			vals[i] = 0;
			continue;
		}
		if (READ_ONCE(ev->oncpu) == cpu)
			ev->pmu->read(ev);
		vals[i] = local64_read(&ev->count);
	}
	return s->n;
}

bool okm_pmc_available(const struct okm_pmc_set *s)
{
	return s && s->n;
}

unsigned int okm_pmc_count(const struct okm_pmc_set *s)
{
	return s ? s->n : 0;
}

const char *okm_pmc_event_name(const struct okm_pmc_set *s, unsigned int i)
{
	return okm_pmc_events[s->ids[i]].name;
}

static void okm_pmc_list(struct seq_file *m, const char *key, const u8 *ids,
			 unsigned int n)
{
	unsigned int i;

	seq_printf(m, "%s ", key);
	if (!n)
		seq_puts(m, "none");
	for (i = 0; i < n; i++)
		seq_printf(m, "%s%s", i ? "," : "", okm_pmc_events[ids[i]].name);
	seq_putc(m, '\n');
}

/* okm_ctl_mutex held. */
void okm_pmc_ctl_show(struct seq_file *m)
{
	const struct okm_pmc_set *s;

	s = rcu_dereference_protected(okm_pmc_cur,
				      lockdep_is_held(&okm_ctl_mutex));
	if (!s)
		return;
	okm_pmc_list(m, "irq_events", s->want, s->nwant);
	seq_printf(m, "pmc %s\n", okm_pmc_available(s) ? "available" : "unavailable");
	okm_pmc_list(m, "pmc_events", s->ids, s->n);
	okm_pmc_list(m, "pmc_unsupported", s->dropped, s->ndropped);
	seq_printf(m, "pmc_error %d\npmc_cpu_misses %u\n", s->err, s->cpu_misses);
}

int okm_pmc_init(void)
{
	u8 ids[OKM_PMC_MAX];
	struct okm_pmc_set *s;
	int n;

	n = okm_pmc_parse(okm_pmc_default, ids);
	if (WARN_ON_ONCE(n < 0))
		return n;
	s = okm_pmc_set_create(ids, n);
	if (!s)
		return -ENOMEM;
	mutex_lock(&okm_ctl_mutex);
	okm_pmc_install(s);
	mutex_unlock(&okm_ctl_mutex);
	return 0;
}

/* Unload, after the irq probes are gone and synchronised. */
void okm_pmc_free(void)
{
	okm_pmc_set_destroy(rcu_replace_pointer(okm_pmc_cur, NULL, true));
}
