// SPDX-License-Identifier: MIT
/*
 * The latency histogram of osprof-randread. A reader records one value per
 * pread, so recording is a count-leading-zeros, two shifts and an add; the
 * parent merges the readers' histograms and reads percentiles from the sum.
 * Storing every sample instead would cost tens of megabytes per process for
 * a five-second run of cached reads.
 */
#include "orr.h"

#include <math.h>
#include <string.h>

void orr_lat_init(struct orr_lat *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

unsigned orr_lat_bucket(uint64_t lat_ns)
{
	if (lat_ns < ORR_LAT_SUB)
		return (unsigned)lat_ns;
	unsigned e = 63u - (unsigned)__builtin_clzll(lat_ns); /* >= SUB_BITS */
	unsigned shift = e - ORR_LAT_SUB_BITS;
	unsigned sub = (unsigned)(lat_ns >> shift) - ORR_LAT_SUB;
	return ORR_LAT_SUB + shift * ORR_LAT_SUB + sub;
}

uint64_t orr_lat_bucket_max(unsigned bucket)
{
	if (bucket < ORR_LAT_SUB)
		return bucket;
	unsigned k = bucket - ORR_LAT_SUB;
	unsigned shift = k / ORR_LAT_SUB;
	uint64_t lower = (uint64_t)(ORR_LAT_SUB + k % ORR_LAT_SUB) << shift;
	return lower + ((1ULL << shift) - 1);
}

void orr_lat_record(struct orr_lat *h, uint64_t lat_ns)
{
	h->buckets[orr_lat_bucket(lat_ns)]++;
	h->count++;
	h->sum_ns += lat_ns;
	if (lat_ns < h->min_ns)
		h->min_ns = lat_ns;
	if (lat_ns > h->max_ns)
		h->max_ns = lat_ns;
}

void orr_lat_merge(struct orr_lat *dst, const struct orr_lat *src)
{
	for (unsigned i = 0; i < ORR_LAT_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t orr_lat_percentile(const struct orr_lat *h, double pct)
{
	if (h->count == 0)
		return 0;
	double want = ceil(pct / 100.0 * (double)h->count);
	uint64_t rank = want < 1.0 ? 1 : (uint64_t)want, seen = 0;
	if (rank > h->count)
		rank = h->count;
	for (unsigned i = 0; i < ORR_LAT_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		uint64_t v = orr_lat_bucket_max(i);
		if (v > h->max_ns)
			v = h->max_ns;
		return v < h->min_ns ? h->min_ns : v;
	}
	return h->max_ns;
}
