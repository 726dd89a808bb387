// SPDX-License-Identifier: MIT
/*
 * The one table of FUSE operations and the calls around them, which the
 * "where the time goes" view (orp_where.c) stacks: for each operation the
 * application's system calls that make it (layer syscall), the daemon's
 * calls on the lower file system that serve it (layer lower, as osprof-fs
 * times them in fs/ofs_pt_*.c, as eBPF names the same system calls, and
 * as the kernel module names VFS entry points), the disk directions it
 * uses (layer block), and what keeps counts from matching. docs/report.md
 * prints it for people; keep the two in step.
 *
 * Only report reads it: osprof-fs and the exporter serve each layer as it
 * is, and never join layers. An operation missing here is still shown,
 * between fuse and fs only.
 */
#include <string.h>

#include "orp_where.h"

#define CALLS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Written once, used by several entries. */
#define WHY_CACHE_READ "page-cache hits never reach FUSE"
#define WHY_SPLIT_READ "a call larger than max_read is split into several requests, and readahead sends requests no call waits for"
#define WHY_WRITEBACK "with the writeback cache the kernel writes pages back later, apart from the calls"
#define WHY_ATTR_CACHE "the kernel answers from attributes it caches (attr_timeout) and on descriptors elsewhere"
#define WHY_OPEN "an open of a directory makes OPENDIR, one with O_CREAT of a new file CREATE"
#define WHY_CLOSE_ASYNC "the kernel sends it once the file's last reference is gone, after close has returned"
#define WHY_FORGET "the kernel forgets inodes it drops from its caches, of its own accord"
#define WHY_WALK "it is one step of the path walk of any call that names a path (openat, newfstatat, execve ...): no call is one lookup"
#define WHY_DIR "one getdents64 call may take several requests, or none once the kernel has the entries"

#define APP_READ CALLS("read", "pread64", "readv", "preadv", "preadv2")
#define APP_WRITE CALLS("write", "pwrite64", "writev", "pwritev", "pwritev2")
#define APP_STAT CALLS("newfstatat", "fstat", "stat", "lstat", "statx")
#define APP_OPEN CALLS("openat", "open", "creat", "openat2")
#define APP_DIR CALLS("getdents64", "getdents")
#define APP_SYNC CALLS("fsync", "fdatasync", "sync_file_range", "syncfs")

/* A new entry's lookup after the daemon made it (ofs_inode_lookup). */
#define LOWER_ENTRY CALLS("newfstatat", "openat", "name_to_handle_at", "getattr", "open")

