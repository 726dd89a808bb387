// SPDX-License-Identifier: MIT
/*
 * -o noopen: the I/O descriptors kept per inode. With no OPEN the daemon
 * never learns who opened what, nor when it was closed: a request with
 * file handle 0 is served through the record of its inode, made on first
 * need. A record holds up to five lower descriptors, each opened when a
 * request first needs it -- O_RDONLY for reads, O_RDWR for writes (reads
 * use it too; O_WRONLY where reading is not allowed), O_WRONLY|O_APPEND
 * for writes through an O_APPEND file without the writeback cache, whose
 * offset the lower file system must choose, as it does for an opened
 * file, and O_RDONLY or O_RDWR with O_DIRECT for reads and writes through
 * an O_DIRECT file (the request carries the file's flags), so that they
 * reach the lower disk as the caller asked -- or, for a directory, one
 * stream. FUSE passes on O_DIRECT requests of any offset and length: one
 * not in whole pages, or to a lower file system that refuses O_DIRECT,
 * is served buffered, as the caller's read or write still succeeds. They are opened as the daemon
 * and shared by every caller: with noopen the kernel checks permissions
 * itself (default_permissions), before it would have sent the OPEN.
 *
 * A record counts as an open of its inode in the inode table
 * (ofs_inode_open_get), so the inode's O_PATH descriptor stays open with
 * it: a file unlinked while open elsewhere stays reachable. Records
 * nobody uses go on an LRU list; past the table's limit the least
 * recently used are closed. A record whose file was unlinked or renamed
 * over (ofs_iofd_unlink, ofs_iofd_rename) is pinned: it stays until the
 * inode's FORGET, when the inode table calls ofs_iofd_gone.
 *
 * Locking: the table's mutex protects the hash chains, the LRU list, the
 * count and each record's users, pinned and gone; nothing blocking runs
 * under it. A record's own mutex serializes the opening of its
 * descriptors and its directory stream's position (a listing holds it
 * for the whole READDIR); a slow lower open makes only requests for the
 * same inode wait. Order: a record's mutex, then the table's, then the
 * inode table's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_inode.h"
#include "ofs_iofd.h"
#include "ofs_list.h"
#include "ofs_lower.h"
#include "ofs_pt_impl.h"
#include "ofs_req.h"

/* The descriptors of a record, by what they serve. */
enum iofd_kind { IOFD_READ, IOFD_WRITE, IOFD_APPEND, IOFD_DREAD, IOFD_DWRITE, IOFD__COUNT };

/* Each kind's lower open; a write kind falls back to O_WRONLY (with the
 * same other flags) where reading is not allowed. */
static const int kind_flags[IOFD__COUNT] = {
	[IOFD_READ] = O_RDONLY,
	[IOFD_WRITE] = O_RDWR,
	[IOFD_APPEND] = O_WRONLY | O_APPEND,
	[IOFD_DREAD] = O_RDONLY | O_DIRECT,
	[IOFD_DWRITE] = O_RDWR | O_DIRECT,
};

struct iofd {
	struct ofs_dir d;         /* d.o: the inode's counted open; d.dp: a
				   * directory's stream (under mu) */
	struct iofd *hnext;       /* table mu */
	struct ofs_list lru;      /* table mu: on the LRU list when idle */
	bool in_lru;
	unsigned users;           /* table mu: requests using it */
	bool pinned;              /* table mu: kept until FORGET */
	bool gone;                /* table mu: out of the table; its closer waits */
	pthread_mutex_t mu;
	int fd[IOFD__COUNT];      /* mu: -1 until needed */
	bool rdwr;                /* mu: fd[IOFD_WRITE] is O_RDWR */
	_Atomic int64_t next_off; /* -o values: where the last read or write ended */
};

struct ofs_iofd_table {
	pthread_mutex_t mu;
	pthread_cond_t idle;      /* a gone record lost its last user */
	struct iofd **hash;
	size_t nbuckets;          /* power of two */
	struct ofs_list lru;      /* idle unpinned records, most recent first */
	size_t n;                 /* records in the table */
	size_t npinned;           /* of them pinned: kept until FORGET, not
				   * counted against max (they cannot go) */
	size_t max;
};

