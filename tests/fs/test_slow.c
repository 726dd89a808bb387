// SPDX-License-Identifier: MIT
/*
 * The slow-request log (-o slow, .osprof/slow and slow.json, ctl's slow)
 * and the top view (-o top, ctl's top on|off, .osprof/top.json), on the
 * real daemon. The
 * slow log's lower is sleepfs, whose "slow" reads take 60 ms and "fast"
 * reads none: with slow=30ms the log must hold exactly the slow reads.
 * (The 5 ms against 2 ms failed under load: a fast read through
 * FUSE took 4.7 ms on a machine running four builds; 30 ms it does not.)
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <json-c/json.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "osprof/hist.h"

static struct mnt m;
static struct sleepfs slow;

static void down(void)
{
	h_cleanup_over(&m, &slow);
}

TestSuite(slow, .fini = down, .timeout = 120);

/* File @path parsed as JSON (checked), with its format. */
static json_object *json_file(const char *path, const char *format)
{
	char *text = h_slurp(path, NULL);
	json_object *doc, *f;

	cr_assert_not_null(text, "%s", path);
	doc = json_tokener_parse(text);
	cr_assert_not_null(doc, "%s does not parse: %s", path, text);
	free(text);
	cr_assert(json_object_object_get_ex(doc, "format", &f));
	cr_assert_str_eq(json_object_get_string(f), format);
	return doc;
}

/* MNT/.osprof/@name parsed as JSON (checked), with its format. */
static json_object *ctl_json(const char *name, const char *format)
{
	return json_file(h_at(m.ctl, name), format);
}

static int64_t get_i(json_object *o, const char *key)
{
	json_object *v;

	cr_assert(json_object_object_get_ex(o, key, &v), "no %s", key);
	return json_object_get_int64(v);
}

static const char *get_s(json_object *o, const char *key)
{
	json_object *v;

	cr_assert(json_object_object_get_ex(o, key, &v), "no %s", key);
	return json_object_get_string(v);
}

static json_object *get_a(json_object *o, const char *key)
{
	json_object *v;

	cr_assert(json_object_object_get_ex(o, key, &v), "no %s", key);
	cr_assert(json_object_is_type(v, json_type_array), "%s is no array", key);
	return v;
}

/* @n reads of @len bytes of @fd, at offsets i * @step. */
static void read_fd(int fd, int n, size_t len, off_t step)
{
	char buf[65536];

	for (int i = 0; i < n; i++)
		cr_assert_eq(pread(fd, buf, len, (off_t)i * step), (ssize_t)len);
}

/*
 * Open flags for reading a file of the mount: -o noopen keeps the page
 * cache, which would serve reads or read ahead; O_DIRECT sends each pread
 * as one read of its size there, as cache=never does.
 */
#define RDFLAGS (O_RDONLY | (h_noopen() ? O_DIRECT : 0))

/*
 * Requests a read of an open file sends: under noopen (its variant mounts
 * cache=auto with timeouts 0) a getattr first, auto_inval_data's check.
 */
#define PER_READ (h_noopen() ? 2 : 1)

/* Mount file @name opened (checked). */
static int open_m(const char *name)
{
	int fd = open(h_at(m.dir, name), RDFLAGS);

	cr_assert_geq(fd, 0, "open %s", name);
	return fd;
}

/*
 * The same of mount file @name, opened for them; returns once its release
 * is counted. The kernel sends a release after close returns (over
 * io_uring it came after a later `top on` once, which then counted it).
 */
static void read_n(const char *name, int n, size_t len, off_t step)
{
	struct osp_profile *p = h_profile(&m);
	uint64_t released = h_count(p, "release");
	int fd = open_m(name);

	osp_profile_free(p);
	read_fd(fd, n, len, step);
	close(fd);
	if (h_noopen())
		return; /* the kernel answers the release itself */
	p = h_profile_when(&m, "release", released + 1);
	cr_assert_geq(h_count(p, "release"), released + 1, "%s's release within 5 s", name);
	osp_profile_free(p);
}

