// SPDX-License-Identifier: MIT
/*
 * Machine-readable outputs of osprof-bench. CSV: one row per run and, after
 * each configuration's runs, one row per statistic (mean, median, low, high,
 * min, max, sd, hw) in the same columns, so a spreadsheet or gnuplot reads
 * one schema. JSON (built with json-c, which escapes strings; non-finite
 * numbers become null, which JSON requires): the tool and format version,
 * the machine, the settings, why the series stopped, and per configuration
 * every run with its copies, the summaries, outliers, trends and the
 * comparison with the baseline.
 */
#include "obn.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "config.h"
#include "osprof/escape.h"
#include "osprof/format.h"

#define OBN_JSON_VERSION 1

/* ---- CSV ---- */

static void csv_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, ",%.9g", v);
	else
		fputs(",", f);
}

static void csv_run(FILE *f, const struct obn_config *cfg, const struct obn_run *r)
{
	osp_csv_field(f, cfg->name);
	fprintf(f, ",%u,", r->index);
	osp_csv_field(f, r->ok ? "ok" : r->failure);
	for (int q = 0; q < OBN_Q_COUNT; q++)
		csv_num(f, r->q[q]);
	fprintf(f, ",%llu,%llu,%lld\n", (unsigned long long)r->mem_before_bytes,
		(unsigned long long)r->mem_after_bytes,
		(long long)r->start_spread_ns);
}

static void csv_summary(FILE *f, const struct obn_config *cfg,
			const struct obn_result *r)
{
	static const char *const stat[] = { "mean", "median", "low", "high",
					    "min", "max", "sd", "hw" };

	for (size_t k = 0; k < sizeof(stat) / sizeof(stat[0]); k++) {
		osp_csv_field(f, cfg->name);
		fprintf(f, ",%s,", stat[k]);
		for (int q = 0; q < OBN_Q_COUNT; q++) {
			const struct obn_summary *x = &r->sum[q];
			double v[] = { x->mean, x->median, x->low, x->high,
				       x->min, x->max, x->sd, x->hw };
			csv_num(f, v[k]);
		}
		fputs(",,,\n", f);
	}
}

int obn_out_csv(const struct obn_session *s, const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f)
		return -errno;
	fputs("config,run,status,elapsed_s,user_s,system_s,wait_s,cpu_pct,"
	      "mem_available_before_bytes,mem_available_after_bytes,"
	      "start_spread_ns\n", f);
	for (size_t c = 0; c < s->opts->nconfigs; c++) {
		const struct obn_config *cfg = &s->opts->configs[c];
		for (size_t i = 0; i < cfg->nruns; i++)
			csv_run(f, cfg, &cfg->runs[i]);
		csv_summary(f, cfg, &s->results[c]);
	}
	int bad = ferror(f);
	if (fclose(f) != 0 || bad)
		return -EIO;
	return 0;
}

/* ---- JSON ---- */

/* A number, or null when it is not finite (JSON has no NaN). */
static json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static void add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

static json_object *j_machine(const struct obn_machine *m)
{
	json_object *o = json_object_new_object();

	add(o, "host", jstr(m->host));
	add(o, "kernel", jstr(m->kernel));
	add(o, "cpu_model", jstr(m->cpu_model));
	add(o, "cpus_online", json_object_new_int64(m->cpus_online));
	add(o, "mem_total_bytes", json_object_new_uint64(m->mem_total_bytes));
	add(o, "cwd", jstr(m->cwd));
	add(o, "cwd_fstype", jstr(m->cwd_mnt.fstype));
	add(o, "cwd_source", jstr(m->cwd_mnt.source));
	add(o, "cwd_mount", jstr(m->cwd_mnt.point));
	return o;
}

static json_object *j_settings(const struct obn_session *s)
{
	const struct obn_opts *o = s->opts;
	json_object *j = json_object_new_object();

	add(j, "confidence", jnum(o->level));
	add(j, "hw_pct", jnum(o->hw_pct));
	add(j, "min_runs", json_object_new_int64(o->min_runs));
	add(j, "max_runs", json_object_new_int64(o->max_runs));
	add(j, "warmup", json_object_new_int64(o->warmup));
	add(j, "threads", json_object_new_int64(o->threads));
	add(j, "zmax", jnum(o->zmax));
	add(j, "cache", jstr(o->cold ? "cold" : "warm"));
	add(j, "keep_going", json_object_new_boolean(o->keep_going));
	add(j, "setup", jstr(o->setup));
	add(j, "cleanup", jstr(o->cleanup));
	add(j, "remount", jstr(o->remount_mnt));
	add(j, "remount_cmd", jstr(s->remount_desc));
	return j;
}

