// SPDX-License-Identifier: MIT
/*
 * The irq layer on the running kernel: its names; each hard handler's
 * count against /proc/interrupts, bracketed both ways while disk I/O
 * makes interrupts; softirqs on an idle second; and the performance
 * counters, both the path where the CPU has none (asserted reason) and
 * the counter plumbing itself, with the software cpu-clock event.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dio.h"
#include "obp.h"

Test(irq, names)
{
	char b[96];

	cr_expect_str_eq(obp_irq_op_name(36, "virtio1-req.0", b, sizeof(b)), "36:virtio1-req.0");
	cr_expect_str_eq(obp_irq_op_name(9, "acpi x=1,2", b, sizeof(b)), "9:acpi_x_1_2");
	cr_expect_str_eq(obp_irq_op_name(7, NULL, b, sizeof(b)), "7:unnamed");
	cr_expect_str_eq(obp_irq_op_name(7, "", b, sizeof(b)), "7:unnamed");
	cr_expect_str_eq(obp_softirq_name(0, b, sizeof(b)), "softirq:HI");
	cr_expect_str_eq(obp_softirq_name(1, b, sizeof(b)), "softirq:TIMER");
	cr_expect_str_eq(obp_softirq_name(5, b, sizeof(b)), "softirq:IRQ_POLL");
	cr_expect_str_eq(obp_softirq_name(9, b, sizeof(b)), "softirq:RCU");
	cr_expect_str_eq(obp_softirq_name(10, b, sizeof(b)), "softirq:10");
}

/* ---- /proc/interrupts ---- */

#define MAX_LINES 1024

/* A numbered line: its count summed over CPUs, and its handlers. */
struct pi_line {
	unsigned irq;
	uint64_t count;
	unsigned nactions;
};

struct pi {
	size_t n;
	struct pi_line l[MAX_LINES];
};

/*
 * Parse /proc/interrupts: a header of CPU names, then per line "N:",
 * one count per online CPU, the chip, the hardware irq and trigger, and
 * the handlers' names, ", "-separated (kernel/irq/proc.c). Lines that
 * are not numbered (LOC, NMI, ...) are system vectors, not handlers.
 */
static void pi_read(struct pi *pi)
{
	char line[4096];
	unsigned ncpu = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	cr_assert(f, "/proc/interrupts: %s", strerror(errno));
	pi->n = 0;
	cr_assert(fgets(line, sizeof(line), f));
	for (char *s = strtok(line, " \t\n"); s; s = strtok(NULL, " \t\n"))
		ncpu += strncmp(s, "CPU", 3) == 0;
	cr_assert_gt(ncpu, 0u);
	while (fgets(line, sizeof(line), f) && pi->n < MAX_LINES) {
		struct pi_line *l = &pi->l[pi->n];
		char *s = line, *end;
		unsigned long irq;

		while (*s == ' ')
			s++;
		irq = strtoul(s, &end, 10);
		if (end == s || *end != ':')
			continue;
		s = end + 1;
		l->irq = (unsigned)irq;
		l->count = 0;
		for (unsigned c = 0; c < ncpu; c++) {
			unsigned long long v = strtoull(s, &end, 10);

			if (end == s)
				break;
			l->count += v;
			s = end;
		}
		/* a line with a handler has names; each ", " adds one more */
		l->nactions = strlen(s) > 1;
		for (char *c = s; (c = strstr(c, ", ")); c += 2)
			l->nactions++;
		pi->n++;
	}
	fclose(f);
}

static const struct pi_line *pi_find(const struct pi *pi, unsigned irq)
{
	for (size_t i = 0; i < pi->n; i++)
		if (pi->l[i].irq == irq)
			return &pi->l[i];
	return NULL;
}

static uint64_t count_of(const struct osp_profile *p, const char *name)
{
	const struct osp_op *o = osp_profile_find_op(p, name);

	return o ? o->lat.count : 0;
}

/* The sum over hard handler ops of line @irq in @p. */
static uint64_t line_count(const struct osp_profile *p, unsigned irq)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nops; i++) {
		char *end;
		unsigned long v = strtoul(p->ops[i].name, &end, 10);

		if (end != p->ops[i].name && *end == ':' && v == irq)
			n += p->ops[i].lat.count;
	}
	return n;
}

static struct osp_profile *profile_now(struct obp *b)
{
	struct osp_profile *p = NULL;

