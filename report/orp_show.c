// SPDX-License-Identifier: MIT
/*
 * `osprof-report show`: the text view of profiles, as MOUNT/.osprof/stats
 * prints it (core's osp_write_stats: header, table sorted by total
 * latency with interpolated percentiles, an ASCII histogram per operation,
 * checksum warnings, then the peaks of each operation), restricted by
 * --top, --op and --layer. Given several layers of one run (a mount,
 * a run directory, a list, or several files), "where the time goes"
 * comes first (orp_where.h: per FUSE operation, the layers stacked for
 * the same requests) and the layered view last: fuse against fs per
 * operation, then the other layers' top entries. --format json writes
 * the same as one JSON document instead.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "orp_by.h"
#include "orp_where.h"
#include "osprof/escape.h"
#include "osprof/format.h"

#define CMD "show"

struct show_args {
	uint64_t top;       /* 0: all */
	const char **ops;   /* --op names, NULL-terminated; NULL: all */
	size_t nops;
	const char *layer;
	bool layered;       /* only the layered view */
	bool where;         /* only "where the time goes" */
	bool all;           /* --all: every view of several layers */
	bool json;          /* --format json */
	bool values;        /* --values: the value profiles (orp_values.c) */
	bool by;            /* --by: the inputs are profiles per key value */
};

static void help(void)
{
	printf("Usage: " ORP_PROG " show [--top N] [--op NAME]... [--layer L] [--where|--layered|--all] PROFILE...\n"
	       "       " ORP_PROG " show --by [--top N] [--op NAME]... MOUNT|by.json...\n"
	       "Print each profile as a table of operations sorted by total latency\n"
	       "(count, total, mean, p50, p99 interpolated within buckets, max, share\n"
	       "of time), an ASCII log2 histogram per operation, and its peaks (bucket\n"
	       "range, count, share, mean latency). A histogram whose buckets do not\n"
	       "add up to its count is named in a warning.\n\n"
	       "Given several layers of one run (a mount with its fuse.json, syscall.json,\n"
	       "... beside stats.json; a directory of such files; a comma-separated list\n"
	       "a/fs.json,a/fuse.json; or several files, one per layer), it prints the\n"
	       "fs layer's view (as .osprof/stats), then \"where the time goes\" in one\n"
	       "table: per FUSE operation, its time as the top layer that timed it saw\n"
	       "it, split into the kernel outside FUSE (syscall - fuse), FUSE's\n"
	       "transport and queueing (fuse - fs), the daemon's own work (fs - lower),\n"
	       "the lower file system and the disk (block), where the layers counted\n"
	       "the same requests. --where gives each operation's steps with the\n"
	       "counts of both sides and why a step does not subtract; --layered the\n"
	       "layers side by side: per operation the fuse and fs layers' count, mean,\n"
	       "p50 and p99 with fuse - fs (what FUSE adds), counts that differ\n"
	       "flagged, then the top entries of the syscall, lower, block and irq\n"
	       "layers, each naming its source (it follows --top: default every\n"
	       "fuse/fs operation, 10 of each other layer; not --op); --all both, and\n"
	       "every layer's view.\n\n"
	       "  -n, --top N      only the N operations with the most total latency\n"
	       "  -O, --op NAME    only operation NAME (repeatable)\n"
	       "  -l, --layer L    only layer L (fuse, fs, syscall, lower, block, irq)\n"
	       "  -w, --where      only \"where the time goes\", step by step\n"
	       "  -L, --layered    only the layered view\n"
	       "  -a, --all        where the time goes step by step, every layer's\n"
	       "                   view, and the layered view\n"
	       "  -b, --by         the inputs are osprof-fs's profiles per key value (-o by=KEY:\n"
	       "                   MOUNT/.osprof/by.json, or --dump's FILE.by.json): the top\n"
	       "                   values by total time (--top, default 10) with each one's\n"
	       "                   table, then `other` and the requests folded into it\n"
	       "  -F, --format F   text (default) or json: each profile's table and\n"
	       "                   peaks as one JSON document (schema: docs/report.md)\n"
	       "  -V, --values     instead, the value profiles of osprof-fs -o values\n"
	       "                   (values.json of a mount, or FILE.values.json beside\n"
	       "                   a --dump FILE): per op, each latency peak's request\n"
	       "                   sizes and seek distances (read, write) or how many\n"
	       "                   readdirs were at the directory's end\n"
	       "  -h, --help       this help\n\n"
	       "Examples:\n"
	       "  " ORP_PROG " show /mnt/p                 # a live osprof-fs mount\n"
	       "  " ORP_PROG " show --top 5 run.json\n"
	       "  " ORP_PROG " show --op read --op write run.json\n"
	       "  " ORP_PROG " show --layer block /proc/osprof\n"
	       "  " ORP_PROG " show --where --op read /mnt/p  # mounted as root: eBPF layers\n"
	       "  " ORP_PROG " show --layered run/fs.json,run/fuse.json,run/syscall.json\n"
	       "  " ORP_PROG " show --values --op read /mnt/p\n"
	       "  " ORP_PROG " show --by --top 5 /mnt/p       # mounted with -o by=pid\n");
}

