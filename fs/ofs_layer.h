/* SPDX-License-Identifier: MIT */
/*
 * Which source serves a kernel-side layer (ofs_layer.c): its eBPF layer
 * when loaded, else for lower the daemon's own timing of its calls, else
 * osprof.ko; and that source's view of it, for the control directory.
 */
#ifndef OSPROF_FS_OFS_LAYER_H
#define OSPROF_FS_OFS_LAYER_H

#include <stdbool.h>
#include <stdio.h>

#include "ofs.h"

/* Who serves a layer, by preference: the first that has it. */
enum ofs_layer_source {
	OFS_LAYER_NONE,
	OFS_LAYER_EBPF,         /* its eBPF layer is loaded (ofs_bpf.h) */
	OFS_LAYER_DAEMON,       /* lower: the daemon times its calls (ofs_lower.h) */
	OFS_LAYER_KMOD,         /* osprof.ko has it (ofs_kmod.h) */
	OFS_LAYER__COUNT
};
/* ctl's words for each: "none", "ebpf", "daemon", "osprof.ko". */
extern const char *const ofs_layer_source_names[OFS_LAYER__COUNT];

/* Which source serves layer @layer ("lower", "block", ...) now. */
enum ofs_layer_source ofs_layer_source(struct ofs *fs, const char *layer);
/* True when some source serves @layer (the control files' predicate). */
bool ofs_layer_present(struct ofs *fs, const char *layer);
/*
 * ofs_layer_gen_text, ofs_layer_gen_json - the kernel-side layer @layer
 * in the human view or as JSON, from the source that serves it
 * (ofs_kmod_gen_* when none does, which fails). 0 or -errno.
 */
int ofs_layer_gen_text(struct ofs *fs, const char *layer, FILE *out);
int ofs_layer_gen_json(struct ofs *fs, const char *layer, FILE *out);

#endif /* OSPROF_FS_OFS_LAYER_H */
