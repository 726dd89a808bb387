// SPDX-License-Identifier: MIT
/*
 * Virtual time of registered threads, after the Virtual Timers paper: a
 * thread's virtual time is its elapsed time less the time it spent
 * switched out and the time spent in hard and soft interrupt handlers
 * while it was current. The programs keep those two sums per thread in
 * an mmapped slot (struct obp_vt_slot); the thread reads them itself.
 *
 * Which thread owns which slot: the hash vt_tids, tid -> slot, filled by
 * user space (obp_vt.c). Every event of every thread would look it up;
 * instead each CPU remembers the slot of the thread it switched to
 * (struct vt_cpu), so an interrupt costs a per-CPU array read and a
 * context switch one hash lookup (for the incoming thread). The memory is
 * only valid while vt_gen is what it was when filled: user space and
 * sched_process_exit bump vt_gen whenever a thread gains or loses a slot,
 * which makes every CPU look again.
 *
 * Interrupts are charged at the outermost level only: a hard interrupt
 * during a softirq is inside the softirq's interval and is not added
 * again. Hard handlers do not nest (they run with interrupts off), so the
 * hard depth only guards against an exit whose entry fired before attach.
 * x86's system vectors (local timer, IPIs) have their own tracepoints,
 * not irq_handler_*; the loader attaches those it finds in the kernel's BTF.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "obp_abi.h"
#include "obp_kern.h"

char LICENSE[] SEC("license") = "GPL";

/* Bumped (atomically, by both sides) when a tid gains or loses a slot. */
__u32 vt_gen = 1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OBP_VT_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct obp_vt_slot);
} vt_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OBP_VT_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} vt_tids SEC(".maps");

/*
 * Per CPU: whose slot the running thread has, and the interrupt intervals
 * in progress. Slots are stored + 1 so that the map's zeroes mean none.
 */
