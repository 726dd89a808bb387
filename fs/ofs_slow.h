/* SPDX-License-Identifier: MIT */
/* The slow-request log (ofs_slow.c). */
#ifndef OSPROF_FS_OFS_SLOW_H
#define OSPROF_FS_OFS_SLOW_H

#include <stdio.h>
#include "ofs.h"
#include "ofs_req.h"

#define OFS_SLOW_SIZE_MAX 65536u
#define OFS_SLOW_MAX_NS 3600000000000ull /* thresholds up to an hour (ctl's too) */
void ofs_slow_log(struct ofs_req *r, uint64_t lat_ns);
/*
 * ofs_slow_record - @r took @lat_ns: log it when it is at least the
 * threshold. Off, or fast, it costs one load and one predictable branch;
 * a slow request takes the wall clock, its process name and path, and the
 * log's mutex (only slow requests do), before its reply leaves.
 */
static inline void ofs_slow_record(struct ofs_req *r, uint64_t lat_ns)
{
	if (__builtin_expect(lat_ns >= __atomic_load_n(&r->fs->slow_ns, __ATOMIC_RELAXED), 0))
		ofs_slow_log(r, lat_ns);
}
/*
 * ofs_slow_set - log requests of at least @ns from now (UINT64_MAX: off),
 * making the log (-o slow_size entries) on first use. Serialised by the
 * caller (start-up, or ctl's mutex). 0 or -ENOMEM.
 */
int ofs_slow_set(struct ofs *fs, uint64_t ns);
/* Empty the log and its dropped count (ctl's reset); NULL-safe. */
void ofs_slow_reset(struct ofs *fs);
/* Entries dropped (overwritten when full) since the last reset. */
uint64_t ofs_slow_dropped(struct ofs *fs);
/* .osprof/slow and slow.json (@arg "text" or "json"). 0 or -errno. */
int ofs_slow_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.slow.json beside FILE, when the log exists. 0 or -errno (said). */
int ofs_slow_dump(struct ofs *fs);
void ofs_slow_free(struct ofs *fs);

#endif /* OSPROF_FS_OFS_SLOW_H */