static size_t bucket(const struct ofs_iofd_table *t, const struct ofs_inode *in)
{
	uint64_t h = (uint64_t)(uintptr_t)in * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 32) & (t->nbuckets - 1);
}

static struct iofd *find_locked(struct ofs_iofd_table *t, const struct ofs_inode *in)
{
	struct iofd *rec = t->hash[bucket(t, in)];

	while (rec && rec->d.o.in != in)
		rec = rec->hnext;
	return rec;
}

static void unhash_locked(struct ofs_iofd_table *t, struct iofd *rec)
{
	struct iofd **pp = &t->hash[bucket(t, rec->d.o.in)];

	while (*pp != rec)
		pp = &(*pp)->hnext;
	*pp = rec->hnext;
	if (rec->in_lru)
		ofs_list_del(&rec->lru);
	rec->in_lru = false;
	t->n--;
	t->npinned -= rec->pinned;
}

/* Take idle records past the limit out of the table into @victims. */
static size_t evict_locked(struct ofs_iofd_table *t, struct iofd **victims, size_t max)
{
	size_t n = 0;

	while (t->n - t->npinned > t->max && n < max && !ofs_list_empty(&t->lru)) {
		struct iofd *rec = ofs_container_of(t->lru.prev, struct iofd, lru);

		unhash_locked(t, rec);
		victims[n++] = rec;
	}
	return n;
}

/* The inode table drops a record (ofs_inode_open_put, or at its teardown). */
static void rec_drop(struct ofs_open *o)
{
	struct iofd *rec = ofs_container_of(o, struct iofd, d.o);

	for (int i = 0; i < IOFD__COUNT; i++)
		if (rec->fd[i] >= 0)
			close(rec->fd[i]);
	if (rec->d.dp)
		closedir(rec->d.dp);
	pthread_mutex_destroy(&rec->mu);
	free(rec);
}

static void close_all(struct ofs *fs, struct iofd **recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ofs_inode_open_put(fs, &recs[i]->d.o);
}

/* The record of @in in the table with a use taken, or NULL. */
static struct iofd *find_used_locked(struct ofs_iofd_table *t, const struct ofs_inode *in)
{
	struct iofd *rec = find_locked(t, in);

	if (rec) {
		rec->users++;
		if (rec->in_lru)
			ofs_list_del(&rec->lru);
		rec->in_lru = false;
	}
	return rec;
}

/*
 * The record of @in with a use taken (pair with put), made when there is
 * none; NULL for -ENOMEM.
 */
static struct iofd *get(struct ofs *fs, struct ofs_inode *in)
{
	struct ofs_iofd_table *t = fs->iofd;
	struct iofd *rec, *fresh, *victims[8];
	size_t nv;

	pthread_mutex_lock(&t->mu);
	rec = find_used_locked(t, in);
	pthread_mutex_unlock(&t->mu);
	if (rec)
		return rec;

	fresh = calloc(1, sizeof(*fresh));
	if (!fresh)
		return NULL;
	for (int i = 0; i < IOFD__COUNT; i++)
		fresh->fd[i] = -1;
	pthread_mutex_init(&fresh->mu, NULL);
	atomic_init(&fresh->next_off, -1);
	ofs_inode_open_get(fs, in, &fresh->d.o, rec_drop);

	pthread_mutex_lock(&t->mu);
	rec = find_used_locked(t, in);
	if (rec) {
		/* Another request made it meanwhile: use theirs. */
		pthread_mutex_unlock(&t->mu);
		ofs_inode_open_put(fs, &fresh->d.o);
		return rec;
	}
	fresh->users = 1;
	fresh->hnext = t->hash[bucket(t, in)];
	t->hash[bucket(t, in)] = fresh;
	t->n++;
	nv = evict_locked(t, victims, 8);
	pthread_mutex_unlock(&t->mu);
	close_all(fs, victims, nv);
	return fresh;
}

