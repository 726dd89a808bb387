/* SPDX-License-Identifier: MIT */
/*
 * Reader of the kernel module's profiles: the text of
 * /proc/osprof/{lower,block,irq} (kmod/README.md) into a struct
 * osp_profile, so every tool handles the module's layers like the fs
 * layer.
 *
 * The text: an optional header line "layer=<layer> clock=<tsc|ktime>
 * cycles_per_ns=<x> enabled=<0|1>", then one record a line of
 * single-space-separated key=value pairs, histograms as
 * "hist=b:c,b:c,..." (sparse, ascending bucket index, resolution 1, ns).
 *
 *   lower  op=<op> count= sum_ns= min_ns= max_ns= hist=
 *                  vcount= vsum_ns= vmin_ns= vmax_ns= vhist=
 *          -> op <op>; lat = the physical histogram, cpu = the virtual
 *             one (has_cpu true): time the calling thread ran, without
 *             time switched out or in interrupt handlers.
 *   block  dev=<disk> dir=<read|write|flush|discard|other> count= ...
 *          -> op "<disk>.<dir>"; lat = issue-to-completion latency.
 *   irq    irq=<line|LOC|RES|...|softirq> name=<handler> count= ... hist=
 *          pmc=<available|unavailable> [<event>=<sum> ...]
 *          -> op "<irq>:<name>"; lat = handler durations; attr "pmc";
 *             with pmc=available, every key after it is a counter
 *             (the sum of that event's deltas over the handler runs).
 *
 * The profile has resolution 1, unit "ns", layer @layer, source
 * layer_source "osprof.ko" (the eBPF layers' say "ebpf"), clock_source and
 * cycles_per_ns from the header ("ktime" and 1 without one), and the
 * header's enabled flag as option "enabled". Unknown keys are ignored.
 * Checksums are not enforced here: call osp_profile_check().
 */
#ifndef OSPROF_KMOD_H
#define OSPROF_KMOD_H

#include <stddef.h>

#include "profile.h"

/*
 * osp_read_kmod - parse @len bytes at @text (need not be NUL-terminated)
 * as the /proc/osprof file of @layer ("lower", "block" or "irq").
 * Returns a new profile (free with osp_profile_free), or NULL with a
 * one-line reason in @err naming the line and the key, e.g.
 * "irq line 3: key 'count': not a number: 'x1'". Thread-safe (no global
 * state).
 */
struct osp_profile *osp_read_kmod(const char *layer, const char *text,
				  size_t len, char *err, size_t errlen);

#endif /* OSPROF_KMOD_H */
