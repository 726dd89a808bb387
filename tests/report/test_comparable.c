// SPDX-License-Identifier: MIT
/*
 * Comparability and compare --json: core's osp_profile_comparable on one
 * profile pair per setting that differs, the notes compare prints, merge
 * refusing such inputs without --force and recording each one's settings
 * with it, and compare --json parsed back with json-c -- its schema (keys
 * and types), its numbers against the profiles', its exit status, and
 * hostile operation names kept.
 */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/comparable.h"
#include "osprof/format.h"
#include "cli.h"

TestSuite(comparable, .init = cli_setup, .fini = cli_teardown);

/* An fs profile as osprof-fs describes its settings, with two ops. */
static struct osp_profile *prof(void)
{
	struct osp_profile *p = osp_profile_new("fs", 1);
	static const struct { const char *name; uint64_t n, lat_ns; } ops[] = {
		{ "read", 1000, 5000 }, { "lookup", 200, 40000 },
	};

	cr_assert_not_null(p);
	cr_assert_eq(osp_str_set(&p->clock_source, "tsc"), 0);
	cr_assert_eq(osp_kv_set_str(&p->source, "layer_source", "osprof-fs"), 0);
	cr_assert_eq(osp_kv_set_str(&p->options, "cache", "auto"), 0);
	cr_assert_eq(osp_kv_set_num(&p->options, "entry_timeout_s", 1), 0);
	cr_assert_eq(osp_kv_set_num(&p->options, "attr_timeout_s", 1), 0);
	cr_assert_eq(osp_kv_set_bool(&p->options, "direct_io", false), 0);
	cr_assert_eq(osp_kv_set_bool(&p->options, "writeback", false), 0);
	cr_assert_eq(osp_kv_set_bool(&p->options, "cpu_time", false), 0);
	cr_assert_eq(osp_kv_set_str(&p->options, "threads", "pool"), 0);
	cr_assert_eq(osp_kv_set_u64(&p->options, "lost_hist_full", 0), 0);
	p->elapsed_ns = 1000000000ull;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct osp_op *o = osp_profile_add_op(p, ops[i].name, false);

		cr_assert_not_null(o);
		for (uint64_t k = 0; k < ops[i].n; k++)
			cr_assert_eq(osp_hist_record(&o->lat, ops[i].lat_ns), 0);
	}
	return p;
}

/* Write @p to the test's @name; returns the path. */
static char *write_to(const struct osp_profile *p, const char *name)
{
	char *path = tpath("%s", name);
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(osp_write_json(f, p), 0);
	cr_assert_eq(fclose(f), 0);
	return path;
}

/* The same, @p freed. */
static char *save(struct osp_profile *p, const char *name)
{
	char *path = write_to(p, name);

	osp_profile_free(p);
	return path;
}

/* One setting changed in B, and the note it must give. */
struct change {
	const char *key;  /* the note's key */
	const char *json; /* the option's new value, or NULL: @set does it */
	void (*set)(struct osp_profile *p);
	const char *a, *b;
};

static void set_clock(struct osp_profile *p) { cr_assert_eq(osp_str_set(&p->clock_source, "monotonic"), 0); }
static void set_source(struct osp_profile *p) { cr_assert_eq(osp_kv_set_str(&p->source, "layer_source", "ebpf"), 0); }
static void set_layer(struct osp_profile *p) { cr_assert_eq(osp_str_set(&p->layer, "fuse"), 0); }
static void set_unit(struct osp_profile *p) { cr_assert_eq(osp_str_set(&p->unit, "cycles"), 0); }

