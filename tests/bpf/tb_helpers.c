// SPDX-License-Identifier: MIT
#include <criterion/criterion.h>

#include "tb_helpers.h"

uint64_t tb_count(const struct osp_profile *p, const char *op)
{
	const struct osp_op *o = osp_profile_find_op(p, op);

	return o ? o->lat.count : 0;
}

unsigned tb_peak(const struct osp_hist *h)
{
	unsigned best = 0;
	uint64_t n = 0;

	for (uint32_t i = 0; i < h->nbk; i++)
		if (h->bk[i].count > n) {
			n = h->bk[i].count;
			best = h->bk[i].idx;
		}
	return best;
}

void tb_expect_2ms_sleeps(const struct osp_profile *p, unsigned k)
{
	const struct osp_op *o = osp_profile_find_op(p, "clock_nanosleep");

	if (!o)
		o = osp_profile_find_op(p, "nanosleep");
	cr_assert_not_null(o, "no sleeps in the %s layer", p->layer);
	cr_expect_eq(o->lat.count, (uint64_t)k);
	/* 2 ms = 2^20.93 ns: bucket 21, (1.05 ms, 2.10 ms], or 22 for a
	 * wake-up over 97 us late (a busy machine); never below. */
	cr_expect_geq(o->lat.min, 2000000u);
	cr_expect(tb_peak(&o->lat) == 21 || tb_peak(&o->lat) == 22,
		  "2 ms sleeps peak in bucket %u", tb_peak(&o->lat));
}
