// SPDX-License-Identifier: MIT
/*
 * Loading the eBPF layers: each BPF object (one per group of layers, see
 * obp_*.bpf.c) is opened from its skeleton, told its options through
 * read-only data, loaded, fed its maps and attached. A layer that fails
 * is left out with its reason; the others go on. libbpf's own messages
 * (verifier logs) are kept, not printed: the last line goes into the
 * reason; OSPROF_BPF_DEBUG=1 prints them all.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_fuse.skel.h"
#include "obp_sys.skel.h"
#include "obp_block.skel.h"
#include "obp_irq.skel.h"

static const char *const layer_names[OBP_L__COUNT] = {
	[OBP_L_FUSE] = "fuse",
	[OBP_L_SYSCALL] = "syscall",
	[OBP_L_LOWER] = "lower",
	[OBP_L_BLOCK] = "block",
	[OBP_L_IRQ] = "irq",
};

const char *obp_layer_name(enum obp_layer l)
{
	return (unsigned)l < OBP_L__COUNT ? layer_names[l] : NULL;
}

int obp_layers_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	unsigned m = 0;
	const char *s = list;

	if (strcmp(list, "all") == 0) {
		*mask = OBP_LAYERS_ALL;
		return 0;
	}
	if (strcmp(list, "none") == 0 || !*list) {
		*mask = 0;
		return 0;
	}
	while (*s) {
		size_t n = strcspn(s, ",:");
		unsigned l;

		for (l = 0; l < OBP_L__COUNT; l++)
			if (strlen(layer_names[l]) == n && strncmp(s, layer_names[l], n) == 0)
				break;
		if (l == OBP_L__COUNT) {
			char known[160] = "";

			for (l = 0; l < OBP_L__COUNT; l++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s, ", layer_names[l]);
			snprintf(err, errlen, "not a layer: '%.*s' (layers: %sor all, none)",
				 (int)(n > 64 ? 64 : n), s, known);
			return -EINVAL;
		}
		m |= OBP_LAYER_BIT(l);
		s += n;
		if ((*s == ',' || *s == ':') && *++s == '\0') {
			snprintf(err, errlen, "layer list ends in a separator");
			return -EINVAL;
		}
	}
	*mask = m;
	return 0;
}

/* ---- libbpf's messages ---- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_last[256];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int debug = -1;
	char line[256];
	size_t n;

	if (debug < 0)
		debug = getenv("OSPROF_BPF_DEBUG") != NULL;
	if (debug)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n) {
		pthread_mutex_lock(&log_mu);
		memcpy(log_last, line, n + 1);
		pthread_mutex_unlock(&log_mu);
	}
	return 0;
}

void obp_libbpf_quiet(void)
{
	libbpf_set_print(libbpf_log);
}

/*
 * Root refused: kernel lockdown forbids what the programs do (reading
 * kernel memory), or a security module does. Say which lockdown mode is
 * on when the kernel tells ("none [integrity] confidentiality").
 */
static void lockdown_why(char *msg, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	char line[128] = "", *a, *z;

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	a = strchr(line, '[');
	z = a ? strchr(a, ']') : NULL;
	if (a && z && strncmp(a + 1, "none", 4) != 0)
		snprintf(msg, len, "not permitted even as root: kernel lockdown is '%.*s' "
			 "(see the kernel log)", (int)(z - a - 1), a + 1);
	else
		snprintf(msg, len, "not permitted even as root (a security module or a "
			 "missing capability: CAP_BPF and CAP_PERFMON; see the kernel log)");
}

void obp_why_msg(char *msg, size_t len, const char *what, int err)
{
	/* Lack of privilege needs no more than that: it is every layer's.
	 * Not -EACCES: that is also the verifier's refusal of a program. */
	if (err == -EPERM && geteuid() != 0)
		snprintf(msg, len, "not permitted (eBPF needs root: CAP_BPF and CAP_PERFMON)");
	else if (err == -EPERM)
		lockdown_why(msg, len);
	else {
		pthread_mutex_lock(&log_mu);
		snprintf(msg, len, "%s: %s%s%.120s", what, strerror(-err),
			 log_last[0] ? ": " : "", log_last);
		pthread_mutex_unlock(&log_mu);
	}
}

