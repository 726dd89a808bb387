/* SPDX-License-Identifier: MIT */
/* What the loader's files share (not for users of obp.h). */
#ifndef OBP_IMPL_H
#define OBP_IMPL_H

#include <linux/types.h>

#include "osprof/clock.h"
#include "obp.h"
#include "obp_abi.h"

struct obp_fuse;
struct obp_sys;

struct obp {
	struct obp_opts opts;
	unsigned layers;            /* loaded: OBP_LAYER_BIT()s */
	char why[OBP_L__COUNT][200]; /* why a wanted layer did not load */
	struct obp_fuse *fuse;      /* layer fuse, or NULL */
	struct obp_sys *sys;        /* layers syscall and lower, or NULL */
	uint64_t start_unix_ns;     /* when recording began (open, reset) */
	uint64_t start_mono_ns;
};

/* Layer @l's histogram map and stats map, and the kind of its keys:
 * 0 or -ENOENT when it is not loaded. */
int obp_layer_maps(struct obp *b, enum obp_layer l, int *hists_fd, int *stats_fd,
		   unsigned *kind);

#endif /* OBP_IMPL_H */