static bool wanted(const struct show_args *a, const char *name)
{
	if (!a->nops)
		return true;
	for (size_t i = 0; i < a->nops; i++)
		if (strcmp(a->ops[i], name) == 0)
			return true;
	return false;
}

/*
 * A shallow view of @p holding the selected ops that had requests, most
 * total latency first: osp_write_stats prints exactly those. The ops are borrowed
 * (struct copies sharing buckets), so only the array is freed.
 */
static int make_view(const struct osp_profile *p, const struct show_args *a,
		     struct osp_profile *view)
{
	const struct osp_op **sorted = calloc(p->nops + 1, sizeof(*sorted));
	size_t n = 0;

	*view = *p;
	view->nsnaps = 0;
	view->ops = calloc(p->nops + 1, sizeof(*view->ops));
	if (!sorted || !view->ops) {
		free(sorted);
		free(view->ops);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->nops; i++)
		if (p->ops[i].lat.count && wanted(a, p->ops[i].name))
			sorted[n++] = &p->ops[i];
	qsort(sorted, n, sizeof(*sorted), orp_cmp_op_total);
	if (a->top && n > a->top)
		n = a->top;
	for (size_t i = 0; i < n; i++)
		view->ops[i] = *sorted[i];
	view->nops = n;
	view->ops_cap = p->nops + 1;
	free(sorted);
	return 0;
}

static int show_profile(const struct osp_profile *p, const struct show_args *a)
{
	struct osp_profile view;
	int err = make_view(p, a, &view);
	size_t ran = 0;

	if (err)
		return err;
	for (size_t i = 0; i < p->nops; i++)
		ran += p->ops[i].lat.count != 0;
	/* osp_write_stats totals what it is given: say that it is a part
	 * (of the operations that had requests: it shows no other). */
	if (view.nops < ran)
		printf("(showing %zu of %zu operations: the totals and %%TIME below are of these)\n",
		       view.nops, ran);
	err = osp_write_stats(stdout, &view);
	free(view.ops);
	return err;
}

