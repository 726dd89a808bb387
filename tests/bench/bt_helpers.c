// SPDX-License-Identifier: MIT
/*
 * Helpers of the bench behaviour tests (see bt_helpers.h): running the
 * programs under test with fork/exec and a pipe, temporary directories and
 * JSON look-ups, each failing the test with a message that says what broke.
 */
#include "bt_helpers.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct bt_result bt_run(const char *const argv[])
{
	struct bt_result r = { NULL, -1 };
	size_t len = 0, cap = 4096;
	int fds[2], st;

	cr_assert_eq(pipe2(fds, O_CLOEXEC), 0, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);
		dup2(null, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	r.out = malloc(cap);
	cr_assert_not_null(r.out);
	for (;;) {
		if (len + 1024 > cap) {
			cap *= 2;
			r.out = realloc(r.out, cap);
			cr_assert_not_null(r.out);
		}
		ssize_t n = read(fds[0], r.out + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	r.out[len] = '\0';
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0)
		cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
	r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

void bt_result_free(struct bt_result *r)
{
	free(r->out);
	r->out = NULL;
}

const char *bt_program(const char *env)
{
	const char *p = getenv(env);

	cr_assert_not_null(p, "%s is not set: run the tests through meson test", env);
	return p;
}

struct bt_result bt_run_program(const char *env, const char *const args[])
{
	const char *argv[32] = { bt_program(env) };
	size_t n = 0;

	for (; args[n]; n++) {
		cr_assert_lt(n, 30, "too many arguments");
		argv[n + 1] = args[n];
	}
	argv[n + 1] = NULL;
	return bt_run(argv);
}

char *bt_tmpdir(void)
{
	const char *base = getenv("OSPROF_TEST_TMPDIR");
	char *dir;

	if (!base || !*base)
		base = "/tmp";
	cr_assert_gt(asprintf(&dir, "%s/bench-test.XXXXXX", base), 0);
	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void bt_rmtree(const char *dir)
{
	if (dir)
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

char *bt_path(const char *dir, const char *name)
{
	char *p;

	cr_assert_gt(asprintf(&p, "%s/%s", dir, name), 0);
	return p;
}

char *bt_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	FILE *m = open_memstream(&buf, &len);
	int c;
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

json_object *bt_json_file(const char *path)
{
	json_object *o = json_object_from_file(path);

	cr_assert_not_null(o, "%s is not valid JSON: %s", path,
			   json_util_get_last_err());
	return o;
}

json_object *bt_jget(json_object *o, const char *const path[])
{
	for (size_t i = 0; o && path[i]; i++) {
		if (path[i][0] == '#') {
			size_t idx = strtoul(path[i] + 1, NULL, 10);
			if (!json_object_is_type(o, json_type_array) ||
			    idx >= json_object_array_length(o))
				return NULL;
			o = json_object_array_get_idx(o, idx);
		} else if (!json_object_object_get_ex(o, path[i], &o)) {
			return NULL;
		}
	}
	return o;
}

double bt_jnum(json_object *o, const char *const path[])
{
	json_object *v = bt_jget(o, path);

	cr_assert(v && (json_object_is_type(v, json_type_double) ||
			json_object_is_type(v, json_type_int)),
		  "JSON: no number at %s/%s/%s...", path[0],
		  path[1] ? path[1] : "", path[1] && path[2] ? path[2] : "");
	return json_object_get_double(v);
}
