// SPDX-License-Identifier: MIT
/*
 * ofs-vm-check: the checks of osprof-fs's kernel-module integration that
 * run inside the test VM (tests/vm/guest/fs.sh), on the files of a mount's
 * control directory, read with core's own reader. Built by meson against
 * core and copied into the guest with its shared libraries. Each check
 * prints "PASS <name>" or "FAIL <name>: <why>" and "INFO" lines with the
 * figures it saw, as the other guest tests do.
 *
 *   ofs-vm-check files FILE...      each *.json parses, its layer is its
 *                                   file name's, every checksum holds
 *   ofs-vm-check lower MNT          after a read-only workload with
 *                                   direct I/O, lower.json counts exactly
 *                                   the reads the fs layer served (each
 *                                   FUSE read is one pread below) and no
 *                                   write, readv or writev: the daemon's
 *                                   reads and writes of /dev/fuse are not
 *                                   lower-file-system calls
 *   ofs-vm-check block MNT DEV N    block.json's DEV.read count is N, the
 *                                   reads the disk completed meanwhile
 *   ofs-vm-check vtimers MNT        stats.json says cpu_source "vtimer";
 *                                   every op with requests has as many
 *                                   virtual times, and on average virtual
 *                                   time <= latency
 *
 * Exit status: 0 when every check passed, 1 when one failed, 2 on usage.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/format.h"
#include "osprof/parse.h"
#include "osprof/profile.h"

static int nfail;

static void pass(const char *name)
{
	printf("PASS %s\n", name);
}

static void fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	nfail++;
}

/* @path read with checksums checked; NULL after a FAIL line for @name. */
static struct osp_profile *load_path(const char *name, const char *path)
{
	char err[512];
	struct osp_profile *p;
	size_t bad;

	p = osp_read_json_file(path, err, sizeof(err));
	if (!p) {
		fail(name, "%s: %s", path, err);
		return NULL;
	}
	bad = osp_profile_check(p, stdout);
	if (bad) {
		fail(name, "%s: %zu histograms whose buckets do not add up", path, bad);
		osp_profile_free(p);
		return NULL;
	}
	return p;
}

/* MNT/.osprof/@file, as load_path(). */
static struct osp_profile *load(const char *name, const char *mnt,
				const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/.osprof/%s", mnt, file);
	return load_path(name, path);
}

static uint64_t count_of(const struct osp_profile *p, const char *op)
{
	const struct osp_op *o = osp_profile_find_op(p, op);

	return o ? o->lat.count : 0;
}

/* The layer a file's name implies: "lower.json" -> "lower", stats -> fs. */
static void layer_of(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	snprintf(out, len, "%.*s", (int)n, base);
	if (strcmp(out, "stats") == 0)
		snprintf(out, len, "fs");
}

static int check_files(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char name[128], layer[32];
		struct osp_profile *p;

		layer_of(argv[i], layer, sizeof(layer));
		snprintf(name, sizeof(name), "fs_json_parses_%s", layer);
		p = load_path(name, argv[i]);
		if (!p)
			continue;
		if (!p->layer || strcmp(p->layer, layer) != 0)
			fail(name, "%s: layer '%s', expected '%s'", argv[i],
			     p->layer ? p->layer : "(none)", layer);
		else if (p->nops == 0)
			fail(name, "%s: no operations", argv[i]);
		else if (!osp_kv_get(&p->source, "mount") || !p->host)
			fail(name, "%s: no host or source", argv[i]);
		else
			pass(name);
		printf("INFO %s: layer %s, %zu ops, clock %s\n", argv[i], p->layer,
		       p->nops, p->clock_source ? p->clock_source : "?");
		osp_profile_free(p);
	}
	return 0;
}

/*
 * Right after fs.sh's workload (reset, then reads only, the cache off): the
 * daemon's only calls on lower files that read or write were one pread per
 * FUSE read. It also read /dev/fuse once per request and wrote each reply
 * to it (writev): the module must leave those out, so the counts are
 * equal, not merely one above the other. lower.json's snapshot is taken
 * within the daemon's first read of /proc/osprof/lower, so that read and
 * the later ones are not in it.
 */
