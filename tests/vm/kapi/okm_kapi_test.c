// SPDX-License-Identifier: GPL-2.0
/*
 * okm_kapi_test.ko: exercises osprof.ko's exported virtual timer API
 * (kmod/okm_vt.h) from another module, inside the test VM. Its init runs
 * the checks and logs "PASS <name>" or "FAIL <name>: <why>" lines, then
 * "done"; tests/vm/guest/init.sh turns those log lines into results.
 *
 * It leaves one global timer running on purpose ("kapi.leftover"), so
 * that osprof.ko is later unloaded with a kernel-API timer alive.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>

#include "okm_vt.h"

static int okm_kapi_failures;

#define CHECK(name, cond, fmt, ...)                                        \
	do {                                                               \
		if (cond) {                                                \
			pr_info("PASS %s\n", name);                        \
		} else {                                                   \
			pr_info("FAIL %s: " fmt "\n", name, ##__VA_ARGS__); \
			okm_kapi_failures++;                               \
		}                                                          \
	} while (0)

static void okm_kapi_physical(void)
{
	struct okm_vt_value v;
	int id, r1, r2, r3;

	id = okm_vt_alloc("kapi.global", OKM_VT_PHYSICAL, OKM_VT_GLOBAL);
	if (id < 0) {
		CHECK("kapi_physical_timer", false, "alloc %d", id);
		return;
	}
	r1 = okm_vt_start(id);
	msleep(20);
	r2 = okm_vt_stop(id);
	r3 = okm_vt_read(id, &v);
	CHECK("kapi_physical_timer",
	      !r1 && !r2 && !r3 && v.ns >= 20000000 && v.intervals == 1 &&
	      !v.running,
	      "start %d stop %d read %d ns %llu intervals %llu", r1, r2, r3,
	      v.ns, v.intervals);
	CHECK("kapi_clear", !okm_vt_clear(id) && !okm_vt_read(id, &v) &&
	      v.ns == 0 && v.intervals == 0, "ns %llu after clear", v.ns);
	CHECK("kapi_dealloc", !okm_vt_dealloc(id) &&
	      okm_vt_dealloc(id) == -ENOENT && okm_vt_start(id) == -ENOENT,
	      "%s", "dealloc twice or use after dealloc did not fail");
}

static void okm_kapi_virtual(void)
{
	struct okm_vt_value v;
	int id, r1, r2, r3;

	id = okm_vt_alloc("kapi.virtual", OKM_VT_VIRTUAL, OKM_VT_PRIVATE);
	if (id < 0) {
		CHECK("kapi_virtual_timer_excludes_sleep", false, "alloc %d", id);
		return;
	}
	r1 = okm_vt_start(id);
	msleep(50);
	r2 = okm_vt_stop(id);
	r3 = okm_vt_read(id, &v);
	pr_info("INFO virtual %llu ns, switched out %llu ns, irq %llu ns\n",
		v.ns, v.excl_sched_ns, v.excl_irq_ns);
	CHECK("kapi_virtual_timer_excludes_sleep",
	      !r1 && !r2 && !r3 && v.ns < 10000000 &&
	      v.excl_sched_ns >= 40000000,
	      "start %d stop %d read %d virtual %llu ns switched out %llu ns",
	      r1, r2, r3, v.ns, v.excl_sched_ns);
	okm_vt_dealloc(id);
}

static void okm_kapi_errors(void)
{
	struct okm_vt_value v;
	int id;

	CHECK("kapi_errors_alloc",
	      okm_vt_alloc("x", OKM_VT_VIRTUAL, OKM_VT_GLOBAL) == -EINVAL &&
	      okm_vt_alloc("bad name", OKM_VT_PHYSICAL, OKM_VT_GLOBAL) == -EINVAL &&
	      okm_vt_alloc("x", 5, OKM_VT_GLOBAL) == -EINVAL &&
	      okm_vt_alloc("", OKM_VT_PHYSICAL, OKM_VT_GLOBAL) == -EINVAL,
	      "%s", "a bad allocation was accepted");
	CHECK("kapi_errors_ids",
	      okm_vt_start(0) == -ENOENT && okm_vt_start(-3) == -ENOENT &&
	      okm_vt_stop(1 << 30) == -ENOENT && okm_vt_read(7, NULL) == -EINVAL,
	      "%s", "a bad id was accepted");
	id = okm_vt_alloc("kapi.state", OKM_VT_PHYSICAL, OKM_VT_PRIVATE);
	CHECK("kapi_errors_state",
	      id > 0 && okm_vt_stop(id) == -EINVAL && !okm_vt_start(id) &&
	      okm_vt_start(id) == -EBUSY && !okm_vt_read(id, &v) && v.live &&
	      !okm_vt_stop(id),
	      "id %d", id);
	okm_vt_dealloc(id);
}

struct okm_kapi_thread {
	int id;
	struct completion started;
};

static int okm_kapi_thread_fn(void *arg)
{
	struct okm_kapi_thread *t = arg;

	t->id = okm_vt_alloc("kapi.kthread", OKM_VT_VIRTUAL, OKM_VT_PRIVATE);
	if (t->id > 0)
		okm_vt_start(t->id);
	complete(&t->started);
	return 0; /* exits with its timer running */
}

/* A private timer is released when its task exits. */
static void okm_kapi_task_exit(void)
{
	struct okm_kapi_thread t = { .id = 0 };
	struct okm_vt_value v;
	struct task_struct *k;
	int i, r = 0;

	init_completion(&t.started);
	k = kthread_run(okm_kapi_thread_fn, &t, "okm_kapi_test");
	if (IS_ERR(k)) {
		CHECK("kapi_private_timer_released_at_exit", false, "kthread %ld",
		      PTR_ERR(k));
		return;
	}
	wait_for_completion(&t.started);
	/* the thread's exit probe runs a little after it returns */
	for (i = 0; i < 200; i++) {
		r = okm_vt_read(t.id, &v);
		if (r == -ENOENT)
			break;
		usleep_range(10000, 20000);
	}
	CHECK("kapi_private_timer_released_at_exit", t.id > 0 && r == -ENOENT,
	      "id %d read %d", t.id, r);
}

static int __init okm_kapi_init(void)
{
	int id;

	okm_kapi_physical();
	okm_kapi_virtual();
	okm_kapi_errors();
	okm_kapi_task_exit();
	id = okm_vt_alloc("kapi.leftover", OKM_VT_PHYSICAL, OKM_VT_GLOBAL);
	CHECK("kapi_leftover_started", id > 0 && !okm_vt_start(id), "id %d", id);
	pr_info("done, %d failures\n", okm_kapi_failures);
	return 0;
}

static void __exit okm_kapi_exit(void)
{
}

module_init(okm_kapi_init);
module_exit(okm_kapi_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("osprof.ko virtual timer API test (VM test only)");
