/* SPDX-License-Identifier: MIT */
/* Who and what, in words (ofs_who.c): process names and inode paths,
 * and the labels the views show of them. */
#ifndef OSPROF_FS_OFS_WHO_H
#define OSPROF_FS_OFS_WHO_H

#include <sys/types.h>
#include "ofs.h"

#define OFS_COMM_LEN 16 /* TASK_COMM_LEN: a process name and its NUL */
/*
 * ofs_comm_of - the name of process @pid (/proc/PID/comm), read once per
 * pid and cached (lock-free; readers never wait). 0 or -errno (-ENOENT,
 * -ESRCH: the process is gone). For key values and slow requests, not
 * for every request.
 */
int ofs_comm_of(pid_t pid, char out[OFS_COMM_LEN]);
/*
 * ofs_inode_path - the path of FUSE inode @ino in the mount ("/" for the
 * root, "/dir/file" below it), from its descriptor's name in /proc; a
 * file deleted since has " (deleted)" after it, one moved out of the tree
 * its own full path. 0 or -errno (-ENAMETOOLONG when @len is short).
 * Reopens the inode when its descriptor is not cached (a few us).
 */
int ofs_inode_path(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len);
/* The labels the views show: a process's name ("(kernel)" for pid 0, "?"
 * for one gone), an inode's path ("..." ending one cut at @len, "?" when
 * it has none). */
void ofs_comm_label(pid_t pid, char out[OFS_COMM_LEN]);
void ofs_inode_label(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len);
/* A path label's marks after its lookup returned @err into @buf of @len:
 * "..." ending it when cut (-ENAMETOOLONG), "?" for any other error. */
void ofs_label_mark(char *buf, size_t len, int err);

#endif /* OSPROF_FS_OFS_WHO_H */
