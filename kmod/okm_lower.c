// SPDX-License-Identifier: GPL-2.0
/*
 * The lower layer: latency of the VFS-level calls made by the processes
 * registered in /proc/osprof/ctl (typically the osprof-fs daemon), as log2
 * histograms of physical time and of virtual time (the calling thread's
 * virtual clock, okm_task.c: without time switched out or in interrupts).
 *
 * One kretprobe per VFS function; the entry handler of a call by an
 * unregistered process checks the tgid list and declines (returns 1), so
 * it costs the probe hit and that check only. Functions missing from a
 * kernel (renamed, inlined) are skipped and listed in ctl; their ops are
 * left out of /proc/osprof/lower. "create" counts both vfs_create() (mknod
 * of a regular file) and opens that created their file (do_filp_open()
 * returning a file with FMODE_CREATED); "open" counts the other opens,
 * path lookup included.
 *
 * Where a VFS helper is inlined into, or cloned for, its callers in its
 * own file, a probe on it misses those calls, so we probe the function
 * every path goes through: vfs_getattr_nosec() (vfs_statx() inlines
 * vfs_getattr()), user_statfs() and fd_statfs() (which call a clone of
 * vfs_statfs()). The VM test checks each op's count against the calls it
 * made, so a kernel that inlines differently shows up there.
 *
 * Only calls on the file system's own objects count: where a probed
 * function takes a struct file *, a call on anything but a regular file,
 * a directory or a block device is declined like a call by an
 * unregistered process (okm_lower_fs_file()). Otherwise a FUSE daemon's
 * reads and writes of /dev/fuse, one of each per request served (the read
 * blocking while it idles), would swamp the reads of its lower files, and
 * its pipes, sockets, eventfds and ttys would count as file-system calls.
 *
 * Histograms are per CPU (okm_cell.c); the return handler runs with
 * preemption off and kprobes do not nest on a CPU, and it still records
 * with interrupts off, as every recorder here does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/minmax.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "okm.h"

enum okm_lower_op {
	OKM_LOWER_READ,
	OKM_LOWER_WRITE,
	OKM_LOWER_READV,
	OKM_LOWER_WRITEV,
	OKM_LOWER_OPEN,
	OKM_LOWER_CREATE,
	OKM_LOWER_GETATTR,
	OKM_LOWER_SETATTR,
	OKM_LOWER_ITERATE_DIR,
	OKM_LOWER_FSYNC,
	OKM_LOWER_UNLINK,
	OKM_LOWER_MKDIR,
	OKM_LOWER_RMDIR,
	OKM_LOWER_RENAME,
	OKM_LOWER_LINK,
	OKM_LOWER_SYMLINK,
	OKM_LOWER_READLINK,
	OKM_LOWER_MKNOD,
	OKM_LOWER_STATFS,
	OKM_LOWER_FALLOCATE,
	OKM_LOWER_COPY_FILE_RANGE,
	OKM_LOWER__COUNT
};

static const char *const okm_lower_op_names[] = {
	[OKM_LOWER_READ] = "read",
	[OKM_LOWER_WRITE] = "write",
	[OKM_LOWER_READV] = "readv",
	[OKM_LOWER_WRITEV] = "writev",
	[OKM_LOWER_OPEN] = "open",
	[OKM_LOWER_CREATE] = "create",
	[OKM_LOWER_GETATTR] = "getattr",
	[OKM_LOWER_SETATTR] = "setattr",
	[OKM_LOWER_ITERATE_DIR] = "iterate_dir",
	[OKM_LOWER_FSYNC] = "fsync",
	[OKM_LOWER_UNLINK] = "unlink",
	[OKM_LOWER_MKDIR] = "mkdir",
	[OKM_LOWER_RMDIR] = "rmdir",
	[OKM_LOWER_RENAME] = "rename",
	[OKM_LOWER_LINK] = "link",
	[OKM_LOWER_SYMLINK] = "symlink",
	[OKM_LOWER_READLINK] = "readlink",
	[OKM_LOWER_MKNOD] = "mknod",
	[OKM_LOWER_STATFS] = "statfs",
	[OKM_LOWER_FALLOCATE] = "fallocate",
	[OKM_LOWER_COPY_FILE_RANGE] = "copy_file_range",
};
static_assert(ARRAY_SIZE(okm_lower_op_names) == OKM_LOWER__COUNT);

struct okm_lower_probe {
	struct kretprobe rp;
	const char *sym;          /* the probed function */
	enum okm_lower_op op;
	u8 file_args;             /* bit n: argument n is a struct file * */
	bool open_may_create;     /* do_filp_open: FMODE_CREATED -> create */
	bool registered;
};

