// SPDX-License-Identifier: MIT
/*
 * orp-bench-accuracy: how often does `osprof-report compare` get it wrong?
 * Runs core's osp_compare -- the code behind the command -- with each
 * method's defaults over labelled synthetic pairs (orp_bench_gen.c) and
 * prints false positives (same distribution called different) and false
 * negatives (a real change missed) per method, then EMD's errors by kind
 * of change and by size. The target (issue 3, after OSprof's paper): EMD
 * wrong on at most 2% of the pairs.
 *
 *   orp-bench-accuracy [PAIRS [SEED]] [-v]
 *
 * PAIRS (default 400): half same (exact or jittered), half different,
 * the changes in equal numbers; sizes cycle through 200, 2,000, 20,000 and 200,000 requests a
 * side and resolutions through 1, 2, 4. -v lists EMD's mistakes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orp_bench_gen.h"
#include "osprof/analysis.h"

#define NSIZES 4
#define NRES 3

static const unsigned long sizes[NSIZES] = { 200, 2000, 20000, 200000 };
static const unsigned resolutions[NRES] = { 1, 2, 4 };

struct tally {
	unsigned fp, fn, same, diff;
};

/* Per EMD: [kind][size] errors and totals. */
static unsigned emd_err[ORP_GEN__COUNT][NSIZES], emd_tot[ORP_GEN__COUNT][NSIZES];

static void pair_params(unsigned long i, unsigned long npairs,
			enum orp_gen_kind *kind, unsigned *si, unsigned *res)
{
	unsigned long half = npairs / 2;

	/* Independent cycles, so every kind meets every size. */
	*si = (unsigned)(i % NSIZES);
	if (i < half)
		*kind = (i / NSIZES) % 2 ? ORP_GEN_JITTER : ORP_GEN_SAME;
	else
		*kind = (enum orp_gen_kind)(ORP_GEN_SHIFT + (i / NSIZES) % 4);
	*res = resolutions[(i / (4 * NSIZES)) % NRES];
}

/* osp_compare of the pair with @m's defaults: 0 or -errno. */
static int compare_pair(const struct orp_pair *p, enum osp_dist_method m,
			struct osp_cmp *c)
{
	const struct osp_profile *a = p->a, *b = p->b;
	struct osp_cmp_opts o;

	osp_cmp_opts_default(&o, m);
	return osp_compare(&a, 1, &b, 1, &o, c);
}

/* Does @m call the pair different? -1 on error. */
static int verdict(const struct orp_pair *p, enum osp_dist_method m)
{
	struct osp_cmp c;
	int diff;

	if (compare_pair(p, m, &c))
		return -1;
	diff = c.ninteresting > 0;
	osp_cmp_free(&c);
	return diff;
}

static void print_mistake(const struct orp_pair *p, int said)
{
	struct osp_cmp c;

	if (compare_pair(p, OSP_DIST_EMD, &c))
		return;
	printf("  emd wrong: %-8s size %-6lu res %u: said %s (%s, score %.3f, noise %.3f, p %.2g)\n",
	       orp_gen_kind_name(p->kind), p->size, p->res, said ? "different" : "same",
	       osp_cmp_verdict_name(c.items[0].verdict), c.items[0].score,
	       c.items[0].noise, c.items[0].p_value);
	osp_cmp_free(&c);
}

static int run_pair(gsl_rng *rng, unsigned long i, unsigned long npairs,
		    struct tally *t, bool verbose)
{
	enum orp_gen_kind kind;
	unsigned si, res;
	struct orp_pair p;

	pair_params(i, npairs, &kind, &si, &res);
	if (orp_gen_pair(rng, kind, sizes[si], res, &p))
		return -ENOMEM;
	for (unsigned m = 0; m < OSP_DIST__COUNT; m++) {
		int said = verdict(&p, (enum osp_dist_method)m);
		bool wrong;

		if (said < 0) {
			orp_pair_free(&p);
			return -EINVAL;
		}
		wrong = said != !orp_gen_kind_same(kind);
		if (orp_gen_kind_same(kind)) {
			t[m].same++;
			t[m].fp += wrong;
		} else {
			t[m].diff++;
			t[m].fn += wrong;
		}
		if (m == OSP_DIST_EMD) {
			emd_tot[kind][si]++;
			emd_err[kind][si] += wrong;
			if (wrong && verbose)
				print_mistake(&p, said);
		}
	}
	orp_pair_free(&p);
	return 0;
}

static void print_table(const struct tally *t)
{
	printf("\n%-10s %9s %16s %16s %9s\n", "METHOD", "THRESHOLD", "FALSE POSITIVES",
	       "FALSE NEGATIVES", "ERRORS");
	for (unsigned m = 0; m < OSP_DIST__COUNT; m++) {
		unsigned n = t[m].same + t[m].diff;

		printf("%-10s %9g %6u/%-4u %4.1f%% %6u/%-4u %4.1f%% %8.1f%%\n",
		       osp_dist_method_name(m), osp_dist_default_threshold(m),
		       t[m].fp, t[m].same, 100.0 * t[m].fp / t[m].same,
		       t[m].fn, t[m].diff, 100.0 * t[m].fn / t[m].diff,
		       100.0 * (t[m].fp + t[m].fn) / n);
	}
}

static void print_emd_breakdown(void)
{
	printf("\nEMD errors by change and size (wrong/pairs):\n%-10s", "");
	for (unsigned s = 0; s < NSIZES; s++)
		printf(" %10lu", sizes[s]);
	putchar('\n');
	/* The kinds this program draws (orp-bench-verdict draws them all). */
	for (unsigned k = 0; k <= ORP_GEN_REWEIGHT; k++) {
		printf("%-10s", orp_gen_kind_name(k));
		for (unsigned s = 0; s < NSIZES; s++)
			printf("  %4u/%-4u", emd_err[k][s], emd_tot[k][s]);
		putchar('\n');
	}
}

int main(int argc, char **argv)
{
	unsigned long npairs = 400, seed = 1;
	bool verbose = false;
	struct tally t[OSP_DIST__COUNT] = { 0 };
	gsl_rng *rng;

	orp_bench_args("orp-bench-accuracy", argc, argv, 1000000, &npairs, &seed, &verbose);
	if (npairs < 8)
		npairs = 8;
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	printf("osprof compare accuracy: %lu labelled pairs (%lu same: as many exact as jittered;\n"
	       "%lu different: shift, add, remove, reweight in turn),\n"
	       "sizes 200..200000 requests a side, resolutions 1, 2, 4, seed %lu\n",
	       npairs, npairs / 2, npairs - npairs / 2, seed);
	for (unsigned long i = 0; i < npairs; i++) {
		if (run_pair(rng, i, npairs, t, verbose)) {
			fprintf(stderr, "orp-bench-accuracy: pair %lu failed\n", i);
			gsl_rng_free(rng);
			return 2;
		}
	}
	print_table(t);
	print_emd_breakdown();
	gsl_rng_free(rng);
	return 0;
}
