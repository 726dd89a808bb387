// SPDX-License-Identifier: MIT
/*
 * Layers "syscall" and "lower": the latency of system calls, entry to
 * exit, per call number. Whose: the processes whose bit is set in traced
 * (obp_pids.bpf.h: added by user space, by the fuse object for the
 * processes that send a mount requests, and with follow_children for the
 * children that traced processes fork) and those of cgroup_id make layer
 * syscall; the osprof-fs daemon (daemon_tgid) makes layer lower. The
 * daemon's calls that are not on the lower file system -- waiting for
 * requests on /dev/fuse, replying, sleeping -- are left out: user space
 * marks the waiting calls (OBP_LOWER_SKIP), and a call whose descriptor
 * is a /dev/fuse (any of them: libfuse's clone_fd opens one per worker)
 * is known by its device.
 *
 * With the mount filter -- this source compiled again with
 * OBP_SYS_MOUNT, object obp_sysm, which obp_sys.c loads instead -- layer
 * syscall keeps only the calls on mount mount_id (enum obp_call_flags):
 * those with a descriptor on it, decided at entry; and the calls on a
 * path whose result names the mount, decided at exit: a returned
 * descriptor on it, or the device (statx: the mount id) that a stat call
 * wrote. Other path calls leave no such evidence
 * and are dropped. Descriptors and stat results of inodes skip_ino_lo ..
 * skip_ino_hi - 1 on the mount are not the mount's either (osprof-fs's
 * control directory: reading it is no call of the workload's).
 *
 * Three objects of this source. libbpf 1.1 scans all the kernel's types
 * once for each kernel type an object's loaded code names (what a scan
 * costs: docs/layers.md#what-a-call-costs): the object without the filter (sys) names task_struct alone,
 * unless the daemon's calls are wanted (the _l pair). And sysw
 * (OBP_SYS_WORKLOAD), without the _l pair, is loaded through a light
 * skeleton, whose loader program does all that in the kernel (obp_sys.c).
 *
 * Cost (bench/osprof_sys_cost.c): every call on the machine pays the
 * kernel's tracepoint path and two tests of a bitmap bit; a traced call
 * adds its task storage, two clock reads and the histogram; the mount
 * filter adds, per descriptor, seven loads (four probe reads more before
 * Linux 6.2).
 */
#include "obp_common.bpf.h"
#include "obp_pids.bpf.h"

/*
 * Each pair of call programs is one variant of sys_enter and sys_exit,
 * constants the compiler folds, so a program has no code (and libbpf no
 * relocation to resolve at load) of what it does not do.
 */
enum sys_variant {
	SV_MOUNT = 1, /* the mount filter */
	SV_CAST = 2,  /* its reads through bpf_rdonly_cast, not probe reads */
	SV_LOWER = 4, /* the daemon's calls may be wanted (lower_on) */
};

const volatile __u64 cgroup_id = 0;      /* cgroup v2 id; 0: none */
const volatile __u32 follow_children = 0;
const volatile __u32 lower_on = 0;       /* the daemon's calls are wanted */
const volatile __s32 mount_id = 0;
const volatile __u64 mount_st_dev = 0;   /* the mount's st_dev, as stat says */
const volatile __u32 mount_dev_major = 0; /* the same, as statx says */
const volatile __u32 mount_dev_minor = 0;
const volatile __u64 skip_ino_lo = 0;    /* inodes not the mount's: lo .. hi - 1 */
const volatile __u64 skip_ino_hi = 0;

/* The daemon (layer lower; never a workload), set by user space. */
volatile __u32 daemon_tgid = 0;
/* The address of mount mount_id's struct vfsmount, once a descriptor on
 * it was seen: then one compare tells a file on it from one elsewhere. */
__u64 mount_addr = 0;

/*
 * Each traced thread's call in flight, in task-local storage (found from
 * the task in a few ns, freed with it; no table of thread ids to update
 * and delete on every call), and the descriptor it last found to be a
 * /dev/fuse. Only traced threads have it.
 */
struct task_state {
	__u64 ts;       /* the call's entry, ns */
	__u32 nr;       /* the call in flight */
	__u32 kind;     /* its layer (enum obp_kind); 0: none in flight */
	__u32 at_exit;  /* OBP_AT_*: the mount filter decides at exit */
	__s32 fuse_fd;  /* + 1: a descriptor known to be a /dev/fuse */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tstate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OBP_SYS_MAX_NR);
	__type(key, __u32);
	__type(value, __u32); /* enum obp_call_flags */
} call_flags SEC(".maps");

