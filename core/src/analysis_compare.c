// SPDX-License-Identifier: MIT
/*
 * OSprof's automated comparison of two profile sets (section 3.2 of the
 * paper): match operations by layer and name, set aside the ones too small
 * to matter or plainly unchanged, describe how the peaks changed, rate the
 * difference with the chosen method, and rank. A rating counts only when it
 * clears both the method's threshold (is it big enough to care?) and the
 * noise guard (could sampling noise alone explain it?).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/analysis.h"

#define DEFAULT_MIN_SHARE 0.01
#define DEFAULT_EQUAL_FRAC 0.01
#define DEFAULT_NOISE_FACTOR 3.0
/* A tenth more or fewer requests, or a tenth more or less total latency:
 * above what two runs of one workload drift by and what a person would
 * act on. */
#define DEFAULT_COUNT_FRAC 0.1
#define DEFAULT_LATENCY_FRAC 0.1

static const char *const verdict_names[] = {
	[OSP_CMP_DIFFERENT] = "different",
	[OSP_CMP_ONLY_A] = "only in A",
	[OSP_CMP_ONLY_B] = "only in B",
	[OSP_CMP_NOISE] = "noise",
	[OSP_CMP_SIMILAR] = "similar",
	[OSP_CMP_EQUAL] = "equal",
	[OSP_CMP_TINY] = "tiny",
};
_Static_assert(sizeof(verdict_names) / sizeof(verdict_names[0]) == OSP_CMP__COUNT,
	       "a name for every verdict");

const char *osp_cmp_verdict_name(enum osp_cmp_verdict v)
{
	return (unsigned)v < OSP_CMP__COUNT ? verdict_names[v] : "?";
}

bool osp_cmp_interesting(enum osp_cmp_verdict v)
{
	return v == OSP_CMP_DIFFERENT || v == OSP_CMP_ONLY_A || v == OSP_CMP_ONLY_B;
}

void osp_cmp_opts_default(struct osp_cmp_opts *o, enum osp_dist_method m)
{
	o->method = m;
	o->threshold = -1.0;
	o->min_share = DEFAULT_MIN_SHARE;
	o->equal_frac = DEFAULT_EQUAL_FRAC;
	o->noise_factor = DEFAULT_NOISE_FACTOR;
	o->count_frac = DEFAULT_COUNT_FRAC;
	o->latency_frac = DEFAULT_LATENCY_FRAC;
	o->per_time = false;
}

struct totals {
	double count, sum;
	double elapsed_ns; /* the profile's, 0 when unknown */
};

static struct totals profile_totals(const struct osp_profile *p)
{
	struct totals t = { 0.0, 0.0, p ? (double)p->elapsed_ns : 0.0 };

	for (size_t i = 0; p && i < p->nops; i++) {
		t.count += (double)p->ops[i].lat.count;
		t.sum += (double)p->ops[i].lat.sum;
	}
	return t;
}

/* The larger of the op's share of requests and of latency in its layer. */
static double op_share(const struct osp_op *op, struct totals t)
{
	double c = 0.0, s = 0.0;

	if (!op)
		return 0.0;
	if (t.count > 0.0)
		c = (double)op->lat.count / t.count;
	if (t.sum > 0.0)
		s = (double)op->lat.sum / t.sum;
	return c > s ? c : s;
}

/* (y - x) / x, +INFINITY when x is 0 and y is not. */
static double rel_change(double x, double y)
{
	if (x == 0.0)
		return y == 0.0 ? 0.0 : INFINITY;
	return (y - x) / x;
}

/* E[X^2] of a histogram from its bucket midpoints (for the latency guard). */
static double second_moment(const struct osp_hist *h)
{
	double total = 0.0, m2 = 0.0;

	for (uint32_t k = 0; k < h->nbk; k++) {
		unsigned i = h->bk[k].idx;
		double mid = i == 0 ? 1.0 : exp2(((double)i - 0.5) / h->res);

		total += (double)h->bk[k].count;
		m2 += (double)h->bk[k].count * mid * mid;
	}
	return total > 0.0 ? m2 / total : 0.0;
}

