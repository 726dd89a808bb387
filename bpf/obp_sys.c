// SPDX-License-Identifier: MIT
/*
 * Loading layers syscall and lower (obp_sys.bpf.c, one object for both;
 * with the mount filter the same source's obp_sysm object, which names
 * more kernel types): the workload filter's and the mount filter's
 * options go into read-only
 * data; after loading, the programs learn what each call number is
 * (where its descriptors are, what its exit says, whether lower wants
 * it). Its bitmap of traced processes is the pid filter's (obp.c), mapped
 * into our memory, and fuse shares it.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_sys.skel.h"
#include "obp_sysm.skel.h"
#include "obp_sysw.lskel.h"

/*
 * What each call's number says (enum obp_call_flags). The mount filter
 * keeps the calls on an open file's data or metadata by their
 * descriptors; opens, stat, lstat, newfstatat and statx by their result;
 * a call on no file (nanosleep, poll, mmap's page faults) or on a path
 * whose result does not say the mount (access, readlink, unlink, mkdir,
 * rename, chmod, truncate, getxattr, a failed open or stat) is dropped.
 * sendfile, splice and copy_file_range are the mount's when either end is.
 * Lower leaves out the daemon's waits for work or time and its own map
 * reads, and its requests and replies on /dev/fuse.
 */
static const struct {
	const char *name;
	unsigned flags;
} call_table[] = {
	{ "read", OBP_FD_A0 | OBP_FD_FUSE }, { "write", OBP_FD_A0 | OBP_FD_FUSE },
	{ "readv", OBP_FD_A0 | OBP_FD_FUSE }, { "writev", OBP_FD_A0 | OBP_FD_FUSE },
	{ "splice", OBP_FD_A0 | OBP_FD_A2 | OBP_FD_FUSE },
	{ "pread64", OBP_FD_A0 }, { "pwrite64", OBP_FD_A0 },
	{ "preadv", OBP_FD_A0 }, { "pwritev", OBP_FD_A0 },
	{ "preadv2", OBP_FD_A0 }, { "pwritev2", OBP_FD_A0 },
	{ "sendfile", OBP_FD_A0 | OBP_FD_A1 }, { "copy_file_range", OBP_FD_A0 | OBP_FD_A2 },
	{ "fstat", OBP_FD_A0 }, { "fstatfs", OBP_FD_A0 },
	{ "fsync", OBP_FD_A0 }, { "fdatasync", OBP_FD_A0 },
	{ "syncfs", OBP_FD_A0 }, { "sync_file_range", OBP_FD_A0 },
	{ "getdents", OBP_FD_A0 }, { "getdents64", OBP_FD_A0 },
	{ "lseek", OBP_FD_A0 }, { "fallocate", OBP_FD_A0 },
	{ "ftruncate", OBP_FD_A0 }, { "fadvise64", OBP_FD_A0 },
	{ "readahead", OBP_FD_A0 }, { "flock", OBP_FD_A0 },
	{ "fcntl", OBP_FD_A0 }, { "ioctl", OBP_FD_A0 },
	{ "fchmod", OBP_FD_A0 }, { "fchown", OBP_FD_A0 }, { "fchdir", OBP_FD_A0 },
	{ "fgetxattr", OBP_FD_A0 }, { "fsetxattr", OBP_FD_A0 },
	{ "flistxattr", OBP_FD_A0 }, { "fremovexattr", OBP_FD_A0 },
	{ "dup", OBP_FD_A0 }, { "dup2", OBP_FD_A0 }, { "dup3", OBP_FD_A0 },
	{ "close", OBP_FD_A0 }, { "mmap", OBP_FD_MMAP },
	{ "open", OBP_AT_OPEN }, { "creat", OBP_AT_OPEN }, { "openat", OBP_AT_OPEN },
	{ "openat2", OBP_AT_OPEN }, { "open_by_handle_at", OBP_AT_OPEN },
	{ "stat", OBP_AT_STAT1 }, { "lstat", OBP_AT_STAT1 },
	{ "newfstatat", OBP_AT_STAT2 }, { "statx", OBP_AT_STATX },
	{ "futex", OBP_LOWER_SKIP }, { "futex_waitv", OBP_LOWER_SKIP },
	{ "poll", OBP_LOWER_SKIP }, { "ppoll", OBP_LOWER_SKIP },
	{ "select", OBP_LOWER_SKIP }, { "pselect6", OBP_LOWER_SKIP },
	{ "epoll_wait", OBP_LOWER_SKIP }, { "epoll_pwait", OBP_LOWER_SKIP },
	{ "epoll_pwait2", OBP_LOWER_SKIP }, { "nanosleep", OBP_LOWER_SKIP },
	{ "clock_nanosleep", OBP_LOWER_SKIP }, { "rt_sigtimedwait", OBP_LOWER_SKIP },
	{ "rt_sigsuspend", OBP_LOWER_SKIP }, { "pause", OBP_LOWER_SKIP },
	{ "wait4", OBP_LOWER_SKIP }, { "waitid", OBP_LOWER_SKIP },
	{ "restart_syscall", OBP_LOWER_SKIP }, { "bpf", OBP_LOWER_SKIP },
	{ "sched_yield", OBP_LOWER_SKIP },
};

