// SPDX-License-Identifier: MIT
/*
 * `osprof-report plot PROFILE -o DIR`: every chart of a profile set --
 * one histogram per operation, the overview of the top operations, the
 * timeline heat map, the layered view, where the time goes, IRQ bar
 * charts -- and with
 * --compare B an overlay per operation the two sets share. Each image
 * keeps its self-contained gnuplot script beside it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/parse.h"

#define CMD "plot"

struct plot_args {
	const char *dir;
	enum orp_fmt fmt;
	uint64_t top;
	const char *layer;
	const char *against;
	enum orp_tl_clock tl_clock;
};

static const char *const tl_clock_names[] = {
	[ORP_TL_ELAPSED] = "elapsed",
	[ORP_TL_WALL] = "wall",
};
_Static_assert(sizeof(tl_clock_names) / sizeof(tl_clock_names[0]) == ORP_TL__COUNT,
	       "a name for every timeline clock");

static void help(void)
{
	printf("Usage: " ORP_PROG " plot -o DIR [--format png|svg|pdf] [OPTION]... PROFILE\n"
	       "Draw the charts of a profile set with gnuplot into DIR (created if\n"
	       "missing), each beside the self-contained script that draws it\n"
	       "(cd DIR; gnuplot NAME.gp re-renders it):\n"
	       "  op-LAYER-OP       one per operation, most total time first: x the\n"
	       "                    latency (1us, 10us, ...), y requests on a log\n"
	       "                    scale, peaks labelled\n"
	       "  overview-LAYER    the top operations side by side, one x range\n"
	       "  timeline-LAYER-OP per operation, heat map of its requests per\n"
	       "                    bucket over time (viridis colours)\n"
	       "  layers            every request of each layer of one run, a panel\n"
	       "                    each on one latency axis, means dashed\n"
	       "  where             where the time goes: a bar per FUSE operation,\n"
	       "                    the shares of its time by layer (show --help)\n"
	       "  where-OP          per FUSE operation, each layer's latency in a\n"
	       "                    panel of its own, top down\n"
	       "  irq               cycles, IPC, branch and cache miss rates per line\n"
	       "  compare-LAYER-OP  with --compare: A and B overlaid\n\n"
	       "  -o, --output DIR    where to write (required)\n"
	       "  -f, --format F      png (default), svg or pdf\n"
	       "  -n, --top N         operations in the overview (default 12, at most 16)\n"
	       "  -l, --layer L       only layer L\n"
	       "  -c, --compare B     also overlay each operation of B on A's\n"
	       "  -t, --timeline-clock C\n"
	       "                      timelines' time axis: elapsed (since the start,\n"
	       "                      the default) or wall (UTC clock time)\n"
	       "  -h, --help          this help\n\n"
	       "gnuplot is run from $OSPROF_GNUPLOT, else from PATH.\n\n"
	       "Examples:\n"
	       "  " ORP_PROG " plot run.json -o charts/\n"
	       "  " ORP_PROG " plot --format svg /mnt/p -o charts/\n"
	       "  " ORP_PROG " plot before.json --compare after.json -o cmp/\n"
	       "  " ORP_PROG " plot --timeline-clock wall run.json -o charts/\n"
	       "  " ORP_PROG " plot run/fs.json,run/fuse.json -o layers/\n");
}

static int opt_format(const struct osp_opt *opt, const char *arg)
{
	if (orp_fmt_parse(arg, opt->dst)) {
		orp_usage_error(CMD, "unknown format '%s'", arg);
		return -EINVAL;
	}
	return 0;
}

static int opt_tl_clock(const struct osp_opt *opt, const char *arg)
{
	unsigned i;

	if (osp_parse_name(arg, tl_clock_names, ORP_TL__COUNT, &i)) {
		orp_usage_error(CMD, "--timeline-clock: '%s' is neither elapsed nor wall", arg);
		return -EINVAL;
	}
	*(enum orp_tl_clock *)opt->dst = (enum orp_tl_clock)i;
	return 0;
}

static int parse_args(int argc, char **argv, struct plot_args *a)
{
	const struct osp_opt opts[] = {
		{ 'o', "output", OSP_OPT_STR, &a->dir },
		{ 'f', "format", OSP_OPT_CALL, &a->fmt, .call = opt_format },
		{ 'n', "top", OSP_OPT_U64, &a->top, .umin = 1, .umax = 16 },
		{ 'l', "layer", OSP_OPT_STR, &a->layer },
		{ 'c', "compare", OSP_OPT_STR, &a->against },
		{ 't', "timeline-clock", OSP_OPT_CALL, &a->tl_clock, .call = opt_tl_clock },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc;

	a->fmt = ORP_FMT_PNG;
	a->top = 12;
	rc = orp_opts_parse(CMD, opts, argc, argv, help);
	if (rc)
		return rc;
	if (!a->dir || argc - optind != 1) {
		orp_usage_error(CMD, "%s", !a->dir ? "-o DIR is required" : "one PROFILE needed");
		return -EINVAL;
	}
	return 0;
}

/* Overlays of every operation A and B share. */
static int plot_against(struct orp_render *r, const struct orp_input *in,
			char *err, size_t errlen)
{
	struct orp_cmp_args args = { 0 };
	struct osp_cmp c = { 0 };
	int rc;

	osp_cmp_opts_default(&args.opts, OSP_DIST_EMD);
	rc = orp_compare_inputs(&in[0], &in[1], &args, &c, err, errlen);
	for (size_t i = 0; !rc && i < c.n; i++)
		rc = orp_chart_overlay(r, &c, &c.items[i], in[0].spec, in[1].spec,
				       err, errlen);
	osp_cmp_free(&c);
	return rc;
}

static void list_charts(const struct orp_render *r)
{
	for (size_t i = 0; i < r->n; i++) {
		osp_esc_text(stdout, r->dir);
		printf("/%s.%s\n", r->charts[i].base, orp_fmt_name(r->fmt));
	}
}

int orp_cmd_plot(int argc, char **argv)
{
	struct plot_args a = { 0 };
	struct orp_input *in = NULL;
	struct orp_render r;
	char err[ORP_ERRLEN], *specs[2];
	size_t nin;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc == 1 ? ORP_EXIT_OK : ORP_EXIT_ERROR;
	specs[0] = argv[optind];
	specs[1] = (char *)a.against;
	nin = a.against ? 2 : 1;
	orp_render_init(&r, a.dir, a.fmt);
	r.tl_clock = a.tl_clock;
	if (orp_inputs_load(specs, nin, a.layer, &in, err, sizeof(err)) ||
	    orp_mkdir(a.dir, err, sizeof(err)) ||
	    orp_chart_all(&r, &in[0], a.top, err, sizeof(err)) ||
	    (a.against && plot_against(&r, in, err, sizeof(err))) ||
	    orp_render_run(&r, err, sizeof(err)))
		goto fail;
	if (r.n == 0) {
		fputs(ORP_PROG ": note: ", stderr);
		osp_esc_text(stderr, argv[optind]);
		fputs(" has no requests: no chart drawn\n", stderr);
	}
	list_charts(&r);
	orp_render_fini(&r);
	orp_inputs_free(in, nin);
	return ORP_EXIT_OK;
fail:
	orp_error("%s", err);
	orp_render_fini(&r);
	orp_inputs_free(in, nin);
	return ORP_EXIT_ERROR;
}
