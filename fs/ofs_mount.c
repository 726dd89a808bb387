// SPDX-License-Identifier: MIT
/*
 * What is mounted where, from /proc/self/mountinfo (core's reader,
 * osp_mountinfo.h): the mountpoint check at start-up (a stale or
 * foreign FUSE mount makes it busy) and the eBPF layers' filters (the
 * mount's device and id) both ask it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "osp_mountinfo.h"
#include "ofs_mount.h"

int ofs_mount_at(const char *path, char **type, dev_t *dev, int *id)
{
	struct osp_mountinfo mi;
	struct osp_mount m;
	int found = -ENOENT, r;

	*type = NULL;
	r = osp_mountinfo_open(&mi, NULL);
	if (r)
		return r;
	/* The last one: a mount over another comes after it. */
	while ((r = osp_mountinfo_next(&mi, &m)) == 1) {
		if (strcmp(m.point, path) != 0)
			continue;
		free(*type);
		*type = strdup(m.fstype);
		*dev = makedev(m.major, m.minor);
		if (id)
			*id = (int)m.id;
		found = *type ? 0 : -ENOMEM;
	}
	osp_mountinfo_close(&mi);
	if (r < 0) {
		free(*type);
		*type = NULL;
		return r;
	}
	return found;
}
