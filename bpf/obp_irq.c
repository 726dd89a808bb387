// SPDX-License-Identifier: MIT
/*
 * Loading layer irq (obp_irq.bpf.c): the per-CPU perf events of its
 * counters (obp_pmc.c) are opened first, so the programs know how many
 * there are and the pmc map is sized for every possible CPU; after
 * loading, the events are handed to the programs. Without them the
 * durations go on.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_irq.skel.h"

/* Hand the opened perf events to the programs: 0 or -errno. */
static int irq_pmc_fill(struct obp *b, struct obp_irq_bpf *q)
{
	for (int cpu = 0; cpu < b->pmc_ncpu; cpu++)
		for (unsigned e = 0; e < b->pmc_n; e++) {
			__u32 idx = (__u32)cpu * OBP_PMC_MAX + e;
			int fd = b->pmc_fds[idx];

			if (fd >= 0 && bpf_map__update_elem(q->maps.pmc, &idx, sizeof(idx), &fd,
							    sizeof(fd), BPF_ANY))
				return -errno;
		}
	return 0;
}

static int irq_open(struct obp *b, unsigned want, struct obp_object *out)
{
	int ncpu = libbpf_num_possible_cpus(), err;
	struct obp_irq_bpf *q;

	(void)want;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	q = obp_irq_bpf__open();
	if (!q)
		return -errno;
	err = obp_pmc_open(b, ncpu);
	err = err ? err : bpf_map__set_max_entries(q->maps.pmc, (__u32)ncpu * OBP_PMC_MAX);
	if (err)
		goto fail;
	q->rodata->pmc_n = b->pmc_n;
	err = obp_irq_bpf__load(q);
	if (err)
		goto fail;
	if (b->pmc_n) {
		int e = irq_pmc_fill(b, q);

		/* durations go on without counters: the programs see empty
		 * slots and leave the sums alone */
		if (e) {
			snprintf(b->pmc_why, sizeof(b->pmc_why), "perf event map: %s", strerror(-e));
			obp_pmc_close(b);
		}
	}
	err = obp_irq_bpf__attach(q);
	if (err)
		goto fail;
	OBP_OBJECT_SET(out, q);
	return 0;
fail:
	obp_irq_bpf__destroy(q);
	obp_pmc_close(b);
	return err;
}

static void irq_close(struct obp *b, void *skel)
{
	/* the programs hold the perf events until destroyed */
	obp_irq_bpf__destroy(skel);
	obp_pmc_close(b);
}

const struct obp_loader obp_irq_loader = {
	.layers = OBP_LAYER_BIT(OBP_L_IRQ),
	/* kinds irq and softirq: the object holds no other */
	.what = "irq layer",
	.open = irq_open,
	.close = irq_close,
};

int obp_irq_maps(struct obp *b, int *sums_fd, int *names_fd)
{
	struct obp_irq_bpf *q = obp_object(b, &obp_irq_loader);

	if (!q)
		return -ENOENT;
	*sums_fd = bpf_map__fd(q->maps.pmc_sums);
	*names_fd = bpf_map__fd(q->maps.irq_names);
	return 0;
}
