// SPDX-License-Identifier: MIT
/*
 * Passthrough of the name-space and attribute operations: every call is an
 * *at() relative to the inode's O_PATH descriptor (or its /proc/self/fd
 * path for the few calls that take only paths), and every lower error is
 * replied unchanged. errno is saved on the line after the failing call.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_inode.h"
#include "ofs_lower.h"
#include "ofs_pt_impl.h"
#include "ofs_req.h"

void ofs_pt_reply_new_entry(struct ofs_req *r, struct ofs_inode *dir, const char *name)
{
	struct fuse_entry_param e;
	int err = ofs_inode_lookup(r->fs, dir, name, &e);

	if (err)
		ofs_req_reply_err(r, err);
	else if (ofs_req_reply_entry(r, &e) != 0)
		ofs_inode_forget(r->fs, ofs_inode_of(r->fs, e.ino), 1);
}

void ofs_pt_lookup(struct ofs_req *r, fuse_ino_t parent, const char *name)
{
	struct ofs *fs = r->fs;
	struct fuse_entry_param e;
	int err = ofs_inode_lookup(fs, ofs_inode_of(fs, parent), name, &e);

	if (err == -ENOENT && fs->opts.entry_timeout > 0) {
		/* A negative entry the kernel may cache as long as a positive one. */
		e.ino = 0;
		err = 0;
	}
	if (err)
		ofs_req_reply_err(r, err);
	else if (ofs_req_reply_entry(r, &e) != 0 && e.ino)
		ofs_inode_forget(fs, ofs_inode_of(fs, e.ino), 1);
}

void ofs_pt_forget(struct ofs_req *r, fuse_ino_t ino, uint64_t nlookup)
{
	struct ofs *fs = r->fs;

	ofs_inode_forget(fs, ofs_inode_of(fs, ino), nlookup);
	ofs_req_reply_none(r);
}

void ofs_pt_forget_multi(struct ofs_req *r, size_t count, struct fuse_forget_data *f)
{
	struct ofs *fs = r->fs;

	for (size_t i = 0; i < count; i++)
		ofs_inode_forget(fs, ofs_inode_of(fs, f[i].ino), f[i].nlookup);
	ofs_req_reply_none(r);
}

/* Attributes of @in (through its open file @fi when there is one). */
static int stat_inode(struct ofs *fs, struct ofs_inode *in,
		      struct fuse_file_info *fi, struct stat *st)
{
	int fd, err = 0;

	if (fi && fi->fh)
		return OFS_LOWER(fs, OFS_LC_NEWFSTATAT, fstat(pt_file(fi)->fd, st)) == 0 ? 0 : -errno;
	fd = ofs_inode_fd(fs, in);
	if (fd < 0)
		return fd;
	if (OFS_LOWER(fs, OFS_LC_NEWFSTATAT, fstatat(fd, "", st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, in);
	return err;
}

void ofs_pt_getattr(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofs *fs = r->fs;
	struct stat st;
	int err = stat_inode(fs, ofs_inode_of(fs, ino), fi, &st);

	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_req_reply_attr(r, &st, fs->opts.attr_timeout);
}

#define SET_TIMES (FUSE_SET_ATTR_ATIME | FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_CTIME | \
		   FUSE_SET_ATTR_ATIME_NOW | FUSE_SET_ATTR_MTIME_NOW)

static int set_times(struct ofs *fs, int fd, const char *proc, const struct stat *attr,
		     int valid, int ofd, bool is_link)
{
	struct timespec tv[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_OMIT } };

