// SPDX-License-Identifier: MIT
/*
 * Passthrough of extended attributes. The *xattr calls do not take O_PATH
 * descriptors, so they go through the descriptor's /proc/self/fd path.
 * A size of 0 asks for the size only; an answer larger than the caller's
 * buffer is ERANGE from the lower file system itself.
 */
#include <errno.h>
#include <sys/xattr.h>

#include "ofs.h"
#include "ofs_inode.h"
#include "ofs_lower.h"
#include "ofs_pt_impl.h"
#include "ofs_req.h"

/* fd of @ino and its magic path, or reply the error and return it (-errno). */
static int xattr_begin(struct ofs_req *r, fuse_ino_t ino, struct ofs_inode **in,
		       char proc[32])
{
	struct ofs *fs = r->fs;
	int fd;

	*in = ofs_inode_of(fs, ino);
	fd = ofs_inode_fd(fs, *in);
	if (fd < 0) {
		ofs_req_reply_err(r, fd);
		return fd;
	}
	ofs_proc_path(proc, fd);
	return fd;
}

/* Reply to a get/list call that returned @n (or -1 with @err, -errno). */
static void xattr_reply(struct ofs_req *r, size_t size, const char *buf,
			ssize_t n, int err)
{
	if (n < 0)
		ofs_req_reply_err(r, err);
	else if (size == 0)
		ofs_req_reply_xattr(r, (size_t)n);
	else
		ofs_req_reply_buf(r, buf, (size_t)n);
}

void ofs_pt_setxattr(struct ofs_req *r, fuse_ino_t ino, const char *name,
		     const char *value, size_t size, int flags)
{
	struct ofs_inode *in;
	char proc[32];
	int err = 0;

	if (xattr_begin(r, ino, &in, proc) < 0)
		return;
	if (OFS_LOWER(r->fs, OFS_LC_SETXATTR, setxattr(proc, name, value, size, flags)) != 0)
		err = -errno;
	ofs_inode_fd_put(r->fs, in);
	ofs_req_reply_err(r, err);
}

/* getxattr of @name, or listxattr when @name is NULL. */
static void query(struct ofs_req *r, fuse_ino_t ino, const char *name, size_t size)
{
	struct ofs_inode *in;
	char proc[32], *buf = NULL;
	ssize_t n;
	int err = 0;

	if (size && !(buf = ofs_pt_iobuf(size))) {
		ofs_req_reply_err(r, -ENOMEM);
		return;
	}
	if (xattr_begin(r, ino, &in, proc) < 0)
		return;
	n = name ? OFS_LOWER(r->fs, OFS_LC_GETXATTR, getxattr(proc, name, buf, size))
		 : OFS_LOWER(r->fs, OFS_LC_LISTXATTR, listxattr(proc, buf, size));
	if (n < 0)
		err = -errno;
	ofs_inode_fd_put(r->fs, in);
	xattr_reply(r, size, buf, n, err);
}

void ofs_pt_getxattr(struct ofs_req *r, fuse_ino_t ino, const char *name, size_t size)
{
	query(r, ino, name, size);
}

void ofs_pt_listxattr(struct ofs_req *r, fuse_ino_t ino, size_t size)
{
	query(r, ino, NULL, size);
}

void ofs_pt_removexattr(struct ofs_req *r, fuse_ino_t ino, const char *name)
{
	struct ofs_inode *in;
	char proc[32];
	int err = 0;

	if (xattr_begin(r, ino, &in, proc) < 0)
		return;
	if (OFS_LOWER(r->fs, OFS_LC_REMOVEXATTR, removexattr(proc, name)) != 0)
		err = -errno;
	ofs_inode_fd_put(r->fs, in);
	ofs_req_reply_err(r, err);
}
