/* SPDX-License-Identifier: MIT */
/*
 * Comparability of two profiles: before two profiles are compared or
 * merged, what changes which requests reach the profiler, or how their
 * latencies are measured, must be the same in both, or the person reading
 * the answer must be told. This lists the differences -- layer, where the
 * layer was taken (source.layer_source), resolution, unit, clock source,
 * and every key of `options` (kernel caching, entry and attribute
 * timeouts, direct_io, writeback, CPU-time source, threads, ...) -- one
 * note per difference, each with the reason it matters. Callers print
 * them (osp_compat_line gives one line of text) or refuse.
 *
 * Not compared: host and cycles_per_ns (profiles are in ns so that
 * machines compare bucket for bucket), the source's mount, lower and pid
 * (where a run was taken, not how), and options named lost_* (counts of
 * events osprof-trace lost in one run, not settings).
 *
 * A profile made by `osprof-report merge --force` of inputs whose options
 * differ lacks the keys they disagreed on and lists each input's in the
 * option OSP_COMPAT_MERGED_KEY; that key is not compared itself, and a key
 * missing for that reason reads "mixed".
 *
 * Pure computation on caller-owned data; no I/O, no global state.
 */
#ifndef OSPROF_COMPARABLE_H
#define OSPROF_COMPARABLE_H

#include <stddef.h>

#include "profile.h"

/* The option of a merged profile listing each input's settings. */
#define OSP_COMPAT_MERGED_KEY "merged"

/* One difference between profiles A and B. */
struct osp_compat_note {
	char *key;       /* "layer", "layer_source", "resolution", "unit",
			  * "clock", or the option's key (owned) */
	char *a, *b;     /* the values for people (osp_kv_text's form);
			  * "unset" when absent, "mixed" in a merge of inputs
			  * that differed (owned; not escaped) */
	const char *why; /* what the difference changes (static) */
};

struct osp_compat {
	size_t n;
	struct osp_compat_note *notes; /* in the order listed above, then
					* options in A's order, then B's */
};

/*
 * osp_profile_comparable - fill @out with the differences between @a and
 * @b that change what reaches the profiler or how it is measured (none:
 * n == 0, and @out holds nothing to free). Numbers in options compare by
 * value (1 and 1.0 are equal). Free @out with osp_compat_free.
 * Returns 0, or -ENOMEM (@out then empty).
 */
int osp_profile_comparable(const struct osp_profile *a,
			   const struct osp_profile *b, struct osp_compat *out);
/* Free @c's notes; accepts a zeroed struct. */
void osp_compat_free(struct osp_compat *c);

/*
 * osp_compat_line - @n as one line into @buf (@len > 0), without a
 * newline: "cache differs: auto vs never (kernel caching changes which
 * requests reach the daemon)". The values are as the profiles hold them:
 * escape the line for the language it goes into. Truncates to fit;
 * returns @buf.
 */
char *osp_compat_line(const struct osp_compat_note *n, char *buf, size_t len);

#endif /* OSPROF_COMPARABLE_H */
