/* SPDX-License-Identifier: MIT */
/*
 * Log2 latency histograms, OSprof style.
 *
 * A value v (nanoseconds) falls in bucket i = ceil(r * log2(v)), v <= 1 in
 * bucket 0, so bucket i covers (2^((i-1)/r), 2^(i/r)] -- upper-inclusive,
 * the bounds of Prometheus native histograms (schema log2 r) and of
 * OpenTelemetry exponential histograms. r, the resolution, is the number of
 * buckets per power of two: 1, 2, 4 or 8. Bucket indices run 0 .. 64 * r.
 *
 * The index comes from one count-leading-zeros and, for r > 1, log2(r)
 * comparisons against a table of thresholds floor(2^(63 + m/8)), which are
 * exact integers, so the bucket of every 64-bit value is exact.
 *
 * struct osp_hist is the plain (single-writer, not thread-safe) histogram
 * used by readers, writers and tests; concurrent recording goes through
 * struct osp_set (set.h), which keeps per-thread shards.
 *
 * A struct osp_hist holds only its non-empty buckets, as (index, count)
 * pairs in ascending index order, so its memory follows the buckets used,
 * whatever the resolution: a profile read from a file costs what the file
 * holds, not 64 * res + 1 counters per histogram. Callers read buckets
 * with osp_hist_bucket() (0 for an empty one) or walk h->bk[0 .. h->nbk)
 * directly, and change them only through the functions below.
 */
#ifndef OSPROF_HIST_H
#define OSPROF_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OSP_RES_MAX 8u
/* Number of buckets at resolution @res: indices 0 .. 64 * res. */
#define OSP_HIST_NBUCKETS(res) (64u * (res) + 1u)
#define OSP_HIST_NBUCKETS_MAX OSP_HIST_NBUCKETS(OSP_RES_MAX)

/* floor(2^(63 + m/8)) for m = 0..7 (m = 0 is 2^63); see osp_bucket_index. */
extern const uint64_t osp_bucket_thresh63[8];

/* One non-empty bucket. */
struct osp_bucket {
	uint32_t idx;   /* bucket index, 0 .. 64 * res */
	uint64_t count; /* requests in it, never 0 */
};

struct osp_hist {
	uint32_t res;      /* buckets per power of two: 1, 2, 4 or 8 */
	uint32_t nbk;      /* non-empty buckets held in bk */
	uint32_t cap;      /* room in bk, in buckets */
	uint64_t count;    /* number of values recorded */
	uint64_t sum;      /* sum of the values (ns); wraps after 584 years */
	uint64_t min;      /* smallest value, 0 when empty */
	uint64_t max;      /* largest value, 0 when empty */
	struct osp_bucket *bk; /* nbk buckets, ascending idx; owned, read-only
				* to callers (NULL when cap is 0) */
};

/* True for the supported resolutions 1, 2, 4, 8. */
static inline bool osp_res_valid(unsigned res)
{
	return res == 1 || res == 2 || res == 4 || res == 8;
}

/*
 * osp_bucket_index - bucket of value @v (ns) at resolution @res.
 * @res must be valid (osp_res_valid); the result is in 0 .. 64 * res.
 * Constant time: no loop over buckets, no floating point.
 */
static inline unsigned osp_bucket_index(uint64_t v, unsigned res)
{
	unsigned k, s, shift, j;

	if (v <= 1)
		return 0;
	/* 2^(k-1) < v <= 2^k */
	k = 64u - (unsigned)__builtin_clzll(v - 1);
	if (res == 1)
		return k;
	s = k - 1;
	shift = 63u - s;
	/*
	 * Find how many of the thresholds floor(2^(s + m/r)), m = 1..r-1, lie
	 * below v: a binary search over at most three table entries. The
	 * thresholds are irrational, so v > floor(t) <=> v > t exactly.
	 */
	j = 0;
	if (res == 8) {
		if (v > (osp_bucket_thresh63[4] >> shift))
			j = 4;
		if (v > (osp_bucket_thresh63[j + 2] >> shift))
			j += 2;
		if (v > (osp_bucket_thresh63[j + 1] >> shift))
			j += 1;
	} else if (res == 4) {
		if (v > (osp_bucket_thresh63[4] >> shift))
			j = 2;
		if (v > (osp_bucket_thresh63[2 * j + 2] >> shift))
			j += 1;
	} else {
		if (v > (osp_bucket_thresh63[4] >> shift))
			j = 1;
	}
	return s * res + j + 1;
}

/* Upper (inclusive) bound of bucket @i in ns: 2^(i/res). */
double osp_bucket_upper_ns(unsigned i, unsigned res);
/* Lower (exclusive) bound of bucket @i in ns: 2^((i-1)/res); 0 for i = 0. */
double osp_bucket_lower_ns(unsigned i, unsigned res);

/*
 * osp_hist_init - make @h an empty histogram at resolution @res. Allocates
 * nothing: buckets are allocated as they fill. Returns 0, or -EINVAL for a
 * bad resolution (then @h is left zeroed, so osp_hist_fini on it is
 * harmless).
 */
