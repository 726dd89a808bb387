// SPDX-License-Identifier: MIT
/*
 * `osprof-report show --values`: what values each latency peak holds, as
 * OSprof correlated them. For every op of a values.json (osprof-fs -o
 * values), its latency histogram is the marginal of its tables (every
 * table of an op counts each request once), its peaks are core's
 * osp_hist_peaks of it, and for each peak the values of each table are
 * summed over the peak's latency buckets: "read peak 1 of 2 (65.5us-131us,
 * 50.0%, 20 requests): size 512B 100.0%; seek first 5.0%, sequential
 * 95.0%".
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orp.h"
#include "orp_jread.h"
#include "osprof/escape.h"
#include "osprof/format.h"

/* Values listed per peak and table; the rest are summed as "others". */
#define SHOW_VALUES 6

/* @spec's values.json (orp_companion), or NULL with the reason in @err. */
static char *values_path(const char *spec, char *err, size_t errlen)
{
	struct stat st;
	char *p = orp_companion(spec, "values", false);

	if (!p)
		snprintf(err, errlen, "out of memory");
	else if (stat(spec, &st) != 0)
		snprintf(err, errlen, "%s: %s", spec, strerror(errno));
	else if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
		snprintf(err, errlen, "%s: no value profiles (%s: mount osprof-fs with -o values)",
			 spec, p);
	else
		return p;
	free(p);
	return NULL;
}

/* Read the values of @spec into @v: 0, or -errno with @err. */
static int values_load(const char *spec, struct orp_values *v, char *err, size_t errlen)
{
	char *path = values_path(spec, err, errlen), *text = NULL, why[ORP_ERRLEN / 2];
	size_t len;
	int rc;

	if (!path)
		return -ENOENT;
	rc = osp_read_path(path, &text, &len);
	if (rc)
		snprintf(err, errlen, "%s: %s", path, osp_read_error(rc));
	else if ((rc = orp_values_parse(v, text, len, why, sizeof(why))) != 0)
		snprintf(err, errlen, "%s: %s", path, why);
	free(text);
	free(path);
	return rc;
}

/* The requests of @t's latency buckets [@lo, @hi] per value bucket, into @out. */
static uint64_t range_sum(const struct orp_vtable *t, unsigned lo, unsigned hi, uint64_t *out)
{
	uint64_t total = 0;

	memset(out, 0, t->nval * sizeof(*out));
	for (unsigned l = lo; l <= hi; l++)
		for (unsigned b = 0; b < t->nval; b++) {
			uint64_t c = t->cell[l * t->nval + b];

			out[b] = out[b] > UINT64_MAX - c ? UINT64_MAX : out[b] + c;
			total = total > UINT64_MAX - c ? UINT64_MAX : total + c;
		}
	return total;
}

/* The marginal latency histogram of @t (count left 0: peaks' means come
 * from bucket midpoints, there being no recorded sum). 0 or -ENOMEM. */
static int marginal(const struct orp_vtable *t, unsigned res, unsigned nlat, struct osp_hist *h)
{
	uint64_t row[OSP_VALUE_N_MAX];

	if (osp_hist_init(h, res))
		return -EINVAL;
	for (unsigned l = 0; l < nlat; l++) {
		uint64_t n = range_sum(t, l, l, row);

		if (n && osp_hist_bucket_set(h, l, n))
			return -ENOMEM;
	}
	return 0;
}