/* Why a load or attach of @what failed with @err, for each of @layers. */
static void why_failed(struct obp *b, unsigned layers, const char *what, int err)
{
	char msg[sizeof(b->why[0])];

	obp_why_msg(msg, sizeof(msg), what, err);
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if (layers & OBP_LAYER_BIT(l))
			snprintf(b->why[l], sizeof(b->why[l]), "%s", msg);
}

/* ---- the objects ---- */

/* Calls of the daemon that are not on the lower file system: waiting
 * for work or time, and its own map reads. */
static const char *const lower_skip_calls[] = {
	"futex", "futex_waitv", "poll", "ppoll", "select", "pselect6",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "nanosleep",
	"clock_nanosleep", "rt_sigtimedwait", "rt_sigsuspend", "pause",
	"wait4", "waitid", "restart_syscall", "bpf", "sched_yield",
};

/*
 * The calls the mount filter keeps, by where their descriptor is (enum
 * obp_fd_arg): those that work on an open file's data or metadata. A
 * descriptor-less call (mmap's page faults, nanosleep) and a path call
 * (openat, statx and newfstatat with a path) are not a mount's and are
 * dropped. sendfile is its in_fd's; copy_file_range and splice their
 * source's.
 */
static const struct {
	const char *name;
	enum obp_fd_arg how;
} mount_fd_calls[] = {
	{ "read", OBP_FD_FUSE_IO }, { "write", OBP_FD_FUSE_IO },
	{ "pread64", OBP_FD_ARG0 }, { "pwrite64", OBP_FD_ARG0 },
	{ "readv", OBP_FD_FUSE_IO }, { "writev", OBP_FD_FUSE_IO },
	{ "preadv", OBP_FD_ARG0 }, { "pwritev", OBP_FD_ARG0 },
	{ "preadv2", OBP_FD_ARG0 }, { "pwritev2", OBP_FD_ARG0 },
	{ "fstat", OBP_FD_ARG0 }, { "fstatfs", OBP_FD_ARG0 },
	{ "newfstatat", OBP_FD_EMPTY_AT }, { "statx", OBP_FD_EMPTY_AT },
	{ "fsync", OBP_FD_ARG0 }, { "fdatasync", OBP_FD_ARG0 },
	{ "syncfs", OBP_FD_ARG0 }, { "sync_file_range", OBP_FD_ARG0 },
	{ "getdents", OBP_FD_ARG0 }, { "getdents64", OBP_FD_ARG0 },
	{ "lseek", OBP_FD_ARG0 }, { "fallocate", OBP_FD_ARG0 },
	{ "ftruncate", OBP_FD_ARG0 }, { "fadvise64", OBP_FD_ARG0 },
	{ "readahead", OBP_FD_ARG0 }, { "flock", OBP_FD_ARG0 },
	{ "fcntl", OBP_FD_ARG0 }, { "ioctl", OBP_FD_ARG0 },
	{ "fchmod", OBP_FD_ARG0 }, { "fchown", OBP_FD_ARG0 },
	{ "fgetxattr", OBP_FD_ARG0 }, { "fsetxattr", OBP_FD_ARG0 },
	{ "flistxattr", OBP_FD_ARG0 }, { "fremovexattr", OBP_FD_ARG0 },
	{ "close", OBP_FD_ARG0 }, { "sendfile", OBP_FD_ARG1 },
	{ "copy_file_range", OBP_FD_ARG0 }, { "splice", OBP_FD_SPLICE },
};

/* Tell the mount filter where each call of mount_fd_calls has its fd. */
static int fd_arg_fill(struct obp_sys_bpf *s)
{
	for (size_t i = 0; i < sizeof(mount_fd_calls) / sizeof(mount_fd_calls[0]); i++) {
		int nr = obp_syscall_nr(mount_fd_calls[i].name);
		__u32 k = (__u32)nr, v = mount_fd_calls[i].how;

		if (nr >= 0 && bpf_map__update_elem(s->maps.fd_arg, &k, sizeof(k), &v,
						    sizeof(v), BPF_ANY))
			return -errno;
	}
	return 0;
}

