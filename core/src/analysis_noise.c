// SPDX-License-Identifier: MIT
/*
 * How much two histograms would differ by sampling noise alone: the scale
 * of the Earth Mover's Distance between two samples of one distribution,
 * and the two-sample chi-square test with its p-value. The comparison uses
 * them as guards, so that a 200-request profile is not called different
 * from another because of the luck of the draw. Likewise for volume: the
 * test of two counts and of two total latencies (distributions from GSL).
 */
#include <errno.h>
#include <math.h>

#include <gsl/gsl_cdf.h>

#include "osprof/analysis.h"

/*
 * Walk the bucket boundaries of @a and @b: per boundary, the CDF
 * difference d and its standard deviation under the null hypothesis,
 * sd = sqrt(F(1-F)(1/nA + 1/nB)) with F pooled. Returns
 * sum sd / res, and sets *@beyond to sum max(0, |d| - sd) / res.
 */
static double emd_boundaries(const struct osp_hist *a, const struct osp_hist *b,
			     double *beyond)
{
	double na = (double)osp_hist_bucket_total(a);
	double nb = (double)osp_hist_bucket_total(b);
	double ca = 0.0, cb = 0.0, sum = 0.0, over = 0.0, scale;
	uint64_t da[OSP_HIST_NBUCKETS_MAX], db[OSP_HIST_NBUCKETS_MAX];

	*beyond = 0.0;
	if (a->res != b->res || na == 0.0 || nb == 0.0)
		return 0.0;
	osp_hist_to_dense(a, da);
	osp_hist_to_dense(b, db);
	scale = sqrt(1.0 / na + 1.0 / nb);
	for (unsigned i = 0; i + 1 < OSP_HIST_NBUCKETS(a->res); i++) {
		double f, sd;

		ca += (double)da[i];
		cb += (double)db[i];
		f = (ca + cb) / (na + nb);
		sd = f > 0.0 && f < 1.0 ? scale * sqrt(f * (1.0 - f)) : 0.0;
		sum += sd;
		over += fmax(0.0, fabs(ca / na - cb / nb) - sd);
	}
	*beyond = over / a->res;
	return sum / a->res;
}

double osp_emd_noise(const struct osp_hist *a, const struct osp_hist *b)
{
	double beyond;

	/*
	 * Under the null hypothesis each boundary's CDF difference is about
	 * N(0, F(1-F)(1/nA + 1/nB)). The differences are correlated, and a
	 * sum of deviations bounds the deviation of their sum whatever the
	 * correlation: a guard at k times it errs at most as a k-sigma
	 * normal tail does.
	 */
	return emd_boundaries(a, b, &beyond);
}

double osp_emd_beyond_noise(const struct osp_hist *a, const struct osp_hist *b)
{
	double beyond;

	/*
	 * Sampling noise only ever adds to an EMD (a sum of absolute
	 * values): two samples of one distribution are about 0.8 sd apart
	 * at every boundary. Shrinking each boundary's difference by its
	 * own sd leaves about 0.17 sd of that (E max(0, |Z| - 1)) while a
	 * real difference of d >> sd keeps d - sd: an estimate of the true
	 * distance that noise at far-off boundaries (two distant peaks whose
	 * shares wobble) cannot inflate.
	 */
	emd_boundaries(a, b, &beyond);
	return beyond;
}

/* Pooled bins hold at least this many requests of A and B together. */
#define CHI2_MIN_POOL 10.0

/*
 * Pool neighbouring buckets until each pooled bin holds CHI2_MIN_POOL
 * requests; a sparse remainder joins the last bin. Returns the number of
 * bins written to @r and @s.
 */
static unsigned chi2_pool(const struct osp_hist *a, const struct osp_hist *b,
			  double *r, double *s)
{
	uint64_t da[OSP_HIST_NBUCKETS_MAX], db[OSP_HIST_NBUCKETS_MAX];
	double pr = 0.0, ps = 0.0;
	unsigned bins = 0;

	osp_hist_to_dense(a, da);
	osp_hist_to_dense(b, db);
	for (unsigned i = 0; i < OSP_HIST_NBUCKETS(a->res); i++) {
		pr += (double)da[i];
		ps += (double)db[i];
		if (pr + ps < CHI2_MIN_POOL)
			continue;
		r[bins] = pr;
		s[bins] = ps;
		bins++;
		pr = ps = 0.0;
	}
	if (pr + ps > 0.0) {
		if (bins == 0) {
			r[0] = s[0] = 0.0;
			bins = 1;
		}
		r[bins - 1] += pr;
		s[bins - 1] += ps;
	}
	return bins;
}