static void my_comm(char out[16])
{
	char *c = h_slurp("/proc/self/comm", NULL);

	cr_assert_not_null(c);
	c[strcspn(c, "\n")] = '\0';
	snprintf(out, 16, "%s", c);
	free(c);
}

/*
 * Under passthrough the reads never reach the daemon: the slow log holds
 * @n requests (none of them reads), the profile says reads passed
 * through.
 */
static void expect_passed_through(size_t n)
{
	json_object *doc = ctl_json("slow.json", "osprof-slow");
	struct osp_profile *p = h_profile(&m);

	cr_expect_eq(json_object_array_length(get_a(doc, "requests")), n, "%s",
		     json_object_to_json_string(doc));
	h_expect_data(p, "read", 0);
	osp_profile_free(p);
	json_object_put(doc);
}

Test(slow, the_log_holds_exactly_the_slow_requests_with_who_and_what)
{
	static const char *const args[] = { "-o", "slow=30ms", NULL };
	json_object *doc, *reqs;
	char comm[16], *text;
	size_t lines = 0;
	int ffd, sfd;

	h_tree(&m);
	h_sleepfs_start(&slow, m.top, "60000");
	h_start_at(&m, slow.dir, NULL, args);
	/* Open before, closed after: only reads are timed in between (an
	 * open can take milliseconds on a loaded machine). */
	ffd = open_m("fast");
	sfd = open_m("slow");
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "reset\n"), 0);
	read_fd(ffd, 20, 4096, 4096);
	read_fd(sfd, 3, 4096, 8192);
	read_fd(ffd, 20, 4096, 4096);
	my_comm(comm);
	if (h_passthrough()) {
		/* The kernel read the lower files itself: nothing to log. */
		expect_passed_through(0);
		close(ffd);
		close(sfd);
		return;
	}

	doc = ctl_json("slow.json", "osprof-slow");
	cr_expect_eq(get_i(doc, "threshold_ns"), 30000000);
	cr_expect_eq(get_i(doc, "capacity"), 1024);
	cr_expect_eq(get_i(doc, "dropped"), 0);
	reqs = get_a(doc, "requests");
	cr_assert_eq(json_object_array_length(reqs), 3, "the 3 slow reads, nothing else: %s", json_object_to_json_string(doc));
	for (size_t i = 0; i < 3; i++) {
		json_object *e = json_object_array_get_idx(reqs, i);

		cr_expect_str_eq(get_s(e, "op"), "read");
		cr_expect_str_eq(get_s(e, "path"), "/slow");
		cr_expect_str_eq(get_s(e, "comm"), comm);
		cr_expect_eq(get_i(e, "pid"), getpid());
		cr_expect_eq(get_i(e, "uid"), getuid());
		cr_expect_eq(get_i(e, "size"), 4096);
		cr_expect_eq(get_i(e, "offset"), (int64_t)i * 8192);
		/* Timing: the 60 ms sleep at least, more when delayed. */
		cr_expect_geq(get_i(e, "latency_ns"), 60000000);
		/* 60 ms is in bucket 26, (33.6 ms, 67.1 ms], unless delayed. */
		cr_expect_eq(get_i(e, "bucket"), osp_bucket_index((uint64_t)get_i(e, "latency_ns"), 1));
		cr_expect_geq(get_i(e, "bucket"), 26);
		if (i)
			cr_expect_geq(get_i(e, "wall_ns"),
				      get_i(json_object_array_get_idx(reqs, i - 1), "wall_ns"));
	}
	json_object_put(doc);

	/* The text form: a header, the same 3 lines, the summary. */
	text = h_slurp(h_at(m.ctl, "slow"), NULL);
	cr_assert_not_null(text);
	cr_expect(strncmp(text, "TIME", 4) == 0, "%s", text);
	for (char *p = text; (p = strstr(p, " /slow\n")); p++)
		lines++;
	cr_expect_eq(lines, 3, "%s", text);
	cr_expect(strstr(text, "# threshold 30.000 ms (30000000 ns), 3 held of 1024, 0 dropped\n"),
		  "%s", text);
	free(text);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_expect(strstr(text, "\nslow_threshold_ns 30000000\nslow_dropped 0\n"), "%s", text);
	free(text);
	close(ffd);
	close(sfd);
}

