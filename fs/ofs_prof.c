// SPDX-License-Identifier: MIT
/*
 * The profiling wrapper: the operation table libfuse calls. Each handler
 * sends requests for the control directory to ofs_ctl (untimed, not
 * counted), and gives every other one a context (struct ofs_req, on its
 * stack) that says what the request is about; it opens the context, which
 * starts timing (ofs_req.c), hands it to the passthrough, whose reply
 * closes it, recording the request. Requests that touch the lower name
 * space with permission checks run as the caller (ofs_creds) when root
 * serves other users.
 */
#include <errno.h>
#include <string.h>

#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_ctl.h"
#include "ofs_iofd.h"
#include "ofs_prof.h"
#include "ofs_pt.h"
#include "ofs_req.h"

#define OP_NAME(ID, name, opcode, pt) [OFS_OP_##ID] = name,
const char *const ofs_op_names[OFS_OP__COUNT] = {
	OSP_FUSE_OPS(OP_NAME, OSP_SKIP, OSP_SKIP)
};
#undef OP_NAME
_Static_assert(sizeof(ofs_op_names) / sizeof(ofs_op_names[0]) == OFS_OP__COUNT,
	       "a name for every operation");

/*
 * Serve a request as operation @op_ through @call, which names its context
 * `r` (struct ofs_req); the designated initializers after it say what the
 * request is about. With @as_caller, it runs with the caller's identity.
 */
#define TIMED(op_, as_caller, call, ...)                                  \
	do {                                                              \
		struct ofs_req r = { .req = req, .op = (op_), __VA_ARGS__ }; \
		int e_ = ofs_req_open(&r, as_caller);                     \
									  \
		if (e_)                                                   \
			ofs_req_reply_err(&r, e_);                             \
		else                                                      \
			call;                                             \
		ofs_req_end(&r);                                          \
	} while (0)

/* The open file or directory of @fi, 0 for none (getattr, setattr). */
#define FH(fi) ((fi) ? (fi)->fh : 0)

/*
 * -o noopen (ofs_iofd.h): opens are refused with ENOSYS, and what comes
 * with no file handle is served on the inode's I/O descriptors.
 */
#define NOOPEN(req) (ofs_of(req)->iofd != NULL)
#define PT_OR_IOFD(fi, name, ...) \
	((fi)->fh ? ofs_pt_##name(__VA_ARGS__) : ofs_iofd_##name(__VA_ARGS__))

/* Control-directory inodes go to ofs_ctl; what it lacks is refused. */
#define CTL_OR_REFUSE(ino, handler, ...)                                  \
	do {                                                              \
		if (ofs_ctl_ino(ino)) {                                   \
			struct ofs *cfs_ = ofs_of(req);                   \
									  \
			/* the reply frees req: fs taken before */        \
			ofs_bpf_ctl_begin(cfs_);                          \
			if (ofs_ctl_ops.handler)                          \
				ofs_ctl_ops.handler(__VA_ARGS__);         \
			else                                              \
				ofs_reply_err(req, -EPERM);               \
			ofs_bpf_ctl_end(cfs_);                            \
			return;                                           \
		}                                                         \
	} while (0)

/* True for a name in the control directory, or the control directory's own. */
static bool ctl_entry(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	return ofs_ctl_ino(parent) || ofs_ctl_is_root_entry(ofs_of(req), parent, name);
}

/* The control directory and its names cannot be created, removed, renamed. */
static bool ctl_name_guard(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ofs *fs = ofs_of(req); /* the reply frees req */

	if (!ctl_entry(req, parent, name))
		return false;
	ofs_bpf_ctl_begin(fs);
	ofs_reply_err(req, -EPERM);
	ofs_bpf_ctl_end(fs);
	return true;
}

static void w_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ofs *fs = ofs_of(req); /* the reply frees req */

	if (ctl_entry(req, parent, name)) {
		ofs_bpf_ctl_begin(fs);
		ofs_ctl_ops.lookup(req, parent, name);
		ofs_bpf_ctl_end(fs);
		return;
	}
	TIMED(OFS_OP_LOOKUP, true, ofs_pt_lookup(&r, parent, name), .ino = parent, .name = name);
}

