// SPDX-License-Identifier: MIT
/*
 * "Where the time goes" (osprof-report show, show --format json, html,
 * plot) on hand-made runs: each layer's profile recorded here through
 * core's histograms with every request of an operation taking the same
 * time, written by core's JSON writer into a run directory. So every
 * mean, total, share and count the view prints is known exactly, and so
 * is each verdict: a subtraction where both layers counted the same
 * requests (within 1%), and a plain "no subtraction" with its reason
 * elsewhere -- counts apart, calls another operation shares, a request no
 * call waits for, the disk, and kernel passthrough (fs's options carrying
 * "passthrough" and "transport"). The HTML report is also rendered in
 * headless Chromium (skipped, saying so, without it): a screenshot that
 * is not blank, every link of its contents resolving, nothing wider than
 * the page.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "osprof/format.h"
#include "browser.h"
#include "cli.h"

TestSuite(where, .init = cli_setup, .fini = cli_teardown);

/* One operation of a layer: @n requests of @lat_ns each. */
struct req {
	const char *name;
	uint64_t n, lat_ns;
};

/*
 * Write layer @layer of a run into @dir/@layer.json: its operations
 * @reqs (ended by a NULL name), taken by @source, with options @opts
 * (key, JSON value, ..., NULL; NULL for none).
 */
static void layer_opts(const char *dir, const char *layer, const char *source,
		       const struct req *reqs, const char *const *opts)
{
	struct osp_profile *p = osp_profile_new(layer, 1);
	char *path;
	FILE *f;

	cr_assert(asprintf(&path, "%s/%s.json", dir, strcmp(layer, "fs") == 0 ? "stats" : layer) > 0);
	own(path);
	cr_assert_not_null(p);
	if (source)
		cr_assert_eq(osp_kv_set_str(&p->source, "layer_source", source), 0);
	for (size_t i = 0; opts && opts[i]; i += 2)
		cr_assert_eq(osp_kv_set_json(&p->options, opts[i], opts[i + 1]), 0);
	p->elapsed_ns = 1000000000ull;
	for (const struct req *r = reqs; r->name; r++) {
		struct osp_op *o = osp_profile_add_op(p, r->name, false);

		cr_assert_not_null(o);
		for (uint64_t i = 0; i < r->n; i++)
			cr_assert_eq(osp_hist_record(&o->lat, r->lat_ns), 0);
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(osp_write_json(f, p), 0);
	cr_assert_eq(fclose(f), 0);
	osp_profile_free(p);
}

#define OPTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* layer_opts with fs's options @passthrough ("true", "false" or NULL for
 * none) and @transport (or NULL). */
static void layer(const char *dir, const char *layer, const char *source,
		  const struct req *reqs, const char *passthrough, const char *transport)
{
	char *tr = NULL;

	if (transport)
		cr_assert(asprintf(&tr, "\"%s\"", transport) > 0);
	own(tr);
	layer_opts(dir, layer, source, reqs,
		   passthrough ? OPTS("passthrough", passthrough, tr ? "transport" : NULL, tr)
			       : OPTS(tr ? "transport" : NULL, tr));
}

#define REQS(...) ((const struct req[]){ __VA_ARGS__, { NULL, 0, 0 } })

/*
 * A run of every layer: the application reads 1000 times, 200 by read
 * and 800 by pread64, 25 us each; FUSE's read takes 20 us, the daemon's
 * 5 us, its pread64 on the lower file 4 us; the disk served 10 reads of
 * 200 us after 5 us in the queue. Lookups: fuse saw @fuse_lookups, fs
 * 200. Files opened 100 times (opens of 6 us at fuse, 2 at fs, 1 of
 * open_by_handle_at below), closed 120 times (the closes of directories
 * too: 100 flushes); 100 releases the kernel sent after the closes.
 */
static char *full_run(const char *name, uint64_t fuse_lookups)
{
	char *dir = tpath("%s", name);

	cr_assert_eq(mkdir(dir, 0755), 0);
	layer(dir, "syscall", "ebpf",
	      REQS({ "read", 200, 25000 }, { "pread64", 800, 25000 }, { "openat", 100, 10000 },
		   { "close", 120, 3000 }, { "wait4", 2, 1000000000 }), NULL, NULL);
	layer(dir, "fuse", "ebpf",
	      REQS({ "read", 1000, 20000 }, { "lookup", fuse_lookups, 9000 }, { "open", 100, 6000 },
		   { "flush", 100, 2500 }, { "release", 100, 3000 }), NULL, NULL);
	layer(dir, "fs", NULL,
	      REQS({ "read", 1000, 5000 }, { "lookup", 200, 4000 }, { "open", 100, 2000 },
		   { "flush", 100, 1000 }, { "release", 100, 800 }, { "forget", 30, 700 }),
	      "false", "dev");
	layer(dir, "lower", "osprof-fs",
	      REQS({ "pread64", 1000, 4000 }, { "newfstatat", 300, 1500 },
		   { "open_by_handle_at", 100, 1000 }, { "dup", 100, 300 }, { "close", 100, 200 }),
	      NULL, NULL);
	layer(dir, "block", "ebpf",
	      REQS({ "vda.read", 10, 200000 }, { "vda.read.queue", 10, 5000 },
		   { "vda.write", 4, 100000 }), NULL, NULL);
	return dir;
}

