// SPDX-License-Identifier: MIT
/*
 * osp_read_kmod: the /proc/osprof/{lower,block,irq} reader. Golden files
 * in tests/vm/data/ are real output of osprof.ko in the test VM; the
 * malformed cases each must fail with a message naming line and key;
 * every prefix of a golden file must parse or fail cleanly.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/kmod.h"
#include "osprof/profile.h"

#ifndef OKM_TEST_DATA
#error "OKM_TEST_DATA must name tests/vm/data"
#endif

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", OKM_TEST_DATA, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The golden file @name parsed as @layer; the test stops if it fails. */
static struct osp_profile *read_golden(const char *layer, const char *name)
{
	char err[256];
	size_t len;
	char *text = slurp(name, &len);
	struct osp_profile *p = osp_read_kmod(layer, text, len, err, sizeof(err));

	free(text);
	cr_assert_not_null(p, "%s: %s", name, err);
	return p;
}

static struct osp_profile *parse_str(const char *layer, const char *text,
				     char *err, size_t errlen)
{
	return osp_read_kmod(layer, text, strlen(text), err, errlen);
}

Test(read_kmod, golden_lower_maps_physical_to_lat_and_virtual_to_cpu)
{
	struct osp_profile *p = read_golden("lower", "lower.txt");
	struct osp_op *rd;

	cr_expect_str_eq(p->layer, "lower");
	cr_expect_str_eq(p->unit, "ns");
	cr_expect_eq(p->res, 1u);
	cr_expect_str_eq(p->clock_source, "ktime");
	cr_expect_float_eq(p->cycles_per_ns, 1.0, 1e-9);
	cr_expect_str_eq(osp_kv_get(&p->options, "enabled"), "true");
	cr_expect_eq(p->nops, 21u);
	cr_expect_eq(osp_profile_check(p, stderr), 0u);
	rd = osp_profile_find_op(p, "read");
	cr_assert_not_null(rd);
	cr_expect(rd->has_cpu);
	cr_expect_eq(rd->lat.count, 56u);
	cr_expect_eq(rd->lat.sum, 72845050u);
	cr_expect_eq(rd->lat.min, 54930u);
	cr_expect_eq(rd->lat.max, 12083080u);
	cr_expect_eq(osp_hist_bucket(&rd->lat, 19), 22u);
	cr_expect_eq(rd->cpu.count, 56u);
	cr_expect_eq(rd->cpu.sum, 35600610u);
	cr_expect_eq(osp_hist_bucket(&rd->cpu, 18), 27u);
	/* an empty op is there, empty */
	rd = osp_profile_find_op(p, "fsync");
	cr_assert_not_null(rd);
	cr_expect_eq(rd->lat.count, 0u);
	cr_expect_eq(rd->cpu.count, 0u);
	osp_profile_free(p);
}

Test(read_kmod, golden_block_names_ops_dev_dot_dir)
{
	struct osp_profile *p = read_golden("block", "block.txt");
	struct osp_op *op;

	cr_expect_eq(p->nops, 1u);
	op = osp_profile_find_op(p, "vda.read");
	cr_assert_not_null(op);
	cr_expect_not(op->has_cpu);
	cr_expect_eq(op->lat.count, 53u);
	cr_expect_eq(osp_hist_bucket(&op->lat, 18), 29u);
	cr_expect_eq(osp_profile_check(p, stderr), 0u);
	osp_profile_free(p);
}

Test(read_kmod, golden_irq_names_ops_line_colon_handler)
{
	struct osp_profile *p = read_golden("irq", "irq.txt");
	struct osp_op *op;

	cr_expect_eq(p->nops, 8u);
	op = osp_profile_find_op(p, "25:virtio0-req.0");
	cr_assert_not_null(op);
	cr_expect_eq(op->lat.count, 52u);
	cr_expect_eq(op->ncounters, 0u);
	cr_expect_str_eq(osp_kv_get(&op->attrs, "pmc"), "\"unavailable\"");
	cr_expect_not_null(osp_profile_find_op(p, "LOC:local_timer"));
	cr_expect_not_null(osp_profile_find_op(p, "softirq:RCU"));
	cr_expect_eq(osp_profile_check(p, stderr), 0u);
	osp_profile_free(p);
}

