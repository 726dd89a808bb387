// SPDX-License-Identifier: MIT
/*
 * The protobuf exposition: varint-delimited io.prometheus.client
 * MetricFamily messages (Prometheus's published metrics.proto, compiled
 * with protoc-c at build time), for scrapers that ask for it -- Prometheus
 * with --enable-feature=native-histograms.
 *
 * It holds the series of the text format (core's osp_om_walk, so the same
 * names and labels), each histogram with both its classic buckets (the
 * fixed le set, seconds) and its native ones, in seconds too, under the
 * one name: a scraper keeps what it can use (Prometheus 2.42 with native
 * histograms on keeps only the native part).
 *
 * Native buckets: our bucket i at resolution r covers
 * (2^((i-1)/r), 2^(i/r)] ns; schema log2 r has the same spacing, bounds
 * 2^(k/r) s. 1e-9 is no power of two, so no native bucket in seconds is
 * exactly ours: bucket i becomes native bucket i - K, K = round(r *
 * log2(1e9)) (oex_native_shift), whose bounds are ours times 1e9 /
 * 2^(K/r): 0.931 at r = 1, 2, 4 (2^-30 s is 0.93 ns), 1.016 at r = 8.
 * Each request stays in one bucket (no count is split or blurred); only
 * the bounds move, by under 7%. Bucket 0 (0 and 1 ns) is the zero
 * bucket, its threshold 2^(-K/r) s, the lower bound of bucket 1's native
 * bucket.
 *
 * Label values are the strings Prometheus reads from the text format
 * (valid UTF-8 as it is; other bytes in core's \xHH spelling), so both
 * expositions give the same series.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.pb-c.h"
#include "oex.h"
#include "osprof/escape.h"


/* Every allocation of one family, freed together once it is written. */
struct arena {
	void **p;
	size_t n, cap;
	bool failed;
};

static void *arena_keep(struct arena *a, void *p)
{
	if (!p) {
		a->failed = true;
		return NULL;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		void **np = realloc(a->p, cap * sizeof(*np));

		if (!np) {
			free(p);
			a->failed = true;
			return NULL;
		}
		a->p = np;
		a->cap = cap;
	}
	return a->p[a->n++] = p;
}

static void *arena_zalloc(struct arena *a, size_t n, size_t size)
{
	return arena_keep(a, calloc(n ? n : 1, size));
}

static void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->p[i]);
	free(a->p);
	memset(a, 0, sizeof(*a));
}

/*
 * @s as Prometheus stores it after reading the text format's label value
 * osp_esc_om writes: the escapes \\ \" \n undone, the \xHH of bytes that
 * are not UTF-8 kept.
 */
static char *label_value(struct arena *a, const char *s)
{
	char *esc = NULL, *out, *o;
	size_t len = 0;
	FILE *mem = open_memstream(&esc, &len);

	if (!mem) {
		a->failed = true;
		return NULL;
	}
	osp_esc_om(mem, s);
	if (fclose(mem) != 0) {
		free(esc);
		a->failed = true;
		return NULL;
	}
	out = o = arena_keep(a, malloc(len + 1));
	if (out) {
		for (size_t i = 0; i < len; i++) {
			if (esc[i] == '\\' && i + 1 < len) {
				i++;
				*o++ = esc[i] == 'n' ? '\n' : esc[i];
			} else {
				*o++ = esc[i];
			}
		}
		*o = '\0';
	}
	free(esc);
	return out;
}

static Io__Prometheus__Client__Metric *
new_metric(struct arena *a, const char *const *names, const char *const *values,
	   size_t nlabels)
{
	Io__Prometheus__Client__Metric *m = arena_zalloc(a, 1, sizeof(*m));
	Io__Prometheus__Client__LabelPair **lp = arena_zalloc(a, nlabels, sizeof(*lp));
	Io__Prometheus__Client__LabelPair *l = arena_zalloc(a, nlabels, sizeof(*l));

	if (!m || !lp || !l)
		return NULL;
	io__prometheus__client__metric__init(m);
	for (size_t i = 0; i < nlabels; i++) {
		io__prometheus__client__label_pair__init(&l[i]);
		/* A series lives for osp_om_walk's call only: the message
		 * is packed after it, so it keeps copies of both. */
		l[i].name = arena_keep(a, strdup(names[i]));
		l[i].value = label_value(a, values[i]);
		lp[i] = &l[i];
	}
	m->n_label = nlabels;
	m->label = lp;
	return m;
}

