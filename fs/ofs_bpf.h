/* SPDX-License-Identifier: MIT */
/*
 * The eBPF layers (ofs_bpf.c): loaded for this mount, served in the
 * control directory, dumped beside the profile; their timeline
 * (ofs_bpf_tl.c) and virtual time (ofs_bpf_vt.c). Which source serves a
 * kernel-side layer -- eBPF, the daemon, osprof.ko -- is ofs_layer.h's.
 */
#ifndef OSPROF_FS_OFS_BPF_H
#define OSPROF_FS_OFS_BPF_H

#include <stdio.h>
#include "ofs.h"

/*
 * ofs_bpf_open - load the eBPF layers -o layers asks for (bpf/obp.h), for
 * this mount only: call after mounting (the mount's device is known),
 * before daemonizing (a failure can still be said). Without -o layers,
 * the layers that load are used (those osprof.ko serves are left to it)
 * and one line says why when none does; a layer named in -o layers that
 * cannot load is an error (-EOPNOTSUPP, or what stopped them all; said).
 * Why each layer asked for did not load is kept for ctl. 0 or -errno.
 */
int ofs_bpf_open(struct ofs *fs);
/* After daemonizing: the final pid is the one the lower layer traces. */
void ofs_bpf_daemon(struct ofs *fs);
/* Detach and free; NULL-safe. */
void ofs_bpf_close(struct ofs *fs);
/* True when eBPF layer @layer is loaded (the control files' predicate). */
bool ofs_bpf_present(struct ofs *fs, const char *layer);
/*
 * ofs_bpf_write - eBPF layer @layer, with this mount's source and
 * options and its timeline when one runs, written to @out by @w
 * (osp_write_stats, osp_write_json). 0, -ENOENT when it is not loaded,
 * or -errno.
 */
int ofs_bpf_write(struct ofs *fs, const char *layer, FILE *out,
		  int (*w)(FILE *, const struct osp_profile *));
/*
 * ofs_bpf_ctl_begin, ofs_bpf_ctl_end - around a control-directory
 * request's reply: the fuse layer leaves out the requests this thread
 * ends meanwhile, as the fs layer does. Nothing without a fuse layer.
 */
void ofs_bpf_ctl_begin(struct ofs *fs);
void ofs_bpf_ctl_end(struct ofs *fs);
/*
 * ofs_bpf_vt_deduct - what the calling thread's virtual time leaves out
 * so far (off-CPU and interrupt ns), from its eBPF slot, taken on its
 * first call (and given back when the thread exits). False when it has
 * none (all taken: counted in ctl's vt_errors).
 */
bool ofs_bpf_vt_deduct(struct ofs *fs, uint64_t *ns);
/*
 * ofs_bpf_timeline_start, ofs_bpf_timeline_stop - the eBPF layers'
 * timeline, started and stopped with the fs layer's (same interval and
 * capacity; each layer bounded in bytes as the fs layer is). Start: 0,
 * -E2BIG, -ENOMEM, -errno; 0 without eBPF layers. Stop: harmless when
 * none runs.
 */
int ofs_bpf_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity);
void ofs_bpf_timeline_stop(struct ofs *fs);
/* ctl's reset, enable and disable, for the eBPF layers. */
void ofs_bpf_reset(struct ofs *fs);
void ofs_bpf_enable(struct ofs *fs, bool on);
/* The eBPF layers' lines of the ctl file. */
void ofs_bpf_describe(struct ofs *fs, FILE *out);
/* --dump: each eBPF layer beside the fs layer's FILE. 0 or -errno (said). */
int ofs_bpf_dump(struct ofs *fs);

#endif /* OSPROF_FS_OFS_BPF_H */