Test(slow, a_full_ring_keeps_the_newest_in_order_and_counts_the_dropped)
{
	static const char *const args[] = { "-o", "slow=30ms,slow_size=4", NULL };
	json_object *doc, *reqs;
	char *text;
	int fd;

	h_tree(&m);
	h_sleepfs_start(&slow, m.top, "60000");
	h_start_at(&m, slow.dir, NULL, args);
	fd = open_m("slow");
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "reset\n"), 0);
	read_fd(fd, 10, 512, 4096);
	if (h_passthrough()) {
		expect_passed_through(0);
		close(fd);
		return;
	}
	doc = ctl_json("slow.json", "osprof-slow");
	cr_expect_eq(get_i(doc, "capacity"), 4);
	cr_expect_eq(get_i(doc, "dropped"), 6);
	reqs = get_a(doc, "requests");
	cr_assert_eq(json_object_array_length(reqs), 4);
	for (size_t i = 0; i < 4; i++)
		cr_expect_eq(get_i(json_object_array_get_idx(reqs, i), "offset"),
			     (int64_t)(6 + i) * 4096, "entry %zu", i);
	json_object_put(doc);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_expect(strstr(text, "\nslow_dropped 6\n"), "%s", text);
	free(text);
	/* reset empties it */
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "reset\n"), 0);
	doc = ctl_json("slow.json", "osprof-slow");
	cr_expect_eq(get_i(doc, "dropped"), 0);
	cr_expect_eq(json_object_array_length(get_a(doc, "requests")), 0);
	json_object_put(doc);
	close(fd);
}

static size_t slow_held(void)
{
	json_object *doc = ctl_json("slow.json", "osprof-slow");
	size_t n = json_object_array_length(get_a(doc, "requests"));

	json_object_put(doc);
	return n;
}

Test(slow, ctl_turns_the_log_on_at_zero_and_off)
{
	struct stat st;
	char *text;
	size_t n;

	h_tree(&m);
	h_start(&m, NULL);
	cr_assert_eq(h_write_str(h_at(m.lower, "f"), "data"), 0);
	stat(h_at(m.dir, "f"), &st);
	cr_expect_eq(slow_held(), 0, "off by default");
	text = h_slurp(h_at(m.ctl, "slow"), NULL);
	cr_expect(strstr(text, "# threshold off, 0 held of 0, 0 dropped\n"), "%s", text);
	free(text);

	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "slow 0\n"), 0);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_expect(strstr(text, "\nslow_threshold_ns 0\n"), "%s", text);
	free(text);
	cr_expect_eq(stat(h_at(m.dir, "f"), &st), 0);
	/*
	 * Every request is slow at 0: the stat's lookup and getattr
	 * (cache=never). noopen implies default_permissions: each path walk
	 * asks the root's attributes too (timeouts 0), the stat's and those
	 * to read ctl and slow.json, and then that of the write of "slow off".
	 */
	n = slow_held();
	cr_expect_eq(n, h_noopen() ? 5 : 2, "%zu held", n);

	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "slow off\n"), 0);
	cr_expect_eq(stat(h_at(m.dir, "f"), &st), 0);
	read_n("f", 1, 4, 0);
	cr_expect_eq(slow_held(), n + h_noopen(), "off: no more");
	cr_expect_neq(h_write_str(h_at(m.ctl, "ctl"), "slow 10\n"), 0, "a unit is needed");
}

/* ---- top ---- */

/* Fork a child that reads @fd @n times @len bytes, then waits on @go. */
static pid_t reader(int fd, int n, size_t len, int done_w, const int go[2])
{
	pid_t pid = fork();
	char buf[8192], c = 'x';

	cr_assert_geq(pid, 0);
	if (pid)
		return pid;
	close(go[1]); /* so that the test's end is EOF here */
	for (int i = 0; i < n; i++)
		if (pread(fd, buf, len, 0) != (ssize_t)len)
			_exit(1);
	if (write(done_w, &c, 1) != 1 || read(go[0], &c, 1) != 1)
		_exit(2);
	_exit(0);
}

