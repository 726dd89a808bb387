/* SPDX-License-Identifier: MIT */
/*
 * The transport's pure parts, on the protocol's bytes (ofs_tr_proto.c,
 * unit-tested): what the transport reads of a request and patches in a
 * reply, at the protocol's offsets, and a ring entry's request and reply.
 */
#ifndef OSPROF_FS_OFS_TR_PROTO_H
#define OSPROF_FS_OFS_TR_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ofs_fuse_proto.h"

/* The largest reply the transport patches: CREATE's entry and open. */
#define OFS_TR_PATCH_MAX (sizeof(struct fuse_out_header) + sizeof(struct fuse_entry_out) + \
			  sizeof(struct ofs_fuse_open_out))
/*
 * ofs_tr_flatten - copy the @count pieces of @iov into @buf of @cap
 * bytes: the length, or -E2BIG when they do not fit.
 */
ssize_t ofs_tr_flatten(const struct iovec *iov, int count, void *buf, size_t cap);
/*
 * ofs_tr_patch_init - in an INIT reply of @len bytes at @msg (out header
 * and fuse_init_out), add @flags (bits 32-63 go to flags2) and set
 * max_stack_depth to @depth when @flags holds OFS_FUSE_PASSTHROUGH.
 * 0, or -EINVAL for a reply too short to carry flags2 or an error reply.
 */
int ofs_tr_patch_init(void *msg, size_t len, uint64_t flags, uint32_t depth);
/*
 * ofs_tr_open_out - where the fuse_open_out of an OPEN or CREATE reply of
 * @len bytes is (@opcode FUSE_OPEN or FUSE_CREATE, libfuse's @entry_size
 * bytes of entry before it in CREATE's), or NULL when it carries none (an
 * error, a short reply, another opcode).
 */
struct ofs_fuse_open_out *ofs_tr_open_out(void *msg, size_t len, uint32_t opcode,
					  size_t entry_size);
/* Make @o pass through to backing id @id. */
void ofs_tr_patch_open(struct ofs_fuse_open_out *o, int id);
/*
 * ofs_tr_init_in - the kernel's INIT request of @len bytes at @msg: its
 * minor and its flags (flags2 in bits 32-63 when FUSE_INIT_EXT is set).
 * 0 or -EINVAL.
 */
int ofs_tr_init_in(const void *msg, size_t len, uint32_t *minor, uint64_t *flags);
/*
 * ofs_tr_uring_rebuild - the request in a ring entry as /dev/fuse would
 * have given it: the in-header and operation header of entry header @h
 * are copied to just before the payload at @payload (whose @gap bytes
 * before it are the entry's own, at least 40 + 128), so that in-header,
 * operation header and payload lie in one piece. The request's length
 * (its start is @payload minus the headers), or -EINVAL when the kernel's
 * numbers do not add up (lengths, payload_sz over @cap).
 */
ssize_t ofs_tr_uring_rebuild(const struct ofs_fuse_uring_req_header *h, char *payload,
			     size_t gap, size_t cap, char **start);
/*
 * ofs_tr_uring_fill - write reply @iov (@count pieces, the out-header
 * first) into a ring entry: the out-header into @h, the rest into
 * @payload of @cap bytes, payload_sz set. The reply's length, or -E2BIG.
 * The pieces may point into the payload (memmove).
 */
ssize_t ofs_tr_uring_fill(struct ofs_fuse_uring_req_header *h, char *payload, size_t cap,
			  const struct iovec *iov, int count);

#endif /* OSPROF_FS_OFS_TR_PROTO_H */
