// SPDX-License-Identifier: MIT
/*
 * `osprof-report compare A B`: OSprof's automated analysis on two profile
 * sets (core's osp_compare), printed as a ranked list of the operations
 * whose profiles differ with the reason for each; --plot draws their
 * overlays. Exit status 0 when nothing differs, 1 when something does, 2
 * on error -- so scripts can gate on it. The reason text is shared with
 * the HTML report. Before the results, each layer's comparability notes
 * (orp_compat.c): the settings that differ in what reaches the profiler.
 * --json writes the whole comparison as one JSON document instead
 * (orp_cmp_json.c), with the same exit status.
 *
 * Sets of several layers (mounts, run directories, lists) are paired
 * layer by layer and each pair is compared on its own, one section per
 * layer, so a change in fuse is read beside an unchanged fs: the
 * difference between layers is the answer. A layer only one set has is
 * said, not compared: it tells what was profiled, not what changed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/format.h"

#define CMD "compare"

const char *orp_cmp_unit(enum osp_dist_method m)
{
	return m == OSP_DIST_EMD ? "octaves" : "";
}

int orp_compare_inputs(const struct orp_input *a, const struct orp_input *b,
		       const struct orp_cmp_args *args, struct osp_cmp *out,
		       char *err, size_t errlen)
{
	int rc;

	for (size_t i = 0; i < a->n; i++) {
		for (size_t j = 0; j < b->n; j++) {
			if (strcmp(a->prof[i]->layer, b->prof[j]->layer) == 0 &&
			    a->prof[i]->res != b->prof[j]->res) {
				snprintf(err, errlen,
					 "layer %s: %s has resolution %u, %s has %u: only profiles of one resolution compare bucket by bucket",
					 a->prof[i]->layer, a->spec, a->prof[i]->res,
					 b->spec, b->prof[j]->res);
				return -EINVAL;
			}
		}
	}
	rc = osp_compare((const struct osp_profile *const *)a->prof, a->n,
			 (const struct osp_profile *const *)b->prof, b->n,
			 &args->opts, out);
	if (rc)
		snprintf(err, errlen, "cannot compare %s and %s: %s", a->spec,
			 b->spec, strerror(-rc));
	return rc;
}

static size_t append(char *buf, size_t len, size_t o, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* snprintf at @o, never past @len; returns the new offset. */
static size_t append(char *buf, size_t len, size_t o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o >= len)
		return o;
	va_start(ap, fmt);
	n = vsnprintf(buf + o, len - o, fmt, ap);
	va_end(ap);
	return n < 0 ? o : o + (size_t)n;
}

static size_t peak_change_text(char *buf, size_t len, size_t o,
			       const struct osp_cmp_item *it,
			       const struct osp_peak_change *c)
{
	const struct osp_peak *pa = c->ia >= 0 ? &it->peaks_a[c->ia] : NULL;
	const struct osp_peak *pb = c->ib >= 0 ? &it->peaks_b[c->ib] : NULL;
	char x[16], y[16];

	switch (c->kind) {
	case OSP_PEAK_MOVED:
		return append(buf, len, o, "; peak near %s moved to %s (%+.1f octaves)",
			      osp_fmt_ns(x, sizeof(x), pa->mean_ns),
			      osp_fmt_ns(y, sizeof(y), pb->mean_ns), c->shift_octaves);
	case OSP_PEAK_RESHARED:
		return append(buf, len, o, "; peak near %s went from %.0f%% to %.0f%% of requests",
			      osp_fmt_ns(x, sizeof(x), pb->mean_ns), 100.0 * pa->share,
			      100.0 * pb->share);
	case OSP_PEAK_ADDED:
		return append(buf, len, o, "; new peak near %s (%.0f%%)",
			      osp_fmt_ns(x, sizeof(x), pb->mean_ns), 100.0 * pb->share);
	case OSP_PEAK_REMOVED:
		return append(buf, len, o, "; peak near %s (%.0f%%) gone",
			      osp_fmt_ns(x, sizeof(x), pa->mean_ns), 100.0 * pa->share);
	default:
		return o;
	}
}

