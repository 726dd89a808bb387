// SPDX-License-Identifier: MIT
/*
 * osprof-bench: run commands until their figures are trustworthy. This file
 * holds the command line (every option validated, with a message naming it)
 * and the flow: warm-up runs, then rounds that run every configuration once
 * (interleaved, so a drift of the machine hits all alike) until each
 * quantity's confidence interval is within the bound or the run limit is
 * reached, then the analysis and the outputs.
 */
#include "obn.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "config.h"
#include "osp_opt.h"

enum {
	EXIT_USAGE = 2,
	EXIT_CANNOT_EXEC = 126,
	EXIT_NOT_FOUND = 127,
	EXIT_INTERRUPTED = 130,
};

static const char usage_text[] =
"Usage: osprof-bench [OPTION...] -- COMMAND [ARG...]\n"
"       osprof-bench [OPTION...] --config NAME=COMMAND [--config NAME=COMMAND...]\n"
"\n"
"Run COMMAND (executed directly, PATH searched) or each configuration's\n"
"COMMAND (a /bin/sh -c string) repeatedly, interleaved A B A B ..., until the\n"
"95% confidence interval of every measured quantity is within the bound, and\n"
"report Auto-pilot's table, outliers, drifts and comparisons with the first\n"
"configuration (the baseline). Measured per run, from wait4's rusage and the\n"
"monotonic clock: elapsed (the longest copy), user and system CPU (summed\n"
"over copies), wait (elapsed - user - system), CPU% and MemAvailable before\n"
"and after.\n"
"\n"
"Commands:\n"
"  -c, --config NAME=COMMAND  a configuration; repeat for several (NAME:\n"
"                             letters, digits, '.', '_', '-'; unique)\n"
"  -n, --name NAME            name of the -- COMMAND configuration\n"
"                             (default: the command's base name)\n"
"  -s, --setup CMD            shell command run before every run (not timed)\n"
"  -C, --cleanup CMD          shell command run after every run (not timed)\n"
"      Every command sees OSPROF_CONFIG (the configuration's name) and\n"
"      OSPROF_RUN (the run number, 1..; 0 for warm-ups); each copy of the\n"
"      measured command also OSPROF_THREAD (0..N-1).\n"
"\n"
"Stopping:\n"
"  -m, --min-runs N           at least N runs per configuration (default 5,\n"
"                             or --max-runs if fewer; at least 2)\n"
"  -M, --max-runs N           at most N runs per configuration (default 30)\n"
"  -H, --hw PCT               stop once every half-width is within PCT % of\n"
"                             the mean (default 5); the mean is the quantity's\n"
"                             own, or the elapsed mean when larger, so a CPU\n"
"                             time that is a sliver of the run need not be\n"
"                             known to 5 % of itself; CPU% is held to 100 %\n"
"      --confidence PCT       confidence level of every interval and test\n"
"                             (default 95; from 50 to 99.9)\n"
"  -w, --warmup N             N unrecorded runs per configuration first (default 0)\n"
"  -k, --keep-going           record a failed run and go on (default: stop)\n"
"\n"
"Runs:\n"
"  -t, --threads N            N copies per run, held at a barrier and released\n"
"                             together (default 1)\n"
"      --cold                 before every run (after setup): sync and drop the\n"
"                             page, dentry and inode caches (needs root)\n"
"      --warm                 leave the caches alone (default)\n"
"      --remount MOUNTPOINT   before every run (before setup): unmount the FUSE\n"
"                             mount (fusermount3 -u) and mount it again with the\n"
"                             command line of the daemon serving it, read from\n"
"                             /proc (it is run from this directory: start the\n"
"                             daemon with absolute paths)\n"
"      --remount-cmd CMD      with --remount: mount again with this shell\n"
"                             command instead\n"
"\n"
"Output (the report goes to stdout; a progress line to stderr on a terminal):\n"
"  -z, --zmax Z               warn about runs with |z| > Z (default 2) that are\n"
"                             off the mean by more than the bound\n"
"      --csv FILE             every run, then per configuration the rows mean,\n"
"                             median, low, high, min, max, sd, hw\n"
"      --json FILE            runs, copies, summaries, outliers, trends,\n"
"                             comparisons, the machine and the settings\n"
"      --plot DIR             DIR/osprof-bench.gp (data inline) and, through\n"
"                             gnuplot, DIR/osprof-bench.png: bars with CIs\n"
"  -q, --quiet                no progress line\n"
"  -h, --help                 this help\n"
"  -V, --version              the version\n"
"\n"
"Warnings: a failed run (with --keep-going); an outlier run; a significant\n"
"linear trend (slope's CI excludes 0) of elapsed or CPU time moving the mean\n"
"by more than the bound across the series, or of free memory shrinking by\n"
"more than 8 MiB (a leak). Comparisons: the CI of the difference of means,\n"
"Welch's t-test and Mann-Whitney U with p-values for less, greater and\n"
"different.\n"
"\n"
"Exit status: 0 when every run succeeded (bound met or run limit reached),\n"
"1 when a run (even with --keep-going) or an output failed, 2 for a usage\n"
"error, 126/127 when the command cannot be executed / is not found, 130 when\n"
"interrupted.\n"
"\n"
"Examples:\n"
"  osprof-bench -- sleep 0.05\n"
"  osprof-bench --min-runs 10 --json out.json -- grep -r zzzz /usr/include\n"
"  osprof-bench -c native='grep -r zzzz /data' -c fuse='grep -r zzzz /mnt/p' \\\n"
"      --cold --csv grep.csv --plot plots\n"
"  osprof-bench --cold --remount /mnt/p \\\n"
"      --setup 'echo $OSPROF_CONFIG > /mnt/p/.osprof/ctl' \\\n"
"      -c disable='grep -r zzzz /mnt/p' -c enable='grep -r zzzz /mnt/p'\n"
"  osprof-bench --threads 4 -- osprof-randread /data/big --ops 10000\n";