#define NCALLS (sizeof(call_table) / sizeof(call_table[0]))

/* In one batch (Linux 5.6; we need 5.12), not a system call per entry:
 * every start fills it (docs/layers.md#what-a-call-costs). */
static int call_flags_fill(int fd)
{
	__u32 keys[NCALLS], vals[NCALLS], n = 0;

	for (size_t i = 0; i < NCALLS; i++) {
		int nr = obp_syscall_nr(call_table[i].name);

		if (nr < 0)
			continue;
		keys[n] = (__u32)nr;
		vals[n++] = call_table[i].flags;
	}
	if (n && bpf_map_update_batch(fd, keys, vals, &n, NULL))
		return -errno;
	return 0;
}

/* Map the bitmap of traced processes (map @traced_fd) and publish
 * object @o, whose daemon tgid is at @daemon, in @out and @b: 0, or
 * -errno with nothing published. */
static int sys_publish(struct obp *b, struct obp_object *out, const struct obp_object *o,
		       int traced_fd, __u32 *daemon)
{
	void *bits = mmap(NULL, OBP_PID_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED,
			  traced_fd, 0);

	if (bits == MAP_FAILED)
		return -errno;
	*out = *o;
	b->pids_fd = traced_fd;
	b->pid_bits = bits;
	b->sys_daemon = daemon;
	return 0;
}

/* The options into skeleton @s's read-only data and bss (each skeleton
 * is its own C type: a macro). */
#define SYS_SET(s, o, want, slots)                                             \
	do {                                                                   \
		(s)->rodata->cgroup_id = (o)->cgroup_id;                       \
		(s)->rodata->follow_children = (o)->follow_children;           \
		(s)->rodata->lower_on = !!((want) & OBP_LAYER_BIT(OBP_L_LOWER)); \
		(s)->rodata->mount_id = (o)->mount_id;                         \
		(s)->rodata->mount_st_dev = (__u64)(o)->mount_dev;             \
		(s)->rodata->mount_dev_major = major((o)->mount_dev);          \
		(s)->rodata->mount_dev_minor = minor((o)->mount_dev);          \
		(s)->rodata->skip_ino_lo = (o)->skip_ino_lo;                   \
		(s)->rodata->skip_ino_hi = (o)->skip_ino_hi;                   \
		(s)->rodata->nslots = (slots);                                 \
		(s)->bss->daemon_tgid = (o)->daemon_pid > 0 ? (__u32)(o)->daemon_pid : 0; \
	} while (0)

/* What a load needs of a loaded skeleton, whichever its C type: its
 * maps' descriptors and its mapped variables. */
struct sys_parts {
	int hists_fd, stats_fd, slot_of_fd, slot_hists_fd, call_flags_fd, traced_fd;
	const __u32 *slots_used;
	__u32 *enabled, *daemon_tgid;
};

/*
 * One of the layer's skeletons, each its own C type: what sys_try does
 * with it. sys (no mount filter) and sysm (with it) are regular
 * skeletons of the same source, with the same maps and variables; sysw
 * is the light one (`bpftool gen skeleton -L`).
 */
