/* SPDX-License-Identifier: MIT */
/*
 * Private to the passthrough (ofs_pt_*.c): the open-file and open-dir
 * records kept in fuse_file_info.fh, and the handlers each file provides
 * to the timing wrapper's ops table (ofs_prof.c).
 */
#ifndef OSPROF_FS_OFS_PT_H
#define OSPROF_FS_OFS_PT_H

#include <dirent.h>
#include <stdio.h>
#include <sys/statvfs.h>

#include "ofs.h"

struct ofs_file {
	struct ofs_open o;     /* counted by the inode table */
	int fd;                /* the lower file, opened with the caller's flags */
	bool direct;           /* opened O_DIRECT: buffers must be aligned */
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
 * Every reply of the passthrough goes through these: the request's
 * latency is recorded just before the reply is sent, so a process that
 * reads the profile right after a call returns always sees that call.
 */
#define PT_REPLY(name, params, args)                   \
	static inline int pt_reply_##name params        \
	{                                               \
		ofs_prof_replying();                    \
		return fuse_reply_##name args;          \
	}
PT_REPLY(err, (fuse_req_t req, int err), (req, err))
PT_REPLY(entry, (fuse_req_t req, const struct fuse_entry_param *e), (req, e))
PT_REPLY(create, (fuse_req_t req, const struct fuse_entry_param *e,
		  const struct fuse_file_info *fi), (req, e, fi))
PT_REPLY(attr, (fuse_req_t req, const struct stat *st, double timeout), (req, st, timeout))
PT_REPLY(readlink, (fuse_req_t req, const char *link), (req, link))
PT_REPLY(open, (fuse_req_t req, const struct fuse_file_info *fi), (req, fi))
PT_REPLY(write, (fuse_req_t req, size_t count), (req, count))
PT_REPLY(buf, (fuse_req_t req, const char *buf, size_t size), (req, buf, size))
PT_REPLY(statfs, (fuse_req_t req, const struct statvfs *sv), (req, sv))
PT_REPLY(xattr, (fuse_req_t req, size_t count), (req, count))
PT_REPLY(lseek, (fuse_req_t req, off_t off), (req, off))
#undef PT_REPLY

static inline void pt_reply_none(fuse_req_t req)
{
	ofs_prof_replying();
	fuse_reply_none(req);
}


/* Reply with the entry of @name in @dir (after it was created there). */
void pt_reply_new_entry(fuse_req_t req, struct ofs_inode *dir, const char *name);

/* ofs_pt_entry.c */
void pt_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
void pt_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void pt_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *f);
void pt_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int valid,
		struct fuse_file_info *fi);
void pt_readlink(fuse_req_t req, fuse_ino_t ino);
void pt_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
	      dev_t rdev);
void pt_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void pt_symlink(fuse_req_t req, const char *link, fuse_ino_t parent,
		const char *name);
void pt_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent,
	     const char *newname);
void pt_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void pt_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void pt_rename(fuse_req_t req, fuse_ino_t parent, const char *name,
	       fuse_ino_t newparent, const char *newname, unsigned int flags);
void pt_statfs(fuse_req_t req, fuse_ino_t ino);
void pt_access(fuse_req_t req, fuse_ino_t ino, int mask);

/* ofs_pt_file.c */
void pt_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_create(fuse_req_t req, fuse_ino_t parent, const char *name,
	       mode_t mode, struct fuse_file_info *fi);
void pt_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
	     struct fuse_file_info *fi);
void pt_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size,
	      off_t off, struct fuse_file_info *fi);
void pt_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_fsync(fuse_req_t req, fuse_ino_t ino, int datasync,
	      struct fuse_file_info *fi);
void pt_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset,
		  off_t length, struct fuse_file_info *fi);
void pt_flock(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi, int op);
void pt_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
			struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			off_t off_out, struct fuse_file_info *fi_out,
			size_t len, int flags);
void pt_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
	      struct fuse_file_info *fi);

/* ofs_pt_dir.c */
void pt_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		struct fuse_file_info *fi);
void pt_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi);
void pt_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void pt_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync,
		 struct fuse_file_info *fi);

/* ofs_pt_xattr.c */
void pt_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
		 const char *value, size_t size, int flags);
void pt_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void pt_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);
void pt_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);

#endif /* OSPROF_FS_OFS_PT_H */
