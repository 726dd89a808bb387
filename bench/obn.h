/* SPDX-License-Identifier: MIT */
/*
 * osprof-bench internals, shared by its source files and its unit tests.
 *
 * osprof-bench runs configurations (commands) in interleaved rounds until the
 * confidence interval of every measured quantity is tight (Auto-pilot, Wright
 * et al., USENIX '05). The pieces: statistics on GSL (obn_stats.c), child
 * processes (obn_proc.c), one run with its copies and
 * barrier (obn_run.c), the machine and its caches (obn_sys.c), FUSE remounts
 * (obn_remount.c), the analysis of a series (obn_analyze.c), and its outputs:
 * the text report (obn_report.c), CSV and JSON (obn_out.c), gnuplot
 * (obn_plot.c). Functions return 0 or -errno unless documented otherwise; none
 * is thread-safe (the program is single-threaded: it forks, it never spawns
 * threads).
 */
#ifndef OBN_H
#define OBN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Numbers from the command line: core's osp_parse_* (osprof/parse.h). */
#include "osprof/parse.h"

/* ---- statistics (obn_stats.c) ---- */

/* One sample's description. Fields that cannot be computed are NAN. */
struct obn_summary {
	size_t count;	/* number of values */
	double mean;
	double median;
	double min;
	double max;
	double sd;	/* sample standard deviation (n - 1); NAN if count < 2 */
	double hw;	/* half-width of the CI of the mean, Student t; NAN if count < 2 */
	double low;	/* mean - hw */
	double high;	/* mean + hw */
};

/*
 * Describe x[0..n) at confidence level (e.g. 0.95). Returns 0, -EINVAL when
 * n is 0 or level is not in (0, 1) (out is then all NAN, count 0), -ENOMEM.
 */
int obn_stats_summarize(const double *x, size_t n, double level,
			struct obn_summary *out);

/* Least-squares line y = intercept + slope * x, with the slope's CI. */
struct obn_trend {
	size_t count;
	double intercept;
	double slope;		/* change of y per unit of x */
	double slope_low;	/* CI of the slope, Student t with n - 2 df */
	double slope_high;
	double p;		/* two-sided p-value of slope != 0 */
};

/*
 * Fit y against x (n points, n >= 3). Returns 0, -EINVAL (n < 3, level out of
 * range or all x equal; out is then NAN).
 */
int obn_stats_trend(const double *x, const double *y, size_t n, double level,
		    struct obn_trend *out);

/* Welch's two-sample t-test of x against a baseline b. */
struct obn_welch {
	double diff;		/* mean(x) - mean(b) */
	double diff_low;	/* CI of the difference of means */
	double diff_high;
	double t;		/* diff / standard error */
	double df;		/* Welch-Satterthwaite degrees of freedom */
	double p_less;		/* H1: x's mean is less than b's */
	double p_greater;	/* H1: x's mean is greater than b's */
	double p_different;	/* two-sided */
};

/*
 * Compare x[0..nx) with b[0..nb) (each at least 2 values). Returns 0,
 * -EINVAL (too few values, bad level), -EDOM when both samples have no
 * variance (diff is set, the rest NAN).
 */
int obn_stats_welch(const double *b, size_t nb, const double *x, size_t nx,
		    double level, struct obn_welch *out);

/* Mann-Whitney U test of x against a baseline b (normal approximation). */
struct obn_mw {
	double u;		/* U of x: pairs with x > b, ties counting one half */
	double z;		/* (u - mean of U) / sd of U, tie-corrected, no continuity */
	double p_less;		/* H1: x tends to be less than b (continuity-corrected) */
	double p_greater;
	double p_different;
};

/*
 * Compare x[0..nx) with b[0..nb) (each at least 1 value). Returns 0,
 * -EINVAL, -ENOMEM, -EDOM when every value is tied (u is set, the rest NAN).
 */
int obn_stats_mann_whitney(const double *b, size_t nb, const double *x,
			   size_t nx, struct obn_mw *out);

/* ---- child processes (obn_proc.c) ---- */

/*
 * Run argv (PATH searched) or, for obn_proc_shell, "/bin/sh -c cmd", wait for
 * it and store its wait status in *wstatus. Standard streams are inherited.
 * Returns 0 (whatever the status), -errno when it could not be started
 * (-ENOENT: no such program), the child's exec errno being reported.
 */
int obn_proc_run(char *const argv[], int *wstatus);
int obn_proc_shell(const char *cmd, int *wstatus);

/*
 * Start argv detached (its own session, stdin and stdout on /dev/null, not
 * our child) and return without waiting for it: 0, or -errno when it could
 * not be started or exec'd.
 */
int obn_proc_detach(char *const argv[]);

/* "exited with status 1", "killed by signal 9 (Killed)" into buf. */
void obn_proc_describe(int wstatus, char *buf, size_t len);

