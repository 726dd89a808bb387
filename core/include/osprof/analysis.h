/* SPDX-License-Identifier: MIT */
/*
 * Analysis of latency profiles: distances between histograms, peak
 * finding, and OSprof's automated comparison of two profile sets (Joukov
 * et al., OSDI '06, section 3.2).
 *
 * Distances compare the *shapes* of two histograms: both are normalised
 * to sum 1 first, so a run twice as long is not "different". The
 * bin-by-bin measures (chi-square, Jeffrey divergence, Minkowski L1/L2,
 * intersection) follow Rubner et al., "The Earth Mover's Distance as a
 * Metric for Image Retrieval" (IJCV 2000); the 1-D Earth Mover's Distance
 * is the L1 distance between the cumulative distributions (Vallender
 * 1974), which is also the cost of moving requests between buckets. On
 * log2 buckets EMD is in octaves: moving every request one power of two
 * costs 1, whatever the resolution.
 *
 * The comparison works in OSprof's three steps: (1) set aside operations
 * whose share of requests and of latency is tiny in both sets, or whose
 * counts and totals are nearly equal with the same peaks; (2) find the
 * peaks of both and describe how they changed; (3) rate the difference
 * with the chosen method and rank. A difference counts only when it is
 * above the method's threshold *and* larger than sampling noise would
 * make it (the noise guard), so small profiles do not flood the report.
 * Shapes are not the whole story: an operation also differs when its
 * request count or its total latency changes by a set fraction (10%) and
 * by more than sampling noise (a conditional binomial test of the counts,
 * a z-test of the totals), so twice the requests with the same shape, or
 * a slow peak moved half an octave, is not called "similar".
 *
 * Everything here is pure computation on caller-owned data: no I/O, no
 * global state, safe to call from any thread on data no one is writing.
 */
#ifndef OSPROF_ANALYSIS_H
#define OSPROF_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "profile.h"

/* ---- distances between normalised histograms ---------------------------- */

/*
 * The functions below take two arrays @p and @q of @n non-negative values
 * that each sum to 1 (not checked: they compute the formula as given).
 */

/* EMD with a ground distance of 1 per bin: sum_i |P_i - Q_i|, P and Q the
 * cumulative sums. 0 .. n - 1. */
double osp_dist_emd(const double *p, const double *q, size_t n);
/* Chi-square distance 1/2 sum (p_i - q_i)^2 / (p_i + q_i), terms with
 * p_i + q_i = 0 skipped. 0 .. 1. */
double osp_dist_chi2(const double *p, const double *q, size_t n);
/* Jeffrey divergence sum p_i ln(p_i / m_i) + q_i ln(q_i / m_i) with
 * m_i = (p_i + q_i) / 2 and 0 ln 0 = 0 (natural log). 0 .. 2 ln 2. */
double osp_dist_jeffrey(const double *p, const double *q, size_t n);
/* Minkowski distance (sum |p_i - q_i|^order)^(1/order), order >= 1
 * (1: L1, 0 .. 2; 2: L2, 0 .. sqrt 2). */
double osp_dist_minkowski(const double *p, const double *q, size_t n,
			  double order);
/* Histogram intersection sum min(p_i, q_i): a *similarity*, 1 for equal
 * shapes, 0 for disjoint ones. */
double osp_dist_intersection(const double *p, const double *q, size_t n);

/* The comparison methods: histogram distances and OSprof's totals. */
enum osp_dist_method {
	OSP_DIST_EMD,       /* Earth Mover's Distance, in octaves */
	OSP_DIST_CHI2,      /* chi-square distance, 0..1 */
	OSP_DIST_JEFFREY,   /* Jeffrey divergence, 0..2 ln 2 */
	OSP_DIST_L1,        /* Minkowski L1, 0..2 */
	OSP_DIST_L2,        /* Minkowski L2, 0..sqrt 2 */
	OSP_DIST_INTERSECT, /* 1 - intersection, 0..1 */
	OSP_DIST_OPS,       /* |nA - nB| / max(nA, nB): total operations */
	OSP_DIST_LATENCY,   /* |sumA - sumB| / max(sumA, sumB): total latency */
	OSP_DIST__COUNT
};

/* "emd", "chi2", "jeffrey", "l1", "l2", "intersect", "ops", "latency". */
const char *osp_dist_method_name(enum osp_dist_method m);
/* Parse a method name; 0, or -EINVAL for an unknown name. */
int osp_dist_method_parse(const char *name, enum osp_dist_method *out);
/* The threshold osp_compare uses for @m when none is given (the score at
 * which a difference becomes interesting; calibrated by report/bench). */
