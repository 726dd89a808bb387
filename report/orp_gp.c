// SPDX-License-Identifier: MIT
/*
 * gnuplot scripts and their rendering. Every chart is one self-contained
 * script with its data inline, written beside the image it draws, so it
 * can be re-rendered or edited by hand (cd DIR; gnuplot NAME.gp); the
 * same data is also written to NAME.dat beside it, for other tools. Text
 * from a profile or the command line enters a script only as a string
 * escaped by core's osp_esc_gp (or osp_esc_gp_data in data). All the
 * scripts of a render set run in a few gnuplot processes (one process per
 * CPU, up to four, each given a share of the scripts as arguments), which
 * is what keeps rendering forty charts within a couple of seconds: start-up
 * costs more than drawing.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "orp_gp.h"
#include "osprof/escape.h"
#include "osprof/format.h"
#include "osprof/parse.h"

#define MAX_WORKERS 4

const char *const orp_gp_colours[] = { "#2f6db5", "#d0453a", "#3a9a4f",
				       "#8e5bb5", "#d08a1e", "#3aa3a8" };
const size_t orp_gp_ncolours = sizeof(orp_gp_colours) / sizeof(orp_gp_colours[0]);

static const char *const fmt_names[] = {
	[ORP_FMT_PNG] = "png",
	[ORP_FMT_SVG] = "svg",
	[ORP_FMT_PDF] = "pdf",
};
_Static_assert(sizeof(fmt_names) / sizeof(fmt_names[0]) == ORP_FMT__COUNT,
	       "a name for every format");

const char *orp_fmt_name(enum orp_fmt f)
{
	return (unsigned)f < ORP_FMT__COUNT ? fmt_names[f] : "?";
}

int orp_fmt_parse(const char *s, enum orp_fmt *out)
{
	unsigned i;
	int rc = osp_parse_name(s, fmt_names, ORP_FMT__COUNT, &i);

	if (!rc)
		*out = (enum orp_fmt)i;
	return rc;
}

void orp_render_init(struct orp_render *r, const char *dir, enum orp_fmt fmt)
{
	memset(r, 0, sizeof(*r));
	r->dir = dir;
	r->fmt = fmt;
}

void orp_render_fini(struct orp_render *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->charts[i].base);
		free(r->charts[i].title);
	}
	free(r->charts);
	memset(r, 0, sizeof(*r));
}

char *orp_chart_path(const struct orp_render *r, size_t i, const char *ext)
{
	char *s;

	if (asprintf(&s, "%s/%s.%s", r->dir, r->charts[i].base, ext) < 0)
		return NULL;
	return s;
}

/*
 * File-name-safe form of @hint: [A-Za-z0-9._-], others as '_'; it goes
 * into scripts unquoted and onto gnuplot's command line, so it never
 * starts with '-' (an option) or '.' (a hidden file).
 */
static void sanitise(char *dst, size_t len, const char *hint)
{
	size_t o = 0;

	for (const char *s = hint; *s && o + 1 < len; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';

		if (o == 0 && (c == '.' || c == '-'))
			ok = false;
		dst[o++] = ok ? c : '_';
	}
	dst[o] = '\0';
}

static bool base_taken(const struct orp_render *r, const char *base)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->charts[i].base, base) == 0)
			return true;
	return false;
}

/* Register a chart with a unique base name; 0 or -ENOMEM. */
static int add_chart(struct orp_render *r, const char *hint, const char *title)
{
	char base[96], cand[112];
	struct orp_chart *c;

	sanitise(base, sizeof(base), hint);
	snprintf(cand, sizeof(cand), "%s", base);
	/* Two names can sanitise alike ("a/b", "a_b"): number the later. */
	for (unsigned k = 2; base_taken(r, cand); k++)
		snprintf(cand, sizeof(cand), "%s-%u", base, k);
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;

		c = realloc(r->charts, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		r->charts = c;
		r->cap = cap;
	}
	c = &r->charts[r->n];
	c->base = strdup(cand);
	c->title = strdup(title);
	if (!c->base || !c->title) {
		free(c->base);
		free(c->title);
		return -ENOMEM;
	}
	r->n++;
	return 0;
}