	if (valid & FUSE_SET_ATTR_ATIME_NOW)
		tv[0].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_ATIME)
		tv[0] = attr->st_atim;
	if (valid & FUSE_SET_ATTR_MTIME_NOW)
		tv[1].tv_nsec = UTIME_NOW;
	else if (valid & FUSE_SET_ATTR_MTIME)
		tv[1] = attr->st_mtim;
	if (ofd >= 0)
		return OFS_LOWER(fs, OFS_LC_UTIMENSAT, futimens(ofd, tv));
	/* A symlink's own times: the magic path would follow it. */
	if (is_link)
		return OFS_LOWER(fs, OFS_LC_UTIMENSAT, utimensat(fd, "", tv, AT_EMPTY_PATH));
	return OFS_LOWER(fs, OFS_LC_UTIMENSAT, utimensat(AT_FDCWD, proc, tv, 0));
}

/* Apply the setattr fields one by one, as the kernel asked. 0 or -errno. */
static int do_setattr(struct ofs *fs, int fd, const struct stat *attr, int valid, int ofd)
{
	char proc[32];
	int res = 0;

	ofs_proc_path(proc, fd);
	if (valid & FUSE_SET_ATTR_MODE)
		res = ofd >= 0 ? OFS_LOWER(fs, OFS_LC_FCHMOD, fchmod(ofd, attr->st_mode))
			       : OFS_LOWER(fs, OFS_LC_FCHMODAT, fchmodat(AT_FDCWD, proc, attr->st_mode, 0));
	if (res == 0 && (valid & (FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID))) {
		uid_t uid = (valid & FUSE_SET_ATTR_UID) ? attr->st_uid : (uid_t)-1;
		gid_t gid = (valid & FUSE_SET_ATTR_GID) ? attr->st_gid : (gid_t)-1;

		res = OFS_LOWER(fs, OFS_LC_FCHOWNAT,
				fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
	}
	if (res == 0 && (valid & FUSE_SET_ATTR_SIZE))
		res = ofd >= 0 ? OFS_LOWER(fs, OFS_LC_FTRUNCATE, ftruncate(ofd, attr->st_size))
			       : OFS_LOWER(fs, OFS_LC_TRUNCATE, truncate(proc, attr->st_size));
	if (res == 0 && (valid & (SET_TIMES & ~FUSE_SET_ATTR_CTIME))) {
		struct stat cur;

		/* Only times need the type: a symlink's are set on itself. */
		res = OFS_LOWER(fs, OFS_LC_NEWFSTATAT,
				fstatat(fd, "", &cur, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW));
		if (res == 0)
			res = set_times(fs, fd, proc, attr, valid, ofd, S_ISLNK(cur.st_mode));
	}
	return res == 0 ? 0 : -errno;
}

/*
 * Of the changes in @valid, those the kernel may have made on its own
 * (see ofs_pt_setattr), when request @r acts as its caller: the times, and a
 * mode change that only clears SUID and/or SGID of the file's current mode.
 */
static int kernel_own_changes(struct ofs_req *r, int fd, const struct stat *attr,
			      int valid)
{
	struct ofs *fs = r->fs;
	const mode_t kill = S_ISUID | S_ISGID;
	int own = valid & SET_TIMES;
	struct stat cur;

	if (!r->creds.switched)
		return 0;
	if ((valid & FUSE_SET_ATTR_MODE) &&
	    OFS_LOWER(fs, OFS_LC_NEWFSTATAT,
		      fstatat(fd, "", &cur, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) == 0) {
		mode_t old = cur.st_mode & 07777, want = attr->st_mode & 07777;

		if ((want & ~kill) == (old & ~kill) && (want & ~old) == 0 && want != old)
			own |= FUSE_SET_ATTR_MODE;
	}
	return own;
}

void ofs_pt_setattr(struct ofs_req *r, fuse_ino_t ino, struct stat *attr, int valid,
		    struct fuse_file_info *fi)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *in = ofs_inode_of(fs, ino);
	struct stat st;
	int fd = ofs_inode_fd(fs, in), ofd = fi && fi->fh ? pt_file(fi)->fd : -1, err, priv;

	if (fd < 0) {
		ofs_req_reply_err(r, fd);
		return;
	}
	err = do_setattr(fs, fd, attr, valid, ofd);
	priv = err == -EPERM ? kernel_own_changes(r, fd, attr, valid) : 0;
	if (priv) {
		/*
		 * Changes the kernel makes itself, sent with the rights of
		 * whoever caused them, which may not suffice: clearing SUID
		 * and SGID before a write or truncate by someone without
		 * CAP_FSETID (the writer cannot chmod a file not theirs),
		 * and with the writeback cache, the file's times. Every
		 * change a user asks for was checked by the kernel already
		 * (default_permissions is on whenever we act as callers), so
		 * these are made with our rights, the rest with the caller's.
		 * (libfuse 3.14 cannot ask for FUSE_HANDLE_KILLPRIV, which
		 * would leave the clearing to us.)
		 */
		ofs_creds_suspend();
		err = do_setattr(fs, fd, attr, priv, ofd);
		ofs_creds_resume();
		if (!err)
			err = do_setattr(fs, fd, attr, valid & ~priv, ofd);
	}
	if (!err && OFS_LOWER(fs, OFS_LC_NEWFSTATAT,
			      fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, in);
	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_req_reply_attr(r, &st, fs->opts.attr_timeout);
}

void ofs_pt_readlink(struct ofs_req *r, fuse_ino_t ino)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *in = ofs_inode_of(fs, ino);
	char buf[PATH_MAX + 1];
	int fd = ofs_inode_fd(fs, in), err = 0;
	ssize_t n;

	if (fd < 0) {
		ofs_req_reply_err(r, fd);
		return;
	}
	n = OFS_LOWER(fs, OFS_LC_READLINKAT, readlinkat(fd, "", buf, sizeof(buf)));
	if (n < 0)
		err = -errno;
	ofs_inode_fd_put(fs, in);
	if (!err && n == sizeof(buf))
		err = -ENAMETOOLONG;
	if (err) {
		ofs_req_reply_err(r, err);
		return;
	}
	buf[n] = '\0';
	ofs_req_reply_readlink(r, buf);
}

enum mk_kind { MK_NOD, MK_DIR, MK_SYMLINK };

/* Create @name in @parent, then reply with its entry. */
static void make_entry(struct ofs_req *r, fuse_ino_t parent, const char *name,
		       enum mk_kind kind, mode_t mode, dev_t rdev, const char *link)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *dir = ofs_inode_of(fs, parent);
	int dfd = ofs_inode_fd(fs, dir), res, err = 0;

	if (dfd < 0) {
		ofs_req_reply_err(r, dfd);
		return;
	}
	if (kind == MK_DIR)
		res = OFS_LOWER(fs, OFS_LC_MKDIRAT, mkdirat(dfd, name, mode));
	else if (kind == MK_SYMLINK)
		res = OFS_LOWER(fs, OFS_LC_SYMLINKAT, symlinkat(link, dfd, name));
	else
		res = OFS_LOWER(fs, OFS_LC_MKNODAT, mknodat(dfd, name, mode, rdev));
	if (res != 0)
		err = -errno;
	ofs_inode_fd_put(fs, dir);
	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_pt_reply_new_entry(r, dir, name);
}

