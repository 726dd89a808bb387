/* SPDX-License-Identifier: MIT */
/*
 * Mount-level test harness: start the real osprof-fs daemon on a private
 * temporary directory, wait for the mount, and always unmount and reap it.
 * The daemon runs in the foreground with PR_SET_PDEATHSIG, so a crashing
 * test cannot leave a mount behind; its stderr is kept, and anything at
 * all in it (a sanitizer report, a warning) fails the test.
 */
#ifndef TESTS_FS_HARNESS_H
#define TESTS_FS_HARNESS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "osprof/profile.h"

struct mnt {
	char top[PATH_MAX];    /* private temporary directory */
	char lower[PATH_MAX];  /* top/lower */
	char dir[PATH_MAX];    /* top/mnt: the mountpoint */
	char log[PATH_MAX];    /* the daemon's stderr */
	char ctl[PATH_MAX + 32]; /* dir/.osprof */
	pid_t pid;
	bool bad_stderr;       /* the daemon said something: the test fails */
};

/* Path of the osprof-fs binary (OSPROF_FS from meson). */
const char *h_osprof_fs(void);

/*
 * The transport the mount tests run under: OSPROF_TEST_TRANSPORT, mount
 * options every h_start adds (tests/fs/meson.build runs each mount test
 * with none, with passthrough=require and with io_uring=require), "" for
 * none; not to a mount that asks for the writeback cache under
 * passthrough (the kernel passes nothing through then). Passthrough
 * takes reads and writes of opened files from the fs layer: a test that
 * counts them asserts what is true then instead (h_expect_data).
 */
const char *h_transport(void);
bool h_passthrough(void);
/*
 * The noopen variant (OSPROF_TEST_TRANSPORT "noopen"): added to mounts
 * that ask for cache=auto or always; one that names no cache mode gets
 * cache=auto,entry_timeout=0,attr_timeout=0 with it; those that ask
 * cache=never, writeback or passthrough, which noopen refuses, none.
 * Then the kernel answers opens itself: the first OPEN, OPENDIR, CREATE
 * and FLUSH reach the daemon (answered ENOSYS), none after, nor any
 * RELEASE; locks stay in the kernel; reads go through the page cache
 * (O_DIRECT sends each as one READ); default_permissions, which noopen
 * implies, asks each directory's attributes on a path walk (the root's
 * too when a control file is read).
 */
bool h_noopen(void);

/* Make a fresh temporary tree: top, lower, mnt (nothing mounted). */
void h_tree(struct mnt *m);
/*
 * Start osprof-fs LOWER MNT -f plus @args (NULL-terminated, may be NULL),
 * with lower/mnt as given (NULL: m->lower, m->dir); wait until mounted.
 * Fails the test (cr_assert) when it does not mount within 10 s.
 */
void h_start_at(struct mnt *m, const char *lower, const char *dir,
		const char *const *args);
void h_start(struct mnt *m, const char *const *args);
/* Unmount, reap, check stderr; returns the daemon's exit status. */
int h_stop(struct mnt *m);
/*
 * Stop the daemon if running, remove the temporary tree. Meant for a
 * suite's .fini, where Criterion ignores failed assertions: a daemon that
 * wrote to stderr makes it abort, which Criterion does count.
 */
void h_cleanup(struct mnt *m);
struct sleepfs;
/* The same for a mount over sleepfs @s: osprof-fs first, then @s. */
void h_cleanup_over(struct mnt *m, struct sleepfs *s);

/* The mount's current profile from .osprof/stats.json (checked). */
struct osp_profile *h_profile(struct mnt *m);
/*
 * The profile once operation @op counts @n or more, or after 5 s: for
 * the asynchronous ones (release), which over io_uring may come after a
 * later request, queued on another CPU's ring.
 */
struct osp_profile *h_profile_when(struct mnt *m, const char *op, uint64_t n);
/*
 * The profile once every open and opendir so far has its release, or
 * after 5 s: before a reset whose counts must stay 0 (a release queued on
 * another CPU's ring would come after it). At once on a noopen mount,
 * where none comes.
 */
struct osp_profile *h_profile_released(struct mnt *m);
/* Count of operation @op in @p (0 when absent). */
uint64_t h_count(const struct osp_profile *p, const char *op);

/* The line of @text that starts with @prefix (at a line's start), without
 * its newline, malloc'd; NULL when there is none. */
char *h_line(const char *text, const char *prefix);
/* The value of key @key in @m's .osprof/ctl (the rest of the line "key
 * value"), malloc'd; NULL when ctl has no such line. */
char *h_ctl_value(const struct mnt *m, const char *key);
/* The same as a number: checked present and a whole decimal number. */
uint64_t h_ctl_u64(const struct mnt *m, const char *key);
/*
 * h_expect_data - @op ("read" or "write") of @p was counted exactly @n
 * times; under passthrough, not at all, and the profile says it passed
 * through (its options' passed_through).
 */
void h_expect_data(const struct osp_profile *p, const char *op, uint64_t n);

/* Whole file into a NUL-terminated malloc'd buffer; NULL on error. */
char *h_slurp(const char *path, size_t *len);
/* Write @s to @path (O_TRUNC); 0 or -errno of the failing call. */
int h_write_str(const char *path, const char *s);
/*
 * Run @fn in a child as @uid, @gid with supplementary @groups (@ngroups,
 * may be 0); returns what it returned (an errno, 0 for success), 100 when
 * the identity could not be taken, 101 when it did not exit.
 */
int h_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups, int (*fn)(void));
/* Run a shell command, return its exit status (-1 if it did not exit). */
int h_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Run osprof-fs with @args (NULL-terminated) expecting it to fail at once:
 * returns its exit status and its stderr in @err (malloc'd).
 */
int h_run_fail(const char *const *args, char **err);
/* Join two path parts into a static-free buffer of PATH_MAX. */
char *h_path(char *buf, const char *a, const char *b);
/*
 * @a/@b in one of 8 static buffers used in turn: valid for the next 7
 * calls, enough for the paths of one call (the tests' M() and L()).
 */
char *h_at(const char *a, const char *b);

/* sleepfs (tests/fs/sleepfs.c): a FUSE file system with slow reads. */
struct sleepfs {
	char dir[PATH_MAX];  /* its mountpoint, top/slow */
	pid_t pid;           /* 0 when not started */
	bool threaded;       /* set before start: serve requests in parallel */
};
/*
 * Mount sleepfs at @top/slow with reads of "slow" taking @sleep_us
 * (single-threaded, for exact timings, unless s->threaded)
 * (SLEEPFS from meson names the binary); wait until it serves. Fails the
 * test (cr_assert) when it does not mount within 5 s; s->pid is set as
 * soon as it runs, so h_sleepfs_stop can always reap it.
 */
void h_sleepfs_start(struct sleepfs *s, const char *top, const char *sleep_us);
/* Unmount and reap sleepfs if it was started. */
void h_sleepfs_stop(struct sleepfs *s);

#endif
