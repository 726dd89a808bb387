// SPDX-License-Identifier: MIT
/*
 * The analysis of a series, done once and read by every output: per
 * configuration the summary of each quantity, the stopping predicate, the
 * outliers (|z| above the limit), the drifts (a significant least-squares
 * slope across runs) and the comparison with the baseline.
 *
 * A quantity is judged against a scale: its own mean, or the elapsed mean
 * when that is larger (for CPU%, 100 %). The CPU time of `sleep 0.05` is a
 * fraction of a millisecond and varies by half its value from run to run; it
 * can never make the run's figures wrong by more than the bound, so it need
 * only be known within the bound of the elapsed time. The same scale keeps
 * immaterial outliers and drifts (statistically clear, but smaller than the
 * precision asked for) out of the warnings.
 */
#include "obn.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A fitted drop of free memory smaller than this across a series is noise. */
#define MEM_DRIFT_BYTES (8.0 * 1024 * 1024)

const char *const obn_trend_names[OBN_T_COUNT] = {
	[OBN_T_ELAPSED] = "elapsed",
	[OBN_T_CPU] = "cpu",
	[OBN_T_MEM_FREE] = "free memory",
};
_Static_assert(sizeof(obn_trend_names) / sizeof(obn_trend_names[0]) ==
	       OBN_T_COUNT, "a name per trend quantity");

const char *const obn_stop_names[OBN_STOP_COUNT] = {
	[OBN_STOP_BOUND] = "bound",
	[OBN_STOP_MAX_RUNS] = "max_runs",
	[OBN_STOP_FAILED] = "failed",
	[OBN_STOP_INTERRUPTED] = "interrupted",
	[OBN_STOP_ERROR] = "error",
};
_Static_assert(sizeof(obn_stop_names) / sizeof(obn_stop_names[0]) ==
	       OBN_STOP_COUNT, "a name per stop reason");

