// SPDX-License-Identifier: MIT
/*
 * Escaping of untrusted text (osprof/escape.h), one table per language,
 * and the core writers fed hostile names: whatever a name holds, the text
 * views keep to their lines and show no control byte, the JSON reads back
 * the same names, and OpenMetrics keeps one sample a line.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/escape.h"
#include "osprof/format.h"
#include "osprof/metrics.h"

struct esc_case {
	const char *in, *out;
};

static char *escaped(void (*esc)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	esc(f, s);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static void expect_table(void (*esc)(FILE *, const char *),
			 const struct esc_case *c, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++) {
		char *got = escaped(esc, c[i].in);

		cr_expect_str_eq(got, c[i].out, "%s case %zu", what, i);
		free(got);
	}
}

#define TABLE(esc, cases) expect_table(esc, cases, sizeof(cases) / sizeof(cases[0]), #esc)

Test(escape, text_shows_controls_and_bad_utf8_as_escapes)
{
	static const struct esc_case cases[] = {
		{ "read", "read" },
		{ "", "" },
		{ "a\nb\tc\rd", "a\\nb\\tc\\rd" },
		{ "\x1b[2J\x01\x7f", "\\x1b[2J\\x01\\x7f" },
		{ "back\\slash", "back\\\\slash" },
		{ "caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80" },
		{ "\xff\xfe", "\\xff\\xfe" },
		{ "\xc0\xaf", "\\xc0\\xaf" },             /* overlong '/' */
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },     /* a surrogate */
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* past U+10FFFF */
		{ "\xe2\x82", "\\xe2\\x82" },             /* cut short */
		{ "\xe2\x82x", "\\xe2\\x82x" },
		{ "\xc2\x85", "\\u{0085}" },              /* C1 next line */
		{ "a\xe2\x80\xae" "b", "a\\u{202e}b" },      /* right-to-left override */
		{ "\xe2\x80\xa8", "\\u{2028}" },          /* line separator */
		{ "<&>\"'`$(x)", "<&>\"'`$(x)" },
	};

	TABLE(osp_esc_text, cases);
}

Test(escape, text_col_pads_by_characters_and_never_cuts)
{
	static const struct { const char *in; int w; const char *out; } cases[] = {
		{ "ab", 4, "ab  " },
		{ "\xc3\xa9", 3, "\xc3\xa9  " },
		{ "\n", 4, "\\n  " },
		{ "abcdef", 3, "abcdef" },
		{ "ab", 0, "ab" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		osp_esc_text_col(f, cases[i].in, cases[i].w);
		fclose(f);
		cr_expect_str_eq(buf, cases[i].out, "case %zu", i);
		free(buf);
	}
}

Test(escape, gnuplot_strings_are_single_quoted_on_one_line)
{
	static const struct esc_case cases[] = {
		{ "read", "'read'" },
		{ "it's", "'it''s'" },
		{ "x\nsystem \"touch C\"\n#", "'x\\nsystem \"touch C\"\\n#'" },
		{ "`touch C` $(touch C) @m", "'`touch C` $(touch C) @m'" },
		{ "end\\", "'end\\\\'" },
		{ "\xff", "'\\xff'" },
	};

	TABLE(osp_esc_gp, cases);
}

Test(escape, gnuplot_data_strings_show_the_text_spelling)
{
	static const struct esc_case cases[] = {
		{ "0:timer", "\"0:timer\"" },
		{ "say \"hi\"", "\"say \\042hi\\042\"" },
		{ "a b\n# c", "\"a b\\\\n# c\"" },
		{ "back\\", "\"back\\\\\\\\\"" },
	};

	TABLE(osp_esc_gp_data, cases);
}

Test(escape, html_references_markup_and_escapes_controls)
{
	static const struct esc_case cases[] = {
		{ "read", "read" },
		{ "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;" },
		{ "a&b \"q\" 'q'", "a&amp;b &quot;q&quot; &#39;q&#39;" },
		{ "\x1b\n\xff", "\\x1b\\n\\xff" },
	};

	TABLE(osp_esc_html, cases);
}

Test(escape, csv_quotes_when_needed_and_defuses_formulas)
{
	static const struct esc_case cases[] = {
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "=1+1", "'=1+1" },
		{ "+x", "'+x" },
		{ "-2", "'-2" },
		{ "@SUM(A1)", "'@SUM(A1)" },
		{ "\tx", "'\tx" },
		{ "\rx", "\"'\rx\"" },
		{ "=a,b", "\"'=a,b\"" },
		{ "a=b", "a=b" },
	};

	TABLE(osp_csv_field, cases);
}

