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

/* In one batch (Linux 5.6; we need 5.12): a system call per entry was
 * 69 of them, 61 us of every start (the batch: 11). */
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

/*
 * Open skeleton SK (obp_sys_bpf, or obp_sysm_bpf: the same source with
 * the mount filter, whose skeleton has the same maps and variables), set
 * its options, let AUTOLOAD pick the pair of call programs, load and
 * attach it, and publish it in @out and @b. *@refused: the kernel refused
 * the programs (the load failed), not another step. A macro: the two
 * skeletons are two C types.
 */
#define SYS_TRY(SK, AUTOLOAD)                                                              \
	static int SK##_try(struct obp *b, unsigned want, struct obp_object *out, bool cast, \
			    bool *refused)                                                 \
	{                                                                                  \
		const struct obp_opts *o = &b->opts;                                       \
		struct SK *s = SK##__open();                                               \
		unsigned nslots = o->sys_slots ? o->sys_slots : OBP_SYS_SLOTS;             \
		int err;                                                                   \
                                                                                           \
		*refused = false;                                                          \
		if (!s)                                                                    \
			return -errno;                                                     \
		(void)cast;                                                                \
		AUTOLOAD;                                                                  \
		SYS_SET(s, o, want, nslots);                                               \
		err = bpf_map__set_max_entries(s->maps.slot_hists, nslots);                \
		if (err)                                                                   \
			goto fail;                                                         \
		err = SK##__load(s);                                                       \
		*refused = err != 0;                                                       \
		err = err ? err : call_flags_fill(bpf_map__fd(s->maps.call_flags));        \
		err = err ? err : SK##__attach(s);                                         \
		err = err ? err : sys_publish(b, out, &(struct obp_object){                \
			.skel = s,                                                         \
			.hists_fd = bpf_map__fd(s->maps.hists),                            \
			.stats_fd = bpf_map__fd(s->maps.stats),                            \
			.slot_of_fd = bpf_map__fd(s->maps.slot_of),                        \
			.slot_hists_fd = bpf_map__fd(s->maps.slot_hists),                  \
			.nslots = nslots,                                                  \
			.slots_used = &s->bss->slots_used,                                 \
			.enabled = &s->data->obp_enabled,                                  \
		}, bpf_map__fd(s->maps.traced), &s->bss->daemon_tgid);                     \
		if (!err)                                                                  \
			return 0;                                                          \
	fail:                                                                              \
		SK##__destroy(s);                                                          \
		return err;                                                                \
	}

/* Without the mount filter: the pair that leaves the daemon's calls out
 * when lower is off (no /dev/fuse check to load). */
SYS_TRY(obp_sys_bpf, {
	bool low = want & OBP_LAYER_BIT(OBP_L_LOWER);

	bpf_program__set_autoload(s->progs.obp_sys_enter, !low);
	bpf_program__set_autoload(s->progs.obp_sys_exit, !low);
	bpf_program__set_autoload(s->progs.obp_sys_enter_l, low);
	bpf_program__set_autoload(s->progs.obp_sys_exit_l, low);
})

/* With it: reads through bpf_rdonly_cast when @cast (Linux 6.2+), else
 * by probe reads. */
SYS_TRY(obp_sysm_bpf, {
	bpf_program__set_autoload(s->progs.obp_sys_enter_mnt, cast);
	bpf_program__set_autoload(s->progs.obp_sys_exit_mnt, cast);
	bpf_program__set_autoload(s->progs.obp_sys_enter_pr, !cast);
	bpf_program__set_autoload(s->progs.obp_sys_exit_pr, !cast);
})

/* A light skeleton's attach: a link's descriptor or -1 and errno. */
static int light_attached(int fd)
{
	return fd < 0 ? -errno : 0;
}

/*
 * The workload's calls alone (no mount filter, lower off: osprof-trace),
 * first by the light skeleton of object sysw (`bpftool gen skeleton -L`):
 * its loader program runs in the kernel and does the CO-RE relocations
 * and the tracepoint look-ups there, against the kernel's own BTF, so
 * this process never reads and indexes it -- libbpf 1.1 reads all 5.5 MB
 * of it and indexes its 126,611 types for each object it loads:
 * about 9 ms of osprof-trace's start. A light skeleton loads every program
 * of its object, hence an object without the daemon's pair, and cannot
 * resize a map: slot_hists keeps its OBP_SYS_SLOTS entries and nslots
 * says how many are used, so more goes to the regular skeleton.
 * *@refused as for SYS_TRY.
 */
