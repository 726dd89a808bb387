// SPDX-License-Identifier: MIT
/*
 * orp-test-mkprof: writes the profiles the report tests read, recorded the
 * way osprof-fs records them -- through a struct osp_set (osp_set_record
 * per request, timeline ticks between phases, osp_set_snapshot) and
 * written with osp_write_json. Latencies are drawn from log-normal peaks
 * with a fixed seed, so every run writes the same bytes.
 *
 *   orp-test-mkprof KIND OUT [SEED [RES [RAW]]]
 *
 * KIND is one of:
 *   base     layer fs, 8 operations; read has a cache peak (~800 ns) and
 *            a disk peak (~3 ms); a timeline of 4 snapshots
 *   shifted  base, but read's cache peak sits 2 octaves higher (~3.2 us)
 *   lower    layer lower, read and write only (for a layered mount)
 *   irq      layer irq, 3 interrupt lines with performance counters
 *   many     layer fs, 40 operations (rendering speed)
 * These stand in for osprof-fs mounts until the mount tests produce them.
 * RAW, when given, receives every latency recorded, one `OP CENTRE_NS
 * LATENCY_NS` a line (CENTRE_NS names the peak it was drawn from): the
 * truth a test compares the report's counts, totals, percentiles,
 * buckets and peaks with.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/format.h"
#include "osprof/parse.h"
#include "osprof/set.h"

static uint64_t rng_state;
/* The RAW file (or NULL) and the names of the set being recorded. */
static FILE *raw;
static const char *const *raw_names;

/* xorshift64*: small, deterministic, good enough for test data. */
static double uniform(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double normal(void)
{
	double u = uniform(), v = uniform();

	return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2.0 * M_PI * v);
}

/* @n requests of op @op around @centre_ns, spread @sigma octaves. */
static void peak(struct osp_set *s, unsigned op, unsigned n, double centre_ns,
		 double sigma)
{
	for (unsigned i = 0; i < n; i++) {
		double v = centre_ns * exp2(sigma * normal());
		uint64_t ns = (uint64_t)(v < 1 ? 1 : v);

		osp_set_record(s, op, ns, 0);
		if (raw)
			fprintf(raw, "%s %.0f %" PRIu64 "\n", raw_names[op], centre_ns, ns);
	}
}

static const char *const fs_ops[] = { "read", "write", "getattr", "lookup",
				      "open", "release", "readdir", "fsync" };

/* One phase of the fs workload (a quarter of it). */
static void fs_phase(struct osp_set *s, bool shifted)
{
	peak(s, 0, 250, shifted ? 3200 : 800, 0.3);  /* read: page cache */
	peak(s, 0, 25, 3e6, 0.4);                    /* read: disk */
	peak(s, 1, 100, 5000, 0.4);                  /* write */
	peak(s, 2, 200, 1800, 0.3);                  /* getattr */
	peak(s, 3, 60, 9000, 0.5);                   /* lookup */
	peak(s, 4, 30, 12000, 0.4);                  /* open */
	peak(s, 5, 30, 3000, 0.3);                   /* release */
	peak(s, 6, 5, 40000, 0.5);                   /* readdir */
	peak(s, 7, 2, 2e6, 0.3);                     /* fsync: tiny */
}

static struct osp_set *make_fs(unsigned res, bool shifted)
{
	struct osp_set *s = osp_set_new(fs_ops, 8, res, false);

	raw_names = fs_ops;
	/* An interval nobody waits for: the ticks below are the snapshots. */
	if (!s || osp_set_timeline_start(s, 3600ull * 1000000000ull, 16))
		return NULL;
	for (int phase = 0; phase < 4; phase++) {
		fs_phase(s, shifted);
		if (osp_set_timeline_tick(s))
			return NULL;
	}
	return s;
}

static struct osp_set *make_lower(unsigned res)
{
	static const char *const ops[] = { "read", "write" };
	struct osp_set *s = osp_set_new(ops, 2, res, false);

	raw_names = ops;
	if (!s)
		return NULL;
	peak(s, 0, 900, 600, 0.3);
	peak(s, 0, 100, 2.8e6, 0.4);
	peak(s, 1, 400, 4000, 0.4);
	return s;
}

static struct osp_set *make_irq(unsigned res)
{
	static const char *const ops[] = { "24:nvme0q1", "30:virtio0-input", "0:timer" };
	struct osp_set *s = osp_set_new(ops, 3, res, false);

	raw_names = ops;
	if (!s)
		return NULL;
	peak(s, 0, 500, 2500, 0.3);
	peak(s, 1, 300, 1200, 0.3);
	peak(s, 2, 1000, 800, 0.2);
	return s;
}

