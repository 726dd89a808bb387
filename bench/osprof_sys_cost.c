// SPDX-License-Identifier: MIT
/*
 * osprof-sys-cost: what the syscall layer (bpf/obp_sys.bpf.c) adds to a
 * system call, as root. Three calls -- a 1-byte pread of a file on the
 * profiled mount, the same of a file elsewhere, and getppid (on no
 * file) -- timed in loops under each configuration:
 *
 *   no layer            nothing loaded
 *   empty programs      two programs that return at once on sys_enter
 *                       and sys_exit: the floor, what the kernel's
 *                       tracepoint path costs any tracer of them
 *   untraced            the layer loaded for the mount, this process not
 *                       among its processes (what every other process of
 *                       the machine pays while a mount is profiled)
 *   traced              this process traced, the mount's calls only (an
 *                       osprof-fs mount's default, osprof-trace --mount)
 *   traced, all calls   this process traced, every call (syscall=all)
 *
 * The configurations take turns, their order rotated from run to run so
 * a drift of the machine's load falls on each alike. A run's figure is
 * ns of this thread's CPU time per call (time other processes take
 * meanwhile is not counted) in the quietest of its 10 batches; each
 * figure printed is the median over the runs. Then the programs' own run time
 * per call (BPF_ENABLE_STATS: run_time_ns / run_cnt), apart, since
 * counting it costs time too.
 *
 * The mount is DIR's when given (an osprof-fs mount, say), with the
 * other file in TMPDIR; else a tmpfs mounted for the run.
 *
 *   osprof-sys-cost [--runs N] [--calls N] [--only CONFIG] [DIR]
 *
 * --only none|empty|untraced|traced|all loops on that configuration alone and
 * prints nothing else: a target for perf record.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_statistics_double.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "obp.h"
#include "osprof/parse.h"

#define MAX_RUNS 51
#define BATCHES 10

enum cfg { C_NONE, C_EMPTY, C_UNTRACED, C_TRACED, C_ALL, C__COUNT };
static const char *const cfg_names[C__COUNT] = {
	[C_NONE] = "no layer",
	[C_EMPTY] = "empty programs",
	[C_UNTRACED] = "loaded, untraced process",
	[C_TRACED] = "traced, mount's calls",
	[C_ALL] = "traced, all calls",
};

enum call { K_MOUNT, K_OTHER, K_GETPPID, K__COUNT };
static const char *const call_names[K__COUNT] = {
	[K_MOUNT] = "pread, mount",
	[K_OTHER] = "pread, other",
	[K_GETPPID] = "getppid",
};

struct target {
	int mnt_id;        /* the mount's id (statx) */
	dev_t mnt_dev;     /* its st_dev */
	int fd[2];         /* the mount's file, the other file */
};

/* This thread's CPU time: what other processes of a shared machine take
 * while we wait for a CPU is not ours. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ns per call of @calls calls of kind @k. */
static double time_calls(const struct target *t, enum call k, long calls)
{
	uint64_t t0 = cpu_ns();
	char c;

	for (long i = 0; i < calls; i++) {
		if (k == K_GETPPID) {
			(void)getppid();
		} else if (pread(t->fd[k], &c, 1, 0) != 1) {
			perror("osprof-sys-cost: pread");
			exit(1);
		}
	}
	return (double)(cpu_ns() - t0) / (double)calls;
}

/* ---- the floor: empty programs on both tracepoints ---- */

struct empty {
	int prog_fd[2], link_fd[2];
};

static const char *const empty_names[2] = { "osprof_empty_en", "osprof_empty_ex" };

/* Load "return 0" as a tp_btf program on sys_enter and sys_exit. */
static void empty_open(struct empty *e)
{
	static const char *const tps[2] = { "btf_trace_sys_enter", "btf_trace_sys_exit" };
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *vmlinux = btf__load_vmlinux_btf();

	if (!vmlinux) {
		fprintf(stderr, "osprof-sys-cost: no kernel BTF: %s\n", strerror(errno));
		exit(1);
	}
	for (int i = 0; i < 2; i++) {
		LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_RAW_TP);

		po.attach_btf_id = (__u32)btf__find_by_name_kind(vmlinux, tps[i], BTF_KIND_TYPEDEF);
		e->prog_fd[i] = bpf_prog_load(BPF_PROG_TYPE_TRACING, empty_names[i], "GPL", insns,
					      2, &po);
		e->link_fd[i] = e->prog_fd[i] < 0 ? -1 : bpf_raw_tracepoint_open(NULL, e->prog_fd[i]);
		if (e->link_fd[i] < 0) {
			fprintf(stderr, "osprof-sys-cost: empty program on %s: %s\n", tps[i] + 10,
				strerror(errno));
			exit(1);
		}
	}
	btf__free(vmlinux);
}

