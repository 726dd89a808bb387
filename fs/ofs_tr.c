// SPDX-License-Identifier: MIT
/*
 * The transport (see ofs_tr.h): libfuse's reads and writes on /dev/fuse,
 * taken over when -o passthrough or -o io_uring asks, to note the
 * requests whose replies need what libfuse 3.14 cannot say, and to patch
 * those replies; the checks that decide whether each feature is in force,
 * with the one line that says why not; backing files.
 *
 * Facts this rests on (kernel 6.18, libfuse 3.14): libfuse calls the
 * custom writev synchronously from the fuse_reply_* of a handler, with the
 * out-header as the first piece, and reports its failure from errno, as
 * of writev(2) (ENOENT: the request was interrupted); the INIT reply is
 * fuse_init_out in one piece, OPEN's fuse_open_out, CREATE's the entry
 * then the open. The kernel takes FUSE_PASSTHROUGH only with a
 * max_stack_depth between 1 and 2 and without the writeback cache, and
 * refuses a backing file with EPERM when it did not take it or the
 * daemon lacks CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "obp.h"
#include "ofs_cap.h"
#include "ofs_tr.h"
#include "ofs_tr_uring.h"

const char *const ofs_tr_feature_names[OFS_TR__COUNT] = {
	[OFS_TR_PASSTHROUGH] = "passthrough",
	[OFS_TR_IO_URING] = "io_uring",
};
_Static_assert(sizeof(ofs_tr_feature_names) / sizeof(ofs_tr_feature_names[0]) == OFS_TR__COUNT,
	       "a name for every feature");

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"
#define WHY_LEN 192

struct ofs_tr {
	struct ofs_tr_cfg cfg;
	struct fuse_session *se;
	int dev_fd;                  /* /dev/fuse once attached */
	bool mounted;                /* attached: a refusal now stops the daemon */
	/* Asked for and not (yet) refused; in force once the kernel took it
	 * (INIT). Atomic: read on every open, turned off by any thread. */
	_Atomic bool maybe[OFS_TR__COUNT];
	_Atomic bool on[OFS_TR__COUNT];
	_Atomic bool failed;         /* a feature required was refused */
	_Atomic bool closed;         /* /dev/fuse about to close: no ioctls */
	pthread_mutex_t mu;          /* the reasons */
	char why[OFS_TR__COUNT][WHY_LEN];
	struct ofs_tr_umap reqs;     /* unique -> struct ofs_tr_pending */
	struct ofs_tr_umap opens;    /* fh -> struct open_reg */
	struct ofs_tr_uring *uring;  /* the rings, with io_uring asked */
	_Atomic uint64_t backing_opened, backing_closed, backing_refused, opens_patched;
};

/* A backing id registered for the OPEN or CREATE reply that carries fh. */
struct open_reg {
	struct ofs_tr_unode node;    /* key: the fh */
	int id;
};

/* ---------------------------------------------------------------- map */

void ofs_tr_umap_init(struct ofs_tr_umap *m)
{
	for (unsigned i = 0; i < OFS_TR_UMAP_BUCKETS; i++) {
		pthread_mutex_init(&m->b[i].mu, NULL);
		atomic_init(&m->b[i].head, NULL);
	}
}

void ofs_tr_umap_destroy(struct ofs_tr_umap *m)
{
	for (unsigned i = 0; i < OFS_TR_UMAP_BUCKETS; i++)
		pthread_mutex_destroy(&m->b[i].mu);
}

static struct ofs_tr_bucket *bucket_of(struct ofs_tr_umap *m, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return &m->b[(h >> 56) & (OFS_TR_UMAP_BUCKETS - 1)];
}

void ofs_tr_umap_put(struct ofs_tr_umap *m, struct ofs_tr_unode *n)
{
	struct ofs_tr_bucket *b = bucket_of(m, n->key);

	pthread_mutex_lock(&b->mu);
	n->next = atomic_load_explicit(&b->head, memory_order_relaxed);
	atomic_store_explicit(&b->head, n, memory_order_release);
	pthread_mutex_unlock(&b->mu);
}

struct ofs_tr_unode *ofs_tr_umap_take(struct ofs_tr_umap *m, uint64_t key)
{
	struct ofs_tr_bucket *b = bucket_of(m, key);
	struct ofs_tr_unode *n, **pp;

