// SPDX-License-Identifier: MIT
/*
 * Which source serves a kernel-side layer (ofs_layer.h): the eBPF layer
 * when it is loaded; else, for lower, the daemon timing its own calls
 * (ofs_lower.c); else osprof.ko when it has the layer. Which are loaded
 * or kept is decided at start (ofs_bpf_open: unasked, the module's
 * layers stay the module's); each profile says which served it
 * (source.layer_source).
 */
#include <string.h>

#include "osprof/format.h"
#include "osprof/layers.h"
#include "ofs_bpf.h"
#include "ofs_kmod.h"
#include "ofs_layer.h"
#include "ofs_lower.h"

const char *const ofs_layer_source_names[OFS_LAYER__COUNT] = {
	[OFS_LAYER_NONE] = "none",
	[OFS_LAYER_EBPF] = "ebpf",
	[OFS_LAYER_DAEMON] = "daemon",
	[OFS_LAYER_KMOD] = "osprof.ko",
};
_Static_assert(sizeof(ofs_layer_source_names) / sizeof(ofs_layer_source_names[0]) ==
	       OFS_LAYER__COUNT, "a name for every source");

enum ofs_layer_source ofs_layer_source(struct ofs *fs, const char *layer)
{
	if (ofs_bpf_present(fs, layer))
		return OFS_LAYER_EBPF;
	/* not eBPF's: the daemon's own */
	if (fs->lower && strcmp(layer, OSP_LAYER_LOWER) == 0)
		return OFS_LAYER_DAEMON;
	if (ofs_kmod_present(fs, layer))
		return OFS_LAYER_KMOD;
	return OFS_LAYER_NONE;
}

bool ofs_layer_present(struct ofs *fs, const char *layer)
{
	return ofs_layer_source(fs, layer) != OFS_LAYER_NONE;
}

/* The daemon's lower layer written with @w. */
static int lower_gen(struct ofs *fs, FILE *out, int (*w)(FILE *, const struct osp_profile *))
{
	struct osp_profile *p = ofs_lower_profile(fs);
	int err;

	if (!p)
		return -ENOMEM;
	err = w(out, p);
	osp_profile_free(p);
	return err;
}

/* @layer from the source that serves it, written with @w, or by @kmod
 * (osprof.ko's view in the same form) when none but the module might. */
static int layer_gen(struct ofs *fs, const char *layer, FILE *out,
		     int (*w)(FILE *, const struct osp_profile *),
		     int (*kmod)(struct ofs *, const char *, FILE *))
{
	switch (ofs_layer_source(fs, layer)) {
	case OFS_LAYER_EBPF:
		return ofs_bpf_write(fs, layer, out, w);
	case OFS_LAYER_DAEMON:
		return lower_gen(fs, out, w);
	default:
		return kmod(fs, layer, out);
	}
}

int ofs_layer_gen_text(struct ofs *fs, const char *layer, FILE *out)
{
	return layer_gen(fs, layer, out, osp_write_stats, ofs_kmod_gen_text);
}

int ofs_layer_gen_json(struct ofs *fs, const char *layer, FILE *out)
{
	return layer_gen(fs, layer, out, osp_write_json, ofs_kmod_gen_json);
}
