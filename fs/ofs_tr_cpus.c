// SPDX-License-Identifier: MIT
/*
 * The CPU lists of /sys/devices/system/cpu/ (possible, online), for the
 * rings (ofs_tr_cpus.h): how many FUSE queues the kernel has, and which
 * of them can receive a request now.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "ofs_tr_cpus.h"

#define CPU_LIST_DIR "/sys/devices/system/cpu/"

int ofs_tr_cpus_parse(const char *list, bool *in, unsigned n)
{
	const char *s = list;
	unsigned count = 0;
	long prev = -1; /* the last range's end: the kernel's are ascending */

	if (in)
		for (unsigned c = 0; c < n; c++)
			in[c] = false;
	while (*s && *s != '\n') {
		unsigned long lo, hi;
		char *end;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -EINVAL;
			hi = strtoul(s, &end, 10);
		}
		/* Overlapping or out of order is no list the kernel writes. */
		if (hi < lo || hi >= 1u << 20 || (long)lo <= prev)
			return -EINVAL;
		prev = (long)hi;
		for (unsigned long c = lo; in && c <= hi && c < n; c++)
			in[c] = true;
		count += (unsigned)(hi - lo + 1);
		s = end;
		if (*s == ',' && s[1] >= '0' && s[1] <= '9')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return count ? (int)count : -EINVAL;
}

/* The list in CPU_LIST_DIR @name, into @buf: false when unreadable. */
static bool read_list(const char *name, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), CPU_LIST_DIR "%s", name);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	return ok;
}

unsigned ofs_tr_cpus_online(bool *online, unsigned n)
{
	char buf[4096];
	unsigned count = 0;

	if (!read_list("online", buf, sizeof(buf)) || ofs_tr_cpus_parse(buf, online, n) < 0)
		for (unsigned c = 0; c < n; c++)
			online[c] = true;
	for (unsigned c = 0; c < n; c++)
		count += online[c];
	return count;
}

unsigned ofs_tr_cpus_possible(unsigned fallback)
{
	char buf[4096];
	int n;

	if (!read_list("possible", buf, sizeof(buf)))
		return fallback;
	n = ofs_tr_cpus_parse(buf, NULL, 0);
	return n > 0 ? (unsigned)n : fallback;
}
