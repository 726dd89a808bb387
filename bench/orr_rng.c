// SPDX-License-Identifier: MIT
/*
 * The offset generator of osprof-randread: splitmix64, whose output is the
 * same everywhere for a given seed (unlike random(3), whose sequence is the
 * C library's choice), and Lemire's multiply-shift to map it onto [0, n)
 * without the bias of a modulo.
 */
#include "orr.h"

void orr_rng_seed(struct orr_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t orr_rng_next(struct orr_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t orr_rng_below(struct orr_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)orr_rng_next(r) * n;
	uint64_t low = (uint64_t)m;

	if (low < n) {
		/* Reject the few values that would favour small results. */
		uint64_t threshold = -n % n;
		while (low < threshold) {
			m = (unsigned __int128)orr_rng_next(r) * n;
			low = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}
