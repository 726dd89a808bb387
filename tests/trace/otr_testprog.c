// SPDX-License-Identifier: MIT
/*
 * The workload of osprof-trace's tests, with calls counted exactly:
 *   otr_testprog STATUS K [FILE N M]...
 * opens each FILE and makes N preads and M fstats on it, then sleeps K
 * times 2 ms (nanosleep), and exits with STATUS. Every number is checked:
 * a bad argument exits 100, so a test never counts a half-run.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "osprof/parse.h"

static int num(const char *s, uint64_t max, uint64_t *out)
{
	if (osp_parse_u64(s, 0, max, out) == 0)
		return 0;
	fprintf(stderr, "otr_testprog: '%s': not a number\n", s);
	return -1;
}

int main(int argc, char **argv)
{
	struct timespec two_ms = { 0, 2000000 };
	uint64_t status, k, n, m;
	char buf[64];
	struct stat st;

	if (argc < 3 || (argc - 3) % 3 || num(argv[1], 255, &status) || num(argv[2], 1000000, &k)) {
		fprintf(stderr, "usage: otr_testprog STATUS K [FILE N M]...\n");
		return 100;
	}
	for (int a = 3; a < argc; a += 3) {
		int fd = open(argv[a], O_RDONLY);

		if (fd < 0 || num(argv[a + 1], 100000000, &n) || num(argv[a + 2], 100000000, &m)) {
			perror(argv[a]);
			return 100;
		}
		for (uint64_t i = 0; i < n; i++)
			if (pread(fd, buf, 1, 0) != 1)
				return 100;
		for (uint64_t i = 0; i < m; i++)
			if (fstat(fd, &st) != 0)
				return 100;
		close(fd);
	}
	for (uint64_t i = 0; i < k; i++)
		if (nanosleep(&two_ms, NULL) != 0)
			return 100;
	return (int)status;
}