/* The table of @op in show's text: from its title line to the blank line. */
static char *op_table(const char *out, const char *op)
{
	char head[64];
	const char *s, *e;

	snprintf(head, sizeof(head), "\n%s: ", op);
	s = strstr(out, head);
	cr_assert_not_null(s, "no table of %s in:\n%s", op, out);
	s++;
	e = strstr(s, "\n\n");
	return own(strndup(s, e ? (size_t)(e - s + 1) : strlen(s)));
}

/* The line of @text that starts with @start, blanks squeezed to one, or NULL. */
static char *row(const char *text, const char *start)
{
	size_t n = strlen(start);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		char *out, *o;

		if (strncmp(l, start, n) != 0)
			continue;
		out = own(strndup(l, e ? (size_t)(e - l) : strlen(l)));
		/* Columns are aligned with blanks: one blank between words. */
		o = out;
		for (const char *c = out; *c; c++)
			if (*c != ' ' || (o > out && o[-1] != ' '))
				*o++ = *c;
		while (o > out && o[-1] == ' ')
			o--;
		*o = '\0';
		return out;
	}
	return NULL;
}

Test(where, every_step_of_a_read_is_exact)
{
	struct run r = REPORT("show", "--where", full_run("run", 200));
	char *t;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_str_empty(r.err);
	cr_expect_eq(strncmp(r.out, "==> where the time goes (syscall, fuse, fs, lower, block) <==\n", 62), 0,
		     "%s", r.out);
	t = op_table(r.out, "read");
	cr_expect_str_eq(row(t, "read:"), "read: 25ms in 1000 application calls");
	cr_expect_str_eq(row(t, "application's calls"), "application's calls syscall 1000 25us 25ms 100%");
	cr_expect_str_eq(row(t, "  kernel outside FUSE"), "kernel outside FUSE syscall - fuse 1000 / 1000 5us 5ms 20%");
	cr_expect_str_eq(row(t, "  FUSE transport and queueing"),
			 "FUSE transport and queueing fuse - fs 1000 / 1000 15us 15ms 60%");
	cr_expect_str_eq(row(t, "  daemon's own work"), "daemon's own work fs - lower 1000 / 1000 1us 1ms 4.0%");
	cr_expect_str_eq(row(t, "lower file system"), "lower file system lower 1000 4us 4ms 16%");
	/* The disk is no subtraction: 10 reads against 1000 lower calls. */
	cr_expect_str_eq(row(t, "  lower fs, less the disk"),
			 "lower fs, less the disk lower - block 1000 / 10 - - - no subtraction (1)");
	cr_expect_str_eq(row(t, "disk"), "disk block 10 205us 2.05ms -");
	cr_expect_str_eq(row(t, "(1)"),
			 "(1) lower fs, less the disk: lower counted 1000, block 10 (99% apart, past the 1% tolerance): page-cache hits never reach the disk; readahead, writeback and other processes' requests do");
	cr_expect_str_eq(row(t, "counted:"),
			 "counted: syscall read 200, pread64 800; lower pread64 1000; block vda.read 10, vda.read.queue 10");
	/* The summary: shares of the application's calls, lower with the disk in it. */
	cr_expect_str_eq(row(r.out, "read "), "read 25ms 1000 syscall 25us 20% 60% 4.0% (16%) -");
	/* Nothing but the view. */
	cr_expect_null(strstr(r.out, "==> layered view"));
	cr_expect_null(strstr(r.out, "OPERATION             COUNT"));
}