/* One profile's table and peaks as a member of "profiles". */
static int json_profile(struct orp_json *j, const char *key, const char *spec,
			const struct osp_profile *p, const struct show_args *a)
{
	struct osp_profile view;
	double total = 0.0;
	int err = make_view(p, a, &view);

	if (err)
		return err;
	for (size_t i = 0; i < view.nops; i++)
		total += (double)view.ops[i].lat.sum;
	orp_json_obj(j, key);
	orp_json_str(j, "input", spec);
	orp_json_str(j, "layer", p->layer);
	orp_json_str(j, "host", p->host);
	orp_json_str(j, "clock", p->clock_source);
	orp_json_u64(j, "resolution", p->res);
	orp_json_str(j, "unit", p->unit ? p->unit : "ns");
	orp_json_u64(j, "elapsed_ns", p->elapsed_ns);
	orp_json_kv(j, "options", &p->options);
	orp_json_kv(j, "source", &p->source);
	orp_json_u64(j, "operations", p->nops);
	orp_json_arr(j, "ops");
	for (size_t i = 0; i < view.nops; i++) {
		const struct osp_hist *h = &view.ops[i].lat;
		bool any = h->count > 0;

		orp_json_obj(j, NULL);
		orp_json_str(j, "name", view.ops[i].name);
		orp_json_u64(j, "count", h->count);
		orp_json_u64(j, "sum_ns", h->sum);
		orp_json_num(j, "mean_ns", any ? osp_hist_mean(h) : NAN);
		orp_json_num(j, "p50_ns", any ? osp_hist_percentile(h, 50) : NAN);
		orp_json_num(j, "p99_ns", any ? osp_hist_percentile(h, 99) : NAN);
		orp_json_u64(j, "min_ns", h->min);
		orp_json_u64(j, "max_ns", h->max);
		orp_json_num(j, "time_share", total > 0 ? (double)h->sum / total : 0.0);
		orp_json_bool(j, "checksum_ok", osp_hist_checksum_ok(h));
		orp_json_peaks(j, h);
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
	orp_json_end(j, '}');
	free(view.ops);
	return 0;
}

/*
 * The layers of the inputs as one run into @l: 1 when they make one, 0
 * when not and no one asked, -EINVAL (said) when --layered asked.
 */
static int gather_layers(const struct show_args *a, const struct orp_input *in,
			 size_t nin, struct orp_layered *l)
{
	const char *twice;

	if (orp_layered_gather(in, nin, l, &twice))
		return 1;
	if (!a->layered)
		return 0;
	if (twice)
		orp_error("no layered view: layer %s is given twice (the layers of one run, each once)",
			  twice);
	else
		orp_error("no layered view: it needs two layers of one run or more");
	return -EINVAL;
}

/*
 * "Where the time goes" of the inputs taken as one run into @w: 1 when
 * there is one, 0 when not and no one asked, -EINVAL (said) when --where
 * asked, -ENOMEM. Free @w with orp_where_fini when 1.
 */
static int gather_where(const struct show_args *a, const struct orp_input *in,
			size_t nin, struct orp_where *w)
{
	struct orp_layered l;
	const char *twice;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!orp_layered_gather(in, nin, &l, &twice)) {
		if (!a->where)
			return 0;
		if (twice)
			orp_error("no \"where the time goes\": layer %s is given twice (the layers of one run, each once)",
				  twice);
		else
			orp_error("no \"where the time goes\": it needs two layers of one run or more");
		return -EINVAL;
	}
	rc = orp_where_build(&l, w);
	if (rc == 0)
		return 1;
	orp_where_fini(w);
	if (rc == -ENOENT && !a->where)
		return 0;
	if (rc == -ENOENT)
		orp_error("no \"where the time goes\": it needs layer fs or fuse and another of syscall, fuse, fs, lower, block");
	else
		orp_error("where the time goes: out of memory");
	return rc == -ENOENT ? -EINVAL : rc;
}

/* show --format json: every profile of every input, then "where the time
 * goes" and the layered view when they are one run's layers. */
