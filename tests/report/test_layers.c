// SPDX-License-Identifier: MIT
/*
 * The layered view of osprof-report, run as a user runs it: profiles of
 * every layer of one run (fuse, fs, syscall, lower, block, irq), recorded
 * here with known latencies through core's histograms and written by
 * core's JSON writer into the test's own directory, laid out as a mount's
 * control directory, a run directory or a comma-separated list. Every
 * request of an operation takes the same time, so means and percentiles
 * are exact and so is every difference the view prints.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "osprof/format.h"
#include "cli.h"

TestSuite(layers, .init = cli_setup, .fini = cli_teardown);

static struct osp_profile *prof(const char *layer, const char *layer_source)
{
	struct osp_profile *p = osp_profile_new(layer, 1);

	cr_assert_not_null(p);
	if (layer_source)
		cr_assert_eq(osp_kv_set_str(&p->source, "layer_source", layer_source), 0);
	p->elapsed_ns = 1000000000ull;
	return p;
}

/* @n requests of @lat_ns each. */
static void op(struct osp_profile *p, const char *name, uint64_t n, uint64_t lat_ns)
{
	struct osp_op *o = osp_profile_add_op(p, name, false);

	cr_assert_not_null(o);
	for (uint64_t i = 0; i < n; i++)
		cr_assert_eq(osp_hist_record(&o->lat, lat_ns), 0);
}

/* Write @p (freed) to @path, in the test's directory. */
static void save(struct osp_profile *p, const char *path)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(osp_write_json(f, p), 0);
	cr_assert_eq(fclose(f), 0);
	osp_profile_free(p);
}

/* One layer's file in a run: its operations, each with one latency. */
struct layer_spec {
	const char *file, *layer, *layer_source;
	struct { const char *name; uint64_t n, lat_ns; } ops[4];
};

/*
 * A run's layers: fuse read takes 20 us and fs read 5 us, 1000 each;
 * lookup 9 us against 4 us, but fuse saw 203 and fs 200. The fuse read's
 * latency is set by run_dir. In the order run_dir's @with cuts them.
 */
static const struct layer_spec run_layers[] = {
	{ "stats.json", "fs", NULL,
	  { { "read", 1000, 5000 }, { "lookup", 200, 4000 }, { "getattr", 50, 1000 } } },
	{ "fuse.json", "fuse", "ebpf",
	  { { "read", 1000, 0 }, { "lookup", 203, 9000 }, { "getattr", 50, 3000 } } },
	{ "syscall.json", "syscall", "ebpf",
	  { { "pread64", 1000, 25000 }, { "openat", 100, 30000 }, { "newfstatat", 300, 4000 } } },
	{ "lower.json", "lower", "ebpf", { { "pread64", 1000, 4000 } } },
	{ "block.json", "block", "ebpf",
	  { { "vda.read", 10, 200000 }, { "vda.read.queue", 10, 5000 } } },
	{ "irq.json", "irq", "osprof.ko",
	  { { "24:virtio0-requests", 10, 3000 }, { "softirq:BLOCK", 10, 2000 } } },
};

/*
 * The run's layers in directory @dir (made here), fuse's read taking
 * @fuse_read_ns (a slower transport when changed); @with: "fs" alone,
 * "fuse" and fs, or "all".
 */
static void run_dir(const char *dir, const char *with, uint64_t fuse_read_ns)
{
	size_t n = strcmp(with, "fs") == 0 ? 1 : strcmp(with, "fuse") == 0 ? 2 : 6;

	cr_assert_eq(mkdir(dir, 0755), 0, "%s", dir);
	for (size_t i = 0; i < n; i++) {
		const struct layer_spec *l = &run_layers[i];
		struct osp_profile *p = prof(l->layer, l->layer_source);
		char *path;

		for (size_t k = 0; k < 4 && l->ops[k].name; k++)
			op(p, l->ops[k].name, l->ops[k].n,
			   l->ops[k].lat_ns ? l->ops[k].lat_ns : fuse_read_ns);
		cr_assert(asprintf(&path, "%s/%s", dir, l->file) > 0);
		save(p, own(path));
	}
}

