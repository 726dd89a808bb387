// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the reader of the kernel module's /proc text,
 * osp_read_kmod (core's read_kmod.c). Each input is read as each of the
 * three layers, since a record of one layer is malformed input to the
 * others. Beyond ofz_check_profile's invariants, an accepted profile is
 * what kmod.h promises: resolution 1, the layer asked for, and CPU
 * histograms exactly in layer "lower".
 */
#include <string.h>

#include "osprof/kmod.h"
#include "ofz.h"

static void check_kmod_profile(const char *layer, const struct osp_profile *p)
{
	if (p->res != 1 || !p->layer || strcmp(p->layer, layer) != 0)
		ofz_fail("%s: resolution %u, layer '%s'", layer, p->res,
			 p->layer ? p->layer : "(null)");
	if (p->nsnaps || p->tl_interval_ns)
		ofz_fail("%s: a timeline from /proc text", layer);
	for (size_t i = 0; i < p->nops; i++)
		if (p->ops[i].has_cpu != (strcmp(layer, "lower") == 0))
			ofz_fail("%s: op '%s' has_cpu %d", layer, p->ops[i].name,
				 p->ops[i].has_cpu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const layers[] = { "lower", "block", "irq" };

	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		char err[256];
		struct osp_profile *p;

		p = osp_read_kmod(layers[i], (const char *)data, size, err,
				  sizeof(err));
		if (!p) {
			ofz_check_err(layers[i], err, sizeof(err));
			continue;
		}
		check_kmod_profile(layers[i], p);
		ofz_check_profile(p);
		osp_profile_free(p);
	}
	return 0;
}
