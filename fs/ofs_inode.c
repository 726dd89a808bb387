// SPDX-License-Identifier: MIT
/*
 * The inode table. An inode is known by its lower (st_dev, st_ino) and,
 * where the lower file system gives one, its file handle
 * (name_to_handle_at): the handle, not a descriptor, is what keeps the
 * inode reachable, so a tree of any size can be looked up with a bounded
 * number of open files. O_PATH descriptors are cached for inodes in use,
 * in LRU order, up to a limit; an inode with open files keeps its
 * descriptor, so an unlinked-but-open file stays reachable. Inodes without
 * a usable handle (another mount inside the lower tree, a file system
 * without export support, or no CAP_DAC_READ_SEARCH) keep their descriptor
 * pinned, as libfuse's passthrough does.
 *
 * The inode's lookup count is the kernel's: +1 per entry replied, -n on
 * forget, freed at zero; the root is never freed.
 *
 * Locking: one mutex (t->mu) protects the hash chains, every count and
 * descriptor field of every inode, the LRU list and the open list. Nothing
 * blocking runs under it (reopens and closes happen outside).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_inode.h"
#include "ofs_iofd.h"
#include "ofs_list.h"
#include "ofs_lower.h"
#include "ofs_tr.h"

#define HASH_BITS_MIN 10

struct ofs_inode {
	dev_t dev;
	ino_t ino;
	struct file_handle *fh; /* NULL: descriptor pinned */
	uint64_t nlookup;       /* kernel references */
	int fd;                 /* cached O_PATH descriptor or -1 */
	unsigned fd_users;      /* requests using fd right now */
	unsigned nopen;         /* open files and directories */
	int backing_id;         /* passthrough: the kernel's backing file of
				 * this inode's opens, 0 when none */
	unsigned backing_users; /* open files passing through to it */
	struct ofs_inode *hnext;
	struct ofs_list lru;    /* on the table's list of idle descriptors */
	bool in_lru;
	uint64_t top;           /* ofs_inode_key's top: set before the kernel
				 * learns the inode, then never changed */
};

struct ofs_inode_table {
	pthread_mutex_t mu;
	struct ofs_inode root;
	int mount_fd;        /* for open_by_handle_at */
	int root_mount_id;   /* handles are only usable on this mount */
	bool handles;        /* open_by_handle_at works here */
	struct ofs_inode **hash;
	size_t nbuckets;     /* power of two */
	size_t ninodes;
	size_t nfds;         /* cached descriptors of unpinned inodes */
	size_t fd_cache;     /* limit for nfds */
	struct ofs_list lru;  /* idle cached descriptors, most recent first */
	struct ofs_list opens; /* every open handle (struct ofs_open) */
	char root_path[PATH_MAX]; /* the lower root as the kernel names it */
	uint64_t forget_underflows; /* forgets of more lookups than held */
};

_Static_assert(sizeof(fuse_ino_t) >= sizeof(uintptr_t),
	       "an inode pointer must fit in a fuse_ino_t");

static size_t hash_of(size_t nbuckets, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ (uint64_t)dev;

	return (size_t)(h ^ (h >> 29)) & (nbuckets - 1);
}

/* The identity of a lower file (device, inode number), well mixed. */
static uint64_t file_key(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15ull ^ ((uint64_t)dev << 1 | 1);

	return h ^ (h >> 31);
}

uint64_t ofs_inode_key(struct ofs *fs, fuse_ino_t ino, bool top)
{
	const struct ofs_inode *in = ofs_inode_of(fs, ino);

	return top ? in->top : file_key(in->dev, in->ino);
}

static void lru_unlink(struct ofs_inode *in)
{
	if (!in->in_lru)
		return;
	ofs_list_del(&in->lru);
	in->in_lru = false;
}

static void lru_push(struct ofs_inode_table *t, struct ofs_inode *in)
{
	ofs_list_add(&t->lru, &in->lru);
	in->in_lru = true;
}

/* An unpinned inode's descriptor is idle: cache it, most recent first. */
static bool fd_idle(const struct ofs_inode *in)
{
	return in->fh && in->fd >= 0 && in->fd_users == 0 && in->nopen == 0;
}