/* A directory laid out as an osprof-fs mount with @with layers. */
static char *mount(const char *name, const char *with, uint64_t fuse_read_ns)
{
	char *mnt = tpath("%s", name);

	cr_assert_eq(mkdir(mnt, 0755), 0);
	run_dir(tpath("%s/.osprof", name), with, fuse_read_ns);
	return mnt;
}

/* The line of @out that starts with @start (then a blank), or NULL. */
static char *line_of(const char *out, const char *start)
{
	size_t n = strlen(start);

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, start, n) == 0 && l[n] == ' ') {
			const char *e = strchr(l, '\n');

			return own(strndup(l, e ? (size_t)(e - l) : strlen(l)));
		}
	}
	return NULL;
}

/* How many times @needle occurs in @hay. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *h = strstr(hay, needle); h; h = strstr(h + 1, needle))
		n++;
	return n;
}

/* @line's blank-separated words joined by '|'. */
static char *words(const char *line)
{
	char *copy = strdup(line), *save = NULL, *out = calloc(strlen(line) + 2, 1);

	cr_assert(copy && out);
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (*out)
			strcat(out, "|");
		strcat(out, w);
	}
	free(copy);
	return own(out);
}

Test(layers, fuse_against_fs_rows_and_differences_are_exact)
{
	struct run r = REPORT("show", "--layered", mount("m", "all", 20000));
	char *head, *read;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.err);
	cr_expect_not_null(strstr(r.out, "==> layered view (fuse, fs, syscall, lower, block, irq) <==\n"),
			   "%s", r.out);
	cr_expect_not_null(strstr(r.out, "fuse (ebpf) against fs (osprof-fs)"), "%s", r.out);
	read = line_of(r.out, "read");
	cr_assert_not_null(read, "%s", r.out);
	/* count, mean, fuse - fs mean, p50, fuse - fs p50, p99: fuse then fs. */
	cr_expect_str_eq(words(read), "read|1000|1000|20us|5us|+15us|20us|5us|+15us|20us|5us");
	cr_expect_str_eq(words(line_of(r.out, "getattr")),
			 "getattr|50|50|3us|1us|+2us|3us|1us|+2us|3us|1us");
	/* Columns are aligned: each value ends where its heading does. */
	head = line_of(r.out, "OPERATION");
	cr_assert_not_null(head);
	cr_expect_eq(strstr(head, "FUSE-FS MEAN") + strlen("FUSE-FS MEAN") - head,
		     strstr(read, "+15us") + strlen("+15us") - read, "%s\n%s", head, read);
	/* Most fuse time first: read (20 ms), lookup (1.8 ms), getattr. */
	cr_expect_lt(strstr(r.out, "\nread "), strstr(r.out, "\nlookup "));
	cr_expect_lt(strstr(r.out, "\nlookup "), strstr(r.out, "\ngetattr "));
}

Test(layers, counts_that_differ_are_flagged_with_their_size)
{
	char *html = tpath("l.html"), *page;
	struct run r = REPORT("show", "--layered", mount("m", "fuse", 20000));

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(words(line_of(r.out, "lookup")),
			 "lookup|203|200|9us|4us|+5us|9us|4us|+5us|9us|4us|counts|differ:|fuse|+3|(+1.5%)");
	cr_expect_not_null(strstr(r.out, "counts differ for 1 of 3 operations (information, not an error"),
			   "%s", r.out);
	/* Matching rows say nothing and end at their last number. */
	cr_expect_eq(line_of(r.out, "read")[strlen(line_of(r.out, "read")) - 1], 's');
	r = REPORT("html", tpath("m"), "-o", html);
	cr_assert_eq(r.status, 0, "%s", r.err);
	page = own(slurp(html));
	cr_expect_not_null(strstr(page, "<h2 id=\"layered\">Layered view</h2>"));
	cr_expect_not_null(strstr(page, "<tr class=\"diff\"><td class=\"l\">lookup</td><td>203</td><td>200</td>"),
			   "%s", page);
	cr_expect_not_null(strstr(page, "<tr><td class=\"l\">read</td><td>1000</td><td>1000</td><td>20us</td><td>5us</td><td>+15us</td>"));
	cr_expect_not_null(strstr(page, "counts differ: fuse +3 (+1.5%)"));
}

