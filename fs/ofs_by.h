/* SPDX-License-Identifier: MIT */
/* Profiles per key value, -o by=KEY (ofs_by.c). */
#ifndef OSPROF_FS_OFS_BY_H
#define OSPROF_FS_OFS_BY_H

#include <stdio.h>
#include "ofs.h"

/*
 * ofs_by_new - with -o by=, the per-value profile sets (preallocated:
 * recording never makes one) and the key map. 0, or -errno after a
 * one-line reason on stderr. Nothing without -o by.
 */
int ofs_by_new(struct ofs *fs);
/* Free them; NULL-safe. No thread may record any more. */
void ofs_by_free(struct ofs *fs);
/*
 * ofs_by_record - add request @r (@lat_ns, @cpu_ns) to its key value's
 * profile, or to `other` when the values are all taken. Only with -o by
 * (fs->by set); called by ofs_req_close. Lock-free; the first request of
 * a value takes its label (a process name or a path) once.
 */
void ofs_by_record(struct ofs_req *r, uint64_t lat_ns, uint64_t cpu_ns);
/* ctl's reset: every value's profile and other's zeroed; values kept. */
void ofs_by_reset(struct ofs *fs);
/* The control files' predicate: true with -o by. */
bool ofs_by_present(struct ofs *fs, const char *arg);
/* .osprof/by (@arg "text") and by.json (@arg "json"). 0 or -errno. */
int ofs_by_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump FILE: FILE.by.json beside it (by.json's content). 0 or -errno (said). */
int ofs_by_dump(struct ofs *fs);
/*
 * ofs_by_timeline_start - every value's set (and other's) keeps a
 * timeline of @capacity snapshots (cut to what an equal share of the
 * timeline's memory bound holds), all ticked every @interval_ns by one
 * thread. Replaces a running one. 0 or -errno; nothing without -o by.
 */
int ofs_by_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity);
void ofs_by_timeline_stop(struct ofs *fs);

#endif /* OSPROF_FS_OFS_BY_H */