__attribute__((noreturn))
static void usage_hint(void)
{
	fprintf(stderr, "Try 'osprof-bench --help' for more information.\n");
	exit(EXIT_USAGE);
}

__attribute__((format(printf, 1, 2), noreturn))
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "osprof-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_hint();
}

static bool name_ok(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-") == strlen(name);
}

static void add_config(struct obn_opts *o, char *name, char *shell_cmd,
		       char **argv)
{
	if (!name_ok(name))
		die_usage("configuration name '%s' must be 1-64 letters, digits, "
			  "'.', '_' or '-'", name);
	for (size_t i = 0; i < o->nconfigs; i++)
		if (strcmp(o->configs[i].name, name) == 0)
			die_usage("configuration name '%s' given twice", name);
	struct obn_config *n = realloc(o->configs, (o->nconfigs + 1) * sizeof(*n));
	if (!n) {
		perror("osprof-bench");
		exit(1);
	}
	o->configs = n;
	n[o->nconfigs++] = (struct obn_config){ .name = name,
		.shell_cmd = shell_cmd, .argv = argv };
}

/* --config NAME=COMMAND; arg stays owned by argv, we split a copy. */
static int opt_config(const struct osp_opt *opt, const char *arg)
{
	char *copy = strdup(arg), *eq = copy ? strchr(copy, '=') : NULL;

	if (!copy) {
		perror("osprof-bench");
		exit(1);
	}
	if (!eq || eq == copy || eq[1] == '\0')
		die_usage("--config: '%s' is not NAME=COMMAND", arg);
	*eq = '\0';
	add_config(opt->dst, copy, eq + 1, NULL);
	return 0;
}

enum {
	OPT_CONFIDENCE = 256, OPT_COLD, OPT_WARM, OPT_REMOUNT, OPT_REMOUNT_CMD,
	OPT_CSV, OPT_JSON, OPT_PLOT,
};