Test(layers, other_layers_list_their_top_entries_and_source)
{
	struct run r = REPORT("show", "--layered", mount("m", "all", 20000));

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* 1000 x 25 us + 100 x 30 us + 300 x 4 us. */
	cr_expect_str_eq(line_starting(r.out, "syscall "),
			 "syscall (ebpf): 3 calls by total time; 1400 requests, 29.2ms in all", "%s", r.out);
	/* By total time: pread64 25 ms, openat 3 ms, newfstatat 1.2 ms. */
	cr_expect_lt(strstr(r.out, "\npread64 "), strstr(r.out, "\nopenat "));
	cr_expect_str_eq(words(line_of(strstr(r.out, "\nsyscall"), "openat")),
			 "openat|100|3ms|30us|30us|30us|30us|10.3%");
	cr_expect_str_eq(line_starting(r.out, "lower "),
			 "lower (ebpf): 1 call by total time; 1000 requests, 4ms in all", "%s", r.out);
	cr_expect_str_eq(words(line_of(strstr(r.out, "\nlower "), "pread64")),
			 "pread64|1000|4ms|4us|4us|4us|4us|100.0%");
	/* 10 x 200 us + 10 x 5 us. */
	cr_expect_str_eq(line_starting(r.out, "block "),
			 "block (ebpf): 2 devices and directions by total time; 20 requests, 2.05ms in all",
			 "%s", r.out);
	cr_expect_str_eq(words(line_of(r.out, "vda.read")), "vda.read|10|2ms|200us|200us|200us|200us|97.6%");
	cr_expect_str_eq(words(line_of(r.out, "vda.read.queue")), "vda.read.queue|10|50us|5us|5us|5us|5us|2.4%");
	cr_expect_str_eq(line_starting(r.out, "irq "),
			 "irq (osprof.ko): 2 handlers by total time; 20 requests, 50us in all", "%s", r.out);
	cr_expect_str_eq(words(line_of(r.out, "24:virtio0-requests")),
			 "24:virtio0-requests|10|30us|3us|3us|3us|3us|60.0%");
	cr_expect_str_eq(words(line_of(r.out, "softirq:BLOCK")), "softirq:BLOCK|10|20us|2us|2us|2us|2us|40.0%");
	r = REPORT("show", "--layered", "--top", "1", tpath("m"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(line_starting(r.out, "syscall "),
			 "syscall (ebpf): the top 1 of 3 calls by total time; 1400 requests, 29.2ms in all",
			 "%s", r.out);
	cr_expect_null(line_of(r.out, "openat"));
	cr_expect_null(line_of(r.out, "lookup"));
	cr_expect_str_eq(line_starting(r.out, "(2 more"), "(2 more operations with less time)", "%s", r.out);
}

Test(layers, a_mount_brings_every_layer_file_and_lists_make_one_set)
{
	char *fs = tpath("m/.osprof/stats.json"), *fuse = tpath("m/.osprof/fuse.json"), *list;
	struct run r = REPORT("show", "--all", mount("m", "all", 20000));

	cr_assert_eq(r.status, 0, "%s", r.err);
	for (const char *const *l = (const char *const[]){ "fs", "fuse", "syscall", "lower", "block", "irq", NULL }; *l; l++) {
		char want[64];

		snprintf(want, sizeof(want), "(layer %s) <==", *l);
		cr_expect_not_null(strstr(r.out, want), "%s missing", *l);
	}
	cr_expect_not_null(strstr(r.out, "\n==> layered view ("), "after the layers");
	cr_assert(asprintf(&list, "%s,%s", fuse, fs) > 0);
	r = REPORT("show", "--layered", own(list));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(r.out, "==> layered view (fuse, fs) <=="), "%s", r.out);
	/* Several files, one per layer, are one run too. */
	r = REPORT("show", "--layered", fs, fuse);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_eq(words(line_of(r.out, "read")), "read|1000|1000|20us|5us|+15us|20us|5us|+15us|20us|5us");
	/* A part that is not there is named. */
	cr_assert(asprintf(&list, "%s,%s", fs, tpath("nope.json")) > 0);
	r = REPORT("show", own(list));
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "nope.json: No such file or directory"), "%s", r.err);
	cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	r = REPORT("show", own(strdup(",")));
	cr_expect_eq(r.status, 2);
}