static void put(struct ofs *fs, struct iofd *rec)
{
	struct ofs_iofd_table *t = fs->iofd;
	struct iofd *victims[8];
	size_t nv = 0;

	pthread_mutex_lock(&t->mu);
	if (--rec->users == 0) {
		if (rec->gone) {
			pthread_cond_broadcast(&t->idle);
		} else if (!rec->pinned) {
			ofs_list_add(&t->lru, &rec->lru);
			rec->in_lru = true;
			nv = evict_locked(t, victims, 8);
		}
	}
	pthread_mutex_unlock(&t->mu);
	close_all(fs, victims, nv);
}

/*
 * A new lower descriptor of @in with @flags, as the daemon (shared by
 * every caller). By handle first; a file unlinked since cannot always be
 * reopened by handle (ESTALE), but its record keeps its O_PATH
 * descriptor open: through that, then.
 */
static int open_lower(struct ofs *fs, struct ofs_inode *in, int flags)
{
	bool as_caller = ofs_creds_active();
	char proc[32];
	int fd, nfd;

	if (as_caller)
		ofs_creds_suspend();
	nfd = ofs_inode_open(fs, in, flags);
	if (nfd == -ESTALE) {
		fd = ofs_inode_fd(fs, in);
		if (fd >= 0) {
			ofs_proc_path(proc, fd);
			nfd = OFS_LOWER(fs, OFS_LC_OPENAT, open(proc, flags));
			if (nfd < 0)
				nfd = -errno;
			ofs_inode_fd_put(fs, in);
		}
	}
	if (as_caller)
		ofs_creds_resume();
	return nfd;
}

/* What a request asks of rec_fd beside the kinds: any descriptor of the
 * file (fsync, lseek), a read one when none is open yet. */
#define IOFD_ANY IOFD__COUNT

/* The descriptor of @rec for @kind (or IOFD_ANY), opened now when it is
 * not yet; -errno. */
static int rec_fd(struct ofs *fs, struct iofd *rec, unsigned kind)
{
	int fd;

	pthread_mutex_lock(&rec->mu);
	if (kind == IOFD_ANY) {
		for (unsigned k = 0; k < IOFD__COUNT; k++)
			if (rec->fd[k] >= 0) {
				fd = rec->fd[k];
				pthread_mutex_unlock(&rec->mu);
				return fd;
			}
		fd = open_lower(fs, rec->d.o.in, O_RDONLY);
		if (fd >= 0)
			rec->fd[IOFD_READ] = fd;
		if (fd != -EACCES) {
			pthread_mutex_unlock(&rec->mu);
			return fd;
		}
		kind = IOFD_WRITE; /* a file it may write, not read */
	}
	if (kind == IOFD_READ && rec->rdwr)
		kind = IOFD_WRITE;
	fd = rec->fd[kind];
	if (fd < 0) {
		int flags = kind_flags[kind];

		fd = open_lower(fs, rec->d.o.in, flags);
		if (kind == IOFD_WRITE)
			rec->rdwr = fd >= 0;
		/* write permission without read permission */
		if (fd == -EACCES && (flags & O_ACCMODE) == O_RDWR)
			fd = open_lower(fs, rec->d.o.in, (flags & ~O_ACCMODE) | O_WRONLY);
		if (fd >= 0)
			rec->fd[kind] = fd;
	}
	pthread_mutex_unlock(&rec->mu);
	return fd;
}

/* One request's use of a record: the open file the passthrough sees. */
struct use {
	struct iofd *rec;
	struct ofs_file f;
};

/*
 * Start serving @r through @ino's descriptor for @kind: @fi->fh (and the
 * request's fh, for -o values) point at @u->f until use_end. Returns 0,
 * or -errno after replying with it.
 */
static int use_begin(struct ofs_req *r, fuse_ino_t ino, unsigned kind,
		     struct fuse_file_info *fi, struct use *u)
{
	struct ofs *fs = r->fs;
	int fd;