static void add_quantities(json_object *o, const double *q)
{
	add(o, "elapsed_s", jnum(q[OBN_Q_ELAPSED]));
	add(o, "user_s", jnum(q[OBN_Q_USER]));
	add(o, "system_s", jnum(q[OBN_Q_SYSTEM]));
	add(o, "wait_s", jnum(q[OBN_Q_WAIT]));
	add(o, "cpu_pct", jnum(q[OBN_Q_CPU_PCT]));
}

static json_object *j_copies(const struct obn_run *r)
{
	json_object *a = json_object_new_array();
	int64_t first = INT64_MAX;
	char how[128];

	for (unsigned i = 0; i < r->ncopies; i++)
		if (r->copies[i].start_ns < first)
			first = r->copies[i].start_ns;
	for (unsigned i = 0; i < r->ncopies; i++) {
		const struct obn_copy *c = &r->copies[i];
		json_object *o = json_object_new_object();
		obn_proc_describe(c->wstatus, how, sizeof(how));
		add(o, "index", json_object_new_int64(i));
		add(o, "start_offset_ns", json_object_new_int64(c->start_ns - first));
		add(o, "elapsed_s", jnum((double)(c->end_ns - c->start_ns) / 1e9));
		add(o, "user_s", jnum(c->user_s));
		add(o, "system_s", jnum(c->system_s));
		add(o, "status", jstr(c->exec_errno ? strerror(c->exec_errno) : how));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *j_run(const struct obn_run *r)
{
	json_object *o = json_object_new_object();

	add(o, "run", json_object_new_int64(r->index));
	add(o, "ok", json_object_new_boolean(r->ok));
	if (!r->ok)
		add(o, "failure", jstr(r->failure));
	add_quantities(o, r->q);
	add(o, "mem_available_before_bytes",
	    json_object_new_uint64(r->mem_before_bytes));
	add(o, "mem_available_after_bytes",
	    json_object_new_uint64(r->mem_after_bytes));
	add(o, "start_spread_ns", json_object_new_int64(r->start_spread_ns));
	add(o, "copies", j_copies(r));
	return o;
}

static json_object *j_summary(const struct obn_result *r, enum obn_qty q)
{
	const struct obn_summary *x = &r->sum[q];
	json_object *o = json_object_new_object();
	double mean = fabs(x->mean);

	add(o, "count", json_object_new_int64((int64_t)x->count));
	add(o, "mean", jnum(x->mean));
	add(o, "median", jnum(x->median));
	add(o, "low", jnum(x->low));
	add(o, "high", jnum(x->high));
	add(o, "min", jnum(x->min));
	add(o, "max", jnum(x->max));
	add(o, "sd", jnum(x->sd));
	add(o, "hw", jnum(x->hw));
	add(o, "sdev_pct", jnum(mean > 0 ? x->sd / mean * 100.0 : NAN));
	add(o, "hw_pct", jnum(mean > 0 ? x->hw / mean * 100.0 : NAN));
	add(o, "bound_scale", jnum(r->ref[q]));
	add(o, "hw_bound_pct", jnum(r->hw_rel_pct[q]));
	add(o, "overhead_pct", jnum(r->overhead_pct[q]));
	return o;
}

static json_object *j_outliers(const struct obn_config *cfg,
			       const struct obn_result *r)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < r->noutliers; i++) {
		json_object *o = json_object_new_object();
		add(o, "run", json_object_new_int64(cfg->runs[r->outliers[i].run].index));
		add(o, "quantity", jstr(obn_qty_names[r->outliers[i].q]));
		add(o, "value", jnum(r->outliers[i].value));
		add(o, "z", jnum(r->outliers[i].z));
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *j_trends(const struct obn_result *r)
{
	static const char *const key[OBN_T_COUNT] = {
		[OBN_T_ELAPSED] = "elapsed_s",
		[OBN_T_CPU] = "cpu_s",
		[OBN_T_MEM_FREE] = "mem_available_bytes",
	};
	json_object *o = json_object_new_object();

	for (int t = 0; t < OBN_T_COUNT; t++) {
		const struct obn_trend *tr = &r->trend[t];
		json_object *j = json_object_new_object();
		add(j, "slope_per_run", jnum(tr->slope));
		add(j, "slope_low", jnum(tr->slope_low));
		add(j, "slope_high", jnum(tr->slope_high));
		add(j, "intercept", jnum(tr->intercept));
		add(j, "p", jnum(tr->p));
		add(j, "warning", json_object_new_boolean(r->trend_warn[t]));
		add(o, key[t], j);
	}
	return o;
}

static json_object *j_tests(const struct obn_result *r, enum obn_qty q)
{
	const struct obn_welch *w = &r->welch[q];
	const struct obn_mw *u = &r->mw[q];
	json_object *o = json_object_new_object(), *jw = json_object_new_object();
	json_object *ju = json_object_new_object();

	add(o, "diff", jnum(w->diff));
	add(o, "diff_low", jnum(w->diff_low));
	add(o, "diff_high", jnum(w->diff_high));
	add(o, "overhead_pct", jnum(r->overhead_pct[q]));
	add(jw, "t", jnum(w->t));
	add(jw, "df", jnum(w->df));
	add(jw, "p_less", jnum(w->p_less));
	add(jw, "p_greater", jnum(w->p_greater));
	add(jw, "p_different", jnum(w->p_different));
	add(o, "welch", jw);
	add(ju, "u", jnum(u->u));
	add(ju, "z", jnum(u->z));
	add(ju, "p_less", jnum(u->p_less));
	add(ju, "p_greater", jnum(u->p_greater));
	add(ju, "p_different", jnum(u->p_different));
	add(o, "mann_whitney", ju);
	return o;
}

static json_object *j_config(const struct obn_session *s, size_t c)
{
	const struct obn_config *cfg = &s->opts->configs[c];
	const struct obn_result *r = &s->results[c];
	json_object *o = json_object_new_object(), *runs = json_object_new_array();
	json_object *sum = json_object_new_object();

	add(o, "name", jstr(cfg->name));
	if (cfg->shell_cmd) {
		add(o, "command", jstr(cfg->shell_cmd));
	} else {
		json_object *argv = json_object_new_array();
		for (char **a = cfg->argv; *a; a++)
			json_object_array_add(argv, jstr(*a));
		add(o, "command", argv);
	}
	add(o, "baseline", json_object_new_boolean(c == 0));
	for (size_t i = 0; i < cfg->nruns; i++)
		json_object_array_add(runs, j_run(&cfg->runs[i]));
	add(o, "runs", runs);
	for (int q = 0; q < OBN_Q_COUNT; q++)
		add(sum, obn_qty_names[q], j_summary(r, q));
	add(o, "summary", sum);
	add(o, "outliers", j_outliers(cfg, r));
	add(o, "trends", j_trends(r));
	if (c > 0) {
		json_object *cmp = json_object_new_object();
		add(cmp, "baseline", jstr(s->opts->configs[0].name));
		for (int q = 0; q < OBN_Q_COUNT; q++)
			add(cmp, obn_qty_names[q], j_tests(r, q));
		add(o, "comparison", cmp);
	}
	return o;
}

int obn_out_json(const struct obn_session *s, const char *path)
{
	json_object *root = json_object_new_object();
	json_object *stop = json_object_new_object();
	json_object *configs = json_object_new_array();

	/* Twelve digits: nanoseconds of a 1000 s run, without 0.1 printed
	 * as 0.10000000000000001. */
	json_c_set_serialization_double_format("%.12g", JSON_C_OPTION_GLOBAL);
	add(root, "format", jstr("osprof-bench"));
	add(root, "version", json_object_new_int(OBN_JSON_VERSION));
	add(root, "tool_version", jstr(OSPROF_VERSION));
	add(root, "machine", j_machine(&s->machine));
	add(root, "settings", j_settings(s));
	add(stop, "reason", jstr(obn_stop_names[s->stop]));
	add(stop, "rounds", json_object_new_int64(s->rounds));
	add(stop, "message", jstr(s->stop_msg));
	add(root, "stop", stop);
	for (size_t c = 0; c < s->opts->nconfigs; c++)
		json_object_array_add(configs, j_config(s, c));
	add(root, "configs", configs);

	int rc = json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY |
					 JSON_C_TO_STRING_SPACED |
					 JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(root);
	return rc < 0 ? -EIO : 0;
}
