// SPDX-License-Identifier: MIT
/*
 * Reader of /proc/osprof/{lower,block,irq} text; see osprof/kmod.h for
 * the format and the mapping onto struct osp_profile. Every line is
 * validated: each token key=value, no key twice, the required keys
 * present, numbers through osp_parse_u64, histograms ascending within
 * the 65 buckets of resolution 1. The first error ends the parse with a
 * message naming the line and the key.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/kmod.h"
#include "osprof/layers.h"
#include "osprof/parse.h"

#define KM_MAX_KEYS 64

enum km_layer { KM_LOWER, KM_BLOCK, KM_IRQ };

struct km_tok {
	const char *key;
	const char *val;
};

/* One line being parsed: its tokens and where to report errors. */
struct km_line {
	const char *layer;
	unsigned long no; /* 1-based line number */
	size_t ntok;
	struct km_tok tok[KM_MAX_KEYS];
	char *err;
	size_t errlen;
	struct osp_name_index *ix; /* the ops so far, by name */
};

static void km_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void km_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

#define KM_LERR(l, fmt, ...) \
	km_err((l)->err, (l)->errlen, "%s line %lu: " fmt, (l)->layer, (l)->no, \
	       __VA_ARGS__)

/* Split @s (modified) at spaces into key=value tokens. */
static int km_tokenize(struct km_line *l, char *s)
{
	char *p = s;

	l->ntok = 0;
	while (*p) {
		char *tok, *eq;
		size_t i;

		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			break;
		tok = p;
		p += strcspn(p, " \t\r");
		if (*p)
			*p++ = '\0';
		eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			KM_LERR(l, "'%.32s' is not key=value", tok);
			return -EINVAL;
		}
		*eq = '\0';
		/* one in JSON is one here (an event's name is a key) */
		for (i = 0; i < l->ntok; i++) {
			if (osp_name_same(l->tok[i].key, tok)) {
				KM_LERR(l, "key '%.32s' repeated", tok);
				return -EINVAL;
			}
		}
		if (l->ntok == KM_MAX_KEYS) {
			KM_LERR(l, "more than %d keys", KM_MAX_KEYS);
			return -EINVAL;
		}
		l->tok[l->ntok].key = tok;
		l->tok[l->ntok].val = eq + 1;
		l->ntok++;
	}
	return 0;
}

/* Index of @key in @l, or -1. */
static int km_find(const struct km_line *l, const char *key)
{
	for (size_t i = 0; i < l->ntok; i++) {
		if (!strcmp(l->tok[i].key, key))
			return (int)i;
	}
	return -1;
}

/* The value of required key @key, or NULL with "missing key" said. */
static const char *km_need(const struct km_line *l, const char *key)
{
	int i = km_find(l, key);

	if (i < 0) {
		KM_LERR(l, "missing key '%s'", key);
		return NULL;
	}
	return l->tok[i].val;
}

/* A required key with a non-empty value. */
static const char *km_str(const struct km_line *l, const char *key)
{
	const char *val = km_need(l, key);

	if (!val)
		return NULL;
	if (!val[0]) {
		KM_LERR(l, "key '%s': empty value", key);
		return NULL;
	}
	return val;
}

static int km_u64_val(const struct km_line *l, const char *key,
		      const char *val, uint64_t *out)
{
	int err = osp_parse_u64(val, 0, UINT64_MAX, out);

	if (err)
		KM_LERR(l, "key '%s': not a number: '%.32s'", key, val);
	return err;
}

static int km_u64(const struct km_line *l, const char *key, uint64_t *out)
{
	const char *val = km_need(l, key);

	return val ? km_u64_val(l, key, val, out) : -EINVAL;
}