/* The histograms by index (obp_abi.h): slot_of gives a call's slot. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * OBP_SYS_MAX_NR);
	__type(key, __u32);
	__type(value, __u32);
} slot_of SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OBP_SYS_SLOTS);
	__type(key, __u32);
	__type(value, struct obp_hist);
} slot_hists SEC(".maps");

__u32 slots_used = 0;
const volatile __u32 nslots = OBP_SYS_SLOTS; /* slot_hists' entries */

/* A slot for the call of @slot (its slot_of entry): 1 + its index, or 0
 * when all are taken. Two CPUs may race for one call: the first one's
 * stands, the other's stays unused. */
static __always_inline __u32 slot_take(__u32 *slot)
{
	__u32 s, old;

	if (slots_used >= nslots)
		return 0;
	s = __sync_fetch_and_add(&slots_used, 1) + 1;
	if (s > nslots)
		return 0;
	old = __sync_val_compare_and_swap(slot, 0, s);
	return old ? old : s;
}

/* Add @v_ns to call @nr's histogram of layer @kind. */
static __always_inline void sys_record(__u32 kind, __u32 nr, __u64 v_ns)
{
	__u32 i = (kind == OBP_K_LOWER ? OBP_SYS_MAX_NR : 0) + nr, *slot, s;
	struct obp_hist *h = NULL;

	slot = bpf_map_lookup_elem(&slot_of, &i);
	if (!slot)
		return;
	s = *slot;
	if (!s)
		s = slot_take(slot);
	if (s) {
		i = s - 1;
		h = bpf_map_lookup_elem(&slot_hists, &i);
	}
	if (!h) {
		struct obp_key key = { .kind = kind, .a = nr };

		h = obp_hist_of(&key);
	}
	/* one copy of the add, whichever map holds it: fewer paths for
	 * the verifier to walk at load */
	if (h)
		obp_hist_add(h, v_ns);
}

static __always_inline bool skip_ino(__u64 ino)
{
	return ino >= skip_ino_lo && ino < skip_ino_hi;
}

#ifdef OBP_SYS_MOUNT
/*
 * Kernel pointers read with plain loads: the verifier turns
 * bpf_rdonly_cast (Linux 6.2+) into a move and each load through it into
 * one load that reads 0 should the address fault -- what
 * bpf_probe_read_kernel guarantees, without a helper call per field
 * (the walk below was four of them: docs/overhead.md#near-native says
 * what they cost a traced read). Weak: on an older kernel the object still loads, with the
 * programs that read by probe reads instead (the loader tries these
 * first, those on failure).
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;
#define OBP_KPTR(type, p) ((type *)bpf_rdonly_cast((const void *)(p), bpf_core_type_id_kernel(type)))

/* Whether a file on struct vfsmount @mnt is on mount mount_id: 1 yes, 0
 * no, -1 not known yet (the caller reads the mount's id, and on a match
 * stores @mnt in mount_addr). A mount has one struct vfsmount: once its
 * address is known, any other address is another mount. */
static __always_inline int mnt_known(__u64 mnt)
{
	__u64 known = mount_addr;

	if (!mnt)
		return 0;
	if (mnt == known)
		return 1;
	return known ? 0 : -1;
}

/*
 * True when descriptor @fd of the current process is a file on mount
 * mount_id, not one of the inodes skipped. Global functions: the
 * verifier checks each once, not at each of its seven call sites (a load
 * of a BTF pointer costs it a search of the kernel's BTF: milliseconds).
 * obp_fd_on_mount reads through bpf_rdonly_cast; obp_fd_on_mount_pr,
 * for kernels without it, by probe reads.
 */
__noinline bool obp_fd_on_mount(__u64 fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct files_struct *files = task->files;
	struct vfsmount *mnt;
	struct fdtable *fdt;
	struct file *f;
	int k;

	/* An int in a 64-bit register: AT_FDCWD and errors are negative. */
	if ((__s32)fd < 0 || !files)
		return false;
	fdt = files->fdt;
	if (!fdt || (__u32)fd >= fdt->max_fds)
		return false;
	/* The table's slot: an array of pointers is no type the verifier
	 * indexes, so the slot is read as the field fd of a struct fdtable
	 * placed around it, a pointer of the same size (fdtable, already
	 * relocated: each other type would cost libbpf one more scan of
	 * the kernel's types at load). */
	f = (struct file *)OBP_KPTR(struct fdtable, (char *)&fdt->fd[(__u32)fd] -
						    bpf_core_field_offset(struct fdtable, fd))->fd;
	if (!f)
		return false;
	f = OBP_KPTR(struct file, f);
	mnt = f->f_path.mnt;
	k = mnt_known((__u64)mnt);
	if (k < 0) {
		/* container_of(mnt, struct mount, mnt), at this kernel's offset */
		if (OBP_KPTR(struct mount, (char *)mnt - bpf_core_field_offset(struct mount, mnt))->mnt_id !=
		    mount_id)
			return false;
		mount_addr = (__u64)mnt;
	} else if (!k) {
		return false;
	}
	return !skip_ino_hi || !skip_ino(f->f_inode->i_ino);
}

