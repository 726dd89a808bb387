// SPDX-License-Identifier: MIT
/*
 * osprof-vt-cost: what eBPF virtual time (obp_vt_*) costs, as root.
 *
 *  1. Reading a thread's deduction (two loads from the mmapped slot)
 *     against clock_gettime(CLOCK_THREAD_CPUTIME_ID), the system call it
 *     replaces, side by side: ns per read over loops of 10^6, median of
 *     several runs.
 *  2. What the programs add to a context switch: two threads pinned to
 *     one CPU pass a byte back and forth through pipes (two switches a
 *     round trip), with no programs, with programs and the threads not
 *     registered, and registered; interleaved runs, median ns per round
 *     trip.
 *  3. The programs' own run time per call (BPF_ENABLE_STATS: run_time_ns
 *     / run_cnt) over the same loops, per program, and for the
 *     interrupts that came meanwhile.
 *
 * Usage: osprof-vt-cost [runs]   (default 5)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "obp.h"

#define READS 1000000
#define TRIPS 50000
#define MAX_RUNS 51

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("osprof-vt-cost: sched_setaffinity");
}

/* ---- 1. reads ---- */

static volatile uint64_t sink;

static double ns_per_vt_read(const struct obp_vt_slot *s)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC), acc = 0;

	for (int i = 0; i < READS; i++) {
		acc += obp_vt_deduct_ns(s);
		__asm__ __volatile__("" ::: "memory");
	}
	sink = acc;
	return (double)(clock_ns(CLOCK_MONOTONIC) - t0) / READS;
}

static double ns_per_clock_read(clockid_t id)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC), acc = 0;

	for (int i = 0; i < READS; i++)
		acc += clock_ns(id);
	sink = acc;
	return (double)(clock_ns(CLOCK_MONOTONIC) - t0) / READS;
}

static void bench_reads(struct obp_vt *vt, int runs)
{
	double vt_ns[MAX_RUNS], cpu_ns[MAX_RUNS], mono_ns[MAX_RUNS];
	const struct obp_vt_slot *s;
	int slot = obp_vt_register(vt, &s);

	if (slot < 0) {
		fprintf(stderr, "osprof-vt-cost: register: %s\n", strerror(-slot));
		return;
	}
	for (int r = 0; r < runs; r++) {
		vt_ns[r] = ns_per_vt_read(s);
		cpu_ns[r] = ns_per_clock_read(CLOCK_THREAD_CPUTIME_ID);
		mono_ns[r] = ns_per_clock_read(CLOCK_MONOTONIC);
	}
	printf("read cost, ns per read (median of %d runs of %d reads):\n", runs, READS);
	printf("  obp_vt_deduct_ns (mmapped slot)        %8.2f\n", median(vt_ns, runs));
	printf("  clock_gettime(CLOCK_THREAD_CPUTIME_ID) %8.2f\n", median(cpu_ns, runs));
	printf("  clock_gettime(CLOCK_MONOTONIC)         %8.2f  (the elapsed-time read beside it)\n",
	       median(mono_ns, runs));
	obp_vt_unregister(vt, slot);
}

/* ---- 2. context switches ---- */

struct pingpong {
	int cpu;
	int in, out;       /* this thread's ends of the two pipes */
	bool first;        /* sends the first byte */
	struct obp_vt *vt; /* register with it, when set */
};

static void *pingpong_run(void *p)
{
	const struct pingpong *pp = p;
	const struct obp_vt_slot *s;
	int slot = -1;
	char c = 0;

	pin(pp->cpu);
	if (pp->vt)
		slot = obp_vt_register(pp->vt, &s);
	for (int i = 0; i < TRIPS; i++) {
		if (pp->first && write(pp->out, &c, 1) != 1)
			break;
		if (read(pp->in, &c, 1) != 1)
			break;
		if (!pp->first && write(pp->out, &c, 1) != 1)
			break;
	}
	if (slot >= 0)
		obp_vt_unregister(pp->vt, slot);
	return NULL;
}