static int show_json(const struct show_args *a, const struct orp_input *in, size_t nin)
{
	struct orp_layered l;
	struct orp_where w;
	struct orp_json j;
	int layered = gather_layers(a, in, nin, &l), where, rc = 0;

	if (layered < 0)
		return layered;
	where = gather_where(a, in, nin, &w);
	if (where < 0)
		return where;
	orp_json_doc(&j, stdout, "osprof-show");
	orp_json_arr(&j, "profiles");
	for (size_t i = 0; !rc && i < nin; i++)
		for (size_t k = 0; !rc && k < in[i].n; k++)
			rc = json_profile(&j, NULL, in[i].spec, in[i].prof[k], a);
	orp_json_end(&j, ']');
	if (!rc && where)
		rc = orp_where_write_json(&j, &w, a->top, a->ops, a->nops);
	if (!rc && layered)
		rc = orp_layered_write_json(&j, &l, a->top);
	orp_json_end(&j, '}');
	if (where)
		orp_where_fini(&w);
	return rc;
}

/* "==> SPEC (layer L) <==" before each of several profiles. */
static void print_banner(bool gap, const char *spec, const char *layer)
{
	fputs(gap ? "\n==> " : "==> ", stdout);
	osp_esc_text(stdout, spec);
	fputs(" (layer ", stdout);
	osp_esc_text(stdout, layer);
	fputs(") <==\n", stdout);
}

/* Every --op must exist somewhere, or the user mistyped it. */
static int check_ops(const struct show_args *a, struct orp_input *in, size_t nin)
{
	for (size_t k = 0; k < a->nops; k++) {
		bool found = false;

		for (size_t i = 0; i < nin && !found; i++)
			for (size_t j = 0; j < in[i].n && !found; j++)
				found = osp_profile_find_op(in[i].prof[j], a->ops[k]) != NULL;
		if (!found) {
			orp_error("no operation named '%s' in %s%s", a->ops[k],
				  nin == 1 ? in[0].spec : "any input",
				  a->layer ? " (in the layer chosen)" : "");
			return -ENOENT;
		}
	}
	return 0;
}

/* --op NAME, one more operation to show. */
static int opt_op(const struct osp_opt *opt, const char *arg)
{
	struct show_args *a = opt->dst;

	a->ops[a->nops++] = arg;
	return 0;
}

static int opt_format(const struct osp_opt *opt, const char *arg)
{
	if (strcmp(arg, "json") != 0 && strcmp(arg, "text") != 0) {
		orp_usage_error(CMD, "unknown format '%s' (text or json)", arg);
		return -EINVAL;
	}
	*(bool *)opt->dst = strcmp(arg, "json") == 0;
	return 0;
}

