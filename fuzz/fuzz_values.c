// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: osprof-report's reader of osprof-fs's value profiles
 * (values.json, report/orp_values_read.c), on any bytes. A refusal must
 * say why in one line; an accepted document must hold only what the
 * reader promises (a valid resolution, tables of known kinds, sizes
 * matching their kind) and read the same twice.
 */
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "ofz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct orp_values a, b;
	char err[512];

	if (orp_values_parse(&a, (const char *)data, size, err, sizeof(err)) != 0) {
		ofz_check_err("orp_values_parse", err, sizeof(err));
		return 0;
	}
	if (!osp_res_valid(a.res) || a.nlat != OSP_HIST_NBUCKETS(a.res) ||
	    a.n > ORP_VALUES_TABLES_MAX)
		ofz_fail("orp_values_parse: accepted resolution %u, %u latency buckets, %zu tables",
			 a.res, a.nlat, a.n);
	if (orp_values_parse(&b, (const char *)data, size, err, sizeof(err)) != 0 || b.n != a.n)
		ofz_fail("orp_values_parse: a second read differs");
	for (size_t i = 0; i < a.n; i++) {
		const struct orp_vtable *t = &a.t[i];

		if (t->nval != osp_value_nbuckets(t->kind) || t->nval == 0 || !t->op[0] ||
		    !memchr(t->op, '\0', sizeof(t->op)))
			ofz_fail("orp_values_parse: table %zu malformed", i);
		if (strcmp(t->op, b.t[i].op) != 0 || t->kind != b.t[i].kind ||
		    memcmp(t->cell, b.t[i].cell, (size_t)a.nlat * t->nval * sizeof(*t->cell)) != 0)
			ofz_fail("orp_values_parse: a second read of table %zu differs", i);
	}
	orp_values_fini(&a);
	orp_values_fini(&b);
	return 0;
}
