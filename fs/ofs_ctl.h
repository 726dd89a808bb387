/* SPDX-License-Identifier: MIT */
/* The control directory (ofs_ctl.c): its inodes and its ops table. */
#ifndef OSPROF_FS_OFS_CTL_H
#define OSPROF_FS_OFS_CTL_H

#include "ofs.h"

/* The directory's state in fs->ctl: 0 or -ENOMEM. */
int ofs_ctl_new(struct ofs *fs);
/* Free it, with the files still open (serving is over); NULL-safe. */
void ofs_ctl_free(struct ofs *fs);
/*
 * ofs_ctl_command - run @cmds (lines of ctl commands, NUL-terminated) as
 * a write of them to ctl would: all checked before any is applied, a
 * refusal kept for last_error. 0 or -errno.
 */
int ofs_ctl_command(struct ofs *fs, const char *cmds);
/* The control directory's inodes are FUSE_ROOT_ID + 1 .. OFS_CTL_INO_END
 * - 1 (the eBPF syscall layer skips them by number). */
#define OFS_CTL_INO_END 64

/* True when @ino is one of the control directory's inodes. */
static inline bool ofs_ctl_ino(fuse_ino_t ino)
{
	return ino > FUSE_ROOT_ID && ino < OFS_CTL_INO_END;
}
/* True for a lookup of the control directory's name in the root. */
bool ofs_ctl_is_root_entry(struct ofs *fs, fuse_ino_t parent, const char *name);
extern const struct fuse_lowlevel_ops ofs_ctl_ops;

#endif /* OSPROF_FS_OFS_CTL_H */