	cr_assert_eq(obp_profile(b, OBP_L_IRQ, &p), 0);
	cr_assert_eq(osp_profile_check(p, stderr), 0u, "every histogram's buckets add up");
	return p;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Disk interrupts: O_DIRECT reads and synced writes. */
static void make_interrupts(struct dio *d)
{
	for (size_t i = 0; i < d->nblocks; i++) {
		cr_assert_neq(dio_read(d, i), 0u);
		if (i % 8 == 0)
			cr_assert_eq(dio_write_sync(d, i), 0);
	}
}

static struct obp *irq_open(enum obp_pmc pmc)
{
	struct obp_opts o = { .layers = OBP_LAYER_BIT(OBP_L_IRQ), .irq_pmc = pmc };
	char err[200];
	struct obp *b;

	cr_assert_eq(obp_open(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(obp_layers(b), OBP_LAYER_BIT(OBP_L_IRQ), "%s", obp_why(b, OBP_L_IRQ));
	return b;
}

/*
 * /proc/interrupts counts an interrupt before its handlers run, the
 * layer when each handler returns. Upper bound: /proc read first and
 * last, with a pause so a handler running at the first /proc read has
 * ended before the first profile: every handler run the layer counts
 * in between is in /proc's delta, for every handler of every line.
 * Lower bound: the profiles outside, a pause before the last so that
 * handlers of interrupts /proc counted have returned: every interrupt
 * of a line with one handler is in the layer's delta.
 */
Test(irq, handler_counts_are_bracketed_by_proc_interrupts, .timeout = 60)
{
	struct osp_profile *p0, *p1;
	struct pi *a = malloc(sizeof(*a)), *z = malloc(sizeof(*z));
	struct obp *b = irq_open(OBP_PMC_NONE);
	unsigned busy = 0, checked = 0;
	struct dio d;

	cr_assert(a && z);
	cr_assert_eq(dio_setup(&d, 256), 0);

	pi_read(a);
	pause_ms(20);
	p0 = profile_now(b);
	make_interrupts(&d);
	p1 = profile_now(b);
	pause_ms(20);
	pi_read(z);
	for (size_t i = 0; i < p1->nops; i++) {
		const struct osp_op *op = &p1->ops[i];
		const struct pi_line *la, *lz;
		unsigned long irq;
		char *end;

		irq = strtoul(op->name, &end, 10);
		if (end == op->name || *end != ':')
			continue;
		la = pi_find(a, (unsigned)irq);
		lz = pi_find(z, (unsigned)irq);
		cr_assert(la && lz, "op %s names a line /proc/interrupts has", op->name);
		cr_expect_leq(op->lat.count - count_of(p0, op->name), lz->count - la->count,
			      "upper bound: %s", op->name);
		checked++;
	}
	cr_expect_gt(checked, 0u, "some handler ran during disk I/O");
	osp_profile_free(p0);
	osp_profile_free(p1);

	p0 = profile_now(b);
	pi_read(a);
	make_interrupts(&d);
	pi_read(z);
	pause_ms(20);
	p1 = profile_now(b);
	for (size_t i = 0; i < z->n; i++) {
		const struct pi_line *la = pi_find(a, z->l[i].irq);
		uint64_t proc, bpf;

		if (!la || z->l[i].nactions != 1)
			continue;
		proc = z->l[i].count - la->count;
		bpf = line_count(p1, z->l[i].irq) - line_count(p0, z->l[i].irq);
		cr_expect_geq(bpf, proc, "lower bound: line %u", z->l[i].irq);
		busy += proc > 0;
	}
	cr_expect_gt(busy, 0u, "disk I/O made interrupts");
	osp_profile_free(p0);
	osp_profile_free(p1);
	obp_close(b);
	dio_cleanup(&d);
	free(a);
	free(z);
}

static const char *const softirqs[] = {
	"softirq:HI", "softirq:TIMER", "softirq:NET_TX", "softirq:NET_RX",
	"softirq:BLOCK", "softirq:IRQ_POLL", "softirq:TASKLET", "softirq:SCHED",
	"softirq:HRTIMER", "softirq:RCU",
};

Test(irq, an_idle_second_has_named_softirqs)
{
	struct obp *b = irq_open(OBP_PMC_NONE);
	struct osp_profile *p;
	uint64_t runs = 0;

	pause_ms(1000);
	p = profile_now(b);
	for (size_t i = 0; i < p->nops; i++) {
		const char *name = p->ops[i].name;
		bool known = false;

		if (strncmp(name, "softirq:", 8) != 0)
			continue;
		for (size_t k = 0; k < sizeof(softirqs) / sizeof(softirqs[0]); k++)
			known |= strcmp(name, softirqs[k]) == 0;
		cr_expect(known, "softirq op %s has a vector's name", name);
		runs += p->ops[i].lat.count;
	}
	cr_expect_gt(runs, 0u, "a second without a softirq (a timer tick raises TIMER)");
	osp_profile_free(p);
	obp_close(b);
}

/*
 * The hardware counters. Where the CPU has them: every op carries them.
 * Where it has not (VMs; this test's usual machine), the profile says
 * why in so many words, and durations are still recorded.
 */
Test(irq, counters_or_the_reason_they_are_missing)
{
	struct obp *b = irq_open(OBP_PMC_HARDWARE);
	struct osp_profile *p;
	const char *pmc;
	uint64_t runs = 0;

	pause_ms(300);
	p = profile_now(b);
	pmc = osp_kv_get(&p->options, "pmc");
	cr_assert(pmc, "option pmc is set");
	for (size_t i = 0; i < p->nops; i++) {
		const char *attr = osp_kv_get(&p->ops[i].attrs, "pmc");

		cr_assert(attr, "op %s has attribute pmc", p->ops[i].name);
		runs += p->ops[i].lat.count;
		if (strcmp(pmc, "\"available\"") == 0) {
			cr_expect_str_eq(attr, "\"available\"");
			cr_expect_geq(p->ops[i].ncounters, 2u, "%s has counters", p->ops[i].name);
		} else {
			cr_expect_str_eq(attr, "\"unavailable\"");
			cr_expect_eq(p->ops[i].ncounters, 0u);
		}
	}
	if (strcmp(pmc, "\"available\"") != 0) {
		cr_expect(strncmp(pmc, "\"unavailable: perf_event_open(cycles) on CPU ", 44) == 0,
			  "the reason names the call, event and CPU: %s", pmc);
		cr_expect(strstr(pmc, "no such counter") || strstr(pmc, "CAP_PERFMON") ||
			  strchr(pmc + 44, ':'), "and says why: %s", pmc);
	}
	cr_expect_gt(runs, 0u, "durations are recorded either way");
	osp_profile_free(p);
	obp_close(b);
}

static uint64_t counter_of(const struct osp_op *op, const char *name)
{
	for (size_t i = 0; i < op->ncounters; i++)
		if (strcmp(op->counters[i].name, name) == 0)
			return op->counters[i].value;
	cr_assert_fail("op %s has no counter %s", op->name, name);
	return 0;
}

/*
 * The counters' path (perf events in the map, reads around each run,
 * per-key sums, merged over CPUs) with a software event that exists
 * everywhere: cpu-clock counts ns, so its deltas must agree with the
 * durations measured by the same runs.
 */
Test(irq, software_counter_follows_the_durations)
{
	struct obp *b = irq_open(OBP_PMC_SOFTWARE);
	struct osp_profile *p;
	uint64_t lat = 0, clk = 0, runs = 0, count = 0;

	pause_ms(500);
	obp_enable(b, false);
	pause_ms(50); /* runs begun before end before we read */
	p = profile_now(b);
	cr_expect_str_eq(osp_kv_get(&p->options, "pmc"), "\"available\"");
	cr_expect_str_eq(osp_kv_get(&p->options, "pmc_events"), "\"cpu_clock_ns\"");
	for (size_t i = 0; i < p->nops; i++) {
		const struct osp_op *op = &p->ops[i];

		cr_expect_str_eq(osp_kv_get(&op->attrs, "pmc"), "\"available\"");
		runs += counter_of(op, "pmc_runs");
		clk += counter_of(op, "cpu_clock_ns");
		lat += op->lat.sum;
		count += op->lat.count;
	}
	cr_assert_gt(count, 0u);
	/* a software counter always counts: every run is a counted run */
	cr_expect_eq(runs, count);
	/* the counter's reads bracket the durations' clock reads */
	cr_expect_geq(clk, lat / 2, "cpu_clock %llu ns, durations %llu ns",
		      (unsigned long long)clk, (unsigned long long)lat);
	cr_expect_leq(clk, 2 * lat + 1000 * runs, "cpu_clock %llu ns, durations %llu ns",
		      (unsigned long long)clk, (unsigned long long)lat);
	osp_profile_free(p);
	obp_close(b);
}
