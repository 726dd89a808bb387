// SPDX-License-Identifier: MIT
/*
 * Layer irq's performance counters: per-CPU perf events that the BPF
 * programs read around each handler run (bpf_perf_event_read_value), as
 * osprof.ko's okm_pmc.c does in the kernel. Counting events, not
 * sampling: no interrupts of their own. Not pinned: where the PMU has
 * fewer counters than wanted, the kernel rotates them, and the programs
 * keep only runs in which every event counted throughout.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "obp_impl.h"

struct pmc_event {
	const char *name; /* the counter's name in profiles (osprof.ko's) */
	__u32 type;
	__u64 config;
};

static const struct pmc_event hw_events[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};
_Static_assert(sizeof(hw_events) / sizeof(hw_events[0]) <= OBP_PMC_MAX, "room for the events");

static const struct pmc_event sw_events[] = {
	{ "cpu_clock_ns", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
};

static int pmc_open_one(const struct pmc_event *e, int cpu)
{
	struct perf_event_attr a = {
		.type = e->type,
		.size = sizeof(a),
		.config = e->config,
	};

	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Keep the first reason only: the one that explains the rest. */
static void pmc_why(struct obp *b, const struct pmc_event *e, int cpu, int err)
{
	const char *hint = "";

	if (b->pmc_why[0])
		return;
	if (err == ENOENT || err == EOPNOTSUPP)
		hint = " (this CPU offers no such counter: most VMs have no PMU)";
	else if (err == EACCES || err == EPERM)
		hint = " (needs CAP_PERFMON)";
	snprintf(b->pmc_why, sizeof(b->pmc_why), "perf_event_open(%s) on CPU %d: %s%s",
		 e->name, cpu, strerror(err), hint);
}

int obp_pmc_open(struct obp *b, int ncpu)
{
	const struct pmc_event *ev = hw_events;
	size_t nev = sizeof(hw_events) / sizeof(hw_events[0]);

	b->pmc_n = 0;
	if (b->opts.irq_pmc == OBP_PMC_NONE) {
		snprintf(b->pmc_why, sizeof(b->pmc_why), "not asked for");
		return 0;
	}
	if (b->opts.irq_pmc == OBP_PMC_SOFTWARE) {
		ev = sw_events;
		nev = sizeof(sw_events) / sizeof(sw_events[0]);
	}
	b->pmc_fds = malloc((size_t)ncpu * OBP_PMC_MAX * sizeof(*b->pmc_fds));
	if (!b->pmc_fds)
		return -ENOMEM;
	b->pmc_ncpu = ncpu;
	for (int i = 0; i < ncpu * OBP_PMC_MAX; i++)
		b->pmc_fds[i] = -1;
	for (size_t e = 0; e < nev; e++) {
		unsigned slot = b->pmc_n;
		int cpu, opened = 0;

		for (cpu = 0; cpu < ncpu; cpu++) {
			int fd = pmc_open_one(&ev[e], cpu);

			if (fd < 0 && errno == ENODEV)
				continue; /* an offline CPU */
			if (fd < 0) {
				pmc_why(b, &ev[e], cpu, errno);
				break;
			}
			b->pmc_fds[cpu * OBP_PMC_MAX + slot] = fd;
			opened++;
		}
		if (cpu == ncpu && opened) {
			b->pmc_names[b->pmc_n++] = ev[e].name;
			continue;
		}
		/* not on every online CPU: a partial event would mislead */
		for (cpu = 0; cpu < ncpu; cpu++) {
			int *fd = &b->pmc_fds[cpu * OBP_PMC_MAX + slot];

			if (*fd >= 0)
				close(*fd);
			*fd = -1;
		}
	}
	return 0;
}

void obp_pmc_close(struct obp *b)
{
	for (int i = 0; b->pmc_fds && i < b->pmc_ncpu * OBP_PMC_MAX; i++)
		if (b->pmc_fds[i] >= 0)
			close(b->pmc_fds[i]);
	free(b->pmc_fds);
	b->pmc_fds = NULL;
	b->pmc_n = 0;
}