/* The probability under which a test's p stands out of sampling noise:
 * the two-sided normal tail of noise_factor standard deviations. */
static double guard_tail(const struct osp_cmp_opts *o)
{
	return erfc(o->noise_factor / M_SQRT2);
}

/*
 * Set it->noise (and it->p_value) and say whether the score stands out of
 * sampling noise by the guard's factor.
 */
static bool over_noise(struct osp_cmp_item *it, const struct osp_cmp_opts *o)
{
	const struct osp_hist *a = &it->a->lat, *b = &it->b->lat;
	double na = (double)a->count, nb = (double)b->count, stat, sd;
	unsigned dof;

	switch (o->method) {
	case OSP_DIST_EMD:
		/*
		 * The EMD noise bound is loose when requests sit far apart:
		 * it grows with the distance while the chance of a new or
		 * moved peak arising from noise does not. So a score that
		 * does not clear it may still clear the chi-square test.
		 */
		it->noise = osp_emd_noise(a, b);
		if (it->score > o->noise_factor * it->noise)
			return true;
		break;
	case OSP_DIST_OPS:
		/* Counts of independent runs vary like Poisson counts. */
		it->noise = sqrt(na + nb) / fmax(na, nb);
		return it->score > o->noise_factor * it->noise;
	case OSP_DIST_LATENCY:
		/* A compound Poisson sum: Var = n E[X^2]. */
		sd = sqrt(na * second_moment(a) + nb * second_moment(b));
		it->noise = sd / fmax((double)a->sum, (double)b->sum);
		return it->score > o->noise_factor * it->noise;
	default:
		break;
	}
	/* The chi-square test at the normal tail probability of
	 * noise_factor standard deviations (two-sided). */
	if (osp_chi2_test(a, b, &stat, &dof, &it->p_value))
		return false;
	return it->p_value < guard_tail(o);
}

/*
 * Does the EMD reach @threshold once sampling noise is taken out? Noise
 * only adds to an EMD, and most where peaks lie far apart (their shares
 * wobble, and a wobble costs its distance): at 1,000 requests two runs of
 * one workload, a real but slight difference the chi-square test does
 * find, can score 0.3 octave or more. So a shape change must also reach
 * the threshold with each boundary's noise taken off
 * (osp_emd_beyond_noise). The other methods need no such correction (ops
 * and latency have their own guards; the bin-by-bin distances are guarded
 * by the chi-square test alone).
 */
static bool over_threshold_beyond_noise(struct osp_cmp_item *it,
					const struct osp_cmp_opts *o, double threshold)
{
	if (o->method != OSP_DIST_EMD)
		return true;
	it->beyond_noise = osp_emd_beyond_noise(&it->a->lat, &it->b->lat);
	return it->beyond_noise >= threshold;
}

/* What each side is measured over: its elapsed seconds with per_time
 * (when both have one), else 1, so counts and totals compare as they are. */
static void exposures(const struct osp_cmp_opts *o, struct totals ta,
		      struct totals tb, double *ea, double *eb)
{
	*ea = *eb = 1.0;
	if (o->per_time && ta.elapsed_ns > 0.0 && tb.elapsed_ns > 0.0) {
		*ea = ta.elapsed_ns / 1e9;
		*eb = tb.elapsed_ns / 1e9;
	}
}

/*
 * One volume criterion: does a change of @change clear @frac (a negative
 * @frac turns it off) and does the test's @p clear the guard? Sets
 * *@over when it clears the fraction only (noise may explain it).
 */
static bool volume_differs(double change, double frac, double p,
			   const struct osp_cmp_opts *o, bool *over)
{
	if (frac < 0.0 || !(fabs(change) >= frac))
		return false;
	if (o->noise_factor > 0.0 && !(p < guard_tail(o))) {
		*over = true;
		return false;
	}
	return true;
}