/* ns per round trip (two context switches) of TRIPS; @vt: register. */
static double pingpong(struct obp_vt *vt)
{
	int a[2], b[2];
	struct pingpong pp[2];
	pthread_t th[2];
	uint64_t t0;

	if (pipe(a) || pipe(b)) {
		perror("osprof-vt-cost: pipe");
		exit(1);
	}
	pp[0] = (struct pingpong){ .cpu = 0, .in = b[0], .out = a[1], .first = true, .vt = vt };
	pp[1] = (struct pingpong){ .cpu = 0, .in = a[0], .out = b[1], .first = false, .vt = vt };
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (int i = 0; i < 2; i++) {
		if ((errno = pthread_create(&th[i], NULL, pingpong_run, &pp[i])) != 0) {
			perror("osprof-vt-cost: pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	t0 = clock_ns(CLOCK_MONOTONIC) - t0;
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
	return (double)t0 / TRIPS;
}

static struct obp_vt *vt_open_or_die(void)
{
	struct obp_vt *vt;
	char why[256];
	int err = obp_vt_open(&vt, why, sizeof(why));

	if (err) {
		fprintf(stderr, "osprof-vt-cost: %s\n", why);
		exit(1);
	}
	return vt;
}

/* Minimum of @n values (before median() sorts them). */
static double minimum(const double *v, int n)
{
	double m = v[0];

	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

/*
 * The three configurations in turn, their order rotated from run to run,
 * so that a drift of the machine's load falls on each alike. The minimum
 * is reported beside the median: on a shared machine other work only
 * ever adds to a round trip.
 */
static void bench_switches(int runs)
{
	static const char *const names[3] = {
		"no programs", "programs, not registered", "programs, both registered",
	};
	double v[3][MAX_RUNS], med[3], min[3];

	for (int r = 0; r < runs; r++) {
		for (int k = 0; k < 3; k++) {
			int c = (r + k) % 3;
			struct obp_vt *vt = c ? vt_open_or_die() : NULL;

			v[c][r] = pingpong(c == 2 ? vt : NULL);
			obp_vt_close(vt);
		}
	}
	for (int c = 0; c < 3; c++) {
		min[c] = minimum(v[c], runs);
		med[c] = median(v[c], runs);
	}
	printf("context switches: ns per round trip (2 switches) on one CPU, %d runs of %d:\n",
	       runs, TRIPS);
	printf("  %-28s %9s %9s %18s\n", "", "median", "min", "per switch (min)");
	for (int c = 0; c < 3; c++) {
		printf("  %-28s %9.1f %9.1f", names[c], med[c], min[c]);
		if (c)
			printf(" %+17.1f", (min[c] - min[0]) / 2);
		printf("\n");
	}
}

/* ---- 3. the programs' own run time ---- */

#define MAX_PROGS 64

struct prog_stat {
	__u32 id;
	char name[BPF_OBJ_NAME_LEN];
	__u64 run_ns, runs;
};

/* The loaded programs named obp_vt_* whose ids are above @min_id. */
static int prog_stats(__u32 min_id, struct prog_stat *out)
{
	__u32 id = min_id;
	int n = 0;

	while (n < MAX_PROGS && bpf_prog_get_next_id(id, &id) == 0) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    strncmp(info.name, "obp_vt_", 7) == 0) {
			out[n].id = id;
			memcpy(out[n].name, info.name, sizeof(out[n].name));
			out[n].run_ns = info.run_time_ns;
			out[n].runs = info.run_cnt;
			n++;
		}
		close(fd);
	}
	return n;
}

static void print_delta(const char *what, const struct prog_stat *a, const struct prog_stat *b, int n)
{
	printf("  %s:\n", what);
	for (int i = 0; i < n; i++) {
		__u64 runs = b[i].runs - a[i].runs, ns = b[i].run_ns - a[i].run_ns;

		if (runs)
			printf("    %-16s %9llu calls %8.1f ns/call\n", b[i].name,
			       (unsigned long long)runs, (double)ns / (double)runs);
	}
}

static void bench_prog_stats(void)
{
	struct prog_stat s0[MAX_PROGS], s1[MAX_PROGS], s2[MAX_PROGS];
	__u32 last = 0, id = 0;
	struct obp_vt *vt;
	int stats_fd, n;

	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "osprof-vt-cost: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return;
	}
	while (bpf_prog_get_next_id(id, &id) == 0)
		last = id;
	vt = vt_open_or_die();
	n = prog_stats(last, s0);
	pingpong(NULL);
	prog_stats(last, s1);
	pingpong(vt);
	prog_stats(last, s2);
	printf("programs' run time (BPF_ENABLE_STATS), per call:\n");
	print_delta("ping-pong, threads not registered", s0, s1, n);
	print_delta("ping-pong, threads registered", s1, s2, n);
	print_delta("both loops together (interrupt programs: whatever came)", s0, s2, n);
	obp_vt_close(vt);
	close(stats_fd);
}

int main(int argc, char **argv)
{
	struct obp_vt *vt;
	char *end;
	long runs = 5;

	if (argc > 1) {
		errno = 0;
		runs = strtol(argv[1], &end, 10);
		if (errno || *end || runs < 1 || runs > MAX_RUNS) {
			fprintf(stderr, "usage: osprof-vt-cost [runs, 1..%d]\n", MAX_RUNS);
			return 2;
		}
	}
	vt = vt_open_or_die();
	printf("eBPF virtual time; vectors attached: %s\n", obp_vt_vectors(vt));
	pin(sched_getcpu());
	bench_reads(vt, (int)runs);
	obp_vt_close(vt);
	bench_switches((int)runs);
	bench_prog_stats();
	return 0;
}
