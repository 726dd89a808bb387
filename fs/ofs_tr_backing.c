// SPDX-License-Identifier: MIT
/*
 * The transport's backing files (ofs_tr.h, ofs_tr_impl.h): the ioctls on
 * /dev/fuse that register a lower file and unregister it, the probe
 * after INIT that tells whether the kernel took FUSE_PASSTHROUGH, and
 * the ids the passthrough registered for an OPEN or CREATE reply, by its
 * file handle, until the custom writev patches that reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ofs_tr_impl.h"

/* A backing id registered for the OPEN or CREATE reply that carries fh. */
struct open_reg {
	struct ofs_tr_unode node;    /* key: the fh */
	int id;
};

int ofs_tr_backing_open(struct ofs_tr *tr, int fd)
{
	struct ofs_fuse_backing_map m = { .fd = fd };
	int id, err;

	if (!ofs_tr_on(tr, OFS_TR_PASSTHROUGH) || atomic_load(&tr->closed))
		return -EOPNOTSUPP;
	id = ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_OPEN, &m);
	if (id > 0) {
		atomic_fetch_add_explicit(&tr->backing_opened, 1, memory_order_relaxed);
		return id;
	}
	err = id < 0 ? errno : EIO;
	atomic_fetch_add_explicit(&tr->backing_refused, 1, memory_order_relaxed);
	if (err == EPERM)
		ofs_tr_turn_off(tr, OFS_TR_PASSTHROUGH, "FUSE_DEV_IOC_BACKING_OPEN: %s", strerror(err));
	return -err;
}

void ofs_tr_backing_close(struct ofs_tr *tr, int id)
{
	uint32_t u = (uint32_t)id;

	if (tr && id > 0 && !atomic_load(&tr->closed) &&
	    ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_CLOSE, &u) == 0)
		atomic_fetch_add_explicit(&tr->backing_closed, 1, memory_order_relaxed);
}

int ofs_tr_open_reply(struct ofs_tr *tr, uint64_t fh, int id)
{
	struct open_reg *reg = malloc(sizeof(*reg));

	if (!reg)
		return -ENOMEM;
	reg->node.key = fh;
	reg->id = id;
	ofs_tr_umap_put(&tr->opens, &reg->node);
	return 0;
}

void ofs_tr_backing_probe(struct ofs_tr *tr)
{
	/* The lower root is a directory: a kernel that takes backing
	 * files refuses it for what it is (EISDIR; EOPNOTSUPP before
	 * 6.10), one that does not with EPERM before looking. */
	struct ofs_fuse_backing_map m = { .fd = open(tr->cfg.lower, O_PATH | O_CLOEXEC) };
	int id = m.fd < 0 ? -1 : ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_OPEN, &m);
	int err = id < 0 ? errno : 0;

	if (m.fd >= 0)
		close(m.fd);
	if (id > 0) {
		uint32_t u = (uint32_t)id;

		ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_CLOSE, &u);
	}
	if (err == EPERM || err == ENOTTY || err == EINVAL)
		ofs_tr_turn_off(tr, OFS_TR_PASSTHROUGH, "FUSE_DEV_IOC_BACKING_OPEN: %s%s",
				strerror(err), err == EPERM ? " (the kernel did not take FUSE_PASSTHROUGH)" : "");
}

void ofs_tr_backing_patch(struct ofs_tr *tr, uint32_t opcode, void *args, size_t len)
{
	struct ofs_fuse_open_out *o = ofs_tr_open_out(args, len, opcode,
						      sizeof(struct fuse_entry_out));
	struct ofs_tr_unode *n = o && o->fh ? ofs_tr_umap_take(&tr->opens, o->fh) : NULL;
	struct open_reg *reg;

	if (!n)
		return;
	reg = (struct open_reg *)(void *)n;
	ofs_tr_patch_open(o, reg->id);
	atomic_fetch_add_explicit(&tr->opens_patched, 1, memory_order_relaxed);
	free(reg);
}