static json_object *find(json_object *arr, const char *key, const char *s, int64_t v)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *x;

		if (!json_object_object_get_ex(e, key, &x))
			continue;
		if (s ? strcmp(json_object_get_string(x), s) == 0 : json_object_get_int64(x) == v)
			return e;
	}
	return NULL;
}

/*
 * Two processes read two files known numbers of bytes; top.json is read
 * while both are alive (their exit closes their descriptors: flushes).
 */
static int fa = -1, fb = -1;

static void two_readers(const char *top_max, pid_t pid[2])
{
	const char *args[] = { "-o", top_max, NULL };
	int done[2], go[2];
	char c;

	h_tree(&m);
	cr_assert_eq(h_write_str(h_at(m.lower, "a"), "aaaaaaaaaa"), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "b"), "bbbbbbbbbbbbbbbbbbbb"), 0);
	h_start(&m, args);
	fa = open(h_at(m.dir, "a"), RDFLAGS);
	fb = open(h_at(m.dir, "b"), RDFLAGS);
	cr_assert(fa >= 0 && fb >= 0);
	cr_assert_eq(pipe(done), 0);
	cr_assert_eq(pipe(go), 0);
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "reset\n"), 0);
	pid[0] = reader(fa, 3, 10, done[1], go);
	cr_assert_eq(read(done[0], &c, 1), 1);
	pid[1] = reader(fb, 2, 20, done[1], go);
	cr_assert_eq(read(done[0], &c, 1), 1);
}

static void release_readers(const pid_t pid[2])
{
	int st;

	for (int i = 0; i < 2; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], &st, 0);
	}
	close(fa);
	close(fb);
}

static void expect_counts(json_object *e, int64_t reqs, int64_t rd)
{
	cr_assert_not_null(e);
	cr_expect_eq(get_i(e, "requests"), reqs);
	cr_expect_eq(get_i(e, "read_bytes"), rd);
	cr_expect_eq(get_i(e, "write_bytes"), 0);
	cr_expect_gt(get_i(e, "total_ns"), 0);
	cr_expect_gt(get_i(e, "p99_ns"), 0);
}

/*
 * With -o @opts, the two readers' top.json: @n entries in each table, the
 * first reader's (3 reads of 10 bytes) among them; the second's (2 of 20)
 * too when @n is 2, else in other.
 */
static void check_top(const char *opts, size_t n)
{
	json_object *doc, *files, *procs, *o;
	pid_t pid[2];

	two_readers(opts, pid);
	doc = ctl_json("top.json", "osprof-top");
	files = get_a(doc, "files");
	procs = get_a(doc, "processes");
	if (h_passthrough()) {
		/* Since the reset, only reads, which passed through. */
		cr_expect_eq(json_object_array_length(files), 0);
		cr_expect_eq(json_object_array_length(procs), 0);
		json_object_put(doc);
		release_readers(pid);
		return;
	}
	/*
	 * noopen implies default_permissions: reading top.json asks the
	 * root's attributes first (timeouts 0), one request of this process
	 * on /, a key more in each table (or in other). And each read asks
	 * the file's attributes first (auto_inval_data): two requests a read.
	 */
	cr_expect_eq(json_object_array_length(files), n + (n == 2 && h_noopen()));
	cr_expect_eq(json_object_array_length(procs), n + (n == 2 && h_noopen()));
	expect_counts(find(files, "path", "/a", 0), PER_READ * 3, 30);
	expect_counts(find(procs, "pid", NULL, pid[0]), PER_READ * 3, 30);
	cr_expect_eq(get_i(find(procs, "pid", NULL, pid[0]), "uid"), getuid());
	if (n == 2) {
		expect_counts(find(files, "path", "/b", 0), PER_READ * 2, 40);
		expect_counts(find(procs, "pid", NULL, pid[1]), PER_READ * 2, 40);
	} else {
		cr_assert(json_object_object_get_ex(doc, "other_files", &o));
		expect_counts(o, PER_READ * 2 + h_noopen(), 40);
		cr_assert(json_object_object_get_ex(doc, "other_processes", &o));
		expect_counts(o, PER_READ * 2 + h_noopen(), 40);
	}
	json_object_put(doc);
	release_readers(pid);
}

