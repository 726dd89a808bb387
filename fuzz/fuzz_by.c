// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: osprof-report's reader of osprof-fs's profiles per
 * key value (report/orp_by.c, the "osprof-by" document of by.json), on
 * any bytes. A refusal must say why in one line; an accepted document's
 * profiles keep ofz_check_profile's invariants, its values are sorted by
 * total time, and the totals are those of the profiles.
 */
#include <string.h>

#include "orp_by.h"
#include "ofz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ORP_BY_ERRLEN];
	struct orp_by b;

	if (orp_by_parse((const char *)data, size, &b, err, sizeof(err)) != 0) {
		ofz_check_err("orp_by_parse", err, sizeof(err));
		return 0;
	}
	for (size_t i = 0; i < b.n; i++) {
		if (!b.v[i].value || !b.v[i].p || (i && b.v[i - 1].total_ns < b.v[i].total_ns))
			__builtin_trap();
		ofz_check_profile(b.v[i].p);
	}
	if (!b.other.p || strcmp(b.other.value, "other") != 0)
		__builtin_trap();
	ofz_check_profile(b.other.p);
	orp_by_free(&b);
	return 0;
}
