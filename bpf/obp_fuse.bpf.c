// SPDX-License-Identifier: MIT
/*
 * Layer "fuse": the kernel's FUSE request latency per opcode, from the
 * moment a request is queued for the daemon (fuse_request_send) to the
 * moment its reply ends it (fuse_request_end), for one mount only: the
 * one whose superblock's device is fuse_dev. That span holds the daemon's
 * handling (layer "fs") plus the transport: queueing, wake-ups, copies.
 *
 * A request ended by a thread in skip_tids is not counted: osprof-fs
 * marks its threads while they reply to control-directory requests, which
 * its own fs layer does not count either.
 */
#include "obp_common.bpf.h"
#include "obp_pids.bpf.h"

/* Set by the loader before load. */
const volatile __u32 fuse_dev = 0;        /* kernel dev_t; 0: every mount */
const volatile __u32 daemon_tgid = 0;     /* never a workload process */
const volatile __u32 follow_callers = 0;  /* add callers to pids */

/* Threads in skip_tids now, kept by user space through mmapped data. */
volatile __u32 skip_n = 0;

/* Requests in flight: struct fuse_req address -> send time (ns). A plain
 * hash, cheaper than an LRU one: every request sent ends, also when its
 * connection is aborted (the kernel ends them all), so none is left. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OBP_MAX_INFLIGHT);
	__type(key, __u64);
	__type(value, __u64);
} fuse_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} skip_tids SEC(".maps");

SEC("tp_btf/fuse_request_send")
int BPF_PROG(obp_fuse_send, const struct fuse_req *req)
{
	__u64 key = (__u64)req, ts, pid_tgid;

	if (!obp_enabled)
		return 0;
	/* BTF-typed pointers: plain loads, no probe-read helper calls. */
	if (fuse_dev && req->fm->sb->s_dev != fuse_dev)
		return 0;
	ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fuse_start, &key, &ts, BPF_ANY))
		obp_stat(OBP_S_INFLIGHT_FULL);
	if (!follow_callers)
		return 0;
	/*
	 * The caller is the current task only when the request carries its
	 * thread id: background requests (readahead, writeback) may be sent
	 * by whoever ends an earlier one, the daemon included.
	 */
	pid_tgid = bpf_get_current_pid_tgid();
	if ((__u32)pid_tgid == req->in.h.pid &&
	    (__u32)(pid_tgid >> 32) != daemon_tgid)
		obp_pid_add_workload((__u32)(pid_tgid >> 32));
	return 0;
}

SEC("tp_btf/fuse_request_end")
int BPF_PROG(obp_fuse_end, const struct fuse_req *req)
{
	__u64 key = (__u64)req, now = bpf_ktime_get_ns(), *ts, t0;
	__u32 tid;

	ts = bpf_map_lookup_elem(&fuse_start, &key);
	if (!ts)
		return 0;
	t0 = *ts;
	bpf_map_delete_elem(&fuse_start, &key);
	tid = (__u32)bpf_get_current_pid_tgid();
	/* skip_n counts the marked threads: none, no lookup. */
	if (skip_n && bpf_map_lookup_elem(&skip_tids, &tid)) {
		obp_stat(OBP_S_SKIPPED);
		return 0;
	}
	obp_record(OBP_K_FUSE, req->in.h.opcode, 0, now > t0 ? now - t0 : 0);
	return 0;
}
