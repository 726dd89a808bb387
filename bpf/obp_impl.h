/* SPDX-License-Identifier: MIT */
/* What the loader's files share (not for users of obp.h). */
#ifndef OBP_IMPL_H
#define OBP_IMPL_H

#include <linux/types.h>
#include <sys/types.h>

#include "osprof/clock.h"
#include "obp.h"
#include "obp_abi.h"

/* What obp.c keeps of a loaded BPF object. */
struct obp_object {
	void *skel;      /* the loader's skeleton; NULL: not loaded */
	int hists_fd;    /* its histogram map */
	int stats_fd;    /* its stats map */
	int slot_of_fd;  /* syscall's and lower's histograms by index */
	int slot_hists_fd; /* (obp_abi.h); -1 for other objects */
	unsigned nslots; /* slot_hists' entries */
	const __u32 *slots_used; /* how many the programs handed out (mapped) */
	__u32 *enabled;  /* its programs' recording switch, in mmapped
			  * data (obp_common.bpf.h's obp_enabled) */
	struct bpf_object *bobj; /* its programs, for their missed runs;
				  * NULL for a light skeleton's */
};

/* Fill *@o from skeleton @s, once attached: every object has the
 * histogram and stats maps and the switch of obp_common.bpf.h. */
#define OBP_OBJECT_SET(o, s)                                         \
	(*(o) = (struct obp_object){                                 \
		.skel = (s),                                         \
		.hists_fd = bpf_map__fd((s)->maps.hists),            \
		.stats_fd = bpf_map__fd((s)->maps.stats),            \
		.slot_of_fd = -1,                                    \
		.slot_hists_fd = -1,                                 \
		.enabled = &(s)->data->obp_enabled,                  \
		.bobj = (s)->obj,                                    \
	})

/*
 * One BPF object's loader (obp_<name>.c beside obp_<name>.bpf.c): the
 * layers its object holds, and how it opens and closes. obp.c's table
 * lists the loaders in the order they open; a later one may use what an
 * earlier one set in struct obp (fuse reuses syscall's pids maps).
 */
struct obp_loader {
	unsigned layers;        /* OBP_LAYER_BIT()s of the object */
	unsigned kinds[OBP_L__COUNT]; /* each layer's key kind (enum obp_kind);
				 * 0: its maps hold only the layer's, of
				 * several kinds */
	const char *what;       /* its name in reasons: "fuse layer" */
	/*
	 * Open, load and attach the object for layers @want (of ->layers):
	 * *@out set (OBP_OBJECT_SET) once it is attached, then 0 or -errno of
	 * a step after it (the object stays, with the reason); -errno with
	 * *@out untouched when it did not load.
	 */
	int (*open)(struct obp *b, unsigned want, struct obp_object *out);
	/* Detach and free a loaded object's skeleton. */
	void (*close)(struct obp *b, void *skel);
	/* Optional: true when the object is needed though none of its layers
	 * was asked for (fuse's callers make syscall's workload); it then
	 * opens with @want 0 and serves no layer. */
	bool (*needed)(const struct obp *b);
};

extern const struct obp_loader obp_sys_loader;
extern const struct obp_loader obp_fuse_loader;
extern const struct obp_loader obp_block_loader;
extern const struct obp_loader obp_irq_loader;

struct obp_sys_skel;

struct obp {
	struct obp_opts opts;
	unsigned layers;            /* loaded: OBP_LAYER_BIT()s */
	char why[OBP_L__COUNT][200]; /* why a wanted layer did not load */
	struct obp_object obj[OBP_L__COUNT]; /* by row of obp.c's loaders */
	int pids_fd;                /* syscall's bitmap of traced processes, which
				     * fuse shares (obp_pids.bpf.h); -1: none */
	uint64_t *pid_bits;         /* the same, mapped; NULL: none */
	const struct obp_sys_skel *sys_skel; /* which of obp_sys.c's skeletons
				     * syscall's object is; NULL: none */
	__u32 *sys_daemon;          /* the daemon's tgid in syscall's data and */
	__u32 *fuse_daemon;         /* in fuse's (mapped); NULL: not loaded */
	unsigned pmc_n;             /* irq: events opened, 0 .. pmc_n - 1 */
	const char *pmc_names[OBP_PMC_MAX]; /* their counter names */
	int pmc_ncpu;               /* CPUs in pmc_fds */
	int *pmc_fds;               /* [cpu * OBP_PMC_MAX + event], -1: none */
	char pmc_why[200];          /* why counters (or some) are missing */
	uint64_t start_unix_ns;     /* when recording began (open, reset) */
	uint64_t start_mono_ns;
};

/* True when syscall's object is the light skeleton (obp_sys.c). */
bool obp_sys_light(const struct obp *b);

/* The skeleton @ld loaded into @b, or NULL. */
void *obp_object(const struct obp *b, const struct obp_loader *ld);


/* The object that holds layer @l (its maps), and the kind of the
 * layer's keys (0: its maps hold only the layer's, of several kinds): 0
 * or -ENOENT when it is not loaded. */
int obp_layer_maps(struct obp *b, enum obp_layer l, const struct obp_object **obj,
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