/* @o's member @key, which must be there. */
static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

/* The pair row named @name of @ops. */
static struct json_object *pair_op(struct json_object *ops, const char *name)
{
	for (size_t i = 0; i < json_object_array_length(ops); i++) {
		struct json_object *o = json_object_array_get_idx(ops, i);

		if (strcmp(json_object_get_string(get(o, "name")), name) == 0)
			return o;
	}
	cr_assert_fail("no row %s", name);
	return NULL;
}

Test(layers, show_json_has_the_layered_view_as_numbers)
{
	struct run r = REPORT("show", "--format", "json", mount("m", "all", 20000));
	struct json_object *doc, *lay, *layers, *pair, *ops, *read, *lookup;
	static const char *const order[] = { "fuse", "fs", "syscall", "lower", "block", "irq" };

	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc, "%s", r.out);
	cr_expect_eq(json_object_array_length(get(doc, "profiles")), 6);
	lay = get(doc, "layered");
	layers = get(lay, "layers");
	cr_assert_eq(json_object_array_length(layers), 6);
	for (size_t i = 0; i < 6; i++)
		cr_expect_str_eq(json_object_get_string(get(json_object_array_get_idx(layers, i), "layer")),
				 order[i]);
	cr_expect_str_eq(json_object_get_string(get(json_object_array_get_idx(layers, 0), "source")),
			 "ebpf");
	pair = get(lay, "pair");
	cr_expect_str_eq(json_object_get_string(get(pair, "upper")), "fuse");
	cr_expect_eq(json_object_get_int(get(pair, "operations")), 3);
	ops = get(pair, "ops");
	/* Most fuse time first, as the text. */
	cr_expect_str_eq(json_object_get_string(get(json_object_array_get_idx(ops, 0), "name")), "read");
	read = pair_op(ops, "read");
	cr_expect_eq(json_object_get_int64(get(get(read, "fuse"), "count")), 1000);
	cr_expect_eq(json_object_get_int64(get(get(read, "fs"), "sum_ns")), 5000000);
	cr_expect_float_eq(json_object_get_double(get(read, "delta_mean_ns")), 15000.0, 1e-6);
	cr_expect_not(json_object_get_boolean(get(read, "counts_differ")));
	lookup = pair_op(ops, "lookup");
	cr_expect_eq(json_object_get_int64(get(get(lookup, "fuse"), "count")), 203);
	cr_expect_eq(json_object_get_int64(get(get(lookup, "fs"), "count")), 200);
	cr_expect(json_object_get_boolean(get(lookup, "counts_differ")));
	json_object_put(doc);
	/* --top cuts the rows, not the count. */
	r = REPORT("show", "--format", "json", "--top", "1", tpath("m"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc);
	pair = get(get(doc, "layered"), "pair");
	cr_expect_eq(json_object_array_length(get(pair, "ops")), 1);
	cr_expect_eq(json_object_get_int(get(pair, "operations")), 3);
	json_object_put(doc);
}

