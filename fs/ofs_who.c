// SPDX-License-Identifier: MIT
/*
 * Who and what a request is about, in words: the caller's process name
 * (from /proc, read once per pid and cached) and the path of an inode under
 * the mount. Both are for what is kept per key or per slow request, not
 * for every request: a name is looked up when a key value is first seen
 * or a request is slow, never on the plain recording path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ofs.h"
#include "ofs_inode.h"
#include "ofs_who.h"

/*
 * The cache: direct-mapped by pid, each entry a seqlock (even: stable,
 * odd: being written) over the pid and its name. Readers never wait; a
 * writer that finds the entry busy reads /proc without caching. A pid
 * reused by a new process keeps its old name until the entry is
 * overwritten, as bcc's tools do.
 */
#define COMM_CACHE 1024

struct comm_entry {
	atomic_uint seq;
	atomic_int pid;
	char comm[OFS_COMM_LEN];
};

static struct comm_entry comm_cache[COMM_CACHE];

/* /proc/@pid/comm into @out: 0 or -errno. */
static int read_comm(pid_t pid, char out[OFS_COMM_LEN])
{
	char path[32], buf[OFS_COMM_LEN];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* The name (15 bytes at most) and the newline the kernel ends it
	 * with; a newline inside is the name's (PR_SET_NAME takes any byte
	 * but NUL), so only the last one read goes. */
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	if (buf[n - 1] == '\n')
		n--;
	n = n < OFS_COMM_LEN - 1 ? n : OFS_COMM_LEN - 1;
	memcpy(out, buf, (size_t)n);
	out[n] = '\0';
	return 0;
}

static bool cached(struct comm_entry *e, pid_t pid, char out[OFS_COMM_LEN])
{
	unsigned s = atomic_load_explicit(&e->seq, memory_order_acquire);
	char copy[OFS_COMM_LEN];

	if (s & 1u || atomic_load_explicit(&e->pid, memory_order_relaxed) != pid)
		return false;
	for (size_t i = 0; i < OFS_COMM_LEN; i++)
		copy[i] = ((volatile char *)e->comm)[i];
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&e->seq, memory_order_relaxed) != s)
		return false;
	copy[OFS_COMM_LEN - 1] = '\0';
	memcpy(out, copy, OFS_COMM_LEN);
	return true;
}

int ofs_comm_of(pid_t pid, char out[OFS_COMM_LEN])
{
	struct comm_entry *e = &comm_cache[(unsigned)pid % COMM_CACHE];
	unsigned s;
	int err;

	if (pid <= 0)
		return -ESRCH;
	if (cached(e, pid, out))
		return 0;
	err = read_comm(pid, out);
	if (err)
		return err;
	s = atomic_load_explicit(&e->seq, memory_order_relaxed);
	if (s & 1u || !atomic_compare_exchange_strong(&e->seq, &s, s + 1))
		return 0; /* another writer has it: not cached this time */
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&e->pid, pid, memory_order_relaxed);
	for (size_t i = 0; i < OFS_COMM_LEN; i++)
		((volatile char *)e->comm)[i] = out[i];
	atomic_store_explicit(&e->seq, s + 2, memory_order_release);
	return 0;
}

int ofs_inode_path(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len)
{
	struct ofs_inode *in = ofs_inode_of(fs, ino);
	char proc[32], path[PATH_MAX];
	const char *root = ofs_itab_root_path(fs);
	size_t nroot = strlen(root);
	ssize_t n;
	int fd;

	if (!in)
		return -ENOENT;
	fd = ofs_inode_fd(fs, in);
	if (fd < 0)
		return fd;
	ofs_proc_path(proc, fd);
	n = readlink(proc, path, sizeof(path) - 1);
	ofs_inode_fd_put(fs, in);
	if (n < 0)
		return -errno;
	path[n] = '\0';
	/* Under the lower root: the rest is the path in the mount. The root
	 * itself is "/"; a file moved out of the tree keeps its own path. */
	if (strncmp(path, root, nroot) == 0 && (path[nroot] == '/' || path[nroot] == '\0'))
		n = snprintf(buf, len, "%s", path[nroot] ? path + nroot : "/");
	else
		n = snprintf(buf, len, "%s", path);
	return n >= 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

void ofs_comm_label(pid_t pid, char out[OFS_COMM_LEN])
{
	if (ofs_comm_of(pid, out) != 0)
		strcpy(out, pid == 0 ? "(kernel)" : "?");
}

void ofs_label_mark(char *buf, size_t len, int err)
{
	if (err == -ENAMETOOLONG && len >= 4)
		memcpy(buf + len - 4, "...", 4);
	else if (err)
		snprintf(buf, len, "?");
}

void ofs_inode_label(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len)
{
	ofs_label_mark(buf, len, ofs_inode_path(fs, ino, buf, len));
}
