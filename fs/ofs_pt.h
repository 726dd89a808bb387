/* SPDX-License-Identifier: MIT */
/*
 * Private to the passthrough (ofs_pt_*.c): the open-file and open-dir
 * records kept in fuse_file_info.fh, and the handlers each file provides
 * to the timing wrapper's ops table (ofs_prof.c). Each handler takes the
 * request's context (struct ofs_req, ofs_req.h) in place of libfuse's request
 * and answers it through pt_reply_*, or hands it on (ofs_lock_wait).
 */
#ifndef OSPROF_FS_OFS_PT_H
#define OSPROF_FS_OFS_PT_H

#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/statvfs.h>

#include "ofs.h"
#include "ofs_inode.h"
#include "ofs_req.h"

struct ofs_file {
	struct ofs_open o;     /* counted by the inode table */
	int fd;                /* the lower file, opened with the caller's flags */
	bool direct;           /* opened O_DIRECT: buffers must be aligned */
	_Atomic int64_t next_off; /* -o values: where the last read or write
				   * closed ended, -1 before any (ofs_values.c) */
};

struct ofs_dir {
	struct ofs_open o;     /* counted by the inode table */
	DIR *dp;
	off_t offset;          /* the position the kernel will ask for next */
	struct dirent *entry;  /* read but not yet returned (buffer was full) */
};

static inline struct ofs_file *pt_file(const struct fuse_file_info *fi)
{
	return (struct ofs_file *)(uintptr_t)fi->fh;
}

static inline struct ofs_dir *pt_dir(const struct fuse_file_info *fi)
{
	return (struct ofs_dir *)(uintptr_t)fi->fh;
}

/*
 * Every reply of the passthrough goes through these: they close the
 * request's context @r first (ofs_req_close), so its latency is recorded
 * just before the reply is sent, and a process that reads the profile
 * right after a call returns always sees that call.
 */
#define PT_REPLY(name, params, args)                   \
	static inline int pt_reply_##name params        \
	{                                               \
		ofs_req_close(r);                       \
		return fuse_reply_##name args;          \
	}
PT_REPLY(err, (struct ofs_req *r, int err), (r->req, err))
PT_REPLY(entry, (struct ofs_req *r, const struct fuse_entry_param *e), (r->req, e))
PT_REPLY(create, (struct ofs_req *r, const struct fuse_entry_param *e,
		  const struct fuse_file_info *fi), (r->req, e, fi))
PT_REPLY(attr, (struct ofs_req *r, const struct stat *st, double timeout),
	 (r->req, st, timeout))
PT_REPLY(readlink, (struct ofs_req *r, const char *link), (r->req, link))
PT_REPLY(open, (struct ofs_req *r, const struct fuse_file_info *fi), (r->req, fi))
PT_REPLY(statfs, (struct ofs_req *r, const struct statvfs *sv), (r->req, sv))
PT_REPLY(xattr, (struct ofs_req *r, size_t count), (r->req, count))
PT_REPLY(lseek, (struct ofs_req *r, off_t off), (r->req, off))
#undef PT_REPLY

/* Data and write replies say how many bytes they carried (done_bytes). */
static inline int pt_reply_write(struct ofs_req *r, size_t count)
{
	r->done_bytes = count;
	ofs_req_close(r);
	return fuse_reply_write(r->req, count);
}

static inline int pt_reply_buf(struct ofs_req *r, const char *buf, size_t size)
{
	r->done_bytes = size;
	ofs_req_close(r);
	return fuse_reply_buf(r->req, buf, size);
}

static inline void pt_reply_none(struct ofs_req *r)
{
	ofs_req_close(r);
	fuse_reply_none(r->req);
}

void ofs_pt_init(void *userdata, struct fuse_conn_info *conn);
/* Thread-local I/O buffer aligned for O_DIRECT; NULL on -ENOMEM. */
void *ofs_pt_iobuf(size_t len);

/* Reply with the entry of @name in @dir (after it was created there). */
void pt_reply_new_entry(struct ofs_req *r, struct ofs_inode *dir, const char *name);

/* ofs_pt_entry.c */
void pt_lookup(struct ofs_req *r, fuse_ino_t parent, const char *name);
void pt_forget(struct ofs_req *r, fuse_ino_t ino, uint64_t nlookup);
void pt_forget_multi(struct ofs_req *r, size_t count, struct fuse_forget_data *f);
void pt_getattr(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_setattr(struct ofs_req *r, fuse_ino_t ino, struct stat *attr, int valid,
		struct fuse_file_info *fi);
void pt_readlink(struct ofs_req *r, fuse_ino_t ino);
void pt_mknod(struct ofs_req *r, fuse_ino_t parent, const char *name, mode_t mode,
	      dev_t rdev);
void pt_mkdir(struct ofs_req *r, fuse_ino_t parent, const char *name, mode_t mode);
void pt_symlink(struct ofs_req *r, const char *link, fuse_ino_t parent,
		const char *name);
void pt_link(struct ofs_req *r, fuse_ino_t ino, fuse_ino_t newparent,
	     const char *newname);
void pt_unlink(struct ofs_req *r, fuse_ino_t parent, const char *name);
void pt_rmdir(struct ofs_req *r, fuse_ino_t parent, const char *name);
void pt_rename(struct ofs_req *r, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags);
void pt_statfs(struct ofs_req *r, fuse_ino_t ino);
void pt_access(struct ofs_req *r, fuse_ino_t ino, int mask);

/* ofs_pt_file.c */
void pt_open(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_create(struct ofs_req *r, fuse_ino_t parent, const char *name,
	       mode_t mode, struct fuse_file_info *fi);
void pt_read(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
	     struct fuse_file_info *fi);
void pt_write(struct ofs_req *r, fuse_ino_t ino, const char *buf, size_t size,
	      off_t off, struct fuse_file_info *fi);
void pt_flush(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_release(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_fsync(struct ofs_req *r, fuse_ino_t ino, int datasync,
	      struct fuse_file_info *fi);
void pt_fallocate(struct ofs_req *r, fuse_ino_t ino, int mode, off_t offset,
		  off_t length, struct fuse_file_info *fi);
void pt_flock(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi, int op);
void pt_copy_file_range(struct ofs_req *r, fuse_ino_t ino_in, off_t off_in,
			struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			off_t off_out, struct fuse_file_info *fi_out,
			size_t len, int flags);
void pt_lseek(struct ofs_req *r, fuse_ino_t ino, off_t off, int whence,
	      struct fuse_file_info *fi);

/* ofs_pt_dir.c */
void pt_opendir(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_readdir(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void pt_readdirplus(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi);
void pt_releasedir(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_fsyncdir(struct ofs_req *r, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi);

/* ofs_pt_xattr.c */
void pt_setxattr(struct ofs_req *r, fuse_ino_t ino, const char *name,
		 const char *value, size_t size, int flags);
void pt_getxattr(struct ofs_req *r, fuse_ino_t ino, const char *name, size_t size);
void pt_listxattr(struct ofs_req *r, fuse_ino_t ino, size_t size);
void pt_removexattr(struct ofs_req *r, fuse_ino_t ino, const char *name);

#endif /* OSPROF_FS_OFS_PT_H */