Test(slow, top_counts_requests_and_bytes_per_file_and_per_process)
{
	check_top("top", 2);
}

Test(slow, top_folds_keys_past_top_max_into_other)
{
	check_top("top,top_max=1", 1);
}

/* top and top.json say off, and ctl's line does. */
static void expect_top_off(void)
{
	char *text = h_slurp(h_at(m.ctl, "top"), NULL);
	json_object *doc, *v;

	cr_assert_not_null(text);
	cr_expect_str_eq(text, "top off (mount with -o top, or write 'top on' to ctl)\n");
	free(text);
	doc = ctl_json("top.json", "osprof-top");
	cr_assert(json_object_object_get_ex(doc, "enabled", &v));
	cr_expect_not(json_object_get_boolean(v));
	cr_expect_eq(json_object_array_length(get_a(doc, "files")), 0);
	cr_expect_eq(json_object_array_length(get_a(doc, "processes")), 0);
	json_object_put(doc);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\ntop off\n"), "%s", text);
	free(text);
}

/* top.json holds /a alone, read by this thread alone: @reqs reads of 10
 * (under passthrough, nothing: the reads went to the lower file). */
static void expect_top_a(int64_t reqs)
{
	json_object *doc = ctl_json("top.json", "osprof-top"), *files, *procs;
	char *text = h_slurp(h_at(m.ctl, "ctl"), NULL);

	files = get_a(doc, "files");
	procs = get_a(doc, "processes");
	if (h_passthrough()) {
		cr_expect_eq(json_object_array_length(files), 0, "%s", json_object_to_json_string(doc));
		cr_expect_eq(json_object_array_length(procs), 0, "%s", json_object_to_json_string(doc));
		cr_expect(strstr(text, "\ntop on\n"), "%s", text);
		json_object_put(doc);
		free(text);
		return;
	}
	if (h_noopen()) {
		/*
		 * Each walk to the control files asks the root's attributes
		 * (default_permissions, timeouts 0): this thread's row and
		 * one of / count them too. /a's reads: two requests each.
		 */
		expect_counts(find(files, "path", "/a", 0), PER_READ * reqs, 10 * reqs);
		cr_assert_not_null(find(procs, "pid", NULL, (int64_t)syscall(SYS_gettid)));
	} else {
		cr_expect_eq(json_object_array_length(files), 1, "%s", json_object_to_json_string(doc));
		cr_expect_eq(json_object_array_length(procs), 1, "%s", json_object_to_json_string(doc));
		expect_counts(find(files, "path", "/a", 0), reqs, 10 * reqs);
		expect_counts(find(procs, "pid", NULL, (int64_t)syscall(SYS_gettid)), reqs, 10 * reqs);
	}
	json_object_put(doc);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\ntop on\n"), "%s", text);
	free(text);
}

/*
 * ctl's top on|off on a mount without -o top: on, it counts exactly the
 * reads that follow; off, it counts nothing and says off; on again, the
 * counts are as they were, and it counts on. The file is opened before,
 * so each count is its reads alone.
 */
Test(slow, ctl_switches_top_on_and_off_and_off_keeps_the_counts)
{
	int fd;

	h_tree(&m);
	cr_assert_eq(h_write_str(h_at(m.lower, "a"), "aaaaaaaaaa"), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "b"), "bbbbbbbbbb"), 0);
	h_start(&m, NULL);
	fd = open_m("a");
	expect_top_off();
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "top on\n"), 0);
	read_fd(fd, 3, 10, 0);
	expect_top_a(3);

	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "top off\n"), 0);
	expect_top_off();
	read_fd(fd, 2, 10, 0);
	read_n("b", 2, 10, 0);
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "top on\n"), 0);
	expect_top_a(3);
	read_fd(fd, 1, 10, 0);
	expect_top_a(4);
	cr_assert_eq(h_write_str(h_at(m.ctl, "ctl"), "top on\n"), 0);
	expect_top_a(4);
	close(fd);
}