Test(where, counts_apart_by_more_than_one_percent_do_not_subtract)
{
	struct run r = REPORT("show", "--where", full_run("run", 203));
	char *t;

	cr_assert_eq(r.status, 0, "%s", r.err);
	/* fuse 203 against fs 200: 1.48% of 203, past 1%. */
	t = op_table(r.out, "lookup");
	cr_expect_str_eq(row(t, "lookup:"), "lookup: 1.83ms in 203 FUSE requests");
	cr_expect_str_eq(row(t, "  FUSE transport and queueing"),
			 "FUSE transport and queueing fuse - fs 203 / 200 - - - no subtraction (1)");
	cr_expect_str_eq(row(t, "(1)"),
			 "(1) FUSE transport and queueing: fuse counted 203, fs 200 (1.48% apart, past the 1% tolerance): requests the daemon did not time (its control directory), or layers reset at different times");
	/* A lookup has no one call: the syscall layer is not stacked on it. */
	cr_expect_not_null(strstr(t, "\nsyscall: not stacked: it is one step of the path walk of any call that names a path"),
			   "%s", t);
	/* fs and below: its lower newfstatat 300 for 200 lookups; fs is the
	 * base of no step, so of no share. */
	cr_expect_str_eq(row(t, "daemon (osprof-fs)"), "daemon (osprof-fs) fs 200 4us 800us -");
	cr_expect_str_eq(row(t, "  daemon's own work"),
			 "daemon's own work fs - lower 200 / 300 - - - no subtraction (2)");
	cr_expect_str_eq(row(t, "lower file system"), "lower file system lower 300 1.5us 450us -");
	/* 202 against 200 is 0.99% apart: within 1%. The mean per request
	 * subtracts means (9 - 4 us), the total totals (1.818 - 0.8 ms). */
	r = REPORT("show", "--where", "--op", "lookup", full_run("run2", 202));
	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "lookup");
	cr_expect_str_eq(row(t, "  FUSE transport and queueing"),
			 "FUSE transport and queueing fuse - fs 202 / 200 5us 1.02ms 56%");
}

Test(where, releases_no_call_waits_for_and_forgets_no_call_makes)
{
	struct run r = REPORT("show", "--where", full_run("run", 200));
	char *t;

	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "release");
	cr_expect_str_eq(row(t, "application's calls"), "application's calls syscall 120 3us 360us -");
	cr_expect_str_eq(row(t, "  kernel outside FUSE"),
			 "kernel outside FUSE syscall - fuse 120 / 100 - - - no subtraction (1)");
	cr_expect_str_eq(row(t, "(1)"),
			 "(1) kernel outside FUSE: no application call waits for it: the kernel sends it once the file's last reference is gone, after close has returned");
	cr_expect_str_eq(row(t, "FUSE requests"), "FUSE requests fuse 100 3us 300us 100%");
	cr_expect_str_eq(row(t, "  FUSE transport and queueing"),
			 "FUSE transport and queueing fuse - fs 100 / 100 2.2us 220us 73%");
	cr_expect_str_eq(row(t, "daemon (osprof-fs)"), "daemon (osprof-fs) fs 100 800ns 80us 27%");
	cr_expect_not_null(strstr(t, "\nlower: the daemon makes no call on the lower file system for it\n"), "%s", t);
	/* The close that waits for FLUSH: 120 closes for 100 flushes. */
	t = op_table(r.out, "flush");
	cr_expect_not_null(strstr(t, "syscall counted 120, fuse 100 (16.7% apart, past the 1% tolerance): a close of a directory"),
			   "%s", t);
	/* Its lower calls: dup once per flush, close besides, counted by dup. */
	cr_expect_str_eq(row(t, "  daemon's own work"), "daemon's own work fs - lower 100 / 100 500ns 50us 20%");
	cr_expect_str_eq(row(t, "lower file system"), "lower file system lower 100 500ns 50us 20%");
	t = op_table(r.out, "forget");
	cr_expect_str_eq(row(t, "daemon (osprof-fs)"), "daemon (osprof-fs) fs 30 700ns 21us -");
	cr_expect_not_null(strstr(t, "\nsyscall: no application call makes it: the kernel forgets inodes"), "%s", t);
	cr_expect_str_eq(row(r.out, "forget "), "forget 21us 30 fs 700ns - - - - -");
}

Test(where, calls_another_operation_shares_do_not_subtract)
{
	char *dir = full_run("run", 200);
	struct run r;
	char *t;

	/* opendir, busy too, is made by openat as open is. */
	layer(dir, "fuse", "ebpf",
	      REQS({ "read", 1000, 20000 }, { "open", 100, 6000 }, { "opendir", 10, 7000 }), NULL, NULL);
	layer(dir, "fs", NULL,
	      REQS({ "read", 1000, 5000 }, { "open", 100, 2000 }, { "opendir", 10, 3000 }), "false", NULL);
	r = REPORT("show", "--where", "--op", "open", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "open");
	cr_expect_str_eq(row(t, "  kernel outside FUSE"),
			 "kernel outside FUSE syscall - fuse 100 / 100 - - - no subtraction (1)");
	cr_expect_str_eq(row(t, "(1)"),
			 "(1) kernel outside FUSE: its calls also make opendir (10 requests): the syscall layer counts calls, not FUSE requests");
	/* Below fs: open_by_handle_at reopens directories too. */
	cr_expect_str_eq(row(t, "  daemon's own work"),
			 "daemon's own work fs - lower 100 / 100 - - - no subtraction (2)");
	cr_expect_str_eq(row(t, "(2)"),
			 "(2) daemon's own work: its lower calls also serve opendir (10 requests): the lower layer is kept per call, not per FUSE operation");
	/* Without opendir the same counts subtract. */
	layer(dir, "fuse", "ebpf", REQS({ "read", 1000, 20000 }, { "open", 100, 6000 }), NULL, NULL);
	layer(dir, "fs", NULL, REQS({ "read", 1000, 5000 }, { "open", 100, 2000 }), "false", NULL);
	r = REPORT("show", "--where", "--op", "open", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "open");
	cr_expect_str_eq(row(t, "  kernel outside FUSE"), "kernel outside FUSE syscall - fuse 100 / 100 4us 400us 40%");
	cr_expect_str_eq(row(t, "  daemon's own work"), "daemon's own work fs - lower 100 / 100 1us 100us 10%");
	cr_expect_str_eq(row(r.out, "open "), "open 1ms 100 syscall 10us 40% 40% 10% 10% -");
}