double osp_dist_default_threshold(enum osp_dist_method m);

/*
 * osp_hist_normalise - write @h's buckets divided by their total into @p
 * (OSP_HIST_NBUCKETS(h->res) doubles). The bucket total is used, not h->count, so a
 * histogram failing its checksum still sums to 1.
 * Returns 0, or -EINVAL when the histogram is empty.
 */
int osp_hist_normalise(const struct osp_hist *h, double *p);

/*
 * osp_hist_distance - the distance between @a and @b by method @m (see
 * enum osp_dist_method for each range; EMD divided by the resolution so it
 * is in octaves). Returns 0 with *@out set; -EINVAL when the resolutions
 * differ, @m is unknown, or a shape method is given an empty histogram.
 * Allocates nothing.
 */
int osp_hist_distance(const struct osp_hist *a, const struct osp_hist *b,
		      enum osp_dist_method m, double *out);

/* ---- sampling noise ------------------------------------------------------ */

/*
 * osp_emd_noise - how large the EMD (octaves) between two independent
 * samples of these sizes would be by chance if both came from the pooled
 * distribution of @a and @b: sqrt(1/nA + 1/nB) sum_i sqrt(F_i (1 - F_i))
 * / res, F the pooled cumulative distribution. Each bucket boundary's
 * CDF difference has standard deviation sqrt(F(1-F)(1/nA + 1/nB)); their
 * sum is the standard deviation of the EMD if all moved together, an
 * upper bound (when one boundary dominates, the EMD by chance is |normal|
 * with this deviation, whose mean is sqrt(2/pi) = 0.8 of it).
 * Returns 0 when either histogram is empty or the resolutions differ.
 */
double osp_emd_noise(const struct osp_hist *a, const struct osp_hist *b);

/*
 * osp_emd_beyond_noise - the EMD (octaves) of @a and @b with each bucket
 * boundary's CDF difference shrunk by its standard deviation under the
 * null hypothesis (as in osp_emd_noise): sum_i max(0, |F_A,i - F_B,i| -
 * sd_i) / res. Noise only ever adds to an EMD; this is the part of it no
 * boundary's noise explains, at most the EMD itself, about 0.17 of
 * osp_emd_noise for two samples of one distribution, and d - sd_i where a
 * boundary truly differs by d >> sd_i. 0 when either is empty or the
 * resolutions differ.
 */
double osp_emd_beyond_noise(const struct osp_hist *a, const struct osp_hist *b);

/*
 * osp_chi2_test - the two-sample chi-square test of "same distribution"
 * (Numerical Recipes' chstwo, with the sqrt(N_B/N_A) factors for unequal
 * totals). Neighbouring sparse buckets are pooled until each pooled bin
 * holds at least 10 requests of the two together, so the chi-square
 * approximation holds. Sets *@stat, *@dof (pooled bins - 1) and *@p (the
 * probability of a statistic this large by chance; 1 when dof is 0).
 * Returns 0, or -EINVAL for different resolutions or an empty histogram.
 */
int osp_chi2_test(const struct osp_hist *a, const struct osp_hist *b,
		  double *stat, unsigned *dof, double *p);

/*
 * osp_chi2_sf - P(X >= @x) for X chi-square with @dof degrees of freedom,
 * the regularised upper incomplete gamma Q(dof/2, x/2) (series below
 * x < a + 1, Lentz's continued fraction above). 1 for x <= 0 or dof 0.
 */
double osp_chi2_sf(double x, unsigned dof);

/*
 * osp_count_test - the two-sided test of "the same rate of requests" for
 * counts @na and @nb seen over exposures @ea and @eb (> 0: the runs'
 * elapsed times, or 1 and 1 to compare the counts themselves). Given
 * n = na + nb, nb is binomial(n, eb / (ea + eb)) when the rates are
 * equal (the conditional test of two Poisson counts); the p-value is
 * twice the smaller tail, at most 1, from GSL's incomplete beta
 * function, so it is exact at any count. 1 when both counts are 0.
 */
double osp_count_test(double na, double nb, double ea, double eb);

/*
 * osp_total_test - the two-sided test of "the same total latency per
 * exposure" (see osp_count_test): z = |sumB / eb - sumA / ea| over its
 * standard deviation when both runs draw from the pooled distribution
 * of @a and @b, a compound Poisson sum with Var(sum) = n E[X^2] (E[X^2]
 * from the buckets' geometric midpoints); the p-value 2 Q(z) from GSL's
 * normal tail. 1 when either histogram is empty or the resolutions differ.
 */
