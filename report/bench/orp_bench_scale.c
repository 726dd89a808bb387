// SPDX-License-Identifier: MIT
/*
 * orp-bench-scale: how reading, merging and comparing profiles grow with
 * the number of operations (issue 8: a profile of many operations must
 * not freeze the reader). For each size it writes two profiles A and B
 * of that many operations (B: the same names in reverse order, counts
 * moved a little, 1% of its operations new), then measures, each in a
 * fresh process so that peak RSS (getrusage ru_maxrss) is that step's:
 *   read     osp_read_json_file of A
 *   merge    read A and B, osp_profile_merge(A, B)
 *   compare  read A and B, osp_compare({A}, {B}) by EMD
 * and prints the seconds of the step itself and of the reads (CPU time,
 * user and system, which other load on the machine does not inflate; and
 * wall time), and the peak RSS. A step over the time limit is killed and
 * printed as such.
 *
 * The profiles are written as JSON text here, not through core's writer,
 * so that the benchmark builds and means the same against any version of
 * core's histogram interface.
 *
 *   orp-bench-scale [-r RES] [-b BUCKETS] [-t LIMIT_S] [NOPS...]
 *     RES resolution (default 1), BUCKETS non-empty buckets per operation
 *     (default 6), LIMIT_S seconds a step may take (default 120), NOPS the
 *     sizes (default 40000 200000).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "osprof/analysis.h"
#include "osprof/clock.h"
#include "osprof/format.h"
#include "osprof/parse.h"

struct scale_args {
	unsigned res;
	unsigned buckets;
	unsigned limit_s;
};

static double now_s(void)
{
	return (double)osp_clock_mono_ns() / 1e9;
}

/* CPU seconds (user and system) this process has used. */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* xorshift64*: a fixed sequence, so every run measures the same files. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/*
 * One operation's line: @nb consecutive buckets from a random start
 * between 16 ns (every bucket above holds an integer, so min and max can
 * be in them) and 2^40 ns (18 minutes: sums stay far from 2^64 even
 * merged).
 */
static void gen_op(FILE *f, unsigned id, const struct scale_args *a,
		   uint64_t *seed, bool b_side, bool last)
{
	unsigned first = 4 * a->res, nbk = 40 * a->res + 1;
	unsigned nb = a->buckets < nbk - first ? a->buckets : nbk - first;
	unsigned lo = first + (unsigned)(rnd(seed) % (nbk - first - nb + 1));
	uint64_t count = 0, sum = 0, c[OSP_HIST_NBUCKETS_MAX];

	if (b_side && lo + nb < nbk && rnd(seed) % 4 == 0)
		lo++; /* a quarter of B's operations move one bucket */
	for (unsigned k = 0; k < nb; k++) {
		c[k] = 1 + rnd(seed) % 1000;
		count += c[k];
		sum += c[k] * (uint64_t)osp_bucket_upper_ns(lo + k, a->res);
	}
	fprintf(f, "    {\"name\": \"op%07u\", \"count\": %" PRIu64 ", \"sum\": %" PRIu64
		   ", \"min\": %" PRIu64 ", \"max\": %" PRIu64 ", \"buckets\": [",
		id, count, sum, (uint64_t)osp_bucket_lower_ns(lo, a->res) + 1,
		(uint64_t)osp_bucket_upper_ns(lo + nb - 1, a->res));
	for (unsigned k = 0; k < nb; k++)
		fprintf(f, "%s[%u, %" PRIu64 "]", k ? ", " : "", lo + k, c[k]);
	fprintf(f, "]}%s\n", last ? "" : ",");
}

static int gen_profile(const char *path, unsigned nops,
		       const struct scale_args *a, bool b_side)
{
	FILE *f = fopen(path, "w");
	uint64_t seed = b_side ? 0x5eed0b : 0x5eed0a;
	unsigned extra = b_side ? nops / 100 : 0;

	if (!f)
		return -errno;
	fprintf(f, "{\n  \"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\",\n"
		   "  \"host\": \"bench\", \"clock\": {\"source\": \"monotonic\", \"cycles_per_ns\": 1.0},\n"
		   "  \"resolution\": %u, \"unit\": \"ns\", \"elapsed_ns\": 1000000000,\n"
		   "  \"ops\": [\n", a->res);
	/* B lists A's names backwards, so no lookup can get lucky by order. */
	for (unsigned i = 0; i < nops + extra; i++) {
		unsigned id = !b_side ? i : i < nops ? nops - 1 - i : i;

		gen_op(f, id, a, &seed, b_side, i + 1 == nops + extra);
	}
	fputs("  ]\n}\n", f);
	return fclose(f) ? -EIO : 0;
}

static struct osp_profile *child_read(const char *path)
{
	char err[512];
	struct osp_profile *p = osp_read_json_file(path, err, sizeof(err));

	if (!p) {
		fprintf(stderr, "orp-bench-scale: %s\n", err);
		exit(3);
	}
	return p;
}

/* The measured step, in this fresh process: prints the CPU and wall
 * seconds of the reads and of the step. */
