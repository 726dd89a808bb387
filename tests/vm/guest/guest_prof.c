// SPDX-License-Identifier: MIT
/*
 * Profile tests: every /proc/osprof file reads and is well formed; disk
 * reads show up in the block and lower profiles with the exact counts
 * issued; the lower profile counts each VFS call of a registered process
 * on files, and none on pipes, sockets, eventfds or character devices;
 * the irq file lists the virtio and timer interrupts with counts growing;
 * the selftest prints its figures.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define DISK "/dev/vda"

int t_proc_readable(void)
{
	static const char *const files[] = { "timers", "lower", "block",
					     "irq", "ctl", "selftest" };
	unsigned int i;
	int bad = 0;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[64], name[64];
		const char *err = NULL;
		size_t len;
		char *text;

		snprintf(path, sizeof(path), G_PROC "%s", files[i]);
		snprintf(name, sizeof(name), "proc_readable_%s", files[i]);
		text = g_read_file(path, &len);
		if (!text) {
			g_fail(name, "read %s: %s", path, strerror(errno));
			bad++;
			continue;
		}
		if (!strcmp(files[i], "lower") || !strcmp(files[i], "block") ||
		    !strcmp(files[i], "irq"))
			err = g_check_layer_text(files[i], text);
		else if (strcmp(files[i], "timers") && len == 0)
			err = "empty";
		if (err) {
			g_fail(name, "%s", err);
			bad++;
		} else {
			g_pass(name);
		}
		free(text);
	}
	return bad != 0;
}

/* Open the disk for O_DIRECT reads; fd or -1 with a FAIL printed. */
static int open_disk(const char *name)
{
	int fd = open(DISK, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		g_fail(name, "open %s: %s", DISK, strerror(errno));
	return fd;
}

/* @n O_DIRECT 4 KiB reads at distinct offsets; reads done, or -1. */
static int disk_reads(int fd, int n)
{
	void *buf;
	int i;

	if (posix_memalign(&buf, 4096, 4096))
		return -1;
	for (i = 0; i < n; i++) {
		if (pread(fd, buf, 4096, (off_t)i * 8192) != 4096)
			break;
	}
	free(buf);
	return i;
}

int t_blk_lower(void)
{
	static const char *name = "disk_reads_in_block_and_lower";
	const int n = 64;
	char cmd[64], line[8192], *block, *lower;
	uint64_t bcount, lcount, vcount, sum, vsum;
	int fd, done;

	snprintf(cmd, sizeof(cmd), "pid %d\n", getpid());
	if (g_ctl(cmd) || g_ctl("reset\n")) {
		g_fail(name, "ctl pid/reset: %s", strerror(errno));
		return 1;
	}
	fd = open_disk(name);
	if (fd < 0)
		return 1;
	done = disk_reads(fd, n);
	close(fd);
	snprintf(cmd, sizeof(cmd), "unpid %d\n", getpid());
	if (g_ctl(cmd)) {
		g_fail(name, "ctl unpid: %s", strerror(errno));
		return 1;
	}
	block = g_read_file(G_PROC "block", NULL);
	lower = g_read_file(G_PROC "lower", NULL);
	if (done != n || !block || !lower) {
		g_fail(name, "%d of %d reads done, or profiles unreadable", done, n);
		return 1;
	}
	if (!g_rec_find(block, "dir", "read", line, sizeof(line)) ||
	    !g_rec_u64(line, "count", &bcount)) {
		g_fail(name, "no read record in block:\n%s", block);
		return 1;
	}
	g_info("block: %s", line);
	if (!strstr(line, "dev=vda "))
		g_fail(name, "block read record is not for vda");
	else if (bcount != (uint64_t)n)
		g_fail(name, "block read count %llu, issued %d",
		       (unsigned long long)bcount, n);
	if (!g_rec_find(lower, "op", "read", line, sizeof(line)) ||
	    !g_rec_u64(line, "count", &lcount) || !g_rec_u64(line, "vcount", &vcount) ||
	    !g_rec_u64(line, "sum_ns", &sum) || !g_rec_u64(line, "vsum_ns", &vsum)) {
		g_fail(name, "no read record in lower:\n%s", lower);
		return 1;
	}
	g_info("lower: %s", line);
	if (lcount != (uint64_t)n || vcount != (uint64_t)n)
		g_fail(name, "lower read count %llu vcount %llu, issued %d",
		       (unsigned long long)lcount, (unsigned long long)vcount, n);
	else if (vsum >= sum)
		g_fail(name, "virtual time %llu ns not below physical %llu ns for disk reads",
		       (unsigned long long)vsum, (unsigned long long)sum);
	if (!g_failures())
		g_pass(name);
	free(block);
	free(lower);
	return g_failures() != 0;
}

struct op_want {
	const char *op;
	uint64_t min, max;
};

/*
 * Calls by a registered process that reach a probed VFS function on
 * objects that are no file system's: a pipe, /dev/zero and /dev/null, a
 * socket, an eventfd (each syscall gets as far as the probed function,
 * which fails where it fails: fsync EINVAL, fallocate ESPIPE, getdents
 * ENOTDIR, copy_file_range EINVAL). None may count: a FUSE daemon reads
 * and writes /dev/fuse for every request, and counting that as lower
 * reads buried the real ones. @file_fd: a regular file open for reading,
 * the source of a copy_file_range into the pipe. 0, or -1 after a FAIL
 * line.
 */
static int lower_non_fs_calls(const char *name, int file_fd)
{
	char b[64] = "x";
	struct iovec iov = { .iov_base = b, .iov_len = 1 };
	uint64_t one = 1;
	int p[2], s[2], fd;
	long r = 0;

	if (pipe(p)) {
		g_fail(name, "pipe: %s", strerror(errno));
		return -1;
	}
	r += write(p[1], b, 1);
	r += read(p[0], b, 1);
	r += writev(p[1], &iov, 1);
	r += readv(p[0], &iov, 1);
	r += fsync(p[1]);
	r += fallocate(p[1], 0, 0, 1);
	r += syscall(SYS_getdents64, p[0], b, sizeof(b));
	r += copy_file_range(file_fd, NULL, p[1], NULL, 1, 0);
	close(p[0]);
	close(p[1]);
	fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		g_fail(name, "open /dev/zero: %s", strerror(errno));
		return -1;
	}
	r += read(fd, b, sizeof(b));
	close(fd);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		g_fail(name, "open /dev/null: %s", strerror(errno));
		return -1;
	}
	r += write(fd, b, sizeof(b));
	close(fd);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, s)) {
		g_fail(name, "socketpair: %s", strerror(errno));
		return -1;
	}
	r += write(s[0], b, 1);
	r += read(s[1], b, 1);
	close(s[0]);
	close(s[1]);
	fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0) {
		g_fail(name, "eventfd: %s", strerror(errno));
		return -1;
	}
	r += write(fd, &one, sizeof(one));
	r += read(fd, &one, sizeof(one));
	close(fd);
	(void)r; /* the results do not matter, and nothing is printed while
		  * registered: stdout could be a file */
	return 0;
}