/* The volume tests: OSP_CMP_WHY_COUNT and _LATENCY bits of @it. */
static unsigned volume_why(struct osp_cmp_item *it, const struct osp_cmp_opts *o,
			   struct totals ta, struct totals tb, bool *over)
{
	const struct osp_hist *a = &it->a->lat, *b = &it->b->lat;
	double ea, eb;
	unsigned why = 0;

	exposures(o, ta, tb, &ea, &eb);
	it->count_change = rel_change((double)a->count / ea, (double)b->count / eb);
	it->latency_change = rel_change((double)a->sum / ea, (double)b->sum / eb);
	it->count_p = osp_count_test((double)a->count, (double)b->count, ea, eb);
	it->latency_p = osp_total_test(a, b, ea, eb);
	if (volume_differs(it->count_change, o->count_frac, it->count_p, o, over))
		why |= OSP_CMP_WHY_COUNT;
	if (volume_differs(it->latency_change, o->latency_frac, it->latency_p, o, over))
		why |= OSP_CMP_WHY_LATENCY;
	return why;
}

/* The peaks of both sides and how they changed: 0 or -ENOMEM. */
static int find_peaks(struct osp_cmp_item *it)
{
	struct osp_peak pa[OSP_PEAKS_MAX], pb[OSP_PEAKS_MAX];
	struct osp_peak_change ch[2 * OSP_PEAKS_MAX];
	size_t na, nb, nc = 0, n;
	struct osp_peak *mem;

	na = osp_hist_peaks(&it->a->lat, pa, OSP_PEAKS_MAX);
	nb = osp_hist_peaks(&it->b->lat, pb, OSP_PEAKS_MAX);
	n = osp_peaks_match(pa, na, pb, nb, ch);
	for (size_t i = 0; i < n; i++)
		if (ch[i].kind != OSP_PEAK_SAME)
			ch[nc++] = ch[i];
	if (!na && !nb && !nc)
		return 0;
	/* Both structs hold doubles: the changes stay aligned after peaks. */
	mem = malloc((na + nb) * sizeof(*mem) + nc * sizeof(ch[0]));
	if (!mem)
		return -ENOMEM;
	memcpy(mem, pa, na * sizeof(*mem));
	memcpy(mem + na, pb, nb * sizeof(*mem));
	it->peaks_a = mem;
	it->peaks_b = mem + na;
	it->changes = (struct osp_peak_change *)(void *)(mem + na + nb);
	memcpy(it->changes, ch, nc * sizeof(ch[0]));
	it->npeaks_a = na;
	it->npeaks_b = nb;
	it->nchanges = nc;
	return 0;
}

/* Buckets, not count, decide: a histogram failing its checksum with
 * empty buckets has no shape to compare. */
static bool has_requests(const struct osp_op *op)
{
	return op && osp_hist_bucket_total(&op->lat) > 0;
}

/* @x in units of threshold @t (a threshold of 0 leaves @x as it is). */
static double over(double x, double t)
{
	return t > 0.0 ? x / t : x;
}

/*
 * How far past its threshold the strongest test that named @it went: the
 * rank of a difference. The score alone would put every count-only
 * change (twice the reads, the same shape: EMD 0) after the least shape
 * change; in units of each test's own threshold, the three compare.
 */
static double strength(const struct osp_cmp_item *it, const struct osp_cmp_opts *o,
		       double threshold)
{
	double s = 0.0;

	if (it->why & OSP_CMP_WHY_SHAPE)
		s = fmax(s, over(it->score, threshold));
	if (it->why & OSP_CMP_WHY_COUNT)
		s = fmax(s, over(fabs(it->count_change), o->count_frac));
	if (it->why & OSP_CMP_WHY_LATENCY)
		s = fmax(s, over(fabs(it->latency_change), o->latency_frac));
	return s;
}

