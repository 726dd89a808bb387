/* SPDX-License-Identifier: MIT */
/*
 * osprof-exporter's parts: the sources it reads on every scrape (a mount,
 * a run directory or /proc/osprof), the two expositions of core's metric
 * family (Prometheus text, protobuf with native histograms), content
 * negotiation and the listen address. The HTTP
 * server (libmicrohttpd) lives in oex_http.c and calls these; all of them
 * are reentrant (no global state), so scrapes run in parallel.
 */
#ifndef OEX_H
#define OEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "osprof/metrics.h"
#include "osprof/profile.h"

#define OEX_PROG "osprof-exporter"
#define OEX_DEFAULT_LISTEN "127.0.0.1:9464"
/* Layers a source may hold: fs, fuse, syscall, lower, block, irq. */
#define OEX_LAYERS_MAX 8

/* What one scrape read from one source (the path given on the command line). */
struct oex_source {
	const char *path;   /* as given: the "mount" label; borrowed */
	bool up;            /* at least one layer could be read */
	size_t n;           /* profiles in prof */
	struct osp_profile *prof[OEX_LAYERS_MAX]; /* one per layer, owned */
};

/*
 * oex_source_check - whether @path names a source at all, by core's rule
 * (osp_source_find): 0 for an osprof-fs mount, a run directory,
 * /proc/osprof or a file; else -errno (-ENOENT, -EACCES, ...; -EINVAL for
 * a directory with no profile or a device, FIFO or socket) with what it
 * is instead in @err. Asked once, at start: a source that goes away later
 * is a source down, not an error.
 */
int oex_source_check(const char *path, char *err, size_t errlen);

/*
 * oex_source_load - read every layer of @path now into @src (zeroed by
 * the caller): @path/.osprof/ (a mount), a directory of layer files (a
 * saved run: stats.json or fs.json, fuse.json, syscall.json, lower.json,
 * block.json, irq.json) or of the kernel module's text (/proc/osprof),
 * or a single JSON profile file.
 * A layer that cannot be read is left out, its reason written to @log
 * (when not NULL) as one line naming the file; src->up says whether any
 * was read. Never fails otherwise. Free with oex_source_fini.
 */
void oex_source_load(struct oex_source *src, const char *path, FILE *log);
void oex_source_fini(struct oex_source *src);

/* The families osprof-exporter serves beside core's (osprof/metrics.h). */
#define OEX_FAMILY_UP "osprof_source_up"

/*
 * oex_om_sources - the profiles of @n sources, in order, as core's
 * metric sources (mount label: the source's path as given) into @out,
 * which has room for @n * OEX_LAYERS_MAX; returns how many.
 */
size_t oex_om_sources(const struct oex_source *srcs, size_t n,
		      struct osp_om_src *out);

/*
 * oex_write_text - @n sources in the Prometheus text format 0.0.4:
 * core's families (osp_write_metrics), then osprof_source_up per source.
 * 0, -ENOMEM, or -EIO when @out reports an error.
 */
int oex_write_text(FILE *out, const struct oex_source *srcs, size_t n);

/*
 * oex_write_proto - @n sources as varint-delimited
 * io.prometheus.client.MetricFamily messages: the series of the text
 * format, each histogram with its classic buckets and its native ones
 * (schema log2 of the resolution, in seconds). 0, -ENOMEM, or -EIO when
 * @out reports an error.
 */
int oex_write_proto(FILE *out, const struct oex_source *srcs, size_t n);

/*
 * oex_native_shift - K of resolution @res: our bucket i (bounds 2^(i/r)
 * ns) is native bucket i - K of schema log2 r in seconds (bounds
 * 2^((i-K)/r) s), K = round(r * log2(1e9)), the native bound nearest
 * ours (never exactly: 1e9 is no power of two).
 */
int oex_native_shift(unsigned res);

/* The Content-Type of each exposition. */
#define OEX_CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define OEX_CT_PROTO "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited"

/*
 * oex_accept_wants_proto - whether an HTTP Accept header value @accept
 * (NULL when absent) prefers the delimited protobuf exposition to text:
 * its q is above 0 and not below that of any text type (text/plain,
 * application/openmetrics-text, text/ *, * / *). Any input is safe.
 */
bool oex_accept_wants_proto(const char *accept);

/*
 * oex_addr_parse - "HOST:PORT", HOST an IPv4 address or a bracketed IPv6
 * one ("[::1]:9464"), PORT 0..65535, into @ss (length in @sslen). No
 * names are looked up. 0, or -EINVAL with the reason in @err.
 */
int oex_addr_parse(const char *text, struct sockaddr_storage *ss,
		   socklen_t *sslen, char *err, size_t errlen);

#endif /* OEX_H */