Test(read_kmod, irq_counters_follow_pmc_available_in_order)
{
	static const char text[] =
		"layer=irq clock=tsc cycles_per_ns=2.594313 enabled=0\n"
		"irq=11 name=eth0 count=2 sum_ns=3000 min_ns=1000 max_ns=2000 "
		"hist=10:1,11:1 pmc=available instructions=5000 branch_misses=7\n";
	char err[256];
	struct osp_profile *p = parse_str("irq", text, err, sizeof(err));
	struct osp_op *op;

	cr_assert_not_null(p, "%s", err);
	cr_expect_str_eq(p->clock_source, "tsc");
	cr_expect_float_eq(p->cycles_per_ns, 2.594313, 1e-9);
	cr_expect_str_eq(osp_kv_get(&p->options, "enabled"), "false");
	op = osp_profile_find_op(p, "11:eth0");
	cr_assert_not_null(op);
	cr_assert_eq(op->ncounters, 2u);
	cr_expect_str_eq(op->counters[0].name, "instructions");
	cr_expect_eq(op->counters[0].value, 5000u);
	cr_expect_str_eq(op->counters[1].name, "branch_misses");
	cr_expect_eq(op->counters[1].value, 7u);
	cr_expect_str_eq(osp_kv_get(&op->attrs, "pmc"), "\"available\"");
	osp_profile_free(p);
}