int osp_hist_init(struct osp_hist *h, unsigned res);
/* Free @h's buckets and zero it; accepts a zeroed or NULL histogram. */
void osp_hist_fini(struct osp_hist *h);
/* Empty @h, keeping its resolution and the room it has allocated. */
void osp_hist_clear(struct osp_hist *h);
/* Make @dst (uninitialised) a copy of @src, with exactly the room its
 * buckets need. 0 or -ENOMEM (@dst left zeroed). */
int osp_hist_copy(struct osp_hist *dst, const struct osp_hist *src);

/* Count of bucket @i, 0 when it is empty or out of range. O(log nbk). */
uint64_t osp_hist_bucket(const struct osp_hist *h, unsigned i);

/*
 * osp_hist_bucket_set - set bucket @i's count to @n (0 empties it); count,
 * sum, min and max are not touched. Returns 0, -EINVAL when @i is out of
 * range for the resolution, -ENOMEM (nothing changed).
 */
int osp_hist_bucket_set(struct osp_hist *h, unsigned i, uint64_t n);

/*
 * osp_hist_reserve - make room for @n buckets in @h without reallocating
 * later (readers that know how many come). 0 or -ENOMEM.
 */
int osp_hist_reserve(struct osp_hist *h, unsigned n);

/*
 * osp_hist_to_dense - write every bucket's count, empty ones as 0, to
 * @out (OSP_HIST_NBUCKETS(h->res) counters), for computations that index
 * buckets directly.
 */
void osp_hist_to_dense(const struct osp_hist *h, uint64_t *out);
/*
 * osp_hist_from_dense - make @h's buckets the OSP_HIST_NBUCKETS(h->res)
 * counters at @in (count, sum, min and max untouched). Reuses @h's room
 * when it suffices, else allocates exactly what the non-empty ones need.
 * 0 or -ENOMEM (nothing changed).
 */
int osp_hist_from_dense(struct osp_hist *h, const uint64_t *in);

/* Bytes @h has allocated for its buckets (for memory accounting). */
size_t osp_hist_bytes(const struct osp_hist *h);

/*
 * osp_hist_record - record one value @v_ns into @h (single writer).
 * Returns 0, or -ENOMEM when a bucket not used before could not be
 * allocated (then nothing is recorded). The lock-free recording of a
 * profile set (set.h) never comes here.
 */
int osp_hist_record(struct osp_hist *h, uint64_t v_ns);

/*
 * osp_hist_merge - add @src into @dst bucket by bucket.
 * Returns 0; -EINVAL when the resolutions differ; -EOVERFLOW when a
 * bucket, count or sum would pass 2^64 - 1; -ENOMEM. On error nothing
 * changed.
 */
int osp_hist_merge(struct osp_hist *dst, const struct osp_hist *src);

/*
 * osp_hist_delta - what happened between two cumulative readings of one
 * histogram: @cur minus @prev (read earlier, so no bucket of it is
 * larger), into @d, uninitialised. Differences of cumulative counters
 * lose no event between readings (no copy-then-zero). @d's min and max
 * are exact when the interval moved the cumulative min or max; otherwise
 * they are the tightest integers inside its lowest and highest non-empty
 * buckets. 0; -EINVAL when the resolutions differ; -ENOMEM (@d left
 * zeroed).
 */
int osp_hist_delta(struct osp_hist *d, const struct osp_hist *cur,
		   const struct osp_hist *prev);

/* Sum of the buckets, saturating at UINT64_MAX; equals count when the
 * histogram is consistent. */
uint64_t osp_hist_bucket_total(const struct osp_hist *h);
/* True when the buckets add up to count (OSprof's checksum), without overflow. */
bool osp_hist_checksum_ok(const struct osp_hist *h);
/* What no recording produces in a histogram's count, sum, min and max. */
enum osp_hist_fault {
	OSP_HIST_FAULT_NONE,
	OSP_HIST_FAULT_MIN_OVER_MAX,      /* count > 0, min > max */
	OSP_HIST_FAULT_VALUES_NO_COUNT,   /* count 0, but sum, min or max not */
};
/* Which of them @h shows (its readers refuse it, each naming its fields). */
enum osp_hist_fault osp_hist_fault(const struct osp_hist *h);
/* Lowest and highest non-empty bucket; false when the histogram is empty. */
bool osp_hist_range(const struct osp_hist *h, unsigned *lo, unsigned *hi);
/* Mean in ns, 0 when empty. */
double osp_hist_mean(const struct osp_hist *h);

/*
 * osp_hist_percentile - the @p-th percentile (0 <= p <= 100) in ns,
 * interpolated geometrically within its bucket and clamped to [min, max].
 * Returns 0 for an empty histogram.
 */
double osp_hist_percentile(const struct osp_hist *h, double p);

#endif /* OSPROF_HIST_H */
