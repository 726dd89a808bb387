// SPDX-License-Identifier: MIT
/*
 * Issue 8, "nothing a user or a file can do subverts osprof": profiles
 * whose every string is hostile -- line breaks followed by gnuplot
 * commands, quotes of each kind, backquotes and $(...), markup, CSV and
 * spreadsheet syntax, OpenMetrics syntax, control bytes, bidi controls,
 * bytes that are not UTF-8 (through the kernel module's text, as JSON
 * cannot carry them), very long names -- and hostile file names, through
 * every subcommand of osprof-report and every output format.
 *
 * "Where the time goes" gets the same: a run of real layer names (fs,
 * fuse, syscall, lower) whose operations, calls and options (transport,
 * under passthrough) are hostile, through show, its JSON, html and plot.
 *
 * Each test requires that nothing ran (no file named CANARY* appears
 * anywhere under its directory, where every relative path of a payload
 * points as well: the test runs there), that gnuplot itself accepts every
 * script written (run again here, for real), and that each output parses
 * with a real parser showing the hostile text as text: hostile_check.py
 * (Python's html.parser, xml.etree, csv, json and prometheus_client's
 * OpenMetrics and Prometheus parsers) run by Debian's python3.
 *
 * ORP_BIN, ORP_HOSTILE_CHECK and ORP_PYTHON name the programs (meson sets
 * the first two; the third defaults to /usr/bin/python3, where Debian's
 * python3-prometheus-client lives).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define MAX_NAMES 32

/* Operation names of the JSON profiles; [0, NSHORT) fit in a chart title. */
static char *names[MAX_NAMES];
static size_t nnames, nshort;
/* The layers of the mount (A and B share the first). */
static char *layer_fs, *layer_lower;
/* Operation names of the kernel module's layers, as osprof-report makes them. */
static char *km_lower[4], *km_irq[4];
static size_t nkm_lower, nkm_irq;
static char *km_counter;

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	cr_assert(vasprintf(&s, f, ap) >= 0);
	va_end(ap);
	return own(s);
}

/* The names, some pointing their payload at this test's directory. */
static void make_names(void)
{
	const char *d = cli_dir();
	char *lng = own(malloc(3101));

	memset(lng, 'L', 3000);
	snprintf(lng + 3000, 101, "\nsystem \"touch %s/CANARY-long\"\n", d);
	nnames = 0;
	names[nnames++] = fmt("x\nsystem \"touch %s/CANARY-nl\"\n#", d);
	names[nnames++] = "it's'; system 'touch CANARY-sq'; '";
	names[nnames++] = "`touch CANARY-bq`";
	names[nnames++] = "$(touch CANARY-sh) ${IFS}";
	names[nnames++] = "<script>alert(1)</script>";
	names[nnames++] = "</script><img src=x onerror=alert(1)>";
	names[nnames++] = "a&amp;b \"q\" ,=;{}[]";
	names[nnames++] = "\x01\x1b[2J\x1b]0;pwned\x07\x7f";
	names[nnames++] = "=HYPERLINK(\"http://x\",\"y\")";
	names[nnames++] = "-2+3";
	names[nnames++] = "@SUM(1)";
	names[nnames++] = "trailing\\";
	names[nnames++] = fmt("EOD\nsystem \"touch %s/CANARY-eod\"", d);
	names[nnames++] = "# EOF\nfake_metric 1";
	names[nnames++] = "cr\r\nlf\ttab";
	names[nnames++] = "rlo\xe2\x80\xae" "gnp.exe \xc2\x85 nel";
	names[nnames++] = "caf\xc3\xa9 \xf0\x9f\x98\x80";
	names[nnames++] = "\\\nsystem \"touch CANARY-bsnl\"";
	nshort = nnames;
	names[nnames++] = lng;
	layer_fs = fmt("fs\nsystem \"touch %s/CANARY-layer\"\n\x1b[31m<b>'`", d);
	layer_lower = "lo\x1b]0;x\x07\"'<i>&";
	/* No blank, tab, CR or LF: they end a token of the module's text. */
	nkm_lower = nkm_irq = 0;
	km_lower[nkm_lower++] = "read\xff\xfe\x1b[2J";
	km_lower[nkm_lower++] = "<script>alert(1)</script>\xc0\xaf";
	km_lower[nkm_lower++] = "$(touch${IFS}CANARY-km)`touch${IFS}CANARY-km`'\"\\";
	km_irq[nkm_irq++] = "4:tty\xed\xa0\x80\"q\"";
	km_irq[nkm_irq++] = "5:=cmd|'/c\x1b" "calc'!A0\x7f\x01";
	km_irq[nkm_irq++] = "6:a,b\xe2\x82";
	km_counter = "ev\x1b\xff\"";
}