/*
 * Take descriptors of the least recently used idle inodes out of the
 * cache until it fits; they are stored in @victims (closed by the caller
 * once the lock is dropped). Returns how many.
 */
static size_t evict_locked(struct ofs_inode_table *t, int *victims, size_t max)
{
	size_t n = 0;

	while (t->nfds > t->fd_cache && n < max && !ofs_list_empty(&t->lru)) {
		struct ofs_inode *in = ofs_container_of(t->lru.prev, struct ofs_inode, lru);

		lru_unlink(in);
		victims[n++] = in->fd;
		in->fd = -1;
		t->nfds--;
	}
	return n;
}

static void close_all(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

static int grow_locked(struct ofs_inode_table *t)
{
	size_t nb = t->nbuckets * 2;
	struct ofs_inode **h = calloc(nb, sizeof(*h));

	if (!h)
		return -ENOMEM;
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct ofs_inode *in = t->hash[i], *next;

		for (; in; in = next) {
			size_t b = hash_of(nb, in->dev, in->ino);

			next = in->hnext;
			in->hnext = h[b];
			h[b] = in;
		}
	}
	free(t->hash);
	t->hash = h;
	t->nbuckets = nb;
	return 0;
}

/* The lower root's path as /proc names its descriptor (what ofs_inode_path
 * strips), or "" when it cannot be read. */
static void root_path(int root_fd, char *buf, size_t len)
{
	char proc[32];
	ssize_t n;

	ofs_proc_path(proc, root_fd);
	n = readlink(proc, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	/* "/" as the root: every path is under it with nothing to strip. */
	if (strcmp(buf, "/") == 0)
		buf[0] = '\0';
}

const char *ofs_itab_root_path(const struct ofs *fs)
{
	return fs->itab->root_path;
}

struct ofs_inode_table *ofs_itab_new(int root_fd, int mount_fd,
				     unsigned fd_cache)
{
	struct ofs_inode_table *t = calloc(1, sizeof(*t));
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} probe;
	struct stat st;
	int mount_id;

	if (!t)
		return NULL;
	t->nbuckets = 1u << HASH_BITS_MIN;
	t->hash = calloc(t->nbuckets, sizeof(*t->hash));
	if (!t->hash || fstat(root_fd, &st) != 0) {
		free(t->hash);
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	ofs_list_init(&t->lru);
	ofs_list_init(&t->opens);
	t->root.dev = st.st_dev;
	t->root.ino = st.st_ino;
	t->root.top = file_key(st.st_dev, st.st_ino);
	root_path(root_fd, t->root_path, sizeof(t->root_path));
	t->root.fd = root_fd;
	t->root.nlookup = 1;
	t->mount_fd = mount_fd;
	t->fd_cache = fd_cache ? fd_cache : 1;
	/*
	 * Handles are usable when the lower file system makes them and we may
	 * open them (CAP_DAC_READ_SEARCH): try on the root itself.
	 */
	probe.fh.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(root_fd, "", &probe.fh, &mount_id, AT_EMPTY_PATH) == 0) {
		int fd = open_by_handle_at(mount_fd, &probe.fh, O_PATH);

		if (fd >= 0) {
			close(fd);
			t->handles = true;
			t->root_mount_id = mount_id;
		}
	}
	return t;
}

void ofs_itab_free(struct ofs_inode_table *t)
{
	if (!t)
		return;
	/* Serving is over (every worker joined): only unreleased opens remain. */
	while (!ofs_list_empty(&t->opens)) {
		struct ofs_open *o = ofs_container_of(t->opens.next, struct ofs_open, link);

		ofs_list_del(&o->link);
		o->drop(o);
	}
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct ofs_inode *in = t->hash[i], *next;

		for (; in; in = next) {
			next = in->hnext;
			if (in->fd >= 0)
				close(in->fd);
			free(in->fh);
			free(in);
		}
	}
	close(t->root.fd);
	close(t->mount_fd);
	free(t->hash);
	pthread_mutex_destroy(&t->mu);
	free(t);
}