static struct osp_set *make_many(unsigned res)
{
	char *names[40];
	struct osp_set *s;

	for (int i = 0; i < 40; i++)
		if (asprintf(&names[i], "op%02d", i) < 0)
			return NULL;
	s = osp_set_new((const char *const *)names, 40, res, false);
	raw_names = (const char *const *)names;
	for (int i = 0; s && i < 40; i++) {
		peak(s, (unsigned)i, 500 + 50 * (unsigned)i, 500.0 * (1 + i % 7), 0.4);
		peak(s, (unsigned)i, 20 + (unsigned)i, 1e6 * (1 + i % 3), 0.5);
	}
	for (int i = 0; i < 40; i++)
		free(names[i]);
	return s;
}

/* Counters as the kernel module would sum them per line. */
static void irq_counters(struct osp_profile *p)
{
	for (size_t i = 0; i < p->nops; i++) {
		uint64_t n = p->ops[i].lat.count;

		osp_op_add_counter(&p->ops[i], "cycles", n * (3000 + 1000 * i));
		osp_op_add_counter(&p->ops[i], "instructions", n * (2500 + 400 * i));
		osp_op_add_counter(&p->ops[i], "branches", n * (500 + 50 * i));
		osp_op_add_counter(&p->ops[i], "branch_misses", n * (10 + 5 * i));
		osp_op_add_counter(&p->ops[i], "l1i_misses", n * (40 + 10 * i));
		osp_op_add_counter(&p->ops[i], "l1d_misses", n * (60 + 20 * i));
	}
}

static int write_profile(struct osp_set *s, const char *layer, unsigned res,
			 const char *out)
{
	struct osp_profile *p = osp_profile_new(layer, res);
	FILE *f;
	int err;

	if (!p || osp_set_snapshot(s, p))
		return -ENOMEM;
	osp_str_set(&p->host, "testhost");
	p->elapsed_ns = 4000000000ull;
	osp_kv_set_str(&p->source, "mount", "/mnt/test");
	osp_kv_set_str(&p->options, "cache", "auto");
	if (strcmp(layer, "irq") == 0)
		irq_counters(p);
	f = fopen(out, "w");
	if (!f) {
		osp_profile_free(p);
		return -errno;
	}
	err = osp_write_json(f, p);
	if (fclose(f) != 0)
		err = -EIO;
	osp_profile_free(p);
	return err;
}

/* A whole decimal argument, or exit: the tests pass only small numbers. */
static uint64_t arg_u64(const char *s)
{
	uint64_t v;

	if (osp_parse_u64(s, 0, UINT32_MAX, &v)) {
		fprintf(stderr, "orp-test-mkprof: '%s' is not a small number\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	unsigned res = 1;
	struct osp_set *s = NULL;
	const char *layer = "fs";
	int err;

	if (argc < 3 || argc > 6) {
		fprintf(stderr, "usage: orp-test-mkprof base|shifted|lower|irq|many OUT [SEED [RES [RAW]]]\n");
		return 2;
	}
	if (argc > 5 && !(raw = fopen(argv[5], "w"))) {
		fprintf(stderr, "orp-test-mkprof: %s: %s\n", argv[5], strerror(errno));
		return 2;
	}
	rng_state = (argc > 3 ? arg_u64(argv[3]) : 0) * 0x9e3779b97f4a7c15ull + 42;
	if (argc > 4)
		res = (unsigned)arg_u64(argv[4]);
	if (strcmp(argv[1], "base") == 0 || strcmp(argv[1], "shifted") == 0) {
		s = make_fs(res, strcmp(argv[1], "shifted") == 0);
	} else if (strcmp(argv[1], "lower") == 0) {
		s = make_lower(res);
		layer = "lower";
	} else if (strcmp(argv[1], "irq") == 0) {
		s = make_irq(res);
		layer = "irq";
	} else if (strcmp(argv[1], "many") == 0) {
		s = make_many(res);
	}
	if (!s) {
		fprintf(stderr, "orp-test-mkprof: cannot make '%s'\n", argv[1]);
		return 2;
	}
	err = write_profile(s, layer, res, argv[2]);
	osp_set_free(s);
	if (err) {
		fprintf(stderr, "orp-test-mkprof: %s: %s\n", argv[2], strerror(-err));
		return 2;
	}
	if (raw && (ferror(raw) | fclose(raw)) != 0) {
		fprintf(stderr, "orp-test-mkprof: %s: %s\n", argv[5], strerror(EIO));
		return 2;
	}
	return 0;
}