static int sys_open(struct obp *b, unsigned want)
{
	const struct obp_opts *o = &b->opts;
	struct obp_sys_bpf *s = obp_sys_bpf__open();
	unsigned one = 1;
	int err;

	if (!s)
		return -errno;
	s->rodata->cgroup_id = o->cgroup_id;
	s->rodata->follow_children = o->follow_children;
	s->rodata->lower_on = !!(want & OBP_LAYER_BIT(OBP_L_LOWER));
	s->rodata->mount_filter = o->mount_filter;
	s->rodata->mount_id = o->mount_id;
	err = obp_sys_bpf__load(s);
	/* The mount filter needs it, and lower to know /dev/fuse calls. */
	if (!err && (o->mount_filter || (want & OBP_LAYER_BIT(OBP_L_LOWER))))
		err = fd_arg_fill(s);
	for (size_t i = 0; !err && (want & OBP_LAYER_BIT(OBP_L_LOWER)) &&
	     i < sizeof(lower_skip_calls) / sizeof(lower_skip_calls[0]); i++) {
		int nr = obp_syscall_nr(lower_skip_calls[i]);
		__u32 k = (__u32)nr;

		if (nr >= 0)
			err = bpf_map__update_elem(s->maps.lower_skip_nr, &k, sizeof(k),
						   &one, sizeof(one), BPF_ANY);
	}
	if (err)
		goto fail;
	err = obp_sys_bpf__attach(s);
	if (err)
		goto fail;
	b->sys = s;
	b->layers |= want;
	return o->daemon_pid > 0 ? obp_daemon_set(b, o->daemon_pid) : 0;
fail:
	obp_sys_bpf__destroy(s);
	return err;
}

static int fuse_open(struct obp *b)
{
	const struct obp_opts *o = &b->opts;
	struct obp_fuse_bpf *f = obp_fuse_bpf__open();
	bool follow = o->follow_callers && (b->layers & OBP_LAYER_BIT(OBP_L_SYSCALL));
	int err;

	if (!f)
		return -errno;
	/* The kernel's dev_t: major in bits 20 and up (MINORBITS). */
	f->rodata->fuse_dev = o->fuse_dev ? (__u32)(major(o->fuse_dev) << 20 | minor(o->fuse_dev)) : 0;
	f->rodata->daemon_tgid = (__u32)o->daemon_pid;
	f->rodata->follow_callers = follow;
	if (follow) {
		err = bpf_map__reuse_fd(f->maps.pids, bpf_map__fd(b->sys->maps.pids));
		err = err ? err : bpf_map__reuse_fd(f->maps.pids_gen, bpf_map__fd(b->sys->maps.pids_gen));
		if (err)
			goto fail;
	}
	err = obp_fuse_bpf__load(f);
	err = err ? err : obp_fuse_bpf__attach(f);
	if (err)
		goto fail;
	b->fuse = f;
	b->layers |= OBP_LAYER_BIT(OBP_L_FUSE);
	return 0;
fail:
	obp_fuse_bpf__destroy(f);
	return err;
}

static int block_open(struct obp *b)
{
	struct obp_block_bpf *k = obp_block_bpf__open_and_load();
	int err;

	if (!k)
		return -errno;
	err = obp_block_bpf__attach(k);
	if (err) {
		obp_block_bpf__destroy(k);
		return err;
	}
	b->block = k;
	b->layers |= OBP_LAYER_BIT(OBP_L_BLOCK);
	return 0;
}

/* Hand the opened perf events to the programs: 0 or -errno. */
static int irq_pmc_fill(struct obp *b, struct obp_irq_bpf *q)
{
	for (int cpu = 0; cpu < b->pmc_ncpu; cpu++)
		for (unsigned e = 0; e < b->pmc_n; e++) {
			__u32 idx = (__u32)cpu * OBP_PMC_MAX + e;
			int fd = b->pmc_fds[idx];

			if (fd >= 0 && bpf_map__update_elem(q->maps.pmc, &idx, sizeof(idx), &fd,
							    sizeof(fd), BPF_ANY))
				return -errno;
		}
	return 0;
}