__noinline bool obp_fd_on_mount_pr(__u64 fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct files_struct *files = task->files;
	struct file **fds, *f = NULL;
	struct vfsmount *mnt;
	struct fdtable *fdt;
	int k;

	if ((__s32)fd < 0 || !files)
		return false;
	fdt = files->fdt;
	if (!fdt || (__u32)fd >= fdt->max_fds)
		return false;
	fds = fdt->fd;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[(__u32)fd]) || !f)
		return false;
	mnt = BPF_CORE_READ(f, f_path.mnt);
	k = mnt_known((__u64)mnt);
	if (k < 0) {
		if (BPF_CORE_READ((struct mount *)((char *)mnt - bpf_core_field_offset(struct mount, mnt)),
				  mnt_id) != mount_id)
			return false;
		mount_addr = (__u64)mnt;
	} else if (!k) {
		return false;
	}
	return !skip_ino_hi || !skip_ino(BPF_CORE_READ(f, f_inode, i_ino));
}

/* @cast: which of the two (a constant: each program has one). */
static __always_inline bool fd_on_mount(__u64 fd, bool cast)
{
	return cast ? obp_fd_on_mount(fd) : obp_fd_on_mount_pr(fd);
}
#else
/* The object without the mount filter: its programs never ask, and it
 * has none of the functions above (libbpf resolves every global
 * function's relocations at load, whichever program calls it: in this
 * object, six kernel types to look for, a scan each). */
static __always_inline bool fd_on_mount(__u64 fd, bool cast)
{
	return false;
}
#endif

/* True when one of the descriptors that @flags names in @regs is on the
 * mount. */
static __always_inline bool fds_on_mount(struct pt_regs *regs, __u32 flags, bool cast)
{
	if ((flags & OBP_FD_A0) && fd_on_mount(regs->di, cast))
		return true;
	if ((flags & OBP_FD_A1) && fd_on_mount(regs->si, cast))
		return true;
	if ((flags & OBP_FD_A2) && fd_on_mount(regs->dx, cast))
		return true;
	/* mmap's descriptor, unless the mapping is anonymous (MAP_ANONYMOUS
	 * ignores it, whatever it holds) */
	return (flags & OBP_FD_MMAP) && !(regs->r10 & 0x20) && fd_on_mount(regs->r8, cast);
}

/* x86-64's struct stat and the head of struct statx, as far as read. */
struct obp_stat_head {
	__u64 st_dev;
	__u64 st_ino;
};

struct obp_statx_head { /* linux/stat.h's, to stx_mnt_id */
	__u32 stx_mask;
	__u32 pad0[7];
	__u64 stx_ino;          /* offset 32 */
	__u64 pad1[11];
	__u32 stx_rdev_major;   /* offset 128 */
	__u32 stx_rdev_minor;
	__u32 stx_dev_major;    /* offset 136 */
	__u32 stx_dev_minor;
	__u64 stx_mnt_id;       /* offset 144 */
};

_Static_assert(sizeof(struct obp_statx_head) == 152, "struct statx up to stx_mnt_id");

#define OBP_STATX_MNT_ID 0x1000u
#define OBP_STATX_MNT_ID_UNIQUE 0x4000u

/*
 * At a call's exit: whether what it returned or wrote says mount
 * mount_id, for a call of class @at (enum obp_call_flags). The kernel
 * has just written the buffer: its page is in memory.
 */
static __always_inline bool exit_on_mount(struct pt_regs *regs, long ret, __u32 at, bool cast)
{
	struct obp_statx_head sx;
	struct obp_stat_head st;
	const void *buf;

	if (at & OBP_AT_OPEN)
		return ret >= 0 && fd_on_mount((__u64)ret, cast);
	if (ret != 0)
		return false;
	if (at & OBP_AT_STATX) {
		if (bpf_probe_read_user(&sx, sizeof(sx), (const void *)regs->r8))
			return false;
		if (skip_ino_hi && skip_ino(sx.stx_ino))
			return false;
		if ((sx.stx_mask & (OBP_STATX_MNT_ID | OBP_STATX_MNT_ID_UNIQUE)) == OBP_STATX_MNT_ID)
			return sx.stx_mnt_id == (__u64)(__s64)mount_id;
		return sx.stx_dev_major == mount_dev_major && sx.stx_dev_minor == mount_dev_minor;
	}
	buf = (const void *)((at & OBP_AT_STAT1) ? regs->si : regs->dx);
	if (bpf_probe_read_user(&st, sizeof(st), buf))
		return false;
	return st.st_dev == mount_st_dev && !(skip_ino_hi && skip_ino(st.st_ino));
}