static size_t score_text(char *buf, size_t len, size_t o,
			 const struct osp_cmp_item *it, const struct osp_cmp *c)
{
	const char *unit = orp_cmp_unit(c->method);

	o = append(buf, len, o, "%s %.3g%s%s %s %.3g", osp_dist_method_name(c->method),
		   it->score, *unit ? " " : "", unit,
		   it->score >= c->threshold ? ">=" : "<", c->threshold);
	if (isnan(it->noise) && isnan(it->p_value))
		return o;
	o = append(buf, len, o, " (");
	if (!isnan(it->noise))
		o = append(buf, len, o, "noise level %.2g%s", it->noise,
			   isnan(it->p_value) && isnan(it->beyond_noise) ? "" : "; ");
	if (!isnan(it->p_value))
		o = append(buf, len, o, "chi-square test p = %.2g%s", it->p_value,
			   isnan(it->beyond_noise) ? "" : "; ");
	if (!isnan(it->beyond_noise))
		o = append(buf, len, o, "%.3g beyond noise %s %.3g", it->beyond_noise,
			   it->beyond_noise >= c->threshold ? ">=" : "<", c->threshold);
	return append(buf, len, o, ")");
}

/* "differs in shape, request count (+100.0%, p = 1e-30); " for a
 * difference: which of osp_compare's tests it cleared, by how much. */
static size_t why_text(char *buf, size_t len, size_t o,
		       const struct osp_cmp_item *it)
{
	const char *sep = "differs in ";

	if (it->verdict != OSP_CMP_DIFFERENT || !it->why)
		return o;
	if (it->why & OSP_CMP_WHY_SHAPE) {
		o = append(buf, len, o, "%sshape", sep);
		sep = ", ";
	}
	if (it->why & OSP_CMP_WHY_COUNT) {
		o = append(buf, len, o, "%srequest count (%+.1f%%, p = %.2g)", sep,
			   100.0 * it->count_change, it->count_p);
		sep = ", ";
	}
	if (it->why & OSP_CMP_WHY_LATENCY)
		o = append(buf, len, o, "%stotal latency (%+.1f%%, p = %.2g)", sep,
			   100.0 * it->latency_change, it->latency_p);
	return append(buf, len, o, "; ");
}

void orp_cmp_reason(const struct osp_cmp_item *it, const struct osp_cmp *c,
		    char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	switch (it->verdict) {
	case OSP_CMP_ONLY_A:
	case OSP_CMP_ONLY_B:
		append(buf, len, o, "requests in %s only (%.1f%% of its layer's requests or latency)",
		       it->verdict == OSP_CMP_ONLY_A ? "A" : "B",
		       100.0 * fmax(it->share_a, it->share_b));
		return;
	case OSP_CMP_TINY:
		append(buf, len, o, "set aside: a tiny share of requests and latency in both");
		return;
	case OSP_CMP_EQUAL:
		append(buf, len, o, "set aside: nearly equal counts and latency, same peaks");
		return;
	case OSP_CMP_NOISE:
		o = append(buf, len, o, "within sampling noise: ");
		break;
	default:
		o = why_text(buf, len, o, it);
		break;
	}
	o = score_text(buf, len, o, it, c);
	for (size_t k = 0; k < it->nchanges; k++)
		o = peak_change_text(buf, len, o, it, &it->changes[k]);
	append(buf, len, o, "; requests %+.1f%%, latency %+.1f%%",
	       100.0 * it->count_change, 100.0 * it->latency_change);
}

struct compare_args {
	struct orp_cmp_args cmp;
	bool all;
	bool json;
	const char *plot_dir;
	enum orp_fmt fmt;
};

