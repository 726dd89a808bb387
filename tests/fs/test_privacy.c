// SPDX-License-Identifier: MIT
/*
 * Who may read a profile: the control files that name files, processes
 * or users (top, slow, by, and their JSON) are readable only by the
 * mounting user, root and the members of -o ctl_group; the rest by
 * everyone. Root mounts with allow_other and reads a file in a 0700
 * directory; another user, who may not list that directory, must not
 * find the file's name in anything of .osprof it can read. The cache=auto
 * suite is the one the noopen variant runs with noopen (reads with no
 * OPEN); the cache=never ones it runs as they are.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define USER 65534
#define CTL_GROUP 4321
#define SECRET "salary-2027"

static struct mnt m;
/* The file a child run by h_as reads (fork copies it). */
static const char *g_path;

static const char *const naming[] = { "top", "top.json", "slow", "slow.json", "by", "by.json" };
#define NNAMING (sizeof(naming) / sizeof(naming[0]))

static bool is_naming(const char *name)
{
	for (size_t i = 0; i < NNAMING; i++)
		if (strcmp(name, naming[i]) == 0)
			return true;
	return false;
}

/* Mount with every file that names things on, plus @extra (may be NULL). */
static void up_with(const char *cache, const char *extra)
{
	char opts[256], p[PATH_MAX];
	const char *args[] = { "-o", opts, NULL };
	char *s;

	snprintf(opts, sizeof(opts), "allow_other,top,slow=0,by=file,values,cache=%s%s%s", cache,
		 extra ? "," : "", extra ? extra : "");
	h_tree(&m);
	cr_assert_eq(mkdir(h_path(p, m.lower, "private"), 0700), 0);
	cr_assert_eq(h_write_str(h_at(m.lower, "private/" SECRET ".xlsx"), "12345"), 0);
	h_start(&m, args);
	/* Root reads it through the mount: now top, slow and by name it. */
	s = h_slurp(h_at(m.dir, "private/" SECRET ".xlsx"), NULL);
	cr_assert_str_eq(s, "12345");
	free(s);
}

static void up_group(void)
{
	up_with("never", "ctl_group=4321");
}

static void up_group_auto(void)
{
	up_with("auto", "ctl_group=4321");
}

