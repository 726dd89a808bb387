// SPDX-License-Identifier: MIT
/*
 * Comparability in osprof-report: core's osp_profile_comparable lists how
 * two profiles differ in what reaches the profiler (caching, timeouts,
 * resolution, unit, clock, layer, its source); here each job says it its
 * way -- compare's text, the HTML comparison, compare's JSON -- and merge
 * refuses such inputs, or with --force records each one's settings.
 *
 * A forced merge keeps in `options` only the settings every input shares
 * and adds the option "merged": an array, one object per input in the
 * order given, {"input": SPEC, "clock": ..., "layer_source": ...,
 * "options": {that input's options}}. Its clock and layer_source read
 * "mixed" when the inputs' differ. So nothing in the output claims a
 * setting that only some of its requests ran under, and comparing it
 * later says which settings are mixed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "osprof/comparable.h"
#include "osprof/escape.h"

int orp_compat_text(FILE *out, const struct osp_profile *a,
		    const struct osp_profile *b)
{
	struct osp_compat c;
	char line[1024];

	if (osp_profile_comparable(a, b, &c))
		return -ENOMEM;
	for (size_t i = 0; i < c.n; i++) {
		fputs("comparability: ", out);
		osp_esc_text(out, osp_compat_line(&c.notes[i], line, sizeof(line)));
		fputc('\n', out);
	}
	osp_compat_free(&c);
	return 0;
}

int orp_compat_html(FILE *out, const struct orp_input *a,
		    const struct orp_input *b, size_t *count)
{
	for (size_t i = 0; i < a->n; i++) {
		for (size_t k = 0; k < b->n; k++) {
			struct osp_compat c;
			char line[1024];

			if (strcmp(a->prof[i]->layer, b->prof[k]->layer) != 0)
				continue;
			if (osp_profile_comparable(a->prof[i], b->prof[k], &c))
				return -ENOMEM;
			for (size_t n = 0; n < c.n; n++) {
				fputs("<li class=\"compat\">layer ", out);
				osp_esc_html(out, a->prof[i]->layer);
				fputs(": ", out);
				osp_esc_html(out, osp_compat_line(&c.notes[n], line, sizeof(line)));
				fputs("</li>\n", out);
				(*count)++;
			}
			osp_compat_free(&c);
		}
	}
	return 0;
}

int orp_compat_json(struct orp_json *j, const struct osp_profile *a,
		    const struct osp_profile *b)
{
	struct osp_compat c;
	char line[1024];

	if (osp_profile_comparable(a, b, &c))
		return -ENOMEM;
	orp_json_arr(j, "comparability");
	for (size_t i = 0; i < c.n; i++) {
		orp_json_obj(j, NULL);
		orp_json_str(j, "key", c.notes[i].key);
		orp_json_str(j, "a", c.notes[i].a);
		orp_json_str(j, "b", c.notes[i].b);
		orp_json_str(j, "why", c.notes[i].why);
		orp_json_str(j, "text", osp_compat_line(&c.notes[i], line, sizeof(line)));
		orp_json_end(j, '}');
	}
	orp_json_end(j, ']');
	osp_compat_free(&c);
	return 0;
}

/* Differences merge itself refuses (osp_profile_merge, the layer check). */
static bool merge_refuses_anyway(const char *key)
{
	return strcmp(key, "layer") == 0 || strcmp(key, "resolution") == 0 ||
	       strcmp(key, "unit") == 0;
}

static void kv_remove(struct osp_kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].key, key) != 0)
			continue;
		free(l->items[i].key);
		free(l->items[i].json);
		memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof(l->items[0]));
		l->n--;
		return;
	}
}

/* Each input's settings, as the JSON of the "merged" option. */
static char *merged_record(const struct orp_input *in, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct orp_json j;
	bool bad;

	if (!mem)
		return NULL;
	orp_json_init(&j, mem);
	j.compact = true;
	orp_json_arr(&j, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct osp_profile *p = in[i].prof[0];

		orp_json_obj(&j, NULL);
		orp_json_str(&j, "input", in[i].spec);
		orp_json_str(&j, "clock", p->clock_source);
		for (size_t k = 0; k < p->source.n; k++)
			if (strcmp(p->source.items[k].key, "layer_source") == 0)
				orp_json_kv_item(&j, "layer_source", &p->source.items[k]);
		orp_json_kv(&j, "options", &p->options);
		orp_json_end(&j, '}');
	}
	orp_json_end(&j, ']');
	bad = ferror(mem);
	if (fclose(mem) != 0 || bad) {
		free(text);
		return NULL;
	}
	return text;
}

/* Apply one difference to the merged profile: the setting is mixed. */
static int mark_mixed(struct osp_profile *dst, const char *key)
{
	if (strcmp(key, "clock") == 0)
		return osp_str_set(&dst->clock_source, "mixed");
	if (strcmp(key, "layer_source") == 0)
		return osp_kv_set_str(&dst->source, "layer_source", "mixed");
	kv_remove(&dst->options, key);
	return 0;
}

/* "; cache differs: auto vs never (...)" for each note merge minds. */
static size_t say_notes(char *err, size_t errlen, size_t o, const struct osp_compat *c)
{
	char line[1024];

	for (size_t k = 0; k < c->n && o < errlen; k++) {
		int w;

		if (merge_refuses_anyway(c->notes[k].key))
			continue;
		w = snprintf(err + o, errlen - o, "; %s",
			     osp_compat_line(&c->notes[k], line, sizeof(line)));
		o += w > 0 ? (size_t)w : 0;
	}
	return o;
}

int orp_compat_merge(struct orp_input *in, size_t n, bool force, char *err,
		     size_t errlen)
{
	struct osp_profile *dst = in[0].prof[0];
	bool differ = false;
	char *record;
	int rc = 0;

	for (size_t i = 1; !rc && i < n; i++) {
		struct osp_compat c;
		size_t minded = 0;

		if (osp_profile_comparable(dst, in[i].prof[0], &c))
			return -ENOMEM;
		for (size_t k = 0; k < c.n; k++)
			minded += !merge_refuses_anyway(c.notes[k].key);
		differ |= minded > 0;
		if (minded && !force) {
			size_t o = (size_t)snprintf(err, errlen, "cannot merge %s with %s: they differ in what reaches the profiler",
						    in[i].spec, in[0].spec);

			o = say_notes(err, errlen, o, &c);
			if (o < errlen)
				snprintf(err + o, errlen - o, " (--force merges them, recording each input's settings)");
			rc = -EINVAL;
		}
		osp_compat_free(&c);
	}
	if (rc || !differ)
		return rc;
	/* Recorded before any option is dropped from the first input. */
	record = merged_record(in, n);
	if (!record)
		return -ENOMEM;
	for (size_t i = 1; !rc && i < n; i++) {
		struct osp_compat c;

		rc = osp_profile_comparable(in[0].prof[0], in[i].prof[0], &c);
		for (size_t k = 0; !rc && k < c.n; k++)
			if (!merge_refuses_anyway(c.notes[k].key))
				rc = mark_mixed(dst, c.notes[k].key);
		osp_compat_free(&c);
	}
	if (!rc)
		rc = osp_kv_set_json(&dst->options, OSP_COMPAT_MERGED_KEY, record);
	free(record);
	if (rc)
		snprintf(err, errlen, "merge: out of memory");
	return rc;
}