static void setup(void)
{
	cli_setup();
	/* Payloads with relative paths land here, where they are looked for. */
	cr_assert_eq(chdir(cli_dir()), 0);
	make_names();
}

TestSuite(hostile, .init = setup, .fini = cli_teardown);

/* ---- the inputs ---------------------------------------------------------- */

/* A JSON string: only " \ and control bytes escaped, as any writer may. */
static void json_s(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_op(FILE *f, const char *name, size_t i, unsigned at)
{
	unsigned long n = 100 + i;

	fputs("{\"name\": ", f);
	json_s(f, name);
	fprintf(f, ", \"count\": %lu, \"sum\": %lu, \"min\": 700, \"max\": 700000,"
		   " \"buckets\": [[%u, %lu], [20, 10]],"
		   " \"cpu\": {\"count\": %lu, \"sum\": %lu, \"min\": 300, \"max\": 500,"
		   " \"buckets\": [[9, %lu]]}, \"counters\": {",
		n + 10, n * 800 + 6000000, at, n, n + 10, (n + 10) * 400, n + 10);
	json_s(f, "c\n\x1b[2J\"");
	fputs(": 5}, ", f);
	json_s(f, "attr\n\x1b");
	fputs(": ", f);
	json_s(f, "v\x1b[2J\n<script>");
	fputc('}', f);
}

/*
 * A profile of layer @layer holding ops [0, @n) with every metadata string
 * hostile and a timeline of two snapshots; @shifted moves the main peak of
 * every other op up three octaves, so that compare ranks them.
 */
static char *write_profile(const char *file, const char *layer, size_t n,
			   bool shifted)
{
	char *path = tpath("%s", file);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	fputs("{\"format\": \"osprof\", \"version\": 1, \"layer\": ", f);
	json_s(f, layer);
	fputs(", \"host\": ", f);
	json_s(f, "h\n\x1b[2J<script>alert(1)</script>");
	fputs(", \"source\": {", f);
	json_s(f, "mount\n<b>");
	fputs(": ", f);
	json_s(f, "/mnt/\x1b[31m\"x\"\n</p><script>");
	fputs(", \"pid\": 1}, \"clock\": {\"source\": ", f);
	json_s(f, "tsc\n\x1b[H'");
	fputs(", \"cycles_per_ns\": 2.5}, \"resolution\": 1, \"unit\": \"ns\", \"options\": {", f);
	json_s(f, "cache\x1b");
	fputs(": ", f);
	json_s(f, "=a,b\n'\"");
	fputs("}, \"elapsed_ns\": 4000000000, \"ops\": [\n", f);
	for (size_t i = 0; i < n; i++) {
		json_op(f, names[i], i, shifted && i % 2 ? 13 : 10);
		fputs(i + 1 < n ? ",\n" : "\n", f);
	}
	fputs("], \"timeline\": {\"interval_ns\": 2000000000, \"snapshots\": [", f);
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s{\"t_ns\": %d000000000, \"ops\": [", s ? ", " : "", 2 * (s + 1));
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ", " : "", f);
			fputs("{\"name\": ", f);
			json_s(f, names[i]);
			fprintf(f, ", \"count\": 5, \"buckets\": [[%d, 5]]}", 10 + s);
		}
		fputs("]}", f);
	}
	fputs("]}}\n", f);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* A directory laid out like an osprof-fs mount: two hostile layers. */
