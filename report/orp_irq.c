// SPDX-License-Identifier: MIT
/*
 * IRQ bar charts (Moore et al., "Profiling Interrupt Handler Performance
 * through Kernel Instrumentation"): per interrupt line, the cycles an
 * interrupt costs, IPC, the branch misprediction rate, and L1 I- and
 * D-cache misses per thousand instructions, derived from the sums of the
 * performance counters the kernel module records beside each handler's
 * duration histogram. Where the CPU had no usable counters (most VMs) the
 * cycles come from the durations and the clock rate, and the chart says so.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orp_gp.h"
#include "osprof/layers.h"

enum irq_counter { IRQ_CYCLES, IRQ_INSNS, IRQ_BRANCHES, IRQ_BMISS, IRQ_L1I, IRQ_L1D, IRQ__COUNT };

/* Spellings a counter may have, compared without case, '_', '-', '.' or ' '. */
static const char *const counter_aliases[IRQ__COUNT][5] = {
	[IRQ_CYCLES] = { "cycles", "cpucycles", NULL },
	[IRQ_INSNS] = { "instructions", "insns", "instr", NULL },
	[IRQ_BRANCHES] = { "branches", "branchinstructions", NULL },
	[IRQ_BMISS] = { "branchmisses", "branchmispredicts", "branchmispredictions", NULL },
	[IRQ_L1I] = { "l1imisses", "l1icachemisses", "l1iloadmisses", "icachemisses", NULL },
	[IRQ_L1D] = { "l1dmisses", "l1dcachemisses", "l1dloadmisses", "dcachemisses", NULL },
};

enum irq_metric { M_CYCLES, M_IPC, M_MISPRED, M_L1I, M_L1D, M__COUNT };

static const char *const metric_titles[] = {
	[M_CYCLES] = "cycles per interrupt",
	[M_IPC] = "instructions per cycle",
	[M_MISPRED] = "branch misprediction rate, %",
	[M_L1I] = "L1 I-cache misses per 1000 instructions",
	[M_L1D] = "L1 D-cache misses per 1000 instructions",
};
_Static_assert(sizeof(metric_titles) / sizeof(metric_titles[0]) == M__COUNT,
	       "a title for every metric");

static void squash(char *dst, size_t len, const char *s)
{
	size_t o = 0;

	for (; *s && o + 1 < len; s++)
		if (!strchr("_-. ", *s))
			dst[o++] = (char)(*s >= 'A' && *s <= 'Z' ? *s - 'A' + 'a' : *s);
	dst[o] = '\0';
}

/* The counters of @op by kind; NAN where absent. */
static void read_counters(const struct osp_op *op, double *v)
{
	for (int k = 0; k < IRQ__COUNT; k++)
		v[k] = NAN;
	for (size_t i = 0; i < op->ncounters; i++) {
		char name[64];

		squash(name, sizeof(name), op->counters[i].name);
		for (int k = 0; k < IRQ__COUNT; k++)
			for (int a = 0; counter_aliases[k][a]; a++)
				if (strcmp(name, counter_aliases[k][a]) == 0)
					v[k] = (double)op->counters[i].value;
	}
}

/* Metrics of one line; *@derived set when cycles came from durations. */
static void irq_metrics(const struct osp_profile *p, const struct osp_op *op,
			double *m, bool *derived)
{
	double c[IRQ__COUNT], n = (double)op->lat.count;

	read_counters(op, c);
	if (isnan(c[IRQ_CYCLES]) || c[IRQ_CYCLES] == 0.0) {
		c[IRQ_CYCLES] = (double)op->lat.sum * p->cycles_per_ns;
		*derived = true;
	}
	m[M_CYCLES] = n > 0.0 ? c[IRQ_CYCLES] / n : NAN;
	m[M_IPC] = c[IRQ_CYCLES] > 0.0 ? c[IRQ_INSNS] / c[IRQ_CYCLES] : NAN;
	m[M_MISPRED] = c[IRQ_BRANCHES] > 0.0 ? 100.0 * c[IRQ_BMISS] / c[IRQ_BRANCHES] : NAN;
	m[M_L1I] = c[IRQ_INSNS] > 0.0 ? 1000.0 * c[IRQ_L1I] / c[IRQ_INSNS] : NAN;
	m[M_L1D] = c[IRQ_INSNS] > 0.0 ? 1000.0 * c[IRQ_L1D] / c[IRQ_INSNS] : NAN;
}