void ofs_pt_mknod(struct ofs_req *r, fuse_ino_t parent, const char *name, mode_t mode,
		  dev_t rdev)
{
	make_entry(r, parent, name, MK_NOD, mode, rdev, NULL);
}

void ofs_pt_mkdir(struct ofs_req *r, fuse_ino_t parent, const char *name, mode_t mode)
{
	make_entry(r, parent, name, MK_DIR, mode, 0, NULL);
}

void ofs_pt_symlink(struct ofs_req *r, const char *link, fuse_ino_t parent,
		    const char *name)
{
	make_entry(r, parent, name, MK_SYMLINK, 0, 0, link);
}

/*
 * Descriptors of @a and @b (ofs_inode_fd each) in @afd and @bfd, 0; or,
 * holding neither, reply the error and return it (-errno).
 */
static int fd_pair(struct ofs_req *r, struct ofs_inode *a, struct ofs_inode *b,
		   int *afd, int *bfd)
{
	struct ofs *fs = r->fs;

	*afd = ofs_inode_fd(fs, a);
	if (*afd < 0) {
		ofs_req_reply_err(r, *afd);
		return *afd;
	}
	*bfd = ofs_inode_fd(fs, b);
	if (*bfd < 0) {
		ofs_inode_fd_put(fs, a);
		ofs_req_reply_err(r, *bfd);
		return *bfd;
	}
	return 0;
}

