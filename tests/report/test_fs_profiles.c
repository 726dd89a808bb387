// SPDX-License-Identifier: MIT
/*
 * osprof-report on real profiles made by osprof-fs: a mount over sleepfs,
 * whose "slow" file takes 1.4 ms a read and "slow4" four times that: long
 * enough that scheduling delays on a busy machine stay small beside it,
 * and near the middle of a log2 bucket ((1.05, 2.10] ms; 5.6 ms in
 * (4.19, 8.39] ms), so jitter does not move requests across a bound.
 * Three mounts of it, read in turn (A and A2 read "slow", B "slow4"): A
 * and A2 must compare as equal; B differs in read alone, which must rank
 * first. Every subcommand runs on these profiles.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fs/harness.h"
#include "cli.h"
#include "osprof/format.h"

/* Three mounts of one sleepfs: A and A2 read "slow", B reads "slow4". */
static struct mnt m, m2, m3;
static struct sleepfs slow;
static char a[PATH_MAX], a2[PATH_MAX], b[PATH_MAX];

static int open_in(const struct mnt *mt, const char *name)
{
	char path[PATH_MAX];
	int fd = open(h_path(path, mt->dir, name), O_RDONLY);

	cr_assert_geq(fd, 0, "%s", path);
	return fd;
}

/*
 * Read the three mounts in turn, request by request, so whatever else
 * the machine does slows all three alike.
 */
