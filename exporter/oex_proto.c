// SPDX-License-Identifier: MIT
/*
 * The protobuf exposition: varint-delimited io.prometheus.client
 * MetricFamily messages (Prometheus's published metrics.proto, compiled
 * with protoc-c at build time), for scrapers that ask for it -- Prometheus
 * with --enable-feature=native-histograms.
 *
 * It holds the classic families of the text format, the same series with
 * the same fixed le set in seconds, and native histograms of the same
 * operations in families of their own, in nanoseconds:
 * osprof_latency_nanoseconds (and osprof_cpu_nanoseconds). Our bucket i at
 * resolution r covers (2^((i-1)/r), 2^(i/r)] ns, which is native bucket i
 * of schema log2 r, exactly, when the unit is the nanosecond; in seconds
 * the bounds 2^(i/r) * 1e-9 are on no schema's grid, so a native
 * histogram in seconds would have to re-bin (and lose exactness). Bucket 0
 * (values 0 and 1 ns) is the zero bucket, threshold 1 ns: exact for
 * integer nanoseconds. The families are separate because Prometheus 2.42
 * keeps only the native part of a histogram that has one.
 *
 * Label values are the strings Prometheus reads from the text format
 * (valid UTF-8 as it is; other bytes in core's \xHH spelling), so both
 * expositions give the same series.
 */
#include <errno.h>
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
		l[i].name = (char *)names[i];
		l[i].value = label_value(a, values[i]);
		lp[i] = &l[i];
	}
	m->n_label = nlabels;
	m->label = lp;
	return m;
}

/* The classic histogram of the text format: fixed le set, seconds. */
static Io__Prometheus__Client__Histogram *
classic(struct arena *a, const struct osp_hist *h, struct oex_le_set le)
{
	size_t nb = le.hi_exp - le.lo_exp + 1;
	Io__Prometheus__Client__Histogram *ph = arena_zalloc(a, 1, sizeof(*ph));
	Io__Prometheus__Client__Bucket **bp = arena_zalloc(a, nb, sizeof(*bp));
	Io__Prometheus__Client__Bucket *b = arena_zalloc(a, nb, sizeof(*b));

	if (!ph || !bp || !b)
		return NULL;
	io__prometheus__client__histogram__init(ph);
	ph->has_sample_count = ph->has_sample_sum = true;
	ph->sample_count = osp_hist_bucket_total(h); /* see oex_text.c */
	ph->sample_sum = (double)h->sum / 1e9;
	for (size_t i = 0; i < nb; i++) {
		io__prometheus__client__bucket__init(&b[i]);
		b[i].has_cumulative_count = b[i].has_upper_bound = true;
		b[i].cumulative_count = oex_le_cumulative(h, le.lo_exp + (unsigned)i);
		b[i].upper_bound = (double)((uint64_t)1 << (le.lo_exp + i)) / 1e9;
		bp[i] = &b[i];
	}
	ph->n_bucket = nb;
	ph->bucket = bp;
	return ph;
}