Test(where, the_disk_subtracts_when_it_served_each_lower_call)
{
	char *dir = tpath("direct");
	struct run r;
	char *t;

	/* O_DIRECT below: each of 100 lower preads is one disk read. */
	cr_assert_eq(mkdir(dir, 0755), 0);
	layer(dir, "fs", NULL, REQS({ "read", 100, 400000 }), NULL, NULL);
	layer(dir, "lower", "osprof-fs", REQS({ "pread64", 100, 300000 }), NULL, NULL);
	layer(dir, "block", "ebpf",
	      REQS({ "vda.read", 100, 200000 }, { "vda.read.queue", 100, 50000 }), NULL, NULL);
	r = REPORT("show", "--where", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "read");
	cr_expect_str_eq(row(t, "daemon (osprof-fs)"), "daemon (osprof-fs) fs 100 400us 40ms 100%");
	cr_expect_str_eq(row(t, "  daemon's own work"), "daemon's own work fs - lower 100 / 100 100us 10ms 25%");
	cr_expect_str_eq(row(t, "  lower fs, less the disk"),
			 "lower fs, less the disk lower - block 100 / 100 50us 5ms 12%");
	cr_expect_str_eq(row(t, "disk"), "disk block 100 250us 25ms 62%");
	cr_expect_str_eq(row(r.out, "read "), "read 40ms 100 fs 400us - - 25% 12% 62%");
}

/*
 * Under passthrough the kernel reads the lower file itself: the calls
 * never reach fuse, fs or the daemon's lower layer, and the view says
 * they went straight from the application to the lower file system.
 */
