// SPDX-License-Identifier: MIT
/*
 * The programs' option parser (core/prog/osp_opt.h): each kind stores its
 * value where the row says, numbers through core's parsers with their
 * ranges, a refusal names the option and its value, STOP and PRINT rows
 * end the parse with their key, "+" stops at the first operand, a second
 * parse starts afresh, and the bench programs' words for a refused number.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "osp_opt.h"

/* What the table of every test stores into. */
struct vals {
	const char *str;
	bool on, off;
	uint64_t u64, size;
	unsigned uint;
	double dbl;
	const char *called[4];
	size_t ncalled;
};

static int record(const struct osp_opt *opt, const char *arg)
{
	struct vals *v = opt->dst;

	if (strcmp(arg, "no") == 0)
		return -EDOM;
	v->called[v->ncalled++] = arg;
	return 0;
}

enum { OPT_LONG_ONLY = 256 };

/* argv is built in place: getopt permutes it, so it must be writable. */
#define PARSE(mode, v, f, ...)                                                \
	({                                                                    \
		char *argv_[] = { "prog", __VA_ARGS__, NULL };                \
		parse(mode, v, f, (int)(sizeof(argv_) / sizeof(argv_[0])) - 1, argv_); \
	})

/* The table, at file scope: a refusal points into it after parse returns. */
static struct osp_opt table[12];

static int parse(const char *mode, struct vals *v, struct osp_opt_fail *f,
		 int argc, char **argv)
{
	const struct osp_opt rows[] = {
		{ 's', "str", OSP_OPT_STR, &v->str },
		{ 'y', "yes", OSP_OPT_TRUE, &v->on },
		{ 'n', "no", OSP_OPT_FALSE, &v->off },
		{ 'u', "u64", OSP_OPT_U64, &v->u64, .umin = 1, .umax = 100 },
		{ 'z', "size", OSP_OPT_SIZE, &v->size, .umin = 1, .umax = 1 << 20 },
		{ 'i', "uint", OSP_OPT_UINT, &v->uint, .umin = 0, .umax = 1024 },
		{ 'd', "double", OSP_OPT_DOUBLE, &v->dbl, .dmin = 0.5, .dmax = 2 },
		{ 'c', "call", OSP_OPT_CALL, v, .call = record },
		{ OPT_LONG_ONLY, "long-only", OSP_OPT_TRUE, &v->on },
		{ 'h', "help", OSP_OPT_STOP },
		{ 'V', "version", OSP_OPT_PRINT, .text = "prog 1.0\n" },
		{ 0 },
	};

	_Static_assert(sizeof(rows) == sizeof(table), "the test's table");
	memcpy(table, rows, sizeof(rows));
	return osp_opt_parse(table, mode, argc, argv, f);
}

Test(opt, every_kind_stores_where_its_row_says)
{
	struct vals v = { .off = true };
	struct osp_opt_fail f;

	cr_assert_eq(PARSE("", &v, &f, "-s", "x y", "--yes", "-n", "--u64=100",
			   "-z", "4k", "--uint", "1024", "-d", "0.5", "-c", "a",
			   "--call", "b", "op1"), 0);
	cr_expect_str_eq(v.str, "x y");
	cr_expect(v.on);
	cr_expect_not(v.off);
	cr_expect_eq(v.u64, 100);
	cr_expect_eq(v.size, 4096);
	cr_expect_eq(v.uint, 1024);
	cr_expect_float_eq(v.dbl, 0.5, 1e-15);
	cr_assert_eq(v.ncalled, 2);
	cr_expect_str_eq(v.called[0], "a");
	cr_expect_str_eq(v.called[1], "b");
	cr_expect_eq(f.opt, NULL);
}

Test(opt, operands_are_left_after_optind)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;
	char *argv[] = { "prog", "a", "-y", "b", NULL };

	/* Options anywhere: getopt moves the operands to the end. */
	cr_assert_eq(parse("", &v, &f, 4, argv), 0);
	cr_expect(v.on);
	cr_assert_eq(optind, 2);
	cr_expect_str_eq(argv[2], "a");
	cr_expect_str_eq(argv[3], "b");
}

Test(opt, plus_stops_at_the_first_operand)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;
	char *argv[] = { "prog", "-y", "cmd", "-s", "x", NULL };

	cr_assert_eq(parse("+", &v, &f, 5, argv), 0);
	cr_expect_eq(optind, 2);
	cr_expect_null(v.str, "an option after the command was taken as ours");
}

Test(opt, a_second_parse_starts_afresh)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;

	cr_assert_eq(PARSE("", &v, &f, "-u", "5", "op"), 0);
	cr_assert_eq(PARSE("", &v, &f, "-u", "7"), 0);
	cr_expect_eq(v.u64, 7);
	cr_expect_eq(optind, 3);
}

Test(opt, a_long_option_alone_has_no_letter)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;

	cr_assert_eq(PARSE("", &v, &f, "--long-only"), 0);
	cr_expect(v.on);
}

struct refusal {
	char opt[16], arg[32];
	int rc;
};

