/* SPDX-License-Identifier: MIT */
/*
 * -o noopen (ofs_iofd.c): the kernel answers opens itself. The daemon
 * answers the first OPEN, OPENDIR, CREATE and FLUSH with ENOSYS, after
 * which the kernel sends none of them again on the connection, nor any
 * RELEASE: reads, writes, syncs and listings then arrive with file
 * handle 0, and are served through I/O descriptors the daemon keeps per
 * inode (opened on first need, closed at FORGET or when the table is
 * full). The handlers here have the passthrough's signatures; the timing
 * wrapper (ofs_prof.c) calls them for requests with no file handle.
 */
#ifndef OSPROF_FS_OFS_IOFD_H
#define OSPROF_FS_OFS_IOFD_H

#include <stdint.h>

#include "ofs.h"
#include "ofs_inode.h"
#include "ofs_req.h"

/*
 * ofs_iofd_new - the table of I/O descriptors of @fs (fs->iofd), holding
 * at most @max records (each up to five lower descriptors, or one
 * directory stream) that no request uses, unless pinned. 0 or -ENOMEM.
 */
int ofs_iofd_new(struct ofs *fs, unsigned max);
/* Close every record and free the table (after serving; NULL-safe). */
void ofs_iofd_free(struct ofs *fs);
/*
 * ofs_iofd_gone - @in is about to be freed (its last FORGET): close its
 * record, waiting for requests that use it. Called by the inode table
 * without its lock held. True when there was one. Thread-safe.
 */
bool ofs_iofd_gone(struct ofs *fs, struct ofs_inode *in);
/* Records held now (for ctl). Thread-safe. */
uint64_t ofs_iofd_count(struct ofs *fs);

/* OPEN, OPENDIR, CREATE, FLUSH: ENOSYS, so that the kernel stops asking. */
void ofs_iofd_enosys(struct ofs_req *r);

/* Requests with fh 0, served on the inode's descriptors (ofs_pt.h's contracts). */
void ofs_iofd_read(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi);
void ofs_iofd_write(struct ofs_req *r, fuse_ino_t ino, const char *buf, size_t size,
		    off_t off, struct fuse_file_info *fi);
void ofs_iofd_fsync(struct ofs_req *r, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi);
void ofs_iofd_fallocate(struct ofs_req *r, fuse_ino_t ino, int mode, off_t offset,
			off_t length, struct fuse_file_info *fi);
void ofs_iofd_copy_file_range(struct ofs_req *r, fuse_ino_t ino_in, off_t off_in,
			      struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			      off_t off_out, struct fuse_file_info *fi_out,
			      size_t len, int flags);
void ofs_iofd_lseek(struct ofs_req *r, fuse_ino_t ino, off_t off, int whence,
		    struct fuse_file_info *fi);
void ofs_iofd_readdir(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi);
void ofs_iofd_readdirplus(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi);
void ofs_iofd_fsyncdir(struct ofs_req *r, fuse_ino_t ino, int datasync,
		       struct fuse_file_info *fi);
/*
 * UNLINK and RENAME: the file removed (or replaced) may still be open in
 * the kernel, which told the daemon nothing of it: pin its record first,
 * so that its lower file stays reachable until its FORGET, then serve
 * the request as the passthrough does.
 */
void ofs_iofd_unlink(struct ofs_req *r, fuse_ino_t parent, const char *name);
void ofs_iofd_rename(struct ofs_req *r, fuse_ino_t parent, const char *name,
		     fuse_ino_t newparent, const char *newname, unsigned int flags);

#endif /* OSPROF_FS_OFS_IOFD_H */
