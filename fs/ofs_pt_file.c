// SPDX-License-Identifier: MIT
/*
 * Passthrough of open files. Reads go through a per-thread buffer aligned
 * to 4 KiB, so a lower file opened with O_DIRECT (the application asked
 * for it) never sees a misaligned buffer; writes to such a file are copied
 * into that buffer when libfuse's own buffer is not aligned. The lower
 * file is opened through /proc/self/fd with the caller's identity, so the
 * lower file system checks the caller's permissions.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_inode.h"
#include "ofs_list.h"
#include "ofs_lock.h"
#include "ofs_lower.h"
#include "ofs_opts.h"
#include "ofs_pt_impl.h"
#include "ofs_req.h"
#include "ofs_tr.h"

#define IOBUF_ALIGN 4096

static pthread_key_t iobuf_key;
static pthread_once_t iobuf_once = PTHREAD_ONCE_INIT;
static __thread void *iobuf;
static __thread size_t iobuf_len;

static void iobuf_free(void *p)
{
	free(p);
}

static void iobuf_key_init(void)
{
	pthread_key_create(&iobuf_key, iobuf_free);
}

void *ofs_pt_iobuf(size_t len)
{
	size_t want = (len + IOBUF_ALIGN - 1) & ~(size_t)(IOBUF_ALIGN - 1);
	void *p;

	if (want == 0)
		want = IOBUF_ALIGN;
	if (want <= iobuf_len)
		return iobuf;
	if (posix_memalign(&p, IOBUF_ALIGN, want) != 0)
		return NULL;
	pthread_once(&iobuf_once, iobuf_key_init);
	free(iobuf);
	iobuf = p;
	iobuf_len = want;
	/* Freed when the thread exits (libfuse's workers come and go). */
	pthread_setspecific(iobuf_key, p);
	return p;
}

/* Flags for the lower open, given the kernel's and the cache settings. */
static int lower_flags(const struct ofs *fs, int flags)
{
	flags &= ~(O_CREAT | O_EXCL | O_NOCTTY | O_NOFOLLOW);
	if (fs->opts.writeback) {
		/*
		 * With the writeback cache the kernel reads pages of files
		 * opened write-only and handles O_APPEND itself.
		 */
		if ((flags & O_ACCMODE) == O_WRONLY)
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		flags &= ~O_APPEND;
	}
	return flags;
}

/* Close and free; also, at teardown, a file the kernel never released. */
static void file_drop(struct ofs_open *o)
{
	struct ofs_file *f = ofs_container_of(o, struct ofs_file, o);

	close(f->fd);
	free(f);
}