	/* The common reply, of a request nobody noted: no lock. */
	if (!atomic_load_explicit(&b->head, memory_order_acquire))
		return NULL;
	pthread_mutex_lock(&b->mu);
	pp = (struct ofs_tr_unode **)&b->head;
	for (n = *pp; n && n->key != key; n = n->next)
		pp = &n->next;
	if (n) {
		if (pp == (struct ofs_tr_unode **)&b->head)
			atomic_store_explicit(&b->head, n->next, memory_order_release);
		else
			*pp = n->next;
	}
	pthread_mutex_unlock(&b->mu);
	return n;
}

/* ---------------------------------------------------- the pure parts */

ssize_t ofs_tr_flatten(const struct iovec *iov, int count, void *buf, size_t cap)
{
	size_t len = 0;

	for (int i = 0; i < count; i++) {
		if (iov[i].iov_len > cap - len)
			return -E2BIG;
		memcpy((char *)buf + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	return (ssize_t)len;
}

int ofs_tr_patch_init(void *msg, size_t len, uint64_t flags, uint32_t depth)
{
	struct fuse_out_header *out = msg;
	struct ofs_fuse_init_out *io = (void *)(out + 1);

	if (len < sizeof(*out) + offsetof(struct ofs_fuse_init_out, unused) || out->error)
		return -EINVAL;
	io->flags |= (uint32_t)flags;
	io->flags2 |= (uint32_t)(flags >> 32);
	if (flags & OFS_FUSE_PASSTHROUGH)
		io->max_stack_depth = depth;
	return 0;
}

struct ofs_fuse_open_out *ofs_tr_open_out(void *args, size_t len, uint32_t opcode,
					  size_t entry_size)
{
	size_t at;

	if (opcode == FUSE_OPEN)
		at = 0;
	else if (opcode == FUSE_CREATE)
		at = entry_size;
	else
		return NULL;
	if (len < at + sizeof(struct ofs_fuse_open_out))
		return NULL;
	return (struct ofs_fuse_open_out *)((char *)args + at);
}

void ofs_tr_patch_open(struct ofs_fuse_open_out *o, int id)
{
	/* KEEP_CACHE fails a passthrough open with EIO; DIRECT_IO sends
	 * its reads to the daemon again. */
	o->open_flags &= ~(uint32_t)(FOPEN_KEEP_CACHE | FOPEN_DIRECT_IO);
	o->open_flags |= OFS_FOPEN_PASSTHROUGH;
	o->backing_id = id;
}

int ofs_tr_init_in(const void *msg, size_t len, uint32_t *minor, uint64_t *flags)
{
	const struct fuse_in_header *in = msg;
	const struct fuse_init_in *ii = (const void *)(in + 1);

	/* Protocol 7.6 and later send at least major, minor, readahead, flags. */
	if (len < sizeof(*in) + offsetof(struct fuse_init_in, flags2) ||
	    in->opcode != FUSE_INIT || in->len > len)
		return -EINVAL;
	*minor = ii->minor;
	*flags = ii->flags;
	if ((ii->flags & FUSE_INIT_EXT) &&
	    len >= sizeof(*in) + offsetof(struct fuse_init_in, flags2) + sizeof(ii->flags2))
		*flags |= (uint64_t)ii->flags2 << 32;
	return 0;
}

ssize_t ofs_tr_uring_rebuild(const struct ofs_fuse_uring_req_header *h, char *payload,
			     size_t gap, size_t cap, char **start)
{
	const struct fuse_in_header *in = (const void *)h->in_out;
	size_t payload_sz = h->ring_ent_in_out.payload_sz, op_sz;

	if (in->len < sizeof(*in) || payload_sz > cap || in->len - sizeof(*in) < payload_sz)
		return -EINVAL;
	op_sz = in->len - sizeof(*in) - payload_sz;
	if (op_sz > OFS_FUSE_URING_OP_IN_OUT_SZ || sizeof(*in) + op_sz > gap)
		return -EINVAL;
	*start = payload - op_sz - sizeof(*in);
	memcpy(*start, in, sizeof(*in));
	memcpy(*start + sizeof(*in), h->op_in, op_sz);
	return (ssize_t)in->len;
}

ssize_t ofs_tr_uring_fill(struct ofs_fuse_uring_req_header *h, char *payload, size_t cap,
			  const struct iovec *iov, int count)
{
	size_t len = 0;

	if (count < 1 || iov[0].iov_len != sizeof(struct fuse_out_header))
		return -EINVAL;
	for (int i = 1; i < count; i++) {
		if (iov[i].iov_len > cap - len)
			return -E2BIG;
		memmove(payload + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	memcpy(h->in_out, iov[0].iov_base, sizeof(struct fuse_out_header));
	((struct fuse_out_header *)(void *)h->in_out)->len =
		(uint32_t)(sizeof(struct fuse_out_header) + len);
	h->ring_ent_in_out.payload_sz = (uint32_t)len;
	return (ssize_t)(sizeof(struct fuse_out_header) + len);
}

/* ------------------------------------------------ in force, or why not */

bool ofs_tr_on(const struct ofs_tr *tr, enum ofs_tr_feature f)
{
	return tr && atomic_load(&tr->on[f]);
}

const char *ofs_tr_why(const struct ofs_tr *tr, enum ofs_tr_feature f)
{
	if (!tr || tr->cfg.want[f] == OFS_TR_OFF)
		return "not asked for";
	/* Written once, before maybe turns false (under mu). */
	return atomic_load(&tr->maybe[f]) ? "" : tr->why[f];
}

bool ofs_tr_failed(const struct ofs_tr *tr)
{
	return tr && atomic_load(&tr->failed);
}

/*
 * Feature @f cannot be had: say why, once, in one line; with =require
 * the daemon fails (after mounting: it stops, as by SIGTERM, and exits 1).
 */
static void turn_off(struct ofs_tr *tr, enum ofs_tr_feature f, const char *fmt, ...)
{
	bool require = tr->cfg.want[f] == OFS_TR_REQUIRE;
	va_list ap;

	pthread_mutex_lock(&tr->mu);
	if (!atomic_load(&tr->maybe[f])) {
		pthread_mutex_unlock(&tr->mu);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(tr->why[f], WHY_LEN, fmt, ap);
	va_end(ap);
	atomic_store(&tr->on[f], false);
	atomic_store(&tr->maybe[f], false);
	pthread_mutex_unlock(&tr->mu);
	if (require)
		fprintf(stderr, "osprof-fs: -o %s=require: %s\n", ofs_tr_feature_names[f], tr->why[f]);
	else
		fprintf(stderr, "osprof-fs: %s off: %s\n", ofs_tr_feature_names[f], tr->why[f]);
	if (require) {
		atomic_store(&tr->failed, true);
		/* libfuse's handler ends the session loop, whichever it is. */
		if (tr->mounted)
			kill(getpid(), SIGTERM);
	}
}

/* The fuse module's enable_uring: 'Y', 'N', or 0 when it has none. */
static char enable_uring(void)
{
	char c = 0;
	int fd = open(ENABLE_URING_PARAM, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c;
}

/* What can be told before mounting. */
static void check_early(struct ofs_tr *tr)
{
	if (tr->cfg.want[OFS_TR_PASSTHROUGH]) {
		if (tr->cfg.writeback)
			turn_off(tr, OFS_TR_PASSTHROUGH,
				 "-o writeback is on (the kernel passes nothing through with the writeback cache)");
		else if (!ofs_cap_effective(CAP_SYS_ADMIN))
			turn_off(tr, OFS_TR_PASSTHROUGH,
				 "the daemon lacks CAP_SYS_ADMIN, which FUSE_DEV_IOC_BACKING_OPEN needs");
	}
	if (tr->cfg.want[OFS_TR_IO_URING]) {
		char c = enable_uring();
		struct io_uring probe;
		int err;

		if (c == 0) {
			turn_off(tr, OFS_TR_IO_URING,
				 "this kernel has no FUSE over io_uring (Linux 6.14 or later, CONFIG_FUSE_IO_URING)");
			return;
		}
		if (c != 'Y') {
			turn_off(tr, OFS_TR_IO_URING, "the fuse module's enable_uring is N (%s)",
				 ENABLE_URING_PARAM);
			return;
		}
		err = io_uring_queue_init(2, &probe, IORING_SETUP_SQE128);
		if (err) {
			turn_off(tr, OFS_TR_IO_URING, "io_uring_setup: %s", strerror(-err));
			return;
		}
		io_uring_queue_exit(&probe);
	}
}

struct ofs_tr *ofs_tr_new(const struct ofs_tr_cfg *cfg)
{
	struct ofs_tr *tr = calloc(1, sizeof(*tr));

	if (!tr) {
		fprintf(stderr, "osprof-fs: out of memory\n");
		return NULL;
	}
	tr->cfg = *cfg;
	if (tr->cfg.max_threads < 1)
		tr->cfg.max_threads = 1;
	tr->dev_fd = -1;
	pthread_mutex_init(&tr->mu, NULL);
	ofs_tr_umap_init(&tr->reqs);
	ofs_tr_umap_init(&tr->opens);
	for (int f = 0; f < OFS_TR__COUNT; f++)
		atomic_init(&tr->maybe[f], cfg->want[f] != OFS_TR_OFF);
	check_early(tr);
	if (atomic_load(&tr->failed)) {
		ofs_tr_free(tr);
		return NULL;
	}
	return tr;
}

/* ------------------------------------------------------ the custom I/O */

void ofs_tr_note(struct ofs_tr *tr, struct ofs_tr_pending *p)
{
	ofs_tr_umap_put(&tr->reqs, &p->node);
}

/* A request read from /dev/fuse whose reply must be patched: note it. */
static void note_dev(struct ofs_tr *tr, const struct fuse_in_header *in)
{
	struct ofs_tr_pending *p = malloc(sizeof(*p));

	/* Out of memory: its reply goes out unpatched (no passthrough), and
	 * a backing id registered for it stays until the daemon exits. */
	if (!p)
		return;
	p->node.key = in->unique;
	p->opcode = in->opcode;
	p->ent = NULL;
	ofs_tr_note(tr, p);
}

/* INIT's request: what the kernel offers decides what its reply asks. */
static void init_request(struct ofs_tr *tr, const void *msg, size_t len)
{
	uint32_t minor = 0;
	uint64_t flags = 0;

	(void)ofs_tr_init_in(msg, len, &minor, &flags);
	if (atomic_load(&tr->maybe[OFS_TR_PASSTHROUGH]) && !(flags & OFS_FUSE_PASSTHROUGH))
		turn_off(tr, OFS_TR_PASSTHROUGH,
			 "the kernel does not offer FUSE passthrough (protocol 7.%u; Linux 6.9 or later, CONFIG_FUSE_PASSTHROUGH)",
			 minor);
	if (atomic_load(&tr->maybe[OFS_TR_IO_URING]) && !(flags & OFS_FUSE_OVER_IO_URING))
		turn_off(tr, OFS_TR_IO_URING,
			 "the kernel does not offer FUSE over io_uring (protocol 7.%u; enable_uring N?)",
			 minor);
}

static ssize_t tr_read(int fd, void *buf, size_t len, void *userdata)
{
	struct ofs_tr *tr = ofs_tr_of(userdata);
	ssize_t n = read(fd, buf, len);
	const struct fuse_in_header *in = buf;

	if (n < (ssize_t)sizeof(*in))
		return n;
	switch (in->opcode) {
	case FUSE_INIT:
		init_request(tr, buf, (size_t)n);
		note_dev(tr, in);
		break;
	case FUSE_OPEN:
	case FUSE_CREATE:
		/*
		 * While passthrough may be on, not only once it is: the first
		 * OPEN can be read before the INIT reply's write has returned
		 * and turned it on, and be answered after. A registration
		 * whose reply found no note would stay behind, for a later
		 * open that gets the same fh.
		 */
		if (atomic_load_explicit(&tr->maybe[OFS_TR_PASSTHROUGH], memory_order_relaxed))
			note_dev(tr, in);
		break;
	default:
		break;
	}
	return n;
}

/* The largest payload a request or reply of this connection may carry:
 * the kernel's rule (fs/fuse/dev_uring.c), from INIT's reply. */
static size_t payload_bytes(const struct ofs_fuse_init_out *io)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 32, max_write = io->max_write;

	if (io->flags & FUSE_MAX_PAGES)
		pages = io->max_pages ? io->max_pages : 1;
	if (pages > 256)
		pages = 256;
	if (max_write < 4096)
		max_write = 4096;
	pages *= page;
	return pages > max_write ? (pages > 8192 ? pages : 8192) : (max_write > 8192 ? max_write : 8192);
}

/* After INIT's reply went out: check the backing-file ioctl, start the rings. */
static void init_replied(struct ofs_tr *tr, const struct ofs_fuse_init_out *io)
{
	if (atomic_load(&tr->maybe[OFS_TR_PASSTHROUGH])) {
		/* The lower root is a directory: a kernel that takes backing
		 * files refuses it for what it is (EISDIR; EOPNOTSUPP before
		 * 6.10), one that does not with EPERM before looking. */
		struct ofs_fuse_backing_map m = { .fd = open(tr->cfg.lower, O_PATH | O_CLOEXEC) };
		int id = m.fd < 0 ? -1 : ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_OPEN, &m);
		int err = id < 0 ? errno : 0;

		if (m.fd >= 0)
			close(m.fd);
		if (id > 0) {
			uint32_t u = (uint32_t)id;

			ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_CLOSE, &u);
		}
		if (err == EPERM || err == ENOTTY || err == EINVAL)
			turn_off(tr, OFS_TR_PASSTHROUGH, "FUSE_DEV_IOC_BACKING_OPEN: %s%s",
				 strerror(err), err == EPERM ? " (the kernel did not take FUSE_PASSTHROUGH)" : "");
	}
	if (atomic_load(&tr->maybe[OFS_TR_IO_URING]) && tr->uring) {
		atomic_store(&tr->on[OFS_TR_IO_URING], true);
		ofs_tr_uring_go(tr->uring, payload_bytes(io));
	}
}

static ssize_t init_reply(struct ofs_tr *tr, int fd, const struct iovec *iov, int count)
{
	char msg[sizeof(struct fuse_out_header) + sizeof(struct ofs_fuse_init_out)] = { 0 };
	ssize_t len = ofs_tr_flatten(iov, count, msg, sizeof(msg)), n;
	uint64_t ask = 0;
	int saved;

	if (len < 0)
		return writev(fd, iov, count);
	if (atomic_load(&tr->maybe[OFS_TR_PASSTHROUGH]))
		ask |= OFS_FUSE_PASSTHROUGH;
	if (atomic_load(&tr->maybe[OFS_TR_IO_URING]))
		ask |= OFS_FUSE_OVER_IO_URING;
	/* The kernel clamps max_stack_depth to 2; 1: the lower file may not
	 * itself be stacked, and this mount may be stacked under one more. */
	if (ofs_tr_patch_init(msg, (size_t)len, ask, 1) != 0)
		return writev(fd, iov, count);
	/* On before the kernel sees the reply: the first OPEN may come at
	 * once, to another thread. A kernel that did not take it refuses
	 * backing files with EPERM, which turns it off again. */
	if (ask & OFS_FUSE_PASSTHROUGH)
		atomic_store(&tr->on[OFS_TR_PASSTHROUGH], true);
	n = write(fd, msg, (size_t)len);
	saved = errno;
	if (n == len)
		init_replied(tr, (const void *)(msg + sizeof(struct fuse_out_header)));
	errno = saved;
	return n;
}

/* An OPEN or CREATE reply's bytes: patch what a backing id was
 * registered for. */
static void patch_open(struct ofs_tr *tr, uint32_t opcode, void *args, size_t len)
{
	struct ofs_fuse_open_out *o = ofs_tr_open_out(args, len, opcode,
						      sizeof(struct fuse_entry_out));
	struct ofs_tr_unode *n = o && o->fh ? ofs_tr_umap_take(&tr->opens, o->fh) : NULL;
	struct open_reg *reg;

	if (!n)
		return;
	reg = (struct open_reg *)(void *)n;
	ofs_tr_patch_open(o, reg->id);
	atomic_fetch_add_explicit(&tr->opens_patched, 1, memory_order_relaxed);
	free(reg);
}

static ssize_t open_reply(struct ofs_tr *tr, int fd, uint32_t opcode, const struct iovec *iov,
			  int count)
{
	char msg[OFS_TR_PATCH_MAX];
	ssize_t len = ofs_tr_flatten(iov, count, msg, sizeof(msg));
	const struct fuse_out_header *out = (const void *)msg;

	if (len < (ssize_t)sizeof(*out))
		return writev(fd, iov, count);
	if (out->error == 0)
		patch_open(tr, opcode, msg + sizeof(*out), (size_t)len - sizeof(*out));
	return write(fd, msg, (size_t)len);
}

struct uring_patch_arg {
	struct ofs_tr *tr;
	uint32_t opcode;
};

static void uring_patch(void *arg, struct ofs_fuse_uring_req_header *h, char *payload,
			size_t len)
{
	struct uring_patch_arg *a = arg;
	const struct fuse_out_header *out = (const void *)h->in_out;

	if (out->error == 0)
		patch_open(a->tr, a->opcode, payload, len);
}

static ssize_t tr_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct ofs_tr *tr = ofs_tr_of(userdata);
	const struct fuse_out_header *out = iov[0].iov_base;
	struct ofs_tr_unode *n = NULL;
	struct ofs_tr_pending *p;
	ssize_t res;

	/* unique 0: a notification, which no request noted. */
	if (count >= 1 && iov[0].iov_len >= sizeof(*out) && out->unique)
		n = ofs_tr_umap_take(&tr->reqs, out->unique);
	if (!n)
		return writev(fd, iov, count);
	p = (struct ofs_tr_pending *)(void *)n;
	if (p->ent) {
		struct uring_patch_arg a = { tr, p->opcode };
		/* By the opcode alone, as open_reply does: a backing id
		 * registered for this open is consumed even if passthrough
		 * was turned off since (patch_open finds none otherwise). */
		bool patch = p->opcode == FUSE_OPEN || p->opcode == FUSE_CREATE;

		/* The entry, and p in it, are the kernel's once this returns. */
		return ofs_tr_uring_reply(p->ent, iov, count, patch ? uring_patch : NULL, &a);
	}
	if (p->opcode == FUSE_INIT)
		res = init_reply(tr, fd, iov, count);
	else
		res = open_reply(tr, fd, p->opcode, iov, count);
	free(p);
	return res;
}

int ofs_tr_attach(struct ofs_tr *tr, struct fuse_session *se)
{
	static const struct fuse_custom_io io = { .read = tr_read, .writev = tr_writev };
	int err;

	tr->se = se;
	tr->dev_fd = fuse_session_fd(se);
	if (!atomic_load(&tr->maybe[OFS_TR_PASSTHROUGH]) && !atomic_load(&tr->maybe[OFS_TR_IO_URING]))
		return 0;
	err = fuse_session_custom_io(se, &io, tr->dev_fd);
	if (err) {
		fprintf(stderr, "osprof-fs: cannot take /dev/fuse's reads and writes over: %s\n",
			strerror(-err));
		return err;
	}
	tr->mounted = true;
	return 0;
}

int ofs_tr_start(struct ofs_tr *tr)
{
	int err = 0;

	if (!tr || !atomic_load(&tr->maybe[OFS_TR_IO_URING]))
		return 0;
	tr->uring = ofs_tr_uring_new(tr, tr->se, tr->dev_fd, obp_possible_cpus(),
				     tr->cfg.max_threads, (uint64_t)tr->cfg.poll_us * 1000, &err);
	if (!tr->uring) {
		turn_off(tr, OFS_TR_IO_URING, "cannot set up the rings: %s", strerror(-err));
		return atomic_load(&tr->failed) ? err : 0;
	}
	err = ofs_tr_uring_start(tr->uring);
	if (err)
		turn_off(tr, OFS_TR_IO_URING, "cannot start the ring threads: %s", strerror(-err));
	return atomic_load(&tr->failed) ? err : 0;
}

void ofs_tr_uring_refused(struct ofs_tr *tr, int err)
{
	turn_off(tr, OFS_TR_IO_URING, "FUSE_IO_URING_CMD_REGISTER: %s", strerror(-err));
}

void ofs_tr_stop(struct ofs_tr *tr)
{
	if (tr && tr->uring)
		ofs_tr_uring_stop(tr->uring);
}

void ofs_tr_close(struct ofs_tr *tr)
{
	if (!tr)
		return;
	atomic_store(&tr->closed, true);
	ofs_tr_uring_free(tr->uring);
	tr->uring = NULL;
}

/* Free what the map still holds (requests never answered). */
static void drain(struct ofs_tr_umap *m, bool embedded_in_entries)
{
	for (unsigned i = 0; i < OFS_TR_UMAP_BUCKETS; i++) {
		struct ofs_tr_unode *n = atomic_load(&m->b[i].head), *next;

		for (; n; n = next) {
			next = n->next;
			if (!embedded_in_entries || !((struct ofs_tr_pending *)(void *)n)->ent)
				free(n);
		}
		atomic_store(&m->b[i].head, NULL);
	}
}

void ofs_tr_free(struct ofs_tr *tr)
{
	if (!tr)
		return;
	ofs_tr_close(tr);
	drain(&tr->reqs, true);
	drain(&tr->opens, false);
	ofs_tr_umap_destroy(&tr->reqs);
	ofs_tr_umap_destroy(&tr->opens);
	pthread_mutex_destroy(&tr->mu);
	free(tr);
}

/* ------------------------------------------------------ backing files */

int ofs_tr_backing_open(struct ofs_tr *tr, int fd)
{
	struct ofs_fuse_backing_map m = { .fd = fd };
	int id, err;

	if (!ofs_tr_on(tr, OFS_TR_PASSTHROUGH) || atomic_load(&tr->closed))
		return -EOPNOTSUPP;
	id = ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_OPEN, &m);
	if (id > 0) {
		atomic_fetch_add_explicit(&tr->backing_opened, 1, memory_order_relaxed);
		return id;
	}
	err = id < 0 ? errno : EIO;
	atomic_fetch_add_explicit(&tr->backing_refused, 1, memory_order_relaxed);
	if (err == EPERM)
		turn_off(tr, OFS_TR_PASSTHROUGH, "FUSE_DEV_IOC_BACKING_OPEN: %s", strerror(err));
	return -err;
}

void ofs_tr_backing_close(struct ofs_tr *tr, int id)
{
	uint32_t u = (uint32_t)id;

	if (tr && id > 0 && !atomic_load(&tr->closed) &&
	    ioctl(tr->dev_fd, OFS_FUSE_DEV_IOC_BACKING_CLOSE, &u) == 0)
		atomic_fetch_add_explicit(&tr->backing_closed, 1, memory_order_relaxed);
}

int ofs_tr_open_reply(struct ofs_tr *tr, uint64_t fh, int id)
{
	struct open_reg *reg = malloc(sizeof(*reg));

	if (!reg)
		return -ENOMEM;
	reg->node.key = fh;
	reg->id = id;
	ofs_tr_umap_put(&tr->opens, &reg->node);
	return 0;
}

void ofs_tr_describe(const struct ofs_tr *tr, FILE *out)
{
	bool pt = ofs_tr_on(tr, OFS_TR_PASSTHROUGH);

	fprintf(out, "transport %s\n", ofs_tr_on(tr, OFS_TR_IO_URING) ? "io_uring" : "dev");
	if (tr && tr->cfg.want[OFS_TR_IO_URING] && !ofs_tr_on(tr, OFS_TR_IO_URING))
		fprintf(out, "io_uring off (%s)\n", ofs_tr_why(tr, OFS_TR_IO_URING));
	if (pt)
		fprintf(out, "passthrough on\n");
	else
		fprintf(out, "passthrough off (%s)\n", ofs_tr_why(tr, OFS_TR_PASSTHROUGH));
	if (!tr)
		return;
	if (pt || tr->cfg.want[OFS_TR_PASSTHROUGH])
		/* backing ids open now: a leak shows here */
		fprintf(out, "passthrough_opens %llu\npassthrough_backing_ids %llu\npassthrough_refused %llu\n",
			(unsigned long long)atomic_load(&tr->opens_patched),
			(unsigned long long)(atomic_load(&tr->backing_opened) -
					     atomic_load(&tr->backing_closed)),
			(unsigned long long)atomic_load(&tr->backing_refused));
	if (tr->uring) {
		unsigned q;
		uint64_t errors;

		/* Not the threads and entries: they grow with the load. */
		ofs_tr_uring_stats(tr->uring, &q, &errors);
		fprintf(out, "io_uring_queues %u\nio_uring_errors %llu\n", q,
			(unsigned long long)errors);
	}
}
