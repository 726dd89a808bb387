/* SPDX-License-Identifier: MIT */
/*
 * The passthrough (ofs_pt_*.c): one handler per FUSE operation. The
 * timing wrapper's ops table (ofs_prof.c) calls them. Each handler takes
 * the request's context (struct ofs_req, ofs_req.h) in place of libfuse's
 * request and answers it through ofs_req_reply_*, or hands it on
 * (ofs_lock_wait). It decides nothing about profiling, but is not blind
 * to it: those replies close the context, which records the request
 * (ofs_req.c); every call it makes on the lower file system goes through
 * OFS_LOWER, which times it for the lower layer (ofs_lower.h); and an
 * open file carries next_off for -o values. Errors: negative errno up to
 * the reply (ofs.h). What only the passthrough's files share is in
 * ofs_pt_impl.h.
 */
#ifndef OSPROF_FS_OFS_PT_H
#define OSPROF_FS_OFS_PT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "ofs.h"
#include "ofs_inode.h"
#include "ofs_req.h"

/*
 * An open file: what fuse_file_info.fh, and so a request's fh, holds for
 * one (open, create). The value profiles read where its last read or
 * write ended.
 */
struct ofs_file {
	struct ofs_open o;     /* counted by the inode table */
	int fd;                /* the lower file, opened with the caller's flags */
	bool direct;           /* opened O_DIRECT: buffers must be aligned */
	_Atomic int64_t next_off; /* -o values: where the last read or write
				   * closed ended, -1 before any (ofs_values.c) */
};

/* The connection's setup: the capabilities asked of the kernel (ofs_pt.c). */
void ofs_pt_init(void *userdata, struct fuse_conn_info *conn);

/* ofs_pt_entry.c */
void ofs_pt_lookup(struct ofs_req *r, fuse_ino_t parent, const char *name);
void ofs_pt_forget(struct ofs_req *r, fuse_ino_t ino, uint64_t nlookup);
void ofs_pt_forget_multi(struct ofs_req *r, size_t count, struct fuse_forget_data *f);
void ofs_pt_getattr(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void ofs_pt_setattr(struct ofs_req *r, fuse_ino_t ino, struct stat *attr, int valid,
		    struct fuse_file_info *fi);
void ofs_pt_readlink(struct ofs_req *r, fuse_ino_t ino);
void ofs_pt_mknod(struct ofs_req *r, fuse_ino_t parent, const char *name, mode_t mode,
		  dev_t rdev);
void ofs_pt_mkdir(struct ofs_req *r, fuse_ino_t parent, const char *name, mode_t mode);
void ofs_pt_symlink(struct ofs_req *r, const char *link, fuse_ino_t parent,
		    const char *name);
void ofs_pt_link(struct ofs_req *r, fuse_ino_t ino, fuse_ino_t newparent,
		 const char *newname);
void ofs_pt_unlink(struct ofs_req *r, fuse_ino_t parent, const char *name);
void ofs_pt_rmdir(struct ofs_req *r, fuse_ino_t parent, const char *name);
void ofs_pt_rename(struct ofs_req *r, fuse_ino_t parent, const char *name,
		   fuse_ino_t newparent, const char *newname, unsigned int flags);
void ofs_pt_statfs(struct ofs_req *r, fuse_ino_t ino);
void ofs_pt_access(struct ofs_req *r, fuse_ino_t ino, int mask);

/* ofs_pt_file.c */
void ofs_pt_open(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void ofs_pt_create(struct ofs_req *r, fuse_ino_t parent, const char *name,
		   mode_t mode, struct fuse_file_info *fi);
void ofs_pt_read(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi);
void ofs_pt_write(struct ofs_req *r, fuse_ino_t ino, const char *buf, size_t size,
		  off_t off, struct fuse_file_info *fi);
void ofs_pt_flush(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void ofs_pt_release(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void ofs_pt_fsync(struct ofs_req *r, fuse_ino_t ino, int datasync,
		  struct fuse_file_info *fi);
void ofs_pt_fallocate(struct ofs_req *r, fuse_ino_t ino, int mode, off_t offset,
		      off_t length, struct fuse_file_info *fi);
void ofs_pt_flock(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi, int op);
void ofs_pt_copy_file_range(struct ofs_req *r, fuse_ino_t ino_in, off_t off_in,
			    struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			    off_t off_out, struct fuse_file_info *fi_out,
			    size_t len, int flags);
void ofs_pt_lseek(struct ofs_req *r, fuse_ino_t ino, off_t off, int whence,
		  struct fuse_file_info *fi);

/* ofs_pt_dir.c */
void ofs_pt_opendir(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void ofs_pt_readdir(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi);
void ofs_pt_readdirplus(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
			struct fuse_file_info *fi);
void ofs_pt_releasedir(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void ofs_pt_fsyncdir(struct ofs_req *r, fuse_ino_t ino, int datasync,
		     struct fuse_file_info *fi);

/* ofs_pt_xattr.c */
void ofs_pt_setxattr(struct ofs_req *r, fuse_ino_t ino, const char *name,
		     const char *value, size_t size, int flags);
void ofs_pt_getxattr(struct ofs_req *r, fuse_ino_t ino, const char *name, size_t size);
void ofs_pt_listxattr(struct ofs_req *r, fuse_ino_t ino, size_t size);
void ofs_pt_removexattr(struct ofs_req *r, fuse_ino_t ino, const char *name);

#endif /* OSPROF_FS_OFS_PT_H */