struct obp_sys_skel {
	/* Open, with @o's options for layers @want and @nslots slots set and
	 * the call programs chosen (@cast: the mount filter's reads through
	 * bpf_rdonly_cast, Linux 6.2+, else by probe reads). 0 or -errno,
	 * with nothing left open. */
	int (*open)(void **s, const struct obp_opts *o, unsigned want, unsigned nslots, bool cast);
	int (*load)(void *s);
	void (*parts)(void *s, struct sys_parts *p);  /* once loaded */
	int (*attach)(void *s);
	void (*destroy)(void *s);
	/*
	 * A light skeleton: its loader program runs in the kernel and does
	 * the CO-RE relocations and the tracepoint look-ups there, against
	 * the kernel's own BTF, so this process never reads and indexes it
	 * (what that saves at start: docs/layers.md#what-a-call-costs). It
	 * loads every program of its object, hence an object without the
	 * daemon's pair (lower off), and cannot resize a map: slot_hists
	 * keeps its OBP_SYS_SLOTS entries and nslots says how many are used,
	 * so more goes to a regular skeleton. Its loader gives no reason:
	 * any failure but a lack of privilege (-EPERM) is worth the next
	 * try, and its words.
	 */
	bool light;
};

/* The regular skeletons' parts and steps: the same names in two C types. */
#define SYS_REGULAR(SK)                                                        \
	static int SK##_load(void *s)                                          \
	{                                                                      \
		return SK##__load(s);                                          \
	}                                                                      \
	static int SK##_attach(void *s)                                        \
	{                                                                      \
		return SK##__attach(s);                                        \
	}                                                                      \
	static void SK##_destroy(void *s)                                      \
	{                                                                      \
		SK##__destroy(s);                                              \
	}                                                                      \
	static void SK##_parts(void *skel, struct sys_parts *p)                \
	{                                                                      \
		struct SK *s = skel;                                           \
                                                                               \
		*p = (struct sys_parts){                                       \
			.hists_fd = bpf_map__fd(s->maps.hists),                \
			.stats_fd = bpf_map__fd(s->maps.stats),                \
			.slot_of_fd = bpf_map__fd(s->maps.slot_of),            \
			.slot_hists_fd = bpf_map__fd(s->maps.slot_hists),      \
			.call_flags_fd = bpf_map__fd(s->maps.call_flags),      \
			.traced_fd = bpf_map__fd(s->maps.traced),              \
			.slots_used = &s->bss->slots_used,                     \
			.enabled = &s->data->obp_enabled,                      \
			.daemon_tgid = &s->bss->daemon_tgid,                   \
		};                                                             \
	}

SYS_REGULAR(obp_sys_bpf)
SYS_REGULAR(obp_sysm_bpf)

/* Without the mount filter: the pair that leaves the daemon's calls out
 * when lower is off (no /dev/fuse check to load). */
static int obp_sys_bpf_open(void **skel, const struct obp_opts *o, unsigned want,
			    unsigned nslots, bool cast)
{
	struct obp_sys_bpf *s = obp_sys_bpf__open();
	bool low = want & OBP_LAYER_BIT(OBP_L_LOWER);
	int err;

	(void)cast;
	if (!s)
		return -errno;
	bpf_program__set_autoload(s->progs.obp_sys_enter, !low);
	bpf_program__set_autoload(s->progs.obp_sys_exit, !low);
	bpf_program__set_autoload(s->progs.obp_sys_enter_l, low);
	bpf_program__set_autoload(s->progs.obp_sys_exit_l, low);
	SYS_SET(s, o, want, nslots);
	err = bpf_map__set_max_entries(s->maps.slot_hists, nslots);
	if (err) {
		obp_sys_bpf__destroy(s);
		return err;
	}
	*skel = s;
	return 0;
}

/* With it: reads through bpf_rdonly_cast when @cast, else by probe
 * reads. */
