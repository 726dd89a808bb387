/* SPDX-License-Identifier: MIT */
/* The top view, -o top (ofs_top.c; its key maps are ofs_keys.h's). */
#ifndef OSPROF_FS_OFS_TOP_H
#define OSPROF_FS_OFS_TOP_H

#include <stdio.h>
#include "ofs.h"

#define OFS_TOP_MAX 65536u
/* -o top: the tables, -o top_max entries each. 0, -ENOMEM. */
int ofs_top_new(struct ofs *fs);
void ofs_top_free(struct ofs *fs);
/*
 * ofs_top_record - count @r (@lat_ns) for its file (r->ino) and its
 * process (r->pid): lock-free, no allocation; a key's first request also
 * names it (path, or process name), before its reply leaves.
 */
void ofs_top_record(struct ofs_req *r, uint64_t lat_ns);
void ofs_top_reset(struct ofs *fs);
/* .osprof/top and top.json (@arg "text" or "json"). 0 or -errno. */
int ofs_top_gen(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.top.json beside FILE, with -o top. 0 or -errno (said). */
int ofs_top_dump(struct ofs *fs);

#endif /* OSPROF_FS_OFS_TOP_H */