	/* No handle without -o noopen: not a file this daemon opened. */
	if (!fs->iofd) {
		ofs_req_reply_err(r, -EBADF);
		return -EBADF;
	}
	u->rec = get(fs, ofs_inode_of(fs, ino));
	if (!u->rec) {
		ofs_req_reply_err(r, -ENOMEM);
		return -ENOMEM;
	}
	fd = rec_fd(fs, u->rec, kind);
	/* a lower file system without O_DIRECT: buffered, as it can */
	if (fd == -EINVAL && (kind == IOFD_DREAD || kind == IOFD_DWRITE)) {
		kind = kind == IOFD_DREAD ? IOFD_READ : IOFD_WRITE;
		fd = rec_fd(fs, u->rec, kind);
	}
	if (fd < 0) {
		put(fs, u->rec);
		ofs_req_reply_err(r, fd);
		return fd;
	}
	memset(&u->f, 0, sizeof(u->f));
	u->f.fd = fd;
	u->f.direct = kind == IOFD_DREAD || kind == IOFD_DWRITE;
	atomic_init(&u->f.next_off, atomic_load_explicit(&u->rec->next_off, memory_order_relaxed));
	fi->fh = (uintptr_t)&u->f;
	r->fh = fi->fh;
	return 0;
}

static void use_end(struct ofs *fs, struct use *u)
{
	atomic_store_explicit(&u->rec->next_off,
			      atomic_load_explicit(&u->f.next_off, memory_order_relaxed),
			      memory_order_relaxed);
	put(fs, u->rec);
}

void ofs_iofd_enosys(struct ofs_req *r)
{
	ofs_req_reply_err(r, -ENOSYS);
}

/* Alignment asked of an O_DIRECT request for the lower O_DIRECT: a page,
 * the strictest a lower device asks (see the top). */
#define IOFD_DIRECT_ALIGN 4096u

static bool direct(const struct fuse_file_info *fi, size_t size, off_t off)
{
	return (fi->flags & O_DIRECT) && size % IOFD_DIRECT_ALIGN == 0 &&
	       (uint64_t)off % IOFD_DIRECT_ALIGN == 0;
}

void ofs_iofd_read(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct use u;

	if (use_begin(r, ino, direct(fi, size, off) ? IOFD_DREAD : IOFD_READ, fi, &u) == 0) {
		ofs_pt_read(r, ino, size, off, fi);
		use_end(r->fs, &u);
	}
}

void ofs_iofd_write(struct ofs_req *r, fuse_ino_t ino, const char *buf, size_t size,
		    off_t off, struct fuse_file_info *fi)
{
	/*
	 * An O_APPEND file's writes append where the lower file ends, as
	 * the lower file opened O_APPEND did (the kernel's offset is its
	 * idea of the size). noopen excludes the writeback cache, under
	 * which the kernel would place every byte itself.
	 */
	bool append = fi->flags & O_APPEND;
	unsigned kind = append ? IOFD_APPEND : direct(fi, size, off) ? IOFD_DWRITE : IOFD_WRITE;
	struct use u;

	if (use_begin(r, ino, kind, fi, &u) == 0) {
		ofs_pt_write(r, ino, buf, size, off, fi);
		use_end(r->fs, &u);
	}
}

void ofs_iofd_fsync(struct ofs_req *r, fuse_ino_t ino, int datasync,
		    struct fuse_file_info *fi)
{
	struct use u;

	/* Any descriptor syncs the file: one open already, else a new one. */
	if (use_begin(r, ino, IOFD_ANY, fi, &u) == 0) {
		ofs_pt_fsync(r, ino, datasync, fi);
		use_end(r->fs, &u);
	}
}

void ofs_iofd_fallocate(struct ofs_req *r, fuse_ino_t ino, int mode, off_t offset,
			off_t length, struct fuse_file_info *fi)
{
	struct use u;

	if (use_begin(r, ino, IOFD_WRITE, fi, &u) == 0) {
		ofs_pt_fallocate(r, ino, mode, offset, length, fi);
		use_end(r->fs, &u);
	}
}