Test(where, passthrough_goes_straight_to_the_lower_fs)
{
	char *dir = tpath("pt");
	struct run r;
	char *t;

	cr_assert_eq(mkdir(dir, 0755), 0);
	layer(dir, "syscall", "ebpf", REQS({ "pread64", 1000, 5000 }, { "openat", 10, 20000 }), NULL, NULL);
	layer(dir, "fuse", "ebpf", REQS({ "open", 10, 8000 }), NULL, NULL);
	layer(dir, "fs", NULL, REQS({ "open", 10, 3000 }, { "read", 0, 0 }), "true", "dev");
	layer(dir, "lower", "osprof-fs", REQS({ "open_by_handle_at", 10, 1000 }), NULL, NULL);
	r = REPORT("show", "--where", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "read");
	cr_expect_str_eq(row(t, "application's calls"), "application's calls syscall 1000 5us 5ms 100%");
	cr_expect_str_eq(row(t, "  passed through to the lower fs"),
			 "passed through to the lower fs syscall - fuse 1000 / 0 5us 5ms 100% passed through (1)");
	cr_expect_str_eq(row(t, "(1)"),
			 "(1) passed through to the lower fs: passed through (passthrough on, transport dev): the kernel made these calls on the lower file itself, with no FUSE request and no daemon; layers fuse, fs and lower never saw them");
	cr_expect_str_eq(row(r.out, "read "), "read 5ms 1000 syscall (passthrough) 5us 100% - - - -");
	/* 100 of them reached FUSE after all (a file opened with O_DIRECT). */
	layer(dir, "fuse", "ebpf", REQS({ "open", 10, 8000 }, { "read", 100, 20000 }), NULL, NULL);
	layer(dir, "fs", NULL, REQS({ "open", 10, 3000 }, { "read", 100, 5000 }), "true", "io_uring");
	layer(dir, "lower", "osprof-fs", REQS({ "open_by_handle_at", 10, 1000 }, { "pread64", 100, 4000 }),
	      NULL, NULL);
	r = REPORT("show", "--where", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	t = op_table(r.out, "read");
	cr_expect_str_eq(row(t, "  passed through to the lower fs"),
			 "passed through to the lower fs syscall - fuse 1000 / 100 - - - passed through (1)");
	cr_expect_not_null(strstr(t, "transport io_uring): the kernel made these calls"), "%s", t);
	cr_expect_not_null(strstr(t, "the requests FUSE saw are calls it did not pass through"), "%s", t);
	cr_expect_str_eq(row(t, "FUSE requests"), "FUSE requests fuse 100 20us 2ms 100%");
	cr_expect_str_eq(row(t, "  FUSE transport (io_uring) and queueing"),
			 "FUSE transport (io_uring) and queueing fuse - fs 100 / 100 15us 1.5ms 75%");
	/* Without passthrough those counts are apart, no more. */
	layer(dir, "fs", NULL, REQS({ "open", 10, 3000 }, { "read", 100, 5000 }), "false", "dev");
	r = REPORT("show", "--where", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_not_null(strstr(op_table(r.out, "read"), "syscall counted 1000, fuse 100 (90% apart"), "%s", r.out);
}

/*
 * show --where on run @dir, its fs layer passing through the operations
 * @passed names, timed at layer @at (JSON strings).
 */
static struct run passed_run(char *dir, const char *passed, const char *at)
{
	struct run r;

	layer_opts(dir, "fs", NULL, REQS({ "open", 10, 3000 }),
		   OPTS("passthrough", "true", "transport", "\"dev\"", "passed_through", passed,
			"passed_through_layer", at));
	r = REPORT("show", "--where", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	return r;
}

/*
 * Which operations pass through is the profile's to say (passed_through,
 * timed at passed_through_layer); the test above has neither, as
 * profiles written before osprof-fs said so, and gets read and write.
 */
Test(where, passthrough_takes_its_operations_from_the_profile)
{
	char *dir = tpath("ptopt");
	struct run r;

	cr_assert_eq(mkdir(dir, 0755), 0);
	layer(dir, "syscall", "ebpf", REQS({ "pread64", 1000, 5000 }, { "pwrite64", 300, 8000 },
					   { "openat", 10, 20000 }), NULL, NULL);
	layer(dir, "fuse", "ebpf", REQS({ "open", 10, 8000 }), NULL, NULL);
	layer(dir, "lower", "osprof-fs", REQS({ "open_by_handle_at", 10, 1000 }), NULL, NULL);
	r = passed_run(dir, "\"write\"", "\"syscall\"");
	cr_expect_str_eq(row(op_table(r.out, "write"), "  passed through to the lower fs"),
			 "passed through to the lower fs syscall - fuse 300 / 0 8us 2.4ms 100% passed through (1)");
	cr_expect_null(strstr(r.out, "\nread: "), "read is not passed through:\n%s", r.out);
	/* Timed at a layer the view does not stack: nothing to put them on. */
	r = passed_run(dir, "\"read,write\"", "\"vfs\"");
	cr_expect_null(strstr(r.out, "passthrough"), "%s", r.out);
	/* Both, as osprof-fs writes them. */
	r = passed_run(dir, "\"read,write\"", "\"syscall\"");
	cr_expect_str_eq(row(r.out, "read "), "read 5ms 1000 syscall (passthrough) 5us 100% - - - -");
	cr_expect_str_eq(row(r.out, "write "), "write 2.4ms 300 syscall (passthrough) 8us 100% - - - -");
}

/* The JSON carries the same rows as numbers, and says what subtracts. */
Test(where, json_rows_hold_the_numbers_and_verdicts)
{
	struct run r = REPORT("show", "--format", "json", full_run("run", 203));
	struct json_object *doc, *where, *ops, *op = NULL, *rows, *x;

	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc, "%s", r.out);
	cr_assert(json_object_object_get_ex(doc, "where", &where), "%s", r.out);
	cr_expect_eq(json_object_get_double(json_object_object_get(where, "tolerance")), 0.01);
	cr_expect_eq(json_object_get_boolean(json_object_object_get(where, "passthrough")), 0);
	cr_expect_str_eq(json_object_get_string(json_object_object_get(where, "transport")), "dev");
	ops = json_object_object_get(where, "ops");
	for (size_t i = 0; i < json_object_array_length(ops); i++)
		if (strcmp(json_object_get_string(json_object_object_get(json_object_array_get_idx(ops, i), "name")),
			   "read") == 0)
			op = json_object_array_get_idx(ops, i);
	cr_assert_not_null(op);
	/* read is first: the most time. */
	cr_expect_eq(op, json_object_array_get_idx(ops, 0));
	rows = json_object_object_get(op, "rows");
	cr_assert_eq(json_object_array_length(rows), 7);
	x = json_object_array_get_idx(rows, 2);
	cr_expect_str_eq(json_object_get_string(json_object_object_get(x, "what")), "FUSE transport and queueing");
	cr_expect_str_eq(json_object_get_string(json_object_object_get(x, "upper")), "fuse");
	cr_expect_str_eq(json_object_get_string(json_object_object_get(x, "lower")), "fs");
	cr_expect_eq(json_object_get_int64(json_object_object_get(x, "count_upper")), 1000);
	cr_expect_eq(json_object_get_int64(json_object_object_get(x, "count_lower")), 1000);
	cr_expect_str_eq(json_object_get_string(json_object_object_get(x, "verdict")), "ok");
	cr_expect(json_object_get_boolean(json_object_object_get(x, "subtracts")));
	cr_expect_eq(json_object_get_double(json_object_object_get(x, "mean_ns")), 15000.0);
	cr_expect_eq(json_object_get_double(json_object_object_get(x, "total_ns")), 15000000.0);
	cr_expect_eq(json_object_get_double(json_object_object_get(x, "share")), 0.6);
	cr_expect(json_object_get_type(json_object_object_get(x, "why")) == json_type_null);
	x = json_object_array_get_idx(rows, 5);
	cr_expect_str_eq(json_object_get_string(json_object_object_get(x, "verdict")), "disk");
	cr_expect(!json_object_get_boolean(json_object_object_get(x, "subtracts")));
	cr_expect(json_object_get_type(json_object_object_get(x, "mean_ns")) == json_type_null);
	cr_expect_not_null(strstr(json_object_get_string(json_object_object_get(x, "why")), "lower counted 1000, block 10"));
	x = json_object_object_get(json_object_object_get(op, "levels"), "syscall");
	cr_expect_eq(json_object_get_int64(json_object_object_get(x, "count")), 1000);
	cr_expect_eq(json_object_get_int64(json_object_object_get(x, "sum_ns")), 25000000);
	cr_expect_eq(json_object_array_length(json_object_object_get(x, "calls")), 2);
	x = json_object_array_get_idx(json_object_object_get(op, "disks"), 0);
	cr_expect_str_eq(json_object_get_string(json_object_object_get(x, "device")), "vda");
	cr_expect_eq(json_object_get_int64(json_object_object_get(x, "count")), 10);
	cr_expect_eq(json_object_get_int64(json_object_object_get(x, "queue_sum_ns")), 50000);
	json_object_put(doc);
}

/*
 * Several layers and no view chosen: the fs layer's view as .osprof/stats
 * shows it, then one where table in plain words whose figures name the
 * layer that timed them, then the flags for the rest; nothing else.
 */
Test(where, show_opens_with_the_fs_table_then_one_where_table)
{
	char *dir = full_run("run", 200);
	struct run r = REPORT("show", dir), fs = REPORT("show", tpath("run/stats.json"));
	const char *where, *hint;
	char *t;

	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_assert_eq(fs.status, 0, "%s", fs.err);
	cr_expect_eq(strncmp(r.out, "==> ", 4), 0, "%s", r.out);
	cr_expect(strstr(r.out, " (layer fs) <==\n") < strchr(r.out, '\n') + 1, "%s", r.out);
	/* The fs view whole, as show of that layer alone prints it. */
	cr_expect_eq(strncmp(strchr(r.out, '\n') + 1, fs.out, strlen(fs.out)), 0, "%s", r.out);
	where = strstr(r.out, "\n==> where the time goes (syscall, fuse, fs, lower, block) <==\n");
	cr_assert_not_null(where, "%s", r.out);
	cr_expect_str_eq(row(where, "OPERATION"),
			 "OPERATION TOTAL COUNT TIMED BY MEAN KERNEL FUSE DAEMON LOWER DISK");
	t = row(where, "read ");
	cr_expect_str_eq(t, "read 25ms 1000 syscall 25us 20% 60% 4.0% (16%) -", "%s", where);
	cr_expect_null(strstr(r.out, " OF "), "%s", r.out);
	cr_expect_null(strstr(r.out, "longest run"), "%s", r.out);
	hint = strstr(r.out, "\nmore: --where (each operation step by step, and why a step does not "
		      "subtract), --layered (the layers side by side), --all (both, and every "
		      "layer's view)\n");
	cr_expect_not_null(hint, "%s", r.out);
	cr_expect(hint && hint[strlen(hint) - 1] == '\n' && !strchr(hint + 1, '\n')[1], "ends there");
	cr_expect_null(strstr(r.out, "(layer fuse) <=="), "no other layer's view");
	cr_expect_null(strstr(r.out, "==> layered view"), "no layered view");
}

Test(where, show_all_puts_it_first_and_says_when_there_is_none)
{
	char *dir = full_run("run", 200);
	struct run r = REPORT("show", "--all", dir);
	const char *where, *fs, *layered;

	cr_assert_eq(r.status, 0, "%s", r.err);
	where = strstr(r.out, "==> where the time goes");
	fs = strstr(r.out, "(layer fs) <==");
	layered = strstr(r.out, "==> layered view");
	cr_assert(where && fs && layered, "%s", r.out);
	cr_expect_eq(where, r.out, "where the time goes comes first");
	cr_expect(where < fs && fs < layered);
	/* --layered alone: no where. */
	r = REPORT("show", "--layered", dir);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.out, "where the time goes"));
	/* One layer: nothing to stack; --where says so in one line. */
	r = REPORT("show", "--where", tpath("run/stats.json"));
	cr_expect_eq(r.status, 2);
	cr_expect_str_eq(r.err, "osprof-report: no \"where the time goes\": it needs two layers of one run or more\n");
	r = REPORT("show", "--where", "--layer", "block", dir);
	cr_expect_eq(r.status, 2);
	r = REPORT("show", tpath("run/stats.json"));
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(r.out, "where the time goes"));
	/* syscall and block alone hold no FUSE operation. */
	r = REPORT("show", "--where", tpath("run/syscall.json"), tpath("run/block.json"));
	cr_expect_eq(r.status, 2);
	cr_expect_not_null(strstr(r.err, "it needs layer fs or fuse"), "%s", r.err);
}

