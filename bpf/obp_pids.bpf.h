/* SPDX-License-Identifier: MIT */
/*
 * The processes whose system calls are profiled, by tgid, with their role
 * (enum obp_role). Defined by the syscall object; the fuse object has the
 * same map and the loader makes it share the syscall object's (so the
 * callers of a mount are added where the syscall programs look).
 *
 * pids_gen counts the map's changes (shared the same way): a thread caches
 * its process's role and looks the map up again only when the count
 * moved, so a system call of a process not traced costs no hash lookup.
 * Whoever changes pids bumps it, user space too (obp.c).
 */
#ifndef OBP_PIDS_BPF_H
#define OBP_PIDS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OBP_MAX_PIDS);
	__type(key, __u32);
	__type(value, __u32);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} pids_gen SEC(".maps");

static __always_inline void obp_pids_changed(void)
{
	__u32 zero = 0;
	__u64 *g = bpf_map_lookup_elem(&pids_gen, &zero);

	if (g)
		__sync_fetch_and_add(g, 1);
}

/* Add @tgid as a workload process unless it has a role already. */
static __always_inline void obp_pid_add_workload(__u32 tgid)
{
	__u32 role = OBP_ROLE_WORKLOAD;

	if (bpf_map_lookup_elem(&pids, &tgid))
		return;
	if (bpf_map_update_elem(&pids, &tgid, &role, BPF_NOEXIST) == -7 /* E2BIG */)
		obp_stat(OBP_S_PIDS_FULL);
	else
		obp_pids_changed();
}

#endif /* OBP_PIDS_BPF_H */