void ofs_iofd_copy_file_range(struct ofs_req *r, fuse_ino_t ino_in, off_t off_in,
			      struct fuse_file_info *fi_in, fuse_ino_t ino_out,
			      off_t off_out, struct fuse_file_info *fi_out,
			      size_t len, int flags)
{
	struct fuse_file_info in_fi = *fi_in, out_fi = *fi_out;
	struct use in, out;

	/* Only a side without a handle is served here. */
	in.rec = out.rec = NULL;
	if (!fi_in->fh && use_begin(r, ino_in, IOFD_READ, &in_fi, &in) != 0)
		return;
	if (!fi_out->fh && use_begin(r, ino_out, IOFD_WRITE, &out_fi, &out) != 0) {
		if (in.rec)
			use_end(r->fs, &in);
		return;
	}
	r->fh = in_fi.fh;
	ofs_pt_copy_file_range(r, ino_in, off_in, &in_fi, ino_out, off_out, &out_fi,
			       len, flags);
	if (out.rec)
		use_end(r->fs, &out);
	if (in.rec)
		use_end(r->fs, &in);
}

void ofs_iofd_lseek(struct ofs_req *r, fuse_ino_t ino, off_t off, int whence,
		    struct fuse_file_info *fi)
{
	struct use u;

	if (use_begin(r, ino, IOFD_ANY, fi, &u) == 0) {
		ofs_pt_lseek(r, ino, off, whence, fi);
		use_end(r->fs, &u);
	}
}

/*
 * Serve @r on @ino's directory stream, opened now when it is not yet:
 * @call runs with the record's mutex held (the stream's position is the
 * record's) and @fi->fh pointing at it.
 */
static void with_stream(struct ofs_req *r, fuse_ino_t ino, struct fuse_file_info *fi,
			void (*call)(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
				     int datasync, struct fuse_file_info *fi),
			size_t size, off_t off, int datasync)
{
	struct ofs *fs = r->fs;
	struct iofd *rec;
	int err = 0;

	/* No handle without -o noopen: not a directory this daemon opened. */
	if (!fs->iofd) {
		ofs_req_reply_err(r, -EBADF);
		return;
	}
	rec = get(fs, ofs_inode_of(fs, ino));
	if (!rec) {
		ofs_req_reply_err(r, -ENOMEM);
		return;
	}
	pthread_mutex_lock(&rec->mu);
	if (!rec->d.dp) {
		int fd = open_lower(fs, rec->d.o.in, O_RDONLY | O_DIRECTORY);

		if (fd < 0) {
			err = fd;
		} else if (!(rec->d.dp = fdopendir(fd))) {
			err = -errno;
			close(fd);
		}
		rec->d.offset = 0;
		rec->d.entry = NULL;
	}
	if (err) {
		ofs_req_reply_err(r, err);
	} else {
		fi->fh = (uintptr_t)&rec->d;
		r->fh = fi->fh;
		call(r, ino, size, off, datasync, fi);
	}
	pthread_mutex_unlock(&rec->mu);
	put(fs, rec);
}

static void call_readdir(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
			 int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	ofs_pt_readdir(r, ino, size, off, fi);
}

static void call_readdirplus(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
			     int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	ofs_pt_readdirplus(r, ino, size, off, fi);
}

static void call_fsyncdir(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
			  int datasync, struct fuse_file_info *fi)
{
	(void)size;
	(void)off;
	ofs_pt_fsyncdir(r, ino, datasync, fi);
}

void ofs_iofd_readdir(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	with_stream(r, ino, fi, call_readdir, size, off, 0);
}

void ofs_iofd_readdirplus(struct ofs_req *r, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	with_stream(r, ino, fi, call_readdirplus, size, off, 0);
}

void ofs_iofd_fsyncdir(struct ofs_req *r, fuse_ino_t ino, int datasync,
		       struct fuse_file_info *fi)
{
	with_stream(r, ino, fi, call_fsyncdir, 0, 0, datasync);
}