/* The HTML report opens with it: contents, chart, summary, a section an operation. */
Test(where, html_opens_with_where_the_time_goes, .timeout = 60)
{
	char *html = tpath("r.html"), *page, *list, *run = full_run("run", 200);
	const char *toc, *where, *layered, *first_layer;
	struct run r;

	/* The run as a list of its files, as scripts/run.sh hands them over. */
	cr_assert(asprintf(&list, "%s/stats.json,%s/fuse.json,%s/syscall.json,%s/lower.json,%s/block.json",
			   run, run, run, run, run) > 0);
	r = REPORT("html", own(list), "-o", html);

	cr_assert_eq(r.status, 0, "%s", r.err);
	page = own(slurp(html));
	toc = strstr(page, "<h2 id=\"contents\">Contents</h2>");
	where = strstr(page, "<h2 id=\"where\">Where the time goes</h2>");
	layered = strstr(page, "<h2 id=\"layered\">Layered view</h2>");
	first_layer = strstr(page, "<h2 id=\"p0-");
	cr_assert(toc && where && layered && first_layer, "%s", page);
	cr_expect(toc < where && where < layered && layered < first_layer);
	/* The title is the run's name, the directory its files share; each
	 * path is an item of the details line. */
	cr_expect_not_null(strstr(page, "<title>osprof report: run</title>"), "%s", page);
	cr_expect_not_null(strstr(page, "<h1>osprof report: run</h1>"));
	cr_expect_not_null(strstr(page, "<details class=\"meta\"><summary>inputs</summary><ul>\n<li>"));
	cr_expect_not_null(strstr(page, own(strdup(tpath("run/syscall.json</li>\n<li>")))), "%s", page);
	cr_expect_not_null(strstr(page, "<p class=\"meta\">5 layers: fuse, fs, syscall, lower, block &middot;"),
			   "%s", page);
	cr_expect_not_null(strstr(page, "<li><a href=\"#where-0\">read</a></li>"));
	cr_expect_not_null(strstr(page, "<section id=\"where-0\">\n<h3>read: 25ms in 1000 application calls</h3>"));
	cr_expect_not_null(strstr(page, "<tr><td class=\"l\">read</td><td>25ms</td><td>1000</td><td class=\"l\">syscall</td><td>25us</td><td>20%</td><td>60%</td><td>4.0%</td><td>(16%)</td><td>-</td></tr>"),
			   "%s", page);
	cr_expect_not_null(strstr(page, "<tr class=\"diff\"><td class=\"l\">  lower fs, less the disk</td>"));
	/* Its charts: the bars and a panel per layer of read. */
	cr_expect_not_null(strstr(page, "<figcaption>where the time goes: each operation&#39;s time, by layer</figcaption>"));
	cr_expect_not_null(strstr(page, "<figcaption>read: each layer&#39;s latency, top down</figcaption>"));
	/* No chart of the page draws two distributions on one axis. */
	cr_expect_null(strstr(page, "every request of each layer</figcaption>"));
	cr_expect_not_null(strstr(page, "every request of each layer, a panel a layer</figcaption>"));
}

