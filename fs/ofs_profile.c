// SPDX-License-Identifier: MIT
/*
 * The daemon's profiles: each carries this mount's host and source, the
 * clock that timed it and the settings that shaped it, whether served in
 * the control directory or dumped; and the timelines of all the layers a
 * mount keeps start and stop together.
 */
#include <errno.h>
#include <stdlib.h>

#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_by.h"
#include "ofs_opts.h"
#include "ofs_profile.h"

/* Layer @layer from the daemon's profile set @set, with this mount's
 * source, clock and options; NULL on -ENOMEM. */
struct osp_profile *ofs_set_profile(struct ofs *fs, struct osp_set *set, const char *layer)
{
	struct osp_profile *p = osp_profile_new(layer, fs->opts.res);
	int err;

	if (!p)
		return NULL;
	err = osp_set_snapshot(set, p);
	err = err ? err : ofs_profile_set_source(fs, p);
	err = err ? err : osp_str_set(&p->clock_source, osp_clock_source_name(fs->clk.source));
	p->cycles_per_ns = fs->clk.cycles_per_ns;
	err = err ? err : ofs_opts_describe(fs, p);
	if (err) {
		osp_profile_free(p);
		return NULL;
	}
	return p;
}

struct osp_profile *ofs_profile_build(struct ofs *fs)
{
	return ofs_set_profile(fs, fs->set, OSP_LAYER_FS);
}

void ofs_profile_drop_empty(struct osp_profile *p)
{
	size_t k = 0;

	for (size_t i = 0; i < p->nops; i++) {
		if (p->ops[i].lat.count || p->ops[i].lat.nbk)
			p->ops[k++] = p->ops[i];
		else
			osp_op_fini(&p->ops[i]);
	}
	p->nops = k;
}

int ofs_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity)
{
	int err = osp_set_timeline_start(fs->set, interval_ns, capacity);

	err = err ? err : ofs_bpf_timeline_start(fs, interval_ns, capacity);
	err = err ? err : ofs_by_timeline_start(fs, interval_ns, capacity);
	if (err)
		ofs_timeline_stop(fs);
	return err;
}

void ofs_timeline_stop(struct ofs *fs)
{
	osp_set_timeline_stop(fs->set);
	ofs_bpf_timeline_stop(fs);
	ofs_by_timeline_stop(fs);
}