/* Wrap lower descriptor @fd as the open file of @in, in @fi. */
static int file_new(struct ofs *fs, struct ofs_inode *in, int fd, int flags,
		    struct fuse_file_info *fi)
{
	struct ofs_file *f = malloc(sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->fd = fd;
	f->direct = flags & O_DIRECT;
	atomic_init(&f->next_off, -1);
	ofs_inode_open_get(fs, in, &f->o, file_drop);
	fi->fh = (uintptr_t)f;
	fi->direct_io = fs->direct_io;
	fi->keep_cache = fs->keep_cache;
	/*
	 * Closing a read-only file has nothing to write back: outside
	 * cache=never (where every call is to be seen) skip FLUSH.
	 */
	fi->noflush = fs->opts.cache != OFS_CACHE_NEVER && (flags & O_ACCMODE) == O_RDONLY;
	return 0;
}

/*
 * With passthrough, the open file @f of @fi passes through to its inode's
 * backing file: the kernel reads, writes, splices and maps it on the
 * lower file, whatever the cache mode, so the reply asks neither
 * FOPEN_DIRECT_IO (it would send reads here again) nor FOPEN_KEEP_CACHE
 * (refused): the lower file's own page cache is the one used. Where no
 * backing id can be had the daemon serves the file, as without.
 */
static void passthrough(struct ofs *fs, struct ofs_file *f, struct fuse_file_info *fi)
{
	int id;

	if (!ofs_tr_on(fs->tr, OFS_TR_PASSTHROUGH))
		return;
	id = ofs_inode_backing_get(fs, &f->o);
	if (id <= 0)
		return;
	if (ofs_tr_open_reply(fs->tr, fi->fh, id) != 0) {
		ofs_inode_backing_put(fs, &f->o);
		return;
	}
	fi->direct_io = 0;
	fi->keep_cache = 0;
}

void ofs_pt_open(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *in = ofs_inode_of(fs, ino);
	int flags = lower_flags(fs, fi->flags), nfd, err;

	nfd = ofs_inode_open(fs, in, flags);
	if (nfd < 0) {
		ofs_req_reply_err(r, nfd);
		return;
	}
	err = file_new(fs, in, nfd, flags, fi);
	if (err) {
		close(nfd);
		ofs_req_reply_err(r, err);
		return;
	}
	passthrough(fs, pt_file(fi), fi);
	/* Interrupted: the kernel will not send release for it. */
	if (ofs_req_reply_open(r, fi) == -ENOENT)
		ofs_inode_open_put(fs, &pt_file(fi)->o);
}

void ofs_pt_create(struct ofs_req *r, fuse_ino_t parent, const char *name,
		   mode_t mode, struct fuse_file_info *fi)
{
	struct ofs *fs = r->fs;
	struct ofs_inode *dir = ofs_inode_of(fs, parent);
	int flags = lower_flags(fs, fi->flags), dfd, nfd, err = 0;
	struct fuse_entry_param e;

	dfd = ofs_inode_fd(fs, dir);
	if (dfd < 0) {
		ofs_req_reply_err(r, dfd);
		return;
	}
	nfd = OFS_LOWER(fs, OFS_LC_OPENAT, openat(dfd, name, flags | O_CREAT, mode));
	if (nfd < 0)
		err = -errno;
	ofs_inode_fd_put(fs, dir);
	if (err) {
		ofs_req_reply_err(r, err);
		return;
	}
	err = ofs_inode_lookup(fs, dir, name, &e);
	if (!err) {
		err = file_new(fs, ofs_inode_of(fs, e.ino), nfd, flags, fi);
		if (err)
			ofs_inode_forget(fs, ofs_inode_of(fs, e.ino), 1);
	}
	if (err) {
		close(nfd);
		ofs_req_reply_err(r, err);
		return;
	}
	passthrough(fs, pt_file(fi), fi);
	if (ofs_req_reply_create(r, &e, fi) == -ENOENT) {
		ofs_inode_open_put(fs, &pt_file(fi)->o);
		ofs_inode_forget(fs, ofs_inode_of(fs, e.ino), 1);
	}
}

/*
 * Writing data into a SUID or SGID file clears those bits, unless the
 * writer may keep them (CAP_FSETID; for SGID, also membership of the
 * file's group): the lower file system decides, for whoever writes. When
 * root serves others the write must be made as the caller, or the bits
 * would stay. Only such files pay for it (an fstat per write by a user
 * other than root; the identity switch when the bits are set).
 * Returns 0 with @cs set (leave it after the write) or -errno.
 */
static int as_writer(struct ofs_req *r, int fd, struct ofs_creds_saved *cs)
{
	struct ofs *fs = r->fs;
	struct stat st;

	cs->switched = false;
	if (!fs->switch_creds || r->uid == 0)
		return 0;
	if (OFS_LOWER(fs, OFS_LC_NEWFSTATAT, fstat(fd, &st)) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_ISUID | S_ISGID)))
		return 0;
	return ofs_creds_enter(fs, r->req, cs);
}

void ofs_pt_read(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		 struct fuse_file_info *fi)
{
	void *buf = ofs_pt_iobuf(size);
	ssize_t n;

	(void)ino;
	if (!buf) {
		ofs_req_reply_err(r, -ENOMEM);
		return;
	}
	n = OFS_LOWER(r->fs, OFS_LC_PREAD64, pread(pt_file(fi)->fd, buf, size, off));
	if (n < 0)
		ofs_req_reply_err(r, -errno);
	else
		ofs_req_reply_buf(r, buf, (size_t)n);
}

void ofs_pt_write(struct ofs_req *r, fuse_ino_t ino, const char *buf, size_t size,
		  off_t off, struct fuse_file_info *fi)
{
	struct ofs_file *f = pt_file(fi);
	struct ofs_creds_saved cs;
	ssize_t n;
	int err;

	(void)ino;
	if (f->direct && ((uintptr_t)buf & (IOBUF_ALIGN - 1))) {
		void *aligned = ofs_pt_iobuf(size);

		if (!aligned) {
			ofs_req_reply_err(r, -ENOMEM);
			return;
		}
		memcpy(aligned, buf, size);
		buf = aligned;
	}
	err = as_writer(r, f->fd, &cs);
	if (err) {
		ofs_req_reply_err(r, err);
		return;
	}
	n = OFS_LOWER(r->fs, OFS_LC_PWRITE64, pwrite(f->fd, buf, size, off));
	err = n < 0 ? -errno : 0;
	ofs_creds_leave(&cs);
	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_req_reply_write(r, (size_t)n);
}