static const struct change changes[] = {
	{ "cache", "\"never\"", NULL, "auto", "never" },
	{ "entry_timeout_s", "0.0", NULL, "1.0", "0.0" },
	{ "attr_timeout_s", "2.5", NULL, "1.0", "2.5" },
	{ "direct_io", "true", NULL, "false", "true" },
	{ "writeback", "true", NULL, "false", "true" },
	{ "cpu_time", "true", NULL, "false", "true" },
	{ "cpu_source", "\"vtimer\"", NULL, "unset", "vtimer" },
	{ "threads", "\"single\"", NULL, "pool", "single" },
	{ "readdirplus", "\"no\"", NULL, "unset", "no" },
	{ "clock", NULL, set_clock, "tsc", "monotonic" },
	{ "layer_source", NULL, set_source, "osprof-fs", "ebpf" },
	{ "layer", NULL, set_layer, "fs", "fuse" },
	{ "unit", NULL, set_unit, "ns", "cycles" },
};

static struct osp_profile *changed(const struct change *c)
{
	struct osp_profile *p = prof();

	if (c->set)
		c->set(p);
	else
		cr_assert_eq(osp_kv_set_json(&p->options, c->key, c->json), 0);
	return p;
}

Test(comparable, each_setting_that_differs_gives_one_note_naming_it)
{
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]); i++) {
		struct osp_profile *a = prof(), *b = changed(&changes[i]);
		struct osp_compat c;
		char line[1024];

		cr_assert_eq(osp_profile_comparable(a, b, &c), 0);
		cr_assert_eq(c.n, 1, "%s: %zu notes", changes[i].key, c.n);
		cr_expect_str_eq(c.notes[0].key, changes[i].key);
		cr_expect_str_eq(c.notes[0].a, changes[i].a);
		cr_expect_str_eq(c.notes[0].b, changes[i].b);
		osp_compat_line(&c.notes[0], line, sizeof(line));
		cr_expect(strstr(line, " differs: ") && strstr(line, " ("), "%s", line);
		osp_compat_free(&c);
		osp_profile_free(a);
		osp_profile_free(b);
	}
}

Test(comparable, equal_settings_numbers_by_value_and_lost_counts_give_no_note)
{
	struct osp_profile *a = prof(), *b = prof();
	struct osp_compat c;

	/* 1 and 1.0 are one timeout; lost events are counts, not settings. */
	cr_assert_eq(osp_kv_set_json(&b->options, "attr_timeout_s", "1"), 0);
	cr_assert_eq(osp_kv_set_u64(&b->options, "lost_hist_full", 12), 0);
	cr_assert_eq(osp_profile_comparable(a, b, &c), 0);
	cr_expect_eq(c.n, 0);
	osp_compat_free(&c);
	osp_profile_free(a);
	osp_profile_free(b);
}

Test(comparable, compare_prints_one_line_per_difference_for_each_option)
{
	/* Layer and unit are left out: compare pairs layers, and refuses units. */
	for (size_t i = 0; i < sizeof(changes) / sizeof(changes[0]) - 2; i++) {
		char *a = save(prof(), "a.json"), *b = save(changed(&changes[i]), "b.json");
		struct run r = REPORT("compare", a, b);
		char want[256];

		cr_assert_eq(r.status, 0, "%s: %s", changes[i].key, r.err);
		snprintf(want, sizeof(want), "comparability: %s differs: %s vs %s (",
			 changes[i].key, changes[i].a, changes[i].b);
		cr_expect(strstr(r.out, want), "%s: %s", want, r.out);
		cr_expect_null(strstr(strstr(r.out, "comparability") + 1, "comparability"),
			       "one line only: %s", r.out);
	}
}

Test(comparable, merge_refuses_different_settings_without_force)
{
	char *a = save(prof(), "a.json"), *b = save(changed(&changes[0]), "b.json");
	char *out = tpath("m.json");
	struct run r = REPORT("merge", "-o", out, a, b);

	cr_expect_eq(r.status, 2);
	cr_expect(strstr(r.err, "cache differs: auto vs never"), "%s", r.err);
	cr_expect(strstr(r.err, "--force"), "%s", r.err);
	cr_expect_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
	cr_expect_not(exists(out));
	/* Same settings merge as before, with nothing recorded. */
	r = REPORT("merge", "-o", out, a, a);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect_null(strstr(own(slurp(out)), "\"merged\""));
}