Test(layers, only_fs_has_no_layered_view_and_no_error)
{
	struct run r = REPORT("show", mount("m", "fs", 0));

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.err);
	cr_expect_null(strstr(r.out, "layered view"));
	cr_expect_not_null(strstr(r.out, "osprof fs profile"));
	r = REPORT("html", tpath("m"), "-o", tpath("fs.html"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(own(slurp(tpath("fs.html"))), "Layered view"));
	/* Asked for, its absence is one line and status 2. */
	r = REPORT("show", "--layered", tpath("m"));
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "no layered view: it needs two layers"), "%s", r.err);
	r = REPORT("show", "--layered", "--format", "json", tpath("m"));
	cr_expect_eq(r.status, 2);
	cr_expect_str_empty(r.out);
	cr_expect_not_null(strstr(r.err, "no layered view: it needs two layers"), "%s", r.err);
	/* Without --layered one layer's JSON has no layered key. */
	r = REPORT("show", "--format", "json", tpath("m"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.out, "\"layered\""));
	/* Two runs' fs are not layers of one run. */
	r = REPORT("show", "--layered", tpath("m/.osprof/stats.json"), tpath("m/.osprof/stats.json"));
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "layer fs is given twice"), "%s", r.err);
}

Test(layers, hostile_names_are_escaped_in_html_and_safe_in_text)
{
	static const char evil[] = "x\"y'<b>&amp;\nz%s%n\x1b[2J";
	/* Core's text spelling, and the HTML one on top of it. */
	static const char text[] = "x\"y'<b>&amp;\\nz%s%n\\x1b[2J";
	static const char html_text[] = "x&quot;y&#39;&lt;b&gt;&amp;amp;\\nz%s%n\\x1b[2J";
	char *dir = tpath("h"), *html = tpath("h.html"), *page, *list;
	const char *after;
	struct osp_profile *p;
	struct run r;

	cr_assert_eq(mkdir(dir, 0755), 0);
	p = prof("fs", NULL);
	op(p, evil, 10, 1000);
	save(p, tpath("h/fs.json"));
	p = prof("fuse", "<script>\"ebpf\"");
	op(p, evil, 12, 4000);
	save(p, tpath("h/fuse.json"));
	cr_assert(asprintf(&list, "%s,%s", tpath("h/fs.json"), tpath("h/fuse.json")) > 0);
	r = REPORT("show", "--layered", own(list));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.out, "\x1b"), "no escape sequence reaches the terminal");
	cr_expect_null(strstr(r.out, "\nz%s"), "the name does not break its line");
	/* The row: the name in core's text spelling, then the numbers. */
	after = strstr(r.out, text);
	cr_assert_not_null(after, "%s", r.out);
	after += strlen(text);
	cr_expect_str_eq(words(own(strndup(after, strcspn(after, "\n")))),
			 "12|10|4us|1us|+3us|4us|1us|+3us|4us|1us|counts|differ:|fuse|+2|(+20%)");
	cr_expect_not_null(strstr(r.out, "fuse (<script>\"ebpf\") against fs"), "%s", r.out);
	r = REPORT("html", tpath("h"), "-o", html);
	cr_assert_eq(r.status, 0, "%s", r.err);
	page = own(slurp(html));
	cr_expect_null(strstr(page, "<b>"));
	cr_expect_null(strstr(page, "<script"));
	cr_expect_not_null(strstr(page, html_text), "%s", page);
	cr_expect_not_null(strstr(page, "fuse (&lt;script&gt;&quot;ebpf&quot;) against fs"), "%s", page);
}

/*
 * plot draws every request of each layer a panel each, never overlaid,
 * and per FUSE operation its levels top down (the application's pread64,
 * fuse, fs, the daemon's pread64, the disk): panels named by layer,
 * count and mean, each of one distribution.
 */
