// SPDX-License-Identifier: MIT
/*
 * A preloaded calloc for the fs tests (LD_PRELOAD): while the file that
 * OFS_TEST_NOMEM_FLAG names exists, a calloc of 64 KiB or more fails
 * with ENOMEM, as it would where memory has run out; otherwise it is
 * malloc and memset (libc's calloc is not reachable by name from here,
 * and the tests' daemon needs no speed). Only the daemon's own calls go
 * through it: libc's internal ones do not. test_slow.c switches top on
 * with it in place: its tables are the daemon's only callocs that big.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOMEM_MIN_BYTES (64u << 10)

void *calloc(size_t n, size_t size)
{
	const char *flag;
	size_t len;
	void *p;

	if (__builtin_mul_overflow(n, size, &len)) {
		errno = ENOMEM;
		return NULL;
	}
	flag = len >= NOMEM_MIN_BYTES ? getenv("OFS_TEST_NOMEM_FLAG") : NULL;
	if (flag && access(flag, F_OK) == 0) {
		errno = ENOMEM;
		return NULL;
	}
	p = malloc(len ? len : 1);
	if (p)
		memset(p, 0, len);
	return p;
}
