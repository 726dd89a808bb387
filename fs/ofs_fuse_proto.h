/* SPDX-License-Identifier: MIT */
/*
 * The parts of the FUSE protocol newer than the kernel headers osprof
 * builds against (Debian 12's linux/fuse.h is protocol 7.38), defined
 * once, here, each with the protocol minor that brought it, as the kernel's
 * include/uapi/linux/fuse.h spells them (under an OFS_ prefix, so a newer
 * system header cannot clash). The layouts are asserted, since the kernel
 * reads them by offset: libfuse 3.14 knows none of these fields, the
 * transport (ofs_tr_proto.c) writes them into its replies.
 */
#ifndef OSPROF_FS_OFS_FUSE_PROTO_H
#define OSPROF_FS_OFS_FUSE_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <linux/fuse.h>

/* 7.40: passthrough of an opened file's I/O to a backing file. */
#define OFS_FUSE_PASSTHROUGH (1ull << 37)       /* INIT flag (in flags2) */
#define OFS_FOPEN_PASSTHROUGH (1u << 7)          /* OPEN/CREATE open_flags */
/* 7.42: requests and replies over io_uring (INIT flag, in flags2). */
#define OFS_FUSE_OVER_IO_URING (1ull << 41)

/* 7.40: FUSE_DEV_IOC_BACKING_OPEN's argument; its result is the id. */
struct ofs_fuse_backing_map {
	int32_t fd;
	uint32_t flags;    /* 0 */
	uint64_t padding;  /* 0 */
};
#define OFS_FUSE_DEV_IOC_BACKING_OPEN _IOW(FUSE_DEV_IOC_MAGIC, 1, struct ofs_fuse_backing_map)
#define OFS_FUSE_DEV_IOC_BACKING_CLOSE _IOW(FUSE_DEV_IOC_MAGIC, 2, uint32_t)

/* fuse_init_out as of 7.40: max_stack_depth in what 7.38 calls unused[0]. */
struct ofs_fuse_init_out {
	uint32_t major;
	uint32_t minor;
	uint32_t max_readahead;
	uint32_t flags;
	uint16_t max_background;
	uint16_t congestion_threshold;
	uint32_t max_write;
	uint32_t time_gran;
	uint16_t max_pages;
	uint16_t map_alignment;
	uint32_t flags2;
	uint32_t max_stack_depth;  /* 7.40 */
	uint32_t unused[6];
};
_Static_assert(sizeof(struct ofs_fuse_init_out) == sizeof(struct fuse_init_out),
	       "fuse_init_out keeps its size");
_Static_assert(offsetof(struct ofs_fuse_init_out, flags2) == offsetof(struct fuse_init_out, flags2) &&
	       offsetof(struct ofs_fuse_init_out, max_stack_depth) == 36,
	       "max_stack_depth follows flags2");

/* fuse_open_out as of 7.40: backing_id in what 7.38 calls padding. */
struct ofs_fuse_open_out {
	uint64_t fh;
	uint32_t open_flags;
	int32_t backing_id;  /* 7.40 */
};
_Static_assert(sizeof(struct ofs_fuse_open_out) == sizeof(struct fuse_open_out) &&
	       offsetof(struct ofs_fuse_open_out, backing_id) == 12,
	       "backing_id is fuse_open_out's last word");

/* 7.42: FUSE over io_uring. A ring entry is a header and a payload buffer. */
#define OFS_FUSE_URING_IN_OUT_HEADER_SZ 128
#define OFS_FUSE_URING_OP_IN_OUT_SZ 128

struct ofs_fuse_uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;   /* the request's unique, echoed by the commit */
	uint32_t payload_sz;  /* bytes in the payload, either way */
	uint32_t padding;
	uint64_t reserved;
};

struct ofs_fuse_uring_req_header {
	/* fuse_in_header of a request, fuse_out_header of its reply */
	char in_out[OFS_FUSE_URING_IN_OUT_HEADER_SZ];
	/* the operation's own header (its first argument) */
	char op_in[OFS_FUSE_URING_OP_IN_OUT_SZ];
	struct ofs_fuse_uring_ent_in_out ring_ent_in_out;
};
_Static_assert(sizeof(struct ofs_fuse_uring_req_header) == 288, "288-byte entry header");

enum ofs_fuse_uring_cmd {
	OFS_FUSE_IO_URING_CMD_REGISTER = 1,         /* register an entry */
	OFS_FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2, /* reply, take the next */
};

/* In the SQE's 80-byte command area (the ring has 128-byte SQEs). */
struct ofs_fuse_uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};
_Static_assert(sizeof(struct ofs_fuse_uring_cmd_req) == 24, "24-byte command");

#endif /* OSPROF_FS_OFS_FUSE_PROTO_H */
