/* SPDX-License-Identifier: MIT */
/* Caller credentials (ofs_creds.c): acting as the caller of a request. */
#ifndef OSPROF_FS_OFS_CREDS_H
#define OSPROF_FS_OFS_CREDS_H

#include <stdbool.h>
#include "ofs.h"

struct ofs_creds_saved {
	bool switched;
};
/*
 * Act with the caller's fsuid, fsgid and supplementary groups for the rest
 * of this request (only when fs->switch_creds). 0 or -errno.
 */
int ofs_creds_enter(struct ofs *fs, fuse_req_t req, struct ofs_creds_saved *s);
void ofs_creds_leave(struct ofs_creds_saved *s);
/* True while this thread acts as a caller (privileged reopen needs root). */
bool ofs_creds_active(void);
/* Become the daemon again around a privileged call, and back. */
void ofs_creds_suspend(void);
void ofs_creds_resume(void);
/* Remember the daemon's own groups; call once before serving. */
int ofs_creds_init(void);

#endif /* OSPROF_FS_OFS_CREDS_H */