/* plot draws the bars: a row an operation, its segments by layer. */
Test(where, plot_draws_the_bars_of_shares, .timeout = 60)
{
	struct run r = REPORT("plot", "--format", "svg", full_run("run", 200), "-o", tpath("ch"));
	char *gp;

	cr_assert_eq(r.status, 0, "%s", r.err);
	gp = own(slurp(tpath("ch/where.gp")));
	cr_assert_not_null(gp, "%s", r.out);
	/* read, the top row: 20% kernel, 60% FUSE, 4% daemon, then lower (16%), lighter. */
	cr_expect_not_null(strstr(gp, "$s0 << EOD\n0.0000 20.0000 "), "%s", gp);
	cr_expect_not_null(strstr(gp, "$s1 << EOD\n20.0000 80.0000 "), "%s", gp);
	cr_expect_not_null(strstr(gp, "$s2 << EOD\n80.0000 84.0000 "), "%s", gp);
	cr_expect_not_null(strstr(gp, "$s3h << EOD\n84.0000 100.0000 "), "%s", gp);
	cr_expect_not_null(strstr(gp, "set label 1 '25us x 1000 (syscall), 25ms in all'"), "%s", gp);
	cr_expect_not_null(strstr(gp, "'(16%)'"), "%s", gp);
	/* The names are data: a % in one is no format. */
	cr_expect_not_null(strstr(gp, "$names << EOD\n\"read\" "), "%s", gp);
	cr_expect(exists(tpath("ch/where.svg")));
	cr_expect(exists(tpath("ch/where-read.svg")));
}