static void w_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	if (ofs_ctl_ino(ino)) {
		ofs_ctl_forget(ofs_of(req), ino, nlookup);
		fuse_reply_none(req);
		return;
	}
	TIMED(OFS_OP_FORGET, false, ofs_pt_forget(&r, ino, nlookup), .ino = ino);
}

static void w_forget_multi(fuse_req_t req, size_t count,
			   struct fuse_forget_data *f)
{
	size_t n = 0;

	/* The control directory's inodes are its own (not the profile's). */
	for (size_t i = 0; i < count; i++)
		if (ofs_ctl_ino(f[i].ino))
			ofs_ctl_forget(ofs_of(req), f[i].ino, f[i].nlookup);
		else
			f[n++] = f[i];
	if (n == 0 && count > 0) {
		/* control inodes alone (under noopen, each lookup's) */
		fuse_reply_none(req);
		return;
	}
	TIMED(OFS_OP_BATCH_FORGET, false, ofs_pt_forget_multi(&r, n, f));
}

static void w_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, getattr, req, ino, fi);
	TIMED(OFS_OP_GETATTR, false, ofs_pt_getattr(&r, ino, fi),
	      .ino = ino, .fh = FH(fi));
}

static void w_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		      int valid, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, setattr, req, ino, attr, valid, fi);
	TIMED(OFS_OP_SETATTR, true, ofs_pt_setattr(&r, ino, attr, valid, fi),
	      .ino = ino, .fh = FH(fi));
}

static void w_readlink(fuse_req_t req, fuse_ino_t ino)
{
	CTL_OR_REFUSE(ino, readlink, req, ino);
	TIMED(OFS_OP_READLINK, false, ofs_pt_readlink(&r, ino), .ino = ino);
}

static void w_mknod(fuse_req_t req, fuse_ino_t parent, const char *name,
		    mode_t mode, dev_t rdev)
{
	if (ctl_name_guard(req, parent, name))
		return;
	TIMED(OFS_OP_MKNOD, true, ofs_pt_mknod(&r, parent, name, mode, rdev),
	      .ino = parent, .name = name);
}

static void w_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name,
		    mode_t mode)
{
	if (ctl_name_guard(req, parent, name))
		return;
	TIMED(OFS_OP_MKDIR, true, ofs_pt_mkdir(&r, parent, name, mode),
	      .ino = parent, .name = name);
}

static void w_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	if (ctl_name_guard(req, parent, name))
		return;
	TIMED(OFS_OP_UNLINK, true, NOOPEN(req) ? ofs_iofd_unlink(&r, parent, name) :
	      ofs_pt_unlink(&r, parent, name), .ino = parent, .name = name);
}

static void w_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	if (ctl_name_guard(req, parent, name))
		return;
	TIMED(OFS_OP_RMDIR, true, ofs_pt_rmdir(&r, parent, name), .ino = parent, .name = name);
}

static void w_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		      const char *name)
{
	if (ctl_name_guard(req, parent, name))
		return;
	TIMED(OFS_OP_SYMLINK, true, ofs_pt_symlink(&r, link, parent, name),
	      .ino = parent, .name = name);
}

static void w_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
		     fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	if (ctl_name_guard(req, parent, name) || ctl_name_guard(req, newparent, newname))
		return;
	TIMED(OFS_OP_RENAME, true, NOOPEN(req) ?
	      ofs_iofd_rename(&r, parent, name, newparent, newname, flags) :
	      ofs_pt_rename(&r, parent, name, newparent, newname, flags),
	      .ino = parent, .name = name);
}

static void w_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
		   const char *newname)
{
	if (ofs_ctl_ino(ino)) {
		ofs_reply_err(req, -EPERM);
		return;
	}
	if (ctl_name_guard(req, newparent, newname))
		return;
	TIMED(OFS_OP_LINK, true, ofs_pt_link(&r, ino, newparent, newname),
	      .ino = ino);
}