static int rate_item(struct osp_cmp_item *it, const struct osp_cmp_opts *o,
		     double threshold, struct totals ta, struct totals tb)
{
	double eq = o->equal_frac;
	bool over = false;
	int err;

	if (it->share_a < o->min_share && it->share_b < o->min_share) {
		it->verdict = OSP_CMP_TINY;
		return 0;
	}
	if (!has_requests(it->a)) {
		it->verdict = OSP_CMP_ONLY_B;
		return 0;
	}
	if (!has_requests(it->b)) {
		it->verdict = OSP_CMP_ONLY_A;
		return 0;
	}
	err = find_peaks(it);
	if (!err)
		err = osp_hist_distance(&it->a->lat, &it->b->lat, o->method, &it->score);
	if (err)
		return err;
	it->why = volume_why(it, o, ta, tb, &over);
	if (fabs(it->count_change) <= eq && fabs(it->latency_change) <= eq &&
	    it->nchanges == 0) {
		it->why = 0;
		it->verdict = OSP_CMP_EQUAL;
		return 0;
	}
	if (it->score >= threshold) {
		if (o->noise_factor > 0.0 && !over_noise(it, o))
			over = true;
		else if (o->noise_factor > 0.0 && !over_threshold_beyond_noise(it, o, threshold))
			over = true;
		else
			it->why |= OSP_CMP_WHY_SHAPE;
	}
	if (it->why) {
		it->verdict = OSP_CMP_DIFFERENT;
		it->strength = strength(it, o, threshold);
	} else
		it->verdict = over ? OSP_CMP_NOISE : OSP_CMP_SIMILAR;
	return 0;
}

static const struct osp_profile *find_layer(const struct osp_profile *const *s,
					    size_t n, const char *layer)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i]->layer, layer) == 0)
			return s[i];
	return NULL;
}

static bool layers_unique(const struct osp_profile *const *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i]->layer || find_layer(s, i, s[i]->layer))
			return false;
	return true;
}

static bool opts_valid(const struct osp_cmp_opts *o)
{
	return (unsigned)o->method < OSP_DIST__COUNT && o->min_share >= 0.0 &&
	       o->min_share <= 1.0 && o->equal_frac >= 0.0 &&
	       o->noise_factor >= 0.0 && !isnan(o->threshold) &&
	       !isnan(o->count_frac) && !isnan(o->latency_frac);
}

/* The op named @name in @p through its index @ix; NULL when @p is (a
 * layer absent there). */
static const struct osp_op *find_op(const struct osp_profile *p,
				    const struct osp_name_index *ix,
				    const char *name)
{
	size_t pos = p ? osp_name_index_find(ix, name) : SIZE_MAX;

	return pos == SIZE_MAX ? NULL : &p->ops[pos];
}

/* Rate op @a of A against op @b of B (one may be NULL) as the next item;
 * an operation with no request in either set is no item. */
static int add_item(struct osp_cmp *c, const char *layer,
		    const struct osp_op *a, const struct osp_op *b,
		    struct totals ta, struct totals tb,
		    const struct osp_cmp_opts *o)
{
	struct osp_cmp_item *it = &c->items[c->n];
	int err;

	if ((!a || !a->lat.count) && (!b || !b->lat.count))
		return 0;
	memset(it, 0, sizeof(*it));
	it->layer = layer;
	it->name = a ? a->name : b->name;
	it->a = a;
	it->b = b;
	it->score = it->noise = it->p_value = it->strength = it->beyond_noise = NAN;
	it->count_change = it->latency_change = NAN;
	it->count_p = it->latency_p = NAN;
	it->share_a = op_share(a, ta);
	it->share_b = op_share(b, tb);
	err = rate_item(it, o, c->threshold, ta, tb);
	if (!err)
		c->n++;
	else
		free(it->peaks_a);
	return err;
}

/* Add the items of layer @pa (may be NULL) against @pb (may be NULL):
 * every op of A, then the ops only B has. */
