// SPDX-License-Identifier: MIT
/*
 * The generator of labelled synthetic profile pairs (see orp_bench_gen.h).
 * The sizes of the changes are chosen to be plain on OSprof's log-scale
 * plots: shifts of one to three powers of two, peaks of 10% or more of the
 * requests appearing or vanishing, 15% or more of the requests moving from
 * one path to another. Smaller changes are not "wrong" to miss; they are
 * not in the benchmark.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "orp_bench_gen.h"
#include "osprof/analysis.h"
#include "osprof/parse.h"

static const char *const kind_names[] = {
	[ORP_GEN_SAME] = "same",
	[ORP_GEN_JITTER] = "jitter",
	[ORP_GEN_SHIFT] = "shift",
	[ORP_GEN_ADD] = "add",
	[ORP_GEN_REMOVE] = "remove",
	[ORP_GEN_REWEIGHT] = "reweight",
	[ORP_GEN_COUNT] = "count",
	[ORP_GEN_LATENCY] = "latency",
};
_Static_assert(sizeof(kind_names) / sizeof(kind_names[0]) == ORP_GEN__COUNT,
	       "a name for every kind");

const char *orp_gen_kind_name(enum orp_gen_kind k)
{
	return (unsigned)k < ORP_GEN__COUNT ? kind_names[k] : "?";
}

bool orp_gen_kind_same(enum orp_gen_kind k)
{
	return k == ORP_GEN_SAME || k == ORP_GEN_JITTER;
}

static double uniform(gsl_rng *rng, double lo, double hi)
{
	return lo + (hi - lo) * gsl_rng_uniform(rng);
}

static void normalise(struct orp_mixture *m)
{
	double s = 0.0;

	for (int k = 0; k < m->n; k++)
		s += m->weight[k];
	for (int k = 0; k < m->n; k++)
		m->weight[k] /= s;
}

void orp_gen_mixture(gsl_rng *rng, int min_peaks, struct orp_mixture *m)
{
	memset(m, 0, sizeof(*m));
	m->n = min_peaks + (int)gsl_rng_uniform_int(rng, (unsigned long)(3 - min_peaks + 1));
	for (int k = 0; k < m->n; k++) {
		/* From a cache hit (256 ns..4 us) up, 3..8 octaves between paths. */
		m->centre[k] = k == 0 ? uniform(rng, 8, 12)
				      : m->centre[k - 1] + uniform(rng, 3, 8);
		m->sigma[k] = uniform(rng, 0.2, 0.6);
		/* Weights 1..3 before normalising: every path >= 1/7 of requests. */
		m->weight[k] = uniform(rng, 1, 3);
	}
	normalise(m);
}

static int heaviest(const struct orp_mixture *m)
{
	int best = 0;

	for (int k = 1; k < m->n; k++)
		if (m->weight[k] > m->weight[best])
			best = k;
	return best;
}

static void shift_peak(gsl_rng *rng, struct orp_mixture *b)
{
	int k;

	/* A path that matters: a peak holding a quarter or more. */
	do
		k = (int)gsl_rng_uniform_int(rng, (unsigned long)b->n);
	while (b->weight[k] < 0.25);
	b->centre[k] += (gsl_rng_uniform(rng) < 0.5 ? -1 : 1) * uniform(rng, 1, 3);
}

static void add_peak(gsl_rng *rng, struct orp_mixture *b)
{
	double w = uniform(rng, 0.1, 0.4), c = 0.0;
	bool clear = false;

	/* Somewhere 3 or more octaves from every existing path. */
	for (int tries = 0; tries < 1000 && !clear; tries++) {
		c = uniform(rng, 6, 30);
		clear = true;
		for (int k = 0; k < b->n; k++)
			clear &= fabs(c - b->centre[k]) >= 3.0;
	}
	for (int k = 0; k < b->n; k++)
		b->weight[k] *= 1.0 - w;
	b->centre[b->n] = c;
	b->sigma[b->n] = uniform(rng, 0.2, 0.6);
	b->weight[b->n] = w;
	b->n++;
}

static void remove_peak(gsl_rng *rng, struct orp_mixture *b)
{
	int k = (int)gsl_rng_uniform_int(rng, (unsigned long)b->n);

	for (int j = k; j + 1 < b->n; j++) {
		b->centre[j] = b->centre[j + 1];
		b->sigma[j] = b->sigma[j + 1];
		b->weight[j] = b->weight[j + 1];
	}
	b->n--;
	normalise(b);
}