static void drop_last_chart(struct orp_render *r)
{
	r->n--;
	free(r->charts[r->n].base);
	free(r->charts[r->n].title);
}

static void write_terminal(FILE *f, enum orp_fmt fmt, int w, int h)
{
	switch (fmt) {
	case ORP_FMT_SVG:
		fprintf(f, "set terminal svg size %d,%d noenhanced font 'sans,11' background rgb 'white'\n",
			w, h);
		break;
	case ORP_FMT_PDF:
		/* pdfcairo sizes are inches: 100 px an inch keeps proportions. */
		fprintf(f, "set terminal pdfcairo size %.2f,%.2f noenhanced font 'sans,7'\n",
			w / 100.0, h / 100.0);
		break;
	default:
		fprintf(f, "set terminal pngcairo size %d,%d noenhanced font 'sans,9' background rgb 'white'\n",
			w, h);
		break;
	}
}

int orp_gp_begin(struct orp_render *r, struct orp_gp *g, const char *hint,
		 const char *title, int w, int h, char *err, size_t errlen)
{
	const char *ext = orp_fmt_name(r->fmt);

	memset(g, 0, sizeof(*g));
	if (add_chart(r, hint, title)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	g->base = r->charts[r->n - 1].base;
	g->path = orp_chart_path(r, r->n - 1, "gp");
	g->f = g->path ? fopen(g->path, "w") : NULL;
	if (!g->f) {
		int e = g->path ? errno : ENOMEM;

		snprintf(err, errlen, "%s: %s", g->path ? g->path : r->dir, strerror(e));
		free(g->path);
		drop_last_chart(r);
		return -e;
	}
	/*
	 * No profile text in comments: a line break in it would start a
	 * command, a trailing backslash would swallow the next line. Titles
	 * go in quoted strings, escaped; the base name is sanitised.
	 */
	fprintf(g->f, "# %s.gp, written by osprof-report: self-contained, the data is inline\n"
		      "# (and in %s.dat beside it).\n", g->base, g->base);
	fprintf(g->f, "# Re-render from this directory: gnuplot %s.gp (writes %s.%s)\n",
		g->base, g->base, ext);
	fputs("reset\n", g->f);
	write_terminal(g->f, r->fmt, w, h);
	fprintf(g->f, "set output '%s.%s'\n", g->base, ext);
	return 0;
}

/*
 * Copy the script's inline data blocks to @dat, in order, as gnuplot
 * datasets (two blank lines apart: `index 0`, `index 1`, ...), each
 * headed by its block's name: the data beside the chart for other tools.
 */
static int write_dat(const char *script, const char *dat)
{
	FILE *in = fopen(script, "r"), *out = in ? fopen(dat, "w") : NULL;
	char *line = NULL;
	size_t cap = 0;
	bool inside = false;
	unsigned index = 0;
	int bad;

	if (!out) {
		if (in)
			fclose(in);
		return -EIO;
	}
	fputs("# The data of the chart drawn by the .gp script beside this file.\n", out);
	while (getline(&line, &cap, in) > 0) {
		if (inside && strcmp(line, "EOD\n") == 0) {
			inside = false;
		} else if (inside) {
			fputs(line, out);
		} else if (line[0] == '$' && strstr(line, " << EOD\n")) {
			*strstr(line, " << EOD\n") = '\0';
			fprintf(out, "%s# %s (index %u)\n", index ? "\n\n" : "", line + 1, index);
			index++;
			inside = true;
		}
	}
	free(line);
	bad = ferror(in) || ferror(out);
	fclose(in);
	bad |= fclose(out) != 0;
	return bad ? -EIO : 0;
}

int orp_gp_end(struct orp_render *r, struct orp_gp *g, char *err,
	       size_t errlen)
{
	char *dat = orp_chart_path(r, r->n - 1, "dat");
	int bad;

	/* Close the image now: later scripts share the gnuplot process. */
	fputs("unset output\n", g->f);
	bad = ferror(g->f);
	bad |= fclose(g->f) != 0;
	bad |= !dat || write_dat(g->path, dat) != 0;
	if (bad) {
		snprintf(err, errlen, "%s: write error", g->path);
		unlink(g->path);
		if (dat)
			unlink(dat);
		drop_last_chart(r);
	}
	free(dat);
	free(g->path);
	memset(g, 0, sizeof(*g));
	return bad ? -EIO : 0;
}

void orp_gp_set_str(FILE *f, const char *what, const char *s)
{
	fprintf(f, "set %s ", what);
	osp_esc_gp(f, s);
	fputc('\n', f);
}

void orp_gp_data_begin(FILE *f, const char *name)
{
	fprintf(f, "$%s << EOD\n", name);
}

void orp_gp_data_end(FILE *f)
{
	fputs("EOD\n", f);
}

/*
 * The x axis of a histogram is continuous in log2 of the latency: bucket
 * b covers (2^((b-1)/res), 2^(b/res)] ns and is drawn from b - 0.5 to
 * b + 0.5, so a latency of v ns sits at res * log2(v) + 0.5 and every
 * bucket bound at a half-integer.
 */
double orp_gp_latency_pos(double ns, unsigned res)
{
	return res * log2(ns) + 0.5;
}

/* "1us", "20ms", "500ns": a round latency of one significant digit. */
static void round_label(char *buf, size_t len, double ns)
{
	static const struct { double ns; const char *unit; } units[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1.0, "ns" },
	};
	size_t u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) && ns < units[u].ns * 0.999)
		u++;
	snprintf(buf, len, "%.0f%s", ns / units[u].ns, units[u].unit);
}

