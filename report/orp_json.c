// SPDX-License-Identifier: MIT
/*
 * A small streaming JSON writer for osprof-report's --json and --format
 * json outputs: objects and arrays nested to ORP_JSON_DEPTH, commas placed
 * by the writer, strings through core's osp_esc_json (so any name a
 * profile holds, even bytes that are not UTF-8, comes out as valid JSON),
 * numbers that are not finite written as null. Stream errors stay in the
 * stream's error flag for the caller's final check.
 */
#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <math.h>

#include "orp.h"
#include "osprof/escape.h"

void orp_json_init(struct orp_json *j, FILE *f)
{
	*j = (struct orp_json){ .f = f };
}

/* A comma before every member but the first, and the member's key. */
static void member(struct orp_json *j, const char *key)
{
	if (j->depth > 0 && j->count[j->depth - 1]++)
		fputc(',', j->f);
	if (!j->compact && j->depth > 0 && j->depth <= 2)
		fputs("\n", j->f);
	if (key) {
		osp_esc_json(j->f, key);
		fputc(':', j->f);
	}
}

static void open_(struct orp_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	assert(j->depth < ORP_JSON_DEPTH);
	j->count[j->depth++] = 0;
}

void orp_json_doc(struct orp_json *j, FILE *f, const char *format)
{
	orp_json_init(j, f);
	orp_json_obj(j, NULL);
	orp_json_str(j, "format", format);
	orp_json_u64(j, "version", 1);
}

void orp_json_obj(struct orp_json *j, const char *key)
{
	open_(j, key, '{');
}

void orp_json_arr(struct orp_json *j, const char *key)
{
	open_(j, key, '[');
}

void orp_json_end(struct orp_json *j, char c)
{
	assert(j->depth > 0);
	j->depth--;
	fputc(c, j->f);
	if (!j->compact && j->depth == 0)
		fputc('\n', j->f);
}

void orp_json_str(struct orp_json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		osp_esc_json(j->f, val);
	else
		fputs("null", j->f);
}

void orp_json_u64(struct orp_json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%" PRIu64, val);
}

void orp_json_num(struct orp_json *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.17g", val);
	else
		fputs("null", j->f);
}

void orp_json_bool(struct orp_json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
}

void orp_json_raw(struct orp_json *j, const char *key, const char *json)
{
	member(j, key);
	fputs(json, j->f);
}

void orp_json_kv_item(struct orp_json *j, const char *key, const struct osp_kv *kv)
{
	char *text;

	if (kv->json[0] != '"') {
		orp_json_raw(j, key, kv->json);
		return;
	}
	/* Strings re-escaped: what a file held may not be valid UTF-8. */
	text = osp_kv_text(kv);
	orp_json_str(j, key, text ? text : "");
	free(text);
}

void orp_json_kv(struct orp_json *j, const char *key, const struct osp_kvlist *l)
{
	orp_json_obj(j, key);
	for (size_t i = 0; i < l->n; i++)
		orp_json_kv_item(j, l->items[i].key, &l->items[i]);
	orp_json_end(j, '}');
}

void orp_json_peaks(struct orp_json *j, const struct osp_hist *h)
{
	struct osp_peak pk[OSP_PEAKS_MAX];
	size_t n = osp_hist_peaks(h, pk, OSP_PEAKS_MAX);
	unsigned res = h->res;

	orp_json_arr(j, "peaks");
	for (size_t k = 0; k < n; k++) {
		orp_json_obj(j, NULL);
		orp_json_u64(j, "lo", pk[k].lo);
		orp_json_u64(j, "hi", pk[k].hi);
		orp_json_num(j, "lower_ns", osp_bucket_lower_ns(pk[k].lo, res));
		orp_json_num(j, "upper_ns", osp_bucket_upper_ns(pk[k].hi, res));
		orp_json_u64(j, "mode", pk[k].mode);
		orp_json_u64(j, "count", pk[k].count);
		orp_json_num(j, "share", pk[k].share);
		orp_json_num(j, "mean_ns", pk[k].mean_ns);
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
}

void orp_json_side(struct orp_json *j, const char *key, const struct osp_op *op)
{
	if (!op) {
		orp_json_raw(j, key, "null");
		return;
	}
	orp_json_obj(j, key);
	orp_json_u64(j, "count", op->lat.count);
	orp_json_u64(j, "sum_ns", op->lat.sum);
	orp_json_u64(j, "min_ns", op->lat.min);
	orp_json_u64(j, "max_ns", op->lat.max);
	orp_json_num(j, "mean_ns", op->lat.count ? osp_hist_mean(&op->lat) : NAN);
	orp_json_num(j, "p50_ns", op->lat.count ? osp_hist_percentile(&op->lat, 50) : NAN);
	orp_json_num(j, "p99_ns", op->lat.count ? osp_hist_percentile(&op->lat, 99) : NAN);
	orp_json_peaks(j, &op->lat);
	orp_json_end(j, '}');
}