static void empty_close(struct empty *e)
{
	for (int i = 0; i < 2; i++) {
		close(e->link_fd[i]);
		close(e->prog_fd[i]);
	}
}

/*
 * Programs attached to sys_enter or sys_exit now that are not ours (a
 * test of another checkout, a tracer): every figure includes their cost.
 */
static int others_on_syscalls(void)
{
	__u32 id = 0;
	int n = 0;

	while (bpf_link_get_next_id(id, &id) == 0) {
		struct bpf_link_info info;
		__u32 len = sizeof(info);
		char tp[64] = "";
		int fd = bpf_link_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		info.raw_tracepoint.tp_name = (__u64)(uintptr_t)tp;
		info.raw_tracepoint.tp_name_len = sizeof(tp);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    (info.type == BPF_LINK_TYPE_RAW_TRACEPOINT || info.type == BPF_LINK_TYPE_TRACING) &&
		    (strcmp(tp, "sys_enter") == 0 || strcmp(tp, "sys_exit") == 0))
			n++;
		close(fd);
	}
	return n;
}

/*
 * ns per call of @calls calls of kind @k, as the quietest of BATCHES
 * batches: a shared machine's other work (its caches, the host's) only
 * ever adds to a batch, so the least is the call's own cost.
 */
static double quietest_batch(const struct target *t, enum call k, long calls)
{
	double least = 0;

	for (int b = 0; b < BATCHES; b++) {
		double ns = time_calls(t, k, calls / BATCHES);

		if (b == 0 || ns < least)
			least = ns;
	}
	return least;
}

/* The layer for configuration @c (none for C_NONE, C_EMPTY), this
 * process added when traced. */
static struct obp *layer_open(const struct target *t, enum cfg c)
{
	struct obp_opts o = {
		.layers = OBP_LAYER_BIT(OBP_L_SYSCALL),
		.mount_filter = c != C_ALL,
		.mount_id = t->mnt_id,
		.mount_dev = t->mnt_dev,
	};
	struct obp *b;
	char err[256];
	int e;

	if (c == C_NONE || c == C_EMPTY)
		return NULL;
	e = obp_open(&o, &b, err, sizeof(err));
	if (e || !obp_layers(b)) {
		fprintf(stderr, "osprof-sys-cost: %s\n", e ? err : obp_why(b, OBP_L_SYSCALL));
		exit(1);
	}
	if (c != C_UNTRACED && (e = obp_pid_add(b, getpid())) != 0) {
		fprintf(stderr, "osprof-sys-cost: cannot trace this process: %s\n", strerror(-e));
		exit(1);
	}
	return b;
}

/* Each configuration in turn, rotated per run: medians into @med. */
static void bench(const struct target *t, int runs, long calls, double med[C__COUNT][K__COUNT])
{
	static double v[C__COUNT][K__COUNT][MAX_RUNS];

	for (int r = 0; r < runs; r++)
		for (int i = 0; i < C__COUNT; i++) {
			enum cfg c = (enum cfg)((r + i) % C__COUNT);
			struct obp *b = layer_open(t, c);
			struct empty e;

			if (c == C_EMPTY)
				empty_open(&e);
			for (int k = 0; k < K__COUNT; k++)
				time_calls(t, (enum call)k, calls / BATCHES); /* warm */
			for (int k = 0; k < K__COUNT; k++)
				v[c][k][r] = quietest_batch(t, (enum call)k, calls);
			obp_close(b);
			if (c == C_EMPTY)
				empty_close(&e);
		}
	for (int c = 0; c < C__COUNT; c++)
		for (int k = 0; k < K__COUNT; k++)
			med[c][k] = gsl_stats_median(v[c][k], 1, (size_t)runs);
}

/* ---- the programs' own run time ---- */

