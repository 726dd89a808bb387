// SPDX-License-Identifier: MIT
/*
 * The profile seen through .osprof: every operation counted as often as
 * issued (exactly, where only the test issues it) with checksums
 * holding, reset, enable/disable, the
 * timeline's deltas adding up, malformed commands refused with EINVAL and
 * nothing changed, and the text views.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static struct mnt m;

static void up(void)
{
	h_tree(&m);
	h_start(&m, NULL);
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(ctl, .init = up, .fini = down, .timeout = 120);

/* A name in the mount. */
#define M(name) h_at(m.dir, name)

static int ctl_write(const char *cmd)
{
	char path[PATH_MAX];
	int fd, err = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/ctl", m.ctl);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, cmd, strlen(cmd));
	if (n < 0)
		err = -errno;
	close(fd);
	return err;
}

static char *ctl_read(const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", m.ctl, file);
	return h_slurp(path, NULL);
}

/* The ctl file but for its last_error line (which a refusal sets). */
static char *ctl_settings(void)
{
	char *s = ctl_read("ctl"), *l = s ? strstr(s, "last_error ") : NULL;

	if (l)
		memmove(l, strchr(l, '\n') + 1, strlen(strchr(l, '\n') + 1) + 1);
	return s;
}

/* Expect ctl's @key to read @want. */
#define EXPECT_CTL(key, want, ...)                                 \
	do {                                                       \
		char *v_ = h_ctl_value(&m, key);                         \
		cr_expect_str_eq(v_, want, "" __VA_ARGS__);        \
		free(v_);                                          \
	} while (0)

#define N 5

/* Issue every operation N times (or more); see the table of expectations. */
static void workload(void)
{
	char buf[16], name[64];
	struct stat st;
	struct statvfs sv;
	int fd, fd2, dfd;

	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		fd = open(M(name), O_CREAT | O_RDWR, 0644);            /* create */
		cr_assert_geq(fd, 0);
		cr_expect_eq(write(fd, "0123456789", 10), 10);          /* write */
		cr_expect_eq(pread(fd, buf, 4, 0), 4);                  /* read */
		cr_expect_eq(fsync(fd), 0);                             /* fsync */
		cr_expect_eq(flock(fd, LOCK_EX), 0);                    /* flock */
		cr_expect_eq(fallocate(fd, 0, 0, 4096), 0);             /* fallocate */
		cr_expect_geq(lseek(fd, 0, SEEK_DATA), 0);              /* lseek */
		fd2 = open(M(name), O_RDWR);                            /* open */
		{
			loff_t in = 0, out = 100;

			cr_expect_eq(copy_file_range(fd, &in, fd2, &out, 5, 0), 5);
		}
		close(fd2);
		close(fd);                                              /* flush, release */
		cr_expect_eq(stat(M(name), &st), 0);                   /* lookup, getattr */
		cr_expect_eq(chmod(M(name), 0600), 0);                  /* setattr */
		cr_expect_eq(access(M(name), R_OK), 0);                 /* access */
		cr_expect_eq(setxattr(M(name), "user.k", "v", 1, 0), 0);
		cr_expect_eq(getxattr(M(name), "user.k", buf, sizeof(buf)), 1);
		cr_expect_gt(listxattr(M(name), buf, sizeof(buf)), 0);
		cr_expect_eq(removexattr(M(name), "user.k"), 0);
		snprintf(name, sizeof(name), "d%d", i);
		cr_expect_eq(mkdir(M(name), 0755), 0);
		dfd = open(M(name), O_RDONLY | O_DIRECTORY);            /* opendir */
		cr_expect_eq(fsync(dfd), 0);                            /* fsyncdir */
		close(dfd);                                             /* releasedir */
		cr_expect_eq(rmdir(M(name)), 0);
		snprintf(name, sizeof(name), "s%d", i);
		cr_expect_eq(symlink("f0", M(name)), 0);
		cr_expect_eq(readlink(M(name), buf, sizeof(buf)), 2);
		snprintf(name, sizeof(name), "p%d", i);
		cr_expect_eq(mknod(M(name), S_IFIFO | 0600, 0), 0);
		snprintf(buf, sizeof(buf), "h%d", i);
		cr_expect_eq(link(M(name), M(buf)), 0);
		cr_expect_eq(unlink(M(buf)), 0);
		snprintf(buf, sizeof(buf), "r%d", i);
		cr_expect_eq(rename(M(name), M(buf)), 0);
		cr_expect_eq(statvfs(m.dir, &sv), 0);
	}
	/* A big directory: readdirplus for the first batch, readdir after. */
	cr_assert_eq(h_sh("cd '%s' && mkdir big && cd big && seq 1 3000 | xargs touch", m.lower), 0);
	for (int i = 0; i < N; i++) {
		DIR *d = opendir(M("big"));
		int n = 0;

		cr_assert_not_null(d);
		while (readdir(d))
			n++;
		closedir(d);
		cr_expect_eq(n, 3002);
	}
	/* Evicted inodes come back as forgets, several at once as a batch. */
	cr_assert_eq(h_sh("find '%s' > /dev/null && rm -rf '%s/big' && sync && echo 2 > /proc/sys/vm/drop_caches",
			  M("big"), m.dir), 0);
}

