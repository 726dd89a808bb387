// SPDX-License-Identifier: MIT
/*
 * The transport's custom I/O (ofs_tr.h): libfuse's reads and writes on
 * /dev/fuse, taken over when -o passthrough or -o io_uring asks, to note
 * the requests whose replies need what libfuse 3.14 cannot say, and to
 * patch those replies (INIT's: what to ask of the kernel; OPEN's and
 * CREATE's: their backing id), or send them back into their ring entry.
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
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ofs_tr_impl.h"

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
		ofs_tr_turn_off(tr, OFS_TR_PASSTHROUGH,
				"the kernel does not offer FUSE passthrough (protocol 7.%u; Linux 6.9 or later, CONFIG_FUSE_PASSTHROUGH)",
				minor);
	if (atomic_load(&tr->maybe[OFS_TR_IO_URING]) && !(flags & OFS_FUSE_OVER_IO_URING))
		ofs_tr_turn_off(tr, OFS_TR_IO_URING,
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
	if (atomic_load(&tr->maybe[OFS_TR_PASSTHROUGH]))
		ofs_tr_backing_probe(tr);
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

static ssize_t open_reply(struct ofs_tr *tr, int fd, uint32_t opcode, const struct iovec *iov,
			  int count)
{
	char msg[OFS_TR_PATCH_MAX];
	ssize_t len = ofs_tr_flatten(iov, count, msg, sizeof(msg));
	const struct fuse_out_header *out = (const void *)msg;

	if (len < (ssize_t)sizeof(*out))
		return writev(fd, iov, count);
	if (out->error == 0)
		ofs_tr_backing_patch(tr, opcode, msg + sizeof(*out), (size_t)len - sizeof(*out));
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
		ofs_tr_backing_patch(a->tr, a->opcode, payload, len);
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
		 * was turned off since (ofs_tr_backing_patch finds none
		 * otherwise). */
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