double *obn_analyze_values(const struct obn_config *cfg, enum obn_qty q,
			   size_t *n)
{
	double *v = malloc((cfg->nruns ? cfg->nruns : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < cfg->nruns; i++)
		if (cfg->runs[i].ok)
			v[(*n)++] = cfg->runs[i].q[q];
	return v;
}

/* The summaries of cfg and each quantity's scale and relative half-width. */
static int summarize(const struct obn_opts *o, const struct obn_config *cfg,
		     struct obn_result *r)
{
	for (int q = 0; q < OBN_Q_COUNT; q++) {
		size_t n;
		double *v = obn_analyze_values(cfg, q, &n);
		if (!v)
			return -ENOMEM;
		int rc = obn_stats_summarize(v, n, o->level, &r->sum[q]);
		free(v);
		if (rc == -ENOMEM)
			return rc;
		r->nok = n;
	}
	double elapsed = r->sum[OBN_Q_ELAPSED].mean;
	for (int q = 0; q < OBN_Q_COUNT; q++) {
		double own = fabs(r->sum[q].mean);
		r->ref[q] = q == OBN_Q_CPU_PCT ? fmax(own, 100.0) : fmax(own, elapsed);
		r->hw_rel_pct[q] = r->sum[q].hw / r->ref[q] * 100.0;
		if (r->sum[q].hw == 0.0)
			r->hw_rel_pct[q] = 0.0; /* even when ref is 0 */
	}
	return 0;
}

bool obn_analyze_converged(const struct obn_opts *o,
			   const struct obn_config *cfg, double *worst_pct)
{
	struct obn_result r;
	double worst = 0.0;

	memset(&r, 0, sizeof(r));
	if (summarize(o, cfg, &r) < 0 || r.nok < 2)
		worst = INFINITY;
	for (int q = 0; q < OBN_Q_COUNT && isfinite(worst); q++) {
		if (isnan(r.hw_rel_pct[q]))
			worst = INFINITY;
		else
			worst = fmax(worst, r.hw_rel_pct[q]);
	}
	if (worst_pct)
		*worst_pct = worst;
	return r.nok >= o->min_runs && worst <= o->hw_pct;
}

static int find_outliers(const struct obn_opts *o, const struct obn_config *cfg,
			 struct obn_result *r)
{
	for (size_t i = 0; i < cfg->nruns; i++) {
		const struct obn_run *run = &cfg->runs[i];
		for (int q = 0; q < OBN_Q_COUNT && run->ok; q++) {
			const struct obn_summary *s = &r->sum[q];
			double dev = run->q[q] - s->mean;
			if (!(s->sd > 0.0) || fabs(dev / s->sd) <= o->zmax ||
			    fabs(dev) <= o->hw_pct / 100.0 * r->ref[q])
				continue;
			struct obn_outlier *nw = realloc(r->outliers,
				(r->noutliers + 1) * sizeof(*nw));
			if (!nw)
				return -ENOMEM;
			r->outliers = nw;
			nw[r->noutliers++] = (struct obn_outlier){
				.run = i, .q = q, .value = run->q[q], .z = dev / s->sd };
		}
	}
	return 0;
}

/* y of trend quantity t for a run. */
static double trend_value(const struct obn_run *run, enum obn_trend_qty t)
{
	switch (t) {
	case OBN_T_ELAPSED:
		return run->q[OBN_Q_ELAPSED];
	case OBN_T_CPU:
		return run->q[OBN_Q_USER] + run->q[OBN_Q_SYSTEM];
	default:
		return (double)run->mem_after_bytes;
	}
}

/* Whether a significant fit also moved by more than matters. */
static bool material(const struct obn_opts *o, const struct obn_result *r,
		     enum obn_trend_qty t, double change)
{
	double cpu = r->sum[OBN_Q_USER].mean + r->sum[OBN_Q_SYSTEM].mean;

	switch (t) {
	case OBN_T_ELAPSED:
		return fabs(change) > o->hw_pct / 100.0 * r->ref[OBN_Q_ELAPSED];
	case OBN_T_CPU:
		return fabs(change) > o->hw_pct / 100.0 *
		       fmax(cpu, r->sum[OBN_Q_ELAPSED].mean);
	default:
		return change < -MEM_DRIFT_BYTES; /* only a shrinking one leaks */
	}
}

static int fit_trends(const struct obn_opts *o, const struct obn_config *cfg,
		      struct obn_result *r)
{
	size_t n = 0, cap = cfg->nruns ? cfg->nruns : 1;
	double *x = malloc(cap * sizeof(*x)), *y = malloc(cap * sizeof(*y));

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	for (int t = 0; t < OBN_T_COUNT; t++) {
		n = 0;
		for (size_t i = 0; i < cfg->nruns; i++) {
			if (!cfg->runs[i].ok)
				continue;
			x[n] = cfg->runs[i].index;
			y[n++] = trend_value(&cfg->runs[i], t);
		}
		struct obn_trend *tr = &r->trend[t];
		bool memless = t == OBN_T_MEM_FREE && n && y[0] == 0.0;
		if (memless || obn_stats_trend(x, y, n, o->level, tr) < 0)
			continue;
		double change = tr->slope * (x[n - 1] - x[0]);
		r->trend_warn[t] = tr->p < 1.0 - o->level &&
				   material(o, r, t, change);
	}
	free(x);
	free(y);
	return 0;
}

static int compare(const struct obn_opts *o, const struct obn_config *base,
		   const struct obn_result *rb, const struct obn_config *cfg,
		   struct obn_result *r)
{
	for (int q = 0; q < OBN_Q_COUNT; q++) {
		size_t nb, nx;
		double *b = obn_analyze_values(base, q, &nb);
		double *x = obn_analyze_values(cfg, q, &nx);
		int rc = 0;
		if (b && x) {
			obn_stats_welch(b, nb, x, nx, o->level, &r->welch[q]);
			rc = obn_stats_mann_whitney(b, nb, x, nx, &r->mw[q]);
		}
		free(b);
		free(x);
		if (!b || !x || rc == -ENOMEM)
			return -ENOMEM;
		r->overhead_pct[q] = (r->sum[q].mean - rb->sum[q].mean) /
				     fabs(rb->sum[q].mean) * 100.0;
	}
	return 0;
}

static void result_nan(struct obn_result *r)
{
	memset(r, 0, sizeof(*r));
	for (int q = 0; q < OBN_Q_COUNT; q++) {
		r->overhead_pct[q] = NAN;
		r->welch[q] = (struct obn_welch){ NAN, NAN, NAN, NAN, NAN, NAN,
						  NAN, NAN };
		r->mw[q] = (struct obn_mw){ NAN, NAN, NAN, NAN, NAN };
	}
	for (int t = 0; t < OBN_T_COUNT; t++)
		r->trend[t] = (struct obn_trend){ 0, NAN, NAN, NAN, NAN, NAN };
}

int obn_analyze(struct obn_session *s)
{
	const struct obn_opts *o = s->opts;
	int rc = 0;

	s->results = calloc(o->nconfigs, sizeof(*s->results));
	if (!s->results)
		return -ENOMEM;
	for (size_t c = 0; c < o->nconfigs && rc == 0; c++) {
		struct obn_result *r = &s->results[c];
		result_nan(r);
		rc = summarize(o, &o->configs[c], r);
		if (rc == 0)
			rc = find_outliers(o, &o->configs[c], r);
		if (rc == 0)
			rc = fit_trends(o, &o->configs[c], r);
		if (rc == 0 && c > 0)
			rc = compare(o, &o->configs[0], &s->results[0],
				     &o->configs[c], r);
	}
	return rc;
}

void obn_analyze_free(struct obn_session *s)
{
	if (!s->results)
		return;
	for (size_t c = 0; c < s->opts->nconfigs; c++)
		free(s->results[c].outliers);
	free(s->results);
	s->results = NULL;
}