void ofs_pt_link(struct ofs_req *r, fuse_ino_t ino, fuse_ino_t newparent,
		 const char *newname)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *in = ofs_inode_of(fs, ino), *dir = ofs_inode_of(fs, newparent);
	char proc[32];
	int fd, dfd, err = 0;

	if (fd_pair(r, in, dir, &fd, &dfd) != 0)
		return;
	/* Following the magic link names the inode itself, without privilege. */
	ofs_proc_path(proc, fd);
	if (OFS_LOWER(fs, OFS_LC_LINKAT, linkat(AT_FDCWD, proc, dfd, newname, AT_SYMLINK_FOLLOW)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, dir);
	ofs_inode_fd_put(fs, in);
	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_pt_reply_new_entry(r, dir, newname);
}

static void remove_entry(struct ofs_req *r, fuse_ino_t parent, const char *name,
			 int flags)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *dir = ofs_inode_of(fs, parent);
	int dfd = ofs_inode_fd(fs, dir), err = 0;

	if (dfd < 0) {
		ofs_req_reply_err(r, dfd);
		return;
	}
	if (OFS_LOWER(fs, OFS_LC_UNLINKAT, unlinkat(dfd, name, flags)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, dir);
	ofs_req_reply_err(r, err);
}

void ofs_pt_unlink(struct ofs_req *r, fuse_ino_t parent, const char *name)
{
	remove_entry(r, parent, name, 0);
}

void ofs_pt_rmdir(struct ofs_req *r, fuse_ino_t parent, const char *name)
{
	remove_entry(r, parent, name, AT_REMOVEDIR);
}

void ofs_pt_rename(struct ofs_req *r, fuse_ino_t parent, const char *name,
		   fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *a = ofs_inode_of(fs, parent), *b = ofs_inode_of(fs, newparent);
	int afd, bfd, err = 0;

	if (fd_pair(r, a, b, &afd, &bfd) != 0)
		return;
	/* RENAME_NOREPLACE, RENAME_EXCHANGE and RENAME_WHITEOUT pass through. */
	if (OFS_LOWER(fs, OFS_LC_RENAMEAT2, renameat2(afd, name, bfd, newname, flags)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, b);
	ofs_inode_fd_put(fs, a);
	ofs_req_reply_err(r, err);
}

void ofs_pt_statfs(struct ofs_req *r, fuse_ino_t ino)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *in = ofs_inode_of(fs, ino);
	struct statvfs sv;
	int fd = ofs_inode_fd(fs, in), err = 0;

	if (fd < 0) {
		ofs_req_reply_err(r, fd);
		return;
	}
	if (OFS_LOWER(fs, OFS_LC_FSTATFS, fstatvfs(fd, &sv)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, in);
	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_req_reply_statfs(r, &sv);
}

void ofs_pt_access(struct ofs_req *r, fuse_ino_t ino, int mask)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *in = ofs_inode_of(fs, ino);
	int fd = ofs_inode_fd(fs, in), err = 0;

	if (fd < 0) {
		ofs_req_reply_err(r, fd);
		return;
	}
	/* AT_EACCESS: check as the (file-system) identity we act as. */
	if (OFS_LOWER(fs, OFS_LC_FACCESSAT2, faccessat(fd, "", mask, AT_EACCESS | AT_EMPTY_PATH)) != 0)
		err = -errno;
	ofs_inode_fd_put(fs, in);
	ofs_req_reply_err(r, err);
}
