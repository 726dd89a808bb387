/* SPDX-License-Identifier: MIT */
/*
 * What the fuzz targets share: the invariants a reader's result must keep,
 * checked after every accepted or refused input. A broken invariant is a
 * bug as real as a crash, so it ends in abort(): libFuzzer saves the input
 * and the run fails. Single-threaded, like libFuzzer's calls.
 */
#ifndef OSPROF_FUZZ_OFZ_H
#define OSPROF_FUZZ_OFZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "osprof/profile.h"

/* The entry point libFuzzer calls; declared here for -Wmissing-prototypes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print "osprof fuzz: invariant broken: ..." and abort(). */
void ofz_fail(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/*
 * ofz_check_err - a refusal's message, in the @errlen bytes at @err, must
 * be NUL-terminated within them, non-empty and one line; @who names the
 * reader in the failure.
 */
void ofz_check_err(const char *who, const char *err, size_t errlen);

/*
 * ofz_check_profile - the invariants of an accepted profile @p:
 *  - every histogram has the profile's resolution and bucket count;
 *  - osp_profile_check reports exactly the histograms whose buckets do not
 *    add up to count (adding without wrapping), one line each;
 *  - every writer (stats, timeline, OpenMetrics, JSON) succeeds on it;
 *  - its JSON is read back to the same operations, counts and buckets,
 *    and writing that again gives the same bytes.
 */
void ofz_check_profile(const struct osp_profile *p);

#endif /* OSPROF_FUZZ_OFZ_H */
