// SPDX-License-Identifier: MIT
/*
 * What is mounted where, from /proc/self/mountinfo: the mountpoint check
 * at start-up (a stale or foreign FUSE mount makes it busy) and the eBPF
 * layers' filter (the mount's device) both ask it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "ofs_mount.h"

/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] && s[3]) {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

int ofs_mount_at(const char *path, char **type, dev_t *dev)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *line = NULL;
	size_t cap = 0;
	int found = -ENOENT;

	*type = NULL;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char mnt[4096], fstype[256];
		char *sep = strstr(line, " - ");
		unsigned ma, mi;

		if (!sep || sscanf(line, "%*s %*s %u:%u %*s %4095s", &ma, &mi, mnt) != 3 ||
		    sscanf(sep + 3, "%255s", fstype) != 1)
			continue;
		unescape(mnt);
		if (strcmp(mnt, path) == 0) {
			free(*type);
			*type = strdup(fstype);
			*dev = makedev(ma, mi);
			found = *type ? 0 : -ENOMEM;
		}
	}
	free(line);
	fclose(f);
	return found;
}