static void parse_args(int argc, char **argv, struct obn_opts *o)
{
	const char *name = NULL;
	double confidence_pct = 0;
	const struct osp_opt opts[] = {
		{ 'c', "config", OSP_OPT_CALL, o, .call = opt_config },
		{ 'n', "name", OSP_OPT_STR, &name },
		{ 's', "setup", OSP_OPT_STR, &o->setup },
		{ 'C', "cleanup", OSP_OPT_STR, &o->cleanup },
		{ 'm', "min-runs", OSP_OPT_UINT, &o->min_runs, .umin = 2, .umax = 100000 },
		{ 'M', "max-runs", OSP_OPT_UINT, &o->max_runs, .umin = 2, .umax = 100000 },
		{ 'H', "hw", OSP_OPT_DOUBLE, &o->hw_pct, .dmin = 0.001, .dmax = 1000 },
		{ OPT_CONFIDENCE, "confidence", OSP_OPT_DOUBLE, &confidence_pct,
		  .dmin = 50, .dmax = 99.9 },
		{ 'w', "warmup", OSP_OPT_UINT, &o->warmup, .umin = 0, .umax = 100000 },
		{ 'k', "keep-going", OSP_OPT_TRUE, &o->keep_going },
		{ 't', "threads", OSP_OPT_UINT, &o->threads, .umin = 1, .umax = 1024 },
		{ OPT_COLD, "cold", OSP_OPT_TRUE, &o->cold },
		{ OPT_WARM, "warm", OSP_OPT_FALSE, &o->cold },
		{ OPT_REMOUNT, "remount", OSP_OPT_STR, &o->remount_mnt },
		{ OPT_REMOUNT_CMD, "remount-cmd", OSP_OPT_STR, &o->remount_cmd },
		{ 'z', "zmax", OSP_OPT_DOUBLE, &o->zmax, .dmin = 0.1, .dmax = 100 },
		{ OPT_CSV, "csv", OSP_OPT_STR, &o->csv_path },
		{ OPT_JSON, "json", OSP_OPT_STR, &o->json_path },
		{ OPT_PLOT, "plot", OSP_OPT_STR, &o->plot_dir },
		{ 'q', "quiet", OSP_OPT_TRUE, &o->quiet },
		{ 'h', "help", OSP_OPT_PRINT, .text = usage_text },
		{ 'V', "version", OSP_OPT_PRINT, .text = "osprof-bench " OSPROF_VERSION "\n" },
		{ 0 },
	};
	struct osp_opt_fail f;
	char why[256];
	int rc;

	/* min_runs 0: not given, 5 or --max-runs if that is fewer. */
	*o = (struct obn_opts){ .min_runs = 0, .max_runs = 30, .threads = 1,
		.hw_pct = 5.0, .level = 0.95, .zmax = 2.0 };
	/* '+': the command's own options are not ours. */
	rc = osp_opt_parse(opts, "+", argc, argv, &f);
	if (rc > 0) /* --help or --version, printed */
		exit(0);
	if (rc && !f.opt) /* getopt has said why */
		usage_hint();
	if (rc) {
		osp_opt_why(&f, why, sizeof(why));
		die_usage("%s", why);
	}
	if (confidence_pct)
		o->level = confidence_pct / 100.0;
	if (optind < argc && o->nconfigs)
		die_usage("give either -- COMMAND or --config, not both");
	if (optind < argc) {
		const char *base = strrchr(argv[optind], '/');
		char *n = strdup(name ? name : base ? base + 1 : argv[optind]);
		if (!n) {
			perror("osprof-bench");
			exit(1);
		}
		add_config(o, n, NULL, argv + optind);
	} else if (name) {
		die_usage("--name applies to -- COMMAND, and none was given");
	}
	if (!o->nconfigs)
		die_usage("no command to run: give -- COMMAND or --config "
			  "NAME=COMMAND");
	if (!o->min_runs)
		o->min_runs = o->max_runs < 5 ? o->max_runs : 5;
	if (o->min_runs > o->max_runs)
		die_usage("--min-runs %u is above --max-runs %u", o->min_runs,
			  o->max_runs);
	if (o->remount_cmd && !o->remount_mnt)
		die_usage("--remount-cmd needs --remount MOUNTPOINT");
}

static void on_signal(int sig)
{
	(void)sig;
	obn_interrupted = 1;
}

/* SIGINT/SIGTERM end the series after the current run, unless ignored. */
static void catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM };
	struct sigaction sa = { .sa_handler = on_signal }, old;

	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking wait returns EINTR and is retried. */
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

static void progress(const struct obn_session *s, const struct obn_config *cfg,
		     const struct obn_run *r)
{
	double worst;

	if (s->opts->quiet || !isatty(STDERR_FILENO))
		return;
	obn_analyze_converged(s->opts, cfg, &worst);
	fprintf(stderr, "\rround %u/%u: %s run %u %.6f s, worst half-width ",
		s->rounds, s->opts->max_runs, cfg->name, r->index,
		r->q[OBN_Q_ELAPSED]);
	if (isfinite(worst))
		fprintf(stderr, "%.2f%%", worst);
	else
		fputs("-", stderr);
	fprintf(stderr, " (bound %g%%)\033[K", s->opts->hw_pct);
}

