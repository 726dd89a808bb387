// SPDX-License-Identifier: MIT
/*
 * The classic exposition: core's metric family (osprof/metrics.h, the
 * same series .osprof/metrics and osprof-report export write) over every
 * source read at this scrape, labelled with the source's path as given,
 * in Prometheus's text format 0.0.4; then the gauge osprof_source_up,
 * one per source, up or not.
 */
#include <errno.h>
#include <stdlib.h>

#include "oex.h"
#include "osprof/escape.h"

size_t oex_om_sources(const struct oex_source *srcs, size_t n,
		      struct osp_om_src *out)
{
	size_t m = 0;

	for (size_t s = 0; s < n; s++)
		for (size_t l = 0; l < srcs[s].n; l++)
			out[m++] = (struct osp_om_src){ .mount = srcs[s].path,
							.p = srcs[s].prof[l] };
	return m;
}

int oex_write_text(FILE *out, const struct oex_source *srcs, size_t n)
{
	struct osp_om_src *om = calloc(n * OEX_LAYERS_MAX + 1, sizeof(*om));
	int rc;

	if (!om)
		return -ENOMEM;
	rc = osp_write_metrics(out, om, oex_om_sources(srcs, n, om), 0);
	free(om);
	if (rc)
		return rc;
	fprintf(out, "# HELP %s Whether the source could be read at this scrape (1) or not (0).\n# TYPE %s gauge\n",
		OEX_FAMILY_UP, OEX_FAMILY_UP);
	for (size_t s = 0; s < n; s++) {
		fprintf(out, "%s{mount=\"", OEX_FAMILY_UP);
		osp_esc_om(out, srcs[s].path);
		fprintf(out, "\"} %d\n", srcs[s].up ? 1 : 0);
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
