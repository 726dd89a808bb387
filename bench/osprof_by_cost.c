// SPDX-License-Identifier: MIT
/*
 * osprof-by-cost: what -o by=KEY adds to recording a request -- finding
 * the value's slot in the lock-free map (and for comm, the cached process
 * name and its hash) and one more osp_set_record -- against the totals'
 * osp_set_record alone, as ofs_req_close does both. Keys are drawn from a
 * pool of a few values, as a mount sees a few processes; every value has
 * its slot after a warm-up (a value's first request, which names it, is
 * not what is measured). Prints medians of batches in ns. Run on demand
 * (not a test):
 *
 *   osprof-by-cost [--records N]
 *
 * Takes fs/ofs_by.c, ofs_keys.c and ofs_who.c from the daemon's library;
 * the daemon's parts they reach otherwise are stubbed here.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "ofs.h"
#include "ofs_by.h"
#include "ofs_dump.h"
#include "ofs_inode.h"
#include "ofs_opts.h"
#include "ofs_profile.h"
#include "ofs_req.h"
#include "osprof/parse.h"

#define BATCH 1000
#define POOL 16

/* ---- what ofs_by.c and ofs_who.c reach of the daemon ---- */
#define N5(a) "op" #a "0", "op" #a "1", "op" #a "2", "op" #a "3", "op" #a "4"
const char *const ofs_op_names[OFS_OP__COUNT] = { N5(0), N5(1), N5(2), N5(3), N5(4), N5(5), N5(6) };
_Static_assert(OFS_OP__COUNT == 35, "a name for every operation");

uint64_t ofs_inode_key(struct ofs *fs, fuse_ino_t ino, bool top)
{
	(void)fs;
	return top ? ino >> 4 : ino * 0x9e3779b97f4a7c15ull;
}

struct ofs_inode *ofs_inode_of(struct ofs *fs, fuse_ino_t ino)
{
	(void)fs;
	return (struct ofs_inode *)(uintptr_t)ino;
}

const char *ofs_itab_root_path(const struct ofs *fs)
{
	(void)fs;
	return "";
}

int ofs_inode_fd(struct ofs *fs, struct ofs_inode *in)
{
	(void)fs;
	(void)in;
	return -ENOENT; /* labels "?": naming a value is not measured */
}

void ofs_inode_fd_put(struct ofs *fs, struct ofs_inode *in)
{
	(void)fs;
	(void)in;
}

struct osp_profile *ofs_set_profile(struct ofs *fs, struct osp_set *set, const char *layer)
{
	(void)fs;
	(void)set;
	(void)layer;
	return NULL;
}

void ofs_profile_drop_empty(struct osp_profile *p)
{
	(void)p;
}

int ofs_dump_beside(struct ofs *fs, const char *name, mode_t mode,
		    int (*write)(FILE *f, const void *ctx), const void *ctx)
{
	(void)fs;
	(void)name;
	(void)mode;
	(void)write;
	(void)ctx;
	return -ENOSYS;
}

/* ---- the measurement ---- */

static uint64_t xorshift(uint64_t *v)
{
	*v ^= *v << 13;
	*v ^= *v >> 7;
	*v ^= *v << 17;
	return *v;
}

/*
 * Median ns per request of @batches batches: the totals' record, and with
 * @fs->by the value's too. Requests take ops, latencies and callers from
 * a pool, as a mount's do.
 */
static double measure(struct ofs *fs, const pid_t *pids, size_t npids, uint64_t batches,
		      double *cyc)
{
	uint64_t v = 88172645463325252ull;
	struct ofs_req r = { .fs = fs };

	for (uint64_t b = 0; b < batches; b++) {
		uint64_t t0 = osp_clock_read(&fs->clk);

		for (int i = 0; i < BATCH; i++) {
			uint64_t x = xorshift(&v), lat_ns = (x >> 40) + 100;

			r.op = (enum ofs_op)(x % OFS_OP__COUNT);
			r.pid = pids[(x >> 8) % npids];
			r.uid = 1000 + (uid_t)((x >> 12) % POOL);
			r.ino = 4096 + 16 * ((x >> 16) % POOL);
			osp_set_record(fs->set, r.op, lat_ns, 0);
			if (fs->by)
				ofs_by_record(&r, lat_ns, 0);
		}
		cyc[b] = (double)(osp_clock_read(&fs->clk) - t0) / BATCH;
	}
	return gsl_stats_median(cyc, 1, batches) / fs->clk.cycles_per_ns;
}

int main(int argc, char **argv)
{
	static const enum ofs_by_key keys[] = { OFS_BY_PID, OFS_BY_UID, OFS_BY_COMM,
						OFS_BY_DIR, OFS_BY_FILE };
	uint64_t records = 10000000, batches;
	pid_t pids[POOL], real[3] = { getpid(), getppid(), 1 };
	struct ofs fs = { 0 };
	double *cyc, base;
	int c;

	static const struct option longopts[] = {
		{ "records", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		if (c != 'n' || osp_parse_u64(optarg, BATCH * 10, UINT64_MAX / 2, &records) != 0) {
			fprintf(c == 'h' ? stdout : stderr,
				"usage: osprof-by-cost [--records N] (default 10000000, at least %d)\n",
				BATCH * 10);
			return c == 'h' ? 0 : 2;
		}
	}
	batches = records / BATCH;
	cyc = calloc(batches, sizeof(*cyc));
	for (unsigned i = 0; i < POOL; i++)
		pids[i] = 30000 + (pid_t)i * 7;
	osp_clock_init(&fs.clk);
	fs.opts.res = 1;
	fs.opts.by_max = 64;
	fs.set = osp_set_new(ofs_op_names, OFS_OP__COUNT, 1, false);
	if (!cyc || !fs.set) {
		fprintf(stderr, "osprof-by-cost: out of memory\n");
		return 1;
	}
	printf("clock %s, %.3f cycles/ns; %llu requests a run, median of %llu batches of %d;"
	       " %d callers, files, users (comm: 3 processes)\n",
	       osp_clock_source_name(fs.clk.source), fs.clk.cycles_per_ns,
	       (unsigned long long)records, (unsigned long long)batches, BATCH, POOL);
	measure(&fs, pids, POOL, batches / 10, cyc); /* warm up: shards, caches */
	base = measure(&fs, pids, POOL, batches, cyc);
	printf("%-10s %6.1f ns/request (the totals' osp_set_record)\n", "by off", base);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		bool comm = keys[k] == OFS_BY_COMM;
		double ns;

		fs.opts.by = keys[k];
		if (ofs_by_new(&fs) != 0)
			return 1;
		/* Every value seen once first: its slot, label and shard. */
		measure(&fs, comm ? real : pids, comm ? 3 : POOL, batches / 10, cyc);
		ns = measure(&fs, comm ? real : pids, comm ? 3 : POOL, batches, cyc);
		printf("by=%-7s %6.1f ns/request, +%.1f ns over off\n",
		       ofs_by_key_names[keys[k]], ns, ns - base);
		ofs_by_free(&fs);
	}
	osp_set_free(fs.set);
	free(cyc);
	return 0;
}