static int child(const char *step, const char *pa, const char *pb)
{
	struct osp_profile *a, *b = NULL;
	double t0 = now_s(), c0 = cpu_s(), t1, t2, c1, c2;
	char why[512];
	int rc = 0;

	a = child_read(pa);
	if (strcmp(step, "read") != 0)
		b = child_read(pb);
	t1 = now_s();
	c1 = cpu_s();
	if (strcmp(step, "merge") == 0) {
		rc = osp_profile_merge(a, b, why, sizeof(why));
		if (rc)
			fprintf(stderr, "orp-bench-scale: merge: %s\n", why);
	} else if (strcmp(step, "compare") == 0) {
		struct osp_cmp_opts o;
		struct osp_cmp c;

		osp_cmp_opts_default(&o, OSP_DIST_EMD);
		rc = osp_compare((const struct osp_profile *const *)&a, 1,
				 (const struct osp_profile *const *)&b, 1, &o, &c);
		if (!rc)
			osp_cmp_free(&c);
	}
	t2 = now_s();
	c2 = cpu_s();
	printf("%.3f %.3f %.3f %.3f\n", c1 - c0, c2 - c1, t1 - t0, t2 - t1);
	osp_profile_free(a);
	osp_profile_free(b);
	return rc ? 3 : 0;
}

/*
 * Run this program again as "--child STEP A B" with a time limit; print
 * its figures. A fresh exec, not a fork, so the peak RSS is the step's.
 */
static void measure(const char *step, const char *pa, const char *pb,
		    unsigned nops, unsigned limit_s)
{
	int fd[2];
	pid_t pid;
	struct rusage ru;
	char out[128] = "";
	double read_s = 0, step_s = 0, read_w = 0, step_w = 0;
	int st;
	ssize_t n;

	fflush(NULL);
	if (pipe(fd) < 0) {
		perror("orp-bench-scale: pipe");
		exit(2);
	}
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		alarm(limit_s);
		execl("/proc/self/exe", "orp-bench-scale", "--child", step, pa, pb,
		      (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	n = read(fd[0], out, sizeof(out) - 1);
	close(fd[0]);
	if (pid < 0 || wait4(pid, &st, 0, &ru) < 0) {
		perror("orp-bench-scale: fork");
		exit(2);
	}
	printf("  %-8s %8u ops: ", step, nops);
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
		printf("did not finish in %u s (peak RSS %.0f MB when killed)\n",
		       limit_s, (double)ru.ru_maxrss / 1024.0);
		return;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || n <= 0 ||
	    sscanf(out, "%lf %lf %lf %lf", &read_s, &step_s, &read_w, &step_w) != 4) {
		printf("FAILED (status %d)\n", st);
		return;
	}
	if (strcmp(step, "read") == 0)
		printf("read %7.3f s CPU (%.3f s wall)", read_s, read_w);
	else
		printf("%-7s %7.3f s CPU (%.3f s wall; reading both %.3f s CPU)", step,
		       step_s, step_w, read_s);
	printf(", peak RSS %6.1f MB\n", (double)ru.ru_maxrss / 1024.0);
}

static int parse_args(int argc, char **argv, struct scale_args *a, int *first)
{
	int c;
	uint64_t v;

	a->res = 1;
	a->buckets = 6;
	a->limit_s = 120;
	while ((c = getopt(argc, argv, "r:b:t:h")) != -1) {
		switch (c) {
		case 'r':
			if (osp_parse_u64(optarg, 1, 8, &v) || !osp_res_valid((unsigned)v))
				goto usage;
			a->res = (unsigned)v;
			break;
		case 'b':
			if (osp_parse_u64(optarg, 1, 36 * OSP_RES_MAX + 1, &v))
				goto usage;
			a->buckets = (unsigned)v;
			break;
		case 't':
			if (osp_parse_u64(optarg, 1, 86400, &v))
				goto usage;
			a->limit_s = (unsigned)v;
			break;
		default:
			goto usage;
		}
	}
	*first = optind;
	return 0;
usage:
	fprintf(stderr, "usage: orp-bench-scale [-r RES] [-b BUCKETS] [-t LIMIT_S] [NOPS...]\n");
	return -EINVAL;
}

int main(int argc, char **argv)
{
	static const char *const steps[] = { "read", "merge", "compare" };
	static const char *const defaults[] = { "40000", "200000" };
	char dir[] = "/tmp/orp-bench-scale-XXXXXX", pa[64], pb[64];
	const char *const *sizes = defaults;
	struct scale_args a;
	int first, nsizes = 2;

	if (argc == 5 && strcmp(argv[1], "--child") == 0)
		return child(argv[2], argv[3], argv[4]);
	if (parse_args(argc, argv, &a, &first))
		return 2;
	if (first < argc) {
		sizes = (const char *const *)argv + first;
		nsizes = argc - first;
	}
	if (!mkdtemp(dir)) {
		perror("orp-bench-scale: mkdtemp");
		return 2;
	}
	snprintf(pa, sizeof(pa), "%s/a.json", dir);
	snprintf(pb, sizeof(pb), "%s/b.json", dir);
	printf("osprof profiles at scale: resolution %u, %u non-empty buckets per operation\n",
	       a.res, a.buckets);
	for (int s = 0; s < nsizes; s++) {
		uint64_t nops;

		if (osp_parse_u64(sizes[s], 1, 100000000, &nops)) {
			fprintf(stderr, "orp-bench-scale: bad size '%s'\n", sizes[s]);
			break;
		}
		if (gen_profile(pa, (unsigned)nops, &a, false) ||
		    gen_profile(pb, (unsigned)nops, &a, true)) {
			fprintf(stderr, "orp-bench-scale: cannot write the profiles\n");
			break;
		}
		for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
			measure(steps[k], pa, pb, (unsigned)nops, a.limit_s);
	}
	unlink(pa);
	unlink(pb);
	return rmdir(dir) ? 1 : 0;
}
