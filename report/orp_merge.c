// SPDX-License-Identifier: MIT
/*
 * `osprof-report merge A B ... -o OUT`: add profiles of one layer bucket by
 * bucket (core's osp_profile_merge), e.g. the runs of a repeated benchmark
 * or the profiles of several machines. Profiles of different resolution,
 * unit or layer are refused with the reason, and OUT is left untouched;
 * so are profiles whose settings differ in what reaches the profiler
 * (options, clock, layer source: orp_compat_merge), unless --force, which
 * records each input's settings in the output's options ("merged").
 * Timelines are dropped: their intervals do not line up across runs.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "orp.h"
#include "osprof/format.h"

#define CMD "merge"

struct merge_args {
	const char *out;
	const char *layer;
	bool force;
};

static void help(void)
{
	printf("Usage: " ORP_PROG " merge -o OUT [--layer L] [--force] PROFILE...\n"
	       "Add profiles of one layer bucket by bucket into one JSON profile: counts,\n"
	       "sums and buckets add, min and max combine, elapsed times add, and\n"
	       "operations found in only some inputs are kept. Profiles whose resolution,\n"
	       "unit or layer differ are refused. Profiles whose settings differ in\n"
	       "what reaches the profiler (options such as the caching mode and\n"
	       "timeouts, clock, layer source) are refused too, each difference said,\n"
	       "unless --force. Timelines are not merged.\n\n"
	       "  -o, --output F   the merged profile ('-' for stdout), written atomically\n"
	       "  -l, --layer L    take layer L of each input (needed for inputs with\n"
	       "                   several layers, such as mounts with the kernel module)\n"
	       "  -f, --force      merge profiles whose settings differ: the output keeps\n"
	       "                   the options all share, \"mixed\" for a clock or layer\n"
	       "                   source they do not, and lists each input's settings\n"
	       "                   in options.merged\n"
	       "  -h, --help       this help\n\n"
	       "Examples:\n"
	       "  " ORP_PROG " merge run1.json run2.json run3.json -o all.json\n"
	       "  " ORP_PROG " merge --layer fs /mnt/a /mnt/b -o fs.json\n");
}

static int parse_args(int argc, char **argv, struct merge_args *a)
{
	const struct osp_opt opts[] = {
		{ 'o', "output", OSP_OPT_STR, &a->out },
		{ 'l', "layer", OSP_OPT_STR, &a->layer },
		{ 'f', "force", OSP_OPT_TRUE, &a->force },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc = orp_opts_parse(CMD, opts, argc, argv, help);

	if (rc)
		return rc;
	if (!a->out || optind >= argc) {
		orp_usage_error(CMD, "%s", !a->out ? "-o OUT is required" : "no PROFILE given");
		return -EINVAL;
	}
	return 0;
}

/*
 * Merge every input into the first one's profile: 0 or -EINVAL with @err.
 * Settings that differ are refused, or with @force recorded, first.
 */
static int merge_all(struct orp_input *in, size_t n, bool force, char *err,
		     size_t errlen)
{
	struct osp_profile *dst = in[0].prof[0];
	bool timeline = dst->nsnaps > 0;
	int rc;

	for (size_t i = 1; i < n; i++) {
		if (strcmp(in[i].prof[0]->layer, dst->layer) != 0) {
			snprintf(err, errlen, "cannot merge %s (layer %s) with %s (layer %s): a merge adds profiles of one layer",
				 in[i].spec, in[i].prof[0]->layer, in[0].spec, dst->layer);
			return -EINVAL;
		}
	}
	if ((rc = orp_compat_merge(in, n, force, err, errlen)) != 0)
		return rc;
	for (size_t i = 1; i < n; i++) {
		const struct osp_profile *src = in[i].prof[0];
		char why[512];

		if (osp_profile_merge(dst, src, why, sizeof(why))) {
			snprintf(err, errlen, "cannot merge %s into %s: %s", in[i].spec,
				 in[0].spec, why);
			return -EINVAL;
		}
		if (src->start_unix_ns && src->start_unix_ns < dst->start_unix_ns)
			dst->start_unix_ns = src->start_unix_ns;
		timeline |= src->nsnaps > 0;
	}
	if (timeline) {
		osp_profile_drop_timeline(dst);
		fprintf(stderr, ORP_PROG ": note: timelines are not merged; the output has none\n");
	}
	return 0;
}

int orp_cmd_merge(int argc, char **argv)
{
	struct merge_args a = { 0 };
	struct orp_input *in = NULL;
	struct orp_out out;
	char err[ORP_ERRLEN];
	size_t n;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc == 1 ? ORP_EXIT_OK : ORP_EXIT_ERROR;
	n = (size_t)(argc - optind);
	rc = orp_inputs_load(argv + optind, n, a.layer, &in, err, sizeof(err));
	for (size_t i = 0; !rc && i < n; i++)
		rc = orp_input_single(&in[i], err, sizeof(err));
	if (!rc)
		rc = merge_all(in, n, a.force, err, sizeof(err));
	if (!rc)
		rc = orp_out_open(&out, a.out, err, sizeof(err));
	if (!rc)
		rc = orp_out_close(&out, osp_write_json(out.w.f, in[0].prof[0]), err,
				   sizeof(err));
	if (rc)
		orp_error("%s", err);
	orp_inputs_free(in, n);
	return rc ? ORP_EXIT_ERROR : ORP_EXIT_OK;
}
