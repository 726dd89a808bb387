// SPDX-License-Identifier: MIT
/*
 * Layer "block": per device and direction, how long a request waited in
 * the I/O scheduler (queue time: block_rq_insert to block_rq_issue) and
 * how long the driver and device took (service time: block_rq_issue to
 * its first block_rq_complete), OSprof's driver-level profile.
 *
 * A request issued without passing the scheduler (direct issue, no
 * insert event) has no queue time. A request completed in parts
 * (several complete events) counts once, at its first part: the device
 * answered then, and the rest is the kernel finishing bios. A requeued
 * request is inserted and issued again; its clocks restart. Both clocks
 * are ktime: the complete event runs in interrupt context, often on
 * another CPU than the issue.
 */
#include "obp_common.bpf.h"

/* Direction: the request's operation, REQ_OP_* in cmd_flags' low byte. */
#define OBP_REQ_OP_MASK 0xffu
#define OBP_DIR_OTHER 4

/*
 * Starts by struct request address: insert time, and issue time. LRU:
 * a request whose end is never seen (merged into another after its
 * insert, ended by a driver without the tracepoint) ages out; requests
 * are preallocated and reused, and a reused address overwrites it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OBP_MAX_INFLIGHT);
	__type(key, __u64);
	__type(value, __u64);
} blk_insert SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, OBP_MAX_INFLIGHT);
	__type(key, __u64);
	__type(value, __u64);
} blk_issue SEC(".maps");

/* The kernel's dev_t of @rq's disk (major << 20 | minor); 0 without one
 * (BPF_CORE_READ gives 0 through a NULL pointer). */
static __always_inline __u32 blk_dev(const struct request *rq)
{
	__u32 major = (__u32)BPF_CORE_READ(rq, q, disk, major);
	__u32 minor = (__u32)BPF_CORE_READ(rq, q, disk, first_minor);

	return major << 20 | minor;
}

static __always_inline __u32 blk_dir(const struct request *rq)
{
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & OBP_REQ_OP_MASK;

	return op < OBP_DIR_OTHER ? op : OBP_DIR_OTHER;
}

static __always_inline void blk_start(void *map, __u64 key, __u64 ts)
{
	if (bpf_map_update_elem(map, &key, &ts, BPF_ANY))
		obp_stat(OBP_S_INFLIGHT_FULL);
}

/* End @key's start in @map: 1 with the time since in *@lat_ns, 0 when
 * it has none. */
static __always_inline int blk_end(void *map, __u64 key, __u64 now, __u64 *lat_ns)
{
	__u64 *ts = bpf_map_lookup_elem(map, &key), t0;

	if (!ts)
		return 0;
	t0 = *ts;
	bpf_map_delete_elem(map, &key);
	*lat_ns = now > t0 ? now - t0 : 0;
	return 1;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(obp_blk_insert, struct request *rq)
{
	if (obp_enabled)
		blk_start(&blk_insert, (__u64)rq, bpf_ktime_get_ns());
	return 0;
}

/* A request merged into another is freed without an issue: its insert
 * must not give a later request at its address a queue time. */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(obp_blk_merge, struct request *rq)
{
	__u64 key = (__u64)rq;

	bpf_map_delete_elem(&blk_insert, &key);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(obp_blk_issue, struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), wait_ns;

	if (blk_end(&blk_insert, key, now, &wait_ns))
		obp_record(OBP_K_BLOCK, blk_dev(rq), blk_dir(rq) << 1 | 1, wait_ns);
	if (obp_enabled)
		blk_start(&blk_issue, key, now);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(obp_blk_complete, struct request *rq, __u8 error, unsigned int nr_bytes)
{
	__u64 lat_ns;

	if (blk_end(&blk_issue, (__u64)rq, bpf_ktime_get_ns(), &lat_ns))
		obp_record(OBP_K_BLOCK, blk_dev(rq), blk_dir(rq) << 1, lat_ns);
	return 0;
}