/* ---- the machine (obn_sys.c) ---- */

/* A mount from /proc/self/mountinfo. */
struct obn_mount {
	char point[4096];
	char fstype[64];
	char source[4096];
};

struct obn_machine {
	char host[256];
	char kernel[512];	/* sysname release version machine */
	char cpu_model[256];	/* "unknown" when /proc/cpuinfo does not say */
	long cpus_online;
	uint64_t mem_total_bytes;
	char cwd[4096];		/* the working directory of the runs */
	struct obn_mount cwd_mnt;	/* the mount holding it */
};

/* Fill *m; fields that cannot be read hold "unknown" or 0. Never fails. */
void obn_sys_machine(struct obn_machine *m);

/* MemAvailable from /proc/meminfo in bytes. Returns 0, -errno, -EPROTO. */
int obn_sys_mem_available(uint64_t *bytes);

/* Whether we may drop caches; returns 0 or -errno with a message printed. */
int obn_sys_check_drop_caches(void);

/* sync(), then write 3 to /proc/sys/vm/drop_caches. Returns 0 or -errno. */
int obn_sys_drop_caches(void);

/*
 * Find the mount that holds path (the longest mount point containing it on
 * the same device). Returns 0, -errno (stat failed), -ENOENT (not found).
 */
int obn_sys_mount_of(const char *path, struct obn_mount *m);

/* ---- FUSE remount between runs (obn_remount.c) ---- */

struct obn_remount;

/*
 * Prepare remounts of the FUSE mount at mnt. With cmd (a shell command that
 * mounts it again) that command is used; without, the command line of the
 * daemon serving the mount (found through /proc) is re-executed. Returns NULL
 * with a message printed when mnt is not a FUSE mount or its daemon cannot be
 * identified. Free with obn_remount_free (NULL accepted).
 */
struct obn_remount *obn_remount_prepare(const char *mnt, const char *cmd);

/* Unmount with fusermount3 -u, wait for the daemon to exit, mount again and
 * wait for the mount to appear. Returns 0 or -errno with a message printed. */
int obn_remount_cycle(struct obn_remount *r);

/* The command used to mount again, for the report ("a b c" or the shell cmd). */
const char *obn_remount_describe(const struct obn_remount *r);

void obn_remount_free(struct obn_remount *r);

/* ---- one run (obn_run.c) ---- */

/* Quantities measured per run; the table prints them in this order. */
enum obn_qty {
	OBN_Q_ELAPSED,	/* seconds: the longest copy's wall-clock time */
	OBN_Q_USER,	/* seconds: user CPU time, summed over copies */
	OBN_Q_SYSTEM,	/* seconds: system CPU time, summed over copies */
	OBN_Q_WAIT,	/* seconds: elapsed - user - system */
	OBN_Q_CPU_PCT,	/* percent: (user + system) / elapsed * 100 */
	OBN_Q_COUNT
};
extern const char *const obn_qty_names[OBN_Q_COUNT];
extern const char *const obn_qty_units[OBN_Q_COUNT];

/* One concurrent copy of the command within a run. */
struct obn_copy {
	int64_t start_ns;	/* monotonic clock when it left the barrier */
	int64_t end_ns;		/* when the runner reaped it */
	double user_s;		/* from wait4's rusage */
	double system_s;
	int wstatus;		/* wait status */
	int exec_errno;		/* why exec failed, or 0 */
};

struct obn_run {
	unsigned index;		/* 1-based measured run of its configuration */
	bool ok;		/* setup, every copy and cleanup succeeded */
	int exec_errno;		/* the command could not be executed: its errno */
	char failure[256];	/* why it failed, when !ok */
	double q[OBN_Q_COUNT];	/* the quantities (meaningful when ok) */
	int64_t start_spread_ns;	/* latest minus earliest copy start */
	uint64_t mem_before_bytes;	/* MemAvailable before and after */
	uint64_t mem_after_bytes;
	unsigned ncopies;
	struct obn_copy *copies;	/* ncopies entries, owned */
};

struct obn_config {
	char *name;		/* unique, [A-Za-z0-9._-]+ */
	char *shell_cmd;	/* run as /bin/sh -c shell_cmd, or NULL */
	char **argv;		/* exec'd (PATH searched) when shell_cmd is NULL */
	struct obn_run *runs;	/* measured runs, in order */
	size_t nruns;
	size_t cap;
};

struct obn_opts {
	struct obn_config *configs;	/* the first is the baseline */
	size_t nconfigs;
	const char *setup;		/* shell commands around every run, or NULL */
	const char *cleanup;
	unsigned warmup;		/* unrecorded runs per configuration first */
	unsigned min_runs;
	unsigned max_runs;
	unsigned threads;		/* concurrent copies per run */
	double hw_pct;			/* stopping bound on the half-width, % */
	double level;			/* confidence level, e.g. 0.95 */
	double zmax;			/* |z| above which a run is an outlier */
	bool cold;			/* drop caches before every run */
	bool keep_going;		/* go on after a failed run */
	bool quiet;			/* no progress line */
	const char *remount_mnt;	/* --remount, or NULL */
	const char *remount_cmd;	/* --remount-cmd, or NULL */
	const char *csv_path;
	const char *json_path;
	const char *plot_dir;
};

