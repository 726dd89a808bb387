// SPDX-License-Identifier: MIT
/*
 * osprof-record-cost: what one recording costs on this machine -- the
 * bucket index, the shard update and its sequence counter, as osprof-fs
 * does it for every request -- and, for comparison, what the two clock
 * reads around a request cost. Prints medians over many batches, in ns
 * and in cycles of the calibrated clock. Run on demand (not a test):
 *
 *   osprof-record-cost [--records N] [--threads T] [--res R]
 *
 * With T threads recording into one set at once, it also shows that
 * shards keep threads from slowing each other down.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "osprof/clock.h"
#include "osprof/parse.h"
#include "osprof/set.h"

#define BATCH 1000

struct job {
	struct osp_set *set;
	const struct osp_clock *clk;
	uint64_t batches;
	double *rec_cyc;   /* per-record cycles, one value per batch */
	double *clock_cyc; /* per clock-read pair, one value per batch */
	pthread_barrier_t *go;
};

static void *run(void *arg)
{
	struct job *j = arg;
	uint64_t v = 88172645463325252ull, sink = 0;

	pthread_barrier_wait(j->go);
	for (uint64_t b = 0; b < j->batches; b++) {
		uint64_t t0, t1, t2;

		/* Latencies spread over many buckets, as real requests are. */
		t0 = osp_clock_read(j->clk);
		for (int i = 0; i < BATCH; i++) {
			v ^= v << 13;
			v ^= v >> 7;
			v ^= v << 17;
			osp_set_record(j->set, (unsigned)(v % 35), (v >> 40) + 100, 0);
		}
		t1 = osp_clock_read(j->clk);
		for (int i = 0; i < BATCH; i++) {
			uint64_t a = osp_clock_read(j->clk);

			sink += osp_clock_read(j->clk) - a;
		}
		t2 = osp_clock_read(j->clk);
		j->rec_cyc[b] = (double)(t1 - t0) / BATCH;
		j->clock_cyc[b] = (double)(t2 - t1) / BATCH;
	}
	if (sink == 1)
		fputc(' ', stderr); /* keep the clock reads from being elided */
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: osprof-record-cost [--records N] [--threads T] [--res R]\n"
		   "  --records N  records per thread (default 20000000)\n"
		   "  --threads T  threads recording at once (default 1)\n"
		   "  --res R      histogram resolution 1, 2, 4 or 8 (default 1)\n");
}

static int parse(int argc, char **argv, uint64_t *records, uint64_t *threads,
		 uint64_t *res)
{
	static const struct option longopts[] = {
		{ "records", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "res", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:t:r:h", longopts, NULL)) != -1) {
		int err = 0;

		switch (c) {
		case 'n':
			err = osp_parse_u64(optarg, BATCH, UINT64_MAX / 2, records);
			break;
		case 't':
			err = osp_parse_u64(optarg, 1, 64, threads);
			break;
		case 'r':
			err = osp_parse_u64(optarg, 1, 8, res);
			if (!err && !osp_res_valid((unsigned)*res))
				err = -EINVAL;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
		if (err) {
			fprintf(stderr, "osprof-record-cost: bad value '%s' for --%s\n", optarg,
				c == 'n' ? "records" : c == 't' ? "threads" : "res");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t records = 20000000, threads = 1, res = 1;
	const char *names[35];
	char namebuf[35][8];
	struct osp_clock clk;
	pthread_barrier_t go;
	struct job *jobs;
	pthread_t *th;
	double rec, clk_pair;

	if (parse(argc, argv, &records, &threads, &res))
		return 2;
	for (int i = 0; i < 35; i++) {
		snprintf(namebuf[i], sizeof(namebuf[i]), "op%d", i);
		names[i] = namebuf[i];
	}
	osp_clock_init(&clk);
	struct osp_set *set = osp_set_new(names, 35, (unsigned)res, false);

	jobs = calloc(threads, sizeof(*jobs));
	th = calloc(threads, sizeof(*th));
	if (!set || !jobs || !th) {
		fprintf(stderr, "osprof-record-cost: out of memory\n");
		return 1;
	}
	pthread_barrier_init(&go, NULL, (unsigned)threads);
	for (uint64_t t = 0; t < threads; t++) {
		jobs[t] = (struct job){ set, &clk, records / BATCH,
					calloc(records / BATCH, sizeof(double)),
					calloc(records / BATCH, sizeof(double)), &go };
		if (!jobs[t].rec_cyc || !jobs[t].clock_cyc) {
			fprintf(stderr, "osprof-record-cost: out of memory\n");
			return 1;
		}
		if ((errno = pthread_create(&th[t], NULL, run, &jobs[t])) != 0) {
			perror("osprof-record-cost: pthread_create");
			return 1;
		}
	}
	for (uint64_t t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	printf("clock %s, %.3f cycles/ns; %llu records per thread, %llu thread%s, resolution %llu\n",
	       osp_clock_source_name(clk.source), clk.cycles_per_ns,
	       (unsigned long long)records, (unsigned long long)threads,
	       threads == 1 ? "" : "s", (unsigned long long)res);
	for (uint64_t t = 0; t < threads; t++) {
		rec = gsl_stats_median(jobs[t].rec_cyc, 1, records / BATCH);
		clk_pair = gsl_stats_median(jobs[t].clock_cyc, 1, records / BATCH);
		printf("thread %llu: one recording %.1f ns (%.0f cycles), median of %llu batches of %d;"
		       " two clock reads %.1f ns (%.0f cycles)\n",
		       (unsigned long long)t, rec / clk.cycles_per_ns, rec,
		       (unsigned long long)(records / BATCH), BATCH,
		       clk_pair / clk.cycles_per_ns, clk_pair);
		free(jobs[t].rec_cyc);
		free(jobs[t].clock_cyc);
	}
	{
		struct osp_profile *p = osp_profile_new("fs", (unsigned)res);
		uint64_t total = 0;

		osp_set_snapshot(set, p);
		for (size_t i = 0; i < p->nops; i++)
			total += p->ops[i].lat.count;
		printf("recorded %llu of %llu (%s)\n", (unsigned long long)total,
		       (unsigned long long)(records / BATCH * BATCH * threads),
		       total == records / BATCH * BATCH * threads ? "none lost" : "LOST SOME");
		osp_profile_free(p);
	}
	osp_set_free(set);
	free(jobs);
	free(th);
	return 0;
}