/* /dev/fuse, the misc device 10:229, as the kernel's dev_t. */
#define OBP_FUSE_DEVT (10u << 20 | 229u)

/*
 * True when descriptor @fd is a /dev/fuse, from @t's memory of the last
 * one it found (a worker reads and replies on one descriptor). Found by
 * probe reads, not the mount filter's walk: this runs once per worker,
 * and an object without the mount filter then loads no walk through BTF
 * pointers.
 */
static __always_inline bool fuse_fd(struct task_state *t, __u64 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *f = NULL;

	if ((__s32)fd + 1 == t->fuse_fd)
		return true;
	if ((__s32)fd < 0 || !fdt || (__u32)fd >= BPF_CORE_READ(fdt, max_fds))
		return false;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[(__u32)fd]) || !f ||
	    BPF_CORE_READ(f, f_inode, i_rdev) != OBP_FUSE_DEVT)
		return false;
	t->fuse_fd = (__s32)fd + 1;
	return true;
}

/*
 * True when a call of @flags works on a /dev/fuse: the daemon's requests
 * come by read or splice, its replies go by write, writev or splice (from
 * a pipe into it); only those calls are looked at, so a lower file's
 * pread costs no walk of the descriptor table.
 */
static __always_inline bool on_fuse_dev(struct task_state *t, struct pt_regs *regs, __u32 flags)
{
	if (!(flags & OBP_FD_FUSE))
		return false;
	return fuse_fd(t, regs->di) || ((flags & OBP_FD_A2) && fuse_fd(t, regs->dx));
}

/* Whether process @tgid is layer syscall's: traced, or in the cgroup. */
static __always_inline bool workload(__u32 tgid)
{
	return obp_pid_traced(tgid) || (cgroup_id && bpf_get_current_cgroup_id() == cgroup_id);
}

/*
 * A call's entry; @v: the program's variant (enum sys_variant: the loader
 * loads one pair of programs).
 */
static __always_inline int sys_enter(struct pt_regs *regs, long id, unsigned v)
{
	bool mount = v & SV_MOUNT, cast = v & SV_CAST;
	__u32 nr = (__u32)id, tgid, kind, flags = 0, at_exit = 0, *fl;
	struct task_state *t;

	if (!obp_enabled || (__u64)id >= OBP_SYS_MAX_NR)
		return 0;
	tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	if (tgid == daemon_tgid) {
		if (!(v & SV_LOWER) || !lower_on)
			return 0;
		kind = OBP_K_LOWER;
	} else if (workload(tgid)) {
		kind = OBP_K_SYSCALL;
	} else {
		return 0;
	}
	/* The call's flags serve the mount filter and the daemon's calls
	 * only: a traced call without the filter needs no lookup. */
	if (mount || kind == OBP_K_LOWER) {
		fl = bpf_map_lookup_elem(&call_flags, &nr);
		if (fl)
			flags = *fl;
	}
	/* Before the task's storage: a call not on the mount costs nothing
	 * more. */
	if (kind == OBP_K_SYSCALL && mount) {
		at_exit = flags & OBP_AT_ANY;
		if (!at_exit && !fds_on_mount(regs, flags, cast))
			return 0;
	}
	if (kind == OBP_K_LOWER && (flags & OBP_LOWER_SKIP))
		return 0;
	t = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	if (kind == OBP_K_LOWER && on_fuse_dev(t, regs, flags)) {
		t->kind = 0;
		return 0;
	}
	t->nr = nr;
	t->kind = kind;
	t->at_exit = at_exit;
	t->ts = bpf_ktime_get_ns();
	return 0;
}

/* True when call @nr may be on a file: a descriptor or a path result. */
static __always_inline bool may_be_on_mount(long nr)
{
	__u32 k = (__u32)nr, *fl;

	if ((__u64)nr >= OBP_SYS_MAX_NR)
		return false;
	fl = bpf_map_lookup_elem(&call_flags, &k);
	return fl && (*fl & (OBP_FD_A0 | OBP_FD_A1 | OBP_FD_A2 | OBP_FD_MMAP | OBP_AT_ANY));
}