static const struct orp_fuse_map maps[] = {
	{ "read", ORP_APP_CALL, APP_READ, WHY_CACHE_READ, WHY_SPLIT_READ,
	  CALLS("pread64", "preadv", "preadv2", "read", "readv"), NULL, CALLS("read") },
	{ "write", ORP_APP_CALL, APP_WRITE,
	  "small writes the kernel gathers into one request, and " WHY_WRITEBACK,
	  "a call larger than max_write is split into several requests",
	  CALLS("pwrite64", "pwritev", "pwritev2", "write", "writev"), NULL, CALLS("write") },
	{ "lookup", ORP_APP_WALK, NULL, WHY_WALK, NULL,
	  CALLS("newfstatat", "getattr"), CALLS("openat", "name_to_handle_at", "open"), NULL },
	{ "getattr", ORP_APP_CALL, APP_STAT, WHY_ATTR_CACHE,
	  "the kernel asks for attributes of its own, e.g. before a read of a file opened with caching",
	  CALLS("newfstatat", "getattr"), NULL, NULL },
	{ "setattr", ORP_APP_CALL,
	  CALLS("chmod", "fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
		"truncate", "ftruncate", "utimensat", "utimes", "utime", "futimesat"),
	  "the kernel answers some itself (an unchanged owner)",
	  "an open with O_TRUNC and a write that clears set-user-ID bits make one too",
	  CALLS("newfstatat", "setattr"),
	  CALLS("utimensat", "fchmod", "fchmodat", "fchownat", "ftruncate", "truncate"), NULL },
	{ "open", ORP_APP_CALL, APP_OPEN, WHY_OPEN, NULL,
	  CALLS("open_by_handle_at", "openat", "open"), NULL, NULL },
	{ "create", ORP_APP_CALL, APP_OPEN,
	  "an open of an existing file makes OPEN, not CREATE", NULL,
	  CALLS("openat", "create"), LOWER_ENTRY, NULL },
	{ "opendir", ORP_APP_CALL, APP_OPEN, "an open of a file makes OPEN", NULL,
	  CALLS("openat", "open_by_handle_at", "open"), NULL, NULL },
	{ "readdir", ORP_APP_CALL, APP_DIR, WHY_DIR, WHY_DIR,
	  CALLS("readdir", "getdents64", "iterate_dir"), NULL, NULL },
	{ "readdirplus", ORP_APP_CALL, APP_DIR, WHY_DIR, WHY_DIR,
	  CALLS("readdir", "getdents64", "iterate_dir"), LOWER_ENTRY, NULL },
	{ "flush", ORP_APP_CALL, CALLS("close", "close_range"),
	  "a close of a directory, or of a descriptor that is not the file's last, makes no FLUSH", NULL,
	  CALLS("dup"), CALLS("close"), NULL },
	{ "release", ORP_APP_ASYNC, CALLS("close", "close_range"), WHY_CLOSE_ASYNC, NULL,
	  NULL, NULL, NULL },
	{ "releasedir", ORP_APP_ASYNC, CALLS("close", "close_range"), WHY_CLOSE_ASYNC, NULL,
	  NULL, NULL, NULL },
	{ "forget", ORP_APP_ASYNC, NULL, WHY_FORGET, NULL, NULL, NULL, NULL },
	{ "batch_forget", ORP_APP_ASYNC, NULL, WHY_FORGET, NULL, NULL, NULL, NULL },
	{ "fsync", ORP_APP_CALL, APP_SYNC,
	  "a sync of a file with nothing dirty may make none", NULL,
	  CALLS("fsync", "fdatasync"), NULL, CALLS("write", "flush") },
	{ "fsyncdir", ORP_APP_CALL, APP_SYNC,
	  "a sync of a directory with nothing dirty may make none", NULL,
	  CALLS("fsync", "fdatasync"), NULL, CALLS("write", "flush") },
	{ "statfs", ORP_APP_CALL, CALLS("statfs", "fstatfs"), NULL, NULL,
	  CALLS("fstatfs", "statfs"), NULL, NULL },
	{ "access", ORP_APP_CALL, CALLS("access", "faccessat", "faccessat2"),
	  "with default_permissions the kernel checks itself", NULL,
	  CALLS("faccessat2", "faccessat"), NULL, NULL },
	{ "readlink", ORP_APP_CALL, CALLS("readlink", "readlinkat"),
	  "a cached link, or a path walk through it", "a path walk through a link reads it too",
	  CALLS("readlinkat", "readlink"), NULL, NULL },
	{ "mknod", ORP_APP_CALL, CALLS("mknod", "mknodat"), NULL, NULL,
	  CALLS("mknodat", "mknod"), LOWER_ENTRY, NULL },
	{ "mkdir", ORP_APP_CALL, CALLS("mkdir", "mkdirat"), NULL, NULL,
	  CALLS("mkdirat", "mkdir"), LOWER_ENTRY, NULL },
	{ "symlink", ORP_APP_CALL, CALLS("symlink", "symlinkat"), NULL, NULL,
	  CALLS("symlinkat", "symlink"), LOWER_ENTRY, NULL },
	{ "link", ORP_APP_CALL, CALLS("link", "linkat"), NULL, NULL,
	  CALLS("linkat", "link"), LOWER_ENTRY, NULL },
	{ "unlink", ORP_APP_CALL, CALLS("unlink", "unlinkat"),
	  "unlinkat of a directory makes RMDIR", NULL, CALLS("unlinkat", "unlink"), NULL, NULL },
	{ "rmdir", ORP_APP_CALL, CALLS("rmdir", "unlinkat"),
	  "unlinkat of a file makes UNLINK", NULL, CALLS("unlinkat", "rmdir"), NULL, NULL },
	{ "rename", ORP_APP_CALL, CALLS("rename", "renameat", "renameat2"), NULL, NULL,
	  CALLS("renameat2", "rename"), NULL, NULL },
	{ "setxattr", ORP_APP_CALL, CALLS("setxattr", "lsetxattr", "fsetxattr"),
	  "the kernel sets ACLs and security labels itself", NULL, CALLS("setxattr"), NULL, NULL },
	{ "getxattr", ORP_APP_CALL, CALLS("getxattr", "lgetxattr", "fgetxattr"), NULL,
	  "the kernel asks for security.capability before a write to a file", CALLS("getxattr"),
	  NULL, NULL },
	{ "listxattr", ORP_APP_CALL, CALLS("listxattr", "llistxattr", "flistxattr"), NULL, NULL,
	  CALLS("listxattr"), NULL, NULL },
	{ "removexattr", ORP_APP_CALL, CALLS("removexattr", "lremovexattr", "fremovexattr"),
	  NULL, NULL, CALLS("removexattr"), NULL, NULL },
	{ "fallocate", ORP_APP_CALL, CALLS("fallocate"), NULL, NULL,
	  CALLS("fallocate"), NULL, NULL },
	{ "flock", ORP_APP_CALL, CALLS("flock"), NULL, NULL, CALLS("flock"), NULL, NULL },
	{ "copy_file_range", ORP_APP_CALL, CALLS("copy_file_range"),
	  "a copy between two file systems never reaches FUSE as one", NULL,
	  CALLS("copy_file_range"), NULL, CALLS("read", "write") },
	{ "lseek", ORP_APP_CALL, CALLS("lseek"),
	  "the kernel answers SEEK_SET, SEEK_CUR and SEEK_END itself: only SEEK_DATA and SEEK_HOLE reach FUSE",
	  NULL, CALLS("lseek"), NULL, NULL },
};

#define NMAPS (sizeof(maps) / sizeof(maps[0]))

bool orp_names_have(const char *const *list, const char *name)
{
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], name) == 0)
			return true;
	return false;
}

const struct orp_fuse_map *orp_fuse_map_find(const char *op)
{
	for (size_t i = 0; i < NMAPS; i++)
		if (strcmp(maps[i].op, op) == 0)
			return &maps[i];
	return NULL;
}