static void w_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, open, req, ino, fi);
	TIMED(OFS_OP_OPEN, true, NOOPEN(req) ? ofs_iofd_enosys(&r) : ofs_pt_open(&r, ino, fi),
	      .ino = ino);
}

static void w_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, read, req, ino, size, off, fi);
	TIMED(OFS_OP_READ, false, PT_OR_IOFD(fi, read, &r, ino, size, off, fi),
	      .ino = ino, .fh = fi->fh, .size_bytes = size, .off = off);
}

static void w_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		    size_t size, off_t off, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, write, req, ino, buf, size, off, fi);
	TIMED(OFS_OP_WRITE, false, PT_OR_IOFD(fi, write, &r, ino, buf, size, off, fi),
	      .ino = ino, .fh = fi->fh, .size_bytes = size, .off = off);
}

static void w_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, flush, req, ino, fi);
	TIMED(OFS_OP_FLUSH, false, NOOPEN(req) ? ofs_iofd_enosys(&r) : ofs_pt_flush(&r, ino, fi),
	      .ino = ino, .fh = fi->fh);
}

static void w_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, release, req, ino, fi);
	TIMED(OFS_OP_RELEASE, false, ofs_pt_release(&r, ino, fi),
	      .ino = ino, .fh = fi->fh);
}

static void w_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, fsync, req, ino, datasync, fi);
	TIMED(OFS_OP_FSYNC, false, PT_OR_IOFD(fi, fsync, &r, ino, datasync, fi),
	      .ino = ino, .fh = fi->fh);
}

static void w_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, opendir, req, ino, fi);
	TIMED(OFS_OP_OPENDIR, true, NOOPEN(req) ? ofs_iofd_enosys(&r) : ofs_pt_opendir(&r, ino, fi),
	      .ino = ino);
}

static void w_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, readdir, req, ino, size, off, fi);
	TIMED(OFS_OP_READDIR, false, PT_OR_IOFD(fi, readdir, &r, ino, size, off, fi),
	      .ino = ino, .fh = fi->fh, .size_bytes = size, .off = off);
}

static void w_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			  off_t off, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, readdirplus, req, ino, size, off, fi);
	TIMED(OFS_OP_READDIRPLUS, true, PT_OR_IOFD(fi, readdirplus, &r, ino, size, off, fi),
	      .ino = ino, .fh = fi->fh, .size_bytes = size, .off = off);
}

static void w_releasedir(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, releasedir, req, ino, fi);
	TIMED(OFS_OP_RELEASEDIR, false, ofs_pt_releasedir(&r, ino, fi),
	      .ino = ino, .fh = fi->fh);
}

static void w_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		       struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, fsyncdir, req, ino, datasync, fi);
	TIMED(OFS_OP_FSYNCDIR, false, PT_OR_IOFD(fi, fsyncdir, &r, ino, datasync, fi),
	      .ino = ino, .fh = fi->fh);
}

static void w_statfs(fuse_req_t req, fuse_ino_t ino)
{
	/* The control directory lives on the mount: report the lower root. */
	if (ofs_ctl_ino(ino))
		ino = FUSE_ROOT_ID;
	TIMED(OFS_OP_STATFS, false, ofs_pt_statfs(&r, ino), .ino = ino);
}

static void w_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		       const char *value, size_t size, int flags)
{
	CTL_OR_REFUSE(ino, setxattr, req, ino, name, value, size, flags);
	TIMED(OFS_OP_SETXATTR, true, ofs_pt_setxattr(&r, ino, name, value, size, flags),
	      .ino = ino, .size_bytes = size);
}

static void w_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		       size_t size)
{
	CTL_OR_REFUSE(ino, getxattr, req, ino, name, size);
	TIMED(OFS_OP_GETXATTR, true, ofs_pt_getxattr(&r, ino, name, size),
	      .ino = ino, .size_bytes = size);
}

static void w_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	CTL_OR_REFUSE(ino, listxattr, req, ino, size);
	TIMED(OFS_OP_LISTXATTR, true, ofs_pt_listxattr(&r, ino, size),
	      .ino = ino, .size_bytes = size);
}