struct ofs_inode *ofs_inode_of(struct ofs *fs, fuse_ino_t ino)
{
	if (ino == FUSE_ROOT_ID)
		return &fs->itab->root;
	return (struct ofs_inode *)(uintptr_t)ino;
}

static fuse_ino_t ino_for(struct ofs_inode_table *t, struct ofs_inode *in)
{
	return in == &t->root ? FUSE_ROOT_ID : (fuse_ino_t)(uintptr_t)in;
}

int ofs_inode_fd(struct ofs *fs, struct ofs_inode *in)
{
	struct ofs_inode_table *t = fs->itab;
	int fd, victims[8];
	size_t nv;
	bool as_caller;

	pthread_mutex_lock(&t->mu);
	if (in->fd >= 0) {
		in->fd_users++;
		lru_unlink(in);
		fd = in->fd;
		pthread_mutex_unlock(&t->mu);
		return fd;
	}
	pthread_mutex_unlock(&t->mu);

	/* Reopening by handle needs the daemon's own privileges. */
	as_caller = ofs_creds_active();
	if (as_caller)
		ofs_creds_suspend();
	fd = OFS_LOWER(fs, OFS_LC_OPEN_BY_HANDLE_AT, open_by_handle_at(t->mount_fd, in->fh, O_PATH));
	if (fd < 0)
		fd = -errno;
	if (as_caller)
		ofs_creds_resume();
	if (fd < 0)
		return fd;

	pthread_mutex_lock(&t->mu);
	if (in->fd >= 0) {
		/* Another thread reopened it meanwhile: use theirs. */
		nv = 0;
		victims[nv++] = fd;
	} else {
		in->fd = fd;
		t->nfds++;
		nv = evict_locked(t, victims, 8);
	}
	in->fd_users++;
	fd = in->fd;
	pthread_mutex_unlock(&t->mu);
	close_all(victims, nv);
	return fd;
}

/*
 * Drop a use of @in's descriptor (@o: an open handle, taken off the open
 * list; NULL: a request): when nothing uses it any more it joins the
 * cache, most recent first, and the cache is trimmed to its limit.
 */
static void unuse(struct ofs *fs, struct ofs_inode *in, struct ofs_open *o)
{
	struct ofs_inode_table *t = fs->itab;
	int victims[8], backing = 0;
	size_t nv = 0;

	pthread_mutex_lock(&t->mu);
	if (o) {
		ofs_list_del(&o->link);
		in->nopen--;
		if (o->backing && --in->backing_users == 0) {
			backing = in->backing_id;
			in->backing_id = 0;
		}
	} else {
		in->fd_users--;
	}
	if (fd_idle(in)) {
		lru_push(t, in);
		nv = evict_locked(t, victims, 8);
	}
	pthread_mutex_unlock(&t->mu);
	close_all(victims, nv);
	/* The last open passing through: the kernel's inode dropped it
	 * before it sent the release. */
	if (backing)
		ofs_tr_backing_close(fs->tr, backing);
}

void ofs_inode_fd_put(struct ofs *fs, struct ofs_inode *in)
{
	unuse(fs, in, NULL);
}

void ofs_inode_open_get(struct ofs *fs, struct ofs_inode *in,
			struct ofs_open *o, void (*drop)(struct ofs_open *o))
{
	struct ofs_inode_table *t = fs->itab;

	o->in = in;
	o->drop = drop;
	o->backing = false;
	pthread_mutex_lock(&t->mu);
	in->nopen++;
	lru_unlink(in);
	ofs_list_add(&t->opens, &o->link);
	pthread_mutex_unlock(&t->mu);
}

void ofs_inode_open_put(struct ofs *fs, struct ofs_open *o)
{
	unuse(fs, o->in, o);
	o->drop(o);
}

/* @o passes through to @in's backing id, registered already (under
 * t->mu): that id. */
static int backing_share_locked(struct ofs_inode *in, struct ofs_open *o)
{
	in->backing_users++;
	o->backing = true;
	return in->backing_id;
}

