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
	h->res = res;
	return 0;
}

void osp_hist_fini(struct osp_hist *h)
{
	if (!h)
		return;
	free(h->bk);
	memset(h, 0, sizeof(*h));
}

void osp_hist_clear(struct osp_hist *h)
{
	h->nbk = 0;
	h->count = h->sum = h->min = h->max = 0;
}

/* Grow bk to room for @n buckets exactly (never shrinks). 0 or -ENOMEM. */
static int hist_grow(struct osp_hist *h, size_t n)
{
	struct osp_bucket *bk;

	if (n <= h->cap)
		return 0;
	bk = realloc(h->bk, n * sizeof(*bk));
	if (!bk)
		return -ENOMEM;
	h->bk = bk;
	h->cap = (uint32_t)n;
	return 0;
}

int osp_hist_reserve(struct osp_hist *h, unsigned n)
{
	unsigned nb = OSP_HIST_NBUCKETS(h->res);

	return hist_grow(h, n < nb ? n : nb);
}

int osp_hist_copy(struct osp_hist *dst, const struct osp_hist *src)
{
	*dst = *src;
	dst->bk = NULL;
	dst->cap = 0;
	if (hist_grow(dst, src->nbk)) {
		memset(dst, 0, sizeof(*dst));
		return -ENOMEM;
	}
	if (src->nbk)
		memcpy(dst->bk, src->bk, src->nbk * sizeof(src->bk[0]));
	return 0;
}

