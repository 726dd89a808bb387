/* SPDX-License-Identifier: MIT */
/*
 * The processes whose system calls are layer syscall's: a bit per tgid
 * (obp_abi.h's OBP_PID_WORDS words). Defined by the syscall object; the
 * fuse object has the same map and the loader makes it share the syscall
 * object's, so the callers of a mount are added where the syscall
 * programs look. User space maps it (BPF_F_MMAPABLE) and sets bits with
 * atomic ORs, as the programs do (BPF atomics: -mcpu=v3).
 *
 * Why a bitmap: every system call of every process on the machine asks
 * whether its process is traced, and an array's lookup is inlined by the
 * verifier -- no helper call, no hash, nothing allocated per process.
 */
#ifndef OBP_PIDS_BPF_H
#define OBP_PIDS_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OBP_PID_WORDS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} traced SEC(".maps");

/* The word that holds @tgid's bit; NULL out of range. */
static __always_inline __u64 *obp_pid_word(__u32 tgid)
{
	__u32 w = tgid >> 6;

	return bpf_map_lookup_elem(&traced, &w);
}

static __always_inline bool obp_pid_traced(__u32 tgid)
{
	__u64 *w = obp_pid_word(tgid);

	return w && (*w >> (tgid & 63)) & 1;
}

/* Trace @tgid from now on. */
static __always_inline void obp_pid_add(__u32 tgid)
{
	__u64 *w = obp_pid_word(tgid), bit = 1ull << (tgid & 63);

	if (!w)
		obp_stat(OBP_S_PIDS_FULL);
	else if (!(*w & bit))
		__sync_fetch_and_or(w, bit);
}

/* @tgid is no longer traced (it ended: its number may be reused). */
static __always_inline void obp_pid_remove(__u32 tgid)
{
	__u64 *w = obp_pid_word(tgid), bit = 1ull << (tgid & 63);

	if (w && (*w & bit))
		__sync_fetch_and_and(w, ~bit);
}

#endif /* OBP_PIDS_BPF_H */