static void reweight(gsl_rng *rng, struct orp_mixture *b)
{
	int from = heaviest(b), to;
	double d;

	do
		to = (int)gsl_rng_uniform_int(rng, (unsigned long)b->n);
	while (to == from);
	/* The heaviest holds >= 1/3: 15% can always move, leaving 5%. */
	d = fmin(uniform(rng, 0.15, 0.35), b->weight[from] - 0.05);
	b->weight[from] -= d;
	b->weight[to] += d;
}

/* The slowest path (where most of the time goes) a little faster or slower. */
static void move_slowest(gsl_rng *rng, struct orp_mixture *b)
{
	int k = b->n - 1; /* centres ascend */

	b->centre[k] += (gsl_rng_uniform(rng) < 0.5 ? -1 : 1) * uniform(rng, 0.5, 1);
}

/* What two runs of one workload differ by: not a change of behaviour. */
static void jitter(gsl_rng *rng, struct orp_mixture *b)
{
	for (int k = 0; k < b->n; k++)
		b->centre[k] += uniform(rng, -0.1, 0.1);
	if (b->n > 1) {
		/* A neighbouring path: the next faster or slower one. */
		int from = heaviest(b), to = from + 1 < b->n ? from + 1 : from - 1;
		double d = uniform(rng, 0, 0.015);

		b->weight[from] -= d;
		b->weight[to] += d;
	}
}

void orp_gen_change(gsl_rng *rng, const struct orp_mixture *a,
		    enum orp_gen_kind kind, struct orp_mixture *b)
{
	*b = *a;
	switch (kind) {
	case ORP_GEN_JITTER:
		jitter(rng, b);
		break;
	case ORP_GEN_SHIFT:
		shift_peak(rng, b);
		break;
	case ORP_GEN_ADD:
		if (b->n < ORP_GEN_PEAKS_MAX)
			add_peak(rng, b);
		break;
	case ORP_GEN_REMOVE:
		if (b->n > 1)
			remove_peak(rng, b);
		break;
	case ORP_GEN_REWEIGHT:
		if (b->n > 1)
			reweight(rng, b);
		break;
	case ORP_GEN_LATENCY:
		move_slowest(rng, b);
		break;
	default:
		break;
	}
}

uint64_t orp_gen_value(gsl_rng *rng, const struct orp_mixture *m)
{
	double u = gsl_rng_uniform(rng), v;
	int k = 0;

	/* At most five peaks: a walk over the weights is as quick as a table. */
	while (k + 1 < m->n && u >= m->weight[k]) {
		u -= m->weight[k];
		k++;
	}
	v = exp2(m->centre[k] + m->sigma[k] * gsl_ran_gaussian(rng, 1.0));
	return v < 1.0 ? 1 : (uint64_t)llround(v);
}

int orp_gen_sample(gsl_rng *rng, const struct orp_mixture *m, unsigned long n,
		   struct osp_hist *h)
{
	int err = 0;

	for (unsigned long i = 0; !err && i < n; i++)
		err = osp_hist_record(h, orp_gen_value(rng, m));
	return err;
}

static struct osp_profile *sampled(gsl_rng *rng, const struct orp_mixture *m,
				   unsigned long n, unsigned res)
{
	struct osp_profile *p = osp_profile_new("fs", res);
	struct osp_op *op = p ? osp_profile_add_op(p, "op", false) : NULL;

	if (!op || orp_gen_sample(rng, m, n, &op->lat)) {
		osp_profile_free(p);
		return NULL;
	}
	p->elapsed_ns = op->lat.sum;
	return p;
}

/* The mixture's cumulative distribution at @x (log2 ns). */
static double mixture_cdf(const struct orp_mixture *m, double x)
{
	double f = 0.0;

	for (int k = 0; k < m->n; k++)
		f += m->weight[k] * gsl_cdf_ugaussian_P((x - m->centre[k]) / m->sigma[k]);
	return f;
}

/* The step of the EMD's integral, octaves: well under the 0.05 octave
 * the zones below leave between labels. */
#define TRUTH_STEP 0.01

double orp_gen_emd(const struct orp_mixture *a, const struct orp_mixture *b)
{
	double lo = INFINITY, hi = -INFINITY, emd = 0.0;

	for (int k = 0; k < a->n; k++) {
		lo = fmin(lo, a->centre[k] - 8 * a->sigma[k]);
		hi = fmax(hi, a->centre[k] + 8 * a->sigma[k]);
	}
	for (int k = 0; k < b->n; k++) {
		lo = fmin(lo, b->centre[k] - 8 * b->sigma[k]);
		hi = fmax(hi, b->centre[k] + 8 * b->sigma[k]);
	}
	for (double x = lo; x < hi; x += TRUTH_STEP)
		emd += fabs(mixture_cdf(a, x + TRUTH_STEP / 2) - mixture_cdf(b, x + TRUTH_STEP / 2));
	return emd * TRUTH_STEP;
}