#define OKM_LP(o, s) { .op = OKM_LOWER_##o, .sym = s }
/* @args: OKM_LOWER_FILE_ARG(n) for each struct file * argument (from 0). */
#define OKM_LPF(o, s, args) { .op = OKM_LOWER_##o, .sym = s, .file_args = (args) }
#define OKM_LOWER_FILE_ARG(n) (1u << (n))

/*
 * The struct file * arguments, per the 6.1 signatures (include/linux/fs.h;
 * vfs_readv/vfs_writev are static in fs/read_write.c, and a clone whose
 * arguments changed would carry a suffix, .isra or .constprop, so a probe
 * registered on the plain name sees the declared arguments).
 */
static struct okm_lower_probe okm_lower_probes[] = {
	OKM_LPF(READ, "vfs_read", OKM_LOWER_FILE_ARG(0)),
	OKM_LPF(WRITE, "vfs_write", OKM_LOWER_FILE_ARG(0)),
	OKM_LPF(READV, "vfs_readv", OKM_LOWER_FILE_ARG(0)),
	OKM_LPF(WRITEV, "vfs_writev", OKM_LOWER_FILE_ARG(0)),
	{ .op = OKM_LOWER_OPEN, .sym = "do_filp_open", .open_may_create = true },
	OKM_LP(CREATE, "vfs_create"),
	OKM_LP(GETATTR, "vfs_getattr_nosec"),
	OKM_LP(SETATTR, "notify_change"),
	OKM_LPF(ITERATE_DIR, "iterate_dir", OKM_LOWER_FILE_ARG(0)),
	OKM_LPF(FSYNC, "vfs_fsync_range", OKM_LOWER_FILE_ARG(0)),
	OKM_LP(UNLINK, "vfs_unlink"),
	OKM_LP(MKDIR, "vfs_mkdir"),
	OKM_LP(RMDIR, "vfs_rmdir"),
	OKM_LP(RENAME, "vfs_rename"),
	OKM_LP(LINK, "vfs_link"),
	OKM_LP(SYMLINK, "vfs_symlink"),
	OKM_LP(READLINK, "vfs_readlink"),
	OKM_LP(MKNOD, "vfs_mknod"),
	OKM_LP(STATFS, "user_statfs"),
	OKM_LP(STATFS, "fd_statfs"),
	OKM_LPF(FALLOCATE, "vfs_fallocate", OKM_LOWER_FILE_ARG(0)),
	/* (file_in, pos_in, file_out, ...) */
	OKM_LPF(COPY_FILE_RANGE, "vfs_copy_file_range",
		OKM_LOWER_FILE_ARG(0) | OKM_LOWER_FILE_ARG(2)),
};

/* One op's histograms on one CPU. */
struct okm_lower_body {
	struct okm_hist lat;  /* physical latency */
	struct okm_hist vlat; /* virtual latency of the calling thread */
};

struct okm_lower_cell {
	struct okm_cell c;
	struct okm_lower_body b;
};

struct okm_lower_pcpu {
	struct okm_lower_cell ops[OKM_LOWER__COUNT];
};

static struct okm_lower_pcpu __percpu *okm_lower_data;
static bool okm_lower_op_hooked[OKM_LOWER__COUNT];

/*
 * Registered tgids: written under okm_pids_lock (by ctl, and by the exit
 * probe when a registered process's last thread exits), read locklessly
 * by the probes, which at worst miss a call while the set changes.
 */
static pid_t okm_pids[OKM_MAX_PIDS];
static unsigned int okm_npids;
static DEFINE_SPINLOCK(okm_pids_lock);

/* Per call, kept by the kretprobe instance between entry and return. */
struct okm_lower_ri {
	u64 t0;               /* clock at entry */
	u64 v0;               /* thread's virtual clock at entry */
	struct okm_task *task; /* NULL when no context could be made */
};

bool okm_lower_pid_registered(pid_t tgid)
{
	unsigned int i, n = min_t(unsigned int, READ_ONCE(okm_npids),
				  OKM_MAX_PIDS);

	for (i = 0; i < n; i++) {
		if (READ_ONCE(okm_pids[i]) == tgid)
			return true;
	}
	return false;
}

unsigned int okm_lower_pids(pid_t *out)
{
	unsigned int i, n = READ_ONCE(okm_npids);

	for (i = 0; i < n; i++)
		out[i] = READ_ONCE(okm_pids[i]);
	return n;
}