static char *mount_dir(void)
{
	char *mnt = tpath("mnt");

	cr_assert_eq(mkdir(mnt, 0755), 0);
	cr_assert_eq(mkdir(tpath("mnt/.osprof"), 0755), 0);
	write_profile("mnt/.osprof/stats.json", layer_fs, nnames, false);
	write_profile("mnt/.osprof/lower.json", layer_lower, 4, false);
	return mnt;
}

/* A directory laid out like /proc/osprof, names not UTF-8 among them. */
static char *proc_dir(void)
{
	char *dir = tpath("proc"), *text = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(mkdir(dir, 0755), 0);
	f = open_memstream(&text, &len);
	fputs("layer=lower clock=ktime\x1b[2J cycles_per_ns=1.0 enabled=1\n", f);
	for (size_t i = 0; i < nkm_lower; i++)
		fprintf(f, "op=%s count=20 sum_ns=40000 min_ns=900 max_ns=9000 hist=10:10,13:10"
			   " vcount=20 vsum_ns=20000 vmin_ns=500 vmax_ns=900 vhist=9:20\n",
			km_lower[i]);
	fclose(f);
	spit(tpath("proc/lower"), text, len);
	free(text);
	f = open_memstream(&text, &len);
	fputs("layer=irq clock=ktime cycles_per_ns=1.0 enabled=1\n", f);
	for (size_t i = 0; i < nkm_irq; i++) {
		const char *colon = strchr(km_irq[i], ':');

		fprintf(f, "irq=%.*s name=%s count=30 sum_ns=90000 min_ns=900 max_ns=9000"
			   " hist=10:20,12:10 pmc=available cycles=90000 instructions=45000"
			   " %s=7\n", (int)(colon - km_irq[i]), km_irq[i], colon + 1, km_counter);
	}
	fclose(f);
	spit(tpath("proc/irq"), text, len);
	free(text);
	return dir;
}

/* A file name holding a line break and gnuplot, shell and HTML syntax. */
static char *hostile_copy(const char *src)
{
	char *dst = tpath("b\nsystem \"touch CANARY-file\"\n'`touch CANARY-file`<i>\x1b[2J.json");
	char *text = slurp(src);

	cr_assert_not_null(text);
	spit(dst, text, strlen(text));
	free(text);
	return dst;
}

/* ---- the checks ---------------------------------------------------------- */

static int find_canary(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	/* Chart files are named after the payloads too, never starting so. */
	cr_expect_neq(strncmp(p + f->base, "CANARY", 6), 0, "a payload ran: %s exists", p);
	return 0;
}

static void expect_nothing_ran(void)
{
	cr_assert_eq(nftw(cli_dir(), find_canary, 16, FTW_PHYS), 0);
}

static char *hex(const char *s)
{
	size_t n = strlen(s);
	char *h = own(malloc(2 * n + 1));

	for (size_t i = 0; i < n; i++)
		sprintf(h + 2 * i, "%02x", (unsigned char)s[i]);
	h[2 * n] = '\0';
	return h;
}

/* hostile_check.py @mode @file with @n strings. */
static void check(const char *mode, const char *file, const char *const *s,
		  size_t n)
{
	char **argv = own(calloc(n + 5, sizeof(*argv)));
	struct run r;

	argv[0] = (char *)env_or("ORP_PYTHON", "/usr/bin/python3");
	argv[1] = (char *)env_or("ORP_HOSTILE_CHECK", "hostile_check.py");
	argv[2] = (char *)mode;
	argv[3] = (char *)file;
	for (size_t i = 0; i < n; i++)
		argv[4 + i] = hex(s[i]);
	r = run_argv(argv);
	cr_expect_eq(r.status, 0, "%s check of %s failed (%d):\n%s", mode, file,
		     r.status, r.err);
}