static void help(void)
{
	printf("Usage: " ORP_PROG " compare [OPTION]... A B\n"
	       "Compare two profile sets operation by operation, as OSprof does: (1) set aside operations with a tiny share of requests and\n"
	       "latency in both, or with nearly equal counts and totals and the same\n"
	       "peaks; (2) find the peaks of both and report how they changed; (3) rate\n"
	       "the difference with METHOD and rank. A difference counts when it reaches\n"
	       "the threshold and sampling noise cannot explain it.\n\n"
	       "A and B are each one set of a run's layers: a profile file, a mount\n"
	       "(every layer file in its .osprof: stats.json, fuse.json, syscall.json,\n"
	       "lower.json, block.json, irq.json), a directory of such files, or a\n"
	       "comma-separated list of them (a/fs.json,a/fuse.json). The layers are\n"
	       "paired by name and each pair compared on its own, in a section per layer\n"
	       "(one layer: no sections), then a line naming the layers that differ. A\n"
	       "layer only one set has is named, not compared, and changes no status.\n\n"
	       "  -m, --method M      emd (default; Earth Mover's Distance in octaves),\n"
	       "                      chi2, jeffrey, l1, l2, intersect, ops (total\n"
	       "                      operations), latency (total latency)\n"
	       "  -t, --threshold X   score that counts as different (default per method:\n"
	       "                      emd 0.2, chi2 0.02, jeffrey 0.05, ops 0.1, latency 0.1)\n"
	       "  -s, --min-share X   set aside ops under this share in both (default 0.01:\n"
	       "                      a change it hides moved its layer's total by <1%%)\n"
	       "  -e, --equal X       set aside ops whose count and latency differ by at\n"
	       "                      most this fraction, peaks unchanged (default 0.01)\n"
	       "  -N, --noise F       how far above sampling noise a score must be\n"
	       "                      (default 3; 0 turns the guard off)\n"
	       "  -C, --count-change X  an op also differs when its request count changes\n"
	       "                      by this fraction and a binomial test at the noise\n"
	       "                      factor agrees (default 0.1; off turns it off)\n"
	       "  -L, --latency-change X  likewise for its total latency, by a z-test\n"
	       "                      from its buckets (default 0.1, or off)\n"
	       "  -T, --per-time      compare counts and totals per second of each run's\n"
	       "                      elapsed time (windows of one server), not as they are\n"
	       "  -l, --layer L       compare layer L only\n"
	       "  -a, --all           also list the operations that do not differ\n"
	       "  -p, --plot DIR      draw an overlay of each differing operation into DIR\n"
	       "  -f, --format F      png (default), svg or pdf for --plot; json: as --json\n"
	       "  -j, --json          write the comparison as JSON (every operation, its\n"
	       "                      verdict, scores, counts, totals, peaks and reason, and\n"
	       "                      the comparability notes, per layer; see README)\n"
	       "  -h, --help          this help\n\n"
	       "Exit status: 0 no operation differs (in any layer both have), 1 some\n"
	       "do, 2 error.\n\n"
	       "Examples:\n"
	       "  " ORP_PROG " compare before.json after.json\n"
	       "  " ORP_PROG " compare --method chi2 --min-share 0 a.json b.json\n"
	       "  " ORP_PROG " compare --plot cmp/ /mnt/ext4-run /mnt/xfs-run\n"
	       "  " ORP_PROG " compare before/fs.json,before/fuse.json after/fs.json,after/fuse.json\n"
	       "  " ORP_PROG " compare baseline.json /mnt/p || echo 'profiles changed'\n");
}

/* A volume fraction, or "off" (stored as -1, which core reads as off). */
static int opt_frac(const struct osp_opt *opt, const char *arg)
{
	if (strcmp(arg, "off") == 0) {
		*(double *)opt->dst = -1.0;
		return 0;
	}
	return orp_opt_double(CMD, opt->name, arg, 0, 1e9, opt->dst);
}

static int opt_method(const struct osp_opt *opt, const char *arg)
{
	if (osp_dist_method_parse(arg, opt->dst) == 0)
		return 0;
	orp_usage_error(CMD, "unknown method '%s'", arg);
	return -EINVAL;
}