/* okm_pids_lock held: publish @pids[0..n). */
static void okm_lower_pids_publish(const pid_t *pids, unsigned int n)
{
	unsigned int i;

	/* Shrink the count first, grow it last: probes never read garbage. */
	if (n < okm_npids)
		WRITE_ONCE(okm_npids, n);
	for (i = 0; i < n; i++)
		WRITE_ONCE(okm_pids[i], pids[i]);
	WRITE_ONCE(okm_npids, n);
}

int okm_lower_pids_update(int (*plan)(pid_t *pids, unsigned int *n, void *arg),
			  void *arg)
{
	pid_t pids[OKM_MAX_PIDS];
	unsigned int n;
	int ret;

	spin_lock(&okm_pids_lock);
	n = okm_npids;
	memcpy(pids, okm_pids, n * sizeof(pids[0]));
	ret = plan(pids, &n, arg);
	if (!ret && !WARN_ON_ONCE(n > OKM_MAX_PIDS))
		okm_lower_pids_publish(pids, n);
	spin_unlock(&okm_pids_lock);
	return ret;
}

void okm_lower_task_exit(struct task_struct *p)
{
	unsigned int i, n;

	/* the process's last thread? (do_exit counted it out already) */
	if (!okm_lower_pid_registered(p->tgid) || atomic_read(&p->signal->live))
		return;
	spin_lock(&okm_pids_lock);
	n = okm_npids;
	for (i = 0; i < n; i++) {
		if (okm_pids[i] == p->tgid) {
			WRITE_ONCE(okm_pids[i], okm_pids[n - 1]);
			WRITE_ONCE(okm_npids, n - 1);
			break;
		}
	}
	spin_unlock(&okm_pids_lock);
}

/*
 * Is @f an object of a file system below us: a regular file, a directory,
 * or a block device? The lower layer times a process's calls into the
 * storage it serves from. Character devices (/dev/fuse, ttys, /dev/zero),
 * pipes, sockets and anonymous inodes (eventfd, epoll, timerfd: no type
 * bits at all) are its traffic with the kernel and other processes, not
 * file-system calls. A block device stays: a daemon that keeps its file
 * system on a device or image it reads itself (fuse2fs) makes its lower
 * calls there. Symlinks cannot show up: only an O_PATH descriptor holds a
 * symlink open, and read, write, fsync, fallocate, getdents and
 * copy_file_range refuse O_PATH descriptors (EBADF) before reaching the
 * probed functions. Reading the inode is safe: the caller holds the file,
 * which pins its inode, and an inode's type never changes.
 */
static bool okm_lower_fs_file(const struct file *f)
{
	umode_t mode;

	if (WARN_ON_ONCE(!f))
		return false;
	mode = file_inode(f)->i_mode;
	return S_ISREG(mode) || S_ISDIR(mode) || S_ISBLK(mode);
}

/* Are all of @p's struct file * arguments in @regs file-system objects? */
static bool okm_lower_args_fs_files(const struct okm_lower_probe *p,
				    struct pt_regs *regs)
{
	unsigned int args = p->file_args, n;

	for (n = 0; args; n++, args >>= 1) {
		if ((args & 1) &&
		    !okm_lower_fs_file((const struct file *)
				       regs_get_kernel_argument(regs, n)))
			return false;
	}
	return true;
}

static int okm_lower_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct okm_lower_ri *d = (struct okm_lower_ri *)ri->data;
	const struct okm_lower_probe *p;
	unsigned long flags;

	/* The pid first: an unregistered process pays only this check. */
	if (!okm_on(OKM_LAYER_LOWER) ||
	    !okm_lower_pid_registered(current->tgid))
		return 1; /* not ours: do not hook the return */
	p = container_of(get_kretprobe(ri), struct okm_lower_probe, rp);
	if (p->file_args && !okm_lower_args_fs_files(p, regs))
		return 1; /* not a file-system call: not hooked either */
	d->task = okm_task_current_get(GFP_ATOMIC);
	local_irq_save(flags);
	d->t0 = okm_now();
	d->v0 = d->task ? okm_vclock_read(&d->task->vc, d->t0) : 0;
	local_irq_restore(flags);
	return 0;
}

