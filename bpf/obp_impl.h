/* SPDX-License-Identifier: MIT */
/* What the loader's files share (not for users of obp.h). */
#ifndef OBP_IMPL_H
#define OBP_IMPL_H

#include <linux/types.h>

#include "osprof/clock.h"
#include "obp.h"
#include "obp_abi.h"

struct obp_fuse_bpf;
struct obp_sys_bpf;
struct obp_block_bpf;
struct obp_irq_bpf;

struct obp {
	struct obp_opts opts;
	unsigned layers;            /* loaded: OBP_LAYER_BIT()s */
	char why[OBP_L__COUNT][200]; /* why a wanted layer did not load */
	struct obp_fuse_bpf *fuse;  /* layer fuse, or NULL */
	struct obp_sys_bpf *sys;    /* layers syscall and lower, or NULL */
	struct obp_block_bpf *block; /* layer block, or NULL */
	struct obp_irq_bpf *irq;    /* layer irq, or NULL */
	unsigned pmc_n;             /* irq: events opened, 0 .. pmc_n - 1 */
	const char *pmc_names[OBP_PMC_MAX]; /* their counter names */
	int pmc_ncpu;               /* CPUs in pmc_fds */
	int *pmc_fds;               /* [cpu * OBP_PMC_MAX + event], -1: none */
	char pmc_why[200];          /* why counters (or some) are missing */
	uint64_t start_unix_ns;     /* when recording began (open, reset) */
	uint64_t start_mono_ns;
};

/* Layer @l's histogram map and stats map, and the kind of its keys (0:
 * the map holds only the layer's, of several kinds): 0 or -ENOENT when
 * it is not loaded. */
int obp_layer_maps(struct obp *b, enum obp_layer l, int *hists_fd, int *stats_fd,
		   unsigned *kind);

/* Keep libbpf's messages instead of printing them (OSPROF_BPF_DEBUG=1
 * prints them): call before opening an object. */
void obp_libbpf_quiet(void);
/* Why a load or attach of @what failed with @err, said for people in one
 * line into @msg (the last libbpf message kept, or the missing rights). */
void obp_why_msg(char *msg, size_t len, const char *what, int err);

/* Layer irq's counter sums and handler names maps: 0 or -ENOENT when
 * it is not loaded. */
int obp_irq_maps(struct obp *b, int *sums_fd, int *names_fd);

/*
 * obp_pmc_open - open the per-CPU perf events that b->opts.irq_pmc asks
 * for on CPUs 0 .. @ncpu - 1 (offline ones skipped): each event that
 * opens on every online CPU is kept (b->pmc_n, pmc_names, pmc_fds); the
 * first failure's reason goes to b->pmc_why. 0, or -ENOMEM.
 */
int obp_pmc_open(struct obp *b, int ncpu);
/* Close what obp_pmc_open opened; again is harmless. */
void obp_pmc_close(struct obp *b);

#endif /* OBP_IMPL_H */
