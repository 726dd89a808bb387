/* SPDX-License-Identifier: MIT */
/*
 * osprof-randread internals shared with its unit tests: the latency
 * histogram each reader fills (HDR-style: exact below 32 ns, then 32
 * sub-buckets per power of two, so a percentile is within 1/32 of the true
 * value) and the deterministic offset generator (splitmix64, seeded with
 * --seed plus the reader's index, so a run's offsets are reproducible on any
 * machine and libc).
 */
#ifndef ORR_H
#define ORR_H

#include <stdint.h>

#define ORR_LAT_SUB_BITS 5
#define ORR_LAT_SUB (1u << ORR_LAT_SUB_BITS)
/* Exact values below ORR_LAT_SUB, then ORR_LAT_SUB buckets for each
 * power of two from 2^5 to 2^63. */
#define ORR_LAT_BUCKETS (ORR_LAT_SUB + (64 - ORR_LAT_SUB_BITS) * ORR_LAT_SUB)

/* Latencies in nanoseconds; plain data, so it can live in shared memory. */
struct orr_lat {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t buckets[ORR_LAT_BUCKETS];
};

void orr_lat_init(struct orr_lat *h);
/* Record one latency: no allocation, no loop. */
void orr_lat_record(struct orr_lat *h, uint64_t lat_ns);
/* Add src's counts into dst. */
void orr_lat_merge(struct orr_lat *dst, const struct orr_lat *src);
/* Bucket of a value, and the largest value a bucket holds. */
unsigned orr_lat_bucket(uint64_t lat_ns);
uint64_t orr_lat_bucket_max(unsigned bucket);
/*
 * The pct-th percentile (0 < pct <= 100): the upper bound of the bucket
 * holding the ceil(pct% * count)-th smallest value, clipped to [min, max].
 * 0 when the histogram is empty.
 */
uint64_t orr_lat_percentile(const struct orr_lat *h, double pct);

/* splitmix64 (Steele, Lea, Flood), enough for choosing offsets. */
struct orr_rng {
	uint64_t state;
};

void orr_rng_seed(struct orr_rng *r, uint64_t seed);
uint64_t orr_rng_next(struct orr_rng *r);
/* Uniform in [0, n), n > 0, without modulo bias (Lemire's method). */
uint64_t orr_rng_below(struct orr_rng *r, uint64_t n);

#endif /* ORR_H */
