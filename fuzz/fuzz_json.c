// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the JSON profile reader, osp_read_json (core's
 * read_json.c), on any bytes. A refusal must say why in one line; an
 * accepted profile must keep ofz_check_profile's invariants (checksums
 * reported, writers succeed, the JSON round trip is exact).
 */
#include "osprof/format.h"
#include "ofz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	struct osp_profile *p;

	p = osp_read_json((const char *)data, size, err, sizeof(err));
	if (!p) {
		ofz_check_err("osp_read_json", err, sizeof(err));
		return 0;
	}
	ofz_check_profile(p);
	osp_profile_free(p);
	return 0;
}