/*
 * Pin the record of regular file @name in @dir when the kernel knows it
 * (a lookup reference is taken and given back: an inode the kernel has
 * forgotten is not open there). Best effort: what fails leaves the
 * request to fail or succeed on its own.
 */
static void pin(struct ofs *fs, struct ofs_inode *dir, const char *name)
{
	struct ofs_iofd_table *t = fs->iofd;
	struct fuse_entry_param e;
	struct ofs_inode *in;
	struct iofd *rec;
	int fd;

	if (ofs_inode_lookup(fs, dir, name, &e) != 0)
		return;
	in = ofs_inode_of(fs, e.ino);
	rec = S_ISREG(e.attr.st_mode) ? get(fs, in) : NULL;
	if (rec) {
		pthread_mutex_lock(&t->mu);
		t->npinned += !rec->pinned;
		rec->pinned = true;
		pthread_mutex_unlock(&t->mu);
		/* Its O_PATH descriptor open now, while its name still leads to it. */
		fd = ofs_inode_fd(fs, in);
		if (fd >= 0)
			ofs_inode_fd_put(fs, in);
		put(fs, rec);
	}
	ofs_inode_forget(fs, in, 1);
}

void ofs_iofd_unlink(struct ofs_req *r, fuse_ino_t parent, const char *name)
{
	pin(r->fs, ofs_inode_of(r->fs, parent), name);
	ofs_pt_unlink(r, parent, name);
}

void ofs_iofd_rename(struct ofs_req *r, fuse_ino_t parent, const char *name,
		     fuse_ino_t newparent, const char *newname, unsigned int flags)
{
	if (!(flags & (RENAME_NOREPLACE | RENAME_EXCHANGE)))
		pin(r->fs, ofs_inode_of(r->fs, newparent), newname);
	ofs_pt_rename(r, parent, name, newparent, newname, flags);
}

int ofs_iofd_new(struct ofs *fs, unsigned max)
{
	struct ofs_iofd_table *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->max = max ? max : 1;
	for (t->nbuckets = 64; t->nbuckets < t->max; t->nbuckets *= 2)
		;
	t->hash = calloc(t->nbuckets, sizeof(*t->hash));
	if (!t->hash) {
		free(t);
		return -ENOMEM;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->idle, NULL);
	ofs_list_init(&t->lru);
	fs->iofd = t;
	return 0;
}

bool ofs_iofd_gone(struct ofs *fs, struct ofs_inode *in)
{
	struct ofs_iofd_table *t = fs->iofd;
	struct iofd *rec;

	if (!t)
		return false;
	pthread_mutex_lock(&t->mu);
	rec = find_locked(t, in);
	if (rec) {
		unhash_locked(t, rec);
		rec->gone = true;
		/* The kernel forgets an inode none of its requests holds:
		 * should one still be here, wait for it. */
		while (rec->users)
			pthread_cond_wait(&t->idle, &t->mu);
	}
	pthread_mutex_unlock(&t->mu);
	if (rec)
		ofs_inode_open_put(fs, &rec->d.o);
	return rec != NULL;
}

uint64_t ofs_iofd_count(struct ofs *fs)
{
	uint64_t n;

	if (!fs->iofd)
		return 0;
	pthread_mutex_lock(&fs->iofd->mu);
	n = fs->iofd->n;
	pthread_mutex_unlock(&fs->iofd->mu);
	return n;
}

void ofs_iofd_free(struct ofs *fs)
{
	struct ofs_iofd_table *t = fs->iofd;

	if (!t)
		return;
	for (size_t b = 0; b < t->nbuckets; b++) {
		while (t->hash[b]) {
			struct iofd *rec = t->hash[b];

			t->hash[b] = rec->hnext;
			ofs_inode_open_put(fs, &rec->d.o);
		}
	}
	free(t->hash);
	pthread_cond_destroy(&t->idle);
	pthread_mutex_destroy(&t->mu);
	free(t);
	fs->iofd = NULL;
}
