/* SPDX-License-Identifier: MIT */
/*
 * Private to the passthrough (ofs_pt_*.c, and ofs_iofd.c, which serves
 * -o noopen's requests through its handlers; no other file includes it):
 * the open-directory record kept in fuse_file_info.fh, the records'
 * accessors, the worker's I/O buffer and the reply of a new entry.
 */
#ifndef OSPROF_FS_OFS_PT_IMPL_H
#define OSPROF_FS_OFS_PT_IMPL_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ofs_pt.h"

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

/* Thread-local I/O buffer aligned for O_DIRECT; NULL on -ENOMEM. */
void *ofs_pt_iobuf(size_t len);

/* Sync @fd (fdatasync with @datasync, else fsync) and reply to @r with
 * its error: fsync and fsyncdir alike (ofs_pt_file.c). */
void ofs_pt_reply_sync(struct ofs_req *r, int fd, int datasync);

/* Reply with the entry of @name in @dir (after it was created there). */
void ofs_pt_reply_new_entry(struct ofs_req *r, struct ofs_inode *dir, const char *name);

#endif /* OSPROF_FS_OFS_PT_IMPL_H */