/* Set by SIGINT/SIGTERM: finish the current run, then stop. */
extern volatile sig_atomic_t obn_interrupted;

/*
 * Perform one run of cfg: remount (rm may be NULL), setup, drop caches if
 * cold, the copies held at a barrier and released together, cleanup. The run
 * number is exported as OSPROF_RUN (0 for warm-ups), the configuration's name
 * as OSPROF_CONFIG, each copy's index as OSPROF_THREAD. A failure of the
 * user's commands returns 0 with out->ok false and out->failure set; -errno
 * when the runner itself failed (message printed). out->copies is allocated
 * here and owned by the caller (obn_run_free).
 */
int obn_run_one(const struct obn_opts *o, struct obn_remount *rm,
		const struct obn_config *cfg, unsigned run_no,
		struct obn_run *out);
void obn_run_free(struct obn_run *r);

/* ---- analysis of a series (obn_analyze.c) ---- */

/* Quantities checked for drift across runs. */
enum obn_trend_qty {
	OBN_T_ELAPSED,	/* seconds */
	OBN_T_CPU,	/* seconds: user + system */
	OBN_T_MEM_FREE,	/* bytes: MemAvailable after each run */
	OBN_T_COUNT
};
extern const char *const obn_trend_names[OBN_T_COUNT];

/* A run whose value lies more than zmax standard deviations from the mean. */
struct obn_outlier {
	size_t run;		/* index into the configuration's runs */
	enum obn_qty q;
	double value;
	double z;
};

struct obn_result {
	size_t nok;				/* successful runs */
	struct obn_summary sum[OBN_Q_COUNT];	/* over successful runs */
	double ref[OBN_Q_COUNT];		/* scale the bound applies to */
	double hw_rel_pct[OBN_Q_COUNT];		/* hw / ref * 100 */
	struct obn_trend trend[OBN_T_COUNT];
	bool trend_warn[OBN_T_COUNT];
	struct obn_outlier *outliers;		/* owned */
	size_t noutliers;
	/* Against the baseline (configuration 0); NAN for the baseline. */
	double overhead_pct[OBN_Q_COUNT];
	struct obn_welch welch[OBN_Q_COUNT];
	struct obn_mw mw[OBN_Q_COUNT];
};

/* Why the series stopped. */
enum obn_stop {
	OBN_STOP_BOUND,		/* every half-width within the bound */
	OBN_STOP_MAX_RUNS,	/* run limit reached first */
	OBN_STOP_FAILED,	/* a run failed */
	OBN_STOP_INTERRUPTED,	/* SIGINT or SIGTERM */
	OBN_STOP_ERROR,		/* the runner itself failed */
	OBN_STOP_COUNT
};
extern const char *const obn_stop_names[OBN_STOP_COUNT];

struct obn_session {
	const struct obn_opts *opts;
	struct obn_machine machine;
	const char *remount_desc;	/* command that remounts, or NULL */
	enum obn_stop stop;
	int exec_errno;			/* why the command could not be executed */
	unsigned rounds;		/* measured rounds started */
	char stop_msg[512];		/* one line saying why it stopped */
	struct obn_result *results;	/* one per configuration, owned */
};

/*
 * Analyze every configuration's runs into s->results (allocated here).
 * Returns 0 or -ENOMEM. obn_analyze_free releases the results.
 */
int obn_analyze(struct obn_session *s);
void obn_analyze_free(struct obn_session *s);

/*
 * Whether cfg's successful runs (at least min_runs) have every quantity's
 * half-width within the bound. *worst_pct (may be NULL) gets the largest
 * half-width relative to its scale, in percent (INFINITY when unknown).
 */
bool obn_analyze_converged(const struct obn_opts *o,
			   const struct obn_config *cfg, double *worst_pct);

/* Values of quantity q over cfg's successful runs into a new array. */
double *obn_analyze_values(const struct obn_config *cfg, enum obn_qty q,
			   size_t *n);

/* ---- outputs ---- */

/* The text report on stdout: table, warnings, comparisons. Returns 0 or -EIO. */
int obn_report_print(const struct obn_session *s);

/* Every run and the summary as CSV / JSON at path. Returns 0 or -errno. */
int obn_out_csv(const struct obn_session *s, const char *path);
int obn_out_json(const struct obn_session *s, const char *path);

/* dir/osprof-bench.gp (inline data) and, through gnuplot, dir/osprof-bench.png. */
int obn_plot_write(const struct obn_session *s, const char *dir);

#endif /* OBN_H */
