// SPDX-License-Identifier: MIT
/*
 * sleepfs: a test-only FUSE file system whose file "slow" takes a known
 * time to read: every read returns exactly SLEEP_US after it arrived;
 * reads of "slow4" take four times as long, reads of "fast" no time. A VM's timers overshoot by
 * 0.1-0.5 ms, so it sleeps until 300 us before the deadline and spins
 * the rest. Files are opened with direct_io so every read reaches it.
 * Usage:
 *   sleepfs MOUNTPOINT SLEEP_US [fuse options]
 */
#define FUSE_USE_VERSION 314
#include <errno.h>
#include <stdint.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define FILE_SIZE (1 << 20)
#define SPIN_NS 300000

static uint64_t ns_of(const struct timespec *t)
{
	return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static long sleep_ns;

static int s_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (strcmp(path, "/slow") == 0 || strcmp(path, "/slow4") == 0 ||
		   strcmp(path, "/fast") == 0) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = FILE_SIZE;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int s_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		     struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "slow", NULL, 0, 0);
	fill(buf, "slow4", NULL, 0, 0);
	fill(buf, "fast", NULL, 0, 0);
	return 0;
}

static int s_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/slow") != 0 && strcmp(path, "/slow4") != 0 && strcmp(path, "/fast") != 0)
		return -ENOENT;
	fi->direct_io = 1;
	return 0;
}

static int s_read(const char *path, char *buf, size_t size, off_t off,
		  struct fuse_file_info *fi)
{
	struct timespec t, now;
	uint64_t deadline;

	uint64_t wait_ns = strcmp(path, "/fast") == 0 ? 0 :
			   (uint64_t)sleep_ns * (strcmp(path, "/slow4") == 0 ? 4 : 1);

	(void)fi;
	clock_gettime(CLOCK_MONOTONIC, &t);
	deadline = ns_of(&t) + wait_ns;
	if (wait_ns > SPIN_NS) {
		uint64_t wake = deadline - SPIN_NS;

		t.tv_sec = (time_t)(wake / 1000000000u);
		t.tv_nsec = (long)(wake % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
	}
	do
		clock_gettime(CLOCK_MONOTONIC, &now);
	while (ns_of(&now) < deadline);
	if (off >= FILE_SIZE)
		return 0;
	if ((size_t)(FILE_SIZE - off) < size)
		size = (size_t)(FILE_SIZE - off);
	memset(buf, 0, size);
	return (int)size;
}

static const struct fuse_operations ops = {
	.getattr = s_getattr,
	.readdir = s_readdir,
	.open = s_open,
	.read = s_read,
};

int main(int argc, char **argv)
{
	char *end;

	if (argc < 3) {
		fprintf(stderr, "usage: sleepfs MOUNTPOINT SLEEP_US [fuse options]\n");
		return 2;
	}
	sleep_ns = strtol(argv[2], &end, 10) * 1000;
	if (*end || sleep_ns <= 0) {
		fprintf(stderr, "sleepfs: bad SLEEP_US %s\n", argv[2]);
		return 2;
	}
	prctl(PR_SET_TIMERSLACK, 1UL);
	argv[2] = argv[1]; /* fuse_main wants the mountpoint among its args */
	return fuse_main(argc - 1, argv + 1, &ops, NULL);
}
