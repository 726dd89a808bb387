/* SPDX-License-Identifier: MIT */
/*
 * The daemon's profiles (ofs_profile.c): every profile it serves or dumps
 * carries this mount's metadata (host, source, clock, options); the
 * timelines of all its layers start and stop together.
 */
#ifndef OSPROF_FS_OFS_PROFILE_H
#define OSPROF_FS_OFS_PROFILE_H

#include "osprof/profile.h"
#include "osprof/set.h"
#include "ofs.h"

/*
 * ofs_profile_build - the current fs-layer profile with every piece of
 * metadata (host, source, clock, options). NULL on -ENOMEM.
 */
struct osp_profile *ofs_profile_build(struct ofs *fs);
/* The same of any of the daemon's sets @set, as layer @layer. */
struct osp_profile *ofs_set_profile(struct ofs *fs, struct osp_set *set, const char *layer);
/* Drop @p's operations that saw no request. */
void ofs_profile_drop_empty(struct osp_profile *p);

/*
 * ofs_profile_set_source - name this mount in @p: its host, and as its
 * source the mount, the lower directory and the daemon's pid; every
 * profile the daemon serves (its own layer, the module's) carries the
 * same. 0 or -ENOMEM.
 */
static inline int ofs_profile_set_source(const struct ofs *fs, struct osp_profile *p)
{
	int err = osp_str_set(&p->host, fs->host);

	err = err ? err : osp_kv_set_str(&p->source, "mount", fs->opts.mount_abs);
	err = err ? err : osp_kv_set_str(&p->source, "lower", fs->opts.lower_abs);
	return err ? err : osp_kv_set_u64(&p->source, "pid", (uint64_t)getpid());
}

/*
 * ofs_timeline_start - the timeline of every layer this mount keeps: the
 * totals', the eBPF layers', the daemon-timed lower layer's and -o by's
 * values'. Replaces a running one. 0 or -errno.
 */
int ofs_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity);
void ofs_timeline_stop(struct ofs *fs);

#endif /* OSPROF_FS_OFS_PROFILE_H */
