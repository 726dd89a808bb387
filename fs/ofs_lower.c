// SPDX-License-Identifier: MIT
/* The lower layer timed by the daemon (ofs_lower.h). */
#include <errno.h>
#include <stdio.h>

#include "ofs_lower.h"
#include "ofs_profile.h"

const char *const ofs_lcall_names[OFS_LC__COUNT] = {
	[OFS_LC_OPENAT] = "openat",
	[OFS_LC_OPEN_BY_HANDLE_AT] = "open_by_handle_at",
	[OFS_LC_NAME_TO_HANDLE_AT] = "name_to_handle_at",
	[OFS_LC_NEWFSTATAT] = "newfstatat",
	[OFS_LC_PREAD64] = "pread64",
	[OFS_LC_PWRITE64] = "pwrite64",
	[OFS_LC_READDIR] = "readdir",
	[OFS_LC_CLOSE] = "close",
	[OFS_LC_DUP] = "dup",
	[OFS_LC_FSYNC] = "fsync",
	[OFS_LC_FDATASYNC] = "fdatasync",
	[OFS_LC_FALLOCATE] = "fallocate",
	[OFS_LC_FTRUNCATE] = "ftruncate",
	[OFS_LC_TRUNCATE] = "truncate",
	[OFS_LC_FLOCK] = "flock",
	[OFS_LC_COPY_FILE_RANGE] = "copy_file_range",
	[OFS_LC_LSEEK] = "lseek",
	[OFS_LC_UTIMENSAT] = "utimensat",
	[OFS_LC_FCHMOD] = "fchmod",
	[OFS_LC_FCHMODAT] = "fchmodat",
	[OFS_LC_FCHOWNAT] = "fchownat",
	[OFS_LC_READLINKAT] = "readlinkat",
	[OFS_LC_MKDIRAT] = "mkdirat",
	[OFS_LC_SYMLINKAT] = "symlinkat",
	[OFS_LC_MKNODAT] = "mknodat",
	[OFS_LC_LINKAT] = "linkat",
	[OFS_LC_UNLINKAT] = "unlinkat",
	[OFS_LC_RENAMEAT2] = "renameat2",
	[OFS_LC_FSTATFS] = "fstatfs",
	[OFS_LC_FACCESSAT2] = "faccessat2",
	[OFS_LC_SETXATTR] = "setxattr",
	[OFS_LC_GETXATTR] = "getxattr",
	[OFS_LC_LISTXATTR] = "listxattr",
	[OFS_LC_REMOVEXATTR] = "removexattr",
};
_Static_assert(sizeof(ofs_lcall_names) / sizeof(ofs_lcall_names[0]) == OFS_LC__COUNT,
	       "a name for every call");

void ofs_lower_done(struct ofs *fs, enum ofs_lcall c, uint64_t c0)
{
	if (c0)
		osp_set_record(fs->lower, c, osp_clock_to_ns(&fs->clk, osp_clock_read(&fs->clk) - c0), 0);
}

int ofs_lower_new(struct ofs *fs)
{
	fs->lower = osp_set_new(ofs_lcall_names, OFS_LC__COUNT, fs->opts.res, false);
	if (!fs->lower)
		return -ENOMEM;
	osp_set_enable(fs->lower, !fs->opts.noprofile);
	return 0;
}

struct osp_profile *ofs_lower_profile(struct ofs *fs)
{
	struct osp_profile *p = ofs_set_profile(fs, fs->lower, OSP_LAYER_LOWER);

	if (!p)
		return NULL;
	/* Only the calls made: the set lists every call it knows. */
	ofs_profile_drop_empty(p);
	if (osp_kv_set_str(&p->source, "layer_source", "osprof-fs")) {
		osp_profile_free(p);
		return NULL;
	}
	return p;
}