/* The native histogram: our buckets as they are, in nanoseconds. */
static Io__Prometheus__Client__Histogram *
native(struct arena *a, const struct osp_hist *h)
{
	Io__Prometheus__Client__Histogram *ph = arena_zalloc(a, 1, sizeof(*ph));
	Io__Prometheus__Client__BucketSpan **sp = arena_zalloc(a, h->nbk, sizeof(*sp));
	Io__Prometheus__Client__BucketSpan *s = arena_zalloc(a, h->nbk, sizeof(*s));
	int64_t *delta = arena_zalloc(a, h->nbk, sizeof(*delta));
	uint64_t prev_count = 0;
	uint32_t prev_idx = 0;
	size_t ns = 0, nd = 0;

	if (!ph || !sp || !s || !delta)
		return NULL;
	io__prometheus__client__histogram__init(ph);
	ph->has_sample_count = ph->has_sample_sum = true;
	ph->sample_count = osp_hist_bucket_total(h); /* see oex_text.c */
	ph->sample_sum = (double)h->sum;
	ph->has_schema = true;
	/* r = 1, 2, 4, 8 -> schema 0, 1, 2, 3 */
	ph->schema = __builtin_ctz(h->res);
	/* Bucket 0 holds 0 and 1 ns: the zero bucket [-1, 1]. A threshold
	 * above 0 also marks the histogram native when it is empty. */
	ph->has_zero_threshold = ph->has_zero_count = true;
	ph->zero_threshold = 1.0;
	ph->zero_count = osp_hist_bucket(h, 0);
	for (uint32_t i = 0; i < h->nbk; i++) {
		const struct osp_bucket *b = &h->bk[i];

		if (b->idx == 0)
			continue;
		if (ns > 0 && b->idx == prev_idx + 1) {
			s[ns - 1].length++;
		} else {
			io__prometheus__client__bucket_span__init(&s[ns]);
			s[ns].has_offset = s[ns].has_length = true;
			/* The first span starts at its index, the others
			 * after the gap since the previous one. */
			s[ns].offset = ns == 0 ? (int32_t)b->idx
					       : (int32_t)(b->idx - prev_idx - 1);
			s[ns].length = 1;
			sp[ns] = &s[ns];
			ns++;
		}
		delta[nd++] = (int64_t)(b->count - prev_count);
		prev_count = b->count;
		prev_idx = b->idx;
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

static const char *const hist_labels[] = { "mount", "lower", "layer", "op" };

/* A histogram family over every source's layers: classic or native,
 * latency or CPU time. Written only when it has a series. */
static int write_hist_family(FILE *out, const struct oex_source *srcs,
			     size_t n, bool cpu, bool nat)
{
	static const char *const names[2][2] = {
		{ OEX_FAMILY_LATENCY, OEX_FAMILY_LATENCY_NATIVE },
		{ OEX_FAMILY_CPU, OEX_FAMILY_CPU_NATIVE } };
	const char *help = nat ? (cpu ? "CPU time of requests per operation, by source and layer, native histogram in ns (osprof)."
				      : "Latency of requests per operation, by source and layer, native histogram in ns (osprof).")
			       : (cpu ? "CPU time of requests per operation, by source and layer (osprof)."
				      : "Latency of requests per operation, by source and layer (osprof).");
	struct arena a = { 0 };
	Io__Prometheus__Client__MetricFamily *f;
	size_t cap = 0;

	for (size_t s = 0; s < n; s++)
		for (size_t l = 0; l < srcs[s].n; l++)
			cap += srcs[s].prof[l]->nops;
	f = new_family(&a, names[cpu][nat], help,
		       IO__PROMETHEUS__CLIENT__METRIC_TYPE__HISTOGRAM, cap);
	for (size_t s = 0; f && !a.failed && s < n; s++) {
		for (size_t l = 0; l < srcs[s].n; l++) {
			const struct osp_profile *p = srcs[s].prof[l];
			struct oex_le_set le = oex_le_set_of(p->layer);

			for (size_t i = 0; i < p->nops && !a.failed; i++) {
				const struct osp_op *o = &p->ops[i];
				const struct osp_hist *h = cpu ? &o->cpu : &o->lat;
				const char *v[4] = { srcs[s].path, srcs[s].lower[l],
						     p->layer, o->name };
				const char *k[4] = { hist_labels[0], hist_labels[1],
						     hist_labels[2], hist_labels[3] };
				size_t nl = 4;
				Io__Prometheus__Client__Metric *m;

				if (cpu && !o->has_cpu)
					continue;
				if (!v[1]) { /* no lower: no label */
					memmove(&k[1], &k[2], 2 * sizeof(k[0]));
					memmove(&v[1], &v[2], 2 * sizeof(v[0]));
					nl = 3;
				}
				m = new_metric(&a, k, v, nl);
				if (!m)
					break;
				m->histogram = nat ? native(&a, h) : classic(&a, h, le);
				f->metric[f->n_metric++] = m;
			}
		}
	}
	return write_family(out, f, &a);
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
	int rc = 0;

	for (int cpu = 0; rc == 0 && cpu < 2; cpu++)
		for (int nat = 0; rc == 0 && nat < 2; nat++)
			rc = write_hist_family(out, srcs, n, cpu, nat);
	if (rc == 0)
		rc = write_up(out, srcs, n);
	if (rc == 0 && (fflush(out) != 0 || ferror(out)))
		rc = -EIO;
	return rc;
}
