/* SPDX-License-Identifier: MIT */
/*
 * The top view, -o top or ctl's `top on` (ofs_top.c; its key maps are
 * ofs_keys.h's).
 */
#ifndef OSPROF_FS_OFS_TOP_H
#define OSPROF_FS_OFS_TOP_H

#include <stdio.h>
#include "ofs.h"

#define OFS_TOP_MAX 65536u
/* -o top: the tables, -o top_max entries each, recording. 0, -ENOMEM. */
int ofs_top_new(struct ofs *fs);
/* At teardown, when no request runs any more. */
void ofs_top_free(struct ofs *fs);
/*
 * ofs_top_prepare - the tables for ctl's `top on`, allocated if there are
 * none yet and published with recording off: nothing seen changes. 0, or
 * -ENOMEM (and nothing allocated). For ctl's thread, under its lock.
 */
int ofs_top_prepare(struct ofs *fs);
/*
 * ofs_top_set - recording on or off (ctl's `top on|off`); on needs the
 * tables (ofs_top_prepare). Off keeps them and their counts, as `disable`
 * keeps the profile's: hidden until on again; reset zeroes them. For
 * ctl's thread, under its lock; requests may record meanwhile.
 */
void ofs_top_set(struct ofs *fs, bool on);
/* Whether top records now (ctl's `top on|off` line). Any thread. */
bool ofs_top_on(struct ofs *fs);
/*
 * ofs_top_record - count @r (@lat_ns) for its file (r->ino) and its
 * process (r->pid) when top records: lock-free, no allocation; a key's
 * first request also names it (path, or process name), before its reply
 * leaves.
 */
void ofs_top_record(struct ofs_req *r, uint64_t lat_ns);
void ofs_top_reset(struct ofs *fs);
/* .osprof/top and top.json (@arg "text" or "json"). 0 or -errno. */
int ofs_top_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.top.json beside FILE, when top records. 0 or -errno (said). */
int ofs_top_dump(struct ofs *fs);

#endif /* OSPROF_FS_OFS_TOP_H */
