// SPDX-License-Identifier: MIT
/*
 * Acting as the caller. When root serves other users (allow_other), each
 * request runs with the caller's fsuid, fsgid and supplementary groups, so
 * the lower file system checks its permissions and owns new files as it
 * would for the caller. These are per-thread settings: glibc's
 * setgroups() would change every thread (it broadcasts), so the raw system
 * call is used. Changing fsuid away from 0 drops CAP_DAC_READ_SEARCH, which
 * open_by_handle_at needs, so the inode table suspends the caller's
 * identity around a reopen.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_creds.h"

#define MAX_GROUPS 256

static gid_t own_groups[MAX_GROUPS];
static int own_ngroups;
static uid_t own_uid;
static gid_t own_gid;

/* Per thread: the identity it currently acts as. */
static __thread bool active;
static __thread uid_t act_uid;

int ofs_creds_init(void)
{
	own_uid = geteuid();
	own_gid = getegid();
	own_ngroups = getgroups(MAX_GROUPS, own_groups);
	return own_ngroups < 0 ? -errno : 0;
}

bool ofs_creds_active(void)
{
	return active;
}

static int set_groups(int n, const gid_t *list)
{
	return syscall(SYS_setgroups, (size_t)n, list) == 0 ? 0 : -errno;
}

int ofs_creds_enter(struct ofs *fs, fuse_req_t req, struct ofs_creds_saved *s)
{
	const struct fuse_ctx *ctx;
	gid_t groups[MAX_GROUPS];
	int n, err;

	s->switched = false;
	if (!fs->switch_creds)
		return 0;
	ctx = fuse_req_ctx(req);
	if (ctx->uid == own_uid && ctx->gid == own_gid)
		return 0;
	n = fuse_req_getgroups(req, MAX_GROUPS, groups);
	if (n < 0 || n > MAX_GROUPS)
		n = 0; /* the caller is gone or has too many: primary group only */
	err = set_groups(n, groups);
	if (err)
		return err;
	setfsgid(ctx->gid);
	setfsuid(ctx->uid);
	/* setfsuid reports nothing: read back to be sure it took. */
	if ((uid_t)setfsuid((uid_t)-1) != ctx->uid) {
		setfsgid(own_gid);
		set_groups(own_ngroups, own_groups);
		return -EPERM;
	}
	active = true;
	act_uid = ctx->uid;
	s->switched = true;
	return 0;
}

void ofs_creds_leave(struct ofs_creds_saved *s)
{
	if (!s->switched)
		return;
	setfsuid(own_uid);
	setfsgid(own_gid);
	set_groups(own_ngroups, own_groups);
	active = false;
}

void ofs_creds_suspend(void)
{
	setfsuid(own_uid);
}

void ofs_creds_resume(void)
{
	setfsuid(act_uid);
}
