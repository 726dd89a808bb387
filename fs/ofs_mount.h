/* SPDX-License-Identifier: MIT */
/* What is mounted at a path (ofs_mount.c). */
#ifndef OSPROF_FS_OFS_MOUNT_H
#define OSPROF_FS_OFS_MOUNT_H

#include <sys/types.h>

/*
 * ofs_mount_at - what /proc/self/mountinfo says is mounted last exactly at
 * @path: its type (*@type, malloc'd) and device (*@dev, as st_dev).
 * 0, -ENOENT when nothing is mounted there, -errno.
 */
int ofs_mount_at(const char *path, char **type, dev_t *dev);

#endif /* OSPROF_FS_OFS_MOUNT_H */
