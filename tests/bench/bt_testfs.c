// SPDX-License-Identifier: MIT
/*
 * A tiny read-only FUSE file system for testing osprof-bench --remount: its
 * root holds one file, "pid", whose content is the serving process's pid. A
 * run that reads it tells which daemon served it, so a test can see that
 * every run got a fresh daemon. Usage: bt-testfs MOUNTPOINT [FUSE options];
 * it daemonizes like any libfuse program unless -f is given.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int pid_text(char *buf, size_t len)
{
	return snprintf(buf, len, "%d\n", (int)getpid());
}

static int tfs_getattr(const char *path, struct stat *st,
		       struct fuse_file_info *fi)
{
	char buf[32];

	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (strcmp(path, "/pid") == 0) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = pid_text(buf, sizeof(buf));
	} else {
		return -ENOENT;
	}
	return 0;
}

static int tfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill,
		       off_t off, struct fuse_file_info *fi,
		       enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "pid", NULL, 0, 0);
	return 0;
}

static int tfs_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/pid") != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	fi->direct_io = 1; /* no page cache: every read reaches us */
	return 0;
}

static int tfs_read(const char *path, char *out, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	char buf[32];
	int len = pid_text(buf, sizeof(buf));

	(void)path;
	(void)fi;
	if (off >= len)
		return 0;
	if ((size_t)(len - off) < size)
		size = (size_t)(len - off);
	memcpy(out, buf + off, size);
	return (int)size;
}

static const struct fuse_operations tfs_ops = {
	.getattr = tfs_getattr,
	.readdir = tfs_readdir,
	.open = tfs_open,
	.read = tfs_read,
};

int main(int argc, char *argv[])
{
	return fuse_main(argc, argv, &tfs_ops, NULL);
}