/* Value buckets of @c (@n) ordered by count, largest first, into @idx. */
static void rank(const uint64_t *c, unsigned n, unsigned *idx)
{
	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		while (j > 0 && c[idx[j - 1]] < c[i]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0.0;
}

/* "size 4KiB 70.0%, 64KiB 30.0%" for one table over one peak. */
static void text_values(FILE *out, const struct orp_vtable *t, const uint64_t *c, uint64_t total)
{
	unsigned idx[OSP_VALUE_N_MAX], shown = 0;
	uint64_t rest = total;
	char lab[32];

	rank(c, t->nval, idx);
	fprintf(out, "%s:", osp_value_kind_name(t->kind));
	for (unsigned i = 0; i < t->nval && c[idx[i]]; i++) {
		if (shown == SHOW_VALUES) {
			fprintf(out, ", others %.1f%%", 100.0 * share(rest, total));
			break;
		}
		fprintf(out, "%s %s %.1f%%", shown ? "," : "",
			osp_value_label(t->kind, idx[i], lab, sizeof(lab)),
			100.0 * share(c[idx[i]], total));
		rest -= c[idx[i]];
		shown++;
	}
}

static void json_values(struct orp_json *j, const struct orp_vtable *t, const uint64_t *c,
			uint64_t total)
{
	unsigned idx[OSP_VALUE_N_MAX];
	char lab[32];

	rank(c, t->nval, idx);
	orp_json_obj(j, NULL);
	orp_json_str(j, "value", osp_value_kind_name(t->kind));
	orp_json_str(j, "unit", osp_value_unit(t->kind));
	orp_json_u64(j, "count", total);
	orp_json_arr(j, "buckets");
	for (unsigned i = 0; i < t->nval && c[idx[i]]; i++) {
		orp_json_obj(j, NULL);
		orp_json_u64(j, "bucket", idx[i]);
		orp_json_str(j, "label", osp_value_label(t->kind, idx[i], lab, sizeof(lab)));
		orp_json_u64(j, "count", c[idx[i]]);
		orp_json_num(j, "share", share(c[idx[i]], total));
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
	orp_json_end(j, '}');
}

static bool wanted(const char *op, const char *const *ops, size_t nops)
{
	for (size_t i = 0; i < nops; i++)
		if (strcmp(ops[i], op) == 0)
			return true;
	return nops == 0;
}

/* One op (its tables: those of @v named @op) as text or JSON. 0 or -errno. */
static int show_op(const struct orp_values *v, const char *op, struct orp_json *j, FILE *out)
{
	struct osp_peak pk[OSP_PEAKS_MAX];
	uint64_t c[OSP_VALUE_N_MAX], total = 0;
	struct osp_hist h;
	char lo[32], hi[32];
	size_t first = 0, np;
	int err;

	while (strcmp(v->t[first].op, op) != 0)
		first++;
	err = marginal(&v->t[first], v->res, v->nlat, &h);
	if (err) {
		osp_hist_fini(&h);
		return err;
	}
	np = osp_hist_peaks(&h, pk, OSP_PEAKS_MAX);
	total = osp_hist_bucket_total(&h);
	if (j) {
		orp_json_obj(j, NULL);
		orp_json_str(j, "op", op);
		orp_json_u64(j, "count", total);
		orp_json_arr(j, "peaks");
	} else if (!np) {
		osp_esc_text(out, op);
		fputs(": no requests\n", out);
	}
	for (size_t k = 0; k < np; k++) {
		if (j) {
			orp_json_obj(j, NULL);
			orp_json_u64(j, "lo", pk[k].lo);
			orp_json_u64(j, "hi", pk[k].hi);
			orp_json_num(j, "lower_ns", osp_bucket_lower_ns(pk[k].lo, v->res));
			orp_json_num(j, "upper_ns", osp_bucket_upper_ns(pk[k].hi, v->res));
			orp_json_u64(j, "count", pk[k].count);
			orp_json_num(j, "share", pk[k].share);
			orp_json_arr(j, "values");
		} else {
			osp_esc_text(out, op);
			fprintf(out, " peak %zu of %zu (%s-%s, %.1f%%, %llu requests):", k + 1, np,
				osp_fmt_ns(lo, sizeof(lo), osp_bucket_lower_ns(pk[k].lo, v->res)),
				osp_fmt_ns(hi, sizeof(hi), osp_bucket_upper_ns(pk[k].hi, v->res)),
				100.0 * pk[k].share, (unsigned long long)pk[k].count);
		}
		for (size_t i = first, n = 0; i < v->n; i++) {
			uint64_t t;

			if (strcmp(v->t[i].op, op) != 0)
				continue;
			t = range_sum(&v->t[i], pk[k].lo, pk[k].hi, c);
			if (j) {
				json_values(j, &v->t[i], c, t);
				continue;
			}
			fputs(n++ ? "; " : " ", out);
			text_values(out, &v->t[i], c, t);
		}
		if (j) {
			orp_json_end(j, ']');
			orp_json_end(j, '}');
		} else {
			fputc('\n', out);
		}
	}
	if (j) {
		orp_json_end(j, ']');
		orp_json_end(j, '}');
	}
	osp_hist_fini(&h);
	return 0;
}

/* Every wanted op of @v, each once, in the file's order. */
static int show_input(const struct orp_values *v, const char *const *ops, size_t nops,
		      struct orp_json *j, FILE *out)
{
	for (size_t i = 0; i < v->n; i++) {
		bool seen = false;
		int err;

		for (size_t k = 0; k < i && !seen; k++)
			seen = strcmp(v->t[k].op, v->t[i].op) == 0;
		if (seen || !wanted(v->t[i].op, ops, nops))
			continue;
		err = show_op(v, v->t[i].op, j, out);
		if (err)
			return err;
	}
	return 0;
}

int orp_values_show(char *const *specs, size_t n, bool json, const char *const *ops,
		    size_t nops)
{
	struct orp_values *v = calloc(n ? n : 1, sizeof(*v));
	struct orp_json j;
	char err[ORP_ERRLEN];
	int rc = 0;

	if (!v) {
		orp_error("out of memory");
		return ORP_EXIT_ERROR;
	}
	/* Everything is read first: a bad input prints nothing else. */
	for (size_t i = 0; i < n && !rc; i++)
		if ((rc = values_load(specs[i], &v[i], err, sizeof(err))) != 0)
			orp_error("%s", err);
	for (size_t k = 0; k < nops && !rc; k++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			for (size_t t = 0; t < v[i].n && !found; t++)
				found = strcmp(v[i].t[t].op, ops[k]) == 0;
		if (!found) {
			orp_error("no value profile of operation '%s' (read, write, readdir, readdirplus)",
				  ops[k]);
			rc = -ENOENT;
		}
	}
	if (!rc && json) {
		orp_json_doc(&j, stdout, "osprof-show-values");
		orp_json_arr(&j, "inputs");
	}
	for (size_t i = 0; i < n && !rc; i++) {
		if (json) {
			orp_json_obj(&j, NULL);
			orp_json_str(&j, "input", specs[i]);
			orp_json_u64(&j, "resolution", v[i].res);
			orp_json_arr(&j, "ops");
		} else {
			fputs(i ? "\n==> " : "==> ", stdout);
			osp_esc_text(stdout, specs[i]);
			printf(" (value profiles, resolution %u) <==\n", v[i].res);
		}
		rc = show_input(&v[i], ops, nops, json ? &j : NULL, stdout);
		if (json) {
			orp_json_end(&j, ']');
			orp_json_end(&j, '}');
		}
		if (rc)
			orp_error("out of memory");
	}
	if (!rc && json) {
		orp_json_end(&j, ']');
		orp_json_end(&j, '}');
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < n; i++)
		orp_values_fini(&v[i]);
	free(v);
	return orp_exit_stdout(rc);
}
