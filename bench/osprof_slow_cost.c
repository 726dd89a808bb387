// SPDX-License-Identifier: MIT
/*
 * osprof-slow-cost: what the slow-request log's check and the top view
 * add to recording one request in osprof-fs, when no request is slow:
 * the profile's record alone (osp_set_record), then with ofs_slow_record
 * with the log off and with a threshold of 100 ms, then with
 * ofs_top_record (-o top, keys already seen). Medians over batches, in ns
 * per request, one thread. Run on demand (not a test):
 *
 *   osprof-slow-cost [--records N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/parse.h"
#include "ofs.h"
#include "ofs_inode.h"
#include "ofs_req.h"
#include "ofs_slow.h"
#include "ofs_top.h"
#include "ofs_who.h"

#define BATCH 1000

/* What the recording path reaches of the rest of the daemon: never called
 * here (nothing is slow, keys are named before timing). */
static uint64_t logged;

void ofs_slow_log(struct ofs_req *r, uint64_t lat_ns)
{
	(void)r;
	logged += lat_ns;
}

void ofs_inode_label(struct ofs *fs, fuse_ino_t ino, char *buf, size_t len)
{
	(void)fs;
	snprintf(buf, len, "/file%llu", (unsigned long long)ino);
}

uint64_t ofs_inode_key(struct ofs *fs, fuse_ino_t ino, bool top)
{
	(void)fs;
	(void)top;
	return ino * 0x9e3779b97f4a7c15ull; /* the table's mix, without the lookup */
}

void ofs_comm_label(pid_t pid, char out[OFS_COMM_LEN])
{
	snprintf(out, OFS_COMM_LEN, "p%d", (int)pid);
}

enum mode { M_RECORD, M_SLOW_OFF, M_SLOW_100MS, M_TOP, M__COUNT };
static const char *const mode_names[M__COUNT] = {
	"record only", "+ slow check, log off", "+ slow check, 100ms, none slow",
	"+ slow check + top (-o top)",
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median ns per request of @batches (> 0) batches in mode @m; -1 when
 * out of memory. */
static double run(struct ofs *fs, enum mode m, uint64_t batches)
{
	double *ns = calloc(batches, sizeof(*ns)), med;
	struct ofs_req r = { .fs = fs, .op = OFS_OP_READ, .ino = 42, .pid = 4242,
			     .size_bytes = 4096, .done_bytes = 4096 };

	if (!ns)
		return -1;

	fs->slow_ns = m == M_SLOW_100MS || m == M_TOP ? 100000000u : UINT64_MAX;
	for (uint64_t b = 0; b < batches; b++) {
		uint64_t c0 = osp_clock_read(&fs->clk);

		for (unsigned i = 0; i < BATCH; i++) {
			/* Latencies as a warm grep's: 2 to 60 us. */
			uint64_t lat_ns = 2000 + (i & 63) * 900;

			osp_set_record(fs->set, OFS_OP_READ, lat_ns, 0);
			if (m != M_RECORD)
				ofs_slow_record(&r, lat_ns);
			if (m == M_TOP)
				ofs_top_record(&r, lat_ns);
		}
		ns[b] = osp_clock_to_ns(&fs->clk, osp_clock_read(&fs->clk) - c0) / (double)BATCH;
	}
	qsort(ns, batches, sizeof(*ns), cmp_double);
	med = ns[batches / 2];
	free(ns);
	return med;
}

int main(int argc, char **argv)
{
	static const char *names[OFS_OP__COUNT];
	uint64_t records = 20000000;
	struct ofs fs = { 0 };
	double med[M__COUNT] = { 0 };

	/* Five rounds of at least one batch each. */
	if (argc != 1 && (argc != 3 || strcmp(argv[1], "--records") != 0 ||
			  osp_parse_u64(argv[2], 5 * BATCH, UINT64_MAX / 2, &records) != 0)) {
		fprintf(stderr, "usage: osprof-slow-cost [--records N], N >= %u\n", 5 * BATCH);
		return 2;
	}
	for (unsigned i = 0; i < OFS_OP__COUNT; i++)
		names[i] = "op";
	osp_clock_init(&fs.clk);
	fs.set = osp_set_new(names, OFS_OP__COUNT, 1, false);
	fs.opts.top = true;
	fs.opts.top_max = 256;
	if (!fs.set || ofs_top_new(&fs) != 0) {
		fprintf(stderr, "osprof-slow-cost: out of memory\n");
		return 1;
	}
	/* Rounds of every mode in turn, so drifts touch them all alike. */
	for (int round = 0; round < 5; round++)
		for (int m = 0; m < M__COUNT; m++) {
			double v = run(&fs, (enum mode)m, records / BATCH / 5);

			if (v < 0) {
				fprintf(stderr, "osprof-slow-cost: out of memory\n");
				return 1;
			}
			med[m] = round == 0 || v < med[m] ? v : med[m];
		}
	printf("clock %s; ns per request, best of 5 rounds' medians over %u-request batches\n",
	       osp_clock_source_name(fs.clk.source), BATCH);
	for (int m = 0; m < M__COUNT; m++)
		printf("  %-34s %7.2f ns  (+%.2f)\n", mode_names[m], med[m], med[m] - med[M_RECORD]);
	ofs_top_free(&fs);
	osp_set_free(fs.set);
	return logged ? 1 : 0;
}
