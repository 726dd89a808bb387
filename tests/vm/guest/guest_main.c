// SPDX-License-Identifier: MIT
/*
 * okm-guest: run one named test of osprof.ko (or "all" of the stateless
 * ones). Exit status 0 when every check passed. The init script
 * (guest/init.sh) calls it between insmod and rmmod steps.
 */
#include <stdio.h>
#include <string.h>

#include "guest.h"

struct g_test {
	const char *name;
	int (*fn)(void);
};

static const struct g_test g_tests[] = {
	{ "proc-readable", t_proc_readable },
	{ "vt-sleep", t_vt_sleep },
	{ "vt-threads", t_vt_threads },
	{ "vt-irq", t_vt_irq },
	{ "vt-exit", t_vt_exit },
	{ "timers-file", t_timers_file },
	{ "ioctl-errors", t_ioctl_errors },
	{ "ioctl-fuzz", t_ioctl_fuzz },
	{ "blk-lower", t_blk_lower },
	{ "lower-ops", t_lower_ops },
	{ "irq-list", t_irq_list },
	{ "ctl-errors", t_ctl_errors },
	{ "ctl-fuzz", t_ctl_fuzz },
	{ "rmmod-busy", t_rmmod_busy },
	{ "selftest", t_selftest },
	{ "load", t_load },
};

int main(int argc, char **argv)
{
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: okm-guest TEST\ntests:");
		for (i = 0; i < sizeof(g_tests) / sizeof(g_tests[0]); i++)
			fprintf(stderr, " %s", g_tests[i].name);
		fprintf(stderr, "\n");
		return 2;
	}
	for (i = 0; i < sizeof(g_tests) / sizeof(g_tests[0]); i++) {
		if (!strcmp(argv[1], g_tests[i].name))
			return g_tests[i].fn() ? 1 : 0;
	}
	fprintf(stderr, "okm-guest: no test '%s'\n", argv[1]);
	printf("FAIL okm-guest: no test '%s'\n", argv[1]);
	return 2;
}