double osp_total_test(const struct osp_hist *a, const struct osp_hist *b,
		      double ea, double eb);

/* ---- peaks --------------------------------------------------------------- */

/*
 * A peak: a run of buckets around a local maximum, bounded by valleys.
 * Two maxima are separate peaks only when the valley between them is
 * under half the lower maximum *and* the dip is significant under Poisson
 * counting noise (lower maximum - valley > 2 sqrt(lower maximum + valley));
 * otherwise they are one jagged peak. So a single noisy bucket never makes
 * a peak of its own, and a lone bucket of one or two stray requests joins
 * its neighbour.
 */
struct osp_peak {
	unsigned lo, hi;    /* bucket range (first and last non-empty bucket) */
	unsigned mode;      /* the fullest bucket (the first of equals) */
	uint64_t count;     /* requests in the range */
	double share;       /* count / the histogram's bucket total */
	double mean_ns;     /* mean latency, from bucket midpoints (exact when
			     * the histogram has one peak: sum / count) */
	double centre_log2; /* count-weighted mean of log2(midpoint ns) */
};

#define OSP_PEAKS_MAX 16

/*
 * osp_hist_peaks - find the peaks of @h, lowest latency first, writing at
 * most @max of them to @out. Returns the number written (0 for an empty
 * histogram); when a histogram has more than @max peaks the ones with the
 * fewest requests are merged into their neighbours first.
 */
size_t osp_hist_peaks(const struct osp_hist *h, struct osp_peak *out,
		      size_t max);

enum osp_peak_change_kind {
	OSP_PEAK_SAME,     /* matched, same place, similar share */
	OSP_PEAK_MOVED,    /* matched, centre moved by >= 0.5 octave */
	OSP_PEAK_RESHARED, /* matched in place, share changed by >= 0.1 */
	OSP_PEAK_ADDED,    /* only in B */
	OSP_PEAK_REMOVED,  /* only in A */
	OSP_PEAK__COUNT
};

/* "same", "moved", "reshared", "added", "removed". */
const char *osp_peak_change_name(enum osp_peak_change_kind k);

struct osp_peak_change {
	enum osp_peak_change_kind kind;
	int ia, ib;          /* indices into the peaks of A and B; -1 if none */
	double shift_octaves; /* centre B - centre A (matched peaks), else 0 */
};

/*
 * osp_peaks_match - pair the peaks of A and B: the closest centres first,
 * at most 3 octaves apart (farther apart they are different execution
 * paths: one removed, one added). Writes one change per matched pair and
 * per unmatched peak to @out (room for @na + @nb), in order of latency.
 * Returns the number written.
 */
size_t osp_peaks_match(const struct osp_peak *a, size_t na,
		       const struct osp_peak *b, size_t nb,
		       struct osp_peak_change *out);

/* ---- OSprof's comparison of two profile sets ------------------------------ */

struct osp_cmp_opts {
	enum osp_dist_method method;
	double threshold;   /* score at or above which an op differs; a
			     * negative value means the method's default */
	double min_share;   /* step 1: set aside an op whose share of its
			     * layer's requests and of its latency are both
			     * under this in both sets (default 0.01: what
			     * such an op changed moved its layer's total
			     * latency by under 1%; in sets of 50 ops by
			     * Zipf's law it is about half of them, see
			     * report/README.md) */
	double equal_frac;  /* step 1: set aside an op whose count and total
			     * latency differ by at most this fraction and
			     * whose peaks are unchanged (default 0.01) */
	double noise_factor; /* noise guard (default 3; 0 turns it off): ops
			      * and latency must exceed this many standard
			      * deviations of their noise; bin-by-bin methods
			      * need the chi-square test's p under the normal
			      * tail erfc(factor / sqrt 2) (0.27% for 3); EMD
			      * must exceed this many times osp_emd_noise, or
			      * pass that chi-square test, and
			      * osp_emd_beyond_noise must reach the
			      * threshold too. The volume tests
			      * below need their p under that tail too. */
	double count_frac;   /* volume: an op differs when its request count
			      * changes by at least this fraction (default
			      * 0.1) and osp_count_test's p is under the
			      * guard's tail; a negative value turns it off */
	double latency_frac; /* volume: likewise for its total latency
			      * (default 0.1) with osp_total_test */
	bool per_time;       /* compare counts and totals per second of each
			      * run's elapsed_ns (when both have one), not as
			      * they are: for profiles of unequal windows of
			      * one server, not for fixed workloads
			      * (default false) */
};

/*
 * Why an op differs (a bit set in osp_cmp_item.why): its shape (the
 * method's score over the threshold and the noise guard), its request
 * count, or its total latency (each over its fraction and its test).
 */
