/* SPDX-License-Identifier: MIT */
/*
 * --dump's files (ofs_dump.c): the profile and its companions, each
 * written whole or not at all.
 */
#ifndef OSPROF_FS_OFS_DUMP_H
#define OSPROF_FS_OFS_DUMP_H

#include <stdio.h>
#include <sys/types.h>

#include "osprof/profile.h"

struct ofs;

/* Write @p as JSON to @path through a temporary file renamed over it:
 * never a torn file. 0 or -errno. */
int ofs_dump_write(const char *path, const struct osp_profile *p);
/* The same with what @write writes of @ctx, a new file of @mode (less the
 * umask): 0 or -errno. */
int ofs_dump_to(const char *path, mode_t mode, int (*write)(FILE *f, const void *ctx),
		const void *ctx);
/* --dump: what @write writes of @ctx as FILE.@name.json beside --dump's
 * FILE, of @mode (OFS_DUMP_NAMES for what names files, processes or
 * users), a failure said on stderr. 0 or -errno. */
int ofs_dump_beside(struct ofs *fs, const char *name, mode_t mode,
		    int (*write)(FILE *f, const void *ctx), const void *ctx);
/* The mode of the dumps that name files, processes or users; others 0644. */
#define OFS_DUMP_NAMES 0600

#endif /* OSPROF_FS_OFS_DUMP_H */