static int okm_lower_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct okm_lower_ri *d = (struct okm_lower_ri *)ri->data;
	struct okm_lower_probe *p =
		container_of(get_kretprobe(ri), struct okm_lower_probe, rp);
	enum okm_lower_op op = p->op;
	struct okm_lower_cell *cell;
	u64 t1, v1 = 0;
	unsigned long flags;

	if (p->open_may_create) {
		struct file *f = (struct file *)regs_return_value(regs);

		if (!IS_ERR_OR_NULL(f) && (f->f_mode & FMODE_CREATED))
			op = OKM_LOWER_CREATE;
	}
	local_irq_save(flags);
	t1 = okm_now();
	if (d->task)
		v1 = okm_vclock_read(&d->task->vc, t1);
	cell = &this_cpu_ptr(okm_lower_data)->ops[op];
	okm_cell_write_begin(&cell->c, okm_epoch(OKM_LAYER_LOWER), &cell->b,
			     sizeof(cell->b));
	okm_hist_record(&cell->b.lat, okm_clock_ns(okm_elapsed(d->t0, t1)));
	if (d->task)
		okm_hist_record(&cell->b.vlat,
				okm_clock_ns(okm_elapsed(d->v0, v1)));
	okm_cell_write_end(&cell->c);
	local_irq_restore(flags);
	return 0;
}

int okm_lower_show(struct seq_file *m, void *v)
{
	unsigned int epoch = okm_epoch(OKM_LAYER_LOWER);
	struct okm_lower_body *sum, *tmp;
	int op, cpu;

	sum = kmalloc(2 * sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	tmp = sum + 1;
	okm_seq_layer_header(m, OKM_LAYER_LOWER);
	for (op = 0; op < OKM_LOWER__COUNT; op++) {
		if (!okm_lower_op_hooked[op])
			continue;
		memset(sum, 0, sizeof(*sum));
		for_each_possible_cpu(cpu) {
			struct okm_lower_cell *c =
				&per_cpu_ptr(okm_lower_data, cpu)->ops[op];

			if (!okm_cell_read(&c->c, epoch, &c->b, tmp, sizeof(*tmp)))
				continue;
			okm_hist_merge(&sum->lat, &tmp->lat);
			okm_hist_merge(&sum->vlat, &tmp->vlat);
		}
		seq_printf(m, "op=%s ", okm_lower_op_names[op]);
		okm_seq_hist(m, "", &sum->lat);
		seq_putc(m, ' ');
		okm_seq_hist(m, "v", &sum->vlat);
		seq_putc(m, '\n');
	}
	kfree(sum);
	return 0;
}

void okm_lower_ctl_show(struct seq_file *m)
{
	unsigned int i, nmissing = 0;
	unsigned long missed = 0;

	seq_puts(m, "lower_missing");
	for (i = 0; i < ARRAY_SIZE(okm_lower_probes); i++) {
		struct okm_lower_probe *p = &okm_lower_probes[i];

		if (p->registered) {
			missed += READ_ONCE(p->rp.nmissed);
			continue;
		}
		seq_printf(m, "%c%s", nmissing ? ',' : ' ', p->sym);
		nmissing++;
	}
	if (!nmissing)
		seq_puts(m, " none");
	seq_printf(m, "\nlower_missed %lu\n", missed);
}

int okm_lower_init(void)
{
	unsigned int i, nreg = 0;
	int cpu, op, ret;

	okm_lower_data = alloc_percpu(struct okm_lower_pcpu);
	if (!okm_lower_data)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		for (op = 0; op < OKM_LOWER__COUNT; op++)
			okm_cell_init(&per_cpu_ptr(okm_lower_data, cpu)->ops[op].c);
	}
	for (i = 0; i < ARRAY_SIZE(okm_lower_probes); i++) {
		struct okm_lower_probe *p = &okm_lower_probes[i];

		p->rp.kp.symbol_name = p->sym;
		p->rp.entry_handler = okm_lower_entry;
		p->rp.handler = okm_lower_ret;
		p->rp.data_size = sizeof(struct okm_lower_ri);
		/* Threads of registered processes blocked in calls at once. */
		p->rp.maxactive = max_t(int, 64, 4 * num_possible_cpus());
		ret = register_kretprobe(&p->rp);
		if (ret) {
			pr_info("lower: cannot probe %s (%d), op %s incomplete\n",
				p->sym, ret, okm_lower_op_names[p->op]);
			continue;
		}
		p->registered = true;
		okm_lower_op_hooked[p->op] = true;
		nreg++;
	}
	if (!nreg)
		pr_warn("lower: no VFS function could be probed\n");
	return 0;
}

void okm_lower_stop(void)
{
	struct kretprobe *rps[ARRAY_SIZE(okm_lower_probes)];
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(okm_lower_probes); i++) {
		if (okm_lower_probes[i].registered) {
			rps[n++] = &okm_lower_probes[i].rp;
			okm_lower_probes[i].registered = false;
		}
	}
	/* Waits until no handler runs; pending returns skip our handler. */
	if (n)
		unregister_kretprobes(rps, n);
}

void okm_lower_free(void)
{
	free_percpu(okm_lower_data);
	okm_lower_data = NULL;
}