struct prog_stat {
	__u64 run_ns, runs;
};

/* Run time and count of the loaded program named @name with an id
 * above @min_id (the newest such). */
static struct prog_stat prog_stat(__u32 min_id, const char *name)
{
	struct prog_stat s = { 0, 0 };
	__u32 id = min_id;

	while (bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    strncmp(info.name, name, sizeof(info.name)) == 0) {
			s.run_ns = info.run_time_ns;
			s.runs = info.run_cnt;
		}
		close(fd);
	}
	return s;
}

static void bench_prog_stats(const struct target *t, long calls)
{
	/* The kernel cuts program names to 15 characters; the mount
	 * filter's programs are obp_sys_enter_mnt and obp_sys_exit_mnt. */
	static const char *const progs[2] = { "obp_sys_enter", "obp_sys_exit" };
	static const char *const mnt_progs[2] = { "obp_sys_enter_m", "obp_sys_exit_mn" };
	int stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	struct empty e;

	if (stats_fd < 0) {
		fprintf(stderr, "osprof-sys-cost: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return;
	}
	printf("\nprograms' own run time, ns per run (BPF_ENABLE_STATS, whose own clock reads\n"
	       "the empty programs' figures are), %ld calls:\n", calls);
	printf("  %-26s %-14s %10s %10s\n", "", "", "sys_enter", "sys_exit");
	for (int c = C_EMPTY; c < C__COUNT; c++)
		for (int k = 0; k < K__COUNT; k++) {
			const char *const *names = c == C_EMPTY ? empty_names :
						   c == C_ALL ? progs : mnt_progs;
			struct prog_stat s0[2], s1[2];
			__u32 last = 0, id = 0;
			struct obp *b;

			while (bpf_prog_get_next_id(id, &id) == 0)
				last = id;
			b = layer_open(t, (enum cfg)c);
			if (c == C_EMPTY)
				empty_open(&e);
			for (int p = 0; p < 2; p++)
				s0[p] = prog_stat(last, names[p]);
			time_calls(t, (enum call)k, calls);
			for (int p = 0; p < 2; p++)
				s1[p] = prog_stat(last, names[p]);
			if (c == C_EMPTY)
				empty_close(&e);
			printf("  %-26s %-14s", cfg_names[c], call_names[k]);
			for (int p = 0; p < 2; p++) {
				__u64 n = s1[p].runs - s0[p].runs;

				printf(" %10.1f", n ? (double)(s1[p].run_ns - s0[p].run_ns) / (double)n : 0.0);
			}
			printf("\n");
			obp_close(b);
		}
	close(stats_fd);
}

/* ---- set-up ---- */

static int mount_of(const char *path, int *id, dev_t *dev)
{
	struct statx stx;

	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &stx) != 0)
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID))
		return -EOPNOTSUPP;
	*id = (int)stx.stx_mnt_id;
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	return 0;
}

/* Detach our tmpfs at @mnt (NULL: none) and remove it and @tmpdir. */
static void scratch_drop(const char *mnt, const char *tmpdir)
{
	if (mnt) {
		umount2(mnt, MNT_DETACH);
		rmdir(mnt);
	}
	rmdir(tmpdir);
}

