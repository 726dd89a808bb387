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

/* Keep libbpf's messages instead of printing them (OSPROF_BPF_DEBUG=1
 * prints them): call before opening an object. */
void obp_libbpf_quiet(void);
/* Why a load or attach of @what failed with @err, said for people in one
 * line into @msg (the last libbpf message kept, or the missing rights). */
void obp_why_msg(char *msg, size_t len, const char *what, int err);

#endif /* OBP_IMPL_H */
