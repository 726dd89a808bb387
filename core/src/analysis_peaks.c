// SPDX-License-Identifier: MIT
/*
 * Peak finding in log2 latency histograms, and the matching of the peaks
 * of two histograms. In OSprof's profiles every peak is an execution path
 * (a cache hit, a disk read, a lock wait), so the peaks are what a person
 * reads first; the comparison reports how they moved, appeared, vanished
 * or changed weight.
 *
 * Method: take every local maximum (a plateau counts once), then merge
 * neighbouring maxima whose valley is not deep enough -- not under half
 * the lower maximum, or not a significant dip under Poisson counting noise
 * -- least separated pair first, until every remaining valley is real.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/analysis.h"

/* A valley must be under this fraction of the lower of its two maxima... */
#define VALLEY_RATIO 0.5
/* ...and the dip larger than this many Poisson standard deviations. */
#define VALLEY_SIGMAS 2.0
/* Matched peaks farther apart than this are two paths, not one moved. */
#define MATCH_MAX_OCTAVES 3.0
#define MOVED_OCTAVES 0.5
#define RESHARED_SHARE 0.1

struct extremum {
	unsigned pos;
	double c;
};

struct peak_work {
	const struct osp_hist *h;
	const double *c;         /* every bucket's count, dense */
	unsigned lo, hi;         /* non-empty range of the histogram */
	size_t n;                /* maxima left */
	struct extremum *top;    /* n maxima */
	struct extremum *valley; /* n - 1 valleys, valley[k] between k, k + 1 */
};

static double bucket_count(const struct peak_work *w, unsigned i)
{
	return w->c[i];
}

/* log2 of bucket @i's geometric midpoint in ns (bucket 0: 1 ns). */
static double bucket_mid_log2(unsigned i, unsigned res)
{
	return i == 0 ? 0.0 : ((double)i - 0.5) / res;
}

/* Collect the local maxima (plateaus once) and the minima between them. */
static void find_extrema(struct peak_work *w)
{
	unsigned i = w->lo;
	double prev = -1.0;

	w->n = 0;
	while (i <= w->hi) {
		unsigned end = i;
		double c = bucket_count(w, i), next;

		while (end + 1 <= w->hi && bucket_count(w, end + 1) == c)
			end++;
		next = end + 1 <= w->hi ? bucket_count(w, end + 1) : -1.0;
		if (c > prev && c > next) {
			w->top[w->n].pos = i;
			w->top[w->n].c = c;
			w->n++;
		}
		prev = c;
		i = end + 1;
	}
	for (size_t k = 0; k + 1 < w->n; k++) {
		struct extremum v = { w->top[k].pos, w->top[k].c };

		for (unsigned j = w->top[k].pos; j <= w->top[k + 1].pos; j++) {
			if (bucket_count(w, j) < v.c) {
				v.pos = j;
				v.c = bucket_count(w, j);
			}
		}
		w->valley[k] = v;
	}
}

static double lower_top(const struct peak_work *w, size_t k)
{
	return fmin(w->top[k].c, w->top[k + 1].c);
}

static bool separated(const struct peak_work *w, size_t k)
{
	double m = lower_top(w, k), v = w->valley[k].c;

	return v < VALLEY_RATIO * m && m - v > VALLEY_SIGMAS * sqrt(m + v);
}

/* Merge maxima k and k + 1 into one peak whose top is the higher one. */
static void merge_pair(struct peak_work *w, size_t k)
{
	if (w->top[k + 1].c > w->top[k].c)
		w->top[k] = w->top[k + 1];
	memmove(&w->top[k + 1], &w->top[k + 2], (w->n - k - 2) * sizeof(w->top[0]));
	memmove(&w->valley[k], &w->valley[k + 1],
		(w->n - k - 2) * sizeof(w->valley[0]));
	w->n--;
}

/* Bucket range of peak @k before trimming: valleys belong to the left. */
static void peak_bounds(const struct peak_work *w, size_t k, unsigned *lo,
			unsigned *hi)
{
	*lo = k == 0 ? w->lo : w->valley[k - 1].pos + 1;
	*hi = k + 1 == w->n ? w->hi : w->valley[k].pos;
}

static double peak_count(const struct peak_work *w, size_t k)
{
	unsigned lo, hi;
	double c = 0.0;

	peak_bounds(w, k, &lo, &hi);
	for (unsigned i = lo; i <= hi; i++)
		c += bucket_count(w, i);
	return c;
}

static void merge_insignificant(struct peak_work *w)
{
	for (;;) {
		double worst = -1.0;
		size_t best = 0;

		for (size_t k = 0; k + 1 < w->n; k++) {
			double ratio = w->valley[k].c / lower_top(w, k);

			if (!separated(w, k) && ratio > worst) {
				worst = ratio;
				best = k;
			}
		}
		if (worst < 0.0)
			return;
		merge_pair(w, best);
	}
}

/* Too many peaks for the caller: fold the smallest into a neighbour. */
static void merge_smallest(struct peak_work *w, size_t max)
{
	while (w->n > max && w->n > 1) {
		size_t small = 0;
		double least = INFINITY;

		for (size_t k = 0; k < w->n; k++) {
			double c = peak_count(w, k);

			if (c < least) {
				least = c;
				small = k;
			}
		}
		/* Join the neighbour across the shallower valley (the lower
		 * latency one on a tie). */
		if (small + 1 == w->n ||
		    (small > 0 && w->valley[small - 1].c >= w->valley[small].c))
			small--;
		merge_pair(w, small);
	}
}

static void describe_peak(const struct peak_work *w, size_t k, double total,
			  struct osp_peak *pk)
{
	const struct osp_hist *h = w->h;
	double c = 0.0, lsum = 0.0, nsum = 0.0, best = -1.0;
	unsigned lo, hi;

