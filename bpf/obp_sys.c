// SPDX-License-Identifier: MIT
/*
 * Loading layers syscall and lower (obp_sys.bpf.c, one object for both):
 * the workload filter's options go into read-only data; after loading,
 * the mount filter learns where each call has its descriptor and lower
 * which calls of the daemon are not on the lower file system. Its pids
 * maps are the pid filter's (obp.c), which fuse shares.
 */
#include <errno.h>
#include <stdio.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_sys.skel.h"

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

static int sys_open(struct obp *b, unsigned want, struct obp_object *out)
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
	OBP_OBJECT_SET(out, s);
	b->pids_fd = bpf_map__fd(s->maps.pids);
	b->pids_gen_fd = bpf_map__fd(s->maps.pids_gen);
	return o->daemon_pid > 0 ? obp_pid_set(b, o->daemon_pid, OBP_ROLE_DAEMON) : 0;
fail:
	obp_sys_bpf__destroy(s);
	return err;
}

static void sys_close(struct obp *b, void *skel)
{
	(void)b;
	obp_sys_bpf__destroy(skel);
}

const struct obp_loader obp_sys_loader = {
	.layers = OBP_LAYER_BIT(OBP_L_SYSCALL) | OBP_LAYER_BIT(OBP_L_LOWER),
	.kinds = { [OBP_L_SYSCALL] = OBP_K_SYSCALL, [OBP_L_LOWER] = OBP_K_LOWER },
	.what = "system call layers",
	.open = sys_open,
	.close = sys_close,
};