double orp_gen_mean(const struct orp_mixture *m)
{
	double mean = 0.0;

	/* A log-normal's mean: 2^c e^((sigma ln 2)^2 / 2). */
	for (int k = 0; k < m->n; k++)
		mean += m->weight[k] * exp2(m->centre[k]) *
			exp(0.5 * (m->sigma[k] * M_LN2) * (m->sigma[k] * M_LN2));
	return mean;
}

/*
 * Is B (with @count_ratio times A's requests) labelled as @kind should
 * be? A label is a claim about the distributions, not the samples, so it
 * is checked against compare's default thresholds (EMD 0.2 octave, total
 * latency 10%), with a margin either side: a pair labelled same stays
 * within 3/4 of every threshold, a change goes past 5/4 of one. Between
 * the two lies a grey zone where either verdict is fair (a wobble of 0.19
 * octave and a change of 0.21 differ by less than sampling noise can
 * tell at most sizes): the benchmark draws no pairs there.
 */
static bool labelled(enum orp_gen_kind kind, const struct orp_mixture *a,
		     const struct orp_mixture *b, double count_ratio)
{
	struct osp_cmp_opts o;
	double emd, total, t;

	osp_cmp_opts_default(&o, OSP_DIST_EMD);
	t = osp_dist_default_threshold(OSP_DIST_EMD);
	emd = orp_gen_emd(a, b);
	total = fabs(count_ratio * orp_gen_mean(b) / orp_gen_mean(a) - 1.0);
	if (orp_gen_kind_same(kind))
		return emd <= 0.75 * t && total <= 0.75 * o.latency_frac &&
		       fabs(count_ratio - 1.0) <= 0.75 * o.count_frac;
	return emd >= 1.25 * t || total >= 1.25 * o.latency_frac ||
	       fabs(count_ratio - 1.0) >= 1.25 * o.count_frac;
}

/* Draws before a pair's base mixture is drawn again. */
#define CHANGE_TRIES 20

int orp_gen_pair(gsl_rng *rng, enum orp_gen_kind kind, unsigned long size,
		 unsigned res, struct orp_pair *p)
{
	struct orp_mixture ma, mb;
	/* Removing or moving weight between paths needs two of them. */
	int min_peaks = kind == ORP_GEN_REMOVE || kind == ORP_GEN_REWEIGHT ? 2 : 1;
	double count_ratio = kind == ORP_GEN_COUNT ? 2.0 : 1.0;
	bool ok = false;

	memset(p, 0, sizeof(*p));
	while (!ok) {
		orp_gen_mixture(rng, min_peaks, &ma);
		for (int i = 0; !ok && i < CHANGE_TRIES; i++) {
			orp_gen_change(rng, &ma, kind, &mb);
			ok = labelled(kind, &ma, &mb, count_ratio);
		}
	}
	p->kind = kind;
	p->size = size;
	p->res = res;
	p->a = sampled(rng, &ma, size, res);
	p->b = sampled(rng, &mb, (unsigned long)llround(count_ratio * (double)size), res);
	if (!p->a || !p->b) {
		orp_pair_free(p);
		return -ENOMEM;
	}
	return 0;
}

void orp_pair_free(struct orp_pair *p)
{
	osp_profile_free(p->a);
	osp_profile_free(p->b);
	p->a = p->b = NULL;
}

static unsigned long bench_arg(const char *prog, const char *s, unsigned long max)
{
	uint64_t v;

	if (osp_parse_u64(s, 1, max, &v)) {
		fprintf(stderr, "%s: '%s': expected a number 1..%lu\n", prog, s, max);
		exit(2);
	}
	return (unsigned long)v;
}

void orp_bench_args(const char *prog, int argc, char **argv,
		    unsigned long max_pairs, unsigned long *npairs,
		    unsigned long *seed, bool *verbose)
{
	int nargs = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0)
			*verbose = true;
		else if (nargs++ == 0)
			*npairs = bench_arg(prog, argv[i], max_pairs);
		else
			*seed = bench_arg(prog, argv[i], 0xffffffffUL);
	}
}
