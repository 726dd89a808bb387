/* SPDX-License-Identifier: MIT */
/*
 * What the BPF programs (obp_*.bpf.c) and their loaders (obp_*.c) share: the
 * layout of the histogram maps' keys and values, and the roles a traced
 * process can have. Included from both sides, so it uses only the __u*
 * types that the kernel's UAPI headers and the BPF side both define.
 *
 * A histogram in a map is per CPU (BPF_MAP_TYPE_PERCPU_HASH): a program
 * updates its own CPU's copy with plain adds, never an atomic operation,
 * and the loader adds the CPUs' copies up. The buckets are OSprof's at
 * resolution 1 (core's osp_bucket_index): bucket i holds values v with
 * 2^(i-1) < v <= 2^i ns, v <= 1 in bucket 0. The reader takes a
 * histogram's count as the sum of its buckets: a program updates the
 * bucket before the count, so a read racing an update could otherwise
 * see one without the other, and the checksum always holds.
 */
#ifndef OBP_ABI_H
#define OBP_ABI_H

#define OBP_NBUCKETS 65 /* resolution 1: buckets 0 .. 64 */

struct obp_hist {
	__u64 count;  /* values recorded (see above: the reader uses buckets) */
	__u64 sum;    /* their sum, ns */
	__u64 min;    /* smallest, ns; meaningful when count > 0 */
	__u64 max;    /* largest, ns */
	__u64 bk[OBP_NBUCKETS];
};

/*
 * The key of every histogram map: which layer (enum obp_kind), and two
 * numbers whose meaning the layer gives -- fuse: a = opcode; syscall and
 * lower: a = syscall number; block: a = device (major << 20 | minor, the
 * kernel's dev_t), b = direction << 1 | (1 for queue time, 0 for service
 * time); irq: a = line, b = which handler of the line (a shared line has
 * several, each with its own histogram: the low 32 bits of its struct
 * irqaction's dev_id >> 3, stable while the handler is registered);
 * softirq: a = vector, b = 0.
 */
enum obp_kind {
	OBP_K_FUSE = 1,
	OBP_K_SYSCALL,
	OBP_K_LOWER,
	OBP_K_BLOCK,
	OBP_K_IRQ,
	OBP_K_SOFTIRQ,
};

struct obp_key {
	__u32 kind;
	__u32 a;
	__u32 b;
	__u32 pad; /* zero: keys are compared as bytes */
};

/*
 * Layer irq's performance counters: per key, the sums of each counter's
 * deltas over the handler runs in which every counter counted the whole
 * run (runs), so the sums are of the same runs and their ratios (IPC)
 * hold. v[i] is the i-th event the loader opened (its table's order).
 */
#define OBP_PMC_MAX 4

struct obp_pmc_sums {
	__u64 runs;
	__u64 v[OBP_PMC_MAX];
};

/* A hard interrupt handler's name (struct irqaction's), as read. */
#define OBP_IRQ_NAME_LEN 32

/*
 * The processes whose calls are layer syscall's, one bit per tgid in an
 * array map of 64-bit words (obp_pids.bpf.h): a test is one inlined array
 * load, so a call of a process not traced costs no helper call. Tgids are
 * below the kernel's PID_MAX_LIMIT (2^22 on 64-bit): 512 KiB.
 */
#define OBP_PID_LIMIT (1u << 22)
#define OBP_PID_WORDS (OBP_PID_LIMIT / 64)

/*
 * What a system call's number says, for layers syscall and lower (the
 * call_flags map, by call number): where its descriptors are, what its
 * exit tells of the mount it was on, and whether lower leaves it out.
 *
 * A mount's syscall layer keeps a call when one of its descriptors
 * (OBP_FD_A*) is a file on the mount, decided at entry; or, for a call
 * that names a path, when its result says the mount (OBP_AT_*), decided
 * at exit. Other calls are not the mount's and are dropped.
 */
