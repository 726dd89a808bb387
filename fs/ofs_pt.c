// SPDX-License-Identifier: MIT
/*
 * The passthrough's connection setup: the capabilities asked of the
 * kernel. Its handlers (ofs_pt_*.c, ofs_pt.h) are called by the timing
 * wrapper's table (ofs_prof.c).
 */
#include "ofs.h"
#include "ofs_opts.h"
#include "ofs_pt_impl.h"

void ofs_pt_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ofs *fs = userdata;

	if (fs->opts.writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	else
		conn->want &= ~(unsigned)FUSE_CAP_WRITEBACK_CACHE;
	if (fs->opts.cache != OFS_CACHE_NEVER && (conn->capable & FUSE_CAP_AUTO_INVAL_DATA))
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	if (fs->opts.noopen) {
		/*
		 * No close reaches the daemon (no FLUSH, no RELEASE): locks
		 * stay in the kernel. O_TRUNC comes as a SETATTR of size 0:
		 * with FUSE_ATOMIC_O_TRUNC (libfuse's default) it would be
		 * left to an OPEN that is never sent.
		 */
		conn->want &= ~(unsigned)(FUSE_CAP_FLOCK_LOCKS | FUSE_CAP_POSIX_LOCKS |
					  FUSE_CAP_ATOMIC_O_TRUNC);
	} else if (conn->capable & FUSE_CAP_FLOCK_LOCKS) {
		conn->want |= FUSE_CAP_FLOCK_LOCKS;
	}
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
