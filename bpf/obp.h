/* SPDX-License-Identifier: MIT */
/*
 * The eBPF layers: BPF programs on BTF-typed tracepoints (tp_btf) that
 * profile, on the running kernel and without osprof.ko, what lies around
 * and beneath a FUSE daemon:
 *
 *   fuse     the kernel's FUSE requests of one mount, queued to ended, per
 *            operation (named as the fs layer names them)
 *   syscall  the system calls of a workload's processes, per call
 *   lower    the system calls the osprof-fs daemon makes on the lower
 *            file system, per call
 *   block    per disk and direction, each request's service time (issue
 *            to the driver until its completion: "<disk>.<dir>") and
 *            queue time (insert into the I/O scheduler until issue:
 *            "<disk>.<dir>.queue"), as osprof.ko's block layer names them
 *   irq      each hard interrupt handler's duration ("<line>:<handler>")
 *            and each softirq vector's ("softirq:<VECTOR>"), with sums of
 *            performance counters where the CPU has them (below)
 *
 * Each is read as a profile set (osprof/profile.h) with layer and
 * source.layer_source "ebpf", resolution 1, clock "monotonic"
 * (bpf_ktime_get_ns), so every tool reads it like the fs layer.
 *
 * Loading needs root (CAP_BPF and CAP_PERFMON) and a kernel with BTF;
 * where a layer cannot be had, obp_open says why in one line and the
 * other layers go on.
 */
#ifndef OBP_H
#define OBP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "osprof/layers.h"
#include "osprof/profile.h"
#include "obp_abi.h"

/* OBP_L_FUSE, OBP_L_SYSCALL, OBP_L_LOWER, OBP_L_BLOCK, OBP_L_IRQ:
 * osprof/layers.h's ebpf rows, in its order. */
#define OBP_L_ENUM(ID, name, ebpf, kmod) OSP_IF(ebpf, OBP_L_##ID,)
enum obp_layer {
	OSP_LAYERS(OBP_L_ENUM)
	OBP_L__COUNT
};
#undef OBP_L_ENUM

#define OBP_LAYER_BIT(l) (1u << (l))
#define OBP_LAYERS_ALL ((1u << OBP_L__COUNT) - 1u)

/* "fuse", "syscall", ...; NULL out of range. */
const char *obp_layer_name(enum obp_layer l);

/*
 * obp_layers_parse - a list of layer names separated by commas or colons
 * (inside a mount's -o, where commas separate options), "all" or "none",
 * into a bit mask. 0, or -EINVAL with one line in @err naming the
 * word that is not a layer.
 */
int obp_layers_parse(const char *list, unsigned *mask, char *err, size_t errlen);

/*
 * Layer irq's performance counters, read around each handler run from
 * per-CPU perf events (perf_event_open). Hardware: cycles, instructions,
 * cache_misses, branch_misses, as many as the CPU can open on every
 * online CPU. Where none can be opened (most VMs have no PMU), durations
 * are still recorded and the profile says why (option "pmc").
 * OBP_PMC_SOFTWARE opens the software cpu-clock event instead (counter
 * "cpu_clock_ns"), through the same maps and programs: for testing that
 * path on machines without a PMU.
 */
enum obp_pmc {
	OBP_PMC_HARDWARE, /* the default */
	OBP_PMC_NONE,
	OBP_PMC_SOFTWARE,
};

/* What the programs are told before they load. */
struct obp_opts {
	unsigned layers;        /* OBP_LAYER_BIT()s wanted */
	dev_t fuse_dev;         /* fuse: the mount's st_dev; 0: every FUSE mount */
	pid_t daemon_pid;       /* lower: this process's calls (or later:
				 * obp_daemon_set); never a workload */
	bool follow_callers;    /* syscall: processes that send requests to
				 * the fuse_dev mount are workload (once a
				 * request ends that the daemon did not mark
				 * with obp_skip_thread) */
	bool follow_children;   /* syscall: a workload's children are too */
	uint64_t cgroup_id;     /* syscall: processes of this cgroup (v2 id) */
	bool mount_filter;      /* syscall: only the calls on mount mount_id:
				 * on a descriptor of a file on it, and opens
				 * and stat calls whose result is on it; other
				 * calls on paths and calls on no file are
				 * dropped (obp_sys.bpf.c says which) */
	bool probe_reads;       /* with mount_filter: the programs for kernels
				 * without bpf_rdonly_cast (before 6.2), which
				 * are loaded there anyway (tests) */
	int mount_id;           /* statx's stx_mnt_id of the mount */
	dev_t mount_dev;        /* its st_dev (stat results say it) */
	uint64_t skip_ino_lo;   /* syscall, with mount_filter: the mount's */
	uint64_t skip_ino_hi;   /* inodes lo .. hi - 1 are not the mount's
				 * (a control directory); hi 0: none */
	enum obp_pmc irq_pmc;   /* irq: which counters to read */
	unsigned sys_slots;     /* syscall, lower: how many calls have their
				 * histograms found by index (552 bytes per
				 * CPU each), the others' by hash, slower;
				 * 0: OBP_SYS_SLOTS */
	bool load_heap;         /* load faster: malloc serves libbpf's copies
				 * of the kernel's BTF from its heap, on huge
				 * pages where the system allows them; its
				 * thresholds stay fixed after (not adaptive):
				 * for a short-lived program, not a daemon */
};