int t_lower_ops(void)
{
	static const char *name = "lower_counts_vfs_calls";
	/*
	 * Exact where the calls are ours alone; write: the one below and
	 * the two ctl commands written while registered ("reset lower",
	 * "unpid": /proc files are regular files). The calls on pipes and
	 * devices (lower_non_fs_calls) add nothing.
	 */
	static const struct op_want want[] = {
		{ "mkdir", 1, 1 },   { "rmdir", 1, 1 },   { "create", 2, 2 },
		{ "unlink", 5, 5 },  { "rename", 1, 1 },  { "link", 1, 1 },
		{ "symlink", 1, 1 }, { "readlink", 1, 1 }, { "fsync", 1, 1 },
		{ "iterate_dir", 2, 2 }, { "statfs", 1, 1 }, { "getattr", 1, 100 },
		{ "setattr", 1, 100 }, { "open", 3, 100 }, { "write", 3, 3 },
		{ "readv", 1, 1 },   { "writev", 1, 1 },  { "mknod", 1, 1 },
		{ "fallocate", 1, 1 }, { "copy_file_range", 1, 1 },
		{ "read", 1, 1 },
	};
	const char *dir = "/tmp/okm-lower";
	char cmd[64], line[8192], buf[256], *lower;
	struct statfs sfs;
	struct stat st;
	unsigned int i;
	int fd, dfd;

	mkdir("/tmp", 0755);
	snprintf(cmd, sizeof(cmd), "pid %d\n", getpid());
	if (g_ctl(cmd) || g_ctl("reset lower\n")) {
		g_fail(name, "ctl: %s", strerror(errno));
		return 1;
	}
	/* each call below is one VFS call of the op counted */
	mkdir(dir, 0755);                                           /* mkdir */
	mknod("/tmp/okm-lower/a", S_IFREG | 0644, 0);               /* create */
	fd = open("/tmp/okm-lower/b", O_CREAT | O_EXCL | O_WRONLY, 0644); /* create */
	if (write(fd, "hello", 5) != 5)                             /* write */
		g_info("write failed");
	fsync(fd);                                                  /* fsync */
	ftruncate(fd, 2);                                           /* setattr */
	{
		char b1[4] = "abc", b2[4];
		struct iovec iov = { .iov_base = b1, .iov_len = 3 };
		int rfd;

		if (writev(fd, &iov, 1) != 3)                       /* writev */
			g_info("writev failed: %s", strerror(errno));
		if (fallocate(fd, 0, 0, 8192))                      /* fallocate */
			g_info("fallocate failed: %s", strerror(errno));
		rfd = open("/tmp/okm-lower/b", O_RDONLY);           /* open */
		iov.iov_base = b2;
		if (readv(rfd, &iov, 1) < 0)                        /* readv */
			g_info("readv failed: %s", strerror(errno));
		if (pread(rfd, b2, 1, 0) < 0)                       /* read */
			g_info("pread failed: %s", strerror(errno));
		if (copy_file_range(rfd, NULL, fd, NULL, 2, 0) < 0) /* copy_file_range */
			g_info("copy_file_range failed: %s", strerror(errno));
		lower_non_fs_calls(name, rfd);                      /* none */
		close(rfd);
	}
	mknod("/tmp/okm-lower/f", S_IFIFO | 0644, 0);               /* mknod */
	close(fd);
	stat("/tmp/okm-lower/b", &st);                              /* getattr */
	dfd = open(dir, O_RDONLY | O_DIRECTORY);                    /* open */
	while (syscall(SYS_getdents64, dfd, buf, sizeof(buf)) > 0)  /* iterate_dir */
		;
	close(dfd);
	rename("/tmp/okm-lower/b", "/tmp/okm-lower/c");             /* rename */
	link("/tmp/okm-lower/c", "/tmp/okm-lower/d");               /* link */
	symlink("c", "/tmp/okm-lower/e");                           /* symlink */
	readlink("/tmp/okm-lower/e", buf, sizeof(buf));             /* readlink */
	statfs(dir, &sfs);                                          /* statfs */
	unlink("/tmp/okm-lower/a");                                 /* unlink */
	unlink("/tmp/okm-lower/c");
	unlink("/tmp/okm-lower/d");
	unlink("/tmp/okm-lower/e");
	unlink("/tmp/okm-lower/f");
	rmdir(dir);                                                 /* rmdir */
	snprintf(cmd, sizeof(cmd), "unpid %d\n", getpid());
	g_ctl(cmd);

	lower = g_read_file(G_PROC "lower", NULL);
	if (!lower) {
		g_fail(name, "read lower: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t c, vc;

		if (!g_rec_find(lower, "op", want[i].op, line, sizeof(line)) ||
		    !g_rec_u64(line, "count", &c) || !g_rec_u64(line, "vcount", &vc)) {
			g_fail(name, "op %s missing", want[i].op);
			continue;
		}
		if (c < want[i].min || c > want[i].max || vc == 0)
			g_fail(name, "op %s count %llu vcount %llu, want %llu..%llu",
			       want[i].op, (unsigned long long)c,
			       (unsigned long long)vc,
			       (unsigned long long)want[i].min,
			       (unsigned long long)want[i].max);
	}
	if (!g_failures())
		g_pass(name);
	else
		printf("%s", lower);
	free(lower);
	return g_failures() != 0;
}

static bool is_virtio(const char *line)
{
	char nm[64];

	return g_rec_get(line, "name", nm, sizeof(nm)) && strstr(nm, "virtio");
}

int t_irq_list(void)
{
	static const char *name = "irq_lists_virtio_and_timer";
	struct g_irq_sum v0, v1, t0, t1;
	struct timespec ts = { 0, 200 * 1000 * 1000 };
	char *a, *b, *p;
	int fd, bad = 0;

	a = g_read_file(G_PROC "irq", NULL);
	fd = open_disk(name);
	if (!a || fd < 0)
		return 1;
	disk_reads(fd, 16);
	close(fd);
	nanosleep(&ts, NULL);
	b = g_read_file(G_PROC "irq", NULL);
	if (!b) {
		g_fail(name, "read irq: %s", strerror(errno));
		return 1;
	}
	g_irq_sum(a, is_virtio, &v0);
	g_irq_sum(b, is_virtio, &v1);
	g_irq_sum(a, g_is_local_timer, &t0);
	g_irq_sum(b, g_is_local_timer, &t1);
	for (p = b; *p;) {
		char *nl = strchr(p, '\n');

		printf("INFO irq: %.*s\n", (int)(nl ? nl - p : (long)strlen(p)), p);
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!v1.lines || !t1.lines) {
		g_fail(name, "virtio lines %d, local timer lines %d", v1.lines, t1.lines);
		bad++;
	} else if (v1.count < v0.count + 16 || t1.count <= t0.count) {
		g_fail(name, "counts did not grow: virtio %llu -> %llu, timer %llu -> %llu",
		       (unsigned long long)v0.count, (unsigned long long)v1.count,
		       (unsigned long long)t0.count, (unsigned long long)t1.count);
		bad++;
	} else if (!strstr(b, " pmc=unavailable") && !strstr(b, " pmc=available")) {
		g_fail(name, "no pmc= key");
		bad++;
	}
	if (!bad)
		g_pass(name);
	free(a);
	free(b);
	return bad != 0;
}

int t_selftest(void)
{
	static const char *const ops[] = { "op=start kind=virtual",
					   "op=stop kind=virtual",
					   "op=pseudo_start", "op=pseudo_stop" };
	char *text = g_read_file(G_PROC "selftest", NULL), *p;
	const char *missing = NULL;
	unsigned int i;

	if (!text) {
		g_fail("selftest", "read: %s", strerror(errno));
		return 1;
	}
	/* each read runs the measurement: check and print the same one */
	for (i = 0; !missing && i < sizeof(ops) / sizeof(ops[0]); i++) {
		char *l = strstr(text, ops[i]);
		uint64_t c;

		if (!l || !g_rec_u64(l, "median_cycles", &c) || c == 0)
			missing = ops[i];
	}
	for (p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
		g_info("selftest: %s", p);
	free(text);
	if (missing) {
		g_fail("selftest", "no median for %s", missing);
		return 1;
	}
	g_pass("selftest");
	return 0;
}

/* Background load for the unload test: lower probes and contexts busy. */
int t_load(void)
{
	char cmd[64];
	int fd;

	snprintf(cmd, sizeof(cmd), "pid %d\n", getpid());
	g_ctl(cmd);
	fd = open(DISK, O_RDONLY | O_DIRECT | O_CLOEXEC);
	for (;;) {
		struct stat st;

		if (fd >= 0)
			disk_reads(fd, 4);
		stat("/", &st);
		g_spin_until(g_mono_ns() + 2000000u);
	}
	return 0;
}
