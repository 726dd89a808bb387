/* SPDX-License-Identifier: MIT */
/* The timing wrapper (ofs_prof.c): the ops table osprof-fs serves, each
 * handler opening a request's context and calling the passthrough. */
#ifndef OSPROF_FS_OFS_PROF_H
#define OSPROF_FS_OFS_PROF_H

#include "ofs.h"

extern const struct fuse_lowlevel_ops ofs_prof_ops;

#endif /* OSPROF_FS_OFS_PROF_H */