/*
 * The count of @op under -o noopen (its variant mounts cache=auto): the
 * first create and open reach the daemon, answered ENOSYS, then none;
 * the kernel makes each file with a mknod instead (the workload's own
 * mknods and its creates); flock stays in the kernel, and so does access
 * (default_permissions, which noopen implies). The others: N.
 */
static uint64_t noopen_count(const char *op)
{
	static const struct {
		const char *op;
		uint64_t n;
	} counts[] = { { "create", 1 }, { "open", 1 }, { "mknod", 2 * N }, { "flock", 0 },
		       { "access", 0 } };

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		if (strcmp(counts[i].op, op) == 0)
			return counts[i].n;
	return N;
}

Test(ctl, every_operation_is_counted_with_checksums_holding)
{
	/* Issued by the workload's own calls, N times each, and by nothing else. */
	static const char *const exactly_n[] = {
		"create", "write", "read", "fsync", "flock", "fallocate", "lseek",
		"open", "copy_file_range", "setattr", "access", "setxattr",
		"listxattr", "removexattr", "mkdir", "fsyncdir", "symlink",
		"readlink", "mknod", "link", "rename",
	};
	/*
	 * Also sent by the kernel or the tools the workload runs, as they
	 * see fit: path walks (lookup, getattr), find and rm (statfs,
	 * opendir), the kernel's check for security.capability before a
	 * write (getxattr), the size of a reply (readdir, readdirplus).
	 */
	static const char *const at_least_n[] = {
		"lookup", "getattr", "getxattr", "statfs", "opendir", "readdirplus", "readdir",
	};
	struct osp_profile *p;

	workload();
	p = h_profile(&m);
	for (size_t i = 0; i < sizeof(exactly_n) / sizeof(exactly_n[0]); i++) {
		uint64_t want = h_noopen() ? noopen_count(exactly_n[i]) : N;

		if (strcmp(exactly_n[i], "read") == 0 || strcmp(exactly_n[i], "write") == 0) {
			h_expect_data(p, exactly_n[i], N);
			continue;
		}
		cr_expect_eq(h_count(p, exactly_n[i]), want, "%s: %llu, not %llu", exactly_n[i],
			     (unsigned long long)h_count(p, exactly_n[i]), (unsigned long long)want);
	}
	for (size_t i = 0; i < sizeof(at_least_n) / sizeof(at_least_n[0]); i++) {
		/* noopen: one opendir (answered ENOSYS), the listings cached */
		uint64_t want = h_noopen() && (strcmp(at_least_n[i], "opendir") == 0 ||
					       strncmp(at_least_n[i], "readdir", 7) == 0) ? 1 : N;

		cr_expect_geq(h_count(p, at_least_n[i]), want, "%s: %llu < %llu", at_least_n[i],
			      (unsigned long long)h_count(p, at_least_n[i]), (unsigned long long)want);
	}
	if (h_noopen()) {
		/* The first flush answered ENOSYS, then none; no release. */
		cr_expect_eq(h_count(p, "opendir"), 1);
		cr_expect_eq(h_count(p, "flush"), 1);
		cr_expect_eq(h_count(p, "release"), 0);
	} else {
		/* Two descriptors a round, each flushed and released once. */
		cr_expect_eq(h_count(p, "flush"), 2 * N);
		cr_expect_eq(h_count(p, "release"), 2 * N);
	}
	/* rm -rf removes big's 3,000 files and big itself, once each. */
	cr_expect_eq(h_count(p, "unlink"), N + 3000);
	cr_expect_eq(h_count(p, "rmdir"), N + 1);
	/* Whoever opens a directory releases it, once (noopen: none does). */
	cr_expect_eq(h_count(p, "releasedir"), h_noopen() ? 0 : h_count(p, "opendir"));
	/* How the kernel batches its forgets is its timing. */
	cr_expect_gt(h_count(p, "forget") + h_count(p, "batch_forget"), 0);
	cr_expect_gt(h_count(p, "batch_forget"), 0, "drop_caches evicts in batches");
	cr_expect_str_eq(p->layer, "fs");
	cr_expect_str_eq(osp_kv_get(&p->options, "cache"), h_noopen() ? "\"auto\"" : "\"never\"");
	cr_expect_eq(p->nops, 35, "every operation is listed, even unused ones");
	osp_profile_free(p);
}

