/* SPDX-License-Identifier: MIT */
/*
 * Labelled synthetic profile pairs for the accuracy benchmark. A latency
 * distribution is a mixture of log-normal peaks (execution paths), as in
 * OSprof's profiles; a pair samples A from one mixture and B either from
 * the same one or a slightly wobbled one (label: same: sampling noise and
 * the drift two runs of one workload show) or from a changed one (label:
 * different): a peak shifted, added, removed or reweighted, twice the
 * requests, or the slowest peak nudged, by amounts a person reading the
 * log-scale plot would call a change. Every label is checked against the
 * distributions themselves (orp_gen_pair). Sampling uses GSL's random
 * number generators, seeded, so every run sees the same pairs.
 */
#ifndef ORP_BENCH_GEN_H
#define ORP_BENCH_GEN_H

#include <gsl/gsl_rng.h>
#include <stdbool.h>

#include "osprof/profile.h"

#define ORP_GEN_PEAKS_MAX 5

enum orp_gen_kind {
	ORP_GEN_SAME,      /* B from A's distribution */
	ORP_GEN_JITTER,    /* run-to-run wobble, labelled same: centres
			    * +-0.1 octave, up to 1.5% of requests moved to
			    * a neighbouring path */
	ORP_GEN_SHIFT,     /* one peak moved 1..3 octaves */
	ORP_GEN_ADD,       /* a new peak of 10..40% of requests */
	ORP_GEN_REMOVE,    /* a peak of 10% or more gone */
	ORP_GEN_REWEIGHT,  /* 15..35% of requests moved between two peaks */
	ORP_GEN_COUNT,     /* twice the requests, the same distribution */
	ORP_GEN_LATENCY,   /* the same count, the slowest peak (most of the
			    * time) moved 0.5..1 octave: total latency changes
			    * while the shape barely does */
	ORP_GEN__COUNT
};

const char *orp_gen_kind_name(enum orp_gen_kind k);

/* A mixture of log-normal peaks, in log2 ns. */
struct orp_mixture {
	int n;
	double centre[ORP_GEN_PEAKS_MAX]; /* log2 of the median latency, ns */
	double sigma[ORP_GEN_PEAKS_MAX];  /* spread, octaves */
	double weight[ORP_GEN_PEAKS_MAX]; /* sums to 1 */
};

/* A random base mixture of @min_peaks..3 peaks, 3..8 octaves apart. */
void orp_gen_mixture(gsl_rng *rng, int min_peaks, struct orp_mixture *m);
/* @b becomes @a changed as @kind says (ORP_GEN_SAME: a copy). */
void orp_gen_change(gsl_rng *rng, const struct orp_mixture *a,
		    enum orp_gen_kind kind, struct orp_mixture *b);
/* The Earth Mover's Distance between @a and @b themselves (not samples
 * of them), in octaves. */
double orp_gen_emd(const struct orp_mixture *a, const struct orp_mixture *b);
/* The mean latency of @m, ns. */
double orp_gen_mean(const struct orp_mixture *m);
/* One latency (ns) drawn from @m. */
uint64_t orp_gen_value(gsl_rng *rng, const struct orp_mixture *m);
/* Record @n requests drawn from @m into @h: 0 or -ENOMEM. */
int orp_gen_sample(gsl_rng *rng, const struct orp_mixture *m, unsigned long n,
		   struct osp_hist *h);

/* One labelled pair: single-operation profiles A and B. */
struct orp_pair {
	enum orp_gen_kind kind;
	unsigned long size;
	unsigned res;
	struct osp_profile *a, *b;
};

/* True for the kinds labelled "same". */
bool orp_gen_kind_same(enum orp_gen_kind k);

/* Make pair @p of @kind with @size requests a side at resolution @res:
 * 0 or -ENOMEM. The mixtures are drawn again until the pair deserves its
 * label against compare's default thresholds, with a margin (see
 * orp_bench_gen.c): labelled same, within 3/4 of each; labelled
 * different, past 5/4 of one. */
int orp_gen_pair(gsl_rng *rng, enum orp_gen_kind kind, unsigned long size,
		 unsigned res, struct orp_pair *p);
void orp_pair_free(struct orp_pair *p);

/*
 * The benchmarks' command line, [PAIRS [SEED]] [-v], of @prog: PAIRS
 * 1..@max_pairs into *@npairs, SEED into *@seed, -v sets *@verbose (each
 * left as it is when not given). Exits with status 2, saying why, on a
 * bad number.
 */
void orp_bench_args(const char *prog, int argc, char **argv,
		    unsigned long max_pairs, unsigned long *npairs,
		    unsigned long *seed, bool *verbose);

#endif /* ORP_BENCH_GEN_H */
