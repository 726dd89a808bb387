/* SPDX-License-Identifier: MIT */
/*
 * What the tests that drive osprof-report as a user would share: a
 * private temporary directory per test, paths in it, whole-file reads and
 * writes, and running a program with its output captured. Strings handed
 * out are freed at teardown, so tests need not.
 */
#ifndef TESTS_REPORT_CLI_H
#define TESTS_REPORT_CLI_H

#include <stdbool.h>
#include <stddef.h>

/* Make the test's directory (init) and remove it with all it holds (fini). */
void cli_setup(void);
void cli_teardown(void);
/* The test's directory. */
const char *cli_dir(void);

/* Keep @p until teardown; returns it. */
void *own(void *p);
/* A path in the test's private directory. */
__attribute__((format(printf, 1, 2)))
char *tpath(const char *fmt, ...);
/* A whole file (NUL-terminated; the caller frees), or NULL. @len may be NULL. */
char *slurp_n(const char *path, size_t *len);
char *slurp(const char *path);
void spit(const char *path, const char *text, size_t len);
bool exists(const char *path);
/* The line of @text starting with @prefix (at a line's start), without its
 * newline, kept until teardown; NULL when there is none. */
char *line_starting(const char *text, const char *prefix);

struct run {
	int status; /* exit status, or -1 when killed */
	char *out, *err;
	size_t outlen;
};

/* Run @argv (argv[0] is a program path) with stdout/stderr captured. */
struct run run_argv(char *const *argv);

const char *env_or(const char *name, const char *fallback);

/* osprof-report with the given arguments, NULL-terminated. */
#define REPORT(...) run_argv((char *const[]){ (char *)env_or("ORP_BIN", "osprof-report"), __VA_ARGS__, NULL })

#endif
