// SPDX-License-Identifier: MIT
/*
 * The ctl command language (fs/ofs_ctl_cmd.c) on its own: what a batch
 * parses to, its bounds, and that every refusal has a reason that names
 * the line and never echoes the input's bytes.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofs_ctl_cmd.h"

static int parse(const char *s, struct ofs_ctl_batch *b, char *err, size_t errlen)
{
	return ofs_ctl_cmd_parse(s, strlen(s), b, err, errlen);
}

Test(ctl_cmd, a_batch_parses_in_order_with_blank_lines_and_blanks)
{
	struct ofs_ctl_batch b;
	char err[128];

	cr_assert_eq(parse("\n  reset\r\n\n\tdisable \ntimeline 250\ntimeline 5 99\ntimeline off\nenable",
			   &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(b.n, 6);
	cr_expect_eq(b.cmds[0].kind, OFS_CTL_RESET);
	cr_expect_eq(b.cmds[1].kind, OFS_CTL_DISABLE);
	cr_expect_eq(b.cmds[2].kind, OFS_CTL_TIMELINE);
	cr_expect_eq(b.cmds[2].interval_ms, 250);
	cr_expect_eq(b.cmds[2].snapshots, 0, "not given");
	cr_expect_eq(b.cmds[3].interval_ms, 5);
	cr_expect_eq(b.cmds[3].snapshots, 99);
	cr_expect_eq(b.cmds[4].kind, OFS_CTL_TIMELINE_OFF);
	cr_expect_eq(b.cmds[5].kind, OFS_CTL_ENABLE);
	cr_expect_str_empty(err);
}

Test(ctl_cmd, slow_takes_a_duration_or_off)
{
	struct ofs_ctl_batch b;
	char err[128];

	cr_assert_eq(parse("slow 10ms\nslow 0\nslow off\nslow 500us\nslow 3600s\n", &b, err,
			   sizeof(err)), 0, "%s", err);
	cr_assert_eq(b.n, 5);
	for (size_t i = 0; i < b.n; i++)
		cr_expect_eq(b.cmds[i].kind, OFS_CTL_SLOW);
	cr_expect_eq(b.cmds[0].slow_ns, 10000000);
	cr_expect_eq(b.cmds[1].slow_ns, 0);
	cr_expect_eq(b.cmds[2].slow_ns, UINT64_MAX, "off");
	cr_expect_eq(b.cmds[3].slow_ns, 500000);
	cr_expect_eq(b.cmds[4].slow_ns, 3600000000000ull);
}

Test(ctl_cmd, top_takes_on_or_off)
{
	struct ofs_ctl_batch b;
	char err[128];

	cr_assert_eq(parse("top on\n  top\toff \r\ntop on", &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(b.n, 3);
	for (size_t i = 0; i < b.n; i++) {
		cr_expect_eq(b.cmds[i].kind, OFS_CTL_TOP);
		cr_expect_eq(b.cmds[i].line, i + 1);
		cr_expect_eq(b.cmds[i].interval_ms, 0);
		cr_expect_eq(b.cmds[i].snapshots, 0);
		cr_expect_eq(b.cmds[i].slow_ns, 0);
	}
	cr_expect(b.cmds[0].on);
	cr_expect_not(b.cmds[1].on);
	cr_expect(b.cmds[2].on);
}

Test(ctl_cmd, an_empty_batch_is_no_command)
{
	struct ofs_ctl_batch b;
	char err[64];

	cr_expect_eq(ofs_ctl_cmd_parse("", 0, &b, err, sizeof(err)), 0);
	cr_expect_eq(b.n, 0);
	cr_expect_eq(parse(" \n\n\t\n", &b, err, sizeof(err)), 0);
	cr_expect_eq(b.n, 0);
}

/* Bad batches and a substring of the reason each must give. */
static const char *const bad[][2] = {
	{ "bogus", "line 1: unknown command" },
	{ "reset\nnope\n", "line 2: unknown command" },
	{ "reset now", "line 1: reset, enable and disable take no argument" },
	{ "timeline", "line 1: timeline takes off, or an interval" },
	{ "timeline abc", "interval of 1 to 3600000 ms" },
	{ "timeline 0", "interval of 1 to" },
	{ "timeline 3600001", "interval of 1 to" },
	{ "timeline -5", "interval of 1 to" },
	{ "slow", "line 1: slow takes off, or a duration" },
	{ "slow 10", "slow takes off, or a duration" },
	{ "slow 1.5ms", "slow takes off, or a duration" },
	{ "slow 3601s", "slow takes off, or a duration" },
	{ "slow 10ms 5", "slow takes off, or a duration" },
	{ "slow -1ms", "slow takes off, or a duration" },
	{ "timeline +5", "interval of 1 to" },
	{ "timeline 99999999999999999999", "interval of 1 to" },
	{ "timeline 100 0", "snapshot count must be 1 to 10000000" },
	{ "timeline 100 10000001", "snapshot count must be 1 to" },
	{ "timeline 100 10 extra", "line 1: too many words" },
	{ "timeline off now", "timeline takes off, or an interval" },
	{ "\n\n\ndisable\x01", "line 4: unknown command" },
	{ "ENABLE", "unknown command" },
	{ "top", "line 1: top takes on or off" },
	{ "top yes", "line 1: top takes on or off" },
	{ "top ON", "top takes on or off" },
	{ "top on off", "top takes on or off" },
	{ "top 1", "top takes on or off" },
	{ "reset\ntop on now", "line 2: top takes on or off" },
	{ "tops on", "line 1: unknown command (expected reset, enable, disable, timeline, slow or top)" },
};