/* A file of one byte at @dir/@name, opened for reading. */
static int byte_file(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || pwrite(fd, "x", 1, 0) != 1) {
		fprintf(stderr, "osprof-sys-cost: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	unlink(path);
	return fd;
}

/* The configuration --only names: none, untraced, traced, all; -1. */
static int cfg_of(const char *s)
{
	static const char *const words[C__COUNT] = { "none", "empty", "untraced", "traced", "all" };

	for (int c = 0; c < C__COUNT; c++)
		if (strcmp(s, words[c]) == 0)
			return c;
	return -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: osprof-sys-cost [--runs N (1..%d)] [--calls N] "
		"[--only none|empty|untraced|traced|all] [DIR]\n", MAX_RUNS);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "runs", required_argument, NULL, 'r' },
		{ "calls", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char tmpdir[4096], mnt[4200];
	const char *dir = NULL, *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	double med[C__COUNT][K__COUNT];
	uint64_t runs = 7, calls = 200000;
	struct target t;
	int opt, other_id, only = -1, others;
	dev_t other_dev;
	cpu_set_t set;

	while ((opt = getopt_long(argc, argv, "r:c:h", longopts, NULL)) != -1) {
		if (opt == 'r' && osp_parse_u64(optarg, 1, MAX_RUNS, &runs) == 0)
			continue;
		if (opt == 'c' && osp_parse_u64(optarg, 1000, 100000000, &calls) == 0)
			continue;
		if (opt == 'o' && (only = cfg_of(optarg)) >= 0)
			continue;
		usage();
	}
	if (optind + 1 < argc)
		usage();
	snprintf(tmpdir, sizeof(tmpdir), "%s/osprof-sys-cost-XXXXXX", tmp);
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "osprof-sys-cost: mkdtemp in %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	if (optind < argc) {
		dir = argv[optind];
	} else {
		snprintf(mnt, sizeof(mnt), "%s/m", tmpdir);
		if (mkdir(mnt, 0700) != 0 || mount("osprof-sys-cost", mnt, "tmpfs", 0, "size=1m") != 0) {
			fprintf(stderr, "osprof-sys-cost: tmpfs at %s: %s\n", mnt, strerror(errno));
			rmdir(mnt);
			rmdir(tmpdir);
			return 1;
		}
	}
	if (mount_of(dir ? dir : mnt, &t.mnt_id, &t.mnt_dev) != 0 ||
	    mount_of(tmpdir, &other_id, &other_dev) != 0 || other_id == t.mnt_id) {
		fprintf(stderr, "osprof-sys-cost: %s and %s must be on two mounts with ids (statx)\n",
			dir ? dir : mnt, tmpdir);
		scratch_drop(dir ? NULL : mnt, tmpdir);
		return 1;
	}
	t.fd[K_MOUNT] = byte_file(dir ? dir : mnt, "osprof-sys-cost.data");
	t.fd[K_OTHER] = byte_file(tmpdir, "data");
	/* Nothing to clean up on any exit from here on (it leaked the tmpfs
	 * on each error): the files are unlinked, our tmpfs detached (its
	 * open file keeps it, and its mount id), the directories gone. */
	scratch_drop(dir ? NULL : mnt, tmpdir);
	/* One CPU: no migration between the loops' halves. */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);

	if (only >= 0) {
		struct obp *b = layer_open(&t, (enum cfg)only);
		struct empty e;

		if (only == C_EMPTY)
			empty_open(&e);
		for (uint64_t r = 0; r < runs; r++)
			for (int k = 0; k < K__COUNT; k++)
				time_calls(&t, (enum call)k, (long)calls);
		obp_close(b);
		if (only == C_EMPTY)
			empty_close(&e);
		goto out;
	}
	if ((others = others_on_syscalls()) != 0)
		printf("note: %d programs of others on sys_enter/sys_exit: every figure pays for them\n",
		       others);
	bench(&t, (int)runs, (long)calls, med);
	printf("syscall layer: ns per call, median of %d runs (each its quietest of %d batches of\n"
	       "%ld calls), thread CPU time; mount id %d\n", (int)runs, BATCHES, (long)calls / BATCHES,
	       t.mnt_id);
	printf("  %-26s", "");
	for (int k = 0; k < K__COUNT; k++)
		printf(" %14s", call_names[k]);
	printf("\n");
	for (int c = 0; c < C__COUNT; c++) {
		printf("  %-26s", cfg_names[c]);
		for (int k = 0; k < K__COUNT; k++)
			printf(" %14.1f", med[c][k]);
		printf("\n");
	}
	printf("  %-26s", "added, empty programs");
	for (int k = 0; k < K__COUNT; k++)
		printf(" %+14.1f", med[C_EMPTY][k] - med[C_NONE][k]);
	printf("\n  %-26s", "added, untraced");
	for (int k = 0; k < K__COUNT; k++)
		printf(" %+14.1f", med[C_UNTRACED][k] - med[C_NONE][k]);
	printf("\n  %-26s", "added, traced");
	for (int k = 0; k < K__COUNT; k++)
		printf(" %+14.1f", med[C_TRACED][k] - med[C_NONE][k]);
	printf("\n");
	bench_prog_stats(&t, (long)calls);
out:
	close(t.fd[K_MOUNT]);
	close(t.fd[K_OTHER]);
	return 0;
}