/*
 * A call is in the profile by the time it returns: statfs (always a
 * request) and a getxattr that fails (the error reply), each read back
 * right after every one of 100 calls, exact every time.
 */
Test(ctl, a_call_is_counted_by_the_time_it_returns)
{
	struct osp_profile *p = h_profile(&m);
	uint64_t statfs0 = h_count(p, "statfs"), getxattr0 = h_count(p, "getxattr");
	struct statvfs sv;
	char v[8];

	osp_profile_free(p);
	cr_assert_eq(h_write_str(h_at(m.lower, "x"), "x"), 0);
	for (uint64_t i = 1; i <= 100; i++) {
		cr_assert_eq(statvfs(m.dir, &sv), 0);
		p = h_profile(&m);
		cr_assert_eq(h_count(p, "statfs"), statfs0 + i, "statfs %llu: counted %llu",
			     (unsigned long long)i, (unsigned long long)(h_count(p, "statfs") - statfs0));
		osp_profile_free(p);
		cr_assert_eq(getxattr(M("x"), "user.none", v, sizeof(v)), -1);
		cr_assert_eq(errno, ENODATA);
		p = h_profile(&m);
		cr_assert_eq(h_count(p, "getxattr"), getxattr0 + i, "getxattr %llu: counted %llu",
			     (unsigned long long)i, (unsigned long long)(h_count(p, "getxattr") - getxattr0));
		osp_profile_free(p);
	}
}

Test(ctl, reset_zeroes_and_disable_stops_counting)
{
	struct osp_profile *p;
	struct stat st;

	cr_assert_eq(h_write_str(M("x"), "x"), 0);
	/* x's release first: over io_uring one came after the reset */
	p = h_profile_released(&m);
	h_expect_data(p, "write", 1);
	osp_profile_free(p);
	/*
	 * And x's FORGET: its entry timed out at once, so the kernel let its
	 * dentry and inode go at the last close and queued a FORGET, which a
	 * slow run (AddressSanitizer) served after the reset. It may come in
	 * a BATCH_FORGET (under noopen, with control inodes'). 5 s at most.
	 */
	for (int i = 0; i < 500; i++) {
		uint64_t n;

		p = h_profile(&m);
		n = h_count(p, "forget") + h_count(p, "batch_forget");
		osp_profile_free(p);
		if (n)
			break;
		usleep(10000);
	}
	cr_assert_eq(ctl_write("reset\n"), 0);
	p = h_profile(&m);
	/*
	 * -o noopen implies default_permissions: the kernel checks the
	 * root's permission on each path walk, reading stats.json's
	 * included, and asks for its attributes (timeouts 0): one getattr.
	 */
	for (size_t i = 0; i < p->nops; i++)
		cr_expect_eq(p->ops[i].lat.count,
			     h_noopen() && strcmp(p->ops[i].name, "getattr") == 0 ? 1 : 0, "%s",
			     p->ops[i].name);
	osp_profile_free(p);
	cr_assert_eq(ctl_write("disable"), 0);
	EXPECT_CTL("profiling", "off");
	for (int i = 0; i < 10; i++)
		stat(M("x"), &st);
	p = h_profile(&m);
	/* noopen: the getattr above and the root's for ctl's write */
	cr_expect_eq(h_count(p, "getattr"), h_noopen() ? 2 : 0);
	osp_profile_free(p);
	cr_assert_eq(ctl_write("enable\n"), 0);
	for (int i = 0; i < 10; i++)
		stat(M("x"), &st);
	/*
	 * cache=never: no attribute is kept, each stat asks (noopen: for
	 * the root's too, and once more to read stats.json, after the 2
	 * before the disable).
	 */
	p = h_profile(&m);
	cr_expect_eq(h_count(p, "getattr"), h_noopen() ? 2 + 2 * 10 + 1 : 10);
	cr_expect_eq(h_count(p, "lookup"), 10);
	osp_profile_free(p);
}