/* Which metrics some line with interrupts has (none: no such line). */
static void irq_scan(const struct osp_profile *p, bool *have, bool *derived)
{
	for (size_t i = 0; i < p->nops; i++) {
		double m[M__COUNT];

		if (!p->ops[i].lat.count)
			continue;
		irq_metrics(p, &p->ops[i], m, derived);
		for (int k = 0; k < M__COUNT; k++)
			have[k] |= !isnan(m[k]);
	}
}

static void irq_data(FILE *f, const struct osp_profile *p)
{
	bool derived;

	orp_gp_data_begin(f, "irq");
	for (size_t i = 0; i < p->nops; i++) {
		double m[M__COUNT];

		if (!p->ops[i].lat.count)
			continue;
		irq_metrics(p, &p->ops[i], m, &derived);
		osp_esc_gp_data(f, p->ops[i].name);
		for (int k = 0; k < M__COUNT; k++)
			fprintf(f, isnan(m[k]) ? " NaN" : " %.6g", m[k]);
		fputc('\n', f);
	}
	orp_gp_data_end(f);
}

/*
 * @derived: no cycle counter, so cycles come from durations; @ns_clock:
 * and the profile's clock counts ns, not cycles, so say ns.
 */
static void irq_panels(FILE *f, const bool *have, int npanels, bool derived,
		       bool ns_clock)
{
	fprintf(f, "set multiplot layout %d,1 title '%s'\n", npanels,
		!derived ? "interrupt handlers by line"
		: ns_clock ? "interrupt handlers by line (no performance counters, no cycle clock: durations)"
			   : "interrupt handlers by line (no performance counters: cycles from durations x clock rate)");
	fputs("set style fill solid 0.75 noborder\nset boxwidth 0.7\nset xtics rotate by -30\n"
	      "set grid ytics lc rgb '#e0e0e0'\nset yrange [0:*]\nset offsets 0,0,graph 0.08,0\n", f);
	for (int k = 0; k < M__COUNT; k++) {
		if (!have[k])
			continue;
		orp_gp_set_str(f, "title", k == M_CYCLES && derived && ns_clock
					   ? "ns per interrupt" : metric_titles[k]);
		fprintf(f, "plot $irq using 0:%d:xtic(1) with boxes lc rgb '%s' notitle\n",
			k + 2, orp_gp_colours[k % orp_gp_ncolours]);
	}
	fputs("unset multiplot\n", f);
}

/* A clock whose "cycles" are nanoseconds (monotonic, ktime). */
static bool ns_clock(const struct osp_profile *p)
{
	const char *c = p->clock_source ? p->clock_source : "";

	return strcmp(c, "tsc") != 0 && strcmp(c, "cntvct") != 0;
}

int orp_chart_irq(struct orp_render *r, const struct osp_profile *p,
		  char *err, size_t errlen)
{
	bool have[M__COUNT] = { false }, derived = false;
	struct orp_gp g;
	int npanels = 0, rc;

	if (strcmp(p->layer, OSP_LAYER_IRQ) != 0)
		return 0;
	irq_scan(p, have, &derived);
	for (int k = 0; k < M__COUNT; k++)
		npanels += have[k];
	rc = orp_gp_begin(r, &g, "irq",
			  "interrupt lines: cycles, IPC, branch and cache misses", 1000,
			  80 + 300 * (npanels ? npanels : 1), err, errlen);
	if (rc)
		return rc;
	if (npanels == 0) {
		fputs("set label 1 'no interrupts recorded' at graph 0.5,0.5 center\n"
		      "unset border\nunset tics\nplot NaN notitle\n", g.f);
	} else {
		irq_data(g.f, p);
		irq_panels(g.f, have, npanels, derived, ns_clock(p));
	}
	return orp_gp_end(r, &g, err, errlen);
}
