// SPDX-License-Identifier: MIT
/*
 * Layers "syscall" and "lower": the latency of system calls, entry to
 * exit, per call number. Whose: the processes in pids (by role: a
 * workload's calls are layer syscall, the osprof-fs daemon's are layer
 * lower), those in cgroup_id, and with follow_children the children that
 * traced processes fork. The daemon's calls that are not on the lower
 * file system -- waiting for requests on /dev/fuse, replying, sleeping --
 * are left out: user space marks the waiting calls' numbers in
 * lower_skip_nr, and a call whose descriptor is a /dev/fuse (any of
 * them: libfuse's clone_fd opens one per worker) is known by its device.
 *
 * With mount_filter, layer syscall keeps only calls on a descriptor
 * whose file is on mount mount_id (fd_arg says which argument holds the
 * descriptor; see enum obp_fd_arg). Calls on paths are dropped: which
 * mount a path is on is known only once the kernel has walked it, after
 * sys_enter, so a filter there would have to guess.
 */
#include "obp_common.bpf.h"
#include "obp_pids.bpf.h"

#define OBP_MAX_NR 1024

const volatile __u64 cgroup_id = 0;      /* cgroup v2 id; 0: none */
const volatile __u32 follow_children = 0;
const volatile __u32 lower_on = 0;       /* the daemon's calls are wanted */
const volatile __u32 mount_filter = 0;   /* layer syscall: only mount_id's */
const volatile __s32 mount_id = 0;

/*
 * Each thread's state, in task-local storage (found from the task in a
 * few ns, freed with it; no table of thread ids to update and delete on
 * every call): its process's role, cached while pids_gen stands still;
 * the call in flight; the descriptor it last found to be a /dev/fuse.
 */
struct task_state {
	__u64 ts;       /* the call's entry, ns */
	__u64 gen;      /* pids_gen + 1 when role was read; 0: never */
	__u32 role;     /* enum obp_role, 0: none */
	__u32 nr;       /* the call in flight */
	__u32 kind;     /* its layer (enum obp_kind); 0: none in flight */
	__u32 unsure;   /* the mount filter decides at exit (on_mount) */
	__s32 fuse_fd;  /* + 1: a descriptor known to be a /dev/fuse */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
} tstate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OBP_MAX_NR);
	__type(key, __u32);
	__type(value, __u32);
} lower_skip_nr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OBP_MAX_NR);
	__type(key, __u32);
	__type(value, __u32); /* enum obp_fd_arg */
} fd_arg SEC(".maps");

/* The file of descriptor @fd of the current process; NULL when @fd is
 * not open. */
static __always_inline struct file *fd_file(__u64 fd)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *f = NULL;

	if (fd >= BPF_CORE_READ(fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]))
		return NULL;
	return f;
}

/* The id of the mount that descriptor @fd of the current process is on;
 * -1 when @fd is not open. */
static __always_inline int fd_mount_id(__u64 fd)
{
	struct file *f = fd_file(fd);
	struct vfsmount *mnt;

	if (!f)
		return -1;
	mnt = BPF_CORE_READ(f, f_path.mnt);
	if (!mnt)
		return -1;
	/* container_of(mnt, struct mount, mnt), at this kernel's offset. */
	return BPF_CORE_READ((struct mount *)((char *)mnt - bpf_core_field_offset(struct mount, mnt)),
			     mnt_id);
}

/* /dev/fuse, the misc device 10:229, as the kernel's dev_t. */
#define OBP_FUSE_DEVT (10u << 20 | 229u)

/* True when descriptor @fd (an int in a 64-bit register) is a /dev/fuse
 * of the current process: a FUSE daemon's requests and replies. */
static __always_inline bool fd_is_fuse_dev(__u64 fd)
{
	struct file *f;

	if ((__s32)fd < 0)
		return false;
	f = fd_file((__u32)fd);
	return f && BPF_CORE_READ(f, f_inode, i_rdev) == OBP_FUSE_DEVT;
}

/* True when descriptor @fd is a /dev/fuse, from @t's memory of the
 * last one it found (a worker reads and replies on one descriptor). */
static __always_inline bool fuse_fd(struct task_state *t, __u64 fd)
{
	if ((__s32)fd + 1 == t->fuse_fd)
		return true;
	if (!fd_is_fuse_dev(fd))
		return false;
	t->fuse_fd = (__s32)fd + 1;
	return true;
}

/*
 * True when call @nr works on a /dev/fuse: the daemon's requests come by
 * read or splice, its replies go by write, writev or splice (from a pipe
 * into it); only those calls are looked at, so a lower file's pread
 * costs no walk of the descriptor table.
 */
static __always_inline bool on_fuse_dev(struct task_state *t, struct pt_regs *regs, __u32 nr)
{
	__u32 *how = bpf_map_lookup_elem(&fd_arg, &nr);

	if (!how)
		return false;
	switch (*how) {
	case OBP_FD_FUSE_IO:
		return fuse_fd(t, regs->di);
	case OBP_FD_SPLICE:
		return fuse_fd(t, regs->di) || fuse_fd(t, regs->dx);
	default:
		return false;
	}
}