static int obp_sysm_bpf_open(void **skel, const struct obp_opts *o, unsigned want,
			     unsigned nslots, bool cast)
{
	struct obp_sysm_bpf *s = obp_sysm_bpf__open();
	int err;

	if (!s)
		return -errno;
	bpf_program__set_autoload(s->progs.obp_sys_enter_mnt, cast);
	bpf_program__set_autoload(s->progs.obp_sys_exit_mnt, cast);
	bpf_program__set_autoload(s->progs.obp_sys_enter_pr, !cast);
	bpf_program__set_autoload(s->progs.obp_sys_exit_pr, !cast);
	SYS_SET(s, o, want, nslots);
	err = bpf_map__set_max_entries(s->maps.slot_hists, nslots);
	if (err) {
		obp_sysm_bpf__destroy(s);
		return err;
	}
	*skel = s;
	return 0;
}

/* The workload's calls alone (no mount filter, lower off: osprof-trace). */
static int obp_sysw_bpf_open(void **skel, const struct obp_opts *o, unsigned want,
			     unsigned nslots, bool cast)
{
	struct obp_sysw_bpf *s = obp_sysw_bpf__open();

	(void)cast;
	if (!s)
		return -ENOMEM;
	SYS_SET(s, o, want, nslots);
	*skel = s;
	return 0;
}

static int obp_sysw_bpf_load(void *s)
{
	return obp_sysw_bpf__load(s);
}

/* A light skeleton's attach: a link's descriptor or -1 and errno. */
static int light_attached(int fd)
{
	return fd < 0 ? -errno : 0;
}

static int obp_sysw_bpf_attach(void *skel)
{
	struct obp_sysw_bpf *s = skel;
	int err = light_attached(obp_sysw_bpf__obp_sys_enter__attach(s));

	err = err ? err : light_attached(obp_sysw_bpf__obp_sys_exit__attach(s));
	err = err ? err : light_attached(obp_sysw_bpf__obp_sys_fork__attach(s));
	return err ? err : light_attached(obp_sysw_bpf__obp_sys_exit_task__attach(s));
}

static void obp_sysw_bpf_destroy(void *s)
{
	obp_sysw_bpf__destroy(s);
}

static void obp_sysw_bpf_parts(void *skel, struct sys_parts *p)
{
	struct obp_sysw_bpf *s = skel;

	*p = (struct sys_parts){
		.hists_fd = s->maps.hists.map_fd,
		.stats_fd = s->maps.stats.map_fd,
		.slot_of_fd = s->maps.slot_of.map_fd,
		.slot_hists_fd = s->maps.slot_hists.map_fd,
		.call_flags_fd = s->maps.call_flags.map_fd,
		.traced_fd = s->maps.traced.map_fd,
		.slots_used = &s->bss->slots_used,
		.enabled = &s->data->obp_enabled,
		.daemon_tgid = &s->bss->daemon_tgid,
	};
}

static const struct obp_sys_skel sys_skel = {
	obp_sys_bpf_open, obp_sys_bpf_load, obp_sys_bpf_parts, obp_sys_bpf_attach,
	obp_sys_bpf_destroy, false,
};
static const struct obp_sys_skel sysm_skel = {
	obp_sysm_bpf_open, obp_sysm_bpf_load, obp_sysm_bpf_parts, obp_sysm_bpf_attach,
	obp_sysm_bpf_destroy, false,
};
static const struct obp_sys_skel sysw_skel = {
	obp_sysw_bpf_open, obp_sysw_bpf_load, obp_sysw_bpf_parts, obp_sysw_bpf_attach,
	obp_sysw_bpf_destroy, true,
};

/*
 * The ways to load the layer, in the order they are tried: a load with
 * the mount filter walks the rows that have it, one without the others.
 * A row is skipped when it cannot serve (a light skeleton with lower on
 * or more slots than OBP_SYS_SLOTS; reads through bpf_rdonly_cast with
 * opts.probe_reads); the next row is tried only after the kernel refused
 * this one's programs (no privilege, no memory would fail the same way
 * twice). When every row fails, the error returned is the last row's,
 * or the first error of a row marked first_error.
 *  - Without the filter, the light skeleton first; a kernel that refuses
 *    its loader (no CO-RE in the kernel: before 5.17) gets the regular
 *    skeleton, whose error is returned (libbpf keeps the verifier's words).
 *  - With it, reads through bpf_rdonly_cast first; a kernel without it
 *    (6.1) refuses those programs, and the second row loads the same
 *    checks by probe reads, slower but the same.
 */