Test(read_kmod, no_header_means_ktime_and_unknown_keys_are_ignored)
{
	static const char text[] =
		"dev=sda dir=write count=0 sum_ns=0 min_ns=0 max_ns=0 hist= future=1\n"
		"\n"
		"dev=sda dir=flush count=1 sum_ns=9 min_ns=9 max_ns=9 hist=4:1";
	char err[256];
	struct osp_profile *p = parse_str("block", text, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_expect_str_eq(p->clock_source, "ktime");
	cr_expect_eq(p->nops, 2u);
	cr_expect_eq(osp_hist_bucket(&osp_profile_find_op(p, "sda.flush")->lat, 4), 1u);
	osp_profile_free(p);
}

Test(read_kmod, empty_text_is_an_empty_profile)
{
	char err[256];
	struct osp_profile *p = osp_read_kmod("lower", "", 0, err, sizeof(err));

	cr_assert_not_null(p, "%s", err);
	cr_expect_eq(p->nops, 0u);
	osp_profile_free(p);
}

Test(read_kmod, unknown_layer_is_refused)
{
	char err[256];

	cr_expect_null(parse_str("timers", "id=1\n", err, sizeof(err)));
	cr_expect(strstr(err, "timers") != NULL, "%s", err);
	cr_expect_null(osp_read_kmod(NULL, "", 0, err, sizeof(err)));
}

Test(read_kmod, nul_byte_is_refused)
{
	char err[256];

	cr_expect_null(osp_read_kmod("block", "dev=a\0b", 7, err, sizeof(err)));
	cr_expect(strstr(err, "NUL") != NULL, "%s", err);
}

struct bad_case {
	const char *layer;
	const char *text;
	const char *want; /* a substring the message must contain */
};

#define LREC "op=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1 vcount=1 vsum_ns=5 vmin_ns=5 vmax_ns=5 vhist=3:1"
#define BREC "count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1"

/*
 * Criterion runs each parameter in a fresh process image, where pointers
 * into this one are meaningless: the parameter is an index into the table.
 */
static const struct bad_case bad_cases[] = {
	{ "lower", "op=read count=1\n", "line 1: missing key 'sum_ns'" },
	{ "lower", "layer=lower\n" LREC "\n" LREC "\n", "line 3: op 'read' repeated" },
	{ "lower", "op= count=1\n", "line 1: key 'op': empty value" },
	{ "lower", "op=read count=x1 sum_ns=5\n", "line 1: key 'count': not a number" },
	{ "lower", "op=read count=-1\n", "key 'count': not a number" },
	{ "lower", "op=read count=1 count=2\n", "key 'count' repeated" },
	{ "lower", "op=read junk\n", "'junk' is not key=value" },
	{ "lower", "=5\n", "not key=value" },
	{ "lower", "op=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1\n", "missing key 'vcount'" },
	{ "lower", "layer=block\n", "key 'layer': 'block', expected 'lower'" },
	{ "lower", LREC "\nlayer=lower\n", "line 2: header after records" },
	{ "lower", "layer=lower cycles_per_ns=fast\n", "key 'cycles_per_ns'" },
	{ "lower", "layer=lower enabled=2\n", "key 'enabled'" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=65:1\n", "bucket index '65' not in 0..64" },
	{ "block", "dev=vda dir=read " BREC ",2:1\n", "bucket 2 out of order" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1,\n", "trailing comma" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3\n", "bad bucket '3'" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:\n", "bad count in bucket 3" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:x\n", "bucket 3: not a number" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=:1\n", "bad bucket" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1:1\n", "bucket 3: not a number" },
	{ "block", "dev=vda count=1\n", "missing key 'dir'" },
	{ "block", "dev=vda dir=read count=99999999999999999999 sum_ns=1\n", "key 'count': not a number" },
	{ "irq", "irq=1 name=x " BREC "\n", "missing key 'pmc'" },
	{ "irq", "irq=1 name=x " BREC " pmc=maybe\n", "key 'pmc': 'maybe'" },
	{ "irq", "irq=1 name=x " BREC " pmc=available instructions=lots\n", "key 'instructions': not a number" },
	{ "irq", "name=x " BREC " pmc=unavailable\n", "missing key 'irq'" },
	/* names one in JSON, where \xe0 (not UTF-8) reads back as U+00E0 (\xc3\xa0) */
	{ "irq", "irq=1 name=x " BREC " pmc=available br\xe0" "anches=3 br\xc3\xa0" "anches=9\n",
	  "line 1: key 'br\xc3\xa0" "anches' repeated" },
	{ "irq", "irq=1 name=a\xe0 " BREC " pmc=unavailable\n"
		 "irq=1 name=a\xc3\xa0 " BREC " pmc=unavailable\n", "line 2: op '1:a\xc3\xa0' repeated" },
	{ "block", "dev=vda dir=read count=2 sum_ns=5 min_ns=9 max_ns=5 hist=3:2\n", "line 1: key 'min_ns': 9 is greater than max_ns (5)" },
	{ "lower", "op=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1 vcount=1 vsum_ns=5 vmin_ns=6 vmax_ns=5 vhist=3:1\n", "line 1: key 'vmin_ns': 6 is greater than vmax_ns (5)" },
	{ "block", "dev=vda dir=read count=0 sum_ns=5 min_ns=0 max_ns=0 hist=\n", "line 1: key 'count': 0, but sum_ns, min_ns or max_ns is not" },
	{ "block", "dev=vda dir=read count=1 sum_ns=5 min_ns=5 max_ns=5 hist=1:18446744073709551615,2:2\n", "line 1: key 'hist': the buckets add up to more than 2^64 - 1" },
	{ "block", "dev=vda dir=read count=18446744073709551615 sum_ns=5 min_ns=5 max_ns=5 hist=3:1\n"
		   "dev=vda dir=write count=1 sum_ns=5 min_ns=5 max_ns=5 hist=3:1\n", "line 2: key 'count': the records' counts add up to more than 2^64 - 1" },
	{ "block", "layer=block cycles_per_ns=0\n", "key 'cycles_per_ns': not a rate" },
};

#define NBAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

ParameterizedTestParameters(read_kmod, malformed_input_names_line_and_key)
{
	static size_t idx[NBAD];

	for (size_t i = 0; i < NBAD; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, NBAD);
}

ParameterizedTest(size_t *i, read_kmod, malformed_input_names_line_and_key)
{
	const struct bad_case *c = &bad_cases[*i];
	char err[256] = "";
	struct osp_profile *p = parse_str(c->layer, c->text, err, sizeof(err));

	cr_expect_null(p, "accepted: %s", c->text);
	osp_profile_free(p);
	cr_expect(strstr(err, c->want) != NULL, "message '%s' lacks '%s'", err,
		  c->want);
	cr_expect(strncmp(err, c->layer, strlen(c->layer)) == 0,
		  "message '%s' does not name the layer", err);
	cr_expect(strchr(err, '\n') == NULL, "message is not one line: %s", err);
}

Test(read_kmod, every_prefix_of_a_golden_file_parses_or_fails_cleanly)
{
	static const char *const files[][2] = {
		{ "lower", "lower.txt" }, { "block", "block.txt" }, { "irq", "irq.txt" },
	};

	for (size_t f = 0; f < 3; f++) {
		size_t len;
		char *text = slurp(files[f][1], &len);

		for (size_t n = 0; n <= len; n++) {
			char err[256] = "";
			/* an exact-size copy, so reading past @n would be caught */
			char *copy = malloc(n ? n : 1);
			struct osp_profile *p;

			cr_assert_not_null(copy);
			memcpy(copy, text, n);
			p = osp_read_kmod(files[f][0], copy, n, err, sizeof(err));
			if (!p)
				cr_expect(err[0] != '\0', "%s prefix %zu: NULL without a message",
					  files[f][1], n);
			osp_profile_free(p);
			free(copy);
		}
		free(text);
	}
}
