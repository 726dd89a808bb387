// SPDX-License-Identifier: MIT
/*
 * The passthrough's operation table and its connection setup. The table
 * is pure passthrough; profiling wraps it (ofs_prof.c).
 */
#include "ofs_pt.h"

void ofs_pt_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ofs *fs = userdata;

	if (fs->opts.writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	else
		conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	if (fs->opts.cache != OFS_CACHE_NEVER && (conn->capable & FUSE_CAP_AUTO_INVAL_DATA))
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_FLOCK_LOCKS)
		conn->want |= FUSE_CAP_FLOCK_LOCKS;
	if (conn->capable & FUSE_CAP_PARALLEL_DIROPS)
		conn->want |= FUSE_CAP_PARALLEL_DIROPS;
	if (fs->opts.cache == OFS_CACHE_ALWAYS && (conn->capable & FUSE_CAP_CACHE_SYMLINKS))
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	if (fs->opts.readdirplus == 0) {
		conn->want &= ~(unsigned)(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
	} else if (fs->opts.readdirplus == 1 && (conn->capable & FUSE_CAP_READDIRPLUS)) {
		conn->want |= FUSE_CAP_READDIRPLUS;
		conn->want &= ~(unsigned)FUSE_CAP_READDIRPLUS_AUTO;
	}
}

const struct fuse_lowlevel_ops ofs_pt_ops = {
	.init = ofs_pt_init,
	.lookup = pt_lookup,
	.forget = pt_forget,
	.forget_multi = pt_forget_multi,
	.getattr = pt_getattr,
	.setattr = pt_setattr,
	.readlink = pt_readlink,
	.mknod = pt_mknod,
	.mkdir = pt_mkdir,
	.unlink = pt_unlink,
	.rmdir = pt_rmdir,
	.symlink = pt_symlink,
	.rename = pt_rename,
	.link = pt_link,
	.open = pt_open,
	.read = pt_read,
	.write = pt_write,
	.flush = pt_flush,
	.release = pt_release,
	.fsync = pt_fsync,
	.opendir = pt_opendir,
	.readdir = pt_readdir,
	.readdirplus = pt_readdirplus,
	.releasedir = pt_releasedir,
	.fsyncdir = pt_fsyncdir,
	.statfs = pt_statfs,
	.setxattr = pt_setxattr,
	.getxattr = pt_getxattr,
	.listxattr = pt_listxattr,
	.removexattr = pt_removexattr,
	.access = pt_access,
	.create = pt_create,
	.flock = pt_flock,
	.fallocate = pt_fallocate,
	.copy_file_range = pt_copy_file_range,
	.lseek = pt_lseek,
};
