/* SPDX-License-Identifier: MIT */
/* What the eBPF layers' tests share. */
#ifndef TB_HELPERS_H
#define TB_HELPERS_H

#include <stdint.h>

#include "osprof/profile.h"

/* Count of operation @op in @p, 0 when absent. */
uint64_t tb_count(const struct osp_profile *p, const char *op);
/* The bucket holding the most values (the lowest of equals); 0 when empty. */
unsigned tb_peak(const struct osp_hist *h);
/*
 * The system call layer's sleeps in @p (clock_nanosleep, or nanosleep):
 * exactly @k of them, none under 2 ms, the peak in bucket 21 or 22.
 */
void tb_expect_2ms_sleeps(const struct osp_profile *p, unsigned k);

#endif
