// SPDX-License-Identifier: MIT
/*
 * Loading layer fuse (obp_fuse.bpf.c): the mount's device goes into
 * read-only data, the daemon into its data; to follow the processes that
 * send requests, it shares syscall's bitmap of traced processes, loaded
 * before it -- and loads for that alone when layer syscall is asked for
 * without layer fuse. Also the threads whose requests are not counted
 * (obp_skip_thread), which are not followed either.
 */
#include <errno.h>
#include <sys/sysmacros.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_fuse.skel.h"

/* Whether the callers of the mount are to be traced by syscall. */
static bool follow(const struct obp *b)
{
	return b->opts.follow_callers && (b->layers & OBP_LAYER_BIT(OBP_L_SYSCALL)) &&
	       b->pids_fd >= 0;
}

static int fuse_open(struct obp *b, unsigned want, struct obp_object *out)
{
	const struct obp_opts *o = &b->opts;
	struct obp_fuse_bpf *f = obp_fuse_bpf__open();
	int err;

	if (!f)
		return -errno;
	/* The kernel's dev_t: major in bits 20 and up (MINORBITS). */
	f->rodata->fuse_dev = o->fuse_dev ? (__u32)(major(o->fuse_dev) << 20 | minor(o->fuse_dev)) : 0;
	f->rodata->follow_callers = follow(b);
	f->rodata->timing = !!(want & OBP_LAYER_BIT(OBP_L_FUSE));
	f->bss->daemon_tgid = o->daemon_pid > 0 ? (__u32)o->daemon_pid : 0;
	/* Without follow_callers the programs never look at it: one word. */
	err = follow(b) ? bpf_map__reuse_fd(f->maps.traced, b->pids_fd)
			: bpf_map__set_max_entries(f->maps.traced, 1);
	err = err ? err : obp_fuse_bpf__load(f);
	err = err ? err : obp_fuse_bpf__attach(f);
	if (err)
		goto fail;
	OBP_OBJECT_SET(out, f);
	b->fuse_daemon = &f->bss->daemon_tgid;
	return 0;
fail:
	obp_fuse_bpf__destroy(f);
	return err;
}

static void fuse_close(struct obp *b, void *skel)
{
	b->fuse_daemon = NULL;
	obp_fuse_bpf__destroy(skel);
}

const struct obp_loader obp_fuse_loader = {
	.layers = OBP_LAYER_BIT(OBP_L_FUSE),
	.kinds = { [OBP_L_FUSE] = OBP_K_FUSE },
	.what = "fuse layer",
	.open = fuse_open,
	.close = fuse_close,
	.needed = follow,
};

int obp_skip_thread(struct obp *b, pid_t tid, bool on)
{
	struct obp_fuse_bpf *f = b ? obp_object(b, &obp_fuse_loader) : NULL;
	__u32 k = (__u32)tid, v = 1;
	int err;

	if (!f)
		return 0;
	/* Counted before the entry exists and after it is gone, so the
	 * programs' shortcut (none marked: no lookup) never misses one. */
	if (on) {
		__atomic_add_fetch(&f->bss->skip_n, 1, __ATOMIC_SEQ_CST);
		err = bpf_map__update_elem(f->maps.skip_tids, &k, sizeof(k), &v, sizeof(v), BPF_ANY);
		if (err)
			__atomic_sub_fetch(&f->bss->skip_n, 1, __ATOMIC_SEQ_CST);
		return err ? -errno : 0;
	}
	err = bpf_map__delete_elem(f->maps.skip_tids, &k, sizeof(k), 0);
	if (err && errno == ENOENT)
		return 0;
	__atomic_sub_fetch(&f->bss->skip_n, 1, __ATOMIC_SEQ_CST);
	return err ? -errno : 0;
}