static int add_layer(struct osp_cmp *c, const struct osp_profile *pa,
		     const struct osp_profile *pb, const struct osp_cmp_opts *o)
{
	struct totals ta = profile_totals(pa), tb = profile_totals(pb);
	struct osp_name_index *ia = NULL, *ib = NULL;
	int err = 0;

	if (pa && pb && pa->res != pb->res)
		return -EINVAL;
	/* Matching by name through indexes: linear in the number of ops. */
	if ((pa && !(ia = osp_name_index_ops(pa->ops, pa->nops))) ||
	    (pb && !(ib = osp_name_index_ops(pb->ops, pb->nops))))
		err = -ENOMEM;
	for (size_t i = 0; !err && pa && i < pa->nops; i++)
		err = add_item(c, pa->layer, &pa->ops[i],
			       find_op(pb, ib, pa->ops[i].name), ta, tb, o);
	for (size_t i = 0; !err && pb && i < pb->nops; i++)
		if (!find_op(pa, ia, pb->ops[i].name))
			err = add_item(c, pb->layer, NULL, &pb->ops[i], ta, tb, o);
	osp_name_index_free(ia);
	osp_name_index_free(ib);
	return err;
}

static int rank_group(enum osp_cmp_verdict v)
{
	static const int group[] = {
		[OSP_CMP_DIFFERENT] = 0, [OSP_CMP_ONLY_A] = 1, [OSP_CMP_ONLY_B] = 1,
		[OSP_CMP_NOISE] = 2, [OSP_CMP_SIMILAR] = 3, [OSP_CMP_EQUAL] = 4,
		[OSP_CMP_TINY] = 5,
	};

	return group[v];
}

static int cmp_items(const void *x, const void *y)
{
	const struct osp_cmp_item *a = x, *b = y;
	int ga = rank_group(a->verdict), gb = rank_group(b->verdict), c;
	double ka, kb;

	if (ga != gb)
		return ga < gb ? -1 : 1;
	/* Differences by strength, the one-sided ones by their share, the
	 * rest by score. */
	ka = ga == 0 ? a->strength : ga == 1 ? fmax(a->share_a, a->share_b) : a->score;
	kb = gb == 0 ? b->strength : gb == 1 ? fmax(b->share_a, b->share_b) : b->score;
	if (isnan(ka) != isnan(kb))
		return isnan(ka) ? 1 : -1;
	if (ka != kb && !isnan(ka))
		return ka > kb ? -1 : 1;
	c = strcmp(a->layer, b->layer);
	return c ? c : strcmp(a->name, b->name);
}

int osp_compare(const struct osp_profile *const *a, size_t na,
		const struct osp_profile *const *b, size_t nb,
		const struct osp_cmp_opts *opts, struct osp_cmp *out)
{
	size_t cap = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!opts_valid(opts) || !layers_unique(a, na) || !layers_unique(b, nb))
		return -EINVAL;
	for (size_t i = 0; i < na; i++)
		cap += a[i]->nops;
	for (size_t i = 0; i < nb; i++)
		cap += b[i]->nops;
	out->items = calloc(cap ? cap : 1, sizeof(*out->items));
	if (!out->items)
		return -ENOMEM;
	out->method = opts->method;
	out->threshold = opts->threshold >= 0.0 ? opts->threshold
						: osp_dist_default_threshold(opts->method);
	for (size_t i = 0; !err && i < na; i++)
		err = add_layer(out, a[i], find_layer(b, nb, a[i]->layer), opts);
	for (size_t i = 0; !err && i < nb; i++)
		if (!find_layer(a, na, b[i]->layer))
			err = add_layer(out, NULL, b[i], opts);
	if (err) {
		osp_cmp_free(out);
		return err;
	}
	qsort(out->items, out->n, sizeof(*out->items), cmp_items);
	while (out->ninteresting < out->n &&
	       osp_cmp_interesting(out->items[out->ninteresting].verdict))
		out->ninteresting++;
	return 0;
}

void osp_cmp_free(struct osp_cmp *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->items[i].peaks_a);
	free(c->items);
	memset(c, 0, sizeof(*c));
}
