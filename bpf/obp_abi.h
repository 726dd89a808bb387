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

/* Roles of a process (tgid) in the pids map: whose calls go where. */
enum obp_role {
	OBP_ROLE_WORKLOAD = 1, /* its system calls: layer syscall */
	OBP_ROLE_DAEMON = 2,   /* its system calls: layer lower */
};

/*
 * Where a system call names the file it works on, for the mount filter
 * of layer syscall (the fd_arg map, by call number): calls marked 0 are
 * not on a descriptor and are dropped while a mount is filtered.
 */
enum obp_fd_arg {
	OBP_FD_NONE,      /* no descriptor: dropped under a mount filter */
	OBP_FD_ARG0,      /* the first argument is the descriptor */
	OBP_FD_ARG1,      /* the second is (sendfile's in_fd) */
	OBP_FD_EMPTY_AT,  /* a dirfd and a path: the descriptor's own file
			   * when the path is "" (fstat as newfstatat(fd, "",
			   * AT_EMPTY_PATH)), else a path call: dropped */
	OBP_FD_FUSE_IO,   /* the first is, and the call may be a FUSE
			   * daemon's request or reply on /dev/fuse (read,
			   * readv, write, writev): looked at by layer lower */
	OBP_FD_SPLICE,    /* splice: the first is its source (the mount
			   * filter's), the third its target (a /dev/fuse
			   * the daemon replies to, for layer lower) */
};

/* Histogram map sizes: the most keys each layer can hold. */
#define OBP_MAX_HISTS 4096
#define OBP_MAX_PIDS 16384
#define OBP_MAX_INFLIGHT 65536

/*
 * Counters of what the programs could not do, one per CPU in the stats
 * map (index enum obp_stat): a full map, an end without a start.
 */
enum obp_stat {
	OBP_S_HIST_FULL,    /* a new key found the histogram map full */
	OBP_S_INFLIGHT_FULL, /* a start could not be remembered */
	OBP_S_PIDS_FULL,    /* a process could not be added to the pids map */
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