/* Save @r's stdout to a file and check it as @mode. */
static void check_out(const char *mode, const struct run *r,
		      const char *const *s, size_t n)
{
	static int seq;
	char *path = tpath("stdout-%d", seq++);

	spit(path, r->out, r->outlen);
	check(mode, path, s, n);
}

/*
 * @layer then the @n names of @ops: what a layer's operations table shows,
 * and what hostile_check.py's csv, om and json modes take.
 */
static const char **layer_strings(const char *layer, char *const *ops,
				  size_t n, size_t *count)
{
	const char **v = own(calloc(n + 1, sizeof(*v)));

	v[0] = layer;
	for (size_t i = 0; i < n; i++)
		v[1 + i] = ops[i];
	*count = n + 1;
	return v;
}

/* Every chart in @dir: gnuplot runs its script again, for real, and
 * succeeds; its data file and, for SVG, its image parse. */
static size_t check_charts(const char *dir, const char *const *svg_strings,
			   size_t nsvg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	cr_assert_not_null(d, "%s", dir);
	while ((e = readdir(d))) {
		const char *dot = strrchr(e->d_name, '.');
		char *path = fmt("%s/%s", dir, e->d_name);

		if (!dot)
			continue;
		if (strcmp(dot, ".gp") == 0) {
			struct run r = run_argv((char *const[]){ "/bin/sh", "-c",
				"cd \"$1\" && exec gnuplot \"$2\"", "sh", (char *)dir,
				e->d_name, NULL });

			cr_expect_eq(r.status, 0, "gnuplot %s: %s", path, r.err);
			n++;
		} else if (strcmp(dot, ".dat") == 0) {
			check("dat", path, NULL, 0);
		} else if (strcmp(dot, ".svg") == 0 && svg_strings) {
			check("svg", path, NULL, 0);
		}
	}
	closedir(d);
	/* Each string in some chart of the set. */
	if (svg_strings) {
		char *all = tpath("all-svg-%zu.svg", n), *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		d = opendir(dir);
		fputs("<all>", f);
		while ((e = readdir(d))) {
			const char *dot = strrchr(e->d_name, '.');
			char *svg;

			if (!dot || strcmp(dot, ".svg") != 0)
				continue;
			svg = slurp(fmt("%s/%s", dir, e->d_name));
			cr_assert_not_null(svg);
			/* The XML declaration only once: start at the root. */
			fputs(strstr(svg, "<svg") ? strstr(svg, "<svg") : svg, f);
			free(svg);
		}
		closedir(d);
		fputs("</all>", f);
		fclose(f);
		spit(all, text, len);
		free(text);
		check("svg", all, svg_strings, nsvg);
	}
	return n;
}

/* ---- show ---------------------------------------------------------------- */