int osp_chi2_test(const struct osp_hist *a, const struct osp_hist *b,
		  double *stat, unsigned *dof, double *p)
{
	double r[OSP_HIST_NBUCKETS_MAX], s[OSP_HIST_NBUCKETS_MAX];
	double na = (double)osp_hist_bucket_total(a);
	double nb = (double)osp_hist_bucket_total(b);
	double ka, kb, chi = 0.0;
	unsigned bins;

	if (a->res != b->res || na == 0.0 || nb == 0.0)
		return -EINVAL;
	/* The factors compare shapes when the totals differ (NR's chstwo). */
	ka = sqrt(nb / na);
	kb = sqrt(na / nb);
	bins = chi2_pool(a, b, r, s);
	for (unsigned i = 0; i < bins; i++) {
		double t = ka * r[i] - kb * s[i];

		chi += t * t / (r[i] + s[i]);
	}
	*stat = chi;
	*dof = bins - 1;
	*p = osp_chi2_sf(chi, *dof);
	return 0;
}

#define GAMMA_EPS 1e-14
#define GAMMA_TINY 1e-300
#define GAMMA_ITER 1000

/* ln of x^a e^-x / Gamma(a), the common factor of both expansions. */
static double gamma_prefactor(double a, double x)
{
	int sign;

	return -x + a * log(x) - lgamma_r(a, &sign);
}

/* Lower regularised gamma P(a, x) by its series; for x < a + 1. */
static double gamma_p_series(double a, double x)
{
	double ap = a, del = 1.0 / a, sum = del;

	for (int n = 0; n < GAMMA_ITER && fabs(del) > fabs(sum) * GAMMA_EPS; n++) {
		ap += 1.0;
		del *= x / ap;
		sum += del;
	}
	return sum * exp(gamma_prefactor(a, x));
}

/* Upper regularised gamma Q(a, x) by Lentz's continued fraction; x >= a + 1. */
static double gamma_q_fraction(double a, double x)
{
	double b = x + 1.0 - a, c = 1.0 / GAMMA_TINY, d = 1.0 / b, h = d;

	for (int i = 1; i < GAMMA_ITER; i++) {
		double an = -i * (i - a), del;

		b += 2.0;
		d = an * d + b;
		if (fabs(d) < GAMMA_TINY)
			d = GAMMA_TINY;
		c = b + an / c;
		if (fabs(c) < GAMMA_TINY)
			c = GAMMA_TINY;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < GAMMA_EPS)
			break;
	}
	return exp(gamma_prefactor(a, x)) * h;
}

double osp_chi2_sf(double x, unsigned dof)
{
	double a = dof / 2.0, hx = x / 2.0;

	if (dof == 0 || x <= 0.0)
		return 1.0;
	if (hx < a + 1.0)
		return 1.0 - gamma_p_series(a, hx);
	return gamma_q_fraction(a, hx);
}

double osp_count_test(double na, double nb, double ea, double eb)
{
	double n = na + nb, q = eb / (ea + eb), lower, upper;

	if (n <= 0.0 || !(q > 0.0 && q < 1.0))
		return 1.0;
	/*
	 * X ~ binomial(n, q): P(X <= k) = I_{1-q}(n - k, k + 1) and
	 * P(X >= k) = I_q(k, n - k + 1), regularised incomplete beta
	 * functions that stay exact where n does not fit an unsigned int.
	 */
	lower = nb >= n ? 1.0 : gsl_cdf_beta_Q(q, nb + 1.0, n - nb);
	upper = nb <= 0.0 ? 1.0 : gsl_cdf_beta_P(q, nb, n - nb + 1.0);
	return fmin(1.0, 2.0 * fmin(lower, upper));
}

/* E[X^2] of @a and @b pooled, from the buckets' geometric midpoints. */
static double pooled_second_moment(const struct osp_hist *a,
				   const struct osp_hist *b)
{
	const struct osp_hist *h[2] = { a, b };
	double total = 0.0, m2 = 0.0;

	for (int s = 0; s < 2; s++) {
		for (uint32_t k = 0; k < h[s]->nbk; k++) {
			unsigned i = h[s]->bk[k].idx;
			double mid = i == 0 ? 1.0 : exp2(((double)i - 0.5) / h[s]->res);

			total += (double)h[s]->bk[k].count;
			m2 += (double)h[s]->bk[k].count * mid * mid;
		}
	}
	return total > 0.0 ? m2 / total : 0.0;
}

double osp_total_test(const struct osp_hist *a, const struct osp_hist *b,
		      double ea, double eb)
{
	double na = (double)osp_hist_bucket_total(a);
	double nb = (double)osp_hist_bucket_total(b);
	double m2, sd, z;

	if (a->res != b->res || na == 0.0 || nb == 0.0 || !(ea > 0.0 && eb > 0.0))
		return 1.0;
	m2 = pooled_second_moment(a, b);
	sd = sqrt(m2 * (na / (ea * ea) + nb / (eb * eb)));
	if (!(sd > 0.0))
		return 1.0;
	z = fabs((double)b->sum / eb - (double)a->sum / ea) / sd;
	return fmin(1.0, 2.0 * gsl_cdf_ugaussian_Q(z));
}
