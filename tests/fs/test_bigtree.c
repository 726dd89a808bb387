// SPDX-License-Identifier: MIT
/*
 * A tree with more files than the hard open-file limit (20,000 here):
 * every file is looked up and read through the mount while the kernel
 * keeps them all referenced, and the daemon's cached descriptors stay
 * bounded because inodes are known by file handle.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness.h"

#define NFILES 25000

static struct mnt m;

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(bigtree, .fini = down, .timeout = 300);

Test(bigtree, more_files_than_the_fd_limit_all_readable)
{
	struct rlimit rl;
	char out[PATH_MAX], *s;

	getrlimit(RLIMIT_NOFILE, &rl);
	cr_assert_lt(rl.rlim_max, NFILES, "the test needs more files than the hard limit");
	h_tree(&m);
	/* 25 directories of 1000 files, each holding its own name. */
	cr_assert_eq(h_sh("cd '%s' && for d in $(seq 1 25); do mkdir d$d && (cd d$d && "
			  "for f in $(seq 1 1000); do echo d$d/f$f > f$f; done); done", m.lower), 0);
	h_start(&m, NULL);
	snprintf(out, sizeof(out), "%s/count", m.top);
	/* Open and read every file; the kernel keeps every inode referenced. */
	cr_assert_eq(h_sh("cd '%s' && find . -type f | sort | xargs cat | wc -l > '%s'",
			  m.dir, out), 0);
	s = h_slurp(out, NULL);
	cr_expect_eq(atoi(s), NFILES);
	free(s);
	/* All known at once: every file and directory, the root apart. */
	cr_expect_eq(h_ctl_u64(&m, "inodes"), NFILES + 25);
	cr_expect_leq(h_ctl_u64(&m, "fd_cached"), h_ctl_u64(&m, "fd_cache_max"));
	cr_expect_lt(h_ctl_u64(&m, "fd_cache_max"), rl.rlim_max);
	/* Still healthy: a new file and a reread of the first. */
	cr_expect_eq(h_sh("echo ok > '%s/new' && grep -q d1/f1 '%s/d1/f1'", m.dir, m.dir), 0);
	cr_expect_eq(h_stop(&m), 0);
}