Test(hostile, show_keeps_every_name_to_its_line)
{
	size_t n;
	const char **want = layer_strings(layer_fs, names, nnames, &n);
	struct run r = REPORT("show", write_profile("a.json", layer_fs, nnames, false));
	static const char *const meta[] = { "c\n\x1b[2J\"", "attr\n\x1b", "v\x1b[2J\n<script>",
					    "mount\n<b>", "/mnt/\x1b[31m\"x\"\n</p><script>",
					    "tsc\n\x1b[H'", "cache\x1b", "=a,b\n'\"" };

	cr_assert_eq(r.status, 0, "%s", r.err);
	check_out("text", &r, want, n);
	check_out("text", &r, meta, sizeof(meta) / sizeof(meta[0]));
	r = REPORT("show", mount_dir(), proc_dir());
	cr_assert_eq(r.status, 0, "%s", r.err);
	check_out("text", &r, want, n);
	check_out("text", &r, (const char *const *)km_lower, nkm_lower);
	check_out("text", &r, (const char *const *)km_irq, nkm_irq);
	check_out("text", &r, (const char *const *)&km_counter, 1);
	check_out("text", &r, (const char *const *)&layer_lower, 1);
	r = REPORT("show", "--op", names[7], "--op", km_lower[0], tpath("a.json"),
		   tpath("proc"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	check_out("text", &r, (const char *const *)&names[7], 1);
	/* Errors quote argv and profiles: escaped on their one line too. */
	r = REPORT("show", "--op", "no\nsuch\x1b[2J", tpath("a.json"));
	cr_expect_eq(r.status, 2);
	cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	cr_expect_not_null(strstr(r.err, "no\\nsuch\\x1b[2J"), "%s", r.err);
	r = REPORT("show", "--layer", "x\x1b[2J", tpath("mnt"));
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "x\\x1b[2J"), "%s", r.err);
	cr_expect_not_null(strstr(r.err, "fs\\nsystem"), "the layers it has: %s", r.err);
	expect_nothing_ran();
}

/* ---- plot ---------------------------------------------------------------- */

static void expect_plot(const char *fmt_name, const char *profile,
			const char *against, const char *const *svg, size_t nsvg)
{
	char *dir = tpath("plot-%s-%zu", fmt_name, nsvg);
	size_t nout;
	struct run r = against ? REPORT("plot", "--format", (char *)fmt_name, (char *)profile,
					"--compare", (char *)against, "-o", dir)
			       : REPORT("plot", "--format", (char *)fmt_name, (char *)profile,
					"-o", dir);

	expect_nothing_ran(); /* before anything may stop the test */
	cr_assert_eq(r.status, 0, "plot %s: %s", fmt_name, r.err);
	check_out("text", &r, NULL, 0);
	/* Every chart plot names, each once, and no other. */
	nout = 0;
	for (const char *c = strchr(r.out, '\n'); c; c = strchr(c + 1, '\n'))
		nout++;
	cr_expect_gt(nout, 3, "plot %s drew next to nothing: %s", fmt_name, r.out);
	cr_expect_eq(check_charts(dir, strcmp(fmt_name, "svg") == 0 ? svg : NULL, nsvg), nout,
		     "plot %s: the charts in %s, against the %zu it names", fmt_name, dir, nout);
	expect_nothing_ran();
}

Test(hostile, plot_scripts_run_in_gnuplot_and_run_nothing_else, .timeout = 120)
{
	char *a = write_profile("a.json", layer_fs, nnames, false);
	char *b = write_profile("b.json", layer_fs, nnames, true);
	size_t n;
	const char **want = layer_strings(layer_fs, names, nshort, &n);
	const char **km = own(calloc(nkm_irq + nkm_lower, sizeof(*km)));

	for (size_t i = 0; i < nkm_irq; i++)
		km[i] = km_irq[i]; /* x tic labels of the IRQ chart: from data */
	for (size_t i = 0; i < nkm_lower; i++)
		km[nkm_irq + i] = km_lower[i];
	expect_plot("svg", a, hostile_copy(b), want, n);
	expect_plot("png", a, NULL, NULL, 0);
	expect_plot("pdf", mount_dir(), NULL, NULL, 0);
	expect_plot("svg", proc_dir(), NULL, km, nkm_irq + nkm_lower);
}

/* ---- compare --------------------------------------------------------------- */