/*
 * Labelled ticks at the round latencies of @steps (per decade, e.g. 1 or
 * 1, 2, 5) that fall in [@lo, @hi]; returns how many, writing them only
 * when @f is given.
 */
static int round_tics(FILE *f, double lo, double hi, unsigned res,
		      const double *steps, size_t nsteps)
{
	int n = 0;

	for (int k = 0; k <= 12; k++) {
		for (size_t s = 0; s < nsteps; s++) {
			double ns = steps[s] * pow(10.0, k), x = orp_gp_latency_pos(ns, res);
			char label[16];

			if (x < lo || x > hi)
				continue;
			if (f) {
				round_label(label, sizeof(label), ns);
				fprintf(f, "%s'%s' %.4f", n ? ", " : "", label, x);
			}
			n++;
		}
	}
	return n;
}

void orp_gp_latency_axis(FILE *f, double lo, double hi, unsigned res)
{
	static const double decades[] = { 1.0 }, fine[] = { 1.0, 2.0, 5.0 };
	double b0 = ceil(lo - 0.5), b1 = floor(hi - 0.5);
	int n = 0, m = 0;

	fputs("set xtics (", f);
	if (round_tics(NULL, lo, hi, res, decades, 1) >= 2)
		n = round_tics(f, lo, hi, res, decades, 1);
	else if (round_tics(NULL, lo, hi, res, fine, 3) >= 2)
		n = round_tics(f, lo, hi, res, fine, 3);
	/* Too narrow even for 1-2-5: label bucket upper bounds, ten at most. */
	for (double b = b0, step = fmax(1.0, ceil((b1 - b0 + 1) / 10)); !n && b <= b1; b += step) {
		char label[16];

		osp_fmt_ns(label, sizeof(label), osp_bucket_upper_ns((unsigned)b, res));
		fprintf(f, "%s'%s' %.1f", b > b0 ? ", " : "", label, b + 0.5);
		m++;
	}
	/* Every bucket bound as a minor tick. */
	for (double b = b0; b <= b1 && b1 - b0 <= 200; b += 1.0)
		fprintf(f, "%s'' %.1f 1", n + m++ ? ", " : "", b + 0.5);
	/* Latency in human units only: no axis of bucket numbers. */
	fputs(")\nset xtics nomirror out\nset xlabel 'latency'\n"
	      "set grid xtics lc rgb '#cccccc' dt 2\nunset x2tics\nunset x2label\n", f);
}

/* ---- running gnuplot ------------------------------------------------------ */

static const char *gnuplot_path(void)
{
	const char *g = getenv("OSPROF_GNUPLOT");

	return g && *g ? g : "gnuplot";
}