/* Parameters are indices: Criterion's workers may not share our addresses. */
ParameterizedTestParameters(ctl_cmd, bad_lines_are_refused_with_the_line_named)
{
	static int idx[sizeof(bad) / sizeof(bad[0])];

	for (size_t i = 0; i < sizeof(idx) / sizeof(idx[0]); i++)
		idx[i] = (int)i;
	return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(int *i, ctl_cmd, bad_lines_are_refused_with_the_line_named)
{
	const char *in = bad[*i][0], *reason = bad[*i][1];
	struct ofs_ctl_batch b;
	char err[128];

	cr_expect_eq(parse(in, &b, err, sizeof(err)), -EINVAL, "'%s' accepted", in);
	cr_expect(strstr(err, reason) != NULL, "'%s': reason '%s'", in, err);
	cr_expect_null(strchr(err, '\n'), "one line");
}

Test(ctl_cmd, a_nul_byte_anywhere_refuses_the_batch)
{
	static const char in[] = "reset\n\0bogus\n";
	struct ofs_ctl_batch b;
	char err[64];

	cr_expect_eq(ofs_ctl_cmd_parse(in, sizeof(in) - 1, &b, err, sizeof(err)), -EINVAL);
	cr_expect_str_eq(err, "a NUL byte in the batch");
}

Test(ctl_cmd, the_size_bound_is_exact)
{
	size_t len = OFS_CTL_BATCH_MAX_BYTES + 1;
	char *in = malloc(len);
	struct ofs_ctl_batch b;
	char err[96];

	cr_assert_not_null(in);
	memset(in, ' ', len);
	memcpy(in, "disable\n", 8);
	cr_expect_eq(ofs_ctl_cmd_parse(in, len, &b, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "at most 65536 bytes") != NULL, "%s", err);
	cr_expect_eq(ofs_ctl_cmd_parse(in, len - 1, &b, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(b.n, 1);
	free(in);
}

Test(ctl_cmd, at_most_64_commands)
{
	char in[65 * 6 + 1] = "";
	struct ofs_ctl_batch b;
	char err[96];

	for (int i = 0; i < 64; i++)
		strcat(in, "reset\n");
	cr_expect_eq(parse(in, &b, err, sizeof(err)), 0);
	cr_expect_eq(b.n, 64);
	strcat(in, "reset\n");
	cr_expect_eq(parse(in, &b, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "more than 64 commands") != NULL, "%s", err);
}

Test(ctl_cmd, a_reason_never_echoes_the_input)
{
	struct ofs_ctl_batch b;
	char err[128];

	cr_expect_eq(parse("\x1b[2J<script>", &b, err, sizeof(err)), -EINVAL);
	cr_expect_null(strchr(err, '\x1b'));
	cr_expect_null(strchr(err, '<'));
	/* A short buffer truncates; none at all is allowed. */
	cr_expect_eq(parse("bogus", &b, err, 8), -EINVAL);
	cr_expect_eq(strlen(err), 7);
	cr_expect_eq(parse("bogus", &b, NULL, 0), -EINVAL);
}
