// SPDX-License-Identifier: MIT
/*
 * `osprof-report export`: a profile as JSON (core's writer; one layer, as
 * the format holds one), CSV (one row per non-empty bucket, every layer,
 * long format for spreadsheets, pandas or R), or OpenMetrics (core's
 * osprof_latency_seconds family, every layer, the mount label the
 * PROFILE as named, as osprof-exporter serves it).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/format.h"
#include "osprof/metrics.h"
#include "osprof/parse.h"

#define CMD "export"

enum export_fmt { EXP_JSON, EXP_CSV, EXP_OPENMETRICS, EXP__COUNT };

static const char *const export_names[] = {
	[EXP_JSON] = "json",
	[EXP_CSV] = "csv",
	[EXP_OPENMETRICS] = "openmetrics",
};
_Static_assert(sizeof(export_names) / sizeof(export_names[0]) == EXP__COUNT,
	       "a name for every export format");

struct export_args {
	enum export_fmt fmt; /* EXP__COUNT until --format names one */
	const char *out;
	const char *layer;
};

static void help(void)
{
	printf("Usage: " ORP_PROG " export --format json|csv|openmetrics [-o FILE] [--layer L] PROFILE\n"
	       "Write a profile in another form, to stdout or FILE.\n"
	       "  json         the osprof profile format (one layer: choose it with --layer)\n"
	       "  csv          one row per non-empty bucket of every histogram:\n"
	       "               layer,op,hist,count,sum_ns,min_ns,max_ns,bucket,lower_ns,upper_ns,bucket_count\n"
	       "               (hist is lat or cpu; an empty histogram has one row, bucket empty;\n"
	       "               a name starting with = + - @ is written with a ' before it,\n"
	       "               so that spreadsheets take it as text, not a formula)\n"
	       "  openmetrics  OpenMetrics text, as osprof-exporter serves it: histograms\n"
	       "               osprof_latency_seconds{mount,layer,op} (block: device, op;\n"
	       "               irq: irq), le at powers of two of ns in seconds, and\n"
	       "               osprof_info (mount is PROFILE as named)\n\n"
	       "  -F, --format F   the form (required)\n"
	       "  -o, --output F   write to F (atomically) instead of stdout\n"
	       "  -l, --layer L    only layer L\n"
	       "  -h, --help       this help\n\n"
	       "Examples:\n"
	       "  " ORP_PROG " export --format csv run.json > run.csv\n"
	       "  " ORP_PROG " export --format openmetrics /mnt/p -o /var/lib/node_exporter/osprof.prom\n"
	       "  " ORP_PROG " export --format json --layer block /mnt/p -o block.json\n");
}

static void csv_hist(FILE *f, const char *layer, const char *op,
		     const char *kind, const struct osp_hist *h)
{
	bool any = false;

	for (uint32_t k = 0; k <= h->nbk; k++) {
		/* The extra round writes the one row of an empty histogram. */
		if (k == h->nbk && any)
			continue;
		osp_csv_field(f, layer);
		fputc(',', f);
		osp_csv_field(f, op);
		fprintf(f, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, kind,
			h->count, h->sum, h->min, h->max);
		if (k == h->nbk)
			fputs(",,,,\n", f);
		else
			fprintf(f, ",%u,%.17g,%.17g,%" PRIu64 "\n", h->bk[k].idx,
				osp_bucket_lower_ns(h->bk[k].idx, h->res),
				osp_bucket_upper_ns(h->bk[k].idx, h->res), h->bk[k].count);
		any = true;
	}
}

static int write_csv(FILE *f, const struct orp_input *in)
{
	fputs("layer,op,hist,count,sum_ns,min_ns,max_ns,bucket,lower_ns,upper_ns,bucket_count\n", f);
	for (size_t k = 0; k < in->n; k++) {
		const struct osp_profile *p = in->prof[k];

		for (size_t i = 0; i < p->nops; i++) {
			csv_hist(f, p->layer, p->ops[i].name, "lat", &p->ops[i].lat);
			if (p->ops[i].has_cpu)
				csv_hist(f, p->layer, p->ops[i].name, "cpu", &p->ops[i].cpu);
		}
	}
	return ferror(f) ? -EIO : 0;
}

/* Every layer of @in in core's metric family, mount labelled as @in was
 * named (as osprof-exporter labels it), one # EOF. */
static int write_openmetrics(FILE *f, const struct orp_input *in)
{
	struct osp_om_src src[ORP_LAYERS_MAX];

	for (size_t k = 0; k < in->n; k++)
		src[k] = (struct osp_om_src){ .mount = in->spec, .p = in->prof[k] };
	return osp_write_metrics(f, src, in->n, OSP_OM_OPENMETRICS);
}

static int opt_format(const struct osp_opt *opt, const char *arg)
{
	unsigned fmt;

	if (osp_parse_name(arg, export_names, EXP__COUNT, &fmt)) {
		orp_usage_error(CMD, "unknown format '%s'", arg);
		return -EINVAL;
	}
	*(enum export_fmt *)opt->dst = (enum export_fmt)fmt;
	return 0;
}

static int parse_args(int argc, char **argv, struct export_args *a)
{
	const struct osp_opt opts[] = {
		{ 'F', "format", OSP_OPT_CALL, &a->fmt, .call = opt_format },
		{ 'o', "output", OSP_OPT_STR, &a->out },
		{ 'l', "layer", OSP_OPT_STR, &a->layer },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc;

	a->fmt = EXP__COUNT;
	a->out = "-";
	rc = orp_opts_parse(CMD, opts, argc, argv, help);
	if (rc)
		return rc;
	if (a->fmt == EXP__COUNT || argc - optind != 1) {
		orp_usage_error(CMD, "%s", a->fmt == EXP__COUNT ? "--format is required"
								: "one PROFILE needed");
		return -EINVAL;
	}
	return 0;
}

static int write_export(FILE *f, const struct export_args *a,
			const struct orp_input *in)
{
	switch (a->fmt) {
	case EXP_JSON:
		return osp_write_json(f, in->prof[0]);
	case EXP_CSV:
		return write_csv(f, in);
	default:
		return write_openmetrics(f, in);
	}
}

int orp_cmd_export(int argc, char **argv)
{
	struct export_args a = { 0 };
	struct orp_input *in = NULL;
	struct orp_out out;
	char err[ORP_ERRLEN];
	int rc = parse_args(argc, argv, &a);
	bool failed;

	if (rc)
		return rc == 1 ? ORP_EXIT_OK : ORP_EXIT_ERROR;
	failed = orp_inputs_load(argv + optind, 1, a.layer, &in, err, sizeof(err)) ||
		 (a.fmt == EXP_JSON && orp_input_single(in, err, sizeof(err))) ||
		 orp_out_open(&out, a.out, err, sizeof(err)) ||
		 orp_out_close(&out, write_export(out.w.f, &a, in), err, sizeof(err));
	if (failed)
		orp_error("%s", err);
	orp_inputs_free(in, 1);
	return failed ? ORP_EXIT_ERROR : ORP_EXIT_OK;
}