static int irq_open(struct obp *b)
{
	int ncpu = libbpf_num_possible_cpus(), err;
	struct obp_irq_bpf *q;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	q = obp_irq_bpf__open();
	if (!q)
		return -errno;
	err = obp_pmc_open(b, ncpu);
	err = err ? err : bpf_map__set_max_entries(q->maps.pmc, (__u32)ncpu * OBP_PMC_MAX);
	if (err)
		goto fail;
	q->rodata->pmc_n = b->pmc_n;
	err = obp_irq_bpf__load(q);
	if (err)
		goto fail;
	if (b->pmc_n) {
		int e = irq_pmc_fill(b, q);

		/* durations go on without counters: the programs see empty
		 * slots and leave the sums alone */
		if (e) {
			snprintf(b->pmc_why, sizeof(b->pmc_why), "perf event map: %s", strerror(-e));
			obp_pmc_close(b);
		}
	}
	err = obp_irq_bpf__attach(q);
	if (err)
		goto fail;
	b->irq = q;
	b->layers |= OBP_LAYER_BIT(OBP_L_IRQ);
	return 0;
fail:
	obp_irq_bpf__destroy(q);
	obp_pmc_close(b);
	return err;
}

int obp_open(const struct obp_opts *o, struct obp **out, char *err, size_t errlen)
{
	unsigned sys_want = o->layers & (OBP_LAYER_BIT(OBP_L_SYSCALL) | OBP_LAYER_BIT(OBP_L_LOWER));
	struct obp *b;
	int e;

	if (o->layers & ~OBP_LAYERS_ALL) {
		snprintf(err, errlen, "unknown layer bits 0x%x", o->layers & ~OBP_LAYERS_ALL);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "eBPF layers: out of memory");
		return -ENOMEM;
	}
	b->opts = *o;
	b->start_unix_ns = osp_clock_unix_ns();
	b->start_mono_ns = osp_clock_mono_ns();
	obp_libbpf_quiet();
	if (o->layers && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(b->why[0], sizeof(b->why[0]), "this kernel has no BTF (/sys/kernel/btf/vmlinux)");
		for (unsigned l = 1; l < OBP_L__COUNT; l++)
			memcpy(b->why[l], b->why[0], sizeof(b->why[0]));
		*out = b;
		return 0;
	}
	if (sys_want) {
		e = sys_open(b, sys_want);
		if (e)
			why_failed(b, sys_want, "system call layers", e);
	}
	if (o->layers & OBP_LAYER_BIT(OBP_L_FUSE)) {
		e = fuse_open(b);
		if (e)
			why_failed(b, OBP_LAYER_BIT(OBP_L_FUSE), "fuse layer", e);
	}
	if (o->layers & OBP_LAYER_BIT(OBP_L_BLOCK)) {
		e = block_open(b);
		if (e)
			why_failed(b, OBP_LAYER_BIT(OBP_L_BLOCK), "block layer", e);
	}
	if (o->layers & OBP_LAYER_BIT(OBP_L_IRQ)) {
		e = irq_open(b);
		if (e)
			why_failed(b, OBP_LAYER_BIT(OBP_L_IRQ), "irq layer", e);
	}
	*out = b;
	return 0;
}

void obp_close(struct obp *b)
{
	if (!b)
		return;
	obp_fuse_bpf__destroy(b->fuse);
	obp_sys_bpf__destroy(b->sys);
	obp_block_bpf__destroy(b->block);
	/* the programs hold the perf events until destroyed */
	obp_irq_bpf__destroy(b->irq);
	obp_pmc_close(b);
	free(b);
}

unsigned obp_layers(const struct obp *b)
{
	return b ? b->layers : 0;
}

const char *obp_why(const struct obp *b, enum obp_layer l)
{
	return b && (unsigned)l < OBP_L__COUNT ? b->why[l] : "";
}

void obp_enable(struct obp *b, bool on)
{
	if (b->fuse)
		__atomic_store_n(&b->fuse->data->obp_enabled, on, __ATOMIC_RELAXED);
	if (b->sys)
		__atomic_store_n(&b->sys->data->obp_enabled, on, __ATOMIC_RELAXED);
	if (b->block)
		__atomic_store_n(&b->block->data->obp_enabled, on, __ATOMIC_RELAXED);
	if (b->irq)
		__atomic_store_n(&b->irq->data->obp_enabled, on, __ATOMIC_RELAXED);
}

bool obp_enabled(const struct obp *b)
{
	if (b->fuse)
		return __atomic_load_n(&b->fuse->data->obp_enabled, __ATOMIC_RELAXED);
	if (b->sys)
		return __atomic_load_n(&b->sys->data->obp_enabled, __ATOMIC_RELAXED);
	if (b->block)
		return __atomic_load_n(&b->block->data->obp_enabled, __ATOMIC_RELAXED);
	if (b->irq)
		return __atomic_load_n(&b->irq->data->obp_enabled, __ATOMIC_RELAXED);
	return false;
}

