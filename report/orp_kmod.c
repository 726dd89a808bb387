// SPDX-License-Identifier: MIT
/*
 * The one place osprof-report turns the kernel module's /proc/osprof text
 * (layers lower, block, irq: one record a line, key=value pairs,
 * histograms as hist=b:c,...) into a profile: core's osp_read_kmod
 * (osprof/kmod.h) knows the format. report/meson.build defines
 * ORP_HAVE_KMOD when core/src/read_kmod.c is in the tree; a build without
 * it says so plainly instead of guessing at the format.
 */
#include <stdio.h>

#include "orp.h"
#ifdef ORP_HAVE_KMOD
#include "osprof/kmod.h"
#endif

struct osp_profile *orp_kmod_parse(const char *layer, const char *text,
				   size_t len, char *err, size_t errlen)
{
#ifdef ORP_HAVE_KMOD
	return osp_read_kmod(layer, text, len, err, errlen);
#else
	(void)text;
	(void)len;
	snprintf(err, errlen,
		 "kernel module profiles not supported yet (layer %s): read the JSON form (e.g. MOUNT/.osprof/%s.json) instead",
		 layer, layer);
	return NULL;
#endif
}
