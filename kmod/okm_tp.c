// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on kernel tracepoints found by name. Most of the tracepoints we
 * need (irq_handler_entry, softirq_entry, local_timer_entry,
 * block_rq_issue, sched_process_exit, ...) are not exported to modules,
 * so register_trace_<name>() cannot be linked; for_each_kernel_tracepoint()
 * finds the built-in struct tracepoint and tracepoint_probe_register()
 * attaches to it. The probe's prototype must match the tracepoint's
 * TP_PROTO with a leading void *data.
 *
 * The caller must run tracepoint_synchronize_unregister() after
 * okm_tp_unregister() and before freeing anything a probe touches.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <linux/tracepoint.h>

#include "okm.h"

struct okm_tp_search {
	struct okm_tp *tps;
	unsigned int n;
};

static void okm_tp_match(struct tracepoint *tp, void *priv)
{
	struct okm_tp_search *s = priv;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		if (!s->tps[i].tp && !strcmp(tp->name, s->tps[i].name))
			s->tps[i].tp = tp;
	}
}

/* Find @n tracepoints by name; those not in this kernel keep tp NULL. */
static void okm_tp_lookup(struct okm_tp *tps, unsigned int n)
{
	struct okm_tp_search s = { .tps = tps, .n = n };
	unsigned int i;

	for (i = 0; i < n; i++) {
		tps[i].tp = NULL;
		tps[i].registered = false;
	}
	for_each_kernel_tracepoint(okm_tp_match, &s);
}

int okm_tp_register(struct okm_tp *tps, unsigned int n)
{
	unsigned int i, count = 0;
	int ret, first_err = 0;

	okm_tp_lookup(tps, n);
	for (i = 0; i < n; i++) {
		if (!tps[i].tp) {
			pr_debug("tracepoint %s not in this kernel\n", tps[i].name);
			continue;
		}
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe,
						tps[i].data);
		if (ret) {
			pr_warn("cannot probe tracepoint %s (%d)\n",
				tps[i].name, ret);
			if (!first_err)
				first_err = ret;
			continue;
		}
		tps[i].registered = true;
		count++;
	}
	if (!count && first_err)
		return first_err;
	return count;
}

void okm_tp_unregister(struct okm_tp *tps, unsigned int n)
{
	unsigned int i;

	for (i = n; i-- > 0;) {
		if (!tps[i].registered)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(tps[i].tp,
							 tps[i].probe,
							 tps[i].data));
		tps[i].registered = false;
	}
}
