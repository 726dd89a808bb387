/* SPDX-License-Identifier: MIT */
/*
 * The inode table (ofs_inode.c): a FUSE inode is an entry holding the
 * lower file's handle and, while cached, an O_PATH descriptor of it;
 * open files and directories are counted on it.
 */
#ifndef OSPROF_FS_OFS_INODE_H
#define OSPROF_FS_OFS_INODE_H

#include <stdio.h>
#include "ofs.h"
#include "ofs_list.h"

/* "/proc/self/fd/N": how path-only calls reach an O_PATH descriptor. */
static inline void ofs_proc_path(char buf[32], int fd)
{
	snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

struct ofs_inode;

/*
 * Create the table rooted at directory fd @root_fd (O_PATH) on the lower
 * file system, with @mount_fd an ordinary descriptor of the same
 * directory for open_by_handle_at. Takes ownership of both.
 */
struct ofs_inode_table *ofs_itab_new(int root_fd, int mount_fd,
				     unsigned fd_cache);
void ofs_itab_free(struct ofs_inode_table *t);
/* The lower root's path (/proc's name of its descriptor; "" for "/"). */
const char *ofs_itab_root_path(const struct ofs *fs);
/*
 * ofs_inode_key - a 64-bit identity of FUSE inode @ino's lower file (from
 * its device and inode number: hard links are one), or with @top, of the
 * top-level directory under the mount it was first looked up in (itself
 * for a child of the root; the root's own for the root). Lock-free: both
 * are set before the kernel learns the inode. Not for a forgotten inode.
 */
uint64_t ofs_inode_key(struct ofs *fs, fuse_ino_t ino, bool top);
/* The inode of a FUSE ino (the root for FUSE_ROOT_ID). */
struct ofs_inode *ofs_inode_of(struct ofs *fs, fuse_ino_t ino);
/*
 * ofs_inode_fd - an O_PATH descriptor of @in, reopened from its file
 * handle when it is not cached; pair with ofs_inode_fd_put.
 * Returns the fd or -errno (-ESTALE when the file is gone).
 */
int ofs_inode_fd(struct ofs *fs, struct ofs_inode *in);
void ofs_inode_fd_put(struct ofs *fs, struct ofs_inode *in);
/*
 * ofs_inode_lookup - look @name up in directory @dir, fill @e (ino, attr,
 * timeouts), taking one lookup reference. 0 or -errno.
 */
int ofs_inode_lookup(struct ofs *fs, struct ofs_inode *dir, const char *name,
		     struct fuse_entry_param *e);
/*
 * ofs_inode_open - a new descriptor of @in opened with @flags (as the
 * caller, when acting as one). Returns it or -errno.
 */
int ofs_inode_open(struct ofs *fs, struct ofs_inode *in, int flags);
/* Drop @n lookup references (forget); frees the inode at zero. */
void ofs_inode_forget(struct ofs *fs, struct ofs_inode *in, uint64_t n);
/*
 * An open file or directory of an inode. The table keeps every one on a
 * list so that those the kernel never released (the daemon was stopped
 * with files open: release is asynchronous) are closed by @drop when the
 * table is freed.
 */
struct ofs_open {
	struct ofs_list link;               /* on the table's open list */
	struct ofs_inode *in;
	void (*drop)(struct ofs_open *o);   /* close and free */
	bool backing;                       /* passes through to its inode's
					     * backing id (ofs_inode_backing_get) */
};
/* Count @o as an open handle of @in: its descriptor stays cached. */
void ofs_inode_open_get(struct ofs *fs, struct ofs_inode *in,
			struct ofs_open *o, void (*drop)(struct ofs_open *o));
/* The handle is closed: stop counting @o, then drop it (o->drop). */
void ofs_inode_open_put(struct ofs *fs, struct ofs_open *o);
/*
 * ofs_inode_backing_get - with passthrough, let open handle @o (counted)
 * pass through to its inode's backing id: the one its other opens use,
 * else the inode's O_PATH descriptor registered now (ofs_tr_backing_open,
 * as the daemon). The id (> 0), or -errno (the open is then served by
 * the daemon). The last open passing through closes the id
 * (ofs_inode_open_put).
 */
int ofs_inode_backing_get(struct ofs *fs, struct ofs_open *o);
/* Undo ofs_inode_backing_get for @o before its reply (an error path). */
void ofs_inode_backing_put(struct ofs *fs, struct ofs_open *o);
/*
 * Number of inodes and of cached descriptors, whether file handles work,
 * and how many forgets asked for more lookups than held (for ctl).
 */
void ofs_itab_stats(struct ofs *fs, uint64_t *inodes, uint64_t *fds,
		    bool *handles, uint64_t *forget_underflows);

#endif /* OSPROF_FS_OFS_INODE_H */
