/* SPDX-License-Identifier: MIT */
/* A profile with known contents, shared by the writer and JSON tests. */
#ifndef TESTS_CORE_FIXTURE_H
#define TESTS_CORE_FIXTURE_H

#include <criterion/criterion.h>
#include <stdlib.h>

#include "osprof/profile.h"

/*
 * layer fs, res @res: "read" 1000 x 800 ns + 10 x 3 ms (with cpu),
 * "getattr" 5 x 2000 ns, "mkdir" empty; two snapshots.
 */
static inline struct osp_profile *fixture_profile(unsigned res)
{
	struct osp_profile *p = osp_profile_new("fs", res);
	struct osp_op *rd, *ga;

	cr_assert_not_null(p);
	osp_str_set(&p->host, "testhost");
	osp_str_set(&p->clock_source, "tsc");
	p->cycles_per_ns = 2.5;
	p->start_unix_ns = 1732200000000000000ull;
	p->elapsed_ns = 12300000000ull;
	osp_kv_set_str(&p->source, "mount", "/mnt/p \"quoted\"");
	osp_kv_set_u64(&p->source, "pid", 4242);
	osp_kv_set_str(&p->options, "cache", "never");
	osp_kv_set_num(&p->options, "attr_timeout_s", 0);
	osp_kv_set_bool(&p->options, "writeback", false);
	rd = osp_profile_add_op(p, "read", true);
	for (int i = 0; i < 1000; i++) {
		osp_hist_record(&rd->lat, 800);
		osp_hist_record(&rd->cpu, 300);
	}
	for (int i = 0; i < 10; i++) {
		osp_hist_record(&rd->lat, 3000000);
		osp_hist_record(&rd->cpu, 500);
	}
	ga = osp_profile_add_op(p, "getattr", false);
	for (int i = 0; i < 5; i++)
		osp_hist_record(&ga->lat, 2000);
	osp_op_add_counter(ga, "instructions", 123456789012ull);
	osp_kv_set_str(&ga->attrs, "pmc", "unavailable");
	osp_profile_add_op(p, "mkdir", false);

	p->tl_interval_ns = 1000000000;
	p->tl_dropped = 1;
	p->snaps = calloc(2, sizeof(*p->snaps));
	p->nsnaps = 2;
	p->snaps[0].t_ns = 1000000000;
	p->snaps[0].ops = calloc(1, sizeof(struct osp_op));
	p->snaps[0].nops = 1;
	osp_op_copy(&p->snaps[0].ops[0], &p->ops[1]);
	p->snaps[1].t_ns = 2000000000;
	p->snaps[1].ops = calloc(1, sizeof(struct osp_op));
	return p;
}

#endif