Test(hostile, compare_ranks_hostile_names_as_text, .timeout = 60)
{
	char *a = write_profile("a.json", layer_fs, nnames, false);
	char *b = hostile_copy(write_profile("b.json", layer_fs, nnames, true));
	size_t n;
	const char **want = layer_strings(layer_fs, names, nnames, &n);
	const char *files[] = { a, b };
	char *dir = tpath("cmp");
	struct run r = REPORT("compare", "--all", "--plot", dir, "--format", "svg", a, b);

	expect_nothing_ran();
	cr_assert_eq(r.status, 1, "%s", r.err);
	check_out("text", &r, want, n);
	check_out("text", &r, files, 2);
	want = layer_strings(b, names, nshort, &n);
	/* Only the shifted (odd) ops have overlays; each names the file B. */
	for (size_t i = 1; i < n; i++)
		want[i] = (i - 1) % 2 ? want[i] : layer_fs;
	cr_expect_eq(check_charts(dir, want, n), nnames / 2, "an overlay of each shifted op");
	r = REPORT("compare", "--all", proc_dir(), tpath("proc"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	check_out("text", &r, (const char *const *)km_irq, nkm_irq);
	expect_nothing_ran();
}

/* ---- html ------------------------------------------------------------------ */

Test(hostile, html_shows_hostile_text_only_as_text, .timeout = 120)
{
	char *a = write_profile("a.json", layer_fs, nnames, false);
	char *b = hostile_copy(write_profile("b.json", layer_fs, nnames, true));
	char *page = tpath("r.html");
	size_t n;
	const char **want = layer_strings(layer_fs, names, nnames, &n);
	static const char *const meta[] = { "h\n\x1b[2J<script>alert(1)</script>",
					    "/mnt/\x1b[31m\"x\"\n</p><script>", "=a,b\n'\"",
					    "tsc\n\x1b[H'" };
	struct run r = REPORT("html", a, b, "-o", page);

	expect_nothing_ran();
	cr_assert_eq(r.status, 0, "%s", r.err);
	check("html", page, want, n);
	check("html", page, meta, sizeof(meta) / sizeof(meta[0]));
	check("html", page, (const char *const *)&b, 1);
	r = REPORT("html", proc_dir(), "-o", page);
	cr_assert_eq(r.status, 0, "%s", r.err);
	check("html", page, (const char *const *)km_irq, nkm_irq);
	check("html", page, (const char *const *)km_lower, nkm_lower);
	r = REPORT("html", mount_dir(), "-o", page);
	cr_assert_eq(r.status, 0, "%s", r.err);
	check("html", page, (const char *const *)&layer_lower, 1);
	expect_nothing_ran();
}

/* ---- where the time goes ------------------------------------------------- */

static const char where_transport[] = "io\n\x1b[2J<b>'\"%s`touch CANARY-tr`";

/*
 * Layer @layer of a run in @file: read (or @call for the calls of
 * syscall and lower) and the short names, @opts inside its options.
 */
static void where_layer(const char *file, const char *layer, const char *call, bool opts)
{
	FILE *f = fopen(tpath("%s", file), "w");

	cr_assert_not_null(f, "%s", file);
	fputs("{\"format\": \"osprof\", \"version\": 1, \"layer\": ", f);
	json_s(f, layer);
	fputs(", \"resolution\": 1, \"unit\": \"ns\", \"options\": {", f);
	if (opts) {
		fputs("\"passthrough\": true, \"transport\": ", f);
		json_s(f, where_transport);
	}
	fputs("}, \"elapsed_ns\": 1000000000, \"ops\": [\n", f);
	fputs("{\"name\": ", f);
	json_s(f, call);
	fputs(", \"count\": 100, \"sum\": 100000, \"min\": 1000, \"max\": 1000, \"buckets\": [[10, 100]]}", f);
	for (size_t i = 0; i < nshort; i++) {
		fputs(",\n{\"name\": ", f);
		json_s(f, names[i]);
		fprintf(f, ", \"count\": %zu, \"sum\": %zu, \"min\": 700, \"max\": 700,"
			   " \"buckets\": [[10, %zu]]}", 10 + i, 700 * (10 + i), 10 + i);
	}
	fputs("]}\n", f);
	cr_assert_eq(fclose(f), 0);
}

/* A run of every stacked layer, its operations hostile but read. */
static char *where_dir(void)
{
	char *dir = tpath("where");

	cr_assert_eq(mkdir(dir, 0755), 0);
	where_layer("where/stats.json", "fs", "read", true);
	where_layer("where/fuse.json", "fuse", "read", false);
	where_layer("where/syscall.json", "syscall", "pread64", false);
	where_layer("where/lower.json", "lower", "pread64", false);
	return dir;
}

Test(hostile, where_the_time_goes_keeps_names_and_options_as_text, .timeout = 120)
{
	char *dir = where_dir(), *page = tpath("w.html"), *plot = tpath("where-plot");
	const char *transport = where_transport;
	const char **want = own(calloc(nshort + 1, sizeof(*want)));
	struct run r;

	want[0] = transport;
	for (size_t i = 0; i < nshort; i++)
		want[1 + i] = names[i];
	r = REPORT("show", "--where", dir);
	expect_nothing_ran();
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* The names in the tables, the transport in passthrough's note. */
	check_out("text", &r, want, nshort + 1);
	r = REPORT("show", "--format", "json", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	check_out("where", &r, want, nshort + 1);
	r = REPORT("html", dir, "-o", page);
	cr_assert_eq(r.status, 0, "%s", r.err);
	check("html", page, want, nshort + 1);
	r = REPORT("plot", "--format", "svg", dir, "-o", plot);
	expect_nothing_ran();
	cr_assert_eq(r.status, 0, "%s", r.err);
	/* The bars name every operation; gnuplot runs each script again. */
	cr_expect_gt(check_charts(plot, want + 1, nshort), 3);
	cr_expect(exists(tpath("where-plot/where.svg")));
	expect_nothing_ran();
}

/* ---- export and merge ---------------------------------------------------- */

Test(hostile, export_round_trips_through_real_parsers)
{
	static const char *const forms[] = { "csv", "openmetrics", "json" };
	static const char *const modes[] = { "csv", "om", "json" };
	char *a = write_profile("a.json", layer_fs, nnames, false);
	char *proc = proc_dir();
	size_t n, nk, ni;
	const char **want = layer_strings(layer_fs, names, nnames, &n);
	const char **wk = layer_strings("lower", km_lower, nkm_lower, &nk);
	const char **wi = layer_strings("irq", km_irq, nkm_irq, &ni);

	for (size_t f = 0; f < 3; f++) {
		char *out = tpath("export.%s", forms[f]);
		struct run r = REPORT("export", "--format", (char *)forms[f], a, "-o", out);

		cr_assert_eq(r.status, 0, "%s: %s", forms[f], r.err);
		check(modes[f], out, want, n);
		r = REPORT("export", "--format", (char *)forms[f], "--layer", "lower", proc,
			   "-o", out);
		cr_assert_eq(r.status, 0, "%s: %s", forms[f], r.err);
		check(modes[f], out, wk, nk);
		r = REPORT("export", "--format", (char *)forms[f], "--layer", "irq", proc,
			   "-o", out);
		cr_assert_eq(r.status, 0, "%s: %s", forms[f], r.err);
		check(modes[f], out, wi, ni);
	}
	expect_nothing_ran();
}

Test(hostile, merge_keeps_every_name)
{
	char *a = write_profile("a.json", layer_fs, nnames, false);
	char *out = tpath("merged.json");
	size_t n;
	const char **want = layer_strings(layer_fs, names, nnames, &n);
	struct run r = REPORT("merge", a, hostile_copy(a), "-o", out);

	cr_assert_eq(r.status, 0, "%s", r.err);
	check("json", out, want, n);
	spit(tpath("merge.err"), r.err, strlen(r.err));
	check("text", tpath("merge.err"), NULL, 0);
	r = REPORT("merge", "--layer", "lower", proc_dir(), tpath("proc"), "-o", out);
	cr_assert_eq(r.status, 0, "%s", r.err);
	want = layer_strings("lower", km_lower, nkm_lower, &n);
	check("json", out, want, n);
	expect_nothing_ran();
}
