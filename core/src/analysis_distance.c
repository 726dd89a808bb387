// SPDX-License-Identifier: MIT
/*
 * Distances between the shapes of two latency histograms: the 1-D Earth
 * Mover's Distance, chi-square, Jeffrey divergence, Minkowski L1/L2 and
 * intersection, on normalised arrays and on struct osp_hist, plus the
 * names and default thresholds of the comparison methods.
 */
#include <errno.h>
#include <math.h>

#include "osprof/analysis.h"
#include "osprof/parse.h"

static const char *const method_names[] = {
	[OSP_DIST_EMD] = "emd",
	[OSP_DIST_CHI2] = "chi2",
	[OSP_DIST_JEFFREY] = "jeffrey",
	[OSP_DIST_L1] = "l1",
	[OSP_DIST_L2] = "l2",
	[OSP_DIST_INTERSECT] = "intersect",
	[OSP_DIST_OPS] = "ops",
	[OSP_DIST_LATENCY] = "latency",
};
_Static_assert(sizeof(method_names) / sizeof(method_names[0]) == OSP_DIST__COUNT,
	       "a name for every method");

/*
 * Scores at which a difference becomes interesting, chosen with
 * report/bench/orp-bench-accuracy (labelled synthetic pairs) so that each
 * method does as well as it can there; see that program for the figures.
 * EMD: a fifth of the requests moving one power of two, or 5% of them
 * moving four.
 */
static const double default_thresholds[] = {
	[OSP_DIST_EMD] = 0.2,
	[OSP_DIST_CHI2] = 0.02,
	[OSP_DIST_JEFFREY] = 0.05,
	[OSP_DIST_L1] = 0.2,
	[OSP_DIST_L2] = 0.1,
	[OSP_DIST_INTERSECT] = 0.1,
	[OSP_DIST_OPS] = 0.1,
	[OSP_DIST_LATENCY] = 0.1,
};
_Static_assert(sizeof(default_thresholds) / sizeof(default_thresholds[0]) ==
		       OSP_DIST__COUNT,
	       "a default threshold for every method");

const char *osp_dist_method_name(enum osp_dist_method m)
{
	return (unsigned)m < OSP_DIST__COUNT ? method_names[m] : "?";
}

int osp_dist_method_parse(const char *name, enum osp_dist_method *out)
{
	unsigned m;
	int err = osp_parse_name(name, method_names, OSP_DIST__COUNT, &m);

	if (!err)
		*out = (enum osp_dist_method)m;
	return err;
}

double osp_dist_default_threshold(enum osp_dist_method m)
{
	return (unsigned)m < OSP_DIST__COUNT ? default_thresholds[m] : NAN;
}

double osp_dist_emd(const double *p, const double *q, size_t n)
{
	double cum = 0.0, d = 0.0;

	/*
	 * In one dimension the optimal transport plan never crosses itself,
	 * so the work is the mass that must cross each bin boundary: the
	 * difference of the cumulative sums. The last boundary carries none.
	 */
	for (size_t i = 0; i + 1 < n; i++) {
		cum += p[i] - q[i];
		d += fabs(cum);
	}
	return d;
}

double osp_dist_chi2(const double *p, const double *q, size_t n)
{
	double d = 0.0;

	for (size_t i = 0; i < n; i++) {
		double s = p[i] + q[i], t = p[i] - q[i];

		if (s > 0.0)
			d += t * t / s;
	}
	return d / 2.0;
}

/* x ln(x / m), with the limit 0 at x = 0. */
static double xlogx_over(double x, double m)
{
	return x > 0.0 ? x * log(x / m) : 0.0;
}

double osp_dist_jeffrey(const double *p, const double *q, size_t n)
{
	double d = 0.0;

	for (size_t i = 0; i < n; i++) {
		double m = (p[i] + q[i]) / 2.0;

		if (m > 0.0)
			d += xlogx_over(p[i], m) + xlogx_over(q[i], m);
	}
	return d;
}

double osp_dist_minkowski(const double *p, const double *q, size_t n,
			  double order)
{
	double d = 0.0;

	for (size_t i = 0; i < n; i++)
		d += pow(fabs(p[i] - q[i]), order);
	return pow(d, 1.0 / order);
}

double osp_dist_intersection(const double *p, const double *q, size_t n)
{
	double s = 0.0;

	for (size_t i = 0; i < n; i++)
		s += p[i] < q[i] ? p[i] : q[i];
	return s;
}

int osp_hist_normalise(const struct osp_hist *h, double *p)
{
	double total = (double)osp_hist_bucket_total(h);

	if (total == 0.0)
		return -EINVAL;
	for (unsigned i = 0; i < OSP_HIST_NBUCKETS(h->res); i++)
		p[i] = 0.0;
	for (uint32_t k = 0; k < h->nbk; k++)
		p[h->bk[k].idx] = (double)h->bk[k].count / total;
	return 0;
}

/* |x - y| / max(x, y): 0 when both are 0. */
static double rel_diff(double x, double y)
{
	double m = x > y ? x : y;

	return m > 0.0 ? fabs(x - y) / m : 0.0;
}

static double shape_distance(const double *p, const double *q, size_t n,
			     unsigned res, enum osp_dist_method m)
{
	switch (m) {
	case OSP_DIST_EMD:
		return osp_dist_emd(p, q, n) / res;
	case OSP_DIST_CHI2:
		return osp_dist_chi2(p, q, n);
	case OSP_DIST_JEFFREY:
		return osp_dist_jeffrey(p, q, n);
	case OSP_DIST_L1:
		return osp_dist_minkowski(p, q, n, 1.0);
	case OSP_DIST_L2:
		return osp_dist_minkowski(p, q, n, 2.0);
	case OSP_DIST_INTERSECT:
		return 1.0 - osp_dist_intersection(p, q, n);
	default:
		return NAN;
	}
}

int osp_hist_distance(const struct osp_hist *a, const struct osp_hist *b,
		      enum osp_dist_method m, double *out)
{
	double p[OSP_HIST_NBUCKETS_MAX], q[OSP_HIST_NBUCKETS_MAX];

	if (a->res != b->res || (unsigned)m >= OSP_DIST__COUNT)
		return -EINVAL;
	if (m == OSP_DIST_OPS) {
		*out = rel_diff((double)a->count, (double)b->count);
		return 0;
	}
	if (m == OSP_DIST_LATENCY) {
		*out = rel_diff((double)a->sum, (double)b->sum);
		return 0;
	}
	if (osp_hist_normalise(a, p) || osp_hist_normalise(b, q))
		return -EINVAL;
	*out = shape_distance(p, q, OSP_HIST_NBUCKETS(a->res), a->res, m);
	return 0;
}