	peak_bounds(w, k, &lo, &hi);
	while (lo < hi && bucket_count(w, lo) == 0.0)
		lo++;
	while (hi > lo && bucket_count(w, hi) == 0.0)
		hi--;
	memset(pk, 0, sizeof(*pk));
	for (unsigned i = lo; i <= hi; i++) {
		double ci = bucket_count(w, i), l2 = bucket_mid_log2(i, h->res);

		c += ci;
		lsum += ci * l2;
		nsum += ci * exp2(l2);
		if (ci > best) {
			best = ci;
			pk->mode = i;
		}
	}
	pk->lo = lo;
	pk->hi = hi;
	/* Counts near 2^64 sum past it as doubles: saturate, never convert
	 * out of range (a hostile profile's buckets can add up to that). */
	pk->count = c >= 0x1p64 ? UINT64_MAX : (uint64_t)c;
	pk->share = c / total;
	pk->centre_log2 = c > 0.0 ? lsum / c : 0.0;
	pk->mean_ns = c > 0.0 ? nsum / c : 0.0;
	/* With one peak the recorded sum gives the exact mean. */
	if (w->n == 1 && h->count && osp_hist_checksum_ok(h))
		pk->mean_ns = osp_hist_mean(h);
}

size_t osp_hist_peaks(const struct osp_hist *h, struct osp_peak *out,
		      size_t max)
{
	struct extremum top[OSP_HIST_NBUCKETS_MAX], valley[OSP_HIST_NBUCKETS_MAX];
	double c[OSP_HIST_NBUCKETS_MAX];
	struct peak_work w = { .h = h, .c = c, .top = top, .valley = valley };
	double total = (double)osp_hist_bucket_total(h);

	if (max == 0 || !osp_hist_range(h, &w.lo, &w.hi))
		return 0;
	for (unsigned i = w.lo; i <= w.hi; i++)
		c[i] = 0.0;
	for (uint32_t k = 0; k < h->nbk; k++)
		c[h->bk[k].idx] = (double)h->bk[k].count;
	find_extrema(&w);
	merge_insignificant(&w);
	merge_smallest(&w, max);
	for (size_t k = 0; k < w.n; k++)
		describe_peak(&w, k, total, &out[k]);
	return w.n;
}

static const char *const change_names[] = {
	[OSP_PEAK_SAME] = "same",
	[OSP_PEAK_MOVED] = "moved",
	[OSP_PEAK_RESHARED] = "reshared",
	[OSP_PEAK_ADDED] = "added",
	[OSP_PEAK_REMOVED] = "removed",
};
_Static_assert(sizeof(change_names) / sizeof(change_names[0]) == OSP_PEAK__COUNT,
	       "a name for every peak change");

const char *osp_peak_change_name(enum osp_peak_change_kind k)
{
	return (unsigned)k < OSP_PEAK__COUNT ? change_names[k] : "?";
}

static enum osp_peak_change_kind classify(const struct osp_peak *pa,
					  const struct osp_peak *pb)
{
	if (fabs(pb->centre_log2 - pa->centre_log2) >= MOVED_OCTAVES)
		return OSP_PEAK_MOVED;
	if (fabs(pb->share - pa->share) >= RESHARED_SHARE)
		return OSP_PEAK_RESHARED;
	return OSP_PEAK_SAME;
}

/* The latency a change is sorted by: where its peak sits. */
static double change_pos(const struct osp_peak_change *c,
			 const struct osp_peak *a, const struct osp_peak *b)
{
	return c->ia >= 0 ? a[c->ia].centre_log2 : b[c->ib].centre_log2;
}

size_t osp_peaks_match(const struct osp_peak *a, size_t na,
		       const struct osp_peak *b, size_t nb,
		       struct osp_peak_change *out)
{
	int ma[OSP_PEAKS_MAX], mb[OSP_PEAKS_MAX];
	size_t n = 0;

	if (na > OSP_PEAKS_MAX)
		na = OSP_PEAKS_MAX;
	if (nb > OSP_PEAKS_MAX)
		nb = OSP_PEAKS_MAX;
	memset(ma, -1, sizeof(ma));
	memset(mb, -1, sizeof(mb));
	/* Greedy on distance: at most 16 x 16 pairs, so search each time. */
	for (;;) {
		double best = MATCH_MAX_OCTAVES;
		int bi = -1, bj = -1;

		for (size_t i = 0; i < na; i++)
			for (size_t j = 0; j < nb; j++) {
				double d = fabs(a[i].centre_log2 - b[j].centre_log2);

				if (ma[i] < 0 && mb[j] < 0 && d <= best) {
					best = d;
					bi = (int)i;
					bj = (int)j;
				}
			}
		if (bi < 0)
			break;
		ma[bi] = bj;
		mb[bj] = bi;
		out[n++] = (struct osp_peak_change){
			classify(&a[bi], &b[bj]), bi, bj,
			b[bj].centre_log2 - a[bi].centre_log2 };
	}
	for (size_t i = 0; i < na; i++)
		if (ma[i] < 0)
			out[n++] = (struct osp_peak_change){ OSP_PEAK_REMOVED, (int)i, -1, 0.0 };
	for (size_t j = 0; j < nb; j++)
		if (mb[j] < 0)
			out[n++] = (struct osp_peak_change){ OSP_PEAK_ADDED, -1, (int)j, 0.0 };
	/* Insertion sort by latency: n <= 32. */
	for (size_t i = 1; i < n; i++) {
		struct osp_peak_change c = out[i];
		size_t j = i;

		while (j > 0 && change_pos(&out[j - 1], a, b) > change_pos(&c, a, b)) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = c;
	}
	return n;
}
