/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the bench behaviour tests: run a built program and capture its
 * combined output and exit status, private temporary directories under the
 * build tree, and reading the JSON osprof-bench writes.
 */
#ifndef BT_HELPERS_H
#define BT_HELPERS_H

#include <json-c/json.h>
#include <stddef.h>

/* Output and exit code of one program run. */
struct bt_result {
	char *out;	/* stdout and stderr, interleaved as written; owned */
	int code;	/* exit status, or 128 + signal */
};

/*
 * Run argv[0] (a path) with argv, stdin from /dev/null; aborts the test if
 * it cannot be started. Free with bt_result_free.
 */
struct bt_result bt_run(const char *const argv[]);
void bt_result_free(struct bt_result *r);

/* The program under test named by an environment variable set by meson. */
const char *bt_program(const char *env);

/* Run bt_program(env) with the NULL-terminated arguments (at most 30). */
struct bt_result bt_run_program(const char *env, const char *const args[]);

/* A new private directory (under OSPROF_TEST_TMPDIR or /tmp); bt_rmtree
 * removes it and everything inside. */
char *bt_tmpdir(void);
void bt_rmtree(const char *dir);

/* Path dir/name into a new string. */
char *bt_path(const char *dir, const char *name);

/* Read a whole file into a new string, NULL if it cannot be read. */
char *bt_slurp(const char *path);

/* Parse a JSON file; aborts the test if it is not valid JSON. */
json_object *bt_json_file(const char *path);

/*
 * Follow a path of keys (strings) and array indexes (written "#0", "#1")
 * from o; NULL when any step is missing. bt_jnum reads a number there
 * (aborting the test when missing).
 */
json_object *bt_jget(json_object *o, const char *const path[]);
double bt_jnum(json_object *o, const char *const path[]);

#endif /* BT_HELPERS_H */
