// SPDX-License-Identifier: MIT
/* The one number parser: whole strings only, ranges, suffixes, no NaN. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdint.h>

#include "osprof/parse.h"

/* Arrays, not pointers: Criterion copies parameters into a new process. */
struct u64_case {
	char s[32];
	int rc;
	uint64_t v;
};

ParameterizedTestParameters(parse, u64_table)
{
	static struct u64_case cases[] = {
		{ "0", 0, 0 }, { "5", 0, 5 }, { "100", 0, 100 },
		{ "101", -ERANGE, 0 }, { "", -EINVAL, 0 }, { " 5", -EINVAL, 0 },
		{ "5 ", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { "+1", -EINVAL, 0 },
		{ "1x", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
	};
	return cr_make_param_array(struct u64_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct u64_case *c, parse, u64_table)
{
	uint64_t v = 777;
	int rc = osp_parse_u64(c->s, 0, 100, &v);

	cr_expect_eq(rc, c->rc, "'%s': rc %d, expected %d", c->s, rc, c->rc);
	cr_expect_eq(v, c->rc ? 777 : c->v, "'%s': value written on failure", c->s);
}

Test(parse, sizes_take_binary_suffixes)
{
	uint64_t v;

	cr_expect_eq(osp_parse_size("4k", 1, UINT64_MAX, &v), 0);
	cr_expect_eq(v, 4096);
	cr_expect_eq(osp_parse_size("2M", 1, UINT64_MAX, &v), 0);
	cr_expect_eq(v, 2u << 20);
	cr_expect_eq(osp_parse_size("1g", 1, UINT64_MAX, &v), 0);
	cr_expect_eq(v, 1u << 30);
	cr_expect_eq(osp_parse_size("4kb", 1, UINT64_MAX, &v), -EINVAL);
	cr_expect_eq(osp_parse_size("k", 1, UINT64_MAX, &v), -EINVAL);
	cr_expect_eq(osp_parse_size("20000000000g", 1, UINT64_MAX, &v), -ERANGE);
}

Test(parse, doubles_are_whole_finite_and_in_range)
{
	double v;

	cr_expect_eq(osp_parse_double("0.05", 0, 10, &v), 0);
	cr_expect_float_eq(v, 0.05, 1e-15);
	cr_expect_eq(osp_parse_double(".5", 0, 10, &v), 0);
	cr_expect_eq(osp_parse_double("1e-3", 0, 10, &v), 0);
	cr_expect_float_eq(v, 0.001, 1e-15);
	cr_expect_eq(osp_parse_double("nan", 0, 10, &v), -EINVAL);
	cr_expect_eq(osp_parse_double("inf", 0, 10, &v), -EINVAL);
	cr_expect_eq(osp_parse_double("-1", -5, 10, &v), -EINVAL);
	cr_expect_eq(osp_parse_double("1.5x", 0, 10, &v), -EINVAL);
	cr_expect_eq(osp_parse_double("", 0, 10, &v), -EINVAL);
	cr_expect_eq(osp_parse_double("11", 0, 10, &v), -ERANGE);
	cr_expect_eq(osp_parse_double("1e999", 0, 10, &v), -ERANGE);
}

Test(parse, names_match_whole_entries_of_a_table)
{
	static const char *const names[] = { "lower", NULL, "irq" };
	unsigned i = 77;

	cr_expect_eq(osp_parse_name("irq", names, 3, &i), 0);
	cr_expect_eq(i, 2);
	cr_expect_eq(osp_parse_name("lower", names, 3, &i), 0);
	cr_expect_eq(i, 0);
	i = 77;
	cr_expect_eq(osp_parse_name("ir", names, 3, &i), -EINVAL);
	cr_expect_eq(osp_parse_name("irq ", names, 3, &i), -EINVAL);
	cr_expect_eq(osp_parse_name("", names, 3, &i), -EINVAL);
	cr_expect_eq(osp_parse_name(NULL, names, 3, &i), -EINVAL);
	cr_expect_eq(osp_parse_name("irq", names, 2, &i), -EINVAL);
	cr_expect_eq(i, 77, "written on failure");
}

Test(parse, u64_n_reads_only_its_bytes)
{
	uint64_t v = 7;

	cr_expect_eq(osp_parse_u64_n("123abc", 3, 0, UINT64_MAX, &v), 0);
	cr_expect_eq(v, 123);
	cr_expect_eq(osp_parse_u64_n("123abc", 4, 0, UINT64_MAX, &v), -EINVAL);
	cr_expect_eq(osp_parse_u64_n("-1", 2, 0, UINT64_MAX, &v), -EINVAL);
	cr_expect_eq(osp_parse_u64_n("5", 0, 0, UINT64_MAX, &v), -EINVAL);
	cr_expect_eq(osp_parse_u64_n("18446744073709551616", 20, 0, UINT64_MAX, &v), -ERANGE);
	cr_expect_eq(osp_parse_u64_n("18446744073709551615", 20, 0, UINT64_MAX, &v), 0);
	cr_expect_eq(v, UINT64_MAX);
	cr_expect_eq(osp_parse_u64_n("42", 2, 1, 41, &v), -ERANGE);
	cr_expect_eq(v, UINT64_MAX, "unchanged on error");
}

Test(parse, duration_takes_a_whole_number_and_a_unit)
{
	static const struct {
		const char *s;
		int err;
		uint64_t ns;
	} cases[] = {
		{ "10ms", 0, 10000000 }, { "500us", 0, 500000 }, { "2s", 0, 2000000000 },
		{ "7ns", 0, 7 }, { "0", 0, 0 }, { "0ms", 0, 0 },
		{ "10", -EINVAL, 0 }, { "ms", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "1.5ms", -EINVAL, 0 }, { "-1ms", -EINVAL, 0 }, { " 1ms", -EINVAL, 0 },
		{ "1msx", -EINVAL, 0 }, { "1 ms", -EINVAL, 0 }, { "1m", -EINVAL, 0 },
		{ "3601s", -ERANGE, 0 }, { "18446744073709551615s", -ERANGE, 0 },
		{ "99999999999999999999ns", -ERANGE, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 77;

		cr_expect_eq(osp_parse_duration(cases[i].s, 3600000000000ull, &v), cases[i].err,
			     "'%s'", cases[i].s);
		cr_expect_eq(v, cases[i].err ? 77 : cases[i].ns, "'%s' gives %llu", cases[i].s,
			     (unsigned long long)v);
	}
	uint64_t v = 0;
	cr_expect_eq(osp_parse_duration_n("20msXX", 4, UINT64_MAX, &v), 0);
	cr_expect_eq(v, 20000000);
}