/* The findings of the page check at @width: none but its closing line. */
static void expect_page_ok(const char *html, int width, size_t min_links)
{
	char *check = chromium_page_check(html, width);
	size_t elements = 0, links = 0;

	cr_expect_null(strstr(check, "link #"), "at %d px: %s", width, check);
	cr_expect_null(strstr(check, "wide "), "at %d px: %s", width, check);
	cr_expect_null(strstr(check, "page: "), "at %d px: %s", width, check);
	cr_assert_eq(sscanf(check, "checked %zu elements, %zu links", &elements, &links), 2,
		     "at %d px: %s", width, check);
	cr_expect_gt(elements, 100);
	cr_expect_geq(links, min_links, "%zu links", links);
}

Test(where, the_html_report_renders_and_fits_the_page_in_chromium, .timeout = 180)
{
	static const char *const sizes[] = { "1200", "800" };
	char *html = tpath("r.html"), *hostile = tpath("h.html"), *png = tpath("shot.png");
	char *dir = full_run("run", 200), *dom, *lng = own(calloc(401, 1));
	struct png_stats st;
	struct run r;

	/* A run whose names are markup, or too long for any line. */
	memset(lng, 'n', 400);
	layer(dir, "fuse", "ebpf",
	      REQS({ "read", 1000, 20000 }, { "<script>alert(1)</script>", 10, 3000 }, { lng, 5, 2000 }),
	      NULL, NULL);
	layer(dir, "fs", NULL,
	      REQS({ "read", 1000, 5000 }, { "<script>alert(1)</script>", 10, 1000 }, { lng, 5, 1000 }),
	      "false", "dev");
	r = REPORT("html", dir, "-o", hostile);
	cr_assert_eq(r.status, 0, "%s", r.err);
	r = REPORT("html", full_run("run2", 200), "-o", html);
	cr_assert_eq(r.status, 0, "%s", r.err);
	if (!have_chromium())
		cr_skip_test("chromium is not installed: the rendering is not checked");
	chromium_screenshot(html, png, 1200, 900);
	cr_assert(png_stats(png, &st), "chromium wrote no PNG");
	cr_expect_eq(st.w, 1200);
	cr_expect_eq(st.h, 900);
	cr_expect(st.colours > 8, "screenshot has %zu colours: blank", st.colours);
	cr_expect(st.nonwhite > 0.02, "screenshot is %.1f%% non-white: blank", 100 * st.nonwhite);
	/* The contents' links (6 operations, the layered view, 5 layers) and the where section's. */
	for (size_t i = 0; i < 2; i++) {
		expect_page_ok(html, atoi(sizes[i]), 13);
		expect_page_ok(hostile, atoi(sizes[i]), 10);
	}
	/* A name is text in the DOM, never an element. */
	dom = chromium_dom(hostile, 1200);
	cr_expect_null(strstr(dom, "<script"), "a name became an element");
	cr_expect_not_null(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;"));
}

/* The page check itself finds a link to nothing and a box past the page. */
Test(where, the_page_check_finds_a_dead_link_and_a_wide_box, .timeout = 60)
{
	static const char page[] =
		"<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n"
		"<a href=\"#here\">here</a> <a href=\"#nowhere\">nowhere</a><h2 id=\"here\">x</h2>\n"
		"<div id=\"wide\" style=\"width:2000px\">wide</div>\n"
		"<p id=\"long\" style=\"width:300px\">" "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn" "</p>\n"
		"</body></html>\n";
	char *html = tpath("bad.html"), *check;

	spit(html, page, strlen(page));
	if (!have_chromium())
		cr_skip_test("chromium is not installed: the rendering is not checked");
	check = chromium_page_check(html, 800);
	cr_expect_not_null(strstr(check, "link #nowhere: no element\n"), "%s", check);
	cr_expect_null(strstr(check, "link #here"), "%s", check);
	cr_expect_not_null(strstr(check, "wide DIV#wide: 2008 &gt; 800\n"), "%s", check);
	cr_expect_not_null(strstr(check, "wide P#long: "), "%s", check);
	cr_expect_not_null(strstr(check, "page: "), "%s", check);
	cr_expect_not_null(strstr(check, "checked 6 elements, 2 links"), "%s", check);
}