static const struct sys_try {
	const struct obp_sys_skel *skel;
	bool mount_filter;   /* the row of a load with the mount filter */
	bool cast;           /* the mount filter's reads through bpf_rdonly_cast */
	bool first_error;    /* its error is returned when the next rows fail too */
} sys_tries[] = {
	{ &sysw_skel, false, false, false },
	{ &sys_skel, false, false, false },
	{ &sysm_skel, true, true, true },
	{ &sysm_skel, true, false, false },
};

/* Whether row @t can serve this load of layers @want. */
static bool sys_try_fits(const struct obp *b, const struct sys_try *t, unsigned want)
{
	if (t->mount_filter != b->opts.mount_filter)
		return false;
	if (t->skel->light && ((want & OBP_LAYER_BIT(OBP_L_LOWER)) || b->opts.sys_slots > OBP_SYS_SLOTS))
		return false;
	return !(t->cast && b->opts.probe_reads);
}

/*
 * Open row @t's skeleton, load and attach it, and publish it in @out and
 * @b. *@refused: the kernel refused the programs (the load failed), not
 * another step.
 */
static int sys_try(struct obp *b, const struct sys_try *t, unsigned want, struct obp_object *out,
		   bool *refused)
{
	const struct obp_opts *o = &b->opts;
	unsigned nslots = o->sys_slots ? o->sys_slots : OBP_SYS_SLOTS;
	struct sys_parts p = { 0 };
	void *s = NULL;
	int err;

	*refused = false;
	err = t->skel->open(&s, o, want, nslots, t->cast);
	if (err)
		return err;
	err = t->skel->load(s);
	*refused = err != 0 && !(t->skel->light && err == -EPERM);
	if (!err)
		t->skel->parts(s, &p);
	err = err ? err : call_flags_fill(p.call_flags_fd);
	err = err ? err : t->skel->attach(s);
	err = err ? err : sys_publish(b, out, &(struct obp_object){
		.skel = s,
		.hists_fd = p.hists_fd,
		.stats_fd = p.stats_fd,
		.slot_of_fd = p.slot_of_fd,
		.slot_hists_fd = p.slot_hists_fd,
		.nslots = nslots,
		.slots_used = p.slots_used,
		.enabled = p.enabled,
	}, p.traced_fd, p.daemon_tgid);
	if (err)
		t->skel->destroy(s);
	else
		b->sys_skel = t->skel;
	return err;
}

static int sys_open(struct obp *b, unsigned want, struct obp_object *out)
{
	int err = -EINVAL, kept = 0;
	bool refused = true;

	b->sys_skel = NULL;
	for (size_t i = 0; i < sizeof(sys_tries) / sizeof(sys_tries[0]) && refused; i++) {
		const struct sys_try *t = &sys_tries[i];

		if (!sys_try_fits(b, t, want))
			continue;
		err = sys_try(b, t, want, out, &refused);
		if (!err)
			return 0;
		if (t->first_error && !kept)
			kept = err;
	}
	return kept ? kept : err;
}

bool obp_sys_light(const struct obp *b)
{
	return b->sys_skel && b->sys_skel->light;
}

static void sys_close(struct obp *b, void *skel)
{
	if (b->pid_bits)
		munmap(b->pid_bits, OBP_PID_WORDS * sizeof(uint64_t));
	b->pid_bits = NULL;
	b->sys_daemon = NULL;
	if (b->sys_skel)
		b->sys_skel->destroy(skel);
	b->sys_skel = NULL;
}

const struct obp_loader obp_sys_loader = {
	.layers = OBP_LAYER_BIT(OBP_L_SYSCALL) | OBP_LAYER_BIT(OBP_L_LOWER),
	.kinds = { [OBP_L_SYSCALL] = OBP_K_SYSCALL, [OBP_L_LOWER] = OBP_K_LOWER },
	.what = "system call layers",
	.open = sys_open,
	.close = sys_close,
};