static void progress_done(const struct obn_session *s)
{
	if (!s->opts->quiet && isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

static int append_run(struct obn_config *cfg, const struct obn_run *r)
{
	if (cfg->nruns == cfg->cap) {
		size_t cap = cfg->cap ? 2 * cfg->cap : 16;
		struct obn_run *n = realloc(cfg->runs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		cfg->runs = n;
		cfg->cap = cap;
	}
	cfg->runs[cfg->nruns++] = *r;
	return 0;
}

/* After a run: false, with the reason recorded, when the series must stop. */
static bool go_on(struct obn_session *s, const struct obn_config *cfg,
		  const struct obn_run *r, int rc, bool warmup)
{
	if (obn_interrupted) {
		s->stop = OBN_STOP_INTERRUPTED;
		snprintf(s->stop_msg, sizeof(s->stop_msg), "stopped: interrupted "
			 "in round %u", s->rounds);
		return false;
	}
	if (rc < 0) {
		s->stop = OBN_STOP_ERROR;
		snprintf(s->stop_msg, sizeof(s->stop_msg), "stopped: the runner "
			 "failed during %s of '%s': %s", warmup ? "a warm-up" :
			 "a run", cfg->name, strerror(-rc));
		return false;
	}
	if (!r->ok && (warmup || r->exec_errno || !s->opts->keep_going)) {
		char what[32] = "a warm-up run";
		if (!warmup)
			snprintf(what, sizeof(what), "run %u", r->index);
		s->stop = OBN_STOP_FAILED;
		snprintf(s->stop_msg, sizeof(s->stop_msg), "stopped: %s of '%s' "
			 "failed: %s%s", what, cfg->name, r->failure,
			 warmup || r->exec_errno ? "" :
			 " (--keep-going goes on after failures)");
		return false;
	}
	return true;
}

static bool warmups(struct obn_session *s, struct obn_remount *rm)
{
	const struct obn_opts *o = s->opts;

	for (unsigned w = 0; w < o->warmup; w++)
		for (size_t c = 0; c < o->nconfigs; c++) {
			struct obn_run r;
			int rc = obn_run_one(o, rm, &o->configs[c], 0, &r);
			bool ok = go_on(s, &o->configs[c], &r, rc, true);
			s->exec_errno = r.exec_errno;
			obn_run_free(&r);
			if (!ok)
				return false;
		}
	return true;
}

/* Whether every configuration meets the bound; *worst_cfg the farthest. */
static bool all_converged(const struct obn_session *s, double *worst,
			  const char **worst_cfg)
{
	bool all = true;

	*worst = 0.0;
	*worst_cfg = s->opts->configs[0].name;
	for (size_t c = 0; c < s->opts->nconfigs; c++) {
		double w;
		all &= obn_analyze_converged(s->opts, &s->opts->configs[c], &w);
		if (!(w <= *worst)) {
			*worst = w;
			*worst_cfg = s->opts->configs[c].name;
		}
	}
	return all;
}

/* Keep a finished run; one cut short by Ctrl-C (its copies got the signal
 * too) is not a measurement. */
static int keep_run(struct obn_config *cfg, struct obn_run *r, int rc)
{
	if (rc < 0 || (obn_interrupted && !r->ok)) {
		obn_run_free(r);
		return rc;
	}
	rc = append_run(cfg, r);
	if (rc < 0)
		obn_run_free(r);
	return rc;
}

/* One round: every configuration once. False when the series must stop. */
static bool round_once(struct obn_session *s, struct obn_remount *rm)
{
	const struct obn_opts *o = s->opts;

	for (size_t c = 0; c < o->nconfigs; c++) {
		struct obn_config *cfg = &o->configs[c];
		struct obn_run r;
		int rc = obn_run_one(o, rm, cfg, s->rounds, &r);
		if (r.exec_errno)
			s->exec_errno = r.exec_errno;
		rc = keep_run(cfg, &r, rc);
		if (rc == 0 && !obn_interrupted)
			progress(s, cfg, &r);
		if (!go_on(s, cfg, &r, rc, false))
			return false;
	}
	return true;
}

static void series(struct obn_session *s, struct obn_remount *rm)
{
	const struct obn_opts *o = s->opts;
	const char *worst_cfg = o->configs[0].name;
	double worst = INFINITY;

	if (!warmups(s, rm))
		return;
	for (s->rounds = 1; s->rounds <= o->max_runs; s->rounds++) {
		if (!round_once(s, rm))
			return;
		if (all_converged(s, &worst, &worst_cfg)) {
			s->stop = OBN_STOP_BOUND;
			snprintf(s->stop_msg, sizeof(s->stop_msg), "stopped after "
				 "%u runs: every half-width is within %g%% (worst "
				 "%.2f%%)", s->rounds, o->hw_pct, worst);
			return;
		}
	}
	s->rounds = o->max_runs;
	s->stop = OBN_STOP_MAX_RUNS;
	if (isfinite(worst))
		snprintf(s->stop_msg, sizeof(s->stop_msg), "stopped at --max-runs "
			 "%u: the bound %g%% was not reached (worst half-width "
			 "%.2f%%, '%s')", o->max_runs, o->hw_pct, worst, worst_cfg);
	else
		snprintf(s->stop_msg, sizeof(s->stop_msg), "stopped at --max-runs "
			 "%u: too few successful runs of '%s' for an interval",
			 o->max_runs, worst_cfg);
}

/* CSV, JSON, plot; false if any failed (each says why). */
static bool write_outputs(const struct obn_session *s)
{
	const struct obn_opts *o = s->opts;
	bool ok = true;
	int rc;

	if (o->csv_path && (rc = obn_out_csv(s, o->csv_path)) < 0) {
		fprintf(stderr, "osprof-bench: --csv %s: %s\n", o->csv_path,
			strerror(-rc));
		ok = false;
	}
	if (o->json_path && (rc = obn_out_json(s, o->json_path)) < 0) {
		fprintf(stderr, "osprof-bench: --json %s: %s\n", o->json_path,
			strerror(-rc));
		ok = false;
	}
	if (o->plot_dir && obn_plot_write(s, o->plot_dir) < 0)
		ok = false;
	return ok;
}

static bool any_failed(const struct obn_session *s)
{
	for (size_t c = 0; c < s->opts->nconfigs; c++)
		for (size_t i = 0; i < s->opts->configs[c].nruns; i++)
			if (!s->opts->configs[c].runs[i].ok)
				return true;
	return false;
}

static int exit_status(const struct obn_session *s, bool outputs_ok)
{
	switch (s->stop) {
	case OBN_STOP_INTERRUPTED:
		return EXIT_INTERRUPTED;
	case OBN_STOP_FAILED:
		if (s->exec_errno)
			return s->exec_errno == ENOENT ? EXIT_NOT_FOUND :
							 EXIT_CANNOT_EXEC;
		return 1;
	case OBN_STOP_ERROR:
		return 1;
	default:
		/* With --keep-going, failed runs are left out of the figures:
		 * a script must still learn that some failed. */
		return outputs_ok && !any_failed(s) ? 0 : 1;
	}
}

static void configs_free(struct obn_opts *o)
{
	for (size_t c = 0; c < o->nconfigs; c++) {
		for (size_t i = 0; i < o->configs[c].nruns; i++)
			obn_run_free(&o->configs[c].runs[i]);
		free(o->configs[c].runs);
		free(o->configs[c].name);
	}
	free(o->configs);
}

int main(int argc, char **argv)
{
	struct obn_opts o;
	struct obn_session s = { .opts = &o };
	struct obn_remount *rm = NULL;

	gsl_set_error_handler_off(); /* report, never abort, on a GSL error */
	parse_args(argc, argv, &o);
	if (o.cold && obn_sys_check_drop_caches() < 0) {
		configs_free(&o);
		return 1;
	}
	if (o.remount_mnt) {
		rm = obn_remount_prepare(o.remount_mnt, o.remount_cmd);
		if (!rm) {
			configs_free(&o);
			return 1;
		}
		s.remount_desc = obn_remount_describe(rm);
	}
	obn_sys_machine(&s.machine);
	catch_signals();
	series(&s, rm);
	progress_done(&s);
	if (s.stop >= OBN_STOP_FAILED)
		fprintf(stderr, "osprof-bench: %s\n", s.stop_msg);
	if (obn_analyze(&s) < 0) {
		fprintf(stderr, "osprof-bench: out of memory analyzing the runs\n");
		configs_free(&o);
		obn_remount_free(rm);
		return 1;
	}
	bool ok = obn_report_print(&s) == 0;
	if (!ok)
		fprintf(stderr, "osprof-bench: cannot write the report to stdout\n");
	ok &= write_outputs(&s);
	int status = exit_status(&s, ok);
	obn_analyze_free(&s);
	configs_free(&o);
	obn_remount_free(rm);
	return status;
}