/*
 * A `top on` whose tables cannot be allocated fails its write with ENOMEM
 * and changes nothing, the batch's other commands neither; with memory
 * again it works. The daemon runs with nomem.c preloaded, which fails its
 * big callocs while a flag file exists. (Under AddressSanitizer, whose
 * runtime wants to be first, it is told that a preload comes first.)
 */
Test(slow, top_on_without_memory_fails_with_enomem_and_changes_nothing)
{
	const char *so = getenv("OFS_TEST_NOMEM"), *asan = getenv("ASAN_OPTIONS");
	char flag[PATH_MAX], asan_opts[1024], *text;

	cr_assert_not_null(so, "OFS_TEST_NOMEM must name nomem.c's library");
	h_tree(&m);
	h_path(flag, m.top, "nomem");
	snprintf(asan_opts, sizeof(asan_opts), "%s%sverify_asan_link_order=0", asan ? asan : "",
		 asan && *asan ? ":" : "");
	cr_assert_eq(setenv("ASAN_OPTIONS", asan_opts, 1), 0);
	cr_assert_eq(setenv("LD_PRELOAD", so, 1), 0);
	cr_assert_eq(setenv("OFS_TEST_NOMEM_FLAG", flag, 1), 0);
	h_start(&m, NULL);
	unsetenv("LD_PRELOAD");
	unsetenv("OFS_TEST_NOMEM_FLAG");
	if (asan)
		setenv("ASAN_OPTIONS", asan, 1);
	else
		unsetenv("ASAN_OPTIONS");
	cr_assert_eq(h_write_str(flag, ""), 0);
	cr_expect_eq(h_write_str(h_at(m.ctl, "ctl"), "top on\n"), -ENOMEM);
	cr_expect_eq(h_write_str(h_at(m.ctl, "ctl"), "timeline 100\ntop on\n"), -ENOMEM);
	expect_top_off();
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\ntimeline off\n"), "%s", text);
	cr_expect(strstr(text, "\nlast_error line 2: top on: Cannot allocate memory\n"), "%s", text);
	free(text);
	cr_assert_eq(unlink(flag), 0);
	cr_expect_eq(h_write_str(h_at(m.ctl, "ctl"), "top on\n"), 0);
	text = h_slurp(h_at(m.ctl, "ctl"), NULL);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "\ntop on\n"), "%s", text);
	free(text);
}

/* ---- osprof-report top ---- */

/* The next block of `osprof-report top` from @f (up to its blank line
 * after the processes), malloc'd; NULL at the end. */
static char *next_block(FILE *f)
{
	char *block = NULL, line[1024];
	size_t len = 0, blanks = 0;
	FILE *mem = open_memstream(&block, &len);

	cr_assert_not_null(mem);
	while (blanks < 3 && fgets(line, sizeof(line), f)) {
		blanks += strcmp(line, "\n") == 0;
		fputs(line, mem);
	}
	fclose(mem);
	if (!len) {
		free(block);
		return NULL;
	}
	return block;
}

/* @block's row of file @path: @reqs requests, @rd bytes read, none written
 * (0 requests: no row). */
static void expect_top_file(const char *block, const char *path, unsigned long long reqs,
			    unsigned long long rd)
{
	char *end = NULL, want[64];
	unsigned long long n = 0, r = 0, w = 0;
	const char *l;

	snprintf(want, sizeof(want), " %s\n", path);
	for (l = block; (l = strstr(l, want)); l++) {
		const char *start = l;

		while (start > block && start[-1] != '\n')
			start--;
		n = strtoull(start, &end, 10);
		r = strtoull(end, &end, 10);
		w = strtoull(end, &end, 10);
		break;
	}
	if (!reqs) {
		cr_expect_null(l, "%s is idle: %s", path, block);
		return;
	}
	cr_assert_not_null(l, "no row %s in: %s", path, block);
	cr_expect_eq(n, reqs, "%s: %llu requests in: %s", path, n, block);
	cr_expect_eq(r, rd, "%s: %llu bytes read in: %s", path, r, block);
	cr_expect_eq(w, 0, "%s: %llu bytes written in: %s", path, w, block);
}

