// SPDX-License-Identifier: MIT
/*
 * Plain log2 histograms: allocation, bounds, merging, summary values and
 * percentiles. The bucket index itself is inline in hist.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/hist.h"

/* floor(2^(63 + m/8)), exact (computed with integer r-th roots). */
const uint64_t osp_bucket_thresh63[8] = {
	0x8000000000000000ull, 0x8b95c1e3ea8bd6e6ull, 0x9837f0518db8a96full,
	0xa5fed6a9b15138eaull, 0xb504f333f9de6484ull, 0xc5672a115506daddull,
	0xd744fccad69d6af4ull, 0xeac0c6e7dd24392eull,
};

double osp_bucket_upper_ns(unsigned i, unsigned res)
{
	return exp2((double)i / (double)res);
}

double osp_bucket_lower_ns(unsigned i, unsigned res)
{
	return i == 0 ? 0.0 : exp2((double)(i - 1) / (double)res);
}

int osp_hist_init(struct osp_hist *h, unsigned res)
{
	memset(h, 0, sizeof(*h));
	if (!osp_res_valid(res))
		return -EINVAL;
	h->buckets = calloc(OSP_HIST_NBUCKETS(res), sizeof(h->buckets[0]));
	if (!h->buckets)
		return -ENOMEM;
	h->res = res;
	h->nbuckets = OSP_HIST_NBUCKETS(res);
	return 0;
}

void osp_hist_fini(struct osp_hist *h)
{
	if (!h)
		return;
	free(h->buckets);
	memset(h, 0, sizeof(*h));
}

void osp_hist_clear(struct osp_hist *h)
{
	memset(h->buckets, 0, h->nbuckets * sizeof(h->buckets[0]));
	h->count = h->sum = h->min = h->max = 0;
}

int osp_hist_copy(struct osp_hist *dst, const struct osp_hist *src)
{
	int err = osp_hist_init(dst, src->res);

	if (err)
		return err;
	memcpy(dst->buckets, src->buckets, src->nbuckets * sizeof(src->buckets[0]));
	dst->count = src->count;
	dst->sum = src->sum;
	dst->min = src->min;
	dst->max = src->max;
	return 0;
}

int osp_hist_merge(struct osp_hist *dst, const struct osp_hist *src)
{
	if (dst->res != src->res)
		return -EINVAL;
	if (src->count == 0 && osp_hist_bucket_total(src) == 0)
		return 0;
	for (unsigned i = 0; i < src->nbuckets; i++)
		dst->buckets[i] += src->buckets[i];
	if (src->count && (dst->count == 0 || src->min < dst->min))
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	return 0;
}

/*
 * Buckets read from a file may add up past 2^64 - 1; a wrapped total could
 * then equal count and pass the checksum. False on overflow.
 */
static bool bucket_sum(const struct osp_hist *h, uint64_t *total)
{
	*total = 0;
	for (unsigned i = 0; i < h->nbuckets; i++)
		if (__builtin_add_overflow(*total, h->buckets[i], total))
			return false;
	return true;
}

uint64_t osp_hist_bucket_total(const struct osp_hist *h)
{
	uint64_t total;

	return bucket_sum(h, &total) ? total : UINT64_MAX;
}

bool osp_hist_checksum_ok(const struct osp_hist *h)
{
	uint64_t total;

	return bucket_sum(h, &total) && total == h->count;
}

bool osp_hist_range(const struct osp_hist *h, unsigned *lo, unsigned *hi)
{
	unsigned i, j;

	for (i = 0; i < h->nbuckets && !h->buckets[i]; i++)
		;
	if (i == h->nbuckets)
		return false;
	for (j = h->nbuckets - 1; !h->buckets[j]; j--)
		;
	*lo = i;
	*hi = j;
	return true;
}

double osp_hist_mean(const struct osp_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double osp_hist_percentile(const struct osp_hist *h, double p)
{
	uint64_t total = osp_hist_bucket_total(h);
	double rank, seen = 0.0, v;

	if (total == 0)
		return 0.0;
	if (p < 0.0)
		p = 0.0;
	if (p > 100.0)
		p = 100.0;
	rank = p / 100.0 * (double)total;
	for (unsigned i = 0; i < h->nbuckets; i++) {
		double c = (double)h->buckets[i], lo, hi, frac;

		if (c == 0.0 || seen + c < rank) {
			seen += c;
			continue;
		}
		/*
		 * Geometric interpolation: inside a log2 bucket the values are
		 * spread evenly on a log scale far more often than linearly.
		 */
		frac = (rank - seen) / c;
		hi = osp_bucket_upper_ns(i, h->res);
		lo = i == 0 ? 0.0 : osp_bucket_lower_ns(i, h->res);
		if (h->count && h->min > lo)
			lo = (double)h->min;
		if (h->count && (double)h->max < hi)
			hi = (double)h->max;
		if (lo <= 0.0)
			v = hi * frac;
		else if (hi <= lo)
			v = hi;
		else
			v = lo * pow(hi / lo, frac);
		return v;
	}
	return h->count ? (double)h->max : osp_bucket_upper_ns(h->nbuckets - 1, h->res);
}
