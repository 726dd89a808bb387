// SPDX-License-Identifier: MIT
/*
 * gnuplot bar charts of an osprof-bench series: per configuration, the mean
 * elapsed, user, system and wait times as clustered bars with the confidence
 * interval as error bars. As the house style asks, the script is
 * self-contained (the data inline, in a datablock) and kept beside the image
 * it draws, so the figure can be restyled and redrawn without the run.
 * Configuration names go into the data through core's gnuplot escaping,
 * like every other string osprof puts in a script.
 */
#include "obn.h"
#include "osprof/escape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

#define PLOT_BASE "osprof-bench"

/* The times drawn, in this order, with their bar colours. */
static const enum obn_qty drawn[] = { OBN_Q_ELAPSED, OBN_Q_USER, OBN_Q_SYSTEM,
				      OBN_Q_WAIT };

static void value(FILE *f, double v)
{
	/* gnuplot skips "NaN" points: a configuration without data is blank. */
	if (isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fputs(" NaN", f);
}

static void write_data(FILE *f, const struct obn_session *s)
{
	fputs("$data << EOD\n# config", f);
	for (size_t k = 0; k < sizeof(drawn) / sizeof(drawn[0]); k++)
		fprintf(f, " %s_mean %s_low %s_high", obn_qty_names[drawn[k]],
			obn_qty_names[drawn[k]], obn_qty_names[drawn[k]]);
	fputc('\n', f);
	for (size_t c = 0; c < s->opts->nconfigs; c++) {
		osp_esc_gp_data(f, s->opts->configs[c].name);
		for (size_t k = 0; k < sizeof(drawn) / sizeof(drawn[0]); k++) {
			const struct obn_summary *x = &s->results[c].sum[drawn[k]];
			/* One run has no interval: draw the bar alone. */
			value(f, x->mean);
			value(f, isnan(x->low) ? x->mean : x->low);
			value(f, isnan(x->high) ? x->mean : x->high);
		}
		fputc('\n', f);
	}
	fputs("EOD\n\n", f);
}

static void write_script(FILE *f, const struct obn_session *s)
{
	fprintf(f, "# %s.gp: written by osprof-bench %s; run `gnuplot %s.gp` in "
		"this directory to redraw %s.png.\n", PLOT_BASE, OSPROF_VERSION,
		PLOT_BASE, PLOT_BASE);
	fprintf(f, "# Bars: mean per run; error bars: the %g%% confidence "
		"interval of the mean.\n", s->opts->level * 100.0);
	fprintf(f, "set terminal pngcairo size 960,600 noenhanced\n");
	fprintf(f, "set output '%s.png'\n", PLOT_BASE);
	fprintf(f, "set title 'osprof-bench: mean time per run, %g%% confidence "
		"intervals (%s caches, %u cop%s)'\n", s->opts->level * 100.0,
		s->opts->cold ? "cold" : "warm", s->opts->threads,
		s->opts->threads == 1 ? "y" : "ies");
	fputs("set ylabel 'seconds'\nset yrange [0:*]\nset grid ytics\n"
	      "set key top left\nset style data histogram\n"
	      "set style histogram errorbars gap 1 lw 1\n"
	      "set style fill solid 0.7 border -1\nset boxwidth 0.9\n\n", f);
	write_data(f, s);
	fputs("plot", f);
	for (size_t k = 0; k < sizeof(drawn) / sizeof(drawn[0]); k++)
		fprintf(f, "%s $data using %zu:%zu:%zu%s title '%s'",
			k ? ", \\\n    " : "", 2 + 3 * k, 3 + 3 * k, 4 + 3 * k,
			k ? "" : ":xtic(1)", obn_qty_names[drawn[k]]);
	fputc('\n', f);
}

/* Run gnuplot on the script inside dir. */
static int run_gnuplot(const char *dir)
{
	char *argv[] = { "gnuplot", PLOT_BASE ".gp", NULL };
	char cwd[4096], how[128];
	int st, rc;

	if (!getcwd(cwd, sizeof(cwd)))
		return -errno;
	if (chdir(dir) < 0)
		return -errno;
	rc = obn_proc_run(argv, &st);
	if (chdir(cwd) < 0 && rc == 0)
		rc = -errno;
	if (rc < 0) {
		fprintf(stderr, "osprof-bench: --plot: cannot run gnuplot: %s "
			"(the script is in %s/%s.gp)\n", strerror(-rc), dir,
			PLOT_BASE);
		return rc;
	}
	if (st != 0) {
		obn_proc_describe(st, how, sizeof(how));
		fprintf(stderr, "osprof-bench: --plot: gnuplot %s\n", how);
		return -EIO;
	}
	return 0;
}

int obn_plot_write(const struct obn_session *s, const char *dir)
{
	char path[4096];

	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		int err = errno;
		fprintf(stderr, "osprof-bench: --plot %s: %s\n", dir, strerror(err));
		return -err;
	}
	snprintf(path, sizeof(path), "%s/%s.gp", dir, PLOT_BASE);
	FILE *f = fopen(path, "we");
	if (!f) {
		int err = errno;
		fprintf(stderr, "osprof-bench: --plot: %s: %s\n", path, strerror(err));
		return -err;
	}
	write_script(f, s);
	int bad = ferror(f);
	if (fclose(f) != 0 || bad) {
		fprintf(stderr, "osprof-bench: --plot: cannot write %s\n", path);
		return -EIO;
	}
	return run_gnuplot(dir);
}