/* --format: json, or a chart format for --plot. */
static int opt_format(const struct osp_opt *opt, const char *arg)
{
	struct compare_args *a = opt->dst;

	if (strcmp(arg, "json") == 0) {
		a->json = true;
		return 0;
	}
	if (orp_fmt_parse(arg, &a->fmt) == 0)
		return 0;
	orp_usage_error(CMD, "unknown format '%s'", arg);
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct compare_args *a)
{
	struct osp_cmp_opts *o = &a->cmp.opts;
	const struct osp_opt opts[] = {
		{ 'm', "method", OSP_OPT_CALL, &o->method, .call = opt_method },
		{ 't', "threshold", OSP_OPT_DOUBLE, &o->threshold, .dmin = 0, .dmax = 1e9 },
		{ 's', "min-share", OSP_OPT_DOUBLE, &o->min_share, .dmin = 0, .dmax = 1 },
		{ 'e', "equal", OSP_OPT_DOUBLE, &o->equal_frac, .dmin = 0, .dmax = 1e9 },
		{ 'N', "noise", OSP_OPT_DOUBLE, &o->noise_factor, .dmin = 0, .dmax = 1e6 },
		{ 'C', "count-change", OSP_OPT_CALL, &o->count_frac, .call = opt_frac },
		{ 'L', "latency-change", OSP_OPT_CALL, &o->latency_frac, .call = opt_frac },
		{ 'T', "per-time", OSP_OPT_TRUE, &o->per_time },
		{ 'l', "layer", OSP_OPT_STR, &a->cmp.layer },
		{ 'a', "all", OSP_OPT_TRUE, &a->all },
		{ 'p', "plot", OSP_OPT_STR, &a->plot_dir },
		{ 'f', "format", OSP_OPT_CALL, a, .call = opt_format },
		{ 'j', "json", OSP_OPT_TRUE, &a->json },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc;

	osp_cmp_opts_default(o, OSP_DIST_EMD);
	a->fmt = ORP_FMT_PNG;
	rc = orp_opts_parse(CMD, opts, argc, argv, help);
	if (rc)
		return rc;
	if (argc - optind != 2) {
		orp_usage_error(CMD, "two profile sets needed, A and B");
		return -EINVAL;
	}
	return 0;
}

/* "10%", or "off" for a negative fraction (the test turned off). */
static const char *frac_text(char *buf, size_t len, double f)
{
	if (f < 0.0)
		return "off";
	snprintf(buf, len, "%g%%", 100.0 * f);
	return buf;
}

static void print_header(const struct compare_args *a,
			 const struct orp_input *in)
{
	const struct osp_cmp_opts *o = &a->cmp.opts;
	const char *unit = orp_cmp_unit(o->method);
	char fc[32], fl[32];

	fputs("A: ", stdout);
	osp_esc_text(stdout, in[0].spec);
	fputs("\nB: ", stdout);
	osp_esc_text(stdout, in[1].spec);
	fputc('\n', stdout);
	/* The threshold osp_compare applies. */
	printf("method %s, threshold %g%s%s, noise factor %g, set aside under %g%% share or within %g%%\n",
	       osp_dist_method_name(o->method),
	       o->threshold >= 0 ? o->threshold : osp_dist_default_threshold(o->method),
	       *unit ? " " : "", unit,
	       o->noise_factor, 100.0 * o->min_share, 100.0 * o->equal_frac);
	printf("volume thresholds: requests %s, total latency %s%s\n",
	       frac_text(fc, sizeof(fc), o->count_frac),
	       frac_text(fl, sizeof(fl), o->latency_frac),
	       o->per_time ? " (per second of elapsed time)" : "");
}

static void print_item(size_t rank, const struct osp_cmp_item *it,
		       const struct osp_cmp *c)
{
	char reason[1024], la[16], lb[16];
	uint64_t na = it->a ? it->a->lat.count : 0, nb = it->b ? it->b->lat.count : 0;

	orp_cmp_reason(it, c, reason, sizeof(reason));
	osp_fmt_ns(la, sizeof(la), it->a ? (double)it->a->lat.sum : 0);
	osp_fmt_ns(lb, sizeof(lb), it->b ? (double)it->b->lat.sum : 0);
	printf("%5zu ", rank);
	osp_esc_text_col(stdout, it->layer, 8);
	fputc(' ', stdout);
	osp_esc_text_col(stdout, it->name, 18);
	printf(" %-10s %10" PRIu64 " %10" PRIu64 " %9s %9s\n",
	       osp_cmp_verdict_name(it->verdict), na, nb, la, lb);
	printf("      %s\n", reason);
}

static void print_result(const struct osp_cmp *c, bool all)
{
	size_t count[OSP_CMP__COUNT] = { 0 };
	size_t shown = all ? c->n : c->ninteresting;

	for (size_t i = 0; i < c->n; i++)
		count[c->items[i].verdict]++;
	if (c->ninteresting)
		printf("%zu of %zu operations differ:\n", c->ninteresting, c->n);
	else
		printf("no operation differs (%zu compared)\n", c->n);
	if (shown)
		printf("\n%5s %-8s %-18s %-10s %10s %10s %9s %9s\n", "RANK", "LAYER",
		       "OPERATION", "VERDICT", "COUNT A", "COUNT B", "TOTAL A", "TOTAL B");
	for (size_t i = 0; i < shown; i++)
		print_item(i + 1, &c->items[i], c);
	printf("\nset aside: %zu tiny, %zu nearly equal; not different: %zu similar, %zu within noise%s\n",
	       count[OSP_CMP_TINY], count[OSP_CMP_EQUAL], count[OSP_CMP_SIMILAR],
	       count[OSP_CMP_NOISE], all ? "" : " (--all lists them)");
}

/* One layer of A against B: either may be missing. */
struct layer_cmp {
	const char *layer;
	const struct osp_profile *a, *b;
	struct osp_cmp c; /* when both are there */
};

/* The layers of A and B, paired by name, in the layered view's order. */
static size_t pair_layers(const struct orp_input *in, struct layer_cmp *out)
{
	size_t n = 0;

	for (size_t s = 0; s < 2; s++) {
		for (size_t i = 0; i < in[s].n; i++) {
			const struct osp_profile *p = in[s].prof[i];
			size_t k = 0;

			while (k < n && strcmp(out[k].layer, p->layer) != 0)
				k++;
			if (k == n)
				out[n++] = (struct layer_cmp){ .layer = p->layer };
			if (s == 0)
				out[k].a = p;
			else
				out[k].b = p;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct layer_cmp x = out[i];
		size_t j = i;

		for (; j > 0 && orp_layer_rank(out[j - 1].layer) > orp_layer_rank(x.layer); j--)
			out[j] = out[j - 1];
		out[j] = x;
	}
	return n;
}

/* Compare one layer pair through the inputs' one helper. */
static int compare_layer(struct layer_cmp *l, const struct orp_input *in,
			 const struct orp_cmp_args *args, char *err, size_t errlen)
{
	struct orp_input a = { .spec = in[0].spec, .n = 1 };
	struct orp_input b = { .spec = in[1].spec, .n = 1 };

	if (!l->a || !l->b)
		return 0;
	/* Borrowed: these views are never freed as inputs. */
	a.prof[0] = (struct osp_profile *)l->a;
	b.prof[0] = (struct osp_profile *)l->b;
	return orp_compare_inputs(&a, &b, args, &l->c, err, errlen);
}

/* "== layer fuse (A: ebpf, B: ebpf) ==" and its result: 0 or -ENOMEM. */
static int print_layer(const struct layer_cmp *l, bool all)
{
	char sa[32], sb[32];

	fputs("\n== layer ", stdout);
	osp_esc_text(stdout, l->layer);
	if (!l->a || !l->b) {
		printf(": only in %s, not compared ==\n", l->a ? "A" : "B");
		return 0;
	}
	fputs(" (A: ", stdout);
	osp_esc_text(stdout, orp_layer_source(sa, sizeof(sa), l->a));
	fputs(", B: ", stdout);
	osp_esc_text(stdout, orp_layer_source(sb, sizeof(sb), l->b));
	fputs(") ==\n", stdout);
	if (orp_compat_text(stdout, l->a, l->b))
		return -ENOMEM;
	if (l->c.ninteresting || all)
		print_result(&l->c, all);
	else /* one line for a layer that did not change */
		printf("no operation differs (%zu compared)\n", l->c.n);
	return 0;
}

/* Which layers differ, in one line after the sections. */
static void print_summary(const struct layer_cmp *l, size_t n)
{
	size_t differ = 0;

	for (size_t i = 0; i < n; i++) {
		if (!l[i].c.ninteresting)
			continue;
		fputs(differ++ ? ", " : "\nlayers that differ: ", stdout);
		osp_esc_text(stdout, l[i].layer);
		printf(" (%zu of %zu operations)", l[i].c.ninteresting, l[i].c.n);
	}
	puts(differ ? "" : "\nno layer differs");
}

static int plot_overlays(const struct layer_cmp *l, size_t n,
			 const struct compare_args *a, const struct orp_input *in,
			 char *err, size_t errlen)
{
	struct orp_render r;
	int rc = orp_mkdir(a->plot_dir, err, errlen);

	if (rc)
		return rc;
	orp_render_init(&r, a->plot_dir, a->fmt);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; !rc && i < l[k].c.ninteresting; i++)
			rc = orp_chart_overlay(&r, &l[k].c, &l[k].c.items[i], in[0].spec,
					       in[1].spec, err, errlen);
	if (!rc)
		rc = orp_render_run(&r, err, errlen);
	if (!rc) { /* on stderr under --json: stdout holds one document */
		FILE *f = a->json ? stderr : stdout;

		fprintf(f, "%zu overlay chart%s in ", r.n, r.n == 1 ? "" : "s");
		osp_esc_text(f, a->plot_dir);
		fputc('\n', f);
	}
	orp_render_fini(&r);
	return rc;
}

/* The text answer: 0 or -ENOMEM. */
static int write_text(const struct compare_args *a, const struct orp_input *in,
		      const struct layer_cmp *l, size_t n)
{
	int rc = 0;

	print_header(a, in);
	if (n == 1 && l[0].a && l[0].b) { /* one layer: no sections */
		rc = orp_compat_text(stdout, l[0].a, l[0].b);
		print_result(&l[0].c, a->all);
		return rc;
	}
	for (size_t i = 0; !rc && i < n; i++)
		rc = print_layer(&l[i], a->all);
	print_summary(l, n);
	return rc;
}

/* The JSON answer (schema: report/README.md): 0 or -ENOMEM. */
static int write_json(const struct compare_args *a, const struct orp_input *in,
		      const struct layer_cmp *l, size_t n, int status)
{
	const struct osp_cmp_opts *o = &a->cmp.opts;
	struct orp_json j;
	int rc = 0;

	orp_json_doc(&j, stdout, "osprof-compare");
	orp_json_str(&j, "a", in[0].spec);
	orp_json_str(&j, "b", in[1].spec);
	orp_json_str(&j, "method", osp_dist_method_name(o->method));
	orp_json_str(&j, "score_unit", orp_cmp_unit(o->method));
	orp_json_num(&j, "threshold", o->threshold >= 0 ? o->threshold
							 : osp_dist_default_threshold(o->method));
	orp_json_num(&j, "noise_factor", o->noise_factor);
	orp_json_num(&j, "min_share", o->min_share);
	orp_json_num(&j, "equal", o->equal_frac);
	orp_json_u64(&j, "status", (uint64_t)status);
	orp_json_arr(&j, "layers");
	for (size_t i = 0; !rc && i < n; i++)
		rc = orp_cmp_json_layer(&j, l[i].layer, l[i].a, l[i].b, &l[i].c);
	orp_json_end(&j, ']');
	orp_json_end(&j, '}');
	return rc;
}

int orp_cmd_compare(int argc, char **argv)
{
	struct compare_args a = { 0 };
	struct orp_input *in = NULL;
	struct layer_cmp l[2 * ORP_LAYERS_MAX] = { 0 };
	char err[ORP_ERRLEN];
	size_t n = 0, differ = 0;
	int rc = parse_args(argc, argv, &a), status = ORP_EXIT_ERROR;

	if (rc)
		return rc == 1 ? ORP_EXIT_OK : ORP_EXIT_ERROR;
	if (orp_inputs_load(argv + optind, 2, a.cmp.layer, &in, err, sizeof(err)))
		goto fail;
	n = pair_layers(in, l);
	for (size_t i = 0; i < n; i++) {
		if (compare_layer(&l[i], in, &a.cmp, err, sizeof(err)))
			goto fail;
		differ += l[i].c.ninteresting;
	}
	status = differ ? ORP_EXIT_DIFFER : ORP_EXIT_OK;
	if (a.json ? write_json(&a, in, l, n, status) : write_text(&a, in, l, n)) {
		snprintf(err, sizeof(err), "out of memory");
		status = ORP_EXIT_ERROR;
		goto fail;
	}
	status = ORP_EXIT_ERROR;
	if (a.plot_dir && plot_overlays(l, n, &a, in, err, sizeof(err)))
		goto fail;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		snprintf(err, sizeof(err), "stdout: write error");
		goto fail;
	}
	status = differ ? ORP_EXIT_DIFFER : ORP_EXIT_OK;
	goto out;
fail:
	orp_error("%s", err);
out:
	for (size_t i = 0; i < n; i++)
		osp_cmp_free(&l[i].c);
	orp_inputs_free(in, 2);
	return status;
}
