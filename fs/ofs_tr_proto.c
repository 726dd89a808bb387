// SPDX-License-Identifier: MIT
/*
 * The transport's pure parts, on the protocol's bytes (ofs_tr_proto.h):
 * replies flattened and patched at the protocol's offsets (INIT's flags
 * and stack depth, OPEN's and CREATE's passthrough), INIT's request read,
 * and a ring entry's request rebuilt in place and its reply written. No
 * state, no system call: unit-tested on their own (tests/fs/test_tr.c).
 */
#include <errno.h>
#include <string.h>

#include "ofs_tr_proto.h"

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