static void up_nogroup(void)
{
	up_with("never", NULL);
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(privacy, .init = up_group, .fini = down, .timeout = 60);
TestSuite(privacy_auto, .init = up_group_auto, .fini = down, .timeout = 60);
TestSuite(privacy_nogroup, .init = up_nogroup, .fini = down, .timeout = 60);

/* Open and read g_path to its end: 0, or the errno of the failing call. */
static int read_it(void)
{
	char buf[4096];
	int fd = open(g_path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	n = n < 0 ? errno : 0;
	close(fd);
	return (int)n;
}

/* access(g_path, R_OK): 0 or its errno. */
static int access_it(void)
{
	return access(g_path, R_OK) == 0 ? 0 : errno;
}

/*
 * Every file of .osprof: those that name things refused (EACCES at open
 * or read), the others read, none holding the secret name. 0 when so,
 * else 90 + which check failed (the child cannot assert).
 */
static int scan_ctl(void)
{
	DIR *d = opendir(m.ctl);
	struct dirent *de;
	unsigned refused = 0, read = 0;
	int rc = 0;

	if (!d)
		return errno;
	while (!rc && (de = readdir(d))) {
		char *s;

		if (de->d_name[0] == '.')
			continue;
		g_path = h_at(m.ctl, de->d_name);
		if (is_naming(de->d_name)) {
			rc = read_it() == EACCES ? 0 : 91;
			refused++;
			continue;
		}
		s = h_slurp(g_path, NULL);
		if (!s)
			rc = 92;
		else if (strstr(s, SECRET))
			rc = 93;
		free(s);
		read++;
	}
	closedir(d);
	/* stats, stats.json, metrics, timeline, ctl, values, values.json at least */
	return rc ? rc : refused != NNAMING ? 94 : read < 7 ? 95 : 0;
}

static int as_user(int (*fn)(void))
{
	return h_as(USER, USER, NULL, 0, fn);
}

static int as_member(int (*fn)(void))
{
	gid_t g = CTL_GROUP;

	return h_as(USER, USER, &g, 1, fn);
}

/* Root reads the name in each: the refusals below hide something. */
static void root_sees_the_name(void)
{
	for (size_t i = 0; i < NNAMING; i++) {
		char *s = h_slurp(h_at(m.ctl, naming[i]), NULL);

		cr_assert_not_null(s, "root reads %s", naming[i]);
		cr_expect_not_null(strstr(s, SECRET), "%s names the file for root", naming[i]);
		free(s);
	}
}

/* Each naming file refused to USER, and readable by a member of the group. */
static void naming_files_are_the_groups(void)
{
	root_sees_the_name();
	for (size_t i = 0; i < NNAMING; i++) {
		g_path = h_at(m.ctl, naming[i]);
		cr_expect_eq(as_user(read_it), EACCES, "%s refused to another user", naming[i]);
		cr_expect_eq(as_user(access_it), EACCES, "access(%s, R_OK) as another user",
			     naming[i]);
		cr_expect_eq(as_member(read_it), 0, "%s read by ctl_group's member", naming[i]);
	}
	cr_expect_eq(as_user(scan_ctl), 0, "nothing another user reads names the file");
}

Test(privacy, naming_files_are_refused_to_others_and_read_by_the_group)
{
	naming_files_are_the_groups();
}

Test(privacy_auto, naming_files_are_refused_to_others_and_read_by_the_group)
{
	char *noopen = h_ctl_value(&m, "noopen");

	cr_assert_str_eq(noopen, h_noopen() ? "on" : "off");
	free(noopen);
	naming_files_are_the_groups();
}

Test(privacy_nogroup, naming_files_are_the_owners_and_roots_only)
{
	gid_t g = CTL_GROUP;

	root_sees_the_name();
	for (size_t i = 0; i < NNAMING; i++) {
		g_path = h_at(m.ctl, naming[i]);
		cr_expect_eq(as_user(read_it), EACCES, "%s refused to another user", naming[i]);
		cr_expect_eq(h_as(USER, CTL_GROUP, &g, 1, read_it), EACCES,
			     "%s refused to a group's member with no -o ctl_group", naming[i]);
	}
	cr_expect_eq(as_user(scan_ctl), 0, "nothing another user reads names the file");
}

/* The modes, owner and group that ls -l shows are the rule's. */
static void expect_modes(mode_t naming_mode, gid_t gid)
{
	DIR *d = opendir(m.ctl);
	struct dirent *de;
	struct stat st;

	cr_assert_not_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		cr_assert_eq(stat(h_at(m.ctl, de->d_name), &st), 0);
		cr_expect_eq(st.st_uid, 0, "%s owned by the mounting user", de->d_name);
		cr_expect_eq(st.st_gid, gid, "%s: group %u", de->d_name, (unsigned)st.st_gid);
		cr_expect_eq(st.st_mode & 07777,
			     is_naming(de->d_name) ? naming_mode
			     : strcmp(de->d_name, "ctl") == 0 ? 0644 : 0444,
			     "%s: mode %o", de->d_name, (unsigned)(st.st_mode & 07777));
	}
	closedir(d);
}

Test(privacy, ls_shows_0440_in_the_group)
{
	expect_modes(0440, CTL_GROUP);
}

Test(privacy_nogroup, ls_shows_0400)
{
	expect_modes(0400, 0);
}

/* The osprof-report command a child runs (fork copies it). */
static const char *g_report;

/* osprof-report g_report MNT as the user; its stderr in top/report.err. */
static int report_as_user(void)
{
	char cmd[PATH_MAX * 3];

	snprintf(cmd, sizeof(cmd), "%s %s %s 2>%s/report.err >/dev/null",
		 getenv("OSPROF_REPORT"), g_report, m.dir, m.top);
	return WEXITSTATUS(system(cmd));
}

/* osprof-report @cmd MNT fails (status 2) saying why about @file, in one line. */
static void expect_report_refused(const char *cmd, const char *file)
{
	char *err, want[128];

	cr_assert_not_null(getenv("OSPROF_REPORT"), "OSPROF_REPORT must name osprof-report");
	cr_assert_eq(chmod(m.top, 0777), 0); /* the user writes report.err there */
	g_report = cmd;
	cr_expect_eq(as_user(report_as_user), 2, "osprof-report %s's error status", cmd);
	err = h_slurp(h_at(m.top, "report.err"), NULL);
	cr_assert_not_null(err);
	snprintf(want, sizeof(want), "%s: permission denied: it names files, processes or users",
		 file);
	cr_expect_not_null(strstr(err, want), "%s said: %s", cmd, err);
	cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	cr_expect_null(strstr(err, SECRET));
	free(err);
}

Test(privacy, report_says_in_one_line_that_it_may_not_read)
{
	expect_report_refused("top --count 1", "top.json");
	expect_report_refused("show --by", "by.json");
}

Test(privacy_nogroup, a_group_name_is_looked_up)
{
	const char *args[] = { "-o", "ctl_group=root", NULL };
	struct mnt n;
	struct stat st;

	h_tree(&n);
	h_start(&n, args);
	cr_expect_eq(stat(h_at(n.ctl, "top"), &st), 0);
	cr_expect_eq(st.st_gid, 0);
	cr_expect_eq(st.st_mode & 07777, 0440);
	cr_expect_eq(h_stop(&n), 0);
	h_cleanup(&n);
}

Test(privacy_nogroup, an_unknown_group_is_refused)
{
	const char *args[] = { m.lower, h_at(m.top, "none"), "-o", "ctl_group=no such group", NULL };
	char *err = NULL;

	cr_expect_neq(h_run_fail(args, &err), 0);
	cr_expect_not_null(strstr(err, "ctl_group=no such group: expected a group name or a gid"),
			   "said: %s", err);
	free(err);
}

/* --dump's companions that name things are the daemon's user's alone. */
Test(privacy_nogroup, dumps_that_name_things_are_0600)
{
	static const char *const dumps[] = { "run.top.json", "run.slow.json", "run.by.json" };
	char dump[PATH_MAX], opts[] = "allow_other,top,slow=0,by=file,values";
	const char *args[] = { "-o", opts, "--dump", dump, NULL };
	struct mnt n;
	struct stat st;
	char *s;

	h_tree(&n);
	snprintf(dump, sizeof(dump), "%s/run.json", n.top);
	h_start(&n, args);
	cr_assert_eq(h_write_str(h_at(n.dir, SECRET), "1"), 0);
	s = h_slurp(h_at(n.dir, SECRET), NULL);
	free(s);
	cr_assert_eq(h_stop(&n), 0);
	for (size_t i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		cr_assert_eq(stat(h_at(n.top, dumps[i]), &st), 0, "%s written", dumps[i]);
		cr_expect_eq(st.st_mode & 07777, 0600, "%s: mode %o", dumps[i],
			     (unsigned)(st.st_mode & 07777));
	}
	/* The profiles name nothing: as before, 0644 less the umask. */
	cr_assert_eq(stat(h_at(n.top, "run.values.json"), &st), 0);
	cr_expect_neq(st.st_mode & 0044, 0, "values.json: mode %o", (unsigned)(st.st_mode & 07777));
	cr_assert_eq(stat(dump, &st), 0);
	cr_expect_neq(st.st_mode & 0044, 0, "run.json: mode %o", (unsigned)(st.st_mode & 07777));
	h_cleanup(&n);
}
