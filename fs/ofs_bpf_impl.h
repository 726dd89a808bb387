/* SPDX-License-Identifier: MIT */
/*
 * Between the files of osprof-fs's eBPF layers (not for the rest of the
 * daemon, which has ofs_bpf.h): ofs_bpf.c loads and closes them, with
 * the virtual time of ofs_bpf_vt.c and the timeline of ofs_bpf_tl.c.
 */
#ifndef OSPROF_FS_OFS_BPF_IMPL_H
#define OSPROF_FS_OFS_BPF_IMPL_H

#include <stdint.h>

#include "obp.h"
#include "ofs.h"

/* -o cpu_time: eBPF's virtual time where it loads, else the thread
 * clock, quietly (ctl and the profile's options say which). */
void ofs_bpf_vt_open(struct ofs *fs);
/* Close it; the workers have stopped (nothing reads a slot any more). */
void ofs_bpf_vt_close(struct ofs *fs);
/* Threads left without a slot so far (ctl's vt_errors). */
uint64_t ofs_bpf_vt_errors(void);

/* The timeline's state, not running: 0 or -ENOMEM (said). */
int ofs_bpf_tl_new(struct ofs *fs);
/* Free it (stopped first); none is harmless. */
void ofs_bpf_tl_free(struct ofs *fs);
/* Layer @l's timeline into @p, with the interval in progress: the
 * snapshots add up to @p's totals unless some were dropped. 0 or -errno. */
int ofs_bpf_tl_copy(struct ofs *fs, enum obp_layer l, struct osp_profile *p);
/* Empty the eBPF layers' maps and the timeline's snapshots together, so
 * that the next reading starts from nothing. */
void ofs_bpf_tl_reset(struct ofs *fs);

#endif /* OSPROF_FS_OFS_BPF_IMPL_H */