enum osp_cmp_why {
	OSP_CMP_WHY_SHAPE = 1u << 0,
	OSP_CMP_WHY_COUNT = 1u << 1,
	OSP_CMP_WHY_LATENCY = 1u << 2,
};

/* Fill @o with the defaults for method @m. */
void osp_cmp_opts_default(struct osp_cmp_opts *o, enum osp_dist_method m);

enum osp_cmp_verdict {
	OSP_CMP_DIFFERENT, /* interesting: over threshold and over noise */
	OSP_CMP_ONLY_A,    /* interesting: requests in A only */
	OSP_CMP_ONLY_B,    /* interesting: requests in B only */
	OSP_CMP_NOISE,     /* over threshold, but within sampling noise */
	OSP_CMP_SIMILAR,   /* under threshold */
	OSP_CMP_EQUAL,     /* set aside: nearly equal totals, same peaks */
	OSP_CMP_TINY,      /* set aside: tiny share in both sets */
	OSP_CMP__COUNT
};

/* "different", "only in A", "only in B", "noise", "similar", "equal", "tiny". */
const char *osp_cmp_verdict_name(enum osp_cmp_verdict v);
/* True for the verdicts a report lists as differences. */
bool osp_cmp_interesting(enum osp_cmp_verdict v);

struct osp_cmp_item {
	const char *layer;      /* borrowed from the compared profiles */
	const char *name;       /* borrowed */
	const struct osp_op *a; /* NULL when the op is absent from A */
	const struct osp_op *b; /* NULL when absent from B */
	enum osp_cmp_verdict verdict;
	double score;           /* the method's score; NAN when not rated */
	double noise;           /* the scale of the score sampling noise alone
				 * gives (EMD: osp_emd_noise; ops, latency:
				 * one standard deviation); NAN when not used */
	double beyond_noise;    /* EMD over its threshold and clear of the
				 * guard: osp_emd_beyond_noise, which must
				 * reach the threshold too; NAN otherwise */
	double p_value;         /* chi-square test (bin-by-bin methods, and
				 * EMD under its noise level), or NAN */
	double count_change;    /* (nB - nA) / nA; +INFINITY when nA is 0
				 * (per second of elapsed time with
				 * per_time) */
	double latency_change;  /* (sumB - sumA) / sumA; likewise */
	double count_p;         /* osp_count_test's p, or NAN when not run */
	double latency_p;       /* osp_total_test's p, or NAN */
	unsigned why;           /* OSP_CMP_DIFFERENT: enum osp_cmp_why bits */
	double strength;        /* OSP_CMP_DIFFERENT: how many times its
				 * threshold the strongest test that named it
				 * reached (score / threshold, |count change| /
				 * count_frac, |latency change| / latency_frac),
				 * the key differences are ranked by; NAN
				 * otherwise */
	double share_a, share_b; /* max(share of requests, share of latency) */
	/*
	 * The peaks of A and B and the changes between them other than
	 * OSP_PEAK_SAME, in one allocation an item (exactly what it has,
	 * NULL when none: an item is a few hundred bytes, not the 2.4 KiB
	 * of full arrays, so a million ops compare in proportion), owned by
	 * the osp_cmp and freed by osp_cmp_free.
	 */
	size_t npeaks_a, npeaks_b, nchanges;
	struct osp_peak *peaks_a, *peaks_b;
	struct osp_peak_change *changes;
};

struct osp_cmp {
	enum osp_dist_method method;
	double threshold;       /* the threshold applied */
	size_t n;               /* one item per (layer, op) with requests
				 * in A or B */
	struct osp_cmp_item *items; /* ranked: differences by strength, then
				     * ops in one set only by share, then the
				     * rest by score */
	size_t ninteresting;    /* the first ninteresting items */
};

/*
 * osp_compare - compare profile sets @a (@na profiles) and @b (@nb), each
 * holding at most one profile per layer; operations are matched by layer
 * and name. Fills @out (free it with osp_cmp_free), which borrows names
 * and ops from the profiles: keep them alive while using it.
 * Returns 0; -EINVAL for a bad option, a layer twice in one set, or two
 * profiles of one layer at different resolutions; -ENOMEM.
 */
int osp_compare(const struct osp_profile *const *a, size_t na,
		const struct osp_profile *const *b, size_t nb,
		const struct osp_cmp_opts *opts, struct osp_cmp *out);
/* Free @c's items; accepts a zeroed struct. */
void osp_cmp_free(struct osp_cmp *c);

#endif /* OSPROF_ANALYSIS_H */