Test(slow, report_top_shows_totals_then_each_interval)
{
	static const char *const args[] = { "-o", "top", NULL };
	const char *report = getenv("OSPROF_REPORT");
	char cmd[PATH_MAX * 2], *b1, *b2, *b3;
	FILE *f;

	cr_assert_not_null(report, "OSPROF_REPORT must name osprof-report");
	h_tree(&m);
	cr_assert_eq(h_write_str(h_at(m.lower, "a"), "aaaaaaaaaa"), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "b"), "bbbbbbbbbbbbbbbbbbbb"), 0);
	h_start(&m, args);
	read_n("a", 3, 10, 0);
	snprintf(cmd, sizeof(cmd), "'%s' top '%s' --interval 1 --count 2", report, m.dir);
	f = popen(cmd, "r");
	cr_assert_not_null(f);
	b1 = next_block(f);
	/* Within the interval that follows the first block: two reads of
	 * a few ms each in 1 s, a margin no loaded machine closes. */
	read_n("b", 2, 20, 0);
	b2 = next_block(f);
	b3 = next_block(f);
	cr_expect_eq(pclose(f), 0);
	cr_assert_not_null(b1);
	cr_assert_not_null(b2, "a second block after: %s", b1);
	cr_expect_null(b3, "two blocks only: %s", b3);
	cr_expect(strstr(b1, "  totals since mount or reset\n"), "%s", b1);
	{
		/* .osprof/top and osprof-report top name their columns alike. */
		char *text = h_slurp(h_at(m.ctl, "top"), NULL);

		cr_assert_not_null(text);
		cr_expect(strstr(text, " WRITE_B     TIME(ms)    P99(ms) FILE\n"), "%s", text);
		cr_expect(strstr(b1, " WRITE_B    TIME(ms)    P99(ms) FILE\n"), "%s", b1);
		free(text);
	}
	/*
	 * Each file's open, reads, flush and release; its bytes read (under
	 * passthrough, no read: the kernel read the lower file). Under
	 * noopen: a getattr as it is opened and one before each read, no
	 * release, and the mount's first open and flush (answered ENOSYS)
	 * are a's.
	 */
	expect_top_file(b1, "/a", h_passthrough() ? 3 : h_noopen() ? 1 + 1 + 2 * 3 + 1 : 6,
			h_passthrough() ? 0 : 30);
	expect_top_file(b1, "/b", 0, 0);
	cr_expect(strstr(b2, "  last interval\n"), "%s", b2);
	expect_top_file(b2, "/b", h_passthrough() ? 3 : h_noopen() ? 1 + 2 * 2 : 5,
			h_passthrough() ? 0 : 40);
	expect_top_file(b2, "/a", 0, 0);
	free(b1);
	free(b2);
	free(b3);
}

Test(slow, report_top_refuses_a_mount_without_top_in_one_line)
{
	const char *report = getenv("OSPROF_REPORT");
	char cmd[PATH_MAX * 2], *out;

	h_tree(&m);
	h_start(&m, NULL);
	snprintf(cmd, sizeof(cmd), "'%s' top '%s' --count 1 >%s/out 2>&1", report, m.dir, m.top);
	cr_expect_eq(h_sh("%s", cmd), 2);
	out = h_slurp(h_at(m.top, "out"), NULL);
	cr_expect(strstr(out, "top view is off (mount it with -o top, or write 'top on' to its ctl)\n"),
		  "%s", out);
	free(out);
}