static int obp_sysw_bpf_try(struct obp *b, unsigned want, struct obp_object *out, bool *refused)
{
	const struct obp_opts *o = &b->opts;
	unsigned nslots = o->sys_slots ? o->sys_slots : OBP_SYS_SLOTS;
	struct obp_sysw_bpf *s = obp_sysw_bpf__open();
	int err;

	*refused = false;
	if (!s)
		return -ENOMEM;
	SYS_SET(s, o, want, nslots);
	err = obp_sysw_bpf__load(s);
	/* its loader gives no reason: any failure but a lack of privilege
	 * is worth the regular skeleton's try, and its words */
	*refused = err != 0 && err != -EPERM;
	err = err ? err : call_flags_fill(s->maps.call_flags.map_fd);
	err = err ? err : light_attached(obp_sysw_bpf__obp_sys_enter__attach(s));
	err = err ? err : light_attached(obp_sysw_bpf__obp_sys_exit__attach(s));
	err = err ? err : light_attached(obp_sysw_bpf__obp_sys_fork__attach(s));
	err = err ? err : light_attached(obp_sysw_bpf__obp_sys_exit_task__attach(s));
	err = err ? err : sys_publish(b, out, &(struct obp_object){
		.skel = s,
		.hists_fd = s->maps.hists.map_fd,
		.stats_fd = s->maps.stats.map_fd,
		.slot_of_fd = s->maps.slot_of.map_fd,
		.slot_hists_fd = s->maps.slot_hists.map_fd,
		.nslots = nslots,
		.slots_used = &s->bss->slots_used,
		.enabled = &s->data->obp_enabled,
	}, s->maps.traced.map_fd, &s->bss->daemon_tgid);
	if (err)
		obp_sysw_bpf__destroy(s);
	return err;
}

/* A kernel without bpf_rdonly_cast (6.1) refuses the mount filter's
 * first programs: the second try loads the same checks by probe reads,
 * slower but the same; when both fail, the first error is returned. A
 * kernel that refuses the light skeleton's loader (no CO-RE in the
 * kernel: before 5.17) gets the regular skeleton, whose error is the one
 * returned (libbpf keeps the verifier's words). Only a refusal is tried
 * again: no privilege, no memory would fail the same way twice. */
static int sys_open(struct obp *b, unsigned want, struct obp_object *out)
{
	bool refused;
	int err;

	b->sys_light = false;
	if (!b->opts.mount_filter) {
		if (!(want & OBP_LAYER_BIT(OBP_L_LOWER)) && b->opts.sys_slots <= OBP_SYS_SLOTS) {
			err = obp_sysw_bpf_try(b, want, out, &refused);
			b->sys_light = !err;
			if (!err || !refused)
				return err;
		}
		return obp_sys_bpf_try(b, want, out, false, &refused);
	}
	if (b->opts.probe_reads)
		return obp_sysm_bpf_try(b, want, out, false, &refused);
	err = obp_sysm_bpf_try(b, want, out, true, &refused);
	if (!err || !refused)
		return err;
	return obp_sysm_bpf_try(b, want, out, false, &refused) ? err : 0;
}

static void sys_close(struct obp *b, void *skel)
{
	if (b->pid_bits)
		munmap(b->pid_bits, OBP_PID_WORDS * sizeof(uint64_t));
	b->pid_bits = NULL;
	b->sys_daemon = NULL;
	if (b->sys_light)
		obp_sysw_bpf__destroy(skel);
	else if (b->opts.mount_filter)
		obp_sysm_bpf__destroy(skel);
	else
		obp_sys_bpf__destroy(skel);
	b->sys_light = false;
}

const struct obp_loader obp_sys_loader = {
	.layers = OBP_LAYER_BIT(OBP_L_SYSCALL) | OBP_LAYER_BIT(OBP_L_LOWER),
	.kinds = { [OBP_L_SYSCALL] = OBP_K_SYSCALL, [OBP_L_LOWER] = OBP_K_LOWER },
	.what = "system call layers",
	.open = sys_open,
	.close = sys_close,
};
