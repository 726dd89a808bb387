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
/*
 * The control directory's inodes are FUSE_ROOT_ID + 1 .. OFS_CTL_INO_END
 * - 1 (the eBPF syscall layer skips them by number): its fixed ones below
 * OFS_CTL_SNAP_INO, then -o noopen's snapshot inodes (ofs_ctl.c). The
 * lower files' node ids are addresses, never this low.
 */
#define OFS_CTL_SNAP_INO 64
#define OFS_CTL_SNAPS 1024
#define OFS_CTL_INO_END (OFS_CTL_SNAP_INO + OFS_CTL_SNAPS)

/* True when @ino is one of the control directory's inodes. */
static inline bool ofs_ctl_ino(fuse_ino_t ino)
{
	return ino > FUSE_ROOT_ID && ino < OFS_CTL_INO_END;
}
/* The kernel forgets @nlookup lookups of control inode @ino. */
void ofs_ctl_forget(struct ofs *fs, fuse_ino_t ino, uint64_t nlookup);
/* True for a lookup of the control directory's name in the root. */
bool ofs_ctl_is_root_entry(struct ofs *fs, fuse_ino_t parent, const char *name);
extern const struct fuse_lowlevel_ops ofs_ctl_ops;

#endif /* OSPROF_FS_OFS_CTL_H */