/* A call's exit; @v as for sys_enter. */
static __always_inline int sys_exit(struct pt_regs *regs, long ret, unsigned v)
{
	bool mount = v & SV_MOUNT, cast = v & SV_CAST;
	__u32 tgid = (__u32)(bpf_get_current_pid_tgid() >> 32), kind;
	struct task_state *t;
	__u64 now;

	/* Only a traced thread has a call in flight: the others stop here. */
	if (tgid == daemon_tgid) {
		if (!(v & SV_LOWER) || !lower_on)
			return 0;
	} else if (!workload(tgid)) {
		/* with a cgroup, not every thread's exit to task storage */
		return 0;
	} else if (mount && !may_be_on_mount(regs->orig_ax)) {
		/* a call the mount filter never keeps (getppid, nanosleep):
		 * not worth a look at the task's storage */
		return 0;
	}
	t = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!t || !t->kind)
		return 0;
	now = bpf_ktime_get_ns();
	kind = t->kind;
	t->kind = 0;
	if (mount && t->at_exit && !exit_on_mount(regs, ret, t->at_exit, cast))
		return 0;
	sys_record(kind, t->nr, now > t->ts ? now - t->ts : 0);
	return 0;
}

/*
 * sysw's programs are raw tracepoints, attached by name: neither its
 * loader nor the kernel then searches the kernel's BTF for the
 * tracepoint's type (two linear searches of all its types a program:
 * docs/layers.md#what-a-call-costs). Their arguments are plain
 * words: these programs read through them only by probe reads.
 */
#ifdef OBP_SYS_WORKLOAD
#define SYS_TP(name) SEC("raw_tp/" #name)
#else
#define SYS_TP(name) SEC("tp_btf/" #name)
#endif

#ifndef OBP_SYS_MOUNT
/* Without the mount filter: the workload's calls (osprof-trace, -o
 * syscall=all), and with the daemon's (the _l pair: lower on). */
SYS_TP(sys_enter)
int BPF_PROG(obp_sys_enter, struct pt_regs *regs, long id)
{
	return sys_enter(regs, id, 0);
}

SYS_TP(sys_exit)
int BPF_PROG(obp_sys_exit, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, 0);
}

#ifndef OBP_SYS_WORKLOAD
SEC("tp_btf/sys_enter")
int BPF_PROG(obp_sys_enter_l, struct pt_regs *regs, long id)
{
	return sys_enter(regs, id, SV_LOWER);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(obp_sys_exit_l, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, SV_LOWER);
}
#endif
#else
/* With the mount filter (names cut to 15 characters by the kernel:
 * obp_sys_enter_m, obp_sys_exit_mn), and the same for kernels without
 * bpf_rdonly_cast (obp_sys_enter_p, obp_sys_exit_pr). */
SEC("tp_btf/sys_enter")
int BPF_PROG(obp_sys_enter_mnt, struct pt_regs *regs, long id)
{
	return sys_enter(regs, id, SV_MOUNT | SV_CAST | SV_LOWER);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(obp_sys_exit_mnt, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, SV_MOUNT | SV_CAST | SV_LOWER);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(obp_sys_enter_pr, struct pt_regs *regs, long id)
{
	return sys_enter(regs, id, SV_MOUNT | SV_LOWER);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(obp_sys_exit_pr, struct pt_regs *regs, long ret)
{
	return sys_exit(regs, ret, SV_MOUNT | SV_LOWER);
}
#endif

/* A traced workload's children are traced (threads share the tgid).
 * The parent is the current task; the child's tgid by a probe read. */
SYS_TP(sched_process_fork)
int BPF_PROG(obp_sys_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid, ctgid;

	(void)parent;
	if (!follow_children)
		return 0;
	ptgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	ctgid = (__u32)BPF_CORE_READ(child, tgid);
	if (ptgid != ctgid && ptgid != daemon_tgid && obp_pid_traced(ptgid))
		obp_pid_add(ctgid);
	return 0;
}

/*
 * A process that ends is no longer traced (its tgid may be reused): when
 * its leader exits. The tracepoint's second argument (group_dead) is not
 * in every kernel, so the leader stands for the group.
 */
SYS_TP(sched_process_exit)
int BPF_PROG(obp_sys_exit_task, struct task_struct *task)
{
	/* the task that exits is the current one */
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = (__u32)(id >> 32);

	(void)task;
	if ((__u32)id == tgid)
		obp_pid_remove(tgid);
	return 0;
}