Test(comparable, merge_with_force_records_each_inputs_settings)
{
	struct osp_profile *pb = changed(&changes[0]);
	char *a, *b, *out = tpath("m.json");
	struct json_object *doc, *opts, *merged, *v;
	struct run r;

	set_clock(pb);
	a = save(prof(), "a.json");
	b = save(pb, "b.json");
	r = REPORT("merge", "--force", "-o", out, a, b);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_object_from_file(out);
	cr_assert_not_null(doc);
	cr_assert(json_object_object_get_ex(doc, "options", &opts));
	/* Only what both share stays; the clock is mixed. */
	cr_expect_not(json_object_object_get_ex(opts, "cache", &v));
	cr_expect(json_object_object_get_ex(opts, "threads", &v));
	cr_assert(json_object_object_get_ex(doc, "clock", &v));
	cr_expect_str_eq(json_object_get_string(json_object_object_get(v, "source")), "mixed");
	cr_assert(json_object_object_get_ex(opts, "merged", &merged));
	cr_assert(json_object_is_type(merged, json_type_array));
	cr_assert_eq(json_object_array_length(merged), 2);
	for (size_t i = 0; i < 2; i++) {
		struct json_object *e = json_object_array_get_idx(merged, i), *o;

		cr_expect_str_eq(json_object_get_string(json_object_object_get(e, "input")),
				 i ? b : a);
		cr_expect_str_eq(json_object_get_string(json_object_object_get(e, "clock")),
				 i ? "monotonic" : "tsc");
		cr_assert(json_object_object_get_ex(e, "options", &o));
		cr_expect_str_eq(json_object_get_string(json_object_object_get(o, "cache")),
				 i ? "never" : "auto");
	}
	json_object_put(doc);
	/* Compared later, the merge says which settings were mixed. */
	r = REPORT("compare", a, out);
	cr_expect(strstr(r.out, "comparability: cache differs: auto vs mixed"), "%s", r.out);
}

/* @key of @o, of type @t (asserted). */
static struct json_object *member(struct json_object *o, const char *key, json_type t)
{
	struct json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no key %s", key);
	cr_assert(json_object_is_type(v, t), "%s: type %s", key,
		  json_type_to_name(json_object_get_type(v)));
	return v;
}

/* A number member (json-c types 1 and 1.5 apart), or null where allowed. */
static void number(struct json_object *o, const char *key, bool nullable)
{
	struct json_object *v = NULL;

	cr_assert(json_object_object_get_ex(o, key, &v), "no key %s", key);
	cr_assert(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double) ||
		  (nullable && v == NULL), "%s is not a number", key);
}

static void check_side(struct json_object *s, const struct osp_op *op)
{
	struct json_object *peaks = member(s, "peaks", json_type_array);

	cr_expect_eq(json_object_get_uint64(member(s, "count", json_type_int)), op->lat.count);
	cr_expect_eq(json_object_get_uint64(member(s, "sum_ns", json_type_int)), op->lat.sum);
	cr_expect_eq(json_object_get_uint64(member(s, "min_ns", json_type_int)), op->lat.min);
	cr_expect_eq(json_object_get_uint64(member(s, "max_ns", json_type_int)), op->lat.max);
	number(s, "mean_ns", false);
	cr_assert_gt(json_object_array_length(peaks), 0);
	for (size_t k = 0; k < json_object_array_length(peaks); k++) {
		struct json_object *p = json_object_array_get_idx(peaks, k);

		member(p, "lo", json_type_int);
		member(p, "hi", json_type_int);
		member(p, "mode", json_type_int);
		member(p, "count", json_type_int);
		number(p, "lower_ns", false);
		number(p, "upper_ns", false);
		number(p, "share", false);
		number(p, "mean_ns", false);
	}
}

/* Parse compare --json of @a and @b, checking the envelope; returns it. */
static struct json_object *compare_json(const char *a, const char *b, int status)
{
	struct run r = REPORT("compare", "--json", (char *)a, (char *)b);
	struct json_object *doc;