struct obp;

/*
 * obp_open - load and attach the layers @o asks for. Each layer loads on
 * its own: one that cannot (no BTF, not root, a tracepoint missing) is
 * left out and its reason kept (obp_why). Returns 0 with *@out set when
 * the attempt was made (obp_layers() says what loaded, possibly none);
 * -EINVAL for bad options, -ENOMEM; then @err says why.
 */
int obp_open(const struct obp_opts *o, struct obp **out, char *err, size_t errlen);
/* Detach and free; NULL is accepted. */
void obp_close(struct obp *b);
/* The layers loaded (OBP_LAYER_BIT()s). */
unsigned obp_layers(const struct obp *b);
/* Why layer @l did not load ("" when it did or was not asked for). */
const char *obp_why(const struct obp *b, enum obp_layer l);

/*
 * obp_profile - layer @l's histograms so far, summed over CPUs, as a new
 * profile (ops sorted by name; keys that name the same op are merged).
 * Layer irq's ops have attribute "pmc" ("available" or "unavailable")
 * and, when available, counters named after the events (their deltas
 * summed over "pmc_runs" handler runs); the profile's option "pmc" is
 * "available" or "unavailable: <why>", option "pmc_events" the events.
 * 0; -ENOENT when @l is not loaded; -ENOMEM; -errno of a map read.
 */
int obp_profile(struct obp *b, enum obp_layer l, struct osp_profile **out);

/* Zero every loaded layer's histograms (and irq's counter sums). 0 or
 * -errno. */
int obp_reset(struct obp *b);
/* Recording on or off, for every layer (no system call). */
void obp_enable(struct obp *b, bool on);
bool obp_enabled(const struct obp *b);

/* Add process @tgid as a workload (syscall layer): no system call. 0,
 * -ENOENT when the syscall layer is not loaded, -EINVAL for a tgid out of
 * range. Thread-safe. */
int obp_pid_add(struct obp *b, pid_t tgid);

/* The daemon is process @tgid (it forked since obp_open): the lower
 * layer traces its calls, and it is never a workload. 0 or -EINVAL. */
int obp_daemon_set(struct obp *b, pid_t tgid);

/*
 * obp_skip_thread - while @on, requests that thread @tid ends are not
 * counted in the fuse layer (osprof-fs marks a thread that replies to a
 * control-directory request). 0 or -errno; 0 without a fuse layer.
 */
int obp_skip_thread(struct obp *b, pid_t tid, bool on);

/* What the programs could not do, summed over CPUs (enum obp_stat in
 * obp_abi.h, in this order): full maps, skipped requests; and the runs
 * the kernel did not make (recursion_misses of the layer's object's
 * programs: an event on a CPU where the same program was running, an
 * interrupt's completion amid another's; 0 where the kernel or the
 * object cannot say). */
struct obp_stats {
	uint64_t hist_full;
	uint64_t inflight_full;
	uint64_t pids_full;
	uint64_t skipped;
	uint64_t missed;
};
int obp_stats(struct obp *b, enum obp_layer l, struct obp_stats *out);

/* Names: FUSE opcode @op as the fs layer names it ("op_N" when unknown),
 * and x86-64 system call @nr ("syscall_N" when unknown), into @buf. */
const char *obp_fuse_op_name(unsigned op, char *buf, size_t len);
const char *obp_syscall_name(unsigned nr, char *buf, size_t len);
/*
 * The block layer's op of kernel dev_t @dev (major << 20 | minor) and
 * key part @b (direction << 1 | queue): "<disk>.<dir>[.queue]", <disk>
 * the name /sys/dev/block/MAJ:MIN links to ("MAJ:MIN" without one),
 * <dir> read, write, flush, discard or other.
 */
const char *obp_block_op_name(uint32_t dev, uint32_t b, char *buf, size_t len);
/* A hard handler's op, "<irq>:<name>" (characters that would break a
 * /proc/osprof record become '_'; NULL or "": "unnamed"), and softirq
 * vector @vec's, "softirq:<VECTOR>" ("softirq:<vec>" when unknown). */