struct vt_cpu {
	__u64 hard_t0;    /* outermost hard handler's entry, ns */
	__u64 soft_t0;    /* softirq's entry, ns */
	__u32 tid;        /* thread the next two fields are about */
	__u32 gen;        /* vt_gen when they were filled */
	__u32 slot1;      /* its slot + 1; 0: not registered */
	__u32 hard_depth; /* hard handlers entered and not exited */
	__u32 hard_slot1; /* slot + 1 the hard interval goes to; 0: none */
	__u32 soft_slot1; /* slot + 1 the softirq interval goes to; 0: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vt_cpu);
} vt_cpus SEC(".maps");

static __always_inline struct vt_cpu *this_cpu(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&vt_cpus, &zero);
}

/* Slot + 1 of thread @tid, the one running on this CPU; 0 when none. */
static __always_inline __u32 slot1_of(struct vt_cpu *c, __u32 tid)
{
	__u32 gen = *(volatile __u32 *)&vt_gen, *s;

	/* Read gen before the hash: a registration that lands in between
	 * bumps gen after its insert, and the next event looks again. */
	if (c->tid == tid && c->gen == gen)
		return c->slot1;
	s = tid ? bpf_map_lookup_elem(&vt_tids, &tid) : NULL;
	c->tid = tid;
	c->gen = gen;
	c->slot1 = s && *s < OBP_VT_SLOTS ? *s + 1 : 0;
	return c->slot1;
}

static __always_inline struct obp_vt_slot *slot_at(__u32 slot1)
{
	__u32 k = slot1 - 1;

	return slot1 ? bpf_map_lookup_elem(&vt_slots, &k) : NULL;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(obp_vt_switch, _Bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	struct vt_cpu *c = this_cpu();
	struct obp_vt_slot *out, *in;
	__u32 out1, in1;
	__u64 now;

	if (!c)
		return 0;
	out1 = slot1_of(c, (__u32)prev->pid);
	in1 = slot1_of(c, (__u32)next->pid);
	/* Most switches are of threads not registered: no clock read. */
	if (!out1 && !in1)
		return 0;
	out = slot_at(out1);
	in = slot_at(in1);
	now = bpf_ktime_get_ns();
	if (out) {
		out->out_ns = now;
		out->nswitch += 1;
	}
	/* out_ns is 0 for a thread that has not been switched out since it
	 * registered (it registers itself, running). */
	if (in && in->out_ns) {
		if (now > in->out_ns)
			in->off_ns += now - in->out_ns;
		in->out_ns = 0;
	}
	return 0;
}

/* A thread that exits registered frees its slot: its tid may come back
 * as another thread's, which must not inherit the slot. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(obp_vt_exit, struct task_struct *p)
{
	__u32 tid = (__u32)p->pid, *s, k;
	struct obp_vt_slot *slot;

	s = bpf_map_lookup_elem(&vt_tids, &tid);
	if (!s)
		return 0;
	k = *s;
	bpf_map_delete_elem(&vt_tids, &tid);
	__sync_fetch_and_add(&vt_gen, 1);
	slot = bpf_map_lookup_elem(&vt_slots, &k);
	if (slot && slot->tid == tid)
		*(volatile __u32 *)&slot->tid = 0;
	return 0;
}

static __always_inline void hard_enter(void)
{
	struct vt_cpu *c = this_cpu();

	if (!c || c->hard_depth++)
		return;
	/* Inside a softirq whose interval is being charged: counted there. */
	c->hard_slot1 = c->soft_slot1 ? 0 : slot1_of(c, (__u32)bpf_get_current_pid_tgid());
	if (c->hard_slot1)
		c->hard_t0 = bpf_ktime_get_ns();
}

static __always_inline void hard_exit(void)
{
	struct vt_cpu *c = this_cpu();
	struct obp_vt_slot *s;
	__u64 now;

	if (!c || !c->hard_depth || --c->hard_depth)
		return;
	s = slot_at(c->hard_slot1);
	c->hard_slot1 = 0;
	if (!s)
		return;
	now = bpf_ktime_get_ns();
	if (now > c->hard_t0)
		s->irq_ns += now - c->hard_t0;
	s->nirq += 1;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(obp_vt_irq_in)
{
	hard_enter();
	return 0;
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(obp_vt_irq_out)
{
	hard_exit();
	return 0;
}

/* x86's system vectors: optional (the loader drops those the kernel
 * lacks). Programs are named obp_vt_<short>_in/_out: the kernel keeps 15
 * characters of a program's name. */
#define OBP_VT_VECTOR(tp, short)                         \
	SEC("tp_btf/" #tp "_entry")                      \
	int BPF_PROG(obp_vt_##short##_in)                \
	{                                                \
		hard_enter();                            \
		return 0;                                \
	}                                                \
	SEC("tp_btf/" #tp "_exit")                       \
	int BPF_PROG(obp_vt_##short##_out)               \
	{                                                \
		hard_exit();                             \
		return 0;                                \
	}

OBP_VT_VECTOR(local_timer, tmr)
OBP_VT_VECTOR(reschedule, rsch)
OBP_VT_VECTOR(call_function, cf)
OBP_VT_VECTOR(call_function_single, cf1)

/*
 * Softirqs run with interrupts on, so a hard interrupt may land in the
 * middle of these programs. Entry marks the interval before stamping it
 * and exit reads the clock before unmarking: a hard interrupt in either
 * gap is then charged by neither (it stays virtual time, a few ns of
 * window), never by both.
 */
SEC("tp_btf/softirq_entry")
int BPF_PROG(obp_vt_soft_in)
{
	struct vt_cpu *c = this_cpu();
	__u32 slot1;

	if (!c)
		return 0;
	slot1 = slot1_of(c, (__u32)bpf_get_current_pid_tgid());
	*(volatile __u32 *)&c->soft_slot1 = slot1;
	if (slot1)
		*(volatile __u64 *)&c->soft_t0 = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(obp_vt_soft_out)
{
	struct vt_cpu *c = this_cpu();
	struct obp_vt_slot *s;
	__u64 now = bpf_ktime_get_ns(), t0;

	if (!c || !c->soft_slot1)
		return 0;
	t0 = *(volatile __u64 *)&c->soft_t0;
	s = slot_at(c->soft_slot1);
	*(volatile __u32 *)&c->soft_slot1 = 0;
	if (!s)
		return 0;
	if (now > t0)
		s->irq_ns += now - t0;
	s->nirq += 1;
	return 0;
}
