/* SPDX-License-Identifier: MIT */
/* Value profiles, -o values (ofs_values.c). */
#ifndef OSPROF_FS_OFS_VALUES_H
#define OSPROF_FS_OFS_VALUES_H

#include <stdio.h>
#include "ofs.h"

/* With -o values, allocate the tables (fs->values): 0 or -ENOMEM. */
int ofs_values_new(struct ofs *fs);
/* Free them; harmless without. */
void ofs_values_free(struct ofs *fs);
/*
 * ofs_values_record - count closed request @r of latency @lat_ns in the
 * value tables of its operation (read, write, readdir, readdirplus; the
 * others have none). Only with fs->values. Lock-free, allocates nothing.
 */
void ofs_values_record(const struct ofs_req *r, uint64_t lat_ns);
/* ctl's reset; harmless without. */
void ofs_values_reset(struct ofs *fs);
/* The control files: present with -o values; text and JSON. 0 or -errno. */
bool ofs_values_present(struct ofs *fs, const char *arg);
int ofs_values_gen_text(struct ofs *fs, const char *arg, FILE *out);
int ofs_values_gen_json(struct ofs *fs, const char *arg, FILE *out);
/* --dump: FILE.values.json beside FILE, with -o values. 0 or -errno (said). */
int ofs_values_dump(struct ofs *fs);

#endif /* OSPROF_FS_OFS_VALUES_H */