Test(escape, openmetrics_keeps_utf8_exact_and_escapes_three)
{
	static const struct esc_case cases[] = {
		{ "read", "read" },
		{ "a\\b\"c\nd", "a\\\\b\\\"c\\nd" },
		{ "\x1b\r\t{}=,", "\x1b\r\t{}=,"},
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "\xff", "\\\\xff" },
	};

	TABLE(osp_esc_om, cases);
}

Test(escape, metric_names_stay_valid)
{
	static const struct esc_case cases[] = {
		{ "osprof_fs", "osprof_fs" },
		{ "osprof_a b{c}\n", "osprof_a_b_c__" },
		{ "9lives", "_9lives" },
		{ "", "_" },
		{ "ns:sub", "ns:sub" },
	};
	char buf[8];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char big[64];

		cr_expect_str_eq(osp_metric_name(big, sizeof(big), cases[i].in),
				 cases[i].out, "case %zu", i);
	}
	cr_expect_str_eq(osp_metric_name(buf, sizeof(buf), "abcdefghij"), "abcdefg");
	cr_expect_str_eq(osp_metric_name(buf, 1, "abc"), "");
}

Test(escape, json_strings_are_valid_utf8_json)
{
	static const struct esc_case cases[] = {
		{ "read", "\"read\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "\n\x01\x1b", "\"\\u000a\\u0001\\u001b\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
		{ "\xff", "\"\\u00ff\"" },
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" },
		{ "</script>", "\"</script>\"" },
	};

	TABLE(osp_esc_json, cases);
}

/* ---- the writers ----------------------------------------------------------- */

static const char *const hostile[] = {
	"x\nsystem \"touch CANARY\"\n#",
	"it's `touch CANARY` $(touch CANARY) \"q\" \\",
	"<script>alert(1)</script>&,=;{}",
	"\x1b[2J\x1b]0;title\x07\x01\x7f\r",
	"\xff\xfe bad \xc0\xaf utf8 \xed\xa0\x80",
	"# EOF",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* A profile whose every string is hostile, or plain (@plain) for comparing. */
static struct osp_profile *hostile_profile(bool plain)
{
	struct osp_profile *p = osp_profile_new(plain ? "fs" : "f\ns\x1b", 1);

	cr_assert_not_null(p);
	osp_str_set(&p->host, plain ? "h" : "h\n\x1b[31m");
	osp_str_set(&p->clock_source, plain ? "tsc" : "t\x1b\n");
	osp_kv_set_str(&p->source, plain ? "k" : "k\n", plain ? "v" : "v\n\x1b\xff");
	osp_kv_set_str(&p->options, plain ? "k" : "k\x1b", plain ? "v" : "\"v\"\n");
	for (size_t i = 0; i < NHOSTILE; i++) {
		char name[16];
		struct osp_op *o;

		snprintf(name, sizeof(name), "op%zu", i);
		o = osp_profile_add_op(p, plain ? name : hostile[i], true);
		cr_assert_not_null(o);
		osp_hist_record(&o->lat, 800 + 100 * i);
		osp_hist_record(&o->lat, 3000000);
		osp_hist_record(&o->cpu, 500);
		osp_hist_record(&o->cpu, 700); /* a broken checksum: a warning line */
		o->cpu.count = 1;
		osp_op_add_counter(o, plain ? "c" : "c\n\x1b", 1);
		osp_kv_set_str(&o->attrs, plain ? "a" : "a\n", plain ? "b" : "\x1b[H");
	}
	/* One snapshot holding every op, for the timeline view. */
	p->tl_interval_ns = 1000000000;
	p->nsnaps = 1;
	p->snaps = calloc(1, sizeof(*p->snaps));
	cr_assert_not_null(p->snaps);
	p->snaps[0].t_ns = 1000000000;
	p->snaps[0].ops = calloc(p->nops, sizeof(*p->snaps[0].ops));
	cr_assert_not_null(p->snaps[0].ops);
	for (size_t i = 0; i < p->nops; i++)
		cr_assert_eq(osp_op_copy(&p->snaps[0].ops[p->snaps[0].nops++], &p->ops[i]), 0);
	return p;
}

static char *render(int (*w)(FILE *, const struct osp_profile *),
		    const struct osp_profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	cr_assert_eq(w(f, p), 0);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

static size_t lines(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/* No byte below 0x20 but the line ends, no DEL. */
static void expect_no_controls(const char *s, size_t len, const char *what)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		cr_expect(c == '\n' || (c >= 0x20 && c != 0x7f),
			  "%s: raw control byte 0x%02x at %zu", what, c, i);
	}
}

Test(escape, stats_and_timeline_keep_their_lines_whatever_the_names)
{
	int (*writers[])(FILE *, const struct osp_profile *) = { osp_write_stats,
								  osp_write_timeline };
	struct osp_profile *bad = hostile_profile(false), *good = hostile_profile(true);

	for (size_t w = 0; w < 2; w++) {
		size_t nbad, ngood;
		char *b = render(writers[w], bad, &nbad), *g = render(writers[w], good, &ngood);

		expect_no_controls(b, nbad, w ? "timeline" : "stats");
		cr_expect_eq(lines(b, nbad), lines(g, ngood), "no line forged:\n%s", b);
		free(b);
		free(g);
	}
	osp_profile_free(bad);
	osp_profile_free(good);
}

Test(escape, checksum_warnings_keep_to_one_line_each)
{
	struct osp_profile *p = hostile_profile(false);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_expect_eq(osp_profile_check(p, f), 2 * NHOSTILE); /* ops and snapshot */
	fclose(f);
	expect_no_controls(buf, len, "warnings");
	cr_expect_eq(lines(buf, len), 2 * NHOSTILE, "%s", buf);
	free(buf);
	osp_profile_free(p);
}

static int om(FILE *f, const struct osp_profile *p)
{
	return osp_write_metrics(f, &(struct osp_om_src){ .mount = "/m\n{x}\"", .p = p }, 1,
				 OSP_OM_OPENMETRICS);
}

Test(escape, openmetrics_keeps_one_sample_a_line)
{
	struct osp_profile *bad = hostile_profile(false), *good = hostile_profile(true);
	size_t nbad, ngood;
	char *b = render(om, bad, &nbad), *g = render(om, good, &ngood), *save = NULL;

	cr_expect_eq(lines(b, nbad), lines(g, ngood), "%s", b);
	for (char *l = strtok_r(b, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		cr_expect(l[0] == '#' || strncmp(l, "osprof_", 7) == 0,
			  "a line neither comment nor sample: %s", l);
	free(b);
	free(g);
	osp_profile_free(bad);
	osp_profile_free(good);
}

Test(escape, json_reads_back_every_hostile_name)
{
	struct osp_profile *p = hostile_profile(false), *q;
	char err[256];
	size_t len;
	char *text = render(osp_write_json, p, &len), *kv;

	q = osp_read_json(text, len, err, sizeof(err));
	cr_assert_not_null(q, "%s", err);
	cr_expect_str_eq(q->layer, p->layer);
	cr_expect_str_eq(q->host, p->host);
	cr_assert_eq(q->nops, p->nops);
	/* Valid UTF-8 reads back exactly; other bytes as their Latin-1 letters. */
	for (size_t i = 0; i + 2 < NHOSTILE; i++)
		cr_expect_str_eq(q->ops[i].name, p->ops[i].name);
	cr_expect_str_eq(q->ops[4].name,
			 "\xc3\xbf\xc3\xbe bad \xc3\x80\xc2\xaf utf8 \xc3\xad\xc2\xa0\xc2\x80");
	cr_expect_str_eq(q->ops[5].name, "# EOF");
	cr_expect_str_eq(q->ops[0].counters[0].name, "c\n\x1b");
	cr_assert_eq(q->source.n, 1);
	kv = osp_kv_text(&q->source.items[0]);
	cr_expect_str_eq(q->source.items[0].key, "k\n");
	cr_expect_str_eq(kv, "v\n\x1b\xc3\xbf");
	free(kv);
	free(text);
	osp_profile_free(p);
	osp_profile_free(q);
}
