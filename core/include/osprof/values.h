/* SPDX-License-Identifier: MIT */
/*
 * Value profiles (OSprof's "direct profile and value correlation"): the
 * buckets of the values osprof-fs correlates with a request's latency
 * bucket (-o values), shared by the daemon that records them and the
 * report that reads them, so both agree on one layout:
 *  - size: a request's size in bytes, log2: bucket k holds
 *    (2^(k-1), 2^k] bytes, bucket 0 holds 0 and 1 byte; 0 .. 64;
 *  - seek: the seek distance, the request's offset minus where the
 *    previous request on the same open file ended, signed: 0 the first
 *    request on the file, 1 exactly sequential (distance 0), 2 + k forward
 *    by (2^(k-1), 2^k] bytes, 67 + k backward by as much (k = 0 .. 64);
 *  - at_end: 1 when a readdir reply carried no entries (its offset was at
 *    or past the end of the directory), else 0.
 * Header only: pure arithmetic and names.
 */
#ifndef OSPROF_VALUES_H
#define OSPROF_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "osprof/hist.h"

enum osp_value_kind { OSP_VALUE_SIZE, OSP_VALUE_SEEK, OSP_VALUE_AT_END, OSP_VALUE__COUNT };

#define OSP_VALUE_SIZE_N 65u
#define OSP_VALUE_SEEK_FIRST 0u
#define OSP_VALUE_SEEK_SEQ 1u
#define OSP_VALUE_SEEK_FWD 2u
#define OSP_VALUE_SEEK_BACK 67u
#define OSP_VALUE_SEEK_N 132u
#define OSP_VALUE_AT_END_N 2u
/* The most value buckets of any kind. */
#define OSP_VALUE_N_MAX OSP_VALUE_SEEK_N

/* "size", "seek", "at_end"; NULL out of range. */
static inline const char *osp_value_kind_name(enum osp_value_kind k)
{
	static const char *const names[OSP_VALUE__COUNT] = { "size", "seek", "at_end" };

	return (unsigned)k < OSP_VALUE__COUNT ? names[k] : NULL;
}

/* The unit of a kind's values: "bytes", or "bool" for at_end. */
static inline const char *osp_value_unit(enum osp_value_kind k)
{
	return k == OSP_VALUE_AT_END ? "bool" : "bytes";
}

/* Number of value buckets of kind @k (0 out of range). */
static inline unsigned osp_value_nbuckets(enum osp_value_kind k)
{
	static const unsigned n[OSP_VALUE__COUNT] = { OSP_VALUE_SIZE_N, OSP_VALUE_SEEK_N,
						       OSP_VALUE_AT_END_N };

	return (unsigned)k < OSP_VALUE__COUNT ? n[k] : 0;
}

/* The kind named @s, or -1. */
static inline int osp_value_kind_parse(const char *s)
{
	for (unsigned k = 0; k < OSP_VALUE__COUNT; k++)
		if (strcmp(s, osp_value_kind_name((enum osp_value_kind)k)) == 0)
			return (int)k;
	return -1;
}

/* The size bucket of @bytes. */
static inline unsigned osp_value_size_bucket(uint64_t bytes)
{
	return osp_bucket_index(bytes, 1);
}

/*
 * osp_value_seek_bucket - the seek bucket of a request at @off_bytes whose
 * open file's previous request ended at @prev_end (negative: none, the
 * first request). Offsets are file offsets, >= 0.
 */
static inline unsigned osp_value_seek_bucket(int64_t prev_end, int64_t off_bytes)
{
	if (prev_end < 0)
		return OSP_VALUE_SEEK_FIRST;
	if (off_bytes == prev_end)
		return OSP_VALUE_SEEK_SEQ;
	if (off_bytes > prev_end)
		return OSP_VALUE_SEEK_FWD +
		       osp_bucket_index((uint64_t)off_bytes - (uint64_t)prev_end, 1);
	return OSP_VALUE_SEEK_BACK + osp_bucket_index((uint64_t)prev_end - (uint64_t)off_bytes, 1);
}

/* 2^@k bytes for people: "512B", "4KiB", "1MiB" ... into @buf. */
static inline char *osp_value_fmt_pow2(char *buf, size_t len, unsigned k)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

	snprintf(buf, len, "%llu%s", 1ull << (k % 10), units[k / 10 < 7 ? k / 10 : 6]);
	return buf;
}

/*
 * osp_value_label - value bucket @b of kind @k for people, by its upper
 * bound: size "<=1B", "4KiB" (more than 2KiB, up to 4KiB); seek "first",
 * "sequential", "+4KiB", "-4KiB"; at_end "at end", "not at end". Into
 * @buf; returns @buf ("?" for a bucket out of range).
 */
static inline char *osp_value_label(enum osp_value_kind k, unsigned b, char *buf, size_t len)
{
	char n[24];

	if (b >= osp_value_nbuckets(k))
		snprintf(buf, len, "?");
	else if (k == OSP_VALUE_AT_END)
		snprintf(buf, len, "%s", b ? "at end" : "not at end");
	else if (k == OSP_VALUE_SIZE)
		snprintf(buf, len, "%s%s", b ? "" : "<=", osp_value_fmt_pow2(n, sizeof(n), b));
	else if (b == OSP_VALUE_SEEK_FIRST)
		snprintf(buf, len, "first");
	else if (b == OSP_VALUE_SEEK_SEQ)
		snprintf(buf, len, "sequential");
	else if (b < OSP_VALUE_SEEK_BACK)
		snprintf(buf, len, "+%s", osp_value_fmt_pow2(n, sizeof(n), b - OSP_VALUE_SEEK_FWD));
	else
		snprintf(buf, len, "-%s", osp_value_fmt_pow2(n, sizeof(n), b - OSP_VALUE_SEEK_BACK));
	return buf;
}

#endif /* OSPROF_VALUES_H */