Test(layers, plot_draws_each_layer_in_a_panel_of_its_own, .timeout = 60)
{
	struct run r = REPORT("plot", "--format", "svg", mount("m", "all", 20000), "-o", tpath("ch"));
	char *gp;

	cr_assert_eq(r.status, 0, "%s", r.err);
	gp = own(slurp(tpath("ch/layers.gp")));
	cr_assert_not_null(gp, "%s", r.out);
	cr_expect_not_null(strstr(gp, "set multiplot layout 6,1"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'fuse: 1253 requests, 22ms in all, mean 17.5us'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'irq: 20 requests, 50us in all, mean 2.5us'"), "%s", gp);
	/* One curve a plot command: six panels, six plots of one data set. */
	cr_expect_eq(count_of(gp, "\nplot $p"), 6);
	cr_expect_null(strstr(gp, ", \\\n"), "a plot of two curves: %s", gp);
	gp = own(slurp(tpath("ch/where-read.gp")));
	cr_assert_not_null(gp, "%s", r.out);
	cr_expect_not_null(strstr(gp, "set multiplot layout 5,1"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'syscall: 1000 calls, mean 25us (pread64)'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'fuse: 1000 requests, mean 20us'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'fs: 1000 requests, mean 5us'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'lower: 1000 requests, mean 4us (pread64)'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "set title 'block: 10 disk requests, mean 200us (vda.read)'"), "%s", gp);
	cr_expect_eq(count_of(gp, "\nplot $p"), 5);
	/* No chart joins layers by a name they happen to share. */
	cr_expect(!exists(tpath("ch/layers-read.gp")));
	cr_expect(!exists(tpath("ch/layers-pread64.gp")));
	cr_expect(!exists(tpath("ch/where-pread64.gp")));
}

Test(layers, compare_reports_only_the_changed_layer_and_operation)
{
	char *a = mount("a", "all", 20000), *list;
	struct run r;

	/* B: the same run but fuse's read four times slower, as a list. */
	run_dir(tpath("b"), "all", 80000);
	cr_assert(asprintf(&list, "%s,%s,%s,%s,%s,%s", tpath("b/stats.json"), tpath("b/fuse.json"),
			   tpath("b/syscall.json"), tpath("b/lower.json"), tpath("b/block.json"),
			   tpath("b/irq.json")) > 0);
	r = REPORT("compare", a, own(list));
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect_not_null(strstr(r.out, "\n== layer fuse (A: ebpf, B: ebpf) ==\n1 of 3 operations differ:\n"),
			   "%s", r.out);
	/* 1000 reads each side, of 20 us and 80 us. */
	cr_expect_str_eq(line_starting(r.out, "    1 "),
			 "    1 fuse     read               different        1000       1000      20ms      80ms",
			 "%s", r.out);
	cr_expect_not_null(strstr(r.out, "moved to 80us (+2.0 octaves)"), "%s", r.out);
	for (const char *const *l = (const char *const[]){ "fs (A: osprof-fs, B: osprof-fs)", "syscall (A: ebpf, B: ebpf)",
							    "lower (A: ebpf, B: ebpf)", "block (A: ebpf, B: ebpf)",
							    "irq (A: osprof.ko, B: osprof.ko)", NULL }; *l; l++) {
		char want[128];

		snprintf(want, sizeof(want), "\n== layer %s ==\nno operation differs (", *l);
		cr_expect_not_null(strstr(r.out, want), "%s in: %s", *l, r.out);
	}
	cr_expect_null(strstr(r.out, "    1 fs "), "%s", r.out);
	cr_expect_null(strstr(r.out, "    2 "), "only one operation ranked: %s", r.out);
	cr_expect_not_null(strstr(r.out, "\nlayers that differ: fuse (1 of 3 operations)\n"), "%s", r.out);
	/* The same sets: nothing differs anywhere. */
	r = REPORT("compare", a, tpath("a"));
	cr_expect_eq(r.status, 0, "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\nno layer differs\n"), "%s", r.out);
	/* A layer one set lacks is said, not compared, and changes no status. */
	r = REPORT("compare", a, tpath("a/.osprof/stats.json"));
	cr_expect_eq(r.status, 0, "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\n== layer fuse: only in A, not compared ==\n"), "%s", r.out);
	/* One layer given: today's output, no sections. */
	r = REPORT("compare", "--layer", "fuse", a, tpath("b"));
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect_null(strstr(r.out, "== layer"), "%s", r.out);
	cr_expect_str_eq(line_starting(r.out, "    1 "),
			 "    1 fuse     read               different        1000       1000      20ms      80ms",
			 "%s", r.out);
}
