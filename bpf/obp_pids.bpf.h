/* SPDX-License-Identifier: MIT */
/*
 * The processes whose system calls are profiled, by tgid, with their role
 * (enum obp_role). Defined by the syscall object; the fuse object has the
 * same map and the loader makes it share the syscall object's (so the
 * callers of a mount are added where the syscall programs look).
 */
#ifndef OBP_PIDS_BPF_H
#define OBP_PIDS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OBP_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u32);
} pids SEC(".maps");

/* Add @tgid as a workload process unless it has a role already. */
static __always_inline void obp_pid_add_workload(__u32 tgid)
{
	__u32 role = OBP_ROLE_WORKLOAD;

	if (bpf_map_lookup_elem(&pids, &tgid))
		return;
	if (bpf_map_update_elem(&pids, &tgid, &role, BPF_NOEXIST) == -7 /* E2BIG */)
		obp_stat(OBP_S_PIDS_FULL);
}

#endif /* OBP_PIDS_BPF_H */