Test(ctl, timeline_deltas_add_up_to_totals)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	unsigned long long getattrs = 0;
	struct osp_profile *p;
	struct stat st;
	char *s, *l, want[96];

	cr_assert_eq(ctl_write("timeline 100"), 0);
	EXPECT_CTL("timeline", "100 1000");
	for (int burst = 0; burst < 15; burst++) {
		for (int i = 0; i < 20; i++)
			stat(m.dir, &st);
		nanosleep(&ts, NULL);
	}
	p = h_profile(&m);
	/* Timing: 450 ms of sleeps at least, however long the stats took. */
	cr_expect_geq(p->nsnaps, 3, "450 ms at 100 ms");
	cr_expect_eq(p->tl_interval_ns, 100000000);
	for (size_t i = 0; i < p->nops; i++) {
		uint64_t count = 0, sum = 0;

		for (size_t s2 = 0; s2 < p->nsnaps; s2++) {
			const struct osp_op *o = NULL;

			for (size_t k = 0; k < p->snaps[s2].nops; k++)
				if (strcmp(p->snaps[s2].ops[k].name, p->ops[i].name) == 0)
					o = &p->snaps[s2].ops[k];
			if (o) {
				count += o->lat.count;
				sum += o->lat.sum;
			}
		}
		cr_expect_eq(count, p->ops[i].lat.count, "%s", p->ops[i].name);
		cr_expect_eq(sum, p->ops[i].lat.sum, "%s", p->ops[i].name);
	}
	/*
	 * The root's attributes, asked for by each stat (cache=never); under
	 * noopen also by the permission checks of reading and writing the
	 * control files (default_permissions).
	 */
	if (h_noopen())
		cr_expect_geq(h_count(p, "getattr"), 15 * 20);
	else
		cr_expect_eq(h_count(p, "getattr"), 15 * 20);
	s = ctl_read("timeline");
	l = h_line(s, "timeline: interval 100ms, ");
	cr_assert_not_null(l, "%s", s);
	snprintf(want, sizeof(want), "timeline: interval 100ms, %zu snapshots, 0 dropped", p->nsnaps);
	cr_expect_str_eq(l, want);
	free(l);
	/* Each snapshot's getattr row: its count adds up to the total. */
	for (char *r = strstr(s, " getattr "); r; r = strstr(r + 1, " getattr ")) {
		unsigned long long n;

		cr_assert_eq(sscanf(r, " getattr %llu", &n), 1, "%s", s);
		getattrs += n;
	}
	if (h_noopen())
		cr_expect_geq(getattrs, 15 * 20, "%s", s);
	else
		cr_expect_eq(getattrs, 15 * 20, "%s", s);
	free(s);
	osp_profile_free(p);
	cr_assert_eq(ctl_write("timeline off"), 0);
	EXPECT_CTL("timeline", "off");
}

Test(ctl, malformed_commands_fail_with_einval_and_change_nothing)
{
	static const char *const bad[] = {
		"bogus\n", "reset now\n", "timeline\n", "timeline abc\n",
		"timeline 0\n", "timeline 100 0\n", "timeline -5\n",
		"timeline 100 10 extra\n", "enable\nbogus\n", "reset\nnope\n",
		"timeline 99999999999999999999\n", "disable\x01\n",
	};
	struct osp_profile *p;
	char *before, *after;

	cr_assert_eq(h_write_str(M("x"), "x"), 0);
	before = ctl_settings();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_expect_eq(ctl_write(bad[i]), -EINVAL, "'%s' was accepted", bad[i]);
	after = ctl_settings();
	cr_expect_str_eq(before, after);
	free(before);
	free(after);
	p = h_profile(&m);
	/* create: counted under passthrough too */
	cr_expect_eq(h_count(p, h_passthrough() ? "create" : "write"), 1, "no reset happened");
	osp_profile_free(p);
	/* Blank lines and several good commands in one write are fine. */
	cr_expect_eq(ctl_write("\n  \nreset\n\ndisable\nenable\n"), 0);
}

/*
 * Regression: a write larger than one FUSE request arrived in pieces and
 * each was applied, so `disable`, a megabyte of blanks, then `bogus` left
 * profiling disabled and the write reported short. Now a batch is one
 * write of at most 64 KiB at offset 0; anything else changes nothing.
 */