void ofs_pt_flush(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofs *fs = r->fs;
	int fd = OFS_LOWER(fs, OFS_LC_DUP, dup(pt_file(fi)->fd)), err = 0;

	(void)ino;
	/* Closing a duplicate gives the lower file system its close-time say
	 * (NFS writes back, for instance) while the file stays open. */
	if (fd < 0 || OFS_LOWER(fs, OFS_LC_CLOSE, close(fd)) != 0)
		err = -errno;
	ofs_req_reply_err(r, err);
}

void ofs_pt_release(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	ofs_inode_open_put(r->fs, &pt_file(fi)->o);
	ofs_req_reply_err(r, 0);
}

void ofs_pt_reply_sync(struct ofs_req *r, int fd, int datasync)
{
	struct ofs *fs = r->fs;
	int res = datasync ? OFS_LOWER(fs, OFS_LC_FDATASYNC, fdatasync(fd))
			   : OFS_LOWER(fs, OFS_LC_FSYNC, fsync(fd));

	ofs_req_reply_err(r, res == 0 ? 0 : -errno);
}

void ofs_pt_fsync(struct ofs_req *r, fuse_ino_t ino, int datasync,
		  struct fuse_file_info *fi)
{
	(void)ino;
	ofs_pt_reply_sync(r, pt_file(fi)->fd, datasync);
}

void ofs_pt_fallocate(struct ofs_req *r, fuse_ino_t ino, int mode, off_t offset,
		      off_t length, struct fuse_file_info *fi)
{
	struct ofs_creds_saved cs;
	int fd = pt_file(fi)->fd, err = as_writer(r, fd, &cs);

	(void)ino;
	if (!err && OFS_LOWER(r->fs, OFS_LC_FALLOCATE, fallocate(fd, mode, offset, length)) != 0)
		err = -errno;
	ofs_creds_leave(&cs);
	ofs_req_reply_err(r, err);
}

/*
 * Only try here: a lock that must be waited for is waited for by
 * ofs_lock's threads, never by a worker (see ofs_lock.c).
 */
void ofs_pt_flock(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi, int op)
{
	int fd = pt_file(fi)->fd, err = 0;

	(void)ino;
	if (OFS_LOWER(r->fs, OFS_LC_FLOCK, flock(fd, op | LOCK_NB)) != 0)
		err = -errno;
	if (err == -EWOULDBLOCK && !(op & LOCK_NB)) {
		err = ofs_lock_wait(r, fd, op);
		if (!err)
			return; /* a waiter replies */
	}
	ofs_req_reply_err(r, err);
}

void ofs_pt_copy_file_range(struct ofs_req *r, fuse_ino_t ino_in, off_t off_in,
			    struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			    off_t off_out, struct fuse_file_info *fi_out,
			    size_t len, int flags)
{
	struct ofs_creds_saved cs;
	int out = pt_file(fi_out)->fd, err = as_writer(r, out, &cs);
	ssize_t n = -1;

	(void)ino_in;
	(void)ino_out;
	if (!err) {
		n = OFS_LOWER(r->fs, OFS_LC_COPY_FILE_RANGE,
			      copy_file_range(pt_file(fi_in)->fd, &off_in, out, &off_out,
					      len, (unsigned)flags));
		if (n < 0)
			err = -errno;
	}
	ofs_creds_leave(&cs);
	if (err)
		ofs_req_reply_err(r, err);
	else
		ofs_req_reply_write(r, (size_t)n);
}

void ofs_pt_lseek(struct ofs_req *r, fuse_ino_t ino, off_t off, int whence,
		  struct fuse_file_info *fi)
{
	off_t res = OFS_LOWER(r->fs, OFS_LC_LSEEK, lseek(pt_file(fi)->fd, off, whence));

	(void)ino;
	if (res < 0)
		ofs_req_reply_err(r, -errno);
	else
		ofs_req_reply_lseek(r, res);
}