int ofs_inode_backing_get(struct ofs *fs, struct ofs_open *o)
{
	struct ofs_inode_table *t = fs->itab;
	struct ofs_inode *in = o->in;
	bool as_caller;
	int id, fd;

	/*
	 * The backing file is the inode's O_PATH descriptor, not an open
	 * file's: the kernel keeps a reference to the file it is given for
	 * as long as the id lives, and an open file's flock would live on
	 * in it after its close, never granted to the next in line. Only
	 * the path counts: the kernel opens the lower file anew for each
	 * file passing through, with that file's flags.
	 */
	fd = ofs_inode_fd(fs, in);
	if (fd < 0)
		return fd;
	pthread_mutex_lock(&t->mu);
	if (in->backing_users) {
		id = backing_share_locked(in, o);
		pthread_mutex_unlock(&t->mu);
		ofs_inode_fd_put(fs, in);
		return id;
	}
	pthread_mutex_unlock(&t->mu);
	/*
	 * Registered outside the table's lock, which every lookup takes: a
	 * slow BACKING_OPEN holds up this open alone. With the daemon's own
	 * identity: the kernel opens the lower file for every opener with
	 * the registrant's.
	 */
	as_caller = ofs_creds_active();
	if (as_caller)
		ofs_creds_suspend();
	id = ofs_tr_backing_open(fs->tr, fd);
	if (as_caller)
		ofs_creds_resume();
	if (id <= 0) {
		ofs_inode_fd_put(fs, in);
		return id;
	}
	/* Published under the lock. Another first open may have registered
	 * one meanwhile: the one published first stays (the kernel fails an
	 * open whose id differs from its inode's), the other is closed. */
	pthread_mutex_lock(&t->mu);
	if (in->backing_users) {
		int mine = id;

		id = backing_share_locked(in, o);
		pthread_mutex_unlock(&t->mu);
		ofs_tr_backing_close(fs->tr, mine);
	} else {
		in->backing_id = id;
		in->backing_users = 1;
		o->backing = true;
		pthread_mutex_unlock(&t->mu);
	}
	ofs_inode_fd_put(fs, in);
	return id;
}

void ofs_inode_backing_put(struct ofs *fs, struct ofs_open *o)
{
	struct ofs_inode_table *t = fs->itab;
	struct ofs_inode *in = o->in;
	int id = 0;

	pthread_mutex_lock(&t->mu);
	if (o->backing && --in->backing_users == 0) {
		id = in->backing_id;
		in->backing_id = 0;
	}
	o->backing = false;
	pthread_mutex_unlock(&t->mu);
	if (id)
		ofs_tr_backing_close(fs->tr, id);
}

static bool same_handle(const struct file_handle *a, const struct file_handle *b)
{
	return a->handle_type == b->handle_type &&
	       a->handle_bytes == b->handle_bytes &&
	       memcmp(a->f_handle, b->f_handle, a->handle_bytes) == 0;
}

/* The inode for (st, fh) in the table, or NULL. With @t->mu held. */
static struct ofs_inode *find_locked(struct ofs_inode_table *t,
				     const struct stat *st,
				     const struct file_handle *fh)
{
	struct ofs_inode *in;

	if (st->st_dev == t->root.dev && st->st_ino == t->root.ino)
		return &t->root;
	for (in = t->hash[hash_of(t->nbuckets, st->st_dev, st->st_ino)]; in; in = in->hnext) {
		if (in->dev != st->st_dev || in->ino != st->st_ino)
			continue;
		/*
		 * Without a descriptor holding it, an inode number can be
		 * reused by a new file: the handle (with its generation) tells.
		 */
		if (!in->fh || !fh || same_handle(in->fh, fh))
			return in;
	}
	return NULL;
}

/* A copy of the handle of O_PATH @fd when it is usable, else NULL. */
static struct file_handle *handle_of(struct ofs *fs, struct ofs_inode_table *t, int fd)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} buf;
	struct file_handle *fh;
	int mount_id;

	if (!t->handles)
		return NULL;
	buf.fh.handle_bytes = MAX_HANDLE_SZ;
	if (OFS_LOWER(fs, OFS_LC_NAME_TO_HANDLE_AT,
		      name_to_handle_at(fd, "", &buf.fh, &mount_id, AT_EMPTY_PATH)) != 0 ||
	    mount_id != t->root_mount_id)
		return NULL;
	fh = malloc(sizeof(*fh) + buf.fh.handle_bytes);
	if (fh)
		memcpy(fh, &buf.fh, sizeof(*fh) + buf.fh.handle_bytes);
	return fh;
}

