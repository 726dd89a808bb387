/* SPDX-License-Identifier: MIT */
/*
 * osprof-fs's profiles per key value (-o by=KEY), as osprof-report reads
 * them (orp_by.c): the "osprof-by" document of .osprof/by.json and of
 * --dump's FILE.by.json. On its own (core only) for its fuzzer.
 */
#ifndef ORP_BY_H
#define ORP_BY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "osprof/profile.h"

#define ORP_BY_ERRLEN 1024

/* One value of the key, or `other`. */
struct orp_by_value {
	char *value;              /* "1234", "grep", "/src", ...; "other" */
	char *label;              /* by=pid: the process name; else NULL */
	uint64_t requests;        /* worked out from the profile */
	uint64_t total_ns;
	struct osp_profile *p;    /* its requests (operations it had) */
};

struct orp_by {
	char *key;                /* pid, comm, uid, dir, file */
	uint64_t max_values;
	uint64_t folded_requests; /* as the file says */
	uint64_t refused_values;  /* distinct values folded into other */
	bool refused_more;        /* ... at least that many */
	uint64_t comm_collisions;
	size_t n;
	struct orp_by_value *v;   /* most total time first */
	struct orp_by_value other;
};

/*
 * orp_by_parse - read the document of @len bytes at @text into @b.
 * 0, or -EINVAL / -ENOMEM with a one-line reason in @err naming where
 * (@b then holds nothing). Free @b with orp_by_free.
 */
int orp_by_parse(const char *text, size_t len, struct orp_by *b, char *err, size_t errlen);
/*
 * orp_by_load - the same from @spec: a file, "-" (stdin), a mount
 * (MOUNT/.osprof/by.json) or a directory holding by.json. The reason
 * names the file.
 */
int orp_by_load(const char *spec, struct orp_by *b, char *err, size_t errlen);
/* Free what @b holds; @b is left empty. */
void orp_by_free(struct orp_by *b);

#endif
