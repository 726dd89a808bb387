/* SPDX-License-Identifier: MIT */
/*
 * What every BPF object of the eBPF layers has: the histogram map, the
 * stats counters, the switch user space flips, and the one helper that
 * records a value. Included once per object (each object is its own
 * compilation unit and has its own maps).
 */
#ifndef OBP_COMMON_BPF_H
#define OBP_COMMON_BPF_H

#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "obp_abi.h"
#include "obp_bucket.h"
#include "obp_kern.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * Recording on/off, written by user space through the object's mmapped
 * .data (no system call). Starts of requests are not taken while off;
 * a request started before keeps its end.
 */
volatile __u32 obp_enabled = 1;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, OBP_MAX_HISTS);
	/* Allocated as keys appear: prealloc would cost max_entries x CPUs. */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct obp_key);
	__type(value, struct obp_hist);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OBP_S__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

/* What a new key starts from: a map value may seed an update, and 552
 * bytes would not fit the 512-byte BPF stack. */
static const struct obp_hist obp_zero_hist;

static __always_inline void obp_stat(__u32 which)
{
	__u64 *n = bpf_map_lookup_elem(&stats, &which);

	if (n)
		*n += 1;
}

/* The histogram of @key on this CPU, created empty when new; NULL when
 * the map is full (counted). */
static __always_inline struct obp_hist *obp_hist_of(const struct obp_key *key)
{
	struct obp_hist *h = bpf_map_lookup_elem(&hists, key);

	if (h)
		return h;
	bpf_map_update_elem(&hists, key, &obp_zero_hist, BPF_NOEXIST);
	h = bpf_map_lookup_elem(&hists, key);
	if (!h)
		obp_stat(OBP_S_HIST_FULL);
	return h;
}

/* Add one value @v_ns to @h: bucket first (see obp_abi.h). Per-CPU
 * memory, and a program does not nest on its own CPU: plain adds. */
static __always_inline void obp_hist_add(struct obp_hist *h, __u64 v_ns)
{
	__u64 b = obp_bucket(v_ns);

	/*
	 * A 64-bit index, checked after a barrier: compiled through a 32-bit
	 * copy, the check would not bound the index for older verifiers
	 * (Linux 6.1's refused "unbounded memory access").
	 */
	barrier_var(b);
	if (b >= OBP_NBUCKETS)
		return;
	h->bk[b] += 1;
	if (!h->count || v_ns < h->min)
		h->min = v_ns;
	if (v_ns > h->max)
		h->max = v_ns;
	h->sum += v_ns;
	h->count += 1;
}

static __always_inline void obp_record(__u32 kind, __u32 a, __u32 b, __u64 v_ns)
{
	struct obp_key key = { .kind = kind, .a = a, .b = b };
	struct obp_hist *h = obp_hist_of(&key);

	if (h)
		obp_hist_add(h, v_ns);
}

#endif /* OBP_COMMON_BPF_H */