ParameterizedTestParameters(opt, numbers_out_of_range_or_malformed_are_refused)
{
	static struct refusal cases[] = {
		{ "-u", "0", -ERANGE }, { "-u", "101", -ERANGE }, { "-u", "1x", -EINVAL },
		{ "-u", "-1", -EINVAL }, { "-u", "", -EINVAL },
		{ "-z", "2m", -ERANGE }, { "-z", "4kb", -EINVAL },
		{ "-i", "1025", -ERANGE }, { "-i", "99999999999999999999", -ERANGE },
		{ "-d", "0.49", -ERANGE }, { "-d", "nan", -EINVAL }, { "-d", "inf", -EINVAL },
	};
	return cr_make_param_array(struct refusal, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct refusal *c, opt, numbers_out_of_range_or_malformed_are_refused)
{
	struct vals v = { .u64 = 77, .size = 77, .uint = 77, .dbl = 77 };
	struct osp_opt_fail f;

	cr_expect_eq(PARSE("", &v, &f, c->opt, c->arg), c->rc, "%s '%s'", c->opt, c->arg);
	cr_assert_not_null(f.opt);
	cr_expect_eq(f.opt->key, c->opt[1]);
	cr_expect_str_eq(f.arg, c->arg);
	cr_expect_eq(f.rc, c->rc);
	/* Nothing is written on a refusal. */
	cr_expect_eq(v.u64, 77);
	cr_expect_eq(v.size, 77);
	cr_expect_eq(v.uint, 77);
	cr_expect_float_eq(v.dbl, 77, 0);
}

Test(opt, a_calls_refusal_is_returned_as_its_own)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;

	cr_expect_eq(PARSE("", &v, &f, "-c", "ok", "-c", "no", "-y"), -EDOM);
	cr_expect_eq(v.ncalled, 1);
	cr_expect_not(v.on, "parsed on past a refusal");
	cr_assert_not_null(f.opt);
	cr_expect_eq(f.opt->kind, OSP_OPT_CALL);
	cr_expect_str_eq(f.arg, "no");
}

Test(opt, getopts_refusals_name_no_option, .init = cr_redirect_stderr)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;

	cr_expect_eq(PARSE("", &v, &f, "--bogus"), -EINVAL);
	cr_expect_null(f.opt);
	cr_expect_eq(f.c, '?');
	/* Silent, ':' tells a missing value from an unknown option. */
	cr_expect_eq(PARSE("+:", &v, &f, "-s"), -EINVAL);
	cr_expect_eq(f.c, ':');
	cr_expect_eq(PARSE("+:", &v, &f, "-Q"), -EINVAL);
	cr_expect_eq(f.c, '?');
	cr_expect_eq(optopt, 'Q');
	fflush(stderr);
	/* Only the first, getopt's own, said anything. */
	cr_expect_stderr_eq_str("prog: unrecognized option '--bogus'\n");
}

Test(opt, stop_and_print_rows_end_the_parse_with_their_key, .init = cr_redirect_stdout)
{
	struct vals v = { 0 };
	struct osp_opt_fail f;

	cr_expect_eq(PARSE("", &v, &f, "-y", "--help", "-u", "0"), 'h');
	cr_expect(v.on);
	cr_expect_eq(PARSE("", &v, &f, "-V", "-s", "x"), 'V');
	cr_expect_null(v.str);
	fflush(stdout);
	cr_expect_stdout_eq_str("prog 1.0\n");
}

Test(opt, a_table_past_its_bound_is_refused)
{
	struct osp_opt opts[OSP_OPT_MAX + 2];
	struct osp_opt_fail f;
	bool b;
	char *argv[] = { "prog", NULL };

	for (int i = 0; i <= OSP_OPT_MAX; i++)
		opts[i] = (struct osp_opt){ 'A' + i, NULL, OSP_OPT_TRUE, &b };
	opts[OSP_OPT_MAX + 1] = (struct osp_opt){ 0 };
	cr_expect_eq(osp_opt_parse(opts, "", 1, argv, &f), -E2BIG);
	opts[OSP_OPT_MAX] = (struct osp_opt){ 0 };
	cr_expect_eq(osp_opt_parse(opts, "", 1, argv, &f), 0);
}

Test(opt, why_words_a_refused_number_as_the_bench_programs_do)
{
	static const struct { const char *opt, *arg, *why; } cases[] = {
		{ "--uint", "2000", "--uint: '2000' is out of range [0, 1024]" },
		{ "--size", "x", "--size: 'x' is not a whole number" },
		{ "-d", "3", "--double: '3' is out of range [0.5, 2]" },
		{ "-d", "x", "--double: 'x' is not a number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vals v = { 0 };
		struct osp_opt_fail f;
		char why[128];

		cr_expect_lt(PARSE("", &v, &f, (char *)cases[i].opt, (char *)cases[i].arg), 0);
		osp_opt_why(&f, why, sizeof(why));
		cr_expect_str_eq(why, cases[i].why);
	}
}