Test(ctl, a_batch_is_one_bounded_write_at_offset_zero)
{
	size_t big = 1u << 20;
	char *buf = malloc(big), path[PATH_MAX];
	int fd;

	cr_assert_not_null(buf);
	memset(buf, ' ', big);
	memcpy(buf, "disable\n", 8);
	memcpy(buf + big - 6, "bogus\n", 6);
	snprintf(path, sizeof(path), "%s/ctl", m.ctl);
	fd = open(path, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(write(fd, buf, big), -1);
	cr_expect_eq(errno, EINVAL);
	close(fd);
	EXPECT_CTL("profiling", "on", "the disable in the first piece was applied");
	EXPECT_CTL("last_error", "a batch is at most 65536 bytes, in one write");

	/* Two writes on one open file: the second is not at offset 0. */
	fd = open(path, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(write(fd, "reset\n", 6), 6);
	cr_expect_eq(write(fd, "disable\n", 8), -1);
	cr_expect_eq(errno, EINVAL);
	close(fd);
	EXPECT_CTL("profiling", "on");
	EXPECT_CTL("last_error", "a batch is one write at offset 0 (this one at 6)");

	/* Exactly the bound is one batch, applied. */
	cr_expect_eq(ctl_write("reset\n"), 0);
	memset(buf, '\n', 65536);
	memcpy(buf + 100, "disable", 7);
	fd = open(path, O_WRONLY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(write(fd, buf, 65536), 65536);
	close(fd);
	EXPECT_CTL("profiling", "off");
	free(buf);
}

Test(ctl, a_refusal_names_its_line_in_last_error)
{
	EXPECT_CTL("last_error", "none");
	cr_expect_eq(ctl_write("reset\n\ntimeline 100 0\n"), -EINVAL);
	EXPECT_CTL("last_error", "line 3: timeline's snapshot count must be 1 to 10000000");
}

/*
 * Regression: `timeline 1 10000000` was accepted and an idle mount then
 * grew about 5 MB a second. The ring is bounded in bytes; a request over
 * the bound changes nothing and says why; idle intervals hold nothing.
 */
Test(ctl, the_timeline_is_bounded_in_bytes_and_idle_costs_nothing)
{
	uint64_t b0, b1;
	unsigned long held;
	char *v;

	cr_expect_eq(ctl_write("disable\ntimeline 1 10000000\n"), -EINVAL);
	EXPECT_CTL("last_error", "line 2: a timeline keeps at most 2796202 snapshots in its 64 MiB "
				 "(asked for 10000000)");
	EXPECT_CTL("profiling", "on", "the disable before it was not applied");
	EXPECT_CTL("timeline", "off");
	cr_expect_eq(h_ctl_u64(&m, "timeline_bound_bytes"), 64u << 20);

	cr_assert_eq(ctl_write("timeline 1 100000\n"), 0);
	usleep(100000);
	b0 = h_ctl_u64(&m, "timeline_bytes");
	usleep(400000);
	b1 = h_ctl_u64(&m, "timeline_bytes");
	v = ctl_read("timeline");
	cr_assert(sscanf(v, "timeline: interval 1ms, %lu snapshots", &held) == 1, "%s", v);
	free(v);
	cr_expect_geq(held, 200, "snapshots were taken: %lu", held);
	cr_expect_eq(h_ctl_u64(&m, "timeline_dropped"), 0);
	/*
	 * Reading ctl walks the mount's root, which may cost a request or
	 * two (a root getattr: some 200 bytes in one snapshot). An idle
	 * tick used to cost a full operation array, thousands of bytes.
	 */
	cr_expect_leq(b1 - b0, 1024, "400 idle intervals added %ld bytes", (long)(b1 - b0));
	cr_expect_leq(b0, 100000u * 64, "the ring: %lu bytes", (unsigned long)b0);
	cr_expect_eq(ctl_write("timeline off\n"), 0);
}

Test(ctl, text_views_and_metrics)
{
	unsigned long long n;
	struct stat st;
	char *s, *l;

	cr_assert_eq(h_write_str(M("x"), "some data"), 0);
	s = ctl_read("stats");
	cr_assert_not_null(s);
	l = h_line(s, "osprof fs profile: ");
	cr_expect_not_null(l, "%s", s);
	free(l);
	l = h_line(s, h_noopen() ? "options: cache=auto " : "options: cache=never ");
	cr_expect_not_null(l, "%s", s);
	free(l);
	l = h_line(s, "write ");
	if (h_passthrough()) {
		/* The write went to the lower file: no row, a line says so. */
		cr_expect(l && strncmp(l, "write        passed through: ", 29) == 0, "%s", s);
		free(l);
		cr_expect_null(h_line(s, "write: count "), "%s", s);
	} else {
		/* The write's row and its histogram: one request. */
		cr_expect(l && sscanf(l, "write %llu", &n) == 1 && n == 1, "%s", s);
		free(l);
		l = h_line(s, "write: count ");
		cr_expect(l && sscanf(l, "write: count %llu,", &n) == 1 && n == 1, "%s", s);
		free(l);
	}
	free(s);
	s = ctl_read("metrics");
	{
		char want[PATH_MAX + 128];

		/* osprof's one family, labelled with this mount point. */
		snprintf(want, sizeof(want),
			 "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"write\"} 1", m.dir);
		l = h_line(s, "osprof_latency_seconds_count{mount=\"");
		cr_expect(l, "%s", s);
		free(l);
		l = h_line(s, want);
		if (h_passthrough())
			/* the write went to the lower file: no series for it */
			cr_expect(!l && !strstr(s, "op=\"write\""), "%s", s);
		else
			cr_expect_str_eq(l ? l : "", want, "%s", s);
		free(l);
	}
	cr_expect_eq(strlen(s) >= 6 ? strcmp(s + strlen(s) - 6, "# EOF\n") : -1, 0, "ends with # EOF");
	free(s);
	cr_assert_eq(stat(m.ctl, &st), 0);
	cr_expect(S_ISDIR(st.st_mode));
	/*
	 * Refused at the open; under noopen, which the kernel answers, at
	 * the truncation O_TRUNC sends (a setattr, which only ctl takes).
	 */
	cr_expect_eq(h_write_str(M(".osprof/stats"), "x"), h_noopen() ? -EPERM : -EACCES);
	cr_expect_eq(mkdir(M(".osprof/new"), 0755), -1);
	cr_expect_eq(unlink(M(".osprof/ctl")), -1);
	cr_expect_eq(rmdir(m.ctl), -1);
	cr_expect_eq(rename(m.ctl, M("elsewhere")), -1);
	cr_expect_eq(errno, EPERM);
}

/*
 * Regression: a reader could close a control file and its release free
 * the content while the thread that replied to its read was still in
 * writev (seen by AddressSanitizer). Many readers at once, every read
 * whole. Under noopen (no OPEN: the kernel's page cache, shared by the
 * readers of an inode), readers that overlapped got each other's pages,
 * cut or padded with NULs, before each lookup got an inode of its own.
 */
Test(ctl, concurrent_readers_each_get_a_whole_snapshot)
{
	pid_t kids[4];

	cr_assert_eq(h_write_str(M("x"), "x"), 0);
	for (int k = 0; k < 4; k++) {
		kids[k] = fork();
		cr_assert_geq(kids[k], 0);
		if (kids[k] == 0) {
			for (int i = 0; i < 100; i++) {
				char *s = ctl_read(i % 2 ? "stats.json" : "ctl");

				if (!s || !(i % 2 ? strstr(s, "\n}\n") : strstr(s, "\npid ")))
					_exit(1);
				free(s);
			}
			_exit(0);
		}
	}
	for (int k = 0; k < 4; k++) {
		int st;

		waitpid(kids[k], &st, 0);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "reader %d", k);
	}
}

/*
 * Each read of a control file opens it anew; under noopen each open's
 * lookup makes a snapshot inode, freed when the kernel forgets it. More
 * reads than there are slots (OFS_CTL_SNAPS) all succeed, whole, and
 * each sees what was there at its open: a write to ctl between two reads
 * shows in the second.
 */
Test(ctl, reads_beyond_the_snapshot_slots_stay_whole_and_fresh)
{
	for (int i = 0; i < 1200; i++) {
		char *s = ctl_read("ctl");

		cr_assert(s && strstr(s, "\npid "), "read %d: %s", i, s ? s : strerror(errno));
		free(s);
	}
	EXPECT_CTL("profiling", "on");
	cr_assert_eq(ctl_write("disable\n"), 0);
	EXPECT_CTL("profiling", "off");
	cr_assert_eq(ctl_write("enable\n"), 0);
	EXPECT_CTL("profiling", "on");
}
