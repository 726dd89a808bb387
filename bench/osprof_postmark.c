// SPDX-License-Identifier: MIT
/*
 * osprof-postmark: a PostMark-like small-file workload for bench/peer.sh.
 * In a new directory DIR/osprof-pm.PID it creates --files files of 512 bytes
 * to --size bytes, then runs --tx transactions, each one read of a whole file
 * or one append (chosen at random) to a random slot's file, then a create of
 * a random empty slot or a delete of a full one; then deletes everything,
 * the directory too. Offsets of choice come from a fixed seed, so every run
 * and every mount does the same operations. Exit 1 on the first failed
 * call, with its errno (an EMFILE from a FUSE daemon shows here).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static uint64_t rng;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static char dir[4096], buf[1 << 16];
static unsigned char *present;
static long nfiles = 500, ntx = 2000, maxsize = 8192;
static long done[4]; /* create, delete, read, append */

static void die(const char *what, long i)
{
	fprintf(stderr, "osprof-postmark: %s %s/f%ld: %s\n", what, dir, i, strerror(errno));
	exit(1);
}

static void path(char *p, size_t n, long i) { snprintf(p, n, "%s/f%ld", dir, i); }

static void create(long i)
{
	char p[4200];
	path(p, sizeof p, i);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) die("create", i);
	size_t len = 512 + next() % (size_t)(maxsize - 511);
	if (write(fd, buf, len) != (ssize_t)len) die("write", i);
	if (close(fd)) die("close", i);
	present[i] = 1;
	done[0]++;
}

static void delete(long i)
{
	char p[4200];
	path(p, sizeof p, i);
	if (unlink(p)) die("unlink", i);
	present[i] = 0;
	done[1]++;
}

static void readall(long i)
{
	char p[4200];
	path(p, sizeof p, i);
	int fd = open(p, O_RDONLY);
	if (fd < 0) die("open", i);
	ssize_t r;
	while ((r = read(fd, buf, sizeof buf)) > 0)
		;
	if (r < 0) die("read", i);
	close(fd);
	done[2]++;
}

static void append(long i)
{
	char p[4200];
	path(p, sizeof p, i);
	int fd = open(p, O_WRONLY | O_APPEND);
	if (fd < 0) die("open", i);
	size_t len = 512 + next() % 3585;
	if (write(fd, buf, len) != (ssize_t)len) die("append", i);
	if (close(fd)) die("close", i);
	done[3]++;
}

int main(int argc, char **argv)
{
	static const struct option o[] = {
		{ "files", 1, 0, 'f' }, { "tx", 1, 0, 't' }, { "size", 1, 0, 's' },
		{ "seed", 1, 0, 'r' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	long seed = 1;
	int c;
	while ((c = getopt_long(argc, argv, "f:t:s:r:h", o, NULL)) != -1) {
		switch (c) {
		case 'f': nfiles = atol(optarg); break;
		case 't': ntx = atol(optarg); break;
		case 's': maxsize = atol(optarg); break;
		case 'r': seed = atol(optarg); break;
		case 'h':
			printf("Usage: osprof-postmark DIR [--files N] [--tx N] [--size MAX] [--seed S]\n\n"
			       "A PostMark-like workload in a new directory DIR/osprof-pm.PID: create N\n"
			       "files (default 500) of 512..MAX bytes (default 8192), run --tx transactions\n"
			       "(default 2000; each a read or append, then a create or delete), delete all.\n");
			return 0;
		default: return 2;
		}
	}
	if (optind != argc - 1 || nfiles < 1 || ntx < 0 || maxsize < 512 || maxsize > (long)sizeof buf) {
		fprintf(stderr, "osprof-postmark: bad arguments (see --help)\n");
		return 2;
	}
	rng = 0x9e3779b97f4a7c15ULL ^ (uint64_t)seed;
	memset(buf, 'x', sizeof buf);
	present = calloc((size_t)nfiles, 1);
	if (!present) {
		fprintf(stderr, "osprof-postmark: out of memory\n");
		return 1;
	}
	snprintf(dir, sizeof dir, "%s/osprof-pm.%ld", argv[optind], (long)getpid());
	if (mkdir(dir, 0755)) die("mkdir", -1);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < nfiles; i++)
		create(i);
	for (long t = 0; t < ntx; t++) {
		long i = next() % nfiles;
		if (present[i]) {
			if (next() & 1) readall(i); else append(i);
		}
		i = next() % nfiles;
		if (present[i]) delete(i); else create(i);
	}
	for (long i = 0; i < nfiles; i++)
		if (present[i]) delete(i);
	if (rmdir(dir)) die("rmdir", -1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	long ops = done[0] + done[1] + done[2] + done[3];
	printf("%ld creates, %ld deletes, %ld reads, %ld appends in %.3f s: %.0f ops/s\n",
	       done[0], done[1], done[2], done[3], s, ops / s);
	return 0;
}