/* What the mount filter says of a call. */
enum { ON_OTHER, ON_MOUNT, ON_UNSURE };

/*
 * Whether call @nr with registers @regs is on a file of mount mount_id.
 * ON_UNSURE when its path could not be read (a page not yet touched: a
 * BPF program cannot take the fault): sys_exit asks again, once the
 * kernel has read the path itself. The descriptor and the path are
 * still the call's then: the calls that take an empty path do not
 * change the descriptor table.
 */
static __always_inline int on_mount(struct pt_regs *regs, __u32 nr)
{
	__u32 *how = bpf_map_lookup_elem(&fd_arg, &nr);
	__u64 fd;
	char c;

	if (!how)
		return ON_OTHER;
	switch (*how) {
	case OBP_FD_ARG0:
	case OBP_FD_FUSE_IO:
	case OBP_FD_SPLICE:
		fd = regs->di;
		break;
	case OBP_FD_ARG1:
		fd = regs->si;
		break;
	case OBP_FD_EMPTY_AT:
		if (bpf_probe_read_user(&c, 1, (const void *)regs->si))
			return ON_UNSURE;
		if (c)
			return ON_OTHER;
		fd = regs->di;
		break;
	default:
		return ON_OTHER;
	}
	/* An int in a 64-bit register: AT_FDCWD and errors are negative. */
	if ((__s32)fd < 0)
		return ON_OTHER;
	return fd_mount_id((__u32)fd) == mount_id ? ON_MOUNT : ON_OTHER;
}

/* @t's role, from its cache or, when pids changed since, the map. */
static __always_inline __u32 role_of(struct task_state *t)
{
	__u32 zero = 0, tgid, *role;
	__u64 *gen = bpf_map_lookup_elem(&pids_gen, &zero);

	if (!gen)
		return 0;
	if (t->gen == *gen + 1)
		return t->role;
	tgid = (__u32)(bpf_get_current_pid_tgid() >> 32);
	role = bpf_map_lookup_elem(&pids, &tgid);
	t->role = role ? *role : 0;
	t->gen = *gen + 1;
	return t->role;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(obp_sys_enter, struct pt_regs *regs, long id)
{
	struct task_state *t;
	__u32 nr = (__u32)id, kind, role;

	if (!obp_enabled || id < 0 || id >= OBP_MAX_NR)
		return 0;
	t = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	t->kind = 0;
	role = role_of(t);
	if (role == OBP_ROLE_DAEMON && !lower_on)
		return 0;
	if (role)
		kind = role == OBP_ROLE_DAEMON ? OBP_K_LOWER : OBP_K_SYSCALL;
	else if (cgroup_id && bpf_get_current_cgroup_id() == cgroup_id)
		kind = OBP_K_SYSCALL;
	else
		return 0;
	t->unsure = 0;
	if (kind == OBP_K_SYSCALL && mount_filter) {
		int on = on_mount(regs, nr);

		if (on == ON_OTHER)
			return 0;
		t->unsure = on == ON_UNSURE;
	}
	if (kind == OBP_K_LOWER) {
		__u32 *skip = bpf_map_lookup_elem(&lower_skip_nr, &nr);

		if ((skip && *skip) || on_fuse_dev(t, regs, nr))
			return 0;
	}
	t->nr = nr;
	t->kind = kind;
	t->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(obp_sys_exit, struct pt_regs *regs, long ret)
{
	struct task_state *t;
	__u64 now;
	__u32 kind;

	/* No storage: a task that made no call since we loaded. */
	t = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!t || !t->kind)
		return 0;
	now = bpf_ktime_get_ns();
	kind = t->kind;
	t->kind = 0;
	if (t->unsure && on_mount(regs, t->nr) != ON_MOUNT)
		return 0;
	obp_record(kind, t->nr, 0, now > t->ts ? now - t->ts : 0);
	return 0;
}

/* A traced workload's children are traced (threads share the tgid). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(obp_sys_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid, ctgid, *role;

	if (!follow_children)
		return 0;
	ptgid = (__u32)BPF_CORE_READ(parent, tgid);
	ctgid = (__u32)BPF_CORE_READ(child, tgid);
	if (ptgid == ctgid)
		return 0;
	role = bpf_map_lookup_elem(&pids, &ptgid);
	if (role && *role == OBP_ROLE_WORKLOAD)
		obp_pid_add_workload(ctgid);
	return 0;
}

/*
 * A process that ends leaves the map (its tgid may be reused): when its
 * leader exits. The tracepoint's second argument (group_dead) is not in
 * every kernel, so the leader stands for the group.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(obp_sys_exit_task, struct task_struct *task)
{
	__u32 tgid = (__u32)BPF_CORE_READ(task, tgid), *role;

	if ((__u32)BPF_CORE_READ(task, pid) != tgid)
		return 0;
	role = bpf_map_lookup_elem(&pids, &tgid);
	if (role && *role == OBP_ROLE_WORKLOAD && bpf_map_delete_elem(&pids, &tgid) == 0)
		obp_pids_changed();
	return 0;
}