static void workload(int n)
{
	int fd[3] = { open_in(&m, "slow"), open_in(&m2, "slow"), open_in(&m3, "slow4") };
	char buf[4096];

	for (int i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			cr_assert_eq(pread(fd[k], buf, sizeof(buf), (off_t)i * 4096), 4096);
	for (int k = 0; k < 3; k++)
		close(fd[k]);
}

static void save(const struct mnt *mt, const char *out)
{
	char json[PATH_MAX], *s = h_slurp(h_path(json, mt->ctl, "stats.json"), NULL);

	cr_assert_not_null(s);
	cr_assert_eq(h_write_str(out, s), 0);
	free(s);
}

static void reset(const struct mnt *mt)
{
	char ctl[PATH_MAX];

	cr_assert_eq(h_write_str(h_path(ctl, mt->ctl, "ctl"), "reset\n"), 0);
}

static void up(void)
{
	h_tree(&m);
	h_tree(&m2);
	h_tree(&m3);
	h_sleepfs_start(&slow, m.top, "1400");
	h_start_at(&m, slow.dir, NULL, NULL);
	h_start_at(&m2, slow.dir, NULL, NULL);
	h_start_at(&m3, slow.dir, NULL, NULL);
	workload(10); /* warm up: dentries, descriptors, threads */
	reset(&m);
	reset(&m2);
	reset(&m3);
	workload(100);
	save(&m, h_path(a, m.top, "a.json"));
	save(&m2, h_path(a2, m.top, "a2.json"));
	save(&m3, h_path(b, m.top, "b.json"));
}

static void down(void)
{
	h_stop(&m3);
	h_stop(&m2);
	h_stop(&m);
	h_sleepfs_stop(&slow);
	{
		/* Remove every tree before a daemon's stderr fails the test. */
		bool bad = m.bad_stderr || m2.bad_stderr || m3.bad_stderr;

		m.bad_stderr = m2.bad_stderr = m3.bad_stderr = false;
		h_cleanup(&m3);
		h_cleanup(&m2);
		h_cleanup(&m);
		if (bad)
			abort();
	}
}

TestSuite(fs_profiles, .init = up, .fini = down, .timeout = 120);

/* Run osprof-report with @args, return its exit status, output in @out. */
static int report(const char *args, char **out)
{
	char cmd[8192], path[PATH_MAX];
	int st;

	h_path(path, m.top, "report.out");
	snprintf(cmd, sizeof(cmd), "'%s' %s > '%s' 2>&1", getenv("ORP_BIN"), args, path);
	st = h_sh("%s", cmd);
	*out = h_slurp(path, NULL);
	cr_assert_not_null(*out);
	return st;
}

Test(fs_profiles, show_reads_a_real_profile)
{
	char args[PATH_MAX + 16], *out, err[512];
	struct osp_profile *p;

	snprintf(args, sizeof(args), "show '%s'", a);
	cr_assert_eq(report(args, &out), 0, "%s", out);
	p = osp_read_json_file(a, err, sizeof(err));
	cr_assert_not_null(p, "%s", err);
	/* The workload's 100 reads; each row's count, total and max the profile's. */
	cr_expect_eq(h_count(p, "read"), 100);
	for (size_t i = 0; i < p->nops; i++) {
		const struct osp_op *o = &p->ops[i];
		char prefix[64], name[64], tot[16], max[16], want[16];
		unsigned long long n;
		const char *row;

		snprintf(prefix, sizeof(prefix), "%s ", o->name);
		row = line_starting(out, prefix);
		if (!o->lat.count) {
			cr_expect_null(row, "%s has no requests: %s", o->name, row);
			continue;
		}
		cr_assert_not_null(row, "no row %s in:\n%s", o->name, out);
		cr_assert_eq(sscanf(row, "%63s %llu %15s %*s %*s %*s %15s", name, &n, tot, max), 4, "%s", row);
		cr_expect_eq(n, o->lat.count, "%s", row);
		cr_expect_str_eq(tot, osp_fmt_ns(want, sizeof(want), (double)o->lat.sum), "%s", row);
		cr_expect_str_eq(max, osp_fmt_ns(want, sizeof(want), (double)o->lat.max), "%s", row);
	}
	osp_profile_free(p);
	cr_expect_not_null(line_starting(out, "peaks:"), "%s", out);
	cr_expect_null(strstr(out, "warning"), "%s", out);
	free(out);
	/* The mount itself is an input too. */
	snprintf(args, sizeof(args), "show '%s'", m.dir);
	cr_expect_eq(report(args, &out), 0, "%s", out);
	free(out);
}

Test(fs_profiles, two_runs_of_one_workload_do_not_differ)
{
	char args[3 * PATH_MAX], *out;

	snprintf(args, sizeof(args), "compare '%s' '%s'", a, a2);
	cr_expect_eq(report(args, &out), 0, "%s", out);
	free(out);
}

Test(fs_profiles, the_slowed_read_ranks_first)
{
	char args[3 * PATH_MAX], *out;
	const char *row;

	snprintf(args, sizeof(args), "compare '%s' '%s'", a, b);
	cr_expect_eq(report(args, &out), 1, "%s", out);
	/* read, 100 requests on either side; nothing ranked after it. */
	row = line_starting(out, "    1 ");
	cr_assert_not_null(row, "%s", out);
	cr_expect_eq(strncmp(row, "    1 fs       read               different         100        100 ", 67), 0,
		     "%s", out);
	cr_expect_null(line_starting(out, "    2 "), "%s", out);
	free(out);
}

Test(fs_profiles, plot_html_export_and_merge)
{
	char args[4 * PATH_MAX], path[PATH_MAX], *out, *s;
	struct osp_profile *pa, *pm;
	char err[512];

	snprintf(args, sizeof(args), "plot '%s' -o '%s/charts'", a, m.top);
	cr_assert_eq(report(args, &out), 0, "%s", out);
	free(out);
	s = h_slurp(h_path(path, m.top, "charts/op-fs-read.png"), NULL);
	cr_assert_not_null(s, "no chart for read");
	cr_expect_eq(memcmp(s, "\x89PNG", 4), 0);
	free(s);
	snprintf(args, sizeof(args), "html '%s' '%s' -o '%s/r.html'", a, b, m.top);
	cr_assert_eq(report(args, &out), 0, "%s", out);
	free(out);
	s = h_slurp(h_path(path, m.top, "r.html"), NULL);
	cr_expect_not_null(strstr(s, "<svg"));
	free(s);
	snprintf(args, sizeof(args), "export --format csv '%s'", a);
	cr_assert_eq(report(args, &out), 0, "%s", out);
	{
		unsigned long long reads = 0;
		char *save = NULL;

		for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			if (strncmp(l, "fs,read,lat,", 12) == 0)
				reads += strtoull(strrchr(l, ',') + 1, NULL, 10);
		cr_expect_eq(reads, 100, "read's bucket rows hold its 100 requests");
	}
	free(out);
	snprintf(args, sizeof(args), "merge '%s' '%s' -o '%s/m.json'", a, a, m.top);
	cr_assert_eq(report(args, &out), 0, "%s", out);
	free(out);
	pa = osp_read_json_file(a, err, sizeof(err));
	pm = osp_read_json_file(h_path(path, m.top, "m.json"), err, sizeof(err));
	cr_assert_not_null(pa);
	cr_assert_not_null(pm, "%s", err);
	for (size_t i = 0; i < pa->nops; i++) {
		const struct osp_op *o = osp_profile_find_op(pm, pa->ops[i].name);

		cr_assert_not_null(o);
		for (unsigned k = 0; k < OSP_HIST_NBUCKETS(o->lat.res); k++)
			cr_expect_eq(osp_hist_bucket(&o->lat, k),
				     2 * osp_hist_bucket(&pa->ops[i].lat, k));
	}
	osp_profile_free(pa);
	osp_profile_free(pm);
}