/* "b:c,b:c,..." into @h's buckets (ascending b, within range). */
static int km_hist_buckets(const struct km_line *l, const char *key,
			   const char *val, struct osp_hist *h)
{
	const char *p = val;
	long prev = -1;
	uint64_t total = 0;

	while (*p) {
		char num[32];
		size_t n = strcspn(p, ":,");
		uint64_t b, c;

		if (p[n] != ':' || n == 0 || n >= sizeof(num)) {
			KM_LERR(l, "key '%s': bad bucket '%.32s'", key, p);
			return -EINVAL;
		}
		memcpy(num, p, n);
		num[n] = '\0';
		if (osp_parse_u64(num, 0, OSP_HIST_NBUCKETS(h->res) - 1, &b)) {
			KM_LERR(l, "key '%s': bucket index '%.32s' not in 0..%u",
				key, num, OSP_HIST_NBUCKETS(h->res) - 1);
			return -EINVAL;
		}
		if ((long)b <= prev) {
			KM_LERR(l, "key '%s': bucket %llu out of order", key,
				(unsigned long long)b);
			return -EINVAL;
		}
		prev = (long)b;
		p += n + 1;
		n = strcspn(p, ",");
		if (n == 0 || n >= sizeof(num)) {
			KM_LERR(l, "key '%s': bad count in bucket %llu", key,
				(unsigned long long)b);
			return -EINVAL;
		}
		memcpy(num, p, n);
		num[n] = '\0';
		if (osp_parse_u64(num, 0, UINT64_MAX, &c)) {
			KM_LERR(l, "key '%s': bucket %llu: not a number: '%.32s'",
				key, (unsigned long long)b, num);
			return -EINVAL;
		}
		/* A wrapped total could pass the checksum against count. */
		if (c > UINT64_MAX - total) {
			KM_LERR(l, "key '%s': the buckets add up to more than 2^64 - 1", key);
			return -EINVAL;
		}
		total += c;
		if (osp_hist_bucket_set(h, (unsigned)b, c))
			return -ENOMEM;
		p += n;
		if (*p == ',') {
			p++;
			if (!*p) {
				KM_LERR(l, "key '%s': trailing comma", key);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/*
 * A histogram from keys <p>count, <p>sum_ns, <p>min_ns, <p>max_ns and
 * <p>hist (@p "" or "v").
 */
static int km_hist(const struct km_line *l, const char *p, struct osp_hist *h)
{
	static const char *const names[] = { "count", "sum_ns", "min_ns", "max_ns" };
	uint64_t *fields[] = { &h->count, &h->sum, &h->min, &h->max };
	const char *val;
	char key[16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(key, sizeof(key), "%s%s", p, names[i]);
		if (km_u64(l, key, fields[i]))
			return -EINVAL;
	}
	/* What no recording can produce: the module copies each histogram
	 * consistently (under its sequence count). */
	switch (osp_hist_fault(h)) {
	case OSP_HIST_FAULT_MIN_OVER_MAX:
		KM_LERR(l, "key '%smin_ns': %llu is greater than %smax_ns (%llu)", p,
			(unsigned long long)h->min, p, (unsigned long long)h->max);
		return -EINVAL;
	case OSP_HIST_FAULT_VALUES_NO_COUNT:
		KM_LERR(l, "key '%scount': 0, but %ssum_ns, %smin_ns or %smax_ns is not",
			p, p, p, p);
		return -EINVAL;
	case OSP_HIST_FAULT_NONE:
		break;
	}
	snprintf(key, sizeof(key), "%shist", p);
	val = km_need(l, key);
	return val ? km_hist_buckets(l, key, val, h) : -EINVAL;
}

static int km_header(const struct km_line *l, struct osp_profile *p)
{
	int i = km_find(l, "layer");
	double rate;
	uint64_t on;

	if (strcmp(l->tok[i].val, l->layer)) {
		KM_LERR(l, "key 'layer': '%.32s', expected '%s'", l->tok[i].val,
			l->layer);
		return -EINVAL;
	}
	i = km_find(l, "clock");
	if (i >= 0) {
		if (!l->tok[i].val[0]) {
			KM_LERR(l, "key '%s': empty value", "clock");
			return -EINVAL;
		}
		if (osp_str_set(&p->clock_source, l->tok[i].val))
			return -ENOMEM;
	}
	i = km_find(l, "cycles_per_ns");
	if (i >= 0) {
		if (osp_parse_double(l->tok[i].val, 1e-9, 1e9, &rate)) {
			KM_LERR(l, "key 'cycles_per_ns': not a rate: '%.32s'",
				l->tok[i].val);
			return -EINVAL;
		}
		p->cycles_per_ns = rate;
	}
	i = km_find(l, "enabled");
	if (i >= 0) {
		if (osp_parse_u64(l->tok[i].val, 0, 1, &on)) {
			KM_LERR(l, "key 'enabled': not 0 or 1: '%.32s'",
				l->tok[i].val);
			return -EINVAL;
		}
		if (osp_kv_set_bool(&p->options, "enabled", on != 0))
			return -ENOMEM;
	}
	return 0;
}

/* Add op @name, refusing a second one of the same name. */
static struct osp_op *km_add_op(const struct km_line *l, struct osp_profile *p,
				const char *name, bool has_cpu)
{
	struct osp_op *op;

	if (osp_name_index_find(l->ix, name) != SIZE_MAX) {
		KM_LERR(l, "op '%.64s' repeated", name);
		return NULL;
	}
	op = osp_profile_add_op(p, name, has_cpu);
	if (!op || osp_name_index_add(l->ix, op->name, p->nops - 1)) {
		KM_LERR(l, "%s", "out of memory");
		return NULL;
	}
	return op;
}

static int km_irq_pmc(const struct km_line *l, struct osp_op *op)
{
	int i = km_find(l, "pmc");
	uint64_t v;

	if (i < 0) {
		KM_LERR(l, "missing key '%s'", "pmc");
		return -EINVAL;
	}
	if (!strcmp(l->tok[i].val, "unavailable"))
		return osp_kv_set_str(&op->attrs, "pmc", "unavailable");
	if (strcmp(l->tok[i].val, "available")) {
		KM_LERR(l, "key 'pmc': '%.32s', expected available or unavailable",
			l->tok[i].val);
		return -EINVAL;
	}
	if (osp_kv_set_str(&op->attrs, "pmc", "available"))
		return -ENOMEM;
	/* every key after pmc=available is an event's sum */
	for (size_t k = (size_t)i + 1; k < l->ntok; k++) {
		if (km_u64_val(l, l->tok[k].key, l->tok[k].val, &v))
			return -EINVAL;
		if (osp_op_add_counter(op, l->tok[k].key, v))
			return -ENOMEM;
	}
	return 0;
}

static int km_record(const struct km_line *l, enum km_layer layer,
		     struct osp_profile *p)
{
	const char *a, *b;
	struct osp_op *op;
	char *name;
	size_t n;

	switch (layer) {
	case KM_LOWER:
		a = km_str(l, "op");
		if (!a)
			return -EINVAL;
		op = km_add_op(l, p, a, true);
		if (!op)
			return -EINVAL;
		if (km_hist(l, "", &op->lat) || km_hist(l, "v", &op->cpu))
			return -EINVAL;
		return 0;
	case KM_BLOCK:
	case KM_IRQ:
		a = km_str(l, layer == KM_BLOCK ? "dev" : "irq");
		b = a ? km_str(l, layer == KM_BLOCK ? "dir" : "name") : NULL;
		if (!b)
			return -EINVAL;
		n = strlen(a) + strlen(b) + 2;
		name = malloc(n);
		if (!name)
			return -ENOMEM;
		snprintf(name, n, "%s%c%s", a, layer == KM_BLOCK ? '.' : ':', b);
		op = km_add_op(l, p, name, false);
		free(name);
		if (!op || km_hist(l, "", &op->lat))
			return -EINVAL;
		if (layer == KM_IRQ)
			return km_irq_pmc(l, op);
		return 0;
	}
	return -EINVAL;
}

struct osp_profile *osp_read_kmod(const char *layer, const char *text,
				  size_t len, char *err, size_t errlen)
{
	static const char *const names[] = { [KM_LOWER] = OSP_LAYER_LOWER,
					     [KM_BLOCK] = OSP_LAYER_BLOCK,
					     [KM_IRQ] = OSP_LAYER_IRQ };
	struct osp_profile *p = NULL;
	struct km_line *l = NULL;
	char *buf = NULL, *line, *next;
	bool seen_record = false;
	uint64_t total = 0;
	unsigned kind;

	if (err && errlen)
		err[0] = '\0';
	if (osp_parse_name(layer, names, sizeof(names) / sizeof(names[0]), &kind)) {
		km_err(err, errlen, "unknown kernel layer '%.32s' (lower, block or irq)",
		       layer ? layer : "(null)");
		return NULL;
	}
	if (!text && len) {
		km_err(err, errlen, "%s: no text", layer);
		return NULL;
	}
	if (len && memchr(text, '\0', len)) {
		km_err(err, errlen, "%s: NUL byte in the text", layer);
		return NULL;
	}
	buf = malloc(len + 1);
	l = calloc(1, sizeof(*l));
	p = osp_profile_new(layer, 1);
	if (!buf || !l || !p || osp_str_set(&p->clock_source, "ktime") ||
	    osp_kv_set_str(&p->source, "layer_source", "osprof.ko") ||
	    !(l->ix = osp_name_index_new(0)))
		goto fail;
	if (len)
		memcpy(buf, text, len);
	buf[len] = '\0';
	l->layer = layer;
	l->err = err;
	l->errlen = errlen;

	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		l->no++;
		if (km_tokenize(l, line))
			goto fail;
		if (!l->ntok)
			continue;
		if (!strcmp(l->tok[0].key, "layer")) {
			if (seen_record) {
				KM_LERR(l, "%s", "header after records");
				goto fail;
			}
			if (km_header(l, p))
				goto fail;
			seen_record = true;
			continue;
		}
		seen_record = true;
		if (km_record(l, (enum km_layer)kind, p))
			goto fail;
		/* Requests past 2^64 cannot be, and would wrap every total. */
		if (p->ops[p->nops - 1].lat.count > UINT64_MAX - total) {
			KM_LERR(l, "key 'count': the records' counts add up to more than 2^64 - 1%s", "");
			goto fail;
		}
		total += p->ops[p->nops - 1].lat.count;
	}
	osp_name_index_free(l->ix);
	free(buf);
	free(l);
	return p;

fail:
	/* Only running out of memory fails without a message. */
	if (err && errlen && !err[0])
		km_err(err, errlen, "%s: out of memory", layer);
	osp_profile_free(p);
	free(buf);
	if (l)
		osp_name_index_free(l->ix);
	free(l);
	return NULL;
}
