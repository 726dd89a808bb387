// SPDX-License-Identifier: MIT
/*
 * Names of what the eBPF layers key their histograms by: FUSE opcodes as
 * the fs layer names its operations (so `fuse` and `fs` line up op for
 * op), and x86-64 system calls by number.
 */
#include <stdio.h>
#include <string.h>

#include "obp.h"
#include "obp_sysnames.h"

/*
 * By opcode number (the FUSE protocol's, stable ABI). RENAME2 is the
 * fs layer's rename, and SETLK/SETLKW its flock: osprof-fs handles only
 * flock locks (POSIX locks stay in the kernel).
 */
static const char *const fuse_names[] = {
	[1] = "lookup", [2] = "forget", [3] = "getattr", [4] = "setattr",
	[5] = "readlink", [6] = "symlink", [8] = "mknod", [9] = "mkdir",
	[10] = "unlink", [11] = "rmdir", [12] = "rename", [13] = "link",
	[14] = "open", [15] = "read", [16] = "write", [17] = "statfs",
	[18] = "release", [20] = "fsync", [21] = "setxattr", [22] = "getxattr",
	[23] = "listxattr", [24] = "removexattr", [25] = "flush", [26] = "init",
	[27] = "opendir", [28] = "readdir", [29] = "releasedir",
	[30] = "fsyncdir", [31] = "getlk", [32] = "flock", [33] = "flock",
	[34] = "access", [35] = "create", [36] = "interrupt", [37] = "bmap",
	[38] = "destroy", [39] = "ioctl", [40] = "poll", [41] = "notify_reply",
	[42] = "batch_forget", [43] = "fallocate", [44] = "readdirplus",
	[45] = "rename", [46] = "lseek", [47] = "copy_file_range",
	[48] = "setupmapping", [49] = "removemapping", [50] = "syncfs",
	[51] = "tmpfile", [52] = "statx",
};

const char *obp_fuse_op_name(unsigned op, char *buf, size_t len)
{
	if (op < sizeof(fuse_names) / sizeof(fuse_names[0]) && fuse_names[op])
		snprintf(buf, len, "%s", fuse_names[op]);
	else
		snprintf(buf, len, "op_%u", op);
	return buf;
}

const char *obp_syscall_name(unsigned nr, char *buf, size_t len)
{
	if (nr < OBP_SYSNAMES_MAX && obp_sysnames[nr])
		snprintf(buf, len, "%s", obp_sysnames[nr]);
	else
		snprintf(buf, len, "syscall_%u", nr);
	return buf;
}

int obp_syscall_nr(const char *name)
{
	for (int nr = 0; nr < OBP_SYSNAMES_MAX; nr++)
		if (obp_sysnames[nr] && strcmp(obp_sysnames[nr], name) == 0)
			return nr;
	return -1;
}