Test(slow, report_top_quits_on_q_and_restores_the_terminal)
{
	static const char *const args[] = { "-o", "top", NULL };
	const char *report = getenv("OSPROF_REPORT");
	char *out;

	if (h_sh("command -v script >/dev/null") != 0)
		cr_skip_test("no script(1) for a pseudo-terminal");
	h_tree(&m);
	h_start(&m, args);
	/* q after a few refreshes; stty says how the terminal was left. */
	cr_expect_eq(h_sh("(sleep 0.7; printf q) | timeout 20 script -qec \"'%s' top '%s' "
			  "--interval 0.2; stty -a\" /dev/null >%s/out 2>&1", report, m.dir, m.top), 0);
	out = h_slurp(h_at(m.top, "out"), NULL);
	cr_assert_not_null(out);
	cr_expect(strstr(out, "\033[H\033[2Josprof top "), "redrawn on a terminal: %s", out);
	cr_expect(strstr(out, " icanon") && !strstr(out, "-icanon"), "%s", out);
	cr_expect(strstr(out, " echo ") && !strstr(out, "-echo "), "%s", out);
	free(out);
}

Test(slow, dump_writes_the_slow_log_and_top_beside_the_profile)
{
	char dump[PATH_MAX];
	static const char *const all[] = { "lookup", "create", "write", "flush", "release" };
	/* Under passthrough, the write goes to the lower file, and the
	 * kernel asks for security.capability first, as it writes through
	 * a file it must strip of its privileges (file_remove_privs). */
	static const char *const passed[] = { "lookup", "create", "getxattr", "flush", "release" };
	/*
	 * Under noopen: the root's attributes (at the mount, and for the
	 * path walk: default_permissions), the first create and open
	 * answered ENOSYS, the file made by a mknod, its attributes asked
	 * as it is opened, security.capability before the write (as under
	 * passthrough), the first flush answered ENOSYS, no release.
	 */
	static const char *const noopen[] = { "getattr", "getattr", "lookup", "create", "mknod",
		"getattr", "open", "getxattr", "write", "flush" };
	const char *const *ops = h_passthrough() ? passed : h_noopen() ? noopen : all;
	size_t nops = h_noopen() ? 10 : 5;
	const char *args[] = { "-o", "slow=0,top", "--dump", dump, NULL };
	json_object *doc, *reqs;

	h_tree(&m);
	snprintf(dump, sizeof(dump), "%s/run.json", m.top);
	h_start(&m, args);
	cr_assert_eq(h_write_str(h_at(m.dir, "f"), "x"), 0);
	cr_expect_eq(h_stop(&m), 0);
	/* Every request slow at 0: the file's lookup, create, write, flush
	 * and release, in that order. */
	doc = json_file(h_at(m.top, "run.slow.json"), "osprof-slow");
	reqs = get_a(doc, "requests");
	cr_assert_eq(json_object_array_length(reqs), nops, "%s", json_object_to_json_string(doc));
	for (size_t i = 0; i < nops; i++) {
		json_object *e = json_object_array_get_idx(reqs, i);

		cr_expect_str_eq(get_s(e, "op"), ops[i], "request %zu", i);
		cr_expect_str_eq(get_s(e, "path"), h_noopen() && i < 2 ? "/" : "/f");
		cr_expect_eq(get_i(e, "size"), strcmp(ops[i], "write") == 0 ? 1 : 0);
	}
	json_object_put(doc);
	/* The same 5 by file: the lookup and create in /, the rest in /f. */
	doc = json_file(h_at(m.top, "run.top.json"), "osprof-top");
	reqs = get_a(doc, "files");
	cr_assert_eq(json_object_array_length(reqs), 2, "%s", json_object_to_json_string(doc));
	for (size_t i = 0; i < 2; i++) {
		json_object *e = json_object_array_get_idx(reqs, i);
		bool f = strcmp(get_s(e, "path"), "/f") == 0;

		cr_expect(f || strcmp(get_s(e, "path"), "/") == 0, "%s", get_s(e, "path"));
		/* noopen: 5 each, the 2 getattrs and the mknod in / */
		cr_expect_eq(get_i(e, "requests"), h_noopen() ? 5 : f ? 3 : 2, "%s", get_s(e, "path"));
		cr_expect_eq(get_i(e, "write_bytes"), f && !h_passthrough() ? 1 : 0, "%s", get_s(e, "path"));
		cr_expect_eq(get_i(e, "read_bytes"), 0);
	}
	json_object_put(doc);
}