enum obp_call_flags {
	OBP_FD_A0 = 1u << 0,      /* the first argument is a descriptor */
	OBP_FD_A1 = 1u << 1,      /* the second (sendfile's in_fd) */
	OBP_FD_A2 = 1u << 2,      /* the third (splice's and copy_file_range's
				   * fd_out) */
	OBP_FD_MMAP = 1u << 4,    /* mmap's fifth, unless MAP_ANONYMOUS */
	OBP_FD_FUSE = 1u << 5,    /* on a /dev/fuse, a FUSE daemon's request or
				   * reply (read, readv, write, writev, splice):
				   * not lower's */
	OBP_LOWER_SKIP = 1u << 6, /* the daemon waiting for work or time:
				   * not lower's */
	OBP_AT_OPEN = 1u << 8,    /* returns a descriptor: the mount's when
				   * the descriptor is on it */
	OBP_AT_STAT1 = 1u << 9,   /* fills a struct stat at its second
				   * argument (stat, lstat): the mount's when
				   * st_dev is the mount's device */
	OBP_AT_STAT2 = 1u << 10,  /* at its third (newfstatat) */
	OBP_AT_STATX = 1u << 11,  /* fills a struct statx at its fifth: the
				   * mount's when stx_mnt_id is its id (or,
				   * without STATX_MNT_ID, stx_dev its device) */
};
#define OBP_AT_ANY (OBP_AT_OPEN | OBP_AT_STAT1 | OBP_AT_STAT2 | OBP_AT_STATX)

/*
 * Layers syscall and lower find a call's per-CPU histogram by index, not
 * by hash: slot_of[(lower ? OBP_SYS_MAX_NR : 0) + nr] holds 1 + its slot
 * in the per-CPU array slot_hists (0 before the call's first value).
 * Slots are handed out in order; once all OBP_SYS_SLOTS are taken, other
 * calls go to the hists map, as every other layer's values do. A slot
 * stays its call's (a reset zeroes it).
 */
#define OBP_SYS_MAX_NR 1024
#define OBP_SYS_SLOTS 128

/* Histogram map sizes: the most keys each layer can hold. */
#define OBP_MAX_HISTS 4096
#define OBP_MAX_INFLIGHT 65536

/*
 * Counters of what the programs could not do, one per CPU in the stats
 * map (index enum obp_stat): a full map, an end without a start.
 */
enum obp_stat {
	OBP_S_HIST_FULL,    /* a new key found the histogram map full */
	OBP_S_INFLIGHT_FULL, /* a start could not be remembered */
	OBP_S_PIDS_FULL,    /* a process could not be traced (tgid out of range) */
	OBP_S_SKIPPED,      /* requests ended by a thread marked skip (fuse) */
	OBP_S__COUNT
};

/*
 * Virtual time (obp_vt.bpf.c, obp_vt.c): one slot per registered thread in
 * an array map that user space mmaps, so a thread reads what to deduct
 * from its elapsed time with two loads and no system call. 64 bytes, one
 * cache line: threads on different CPUs never share a line, and the
 * mmapped array's values start page-aligned, so a slot never straddles
 * lines and every __u64 is naturally aligned (untorn loads).
 *
 * Writers: the programs, on the CPU the owner runs on (or is switched
 * away from / onto); user space only while no program can reach the slot
 * (registration, before its thread id is in the map; release, after).
 */
#define OBP_VT_SLOTS 4096

struct obp_vt_slot {
	__u64 off_ns;  /* time switched out since registration, ns */
	__u64 irq_ns;  /* time in outermost hard and soft interrupt handlers
			* while the owner was current, ns */
	__u64 out_ns;  /* bpf_ktime_get_ns() when last switched out; 0 while
			* on a CPU */
	__u64 nswitch; /* times switched out */
	__u64 nirq;    /* interrupt intervals charged to irq_ns */
	__u32 tid;     /* owner's thread id (initial PID namespace); 0: free */
	__u32 pad0;
	__u64 pad[2];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct obp_vt_slot) == 64, "one cache line per slot");

#endif /* OBP_ABI_H */