/* Set process @tgid's role in the pids map, and say the map changed
 * (threads cache their role while pids_gen stands still). */
static int pid_set(struct obp *b, pid_t tgid, __u32 role)
{
	__u32 k = (__u32)tgid, zero = 0;
	__u64 gen = 0;

	if (bpf_map__update_elem(b->sys->maps.pids, &k, sizeof(k), &role, sizeof(role), BPF_ANY))
		return -errno;
	/* A lost race with a program's bump still changes the count. */
	bpf_map__lookup_elem(b->sys->maps.pids_gen, &zero, sizeof(zero), &gen, sizeof(gen), 0);
	gen++;
	if (bpf_map__update_elem(b->sys->maps.pids_gen, &zero, sizeof(zero), &gen, sizeof(gen), BPF_ANY))
		return -errno;
	return 0;
}

int obp_pid_add(struct obp *b, pid_t tgid)
{
	if (!(b->layers & OBP_LAYER_BIT(OBP_L_SYSCALL)))
		return -ENOENT;
	return pid_set(b, tgid, OBP_ROLE_WORKLOAD);
}

int obp_daemon_set(struct obp *b, pid_t tgid)
{
	if (!b || !b->sys)
		return 0;
	b->opts.daemon_pid = tgid;
	return pid_set(b, tgid, OBP_ROLE_DAEMON);
}

int obp_skip_thread(struct obp *b, pid_t tid, bool on)
{
	__u32 k = (__u32)tid, v = 1;
	int err;

	if (!b || !b->fuse)
		return 0;
	/* Counted before the entry exists and after it is gone, so the
	 * programs' shortcut (none marked: no lookup) never misses one. */
	if (on) {
		__atomic_add_fetch(&b->fuse->bss->skip_n, 1, __ATOMIC_SEQ_CST);
		err = bpf_map__update_elem(b->fuse->maps.skip_tids, &k, sizeof(k), &v, sizeof(v), BPF_ANY);
		if (err)
			__atomic_sub_fetch(&b->fuse->bss->skip_n, 1, __ATOMIC_SEQ_CST);
		return err ? -errno : 0;
	}
	err = bpf_map__delete_elem(b->fuse->maps.skip_tids, &k, sizeof(k), 0);
	if (err && errno == ENOENT)
		return 0;
	__atomic_sub_fetch(&b->fuse->bss->skip_n, 1, __ATOMIC_SEQ_CST);
	return err ? -errno : 0;
}

/* The object that holds layer @l, and the histogram kind of its keys. */
int obp_layer_maps(struct obp *b, enum obp_layer l, int *hists_fd, int *stats_fd,
		   unsigned *kind)
{
	if (!(b->layers & OBP_LAYER_BIT(l)))
		return -ENOENT;
	switch (l) {
	case OBP_L_FUSE:
		*hists_fd = bpf_map__fd(b->fuse->maps.hists);
		*stats_fd = bpf_map__fd(b->fuse->maps.stats);
		*kind = OBP_K_FUSE;
		return 0;
	case OBP_L_SYSCALL:
	case OBP_L_LOWER:
		*hists_fd = bpf_map__fd(b->sys->maps.hists);
		*stats_fd = bpf_map__fd(b->sys->maps.stats);
		*kind = l == OBP_L_SYSCALL ? OBP_K_SYSCALL : OBP_K_LOWER;
		return 0;
	case OBP_L_BLOCK:
		*hists_fd = bpf_map__fd(b->block->maps.hists);
		*stats_fd = bpf_map__fd(b->block->maps.stats);
		*kind = OBP_K_BLOCK;
		return 0;
	case OBP_L_IRQ:
		/* kinds irq and softirq: the object holds no other */
		*hists_fd = bpf_map__fd(b->irq->maps.hists);
		*stats_fd = bpf_map__fd(b->irq->maps.stats);
		*kind = 0;
		return 0;
	default:
		return -ENOENT;
	}
}

int obp_irq_maps(struct obp *b, int *sums_fd, int *names_fd)
{
	if (!b->irq)
		return -ENOENT;
	*sums_fd = bpf_map__fd(b->irq->maps.pmc_sums);
	*names_fd = bpf_map__fd(b->irq->maps.irq_names);
	return 0;
}
