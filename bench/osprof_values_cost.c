// SPDX-License-Identifier: MIT
/*
 * osprof-values-cost: what -o values adds to recording a request -- the
 * close of a read's context (fs/ofs_req.c: the latency recorded, then the
 * value tables: size, seek distance from the open file's last end) with
 * the tables against without. Prints median ns per request over many
 * batches, off and on interleaved, for 1 and for T threads recording into
 * one mount's tables at once (the tables are shared, not sharded). Run
 * on demand (not a test):
 *
 *   osprof-values-cost [--batches N] [--threads T]
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "osprof/parse.h"
#include "ofs.h"
#include "ofs_pt.h"
#include "ofs_req.h"
#include "ofs_values.h"

#define BATCH 1000

struct job {
	struct ofs *fs;
	uint64_t batches;
	double *ns;          /* per-request ns, one per batch */
	pthread_barrier_t *go;
};

static void *run(void *arg)
{
	struct job *j = arg;
	struct ofs_file f = { .fd = -1 };
	uint64_t v = 88172645463325252ull ^ (uintptr_t)j, off = 0;

	atomic_init(&f.next_off, -1);
	pthread_barrier_wait(j->go);
	for (uint64_t b = 0; b < j->batches; b++) {
		uint64_t t0 = osp_clock_read(&j->fs->clk), t1;

		for (int i = 0; i < BATCH; i++) {
			struct ofs_req r = { .fs = j->fs, .op = OFS_OP_READ, .fh = (uintptr_t)&f,
					     .on = true };

			v ^= v << 13;
			v ^= v >> 7;
			v ^= v << 17;
			/* Mostly sequential, some seeks; sizes of 4 KiB to 128 KiB. */
			r.size_bytes = 4096u << (v % 6);
			off = (v >> 8) % 8 ? off : (v >> 16) % (1u << 30);
			r.off = (int64_t)off;
			r.done_bytes = r.size_bytes;
			off += r.size_bytes;
			/* Latencies spread over many buckets, as real requests are. */
			r.c0 = osp_clock_read(&j->fs->clk) - ((v >> 40) % 200000);
			ofs_req_close(&r);
		}
		t1 = osp_clock_read(&j->fs->clk);
		j->ns[b] = osp_clock_to_ns(&j->fs->clk, t1 - t0) / (double)BATCH;
	}
	return NULL;
}

/* Median ns per request with @t threads at once. */
static double measure(struct ofs *fs, unsigned t, uint64_t batches)
{
	pthread_t th[64];
	struct job jobs[64];
	pthread_barrier_t go;
	double *all = calloc(batches * t, sizeof(*all)), med;

	if (!all) {
		fprintf(stderr, "osprof-values-cost: out of memory\n");
		exit(1);
	}
	pthread_barrier_init(&go, NULL, t);
	for (unsigned i = 0; i < t; i++) {
		jobs[i] = (struct job){ .fs = fs, .batches = batches, .ns = all + i * batches,
					.go = &go };
		if ((errno = pthread_create(&th[i], NULL, run, &jobs[i])) != 0) {
			perror("osprof-values-cost: pthread_create");
			exit(1);
		}
	}
	for (unsigned i = 0; i < t; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	gsl_sort(all, 1, batches * t);
	med = gsl_stats_median_from_sorted_data(all, 1, batches * t);
	free(all);
	return med;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "batches", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t batches = 2000, threads = 2;
	/* The slow log off, as the daemon has it without -o slow; no top
	 * view, -o by or virtual time: the close of ofs_req.c records the
	 * totals, then the values when fs.values is set. */
	struct ofs fs = { .opts = { .res = 1, .values = true }, .slow_ns = UINT64_MAX };
	double off[2] = { 0 }, on[2] = { 0 };
	struct ofs_values *vals;
	char names[OFS_OP__COUNT][8];
	const char *name_of[OFS_OP__COUNT];
	int c;

	while ((c = getopt_long(argc, argv, "b:t:", longopts, NULL)) != -1) {
		if ((c == 'b' && osp_parse_u64(optarg, 1, 1000000, &batches)) ||
		    (c == 't' && osp_parse_u64(optarg, 1, 64, &threads)) || (c != 'b' && c != 't')) {
			fprintf(stderr, "usage: osprof-values-cost [--batches N] [--threads T]\n");
			return 2;
		}
	}
	osp_clock_init(&fs.clk);
	for (unsigned i = 0; i < OFS_OP__COUNT; i++) {
		snprintf(names[i], sizeof(names[i]), "op%u", i);
		name_of[i] = names[i];
	}
	fs.set = osp_set_new(name_of, OFS_OP__COUNT, fs.opts.res, false);
	if (!fs.set || ofs_values_new(&fs) != 0) {
		fprintf(stderr, "osprof-values-cost: out of memory\n");
		return 1;
	}
	vals = fs.values;
	/* Off and on interleaved, five rounds each, the medians' median kept. */
	for (unsigned k = 0; k < 2; k++) {
		unsigned t = k ? (unsigned)threads : 1;
		double a[5], b[5];

		for (int round = 0; round < 5; round++) {
			fs.values = NULL;
			a[round] = measure(&fs, t, batches);
			fs.values = vals;
			b[round] = measure(&fs, t, batches);
		}
		gsl_sort(a, 1, 5);
		gsl_sort(b, 1, 5);
		off[k] = a[2];
		on[k] = b[2];
		printf("threads %u: close of a read, values off %.1f ns, on %.1f ns: +%.1f ns per request\n",
		       t, off[k], on[k], on[k] - off[k]);
	}
	printf("clock %s (%.3f cycles/ns), resolution %u, %llu batches of %d per measure\n",
	       osp_clock_source_name(fs.clk.source), fs.clk.cycles_per_ns, fs.opts.res,
	       (unsigned long long)batches, BATCH);
	ofs_values_free(&fs);
	osp_set_free(fs.set);
	return 0;
}