static void w_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	CTL_OR_REFUSE(ino, removexattr, req, ino, name);
	TIMED(OFS_OP_REMOVEXATTR, true, ofs_pt_removexattr(&r, ino, name),
	      .ino = ino);
}

static void w_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	CTL_OR_REFUSE(ino, access, req, ino, mask);
	TIMED(OFS_OP_ACCESS, true, ofs_pt_access(&r, ino, mask), .ino = ino);
}

static void w_create(fuse_req_t req, fuse_ino_t parent, const char *name,
		     mode_t mode, struct fuse_file_info *fi)
{
	if (ctl_name_guard(req, parent, name))
		return;
	TIMED(OFS_OP_CREATE, true, NOOPEN(req) ? ofs_iofd_enosys(&r) :
	      ofs_pt_create(&r, parent, name, mode, fi),
	      .ino = parent, .name = name);
}

static void w_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		    int op)
{
	CTL_OR_REFUSE(ino, flock, req, ino, fi, op);
	TIMED(OFS_OP_FLOCK, false, ofs_pt_flock(&r, ino, fi, op),
	      .ino = ino, .fh = fi->fh);
}

static void w_fallocate(fuse_req_t req, fuse_ino_t ino, int mode,
			off_t offset, off_t length, struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, fallocate, req, ino, mode, offset, length, fi);
	TIMED(OFS_OP_FALLOCATE, false, PT_OR_IOFD(fi, fallocate, &r, ino, mode, offset, length, fi),
	      .ino = ino, .fh = fi->fh, .size_bytes = (uint64_t)length, .off = offset);
}

static void w_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			      struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			      off_t off_out, struct fuse_file_info *fi_out,
			      size_t len, int flags)
{
	if (ofs_ctl_ino(ino_in) || ofs_ctl_ino(ino_out)) {
		/* The kernel falls back to an ordinary copy. */
		ofs_reply_err(req, -EOPNOTSUPP);
		return;
	}
	TIMED(OFS_OP_COPY_FILE_RANGE, false, fi_in->fh && fi_out->fh ?
	      ofs_pt_copy_file_range(&r, ino_in, off_in, fi_in, ino_out, off_out,
				 fi_out, len, flags) :
	      ofs_iofd_copy_file_range(&r, ino_in, off_in, fi_in, ino_out, off_out,
				       fi_out, len, flags),
	      .ino = ino_in, .fh = fi_in->fh, .size_bytes = len, .off = off_in);
}

static void w_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		    struct fuse_file_info *fi)
{
	CTL_OR_REFUSE(ino, lseek, req, ino, off, whence, fi);
	TIMED(OFS_OP_LSEEK, false, PT_OR_IOFD(fi, lseek, &r, ino, off, whence, fi),
	      .ino = ino, .fh = fi->fh, .off = off);
}

const struct fuse_lowlevel_ops ofs_prof_ops = {
	.init = ofs_pt_init,
	.lookup = w_lookup,
	.forget = w_forget,
	.forget_multi = w_forget_multi,
	.getattr = w_getattr,
	.setattr = w_setattr,
	.readlink = w_readlink,
	.mknod = w_mknod,
	.mkdir = w_mkdir,
	.unlink = w_unlink,
	.rmdir = w_rmdir,
	.symlink = w_symlink,
	.rename = w_rename,
	.link = w_link,
	.open = w_open,
	.read = w_read,
	.write = w_write,
	.flush = w_flush,
	.release = w_release,
	.fsync = w_fsync,
	.opendir = w_opendir,
	.readdir = w_readdir,
	.readdirplus = w_readdirplus,
	.releasedir = w_releasedir,
	.fsyncdir = w_fsyncdir,
	.statfs = w_statfs,
	.setxattr = w_setxattr,
	.getxattr = w_getxattr,
	.listxattr = w_listxattr,
	.removexattr = w_removexattr,
	.access = w_access,
	.create = w_create,
	.flock = w_flock,
	.fallocate = w_fallocate,
	.copy_file_range = w_copy_file_range,
	.lseek = w_lseek,
};
