// SPDX-License-Identifier: MIT
/* The helpers of cli.h: tests driving osprof-report as a user would. */
#include <criterion/criterion.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static char tmpdir[256];
static void *owned[16384];
static size_t nowned;

void cli_setup(void)
{
	const char *t = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/orp-test-XXXXXX", t && *t ? t : "/tmp");
	cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

void cli_teardown(void)
{
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	while (nowned)
		free(owned[--nowned]);
}

const char *cli_dir(void)
{
	return tmpdir;
}

void *own(void *p)
{
	cr_assert_lt(nowned, sizeof(owned) / sizeof(owned[0]));
	owned[nowned++] = p;
	return p;
}

char *tpath(const char *fmt, ...)
{
	char *rel, *abs;
	va_list ap;

	va_start(ap, fmt);
	cr_assert(vasprintf(&rel, fmt, ap) >= 0);
	va_end(ap);
	cr_assert(asprintf(&abs, "%s/%s", tmpdir, rel) >= 0);
	free(rel);
	return own(abs);
}

char *slurp_n(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0;
	FILE *mem;
	char chunk[4096];
	size_t got;

	if (!f)
		return NULL;
	mem = open_memstream(&buf, &n);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, got, mem);
	fclose(mem);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

char *slurp(const char *path)
{
	return slurp_n(path, NULL);
}

void spit(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *line_starting(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, prefix, n) == 0)
			return own(strndup(l, strcspn(l, "\n")));
	return NULL;
}

struct run run_argv(char *const *argv)
{
	static int seq;
	char *o = tpath("out.%d", seq), *e = tpath("err.%d", seq);
	struct run r = { -1, NULL, NULL, 0 };
	pid_t pid;
	int st;

	seq++;
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		if (!freopen(o, "w", stdout) || !freopen(e, "w", stderr))
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	cr_assert(waitpid(pid, &st, 0) == pid);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r.out = own(slurp_n(o, &r.outlen));
	r.err = own(slurp(e));
	cr_assert_not_null(r.out);
	cr_assert_not_null(r.err);
	return r;
}

const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);

	return v && *v ? v : fallback;
}