	cr_assert_eq(r.status, status, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc, "not JSON: %s", r.out);
	cr_expect_str_eq(json_object_get_string(member(doc, "format", json_type_string)),
			 "osprof-compare");
	cr_expect_eq(json_object_get_int(member(doc, "version", json_type_int)), 1);
	cr_expect_str_eq(json_object_get_string(member(doc, "a", json_type_string)), a);
	cr_expect_str_eq(json_object_get_string(member(doc, "b", json_type_string)), b);
	member(doc, "method", json_type_string);
	member(doc, "score_unit", json_type_string);
	number(doc, "threshold", false);
	number(doc, "noise_factor", false);
	number(doc, "min_share", false);
	number(doc, "equal", false);
	cr_expect_eq(json_object_get_int(member(doc, "status", json_type_int)), status);
	member(doc, "layers", json_type_array);
	return doc; /* the caller puts it */
}

Test(comparable, compare_json_has_every_op_with_the_profiles_numbers)
{
	struct osp_profile *pa = prof(), *pb = changed(&changes[0]);
	struct osp_op *slow = osp_profile_find_op(pb, "read");
	struct json_object *doc, *layer, *ops, *notes;
	char *a, *b;

	/* B's reads: 1000 more at 4x the latency, so read differs. */
	for (int k = 0; k < 1000; k++)
		cr_assert_eq(osp_hist_record(&slow->lat, 20000), 0);
	a = write_to(pa, "a.json");
	b = write_to(pb, "b.json");
	doc = compare_json(a, b, 1);
	cr_assert_eq(json_object_array_length(json_object_object_get(doc, "layers")), 1);
	layer = json_object_array_get_idx(json_object_object_get(doc, "layers"), 0);
	cr_expect_str_eq(json_object_get_string(member(layer, "layer", json_type_string)), "fs");
	cr_expect(json_object_get_boolean(member(layer, "compared", json_type_boolean)));
	member(layer, "source_a", json_type_string);
	cr_expect_eq(json_object_get_int(member(layer, "operations", json_type_int)), 2);
	cr_expect_eq(json_object_get_int(member(layer, "differ", json_type_int)), 1);
	notes = member(layer, "comparability", json_type_array);
	cr_assert_eq(json_object_array_length(notes), 1);
	cr_expect_str_eq(json_object_get_string(member(json_object_array_get_idx(notes, 0), "key", json_type_string)), "cache");
	member(json_object_array_get_idx(notes, 0), "text", json_type_string);
	ops = member(layer, "ops", json_type_array);
	cr_assert_eq(json_object_array_length(ops), 2);
	for (size_t i = 0; i < 2; i++) {
		struct json_object *o = json_object_array_get_idx(ops, i);
		const char *name = json_object_get_string(member(o, "name", json_type_string));

		cr_expect_eq(json_object_get_int(member(o, "rank", json_type_int)), (int)i + 1);
		member(o, "verdict", json_type_string);
		member(o, "differs", json_type_boolean);
		member(o, "reason", json_type_string);
		member(o, "peak_changes", json_type_array);
		number(o, "score", true);
		number(o, "strength", true);
		number(o, "noise", true);
		number(o, "beyond_noise", true);
		number(o, "p_value", true);
		number(o, "count_change", true);
		number(o, "latency_change", true);
		number(o, "share_a", false);
		number(o, "share_b", false);
		check_side(member(o, "a", json_type_object), osp_profile_find_op(pa, name));
		check_side(member(o, "b", json_type_object), osp_profile_find_op(pb, name));
	}
	/* Ranked as the text: the differing read first. */
	cr_expect_str_eq(json_object_get_string(json_object_object_get(json_object_array_get_idx(ops, 0), "name")), "read");
	cr_expect_str_eq(json_object_get_string(json_object_object_get(json_object_array_get_idx(ops, 0), "verdict")), "different");
	cr_expect(fabs(json_object_get_double(json_object_object_get(json_object_array_get_idx(ops, 0), "count_change")) - 1.0) < 1e-12);
	osp_profile_free(pa);
	osp_profile_free(pb);
	json_object_put(doc);
	/* Nothing differs: status 0 in the document and the exit status. */
	json_object_put(compare_json(a, a, 0));
}

