// SPDX-License-Identifier: MIT
/*
 * Layer "irq": the duration of each hard interrupt handler
 * (irq_handler_entry to irq_handler_exit, per line and handler: a shared
 * line runs each of its handlers in turn, each is its own histogram) and
 * of each softirq vector's run (softirq_entry to softirq_exit), after
 * Moore et al. Where the loader could open hardware performance
 * counters, each run also adds the counters' deltas (obp_pmc_sums).
 *
 * Hard handlers do not nest (they run with interrupts off) but one can
 * interrupt a softirq, so each CPU keeps one start for each level. A
 * softirq's duration is wall time and includes such hard interrupts, as
 * osprof.ko's does. An exit whose entry was not seen (it came before
 * attach, or while off) is not recorded.
 */
#include "obp_common.bpf.h"

/* Set by the loader before load: the events per CPU in pmc (0: none). */
const volatile __u32 pmc_n = 0;

enum { IRQ_HARD, IRQ_SOFT, IRQ__LEVELS };

/* A level in progress on a CPU. */
struct irq_frame {
	__u64 ts;                    /* entry, ns */
	__u64 who;                   /* the action, or vector + 1; 0: none */
	__u32 pmc_ok;                /* the pmc reads below succeeded */
	__u32 pad;
	__u64 c0[OBP_PMC_MAX];       /* counters at entry */
	__u64 en0[OBP_PMC_MAX];      /* their enabled and running times */
	__u64 run0[OBP_PMC_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, IRQ__LEVELS);
	__type(key, __u32);
	__type(value, struct irq_frame);
} irq_frames SEC(".maps");

/* Per-CPU perf events, CPU c's event i at c * OBP_PMC_MAX + i; sized
 * and filled by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
} pmc SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, OBP_MAX_HISTS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct obp_key);
	__type(value, struct obp_pmc_sums);
} pmc_sums SEC(".maps");

/* Handler names by key, written when the key's histogram is new (names
 * outlive a reset; the loader reads them to name the ops). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OBP_MAX_HISTS);
	__type(key, struct obp_key);
	__type(value, char[OBP_IRQ_NAME_LEN]);
} irq_names SEC(".maps");

static const struct obp_pmc_sums obp_zero_sums;

/* Read this CPU's counters into @c, @en, @run: 1 when all were read. */
static __always_inline __u32 pmc_read(__u64 *c, __u64 *en, __u64 *run)
{
	__u64 base = (__u64)bpf_get_smp_processor_id() * OBP_PMC_MAX;
	struct bpf_perf_event_value v;

#pragma unroll
	for (__u32 i = 0; i < OBP_PMC_MAX; i++) {
		if (i >= pmc_n)
			break;
		if (bpf_perf_event_read_value(&pmc, base + i, &v, sizeof(v)))
			return 0;
		c[i] = v.counter;
		en[i] = v.enabled;
		run[i] = v.running;
	}
	return 1;
}

static __always_inline void irq_enter(__u32 level, __u64 who)
{
	struct irq_frame *f = bpf_map_lookup_elem(&irq_frames, &level);

	if (!f)
		return;
	f->who = 0;
	if (!obp_enabled)
		return;
	f->pmc_ok = pmc_n ? pmc_read(f->c0, f->en0, f->run0) : 0;
	f->who = who;
	/* last, so the duration leaves out our own reads */
	f->ts = bpf_ktime_get_ns();
}

/*
 * Add the counters' deltas since @f's entry to @key's sums, when every
 * counter was on the PMU the whole run (enabled and running times grew
 * alike): a multiplexed counter's delta would be of part of the run.
 */
static __always_inline void pmc_add(const struct obp_key *key, const struct irq_frame *f)
{
	__u64 c[OBP_PMC_MAX], en[OBP_PMC_MAX], run[OBP_PMC_MAX];
	struct obp_pmc_sums *s;

	if (!f->pmc_ok || !pmc_read(c, en, run))
		return;
#pragma unroll
	for (__u32 i = 0; i < OBP_PMC_MAX; i++) {
		if (i >= pmc_n)
			break;
		if (en[i] - f->en0[i] != run[i] - f->run0[i])
			return;
	}
	s = bpf_map_lookup_elem(&pmc_sums, key);
	if (!s) {
		bpf_map_update_elem(&pmc_sums, key, &obp_zero_sums, BPF_NOEXIST);
		s = bpf_map_lookup_elem(&pmc_sums, key);
		if (!s) {
			obp_stat(OBP_S_HIST_FULL);
			return;
		}
	}
	s->runs += 1;
#pragma unroll
	for (__u32 i = 0; i < OBP_PMC_MAX; i++) {
		if (i >= pmc_n)
			break;
		s->v[i] += c[i] - f->c0[i];
	}
}

/* End level @level's run by @who as @key; @action: a hard handler's,
 * whose name a new key notes; NULL for softirqs (user space names them). */
static __always_inline void irq_exit(__u32 level, __u64 who, const struct obp_key *key,
				     const struct irqaction *action)
{
	__u64 now = bpf_ktime_get_ns();
	struct irq_frame *f = bpf_map_lookup_elem(&irq_frames, &level);
	struct obp_hist *h;

	if (!f || f->who != who)
		return;
	f->who = 0;
	if (pmc_n)
		pmc_add(key, f);
	h = bpf_map_lookup_elem(&hists, key);
	if (!h && action) {
		char buf[OBP_IRQ_NAME_LEN] = "";

		bpf_probe_read_kernel_str(buf, sizeof(buf), BPF_CORE_READ(action, name));
		bpf_map_update_elem(&irq_names, key, buf, BPF_ANY);
	}
	if (!h)
		h = obp_hist_of(key);
	if (h)
		obp_hist_add(h, now > f->ts ? now - f->ts : 0);
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(obp_irq_entry, int irq, struct irqaction *action)
{
	irq_enter(IRQ_HARD, (__u64)action);
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(obp_irq_exit, int irq, struct irqaction *action, int ret)
{
	/*
	 * The handler's id on its line: its dev_id, which is how the kernel
	 * tells a shared line's handlers apart (free_irq); read as a number
	 * (the verifier will not shift the action's own address, nor take
	 * a void * field as one by a plain load). Low 32 bits of dev_id >> 3:
	 * objects are 8-byte aligned.
	 */
	struct obp_key key = {
		.kind = OBP_K_IRQ, .a = (__u32)irq,
		.b = (__u32)((__u64)BPF_CORE_READ(action, dev_id) >> 3),
	};

	irq_exit(IRQ_HARD, (__u64)action, &key, action);
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(obp_softirq_entry, unsigned int vec)
{
	irq_enter(IRQ_SOFT, (__u64)vec + 1);
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(obp_softirq_exit, unsigned int vec)
{
	struct obp_key key = { .kind = OBP_K_SOFTIRQ, .a = vec };

	irq_exit(IRQ_SOFT, (__u64)vec + 1, &key, NULL);
	return 0;
}
