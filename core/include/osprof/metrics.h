/* SPDX-License-Identifier: MIT */
/*
 * osprof's metrics for Prometheus: one family of histograms for every
 * layer and every program that serves them (.osprof/metrics, osprof-report
 * export --format openmetrics, osprof-exporter), so a dashboard or an
 * alert moves between them unchanged.
 *
 *   osprof_latency_seconds{mount, layer, device | irq, op}   histogram
 *   osprof_cpu_seconds{...the same}    CPU time per request, where profiled
 *   osprof_info{mount, layer, version, lower, resolution, <options>} 1
 *
 * Labels: `mount` the source a profile was read from (absent for the
 * machine-wide layers, block and irq, which are served once however many
 * mounts hold them); `layer`; `op` the operation or system call; for
 * layer block, the profile's operation "DEV.DIR" (or "DEV.DIR.queue") as
 * `device` DEV and `op` DIR (or DIR.queue: the time the requests waited
 * in the I/O scheduler before the device saw them); for layer irq the
 * interrupt or softirq ("31:virtio0-stats", "softirq:TIMER") as `irq`,
 * with no `op`. Requests are the histogram's `_count`.
 *
 * Classic buckets are a fixed set of powers of two of nanoseconds per
 * layer (osp_om_le_of), the same on every host and at every resolution,
 * so series from a fleet add up; their counts are exact, since every
 * resolution's bucket bounds include the powers of two. An operation
 * with no request is not served (it appears at its first request, as
 * the eBPF layers' operations always have).
 *
 * osp_om_walk gives every series of a family with its labels, for any
 * exposition (core writes the text ones; osprof-exporter its protobuf);
 * osp_write_metrics writes the text. Neither keeps state: thread-safe.
 */
#ifndef OSPROF_METRICS_H
#define OSPROF_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#define OSP_OM_LATENCY "osprof_latency_seconds"
#define OSP_OM_CPU "osprof_cpu_seconds"
#define OSP_OM_INFO "osprof_info"

/* One profile to serve, and the source it is served as. */
struct osp_om_src {
	const char *mount;            /* the mount label; NULL: the profile's
				       * source.mount, none when it has none */
	const struct osp_profile *p;  /* borrowed */
};

/*
 * Labels of osprof_info beyond mount, layer, version, lower, resolution:
 * one per option of the profile, at most this many (the rest are left
 * out).
 */
#define OSP_OM_INFO_OPTIONS_MAX 32
#define OSP_OM_LABELS_MAX (6 + OSP_OM_INFO_OPTIONS_MAX)

/* One series given by osp_om_walk; everything in it lives for the call. */
struct osp_om_series {
	const char *family;           /* OSP_OM_LATENCY, OSP_OM_CPU or OSP_OM_INFO */
	const struct osp_om_src *src; /* the profile it comes from */
	const struct osp_hist *h;     /* the histogram; NULL for osprof_info */
	size_t nlabels;
	const char *name[OSP_OM_LABELS_MAX];  /* valid label names, distinct */
	const char *value[OSP_OM_LABELS_MAX]; /* raw: escape for the output */
};

/* Whether @layer is measured for the whole machine (block, irq). */
bool osp_om_machine_wide(const char *layer);

/*
 * The fixed classic bucket bounds of a layer: 2^k ns for every k in
 * [lo_exp, hi_exp], then +Inf. block 2^10 .. 2^36 (1.024 us .. 68.7 s),
 * irq 2^6 .. 2^30 (64 ns .. 1.07 s), every other layer 2^8 .. 2^36
 * (256 ns .. 68.7 s).
 */
struct osp_om_le {
	unsigned lo_exp, hi_exp;
};
struct osp_om_le osp_om_le_of(const char *layer);
/* How many of @h's values are <= 2^@exp ns: exact at every resolution. */
uint64_t osp_om_le_cumulative(const struct osp_hist *h, unsigned exp);
/*
 * @ns nanoseconds as an exact decimal of seconds ("0.000001024",
 * "68.719476736", "2.5") into @buf (32 bytes hold any); returns @buf.
 */
char *osp_om_seconds(char *buf, size_t len, uint64_t ns);

/*
 * osp_om_walk - call @fn(@ctx, series) for every series of @family served
 * from the @n profiles @src, in their order, the operations in each
 * profile's order. A profile whose mount label and layer are those of an
 * earlier one is not served (a machine-wide layer comes once, from the
 * first profile that holds it); an empty histogram is not served;
 * osprof_info has one series per profile served. Stops at the first
 * non-zero return of @fn and returns it; 0 when all were given; -ENOMEM.
 */
int osp_om_walk(const struct osp_om_src *src, size_t n, const char *family,
		int (*fn)(void *ctx, const struct osp_om_series *s), void *ctx);

/* osp_write_metrics's @flags: OpenMetrics 1.0 (# UNIT lines, a final
 * # EOF) rather than Prometheus's text format 0.0.4. */
#define OSP_OM_OPENMETRICS 1u
/*
 * osp_write_metrics - every series of the @n profiles @src as text: the
 * latency family, the CPU family when some operation has CPU time,
 * osprof_info. Label values escaped with osp_esc_om. 0, -ENOMEM, or -EIO
 * when @out reports an error.
 */
int osp_write_metrics(FILE *out, const struct osp_om_src *src, size_t n,
		      unsigned flags);

#endif /* OSPROF_METRICS_H */