int oex_native_shift(unsigned res)
{
	/* round(r * 29.897352853986263): 29.9, 59.8, 119.6, 239.2 */
	static const int shift[] = { 30, 60, 120, 239 };
	unsigned schema = (unsigned)__builtin_ctz(res);

	return schema < 4 ? shift[schema] : (int)lround(res * log2(1e9));
}

/* @h's classic buckets (the fixed le set @le, seconds) and native ones
 * (module comment), in one histogram. */
static Io__Prometheus__Client__Histogram *
histogram(struct arena *a, const struct osp_hist *h, struct osp_om_le le)
{
	size_t nb = le.hi_exp - le.lo_exp + 1;
	Io__Prometheus__Client__Histogram *ph = arena_zalloc(a, 1, sizeof(*ph));
	Io__Prometheus__Client__Bucket **bp = arena_zalloc(a, nb, sizeof(*bp));
	Io__Prometheus__Client__Bucket *b = arena_zalloc(a, nb, sizeof(*b));
	Io__Prometheus__Client__BucketSpan **sp = arena_zalloc(a, h->nbk, sizeof(*sp));
	Io__Prometheus__Client__BucketSpan *s = arena_zalloc(a, h->nbk, sizeof(*s));
	int64_t *delta = arena_zalloc(a, h->nbk, sizeof(*delta));
	int shift = oex_native_shift(h->res);
	uint64_t prev_count = 0;
	uint32_t prev_idx = 0;
	size_t ns = 0, nd = 0;

	if (!ph || !bp || !b || !sp || !s || !delta)
		return NULL;
	io__prometheus__client__histogram__init(ph);
	ph->has_sample_count = ph->has_sample_sum = true;
	/* The buckets' total, as the text format's count (core's writer). */
	ph->sample_count = osp_hist_bucket_total(h);
	ph->sample_sum = (double)h->sum / 1e9;
	for (size_t i = 0; i < nb; i++) {
		io__prometheus__client__bucket__init(&b[i]);
		b[i].has_cumulative_count = b[i].has_upper_bound = true;
		b[i].cumulative_count = osp_om_le_cumulative(h, le.lo_exp + (unsigned)i);
		b[i].upper_bound = (double)((uint64_t)1 << (le.lo_exp + i)) / 1e9;
		bp[i] = &b[i];
	}
	ph->n_bucket = nb;
	ph->bucket = bp;

	ph->has_schema = true;
	/* r = 1, 2, 4, 8 -> schema 0, 1, 2, 3 */
	ph->schema = __builtin_ctz(h->res);
	/* A threshold above 0 also marks the histogram native when empty. */
	ph->has_zero_threshold = ph->has_zero_count = true;
	ph->zero_threshold = exp2(-(double)shift / h->res);
	ph->zero_count = osp_hist_bucket(h, 0);
	for (uint32_t i = 0; i < h->nbk; i++) {
		const struct osp_bucket *bk = &h->bk[i];

		if (bk->idx == 0)
			continue;
		if (ns > 0 && bk->idx == prev_idx + 1) {
			s[ns - 1].length++;
		} else {
			io__prometheus__client__bucket_span__init(&s[ns]);
			s[ns].has_offset = s[ns].has_length = true;
			/* The first span starts at its index, the others
			 * after the gap since the previous one. */
			s[ns].offset = ns == 0 ? (int32_t)bk->idx - shift
					       : (int32_t)(bk->idx - prev_idx - 1);
			s[ns].length = 1;
			sp[ns] = &s[ns];
			ns++;
		}
		delta[nd++] = (int64_t)(bk->count - prev_count);
		prev_count = bk->count;
		prev_idx = bk->idx;
	}
	ph->n_positive_span = ns;
	ph->positive_span = sp;
	ph->n_positive_delta = nd;
	ph->positive_delta = delta;
	return ph;
}

static Io__Prometheus__Client__MetricFamily *new_family(struct arena *a, const char *name,
			     const char *help,
			     Io__Prometheus__Client__MetricType type, size_t cap)
{
	Io__Prometheus__Client__MetricFamily *f = arena_zalloc(a, 1, sizeof(*f));
	Io__Prometheus__Client__Metric **m = arena_zalloc(a, cap, sizeof(*m));

	if (!f || !m)
		return NULL;
	io__prometheus__client__metric_family__init(f);
	f->name = (char *)name;
	f->help = (char *)help;
	f->has_type = true;
	f->type = type;
	f->metric = m;
	return f;
}

