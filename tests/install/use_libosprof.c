// SPDX-License-Identifier: MIT
/*
 * A program of someone else's, built by tests/install/install.sh against
 * the installed libosprof through pkg-config only: it records a few
 * latencies, writes the profile as JSON to the file argv[1], reads it
 * back and prints one line the test checks.
 */
#include <osprof/format.h>
#include <osprof/hist.h>
#include <osprof/profile.h>

#include <inttypes.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	static const uint64_t lat_ns[] = {900, 1000, 1100, 250000, 3};
	struct osp_profile *p, *back;
	struct osp_op *op;
	char err[256];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: use_libosprof FILE.json\n");
		return 2;
	}
	p = osp_profile_new("fs", 1);
	if (!p)
		return 1;
	op = osp_profile_add_op(p, "read", false);
	if (!op)
		return 1;
	for (size_t i = 0; i < sizeof(lat_ns) / sizeof(lat_ns[0]); i++)
		if (osp_hist_record(&op->lat, lat_ns[i]) != 0)
			return 1;
	f = fopen(argv[1], "w");
	if (!f || osp_write_json(f, p) != 0 || fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	back = osp_read_json_file(argv[1], err, sizeof(err));
	if (!back) {
		fprintf(stderr, "%s: %s\n", argv[1], err);
		return 1;
	}
	op = osp_profile_find_op(back, "read");
	if (!op)
		return 1;
	printf("layer %s op read count %" PRIu64 " max %" PRIu64 "\n",
	       back->layer, op->lat.count, op->lat.max);
	osp_profile_free(back);
	osp_profile_free(p);
	return 0;
}
