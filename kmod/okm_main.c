// SPDX-License-Identifier: GPL-2.0
/*
 * osprof.ko: the kernel side of osprof -- virtual timers (in-kernel API
 * and /dev/osprof_vt), and the lower (VFS), block and interrupt latency
 * profiles under /proc/osprof/. See kmod/README.md.
 *
 * Order: the clock and the machinery first, the probes next, the
 * user-visible interfaces (/proc/osprof, /dev/osprof_vt) last; exit in
 * reverse: interfaces first, then every probe, one synchronisation with
 * all tracepoint probes, and only then the memory the probes touch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/tracepoint.h>

#include "okm.h"

static char *clock = "auto";
module_param(clock, charp, 0444);
MODULE_PARM_DESC(clock, "auto (TSC when the kernel trusts it, else ktime), tsc or ktime");

/*
 * Unregister every probe and wait for those running. Each step does
 * nothing for what was never registered, so init's error path uses it too.
 */
static void okm_stop_probes(void)
{
	okm_irq_stop();
	okm_block_stop();
	okm_lower_stop();
	okm_task_stop();
	tracepoint_synchronize_unregister();
}

/* Free what the probes touched; each step accepts what was never made. */
static void okm_free_all(void)
{
	okm_irq_free();
	okm_pmc_free();
	okm_block_free();
	okm_lower_free();
	okm_vt_free();
	okm_task_free();
}

static int __init okm_init(void)
{
	int ret;

	ret = okm_clock_init(clock);
	if (ret)
		return ret;
	ret = okm_task_init();
	if (ret)
		return ret;
	ret = okm_lower_init();
	if (ret)
		goto err_probes;
	ret = okm_block_init();
	if (ret)
		goto err_probes;
	ret = okm_pmc_init();
	if (ret)
		goto err_probes;
	ret = okm_irq_init();
	if (ret)
		goto err_probes;
	ret = okm_proc_init();
	if (ret)
		goto err_probes;
	ret = okm_dev_init();
	if (ret)
		goto err_proc;
	pr_info("loaded\n");
	return 0;

err_proc:
	okm_proc_exit();
err_probes:
	okm_stop_probes();
	okm_free_all();
	return ret;
}

static void __exit okm_exit(void)
{
	okm_dev_exit();
	okm_proc_exit();
	okm_stop_probes();
	okm_free_all();
	pr_info("unloaded\n");
}

module_init(okm_init);
module_exit(okm_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("osprof");
MODULE_DESCRIPTION("osprof: virtual timers, lower-layer, block and IRQ latency profiles");
MODULE_VERSION("0.1.0");
