/* SPDX-License-Identifier: MIT */
/* What is mounted at a path (ofs_mount.c). */
#ifndef OSPROF_FS_OFS_MOUNT_H
#define OSPROF_FS_OFS_MOUNT_H

#include <sys/types.h>

/*
 * ofs_mount_at - what /proc/self/mountinfo says is mounted last exactly at
 * @path: its type (*@type, malloc'd), device (*@dev, as st_dev) and, when
 * @id is not NULL, mount id (*@id, statx's stx_mnt_id). 0, -ENOENT when
 * nothing is mounted there, -errno.
 */
int ofs_mount_at(const char *path, char **type, dev_t *dev, int *id);

#endif /* OSPROF_FS_OFS_MOUNT_H */