static int parse_args(int argc, char **argv, struct show_args *a)
{
	const struct osp_opt opts[] = {
		{ 'n', "top", OSP_OPT_U64, &a->top, .umin = 1, .umax = UINT32_MAX },
		{ 'O', "op", OSP_OPT_CALL, a, .call = opt_op },
		{ 'l', "layer", OSP_OPT_STR, &a->layer },
		{ 'w', "where", OSP_OPT_TRUE, &a->where },
		{ 'L', "layered", OSP_OPT_TRUE, &a->layered },
		{ 'a', "all", OSP_OPT_TRUE, &a->all },
		{ 'F', "format", OSP_OPT_CALL, &a->json, .call = opt_format },
		{ 'V', "values", OSP_OPT_TRUE, &a->values },
		{ 'b', "by", OSP_OPT_TRUE, &a->by },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc;

	a->ops = calloc((size_t)argc + 1, sizeof(*a->ops));
	if (!a->ops)
		return -ENOMEM;
	rc = orp_opts_parse(CMD, opts, argc, argv, help);
	if (rc)
		return rc;
	if (optind >= argc) {
		orp_usage_error(CMD, "no PROFILE given");
		return -EINVAL;
	}
	if ((a->where || a->layered) && a->all) {
		orp_usage_error(CMD, "--all holds --where and --layered: one of the three");
		return -EINVAL;
	}
	if (a->by && (a->layer || a->layered || a->where || a->all)) {
		orp_usage_error(CMD, "--by reads profiles per key value, of layer fs: not with --layer, --where, --layered or --all");
		return -EINVAL;
	}
	return 0;
}

/*
 * The layered view of every profile given, when they are several layers
 * of one run; with --layered, say why there is none.
 */
static int show_layered(const struct show_args *a, const struct orp_input *in,
			size_t nin, bool gap)
{
	struct orp_layered l;
	struct orp_layered_view v;
	int rc = gather_layers(a, in, nin, &l);

	if (rc <= 0)
		return rc;
	rc = orp_layered_build(&l, a->top, &v);
	if (!rc) {
		fputs(gap ? "\n==> layered view (" : "==> layered view (", stdout);
		for (size_t i = 0; i < l.n; i++) {
			fputs(i ? ", " : "", stdout);
			osp_esc_text(stdout, l.prof[i]->layer);
		}
		fputs(") <==\n", stdout);
		rc = orp_layered_write_text(stdout, &v);
	}
	orp_layered_view_fini(&v);
	if (rc == -ENOMEM)
		orp_error("layered view: out of memory");
	return rc;
}

/*
 * "Where the time goes" of every profile given, when they are several
 * layers of one run; with --where, say why there is none. 1 printed,
 * 0 none, -EINVAL or -ENOMEM (said), -EIO.
 */
static int show_where(const struct show_args *a, const struct orp_input *in, size_t nin)
{
	struct orp_where w;
	struct orp_where_view v;
	int rc = gather_where(a, in, nin, &w);

	if (rc <= 0)
		return rc;
	rc = orp_where_view_build(&w, a->top, a->ops, a->nops, &v);
	if (!rc)
		rc = orp_where_write_text(stdout, &w, &v);
	orp_where_view_fini(&v);
	orp_where_fini(&w);
	if (rc == -ENOMEM)
		orp_error("where the time goes: out of memory");
	return rc ? rc : 1;
}

/*
 * The first screen of several layers of one run: the fs layer's view (the
 * first profile's when there is no fs), where the time goes in one table,
 * and the flags that show the rest. 1 printed, 0 when the layers make no
 * "where" (the caller shows them all), -ENOMEM (said), -EIO.
 */
static int show_first(const struct show_args *a, const struct orp_input *in, size_t nin)
{
	const struct orp_input *at = &in[0];
	const struct osp_profile *fs = in[0].prof[0];
	struct orp_where w;
	int rc = gather_where(a, in, nin, &w);

	if (rc <= 0)
		return rc;
	bool found = false;

	for (size_t i = 0; i < nin && !found; i++)
		for (size_t j = 0; j < in[i].n && !found; j++)
			if (strcmp(in[i].prof[j]->layer, OSP_LAYER_FS) == 0) {
				at = &in[i];
				fs = in[i].prof[j];
				found = true;
			}
	print_banner(false, at->spec, fs->layer);
	rc = show_profile(fs, a);
	if (!rc) {
		fputc('\n', stdout);
		rc = orp_where_write_summary(stdout, &w, a->top, a->ops, a->nops);
	}
	if (!rc)
		printf("\nmore: --where (each operation step by step, and why a step does not "
		       "subtract), --layered (the layers side by side), --all (both, and every "
		       "layer's view)\n");
	orp_where_fini(&w);
	if (rc == -ENOMEM)
		orp_error("where the time goes: out of memory");
	return rc ? rc : 1;
}

/* ---- --by: profiles per key value ---- */

/* "1234 (grep)" or "/src", escaped. */
static void by_name(FILE *out, const struct orp_by *b, const struct orp_by_value *v)
{
	if (v == &b->other) {
		fputs("other", out);
		return;
	}
	osp_esc_text(out, b->key);
	fputc(' ', out);
	osp_esc_text(out, v->value);
	if (v->label) {
		fputs(" (", out);
		osp_esc_text(out, v->label);
		fputc(')', out);
	}
}

static uint64_t by_total_ns(const struct orp_by *b)
{
	uint64_t t = b->other.total_ns;

	for (size_t i = 0; i < b->n; i++)
		t += b->v[i].total_ns;
	return t;
}

static int by_show_value(const struct orp_by *b, const struct orp_by_value *v,
			 uint64_t total_ns, const struct show_args *a)
{
	struct show_args one = *a;
	char t[32];

	fputs("\n==> ", stdout);
	by_name(stdout, b, v);
	printf(": %" PRIu64 " requests, %s, %.1f%% of the time <==\n", v->requests,
	       osp_fmt_ns(t, sizeof(t), (double)v->total_ns),
	       total_ns ? 100.0 * (double)v->total_ns / (double)total_ns : 0.0);
	if (!v->requests)
		return 0;
	one.top = 0; /* --top counts values here, not operations */
	return show_profile(v->p, &one);
}

static size_t by_shown(const struct orp_by *b, const struct show_args *a)
{
	uint64_t top = a->top ? a->top : 10;

	return b->n < top ? b->n : (size_t)top;
}

static int by_show_text(const char *spec, const struct orp_by *b, const struct show_args *a)
{
	uint64_t total = by_total_ns(b);
	size_t n = by_shown(b, a);
	int err = 0;

	fputs("by ", stdout);
	osp_esc_text(stdout, b->key);
	fputs(" (", stdout);
	osp_esc_text(stdout, spec);
	printf("): %zu values (at most %" PRIu64 "), the top %zu by total time, then other"
	       " (%" PRIu64 " requests of %s%" PRIu64 " values refused)\n",
	       b->n, b->max_values, n, b->other.requests, b->refused_more ? ">= " : "",
	       b->refused_values);
	for (size_t i = 0; !err && i < n; i++)
		err = by_show_value(b, &b->v[i], total, a);
	return err ? err : by_show_value(b, &b->other, total, a);
}

static int by_json_value(struct orp_json *j, const char *spec, const struct orp_by *b,
			 const struct orp_by_value *v, uint64_t total, const struct show_args *a)
{
	struct show_args one = *a;

	orp_json_obj(j, v == &b->other ? "other" : NULL);
	if (v != &b->other) {
		orp_json_str(j, "value", v->value);
		orp_json_str(j, "label", v->label);
	}
	orp_json_u64(j, "requests", v->requests);
	orp_json_u64(j, "total_ns", v->total_ns);
	orp_json_num(j, "time_share", total ? (double)v->total_ns / (double)total : 0.0);
	one.top = 0;
	if (json_profile(j, "table", spec, v->p, &one))
		return -ENOMEM;
	orp_json_end(j, '}');
	return 0;
}

static int by_show_json(struct orp_json *j, const char *spec, const struct orp_by *b,
			const struct show_args *a)
{
	uint64_t total = by_total_ns(b);
	size_t n = by_shown(b, a);
	int err = 0;

	orp_json_obj(j, NULL);
	orp_json_str(j, "input", spec);
	orp_json_str(j, "key", b->key);
	orp_json_u64(j, "max_values", b->max_values);
	orp_json_u64(j, "value_count", b->n);
	orp_json_u64(j, "folded_requests", b->other.requests);
	orp_json_u64(j, "refused_values", b->refused_values);
	orp_json_bool(j, "refused_values_more", b->refused_more);
	orp_json_arr(j, "values");
	for (size_t i = 0; !err && i < n; i++)
		err = by_json_value(j, spec, b, &b->v[i], total, a);
	orp_json_end(j, ']');
	err = err ? err : by_json_value(j, spec, b, &b->other, total, a);
	orp_json_end(j, '}');
	return err;
}

/* show --by SPEC...: each input's top values. */
static int show_by(char *const *specs, size_t n, const struct show_args *a)
{
	char err[ORP_ERRLEN];
	struct orp_by *b = calloc(n, sizeof(*b));
	struct orp_json j;
	int rc = b ? 0 : -ENOMEM;

	if (!b)
		orp_error("out of memory");
	/* Every input read before anything is written: one error line, no half output. */
	for (size_t i = 0; !rc && i < n; i++) {
		rc = orp_by_load(specs[i], &b[i], err, sizeof(err));
		if (rc)
			orp_error("%s", err);
	}
	if (!rc && a->json) {
		orp_json_doc(&j, stdout, "osprof-show-by");
		orp_json_arr(&j, "inputs");
		for (size_t i = 0; !rc && i < n; i++)
			rc = by_show_json(&j, specs[i], &b[i], a);
		orp_json_end(&j, ']');
		orp_json_end(&j, '}');
	}
	for (size_t i = 0; !rc && !a->json && i < n; i++) {
		if (i)
			fputc('\n', stdout);
		rc = by_show_text(specs[i], &b[i], a);
	}
	if (rc == -ENOMEM)
		orp_error("out of memory");
	for (size_t i = 0; b && i < n; i++)
		orp_by_free(&b[i]);
	free(b);
	return orp_exit_stdout(rc);
}

int orp_cmd_show(int argc, char **argv)
{
	struct show_args a = { 0 };
	struct orp_input *in = NULL;
	char err[ORP_ERRLEN];
	size_t nin, nprof = 0;
	bool gap;
	int rc = parse_args(argc, argv, &a), status = ORP_EXIT_ERROR;

	if (rc)
		goto out_args;
	nin = (size_t)(argc - optind);
	if (a.values && a.by) {
		orp_usage_error(CMD, "--values and --by are two views: one at a time");
		goto out_args;
	}
	if (a.values) {
		status = orp_values_show(argv + optind, nin, a.json, a.ops, a.nops);
		goto out_args;
	}
	if (a.by) {
		status = show_by(argv + optind, nin, &a);
		goto out_args;
	}
	if (orp_inputs_load(argv + optind, nin, a.layer, &in, err, sizeof(err))) {
		orp_error("%s", err);
		goto out_args;
	}
	for (size_t i = 0; i < nin; i++)
		nprof += in[i].n;
	if (check_ops(&a, in, nin))
		goto out_inputs;
	if (a.json) {
		rc = show_json(&a, in, nin);
		if (rc) {
			if (rc == -ENOMEM)
				orp_error("out of memory");
			goto out_inputs;
		}
		if (fflush(stdout) == 0 && !ferror(stdout))
			status = ORP_EXIT_OK;
		else
			orp_error("stdout: write error");
		goto out_inputs;
	}
	/* Several layers of one run, no view chosen: the first screen. */
	if (nprof > 1 && !a.where && !a.layered && !a.all) {
		rc = show_first(&a, in, nin);
		if (rc == -ENOMEM)
			goto out_inputs;
		if (rc < 0)
			goto out_write;
		if (rc == 1)
			goto out_flush;
	}
	/* Where the time goes first, unless only the layered view is asked for. */
	rc = a.layered && !a.where ? 0 : show_where(&a, in, nin);
	if (rc == -EINVAL || rc == -ENOMEM)
		goto out_inputs;
	if (rc < 0)
		goto out_write;
	gap = rc == 1;
	for (size_t i = 0; i < nin && !a.layered && !a.where; i++) {
		for (size_t j = 0; j < in[i].n; j++) {
			if (gap)
				fputc('\n', stdout);
			if (nprof > 1)
				print_banner(false, in[i].spec, in[i].prof[j]->layer);
			if (show_profile(in[i].prof[j], &a))
				goto out_write;
			gap = true;
		}
	}
	rc = a.where && !a.layered ? 0 : show_layered(&a, in, nin, gap);
	if (rc == -EINVAL || rc == -ENOMEM)
		goto out_inputs;
out_flush:
	if (rc >= 0 && fflush(stdout) == 0 && !ferror(stdout)) {
		status = ORP_EXIT_OK;
		goto out_inputs;
	}
out_write:
	orp_error("stdout: write error");
out_inputs:
	orp_inputs_free(in, nin);
out_args:
	free(a.ops);
	return rc == 1 ? ORP_EXIT_OK : status;
}