const char *obp_irq_op_name(unsigned irq, const char *name, char *buf, size_t len);
const char *obp_softirq_name(unsigned vec, char *buf, size_t len);
/*
 * obp_layer_file - where layer @l of a run written to @file goes, beside
 * it: @file with ".<layer>" before its extension ("run.json" ->
 * "run.fuse.json", "run" -> "run.fuse"), as osprof-fs --dump and
 * osprof-trace -o write them. A new string, or NULL (-ENOMEM).
 */
char *obp_layer_file(const char *file, enum obp_layer l);
/* The number of system call @name, or -1. */
int obp_syscall_nr(const char *name);

/* The number of possible CPUs, as libbpf reads it (per-CPU maps, FUSE's
 * io_uring queues: one per possible CPU); 1 when it cannot tell. */
unsigned obp_possible_cpus(void);

/*
 * Virtual time of threads (obp_vt.bpf.c), apart from the layers: a
 * thread's CPU time over an interval, the Virtual Timers paper's way, at
 * the cost of two memory loads instead of a clock_gettime(
 * CLOCK_THREAD_CPUTIME_ID) system call. A registered thread has a slot
 * in which the programs add up the time it spends switched out
 * (off_ns) and in hard and soft interrupt handlers while current
 * (irq_ns). Over an interval on one thread,
 *
 *	cpu_ns = (t1 - t0) - (obp_vt_deduct_ns(s) at t1 - at t0)
 *
 * where t is any monotonic ns clock of the caller's (the programs use
 * CLOCK_MONOTONIC; durations in ns mix). Read the deduction right after
 * t0 and right before t1, so everything in between is in both.
 *
 * Consistency: read by its own thread while it runs, a slot is exact up
 * to that moment: the switch-in that ended its last off-CPU spell and
 * the exit of every interrupt that hit it were written before it resumed
 * (on its CPU, or ordered by the migration). Read by another thread, off_ns
 * lags while the owner is switched out (out_ns says since when) and
 * irq_ns may grow between the two loads; each load is an aligned 64-bit
 * one, never torn. Not deducted: the interrupt entry and exit code around
 * the handlers' tracepoints, and the part of a context switch before and
 * after the sched_switch tracepoint (both small, and charged as CPU);
 * time a hypervisor took the virtual CPU away while the thread ran
 * (steal: the guest does not see it go, though the kernel's thread clock
 * may leave it out).
 * The tids are the initial PID namespace's: obp_vt_open refuses to run
 * in another.
 */
struct obp_vt;

/*
 * obp_vt_open - load and attach the virtual time programs. 0 with *@out
 * set; else -errno and one line in @why: -EPERM (not root: CAP_BPF and
 * CAP_PERFMON), -EOPNOTSUPP (no BTF, or a PID namespace other than the
 * initial one), -ENOMEM, or a load or attach error.
 */
int obp_vt_open(struct obp_vt **out, char *why, size_t whylen);
/* Detach and free, slots included; NULL is accepted. */
void obp_vt_close(struct obp_vt *vt);

/*
 * obp_vt_register - give the calling thread a slot, its counters zero,
 * into *@slot (valid until the thread unregisters or exits, or @vt is
 * closed). One bpf system call. Registering again replaces the earlier
 * slot (freed), as does a stale entry left by an earlier thread of the
 * same tid. Returns the slot number (>= 0), -ENOSPC when all
 * OBP_VT_SLOTS are taken, -errno of the map update. Thread-safe.
 */
int obp_vt_register(struct obp_vt *vt, const struct obp_vt_slot **slot);
/*
 * obp_vt_unregister - free slot @slot of the calling thread (for
 * instance from a pthread key destructor). A thread that exits without
 * it has its slot freed by the programs (sched_process_exit). 0;
 * -EINVAL for a slot out of range, -EPERM when the calling thread does
 * not own it; -errno of the map delete. Thread-safe.
 */
int obp_vt_unregister(struct obp_vt *vt, int slot);

/* The sums so far, ns: switched out; in interrupt handlers; both (what
 * to deduct from elapsed time). No system call; see above for when
 * they are consistent. */
static inline uint64_t obp_vt_off_ns(const struct obp_vt_slot *s)
{
	return __atomic_load_n(&s->off_ns, __ATOMIC_RELAXED);
}

static inline uint64_t obp_vt_irq_ns(const struct obp_vt_slot *s)
{
	return __atomic_load_n(&s->irq_ns, __ATOMIC_RELAXED);
}

static inline uint64_t obp_vt_deduct_ns(const struct obp_vt_slot *s)
{
	return obp_vt_off_ns(s) + obp_vt_irq_ns(s);
}

/* The system-vector tracepoints attached besides irq_handler and softirq
 * (x86: "local_timer reschedule ..."), for reports; "" for none. */
const char *obp_vt_vectors(const struct obp_vt *vt);

#endif /* OBP_H */