/* Child: run gnuplot in @dir on scripts [from, to), stderr into @log. */
static void __attribute__((noreturn))
worker_exec(const struct orp_render *r, size_t from, size_t to, const char *log)
{
	char **argv = calloc(to - from + 2, sizeof(*argv));
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int null = open("/dev/null", O_RDWR);

	if (!argv || fd < 0 || null < 0 || chdir(r->dir) != 0)
		_exit(126);
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	argv[0] = (char *)gnuplot_path();
	for (size_t i = from; i < to; i++)
		if (asprintf(&argv[i - from + 1], "%s.gp", r->charts[i].base) < 0)
			_exit(126);
	execvp(argv[0], argv);
	fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* First line of @path into @buf (empty when unreadable). */
static void first_line(const char *path, char *buf, size_t len)
{
	char *text;
	size_t n;

	buf[0] = '\0';
	if (osp_read_path(path, &text, &n) != 0)
		return;
	/* gnuplot's messages start with a blank line and a caret line. */
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strspn(line, " ^") != strlen(line)) {
			snprintf(buf, len, "%s", line + strspn(line, " "));
			break;
		}
	}
	free(text);
}

static int check_images(const struct orp_render *r, char *err, size_t errlen)
{
	for (size_t i = 0; i < r->n; i++) {
		char *img = orp_chart_path(r, i, orp_fmt_name(r->fmt));
		struct stat st;
		bool ok = img && stat(img, &st) == 0 && st.st_size > 0;

		if (!ok) {
			snprintf(err, errlen, "%s: gnuplot wrote no image",
				 img ? img : r->charts[i].base);
			free(img);
			return -EIO;
		}
		free(img);
	}
	return 0;
}

static size_t worker_count(size_t nscripts)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t w = cpus > 0 ? (size_t)cpus : 1;

	if (w > MAX_WORKERS)
		w = MAX_WORKERS;
	return w < nscripts ? w : nscripts;
}

/* Wait for every worker; describe the first failure in @err. */
static int reap_workers(const struct orp_render *r, const pid_t *pid,
			char *const *logs, size_t nw, char *err, size_t errlen)
{
	int rc = 0;

	for (size_t k = 0; k < nw; k++) {
		int st;
		char line[512];

		if (pid[k] <= 0)
			continue;
		while (waitpid(pid[k], &st, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			unlink(logs[k]);
			continue;
		}
		if (rc)
			continue;
		first_line(logs[k], line, sizeof(line));
		if (WIFEXITED(st) && WEXITSTATUS(st) >= 126)
			snprintf(err, errlen, "%s (install gnuplot, e.g. the package gnuplot-nox, or set OSPROF_GNUPLOT)",
				 line[0] ? line : "cannot run gnuplot");
		else if (r->scratch)
			snprintf(err, errlen, "gnuplot failed: %s",
				 line[0] ? line : "no message");
		else
			snprintf(err, errlen, "gnuplot failed: %s (log: %s)",
				 line[0] ? line : "no message", logs[k]);
		rc = -EIO;
	}
	return rc;
}

int orp_render_run(struct orp_render *r, char *err, size_t errlen)
{
	size_t nw = worker_count(r->n), per, from = 0;
	pid_t pid[MAX_WORKERS] = { 0 };
	char *logs[MAX_WORKERS] = { 0 };
	int rc = 0;

	if (r->n == 0)
		return 0;
	per = (r->n + nw - 1) / nw;
	fflush(NULL); /* nothing buffered may be written twice by a child */
	for (size_t k = 0; k < nw && from < r->n; k++, from += per) {
		size_t to = from + per < r->n ? from + per : r->n;

		if (asprintf(&logs[k], "%s/gnuplot-%zu.log", r->dir, k) < 0) {
			logs[k] = NULL;
			rc = -ENOMEM;
			break;
		}
		pid[k] = fork();
		if (pid[k] == 0)
			worker_exec(r, from, to, logs[k]);
		if (pid[k] < 0) {
			rc = -errno;
			break;
		}
	}
	if (rc)
		snprintf(err, errlen, "cannot start gnuplot: %s", strerror(-rc));
	if (reap_workers(r, pid, logs, nw, err, errlen) && !rc)
		rc = -EIO;
	for (size_t k = 0; k < nw; k++)
		free(logs[k]);
	return rc ? rc : check_images(r, err, errlen);
}