static int check_lower(const char *mnt)
{
	static const char *name = "fs_lower_counts_the_daemons_reads";
	static const char *const none[] = { "write", "readv", "writev" };
	struct osp_profile *fs = load(name, mnt, "stats.json");
	struct osp_profile *lo = fs ? load(name, mnt, "lower.json") : NULL;
	uint64_t fs_reads, lo_reads, n;
	int bad = 0;

	if (!lo)
		goto out;
	fs_reads = count_of(fs, "read");
	lo_reads = count_of(lo, "read");
	printf("INFO fs reads %" PRIu64 ", lower reads %" PRIu64 "\n", fs_reads, lo_reads);
	if (fs_reads == 0)
		fail(name, "the workload made no FUSE reads");
	else if (lo_reads != fs_reads)
		fail(name, "lower counts %" PRIu64 " reads, the daemon served %" PRIu64
		     " (one pread each)", lo_reads, fs_reads);
	else
		pass(name);
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		n = count_of(lo, none[i]);
		printf("INFO lower %s %" PRIu64 "\n", none[i], n);
		if (n) {
			fail("fs_lower_leaves_out_dev_fuse",
			     "lower counts %" PRIu64 " %s calls in a read-only workload",
			     n, none[i]);
			bad++;
		}
	}
	if (!bad)
		pass("fs_lower_leaves_out_dev_fuse");
out:
	osp_profile_free(fs);
	osp_profile_free(lo);
	return 0;
}

static int check_block(const char *mnt, const char *dev, const char *nstr)
{
	static const char *name = "fs_block_shows_the_disks_reads";
	struct osp_profile *b = load(name, mnt, "block.json");
	char op[64];
	uint64_t want, got;

	if (!b)
		return 0;
	if (osp_parse_u64(nstr, 0, UINT64_MAX, &want) != 0) {
		fail(name, "bad count '%s'", nstr);
		osp_profile_free(b);
		return 0;
	}
	snprintf(op, sizeof(op), "%s.read", dev);
	got = count_of(b, op);
	printf("INFO block %s count %" PRIu64 ", the disk completed %" PRIu64 " reads\n",
	       op, got, want);
	if (want == 0)
		fail(name, "the workload did not reach %s", dev);
	else if (got != want)
		fail(name, "%s count %" PRIu64 ", the disk completed %" PRIu64, op, got, want);
	else
		pass(name);
	osp_profile_free(b);
	return 0;
}

static int check_vtimers(const char *mnt)
{
	static const char *name = "fs_vtimers_virtual_time_within_latency";
	struct osp_profile *p = load(name, mnt, "stats.json");
	const char *src;
	uint64_t lat = 0, cpu = 0, n = 0;
	int bad = 0;

	if (!p)
		return 0;
	src = osp_kv_get(&p->options, "cpu_source");
	if (!src || strcmp(src, "\"vtimer\"") != 0) {
		fail(name, "options.cpu_source is %s, expected \"vtimer\"", src ? src : "absent");
		bad++;
	}
	for (size_t i = 0; i < p->nops; i++) {
		const struct osp_op *o = &p->ops[i];

		if (!o->lat.count)
			continue;
		if (!o->has_cpu || o->cpu.count != o->lat.count) {
			fail(name, "%s: %" PRIu64 " requests but %" PRIu64 " virtual times",
			     o->name, o->lat.count, o->has_cpu ? o->cpu.count : 0);
			bad++;
			continue;
		}
		printf("INFO vtimers %s: %" PRIu64 " requests, mean latency %" PRIu64
		       " ns, mean virtual %" PRIu64 " ns\n", o->name, o->lat.count,
		       o->lat.sum / o->lat.count, o->cpu.sum / o->cpu.count);
		if (o->cpu.sum > o->lat.sum) {
			fail(name, "%s: virtual time %" PRIu64 " ns above latency %" PRIu64 " ns",
			     o->name, o->cpu.sum, o->lat.sum);
			bad++;
		}
		lat += o->lat.sum;
		cpu += o->cpu.sum;
		n += o->lat.count;
	}
	if (n == 0 || cpu == 0) {
		fail(name, "no request carries a virtual time (%" PRIu64 " requests)", n);
		bad++;
	}
	if (n)
		printf("INFO vtimers all ops: %" PRIu64 " requests, mean latency %" PRIu64
		       " ns, mean virtual %" PRIu64 " ns\n", n, lat / n, cpu / n);
	if (!bad)
		pass(name);
	osp_profile_free(p);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: ofs-vm-check files FILE... | lower MNT | block MNT DEV N | vtimers MNT\n");
	printf("FAIL ofs_vm_check_usage: bad arguments\n");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && strcmp(argv[1], "files") == 0)
		check_files(argc - 2, argv + 2);
	else if (argc == 3 && strcmp(argv[1], "lower") == 0)
		check_lower(argv[2]);
	else if (argc == 5 && strcmp(argv[1], "block") == 0)
		check_block(argv[2], argv[3], argv[4]);
	else if (argc == 3 && strcmp(argv[1], "vtimers") == 0)
		check_vtimers(argv[2]);
	else
		return usage();
	return nfail ? 1 : 0;
}