Test(comparable, compare_json_keeps_hostile_names)
{
	static const char *const names[] = {
		"a\"b\\c", "line\nbreak", "esc\x1b[2J", "</script><b>", "tab\there",
		"bidi\xe2\x80\xae", "not utf-8 \xff\xfe",
	};
	struct osp_profile *p = prof();
	struct json_object *doc, *ops;
	size_t n = sizeof(names) / sizeof(names[0]), found = 0;
	char *a;

	for (size_t i = 0; i < n; i++) {
		struct osp_op *o = osp_profile_add_op(p, names[i], false);

		cr_assert_not_null(o);
		cr_assert_eq(osp_hist_record(&o->lat, 1000), 0);
	}
	a = save(p, "a.json");
	doc = compare_json(a, a, 0);
	ops = json_object_object_get(json_object_array_get_idx(json_object_object_get(doc, "layers"), 0), "ops");
	cr_assert_eq(json_object_array_length(ops), n + 2);
	for (size_t k = 0; k < json_object_array_length(ops); k++) {
		const char *name = json_object_get_string(json_object_object_get(json_object_array_get_idx(ops, k), "name"));

		/* Valid UTF-8 comes back byte for byte (the last is \u00ff\u00fe). */
		for (size_t i = 0; i + 1 < n; i++)
			found += strcmp(name, names[i]) == 0;
	}
	cr_expect_eq(found, n - 1);
	json_object_put(doc);
}

Test(comparable, show_format_json_holds_the_table_and_peaks)
{
	struct osp_profile *p = prof();
	struct osp_op *odd = osp_profile_add_op(p, "odd\n\"name\x1b", false);
	char *a;
	struct run r;
	struct json_object *doc, *prof0, *ops;

	cr_assert_not_null(odd);
	cr_assert_eq(osp_hist_record(&odd->lat, 100), 0);
	a = write_to(p, "a.json");
	r = REPORT("show", "--format", "json", a);
	cr_assert_eq(r.status, 0, "%s", r.err);
	doc = json_tokener_parse(r.out);
	cr_assert_not_null(doc, "not JSON: %s", r.out);
	cr_expect_str_eq(json_object_get_string(member(doc, "format", json_type_string)), "osprof-show");
	prof0 = json_object_array_get_idx(member(doc, "profiles", json_type_array), 0);
	cr_expect_str_eq(json_object_get_string(member(prof0, "layer", json_type_string)), "fs");
	cr_expect_str_eq(json_object_get_string(member(member(prof0, "options", json_type_object),
						       "cache", json_type_string)), "auto");
	ops = member(prof0, "ops", json_type_array);
	cr_assert_eq(json_object_array_length(ops), p->nops);
	for (size_t i = 0; i < p->nops; i++) {
		struct json_object *o = json_object_array_get_idx(ops, i);
		const struct osp_op *want = osp_profile_find_op(p, json_object_get_string(member(o, "name", json_type_string)));

		cr_assert_not_null(want);
		cr_expect_eq(json_object_get_uint64(member(o, "count", json_type_int)), want->lat.count);
		cr_expect_eq(json_object_get_uint64(member(o, "sum_ns", json_type_int)), want->lat.sum);
		number(o, "p50_ns", false);
		number(o, "p99_ns", false);
		number(o, "time_share", false);
		member(o, "peaks", json_type_array);
	}
	/* Sorted as the table: most total latency first (8 ms against 5 ms). */
	cr_expect_str_eq(json_object_get_string(json_object_object_get(json_object_array_get_idx(ops, 0), "name")), "lookup");
	json_object_put(doc);
	osp_profile_free(p);
}
