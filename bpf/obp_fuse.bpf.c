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
 *
 * With follow_callers, the process that sent a request becomes a traced
 * process of layer syscall (obp_pids.bpf.h) when its request ends --
 * unless the daemon marked the reply as a control-directory request's,
 * or the request was the root's attributes (walks_through): reading
 * .osprof/ does not make a process a workload. With timing off,
 * the object only does that (layer syscall without layer fuse).
 */
#include "obp_common.bpf.h"
#include "obp_pids.bpf.h"

/* Set by the loader before load. */
const volatile __u32 fuse_dev = 0;        /* kernel dev_t; 0: every mount */
const volatile __u32 follow_callers = 0;  /* trace the callers' calls */
const volatile __u32 timing = 1;          /* record layer fuse */

/* Never a workload process; set by user space. */
volatile __u32 daemon_tgid = 0;

/* Threads in skip_tids now, kept by user space through mmapped data. */
volatile __u32 skip_n = 0;

/*
 * Requests in flight, by their unique id: FUSE numbers a connection's
 * requests in steps of 2, so (unique / 2) mixed with the device picks a
 * slot of an array -- an inlined index, no hash update and delete per
 * request. A slot holds the request it was last given; the end checks
 * the id and the device, so a slot taken over by a later request (more
 * than OBP_FUSE_SLOTS in flight at once) loses only the earlier one.
 */
#define OBP_FUSE_SLOTS 16384u

struct inflight {
	__u64 unique; /* written last: x86 keeps stores in order */
	__u64 ts;     /* send time, ns */
	__u32 dev;
	__u32 caller; /* the sender's tgid, to trace at the end; 0: none */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OBP_FUSE_SLOTS);
	__type(key, __u32);
	__type(value, struct inflight);
} fuse_start SEC(".maps");

static __always_inline struct inflight *slot_of(__u64 unique, __u32 dev)
{
	__u32 k = ((__u32)(unique >> 1) ^ (dev * 2654435761u)) & (OBP_FUSE_SLOTS - 1);

	return bpf_map_lookup_elem(&fuse_start, &k);
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u32);
} skip_tids SEC(".maps");

#define OBP_FUSE_GETATTR 3
#define OBP_FUSE_ROOT_ID 1

/*
 * True for the root's attributes: with default_permissions, a path
 * through the mount asks for them once they expire (a permission check
 * of the root), also a path into the control directory; that alone
 * does not make a process one that uses the mount.
 */
static __always_inline bool walks_through(const struct fuse_req *req)
{
	return req->in.h.opcode == OBP_FUSE_GETATTR && req->in.h.nodeid == OBP_FUSE_ROOT_ID;
}

SEC("tp_btf/fuse_request_send")
int BPF_PROG(obp_fuse_send, const struct fuse_req *req)
{
	__u64 unique, pid_tgid;
	struct inflight *e;
	__u32 dev;

	if (!obp_enabled)
		return 0;
	/* BTF-typed pointers: plain loads, no probe-read helper calls. */
	dev = req->fm->sb->s_dev;
	if (fuse_dev && dev != fuse_dev)
		return 0;
	unique = req->in.h.unique;
	e = slot_of(unique, dev);
	if (!e)
		return 0;
	e->ts = bpf_ktime_get_ns();
	e->dev = dev;
	e->caller = 0;
	/*
	 * The caller is the current task only when the request carries its
	 * thread id: background requests (readahead, writeback) may be sent
	 * by whoever ends an earlier one, the daemon included.
	 */
	pid_tgid = bpf_get_current_pid_tgid();
	if (follow_callers && (__u32)pid_tgid == req->in.h.pid &&
	    (__u32)(pid_tgid >> 32) != daemon_tgid && !walks_through(req))
		e->caller = (__u32)(pid_tgid >> 32);
	e->unique = unique;
	return 0;
}

SEC("tp_btf/fuse_request_end")
int BPF_PROG(obp_fuse_end, const struct fuse_req *req)
{
	__u64 now = bpf_ktime_get_ns(), unique = req->in.h.unique, t0;
	__u32 dev = req->fm->sb->s_dev, tid, caller;
	struct inflight *e;

	if (fuse_dev && dev != fuse_dev)
		return 0;
	e = slot_of(unique, dev);
	if (!e || e->unique != unique || e->dev != dev)
		return 0;
	t0 = e->ts;
	caller = e->caller;
	e->unique = 0; /* ids start at 2: 0 is no request */
	tid = (__u32)bpf_get_current_pid_tgid();
	/* skip_n counts the marked threads: none, no lookup. */
	if (skip_n && bpf_map_lookup_elem(&skip_tids, &tid)) {
		obp_stat(OBP_S_SKIPPED);
		return 0;
	}
	if (caller)
		obp_pid_add(caller);
	if (timing)
		obp_record(OBP_K_FUSE, req->in.h.opcode, 0, now > t0 ? now - t0 : 0);
	return 0;
}