/* Position of the first held bucket whose index is >= @i. */
static uint32_t hist_find(const struct osp_hist *h, unsigned i)
{
	uint32_t lo = 0, hi = h->nbk;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (h->bk[mid].idx < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

uint64_t osp_hist_bucket(const struct osp_hist *h, unsigned i)
{
	uint32_t k = hist_find(h, i);

	return k < h->nbk && h->bk[k].idx == i ? h->bk[k].count : 0;
}

/* Put bucket @i, with @n requests, at position @k (where hist_find put it). */
static int hist_insert(struct osp_hist *h, uint32_t k, unsigned i, uint64_t n)
{
	/* Doubling keeps filling a histogram bucket by bucket linear. */
	if (h->nbk == h->cap && osp_hist_reserve(h, h->cap ? 2u * h->cap : 1u))
		return -ENOMEM;
	memmove(&h->bk[k + 1], &h->bk[k], (h->nbk - k) * sizeof(h->bk[0]));
	h->bk[k].idx = i;
	h->bk[k].count = n;
	h->nbk++;
	return 0;
}

int osp_hist_bucket_set(struct osp_hist *h, unsigned i, uint64_t n)
{
	uint32_t k;

	if (i >= OSP_HIST_NBUCKETS(h->res))
		return -EINVAL;
	k = hist_find(h, i);
	if (k < h->nbk && h->bk[k].idx == i) {
		if (n) {
			h->bk[k].count = n;
		} else {
			memmove(&h->bk[k], &h->bk[k + 1], (h->nbk - k - 1) * sizeof(h->bk[0]));
			h->nbk--;
		}
		return 0;
	}
	return n ? hist_insert(h, k, i, n) : 0;
}

int osp_hist_record(struct osp_hist *h, uint64_t v_ns)
{
	unsigned i = osp_bucket_index(v_ns, h->res);
	uint32_t k = hist_find(h, i);

	if (k < h->nbk && h->bk[k].idx == i)
		h->bk[k].count++;
	else if (hist_insert(h, k, i, 1))
		return -ENOMEM;
	if (h->count == 0 || v_ns < h->min)
		h->min = v_ns;
	if (v_ns > h->max)
		h->max = v_ns;
	h->count++;
	h->sum += v_ns;
	return 0;
}

void osp_hist_to_dense(const struct osp_hist *h, uint64_t *out)
{
	memset(out, 0, OSP_HIST_NBUCKETS(h->res) * sizeof(*out));
	for (uint32_t k = 0; k < h->nbk; k++)
		out[h->bk[k].idx] = h->bk[k].count;
}

int osp_hist_from_dense(struct osp_hist *h, const uint64_t *in)
{
	unsigned nb = OSP_HIST_NBUCKETS(h->res), n = 0;

	for (unsigned i = 0; i < nb; i++)
		n += in[i] != 0;
	/* Exactly what is needed: no slack kept for later growth. */
	if (hist_grow(h, n))
		return -ENOMEM;
	h->nbk = 0;
	for (unsigned i = 0; i < nb; i++) {
		if (!in[i])
			continue;
		h->bk[h->nbk].idx = i;
		h->bk[h->nbk].count = in[i];
		h->nbk++;
	}
	return 0;
}

size_t osp_hist_bytes(const struct osp_hist *h)
{
	return (size_t)h->cap * sizeof(h->bk[0]);
}

/* Buckets of @dst and @src together, or SIZE_MAX when a common one would
 * pass 2^64 - 1. */
static size_t merged_size(const struct osp_hist *dst, const struct osp_hist *src)
{
	uint32_t i = 0, j = 0;
	size_t n = 0;

	while (i < dst->nbk || j < src->nbk) {
		if (j == src->nbk || (i < dst->nbk && dst->bk[i].idx < src->bk[j].idx)) {
			i++;
		} else if (i == dst->nbk || src->bk[j].idx < dst->bk[i].idx) {
			j++;
		} else {
			if (dst->bk[i].count > UINT64_MAX - src->bk[j].count)
				return SIZE_MAX;
			i++;
			j++;
		}
		n++;
	}
	return n;
}

int osp_hist_merge(struct osp_hist *dst, const struct osp_hist *src)
{
	size_t n;
	uint32_t i, j;

	if (dst->res != src->res)
		return -EINVAL;
	if (src->count == 0 && src->nbk == 0)
		return 0;
	n = merged_size(dst, src);
	if (n == SIZE_MAX || dst->count > UINT64_MAX - src->count ||
	    dst->sum > UINT64_MAX - src->sum)
		return -EOVERFLOW;
	if (hist_grow(dst, n))
		return -ENOMEM;
	/* Merge from the top down, in place: no element is overwritten
	 * before it is read. */
	i = dst->nbk;
	j = src->nbk;
	dst->nbk = (uint32_t)n;
	for (size_t w = dst->nbk; w-- > 0;) {
		if (j == 0 || (i > 0 && dst->bk[i - 1].idx > src->bk[j - 1].idx)) {
			dst->bk[w] = dst->bk[--i];
		} else if (i == 0 || src->bk[j - 1].idx > dst->bk[i - 1].idx) {
			dst->bk[w] = src->bk[--j];
		} else {
			dst->bk[w].idx = dst->bk[--i].idx;
			dst->bk[w].count = dst->bk[i].count + src->bk[--j].count;
		}
	}
	if (src->count && (dst->count == 0 || src->min < dst->min))
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	return 0;
}

/*
 * Buckets read from a file may add up past 2^64 - 1; saturated, their
 * total would pass the checksum of a count of 2^64 - 1. False on overflow.
 */
static bool bucket_sum(const struct osp_hist *h, uint64_t *total)
{
	*total = 0;
	for (uint32_t k = 0; k < h->nbk; k++)
		if (__builtin_add_overflow(*total, h->bk[k].count, total))
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

enum osp_hist_fault osp_hist_fault(const struct osp_hist *h)
{
	if (h->count && h->min > h->max)
		return OSP_HIST_FAULT_MIN_OVER_MAX;
	if (!h->count && (h->sum || h->min || h->max))
		return OSP_HIST_FAULT_VALUES_NO_COUNT;
	return OSP_HIST_FAULT_NONE;
}

bool osp_hist_range(const struct osp_hist *h, unsigned *lo, unsigned *hi)
{
	if (h->nbk == 0)
		return false;
	*lo = h->bk[0].idx;
	*hi = h->bk[h->nbk - 1].idx;
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
	for (uint32_t k = 0; k < h->nbk; k++) {
		unsigned i = h->bk[k].idx;
		double c = (double)h->bk[k].count, lo, hi, frac;

		if (seen + c < rank) {
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
	return h->count ? (double)h->max
			: osp_bucket_upper_ns(OSP_HIST_NBUCKETS(h->res) - 1, h->res);
}

/* The interval's min and max: see osp_hist_delta. */
static void hist_delta_bounds(struct osp_hist *d, const struct osp_hist *cur,
			      const struct osp_hist *prev)
{
	unsigned lo, hi;

	if (!osp_hist_range(d, &lo, &hi))
		return;
	if (prev->count == 0 || cur->min < prev->min) {
		d->min = cur->min;
	} else {
		double b = floor(osp_bucket_lower_ns(lo, d->res)) + 1.0;

		d->min = lo == 0 ? 0 : (uint64_t)b;
		if (d->min < cur->min)
			d->min = cur->min;
	}
	if (cur->max > prev->max) {
		d->max = cur->max;
	} else {
		double b = floor(osp_bucket_upper_ns(hi, d->res));

		d->max = b >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)b;
		if (d->max > cur->max)
			d->max = cur->max;
	}
}

int osp_hist_delta(struct osp_hist *d, const struct osp_hist *cur,
		      const struct osp_hist *prev)
{
	uint64_t c[OSP_HIST_NBUCKETS_MAX], p[OSP_HIST_NBUCKETS_MAX];
	int err;

	if (cur->res != prev->res)
		return -EINVAL;
	err = osp_hist_init(d, cur->res);
	if (err)
		return err;
	osp_hist_to_dense(cur, c);
	osp_hist_to_dense(prev, p);
	for (unsigned i = 0; i < OSP_HIST_NBUCKETS(cur->res); i++)
		c[i] -= p[i];
	err = osp_hist_from_dense(d, c);
	if (err) {
		osp_hist_fini(d);
		return err;
	}
	d->count = cur->count - prev->count;
	d->sum = cur->sum - prev->sum;
	hist_delta_bounds(d, cur, prev);
	return 0;
}