/*
 * Insert or reference the inode of O_PATH @fd (consumed), looked up in
 * @dir: a new inode's top-level directory is itself under the root, else
 * @dir's (hard links: the first lookup's).
 */
static struct ofs_inode *table_get(struct ofs *fs, struct ofs_inode_table *t, int fd,
				   const struct stat *st, struct ofs_inode *dir, int *err)
{
	struct file_handle *fh = handle_of(fs, t, fd);
	struct ofs_inode *in;
	int victims[8];
	size_t nv = 0;

	pthread_mutex_lock(&t->mu);
	in = find_locked(t, st, fh);
	if (in) {
		in->nlookup++;
		if (in->fd < 0 && in->fh) {
			/* Keep the fresh descriptor: the kernel will use it soon. */
			in->fd = fd;
			t->nfds++;
			fd = -1;
			if (fd_idle(in))
				lru_push(t, in);
			nv = evict_locked(t, victims, 8);
		}
		pthread_mutex_unlock(&t->mu);
		free(fh);
		if (fd >= 0)
			close(fd);
		close_all(victims, nv);
		return in;
	}
	in = calloc(1, sizeof(*in));
	if (!in || (t->ninodes + 1 > t->nbuckets && grow_locked(t) != 0)) {
		pthread_mutex_unlock(&t->mu);
		free(in);
		free(fh);
		close(fd);
		*err = -ENOMEM;
		return NULL;
	}
	in->dev = st->st_dev;
	in->ino = st->st_ino;
	in->fh = fh;
	in->fd = fd;
	in->nlookup = 1;
	in->top = dir == &t->root ? file_key(in->dev, in->ino) : dir->top;
	{
		size_t b = hash_of(t->nbuckets, in->dev, in->ino);

		in->hnext = t->hash[b];
		t->hash[b] = in;
	}
	t->ninodes++;
	if (fh) {
		t->nfds++;
		lru_push(t, in);
		nv = evict_locked(t, victims, 8);
	}
	pthread_mutex_unlock(&t->mu);
	close_all(victims, nv);
	return in;
}

/*
 * The known inode of @st whose descriptor is open, with a reference taken,
 * or NULL. An open descriptor keeps the inode alive, so its number cannot
 * have been reused: no file handle is needed to be sure it is the same.
 */
static struct ofs_inode *find_held(struct ofs_inode_table *t,
				   const struct stat *st)
{
	struct ofs_inode *in;

	pthread_mutex_lock(&t->mu);
	in = find_locked(t, st, NULL);
	if (in && in->fd >= 0 && in != &t->root)
		in->nlookup++;
	else if (in != &t->root)
		in = NULL;
	pthread_mutex_unlock(&t->mu);
	return in;
}

int ofs_inode_lookup(struct ofs *fs, struct ofs_inode *dir, const char *name,
		     struct fuse_entry_param *e)
{
	struct ofs_inode_table *t = fs->itab;
	struct ofs_inode *in;
	int dfd, fd = -1, err = 0;