/* One message, as its length in a varint and its bytes. */
static int write_delimited(FILE *out, const Io__Prometheus__Client__MetricFamily *f)
{
	size_t len = io__prometheus__client__metric_family__get_packed_size(f);
	uint8_t *buf = malloc(len ? len : 1), var[10];
	size_t nv = 0;
	uint64_t v = len;

	if (!buf)
		return -ENOMEM;
	io__prometheus__client__metric_family__pack(f, buf);
	do {
		var[nv++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	fwrite(var, 1, nv, out);
	fwrite(buf, 1, len, out);
	free(buf);
	return 0;
}

/* Write family @f, when it has a series, and free its arena @a. 0,
 * -ENOMEM (when building it failed). */
static int write_family(FILE *out, const Io__Prometheus__Client__MetricFamily *f,
			struct arena *a)
{
	int rc = 0;

	if (!f || a->failed)
		rc = -ENOMEM;
	else if (f->n_metric > 0)
		rc = write_delimited(out, f);
	arena_free(a);
	return rc;
}

/* A family being built from osp_om_walk's series. */
struct building {
	struct arena a;
	Io__Prometheus__Client__MetricFamily *f;
	size_t cap; /* room in f->metric */
};

static int add_series(void *ctx, const struct osp_om_series *s)
{
	struct building *b = ctx;
	Io__Prometheus__Client__MetricFamily *f = b->f;
	Io__Prometheus__Client__Metric *m;

	if (f->n_metric == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;
		Io__Prometheus__Client__Metric **nm = arena_zalloc(&b->a, cap, sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		memcpy(nm, f->metric, f->n_metric * sizeof(*nm));
		f->metric = nm;
		b->cap = cap;
	}
	m = new_metric(&b->a, s->name, s->value, s->nlabels);
	if (!m)
		return -ENOMEM;
	if (s->h) {
		m->histogram = histogram(&b->a, s->h, osp_om_le_of(s->src->p->layer));
	} else {
		m->gauge = arena_zalloc(&b->a, 1, sizeof(*m->gauge));
		if (m->gauge) {
			io__prometheus__client__gauge__init(m->gauge);
			m->gauge->has_value = true;
			m->gauge->value = 1;
		}
	}
	if (b->a.failed)
		return -ENOMEM;
	f->metric[f->n_metric++] = m;
	return 0;
}

/* Core's family @name over @n profiles, written when it has a series. */
static int write_om_family(FILE *out, const struct osp_om_src *src, size_t n,
			   const char *name, const char *help,
			   Io__Prometheus__Client__MetricType type)
{
	struct building b = { 0 };
	int rc;

	b.f = new_family(&b.a, name, help, type, 0);
	if (!b.f) {
		arena_free(&b.a);
		return -ENOMEM;
	}
	rc = osp_om_walk(src, n, name, add_series, &b);
	if (rc) {
		arena_free(&b.a);
		return rc;
	}
	return write_family(out, b.f, &b.a);
}

static int write_up(FILE *out, const struct oex_source *srcs, size_t n)
{
	struct arena a = { 0 };
	Io__Prometheus__Client__MetricFamily *f = new_family(&a, OEX_FAMILY_UP,
				  "Whether the source could be read at this scrape (1) or not (0).",
				  IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE, n);

	for (size_t s = 0; f && !a.failed && s < n; s++) {
		const char *k = "mount";
		Io__Prometheus__Client__Metric *m = new_metric(&a, &k, &srcs[s].path, 1);
		Io__Prometheus__Client__Gauge *g = arena_zalloc(&a, 1, sizeof(*g));

		if (!m || !g)
			break;
		io__prometheus__client__gauge__init(g);
		g->has_value = true;
		g->value = srcs[s].up ? 1 : 0;
		m->gauge = g;
		f->metric[f->n_metric++] = m;
	}
	return write_family(out, f, &a);
}

int oex_write_proto(FILE *out, const struct oex_source *srcs, size_t n)
{
	struct osp_om_src *om = calloc(n * OEX_LAYERS_MAX + 1, sizeof(*om));
	size_t m;
	int rc;

	if (!om)
		return -ENOMEM;
	m = oex_om_sources(srcs, n, om);
	rc = write_om_family(out, om, m, OSP_OM_LATENCY,
			     "Latency of requests by layer and operation (osprof).",
			     IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	if (rc == 0)
		rc = write_om_family(out, om, m, OSP_OM_CPU,
				     "CPU time of requests by layer and operation, where profiled (osprof).",
				     IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM);
	if (rc == 0)
		rc = write_om_family(out, om, m, OSP_OM_INFO,
				     "The osprof version and settings of each profile served (osprof).",
				     IO__PROMETHEUS__CLIENT__METRIC_TYPE__GAUGE);
	free(om);
	if (rc == 0)
		rc = write_up(out, srcs, n);
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = -EIO;
	return rc;
}
