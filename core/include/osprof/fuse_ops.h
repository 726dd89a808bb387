/* SPDX-License-Identifier: MIT */
/*
 * The FUSE operations, listed once: each one's name in every profile
 * (layers fs and fuse, so that the two line up op for op), its opcode in
 * the FUSE protocol (linux/fuse.h, a stable ABI), which layers see it,
 * and whether the kernel's passthrough serves it. osprof-fs's operations
 * and their order, the fuse layer's names by opcode and what passthrough
 * leaves out come from here; tests/facts checks that osprof-report's
 * table of operations covers every one. Macros only, with no libc
 * includes: BPF programs (clang -target bpf) may include it too.
 */
#ifndef OSPROF_FUSE_OPS_H
#define OSPROF_FUSE_OPS_H

#include "layers.h"

/*
 * OSP_FUSE_OPS(OP, AGAIN, KERNEL) expands one of its three arguments per
 * opcode:
 *
 *   OP(ID, name, opcode, pt)  osprof-fs serves and times it: layers fs
 *       and fuse see it. In the fs layer's order, which is its profiles'
 *       order (enum ofs_op is OFS_OP_<ID> in this order). pt is the
 *       literal 1 when, under -o passthrough, the kernel serves it on the
 *       lower file itself: it then reaches neither fs nor fuse, and layer
 *       syscall times it; else 0.
 *   AGAIN(ID, name, opcode)   another opcode the kernel sends for OP
 *       row ID, counted under the same name.
 *   KERNEL(ID, name, opcode)  only layer fuse sees it: libfuse answers
 *       it, or osprof-fs does not serve it.
 *
 * A name is written once per opcode; AGAIN's repeats its OP row's
 * (tests/facts checks it). OSP_SKIP leaves out a kind of row.
 */
#define OSP_FUSE_OPS(OP, AGAIN, KERNEL)                          \
	OP(LOOKUP, "lookup", 1, 0)                               \
	OP(FORGET, "forget", 2, 0)                               \
	OP(BATCH_FORGET, "batch_forget", 42, 0)                  \
	OP(GETATTR, "getattr", 3, 0)                             \
	OP(SETATTR, "setattr", 4, 0)                             \
	OP(READLINK, "readlink", 5, 0)                           \
	OP(MKNOD, "mknod", 8, 0)                                 \
	OP(MKDIR, "mkdir", 9, 0)                                 \
	OP(UNLINK, "unlink", 10, 0)                              \
	OP(RMDIR, "rmdir", 11, 0)                                \
	OP(SYMLINK, "symlink", 6, 0)                             \
	OP(RENAME, "rename", 12, 0)                              \
	AGAIN(RENAME, "rename", 45) /* RENAME2: with flags */    \
	OP(LINK, "link", 13, 0)                                  \
	OP(OPEN, "open", 14, 0)                                  \
	OP(READ, "read", 15, 1)                                  \
	OP(WRITE, "write", 16, 1)                                \
	OP(FLUSH, "flush", 25, 0)                                \
	OP(RELEASE, "release", 18, 0)                            \
	OP(FSYNC, "fsync", 20, 0)                                \
	OP(OPENDIR, "opendir", 27, 0)                            \
	OP(READDIR, "readdir", 28, 0)                            \
	OP(READDIRPLUS, "readdirplus", 44, 0)                    \
	OP(RELEASEDIR, "releasedir", 29, 0)                      \
	OP(FSYNCDIR, "fsyncdir", 30, 0)                          \
	OP(STATFS, "statfs", 17, 0)                              \
	OP(SETXATTR, "setxattr", 21, 0)                          \
	OP(GETXATTR, "getxattr", 22, 0)                          \
	OP(LISTXATTR, "listxattr", 23, 0)                        \
	OP(REMOVEXATTR, "removexattr", 24, 0)                    \
	OP(ACCESS, "access", 34, 0)                              \
	OP(CREATE, "create", 35, 0)                              \
	/* SETLK and SETLKW: osprof-fs handles flock locks only  \
	 * (POSIX locks stay in the kernel) */                   \
	OP(FLOCK, "flock", 32, 0)                                \
	AGAIN(FLOCK, "flock", 33)                                \
	OP(FALLOCATE, "fallocate", 43, 0)                        \
	OP(COPY_FILE_RANGE, "copy_file_range", 47, 0)            \
	OP(LSEEK, "lseek", 46, 0)                                \
	KERNEL(INIT, "init", 26)                                 \
	KERNEL(GETLK, "getlk", 31)                               \
	KERNEL(INTERRUPT, "interrupt", 36)                       \
	KERNEL(BMAP, "bmap", 37)                                 \
	KERNEL(DESTROY, "destroy", 38)                           \
	KERNEL(IOCTL, "ioctl", 39)                               \
	KERNEL(POLL, "poll", 40)                                 \
	KERNEL(NOTIFY_REPLY, "notify_reply", 41)                 \
	KERNEL(SETUPMAPPING, "setupmapping", 48)                 \
	KERNEL(REMOVEMAPPING, "removemapping", 49)               \
	KERNEL(SYNCFS, "syncfs", 50)                             \
	KERNEL(TMPFILE, "tmpfile", 51)                           \
	KERNEL(STATX, "statx", 52)

/* How many OP rows have pt 1, as a constant expression. */
#define OSP_FUSE_PT_ONE(ID, name, opcode, pt) + (pt)
#define OSP_FUSE_PASSTHROUGH_N (0 OSP_FUSE_OPS(OSP_FUSE_PT_ONE, OSP_SKIP, OSP_SKIP))

#endif /* OSPROF_FUSE_OPS_H */