	memset(e, 0, sizeof(*e));
	e->attr_timeout = fs->opts.attr_timeout;
	e->entry_timeout = fs->opts.entry_timeout;
	dfd = ofs_inode_fd(fs, dir);
	if (dfd < 0)
		return dfd;
	/*
	 * Fast path, the common one when the kernel looks an entry up again:
	 * one fstatat, and the inode is already known and held open.
	 */
	if (OFS_LOWER(fs, OFS_LC_NEWFSTATAT, fstatat(dfd, name, &e->attr, AT_SYMLINK_NOFOLLOW)) != 0) {
		err = -errno;
	} else if ((in = find_held(t, &e->attr)) != NULL) {
		ofs_inode_fd_put(fs, dir);
		e->ino = ino_for(t, in);
		return 0;
	} else {
		fd = OFS_LOWER(fs, OFS_LC_OPENAT, openat(dfd, name, O_PATH | O_NOFOLLOW));
		if (fd < 0)
			err = -errno;
	}
	ofs_inode_fd_put(fs, dir);
	if (err)
		return err;
	/* Attributes of what was opened: the name may have moved meanwhile. */
	if (OFS_LOWER(fs, OFS_LC_NEWFSTATAT,
		      fstatat(fd, "", &e->attr, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) != 0) {
		err = -errno;
		close(fd);
		return err;
	}
	in = table_get(fs, t, fd, &e->attr, dir, &err);
	if (!in)
		return err;
	e->ino = ino_for(t, in);
	return 0;
}

int ofs_inode_open(struct ofs *fs, struct ofs_inode *in, int flags)
{
	struct ofs_inode_table *t = fs->itab;
	char proc[32];
	int fd, nfd;

	/*
	 * By handle when we act as ourselves: cheaper than the /proc path.
	 * As a caller, the /proc path makes the lower check their rights
	 * (and reopening by handle would need a capability they lack).
	 */
	if (in->fh && !ofs_creds_active()) {
		nfd = OFS_LOWER(fs, OFS_LC_OPEN_BY_HANDLE_AT, open_by_handle_at(t->mount_fd, in->fh, flags));
		return nfd >= 0 ? nfd : -errno;
	}
	fd = ofs_inode_fd(fs, in);
	if (fd < 0)
		return fd;
	ofs_proc_path(proc, fd);
	nfd = OFS_LOWER(fs, OFS_LC_OPENAT, open(proc, flags));
	if (nfd < 0)
		nfd = -errno;
	ofs_inode_fd_put(fs, in);
	return nfd;
}

void ofs_inode_forget(struct ofs *fs, struct ofs_inode *in, uint64_t n)
{
	struct ofs_inode_table *t = fs->itab;
	struct ofs_inode **pp;
	int fd;

	pthread_mutex_lock(&t->mu);
	/*
	 * The last forget of an inode that -o noopen's I/O descriptors hold
	 * (the kernel sends no release there): close them first, unlocked
	 * (they are opens of the inode), then look again, for a lookup may
	 * have come meanwhile.
	 */
	while (in != &t->root && n >= in->nlookup && in->nopen && fs->iofd) {
		bool closed;

		pthread_mutex_unlock(&t->mu);
		closed = ofs_iofd_gone(fs, in);
		pthread_mutex_lock(&t->mu);
		if (!closed)
			break;
	}
	if (in == &t->root || n < in->nlookup) {
		if (in != &t->root)
			in->nlookup -= n;
		pthread_mutex_unlock(&t->mu);
		return;
	}
	if (n > in->nlookup) {
		/*
		 * The kernel forgets more than it was given: a bug on one
		 * side. Clamp (the inode goes, as it would at zero), count it
		 * for ctl, and say so once rather than on every request.
		 */
		if (t->forget_underflows++ == 0)
			fprintf(stderr, "osprof-fs: forget of %" PRIu64 " lookups of an inode that had %"
				PRIu64 ": clamped to zero (counted in ctl's forget_underflows; said once)\n",
				n, in->nlookup);
	}
	for (pp = &t->hash[hash_of(t->nbuckets, in->dev, in->ino)]; *pp != in; pp = &(*pp)->hnext)
		;
	*pp = in->hnext;
	t->ninodes--;
	lru_unlink(in);
	fd = in->fd;
	if (fd >= 0 && in->fh)
		t->nfds--;
	pthread_mutex_unlock(&t->mu);
	if (fd >= 0)
		close(fd);
	free(in->fh);
	free(in);
}

void ofs_itab_stats(struct ofs *fs, uint64_t *inodes, uint64_t *fds,
		    bool *handles, uint64_t *forget_underflows)
{
	pthread_mutex_lock(&fs->itab->mu);
	*forget_underflows = fs->itab->forget_underflows;
	*inodes = fs->itab->ninodes;
	*fds = fs->itab->nfds;
	*handles = fs->itab->handles;
	pthread_mutex_unlock(&fs->itab->mu);
}
