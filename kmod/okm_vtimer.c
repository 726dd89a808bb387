// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual timers (Xinidis et al.): named accumulators of time between
 * start and stop. Physical timers count all of it; virtual timers run on
 * their task's virtual clock (okm_task.c), which excludes the time the
 * task was switched out or in interrupt handlers. A timer is global (any
 * user of its owner may start and stop it) or private (only the task that
 * allocated it, and it dies with that task); virtual timers are private.
 *
 * Every timer is in one xarray, by id: lookups take no lock (RCU), timers
 * are freed after a grace period, and a stale id fails with -ENOENT. A
 * timer's accounting is guarded by its own spinlock (interrupts off, so a
 * virtual clock read is consistent with the irq probes of this CPU);
 * membership of the owner and task lists by okm_vt_lock. Lock order:
 * okm_vt_lock, then a timer's lock or the xarray's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "okm.h"
#include "okm_vt.h"

#define OKM_VT_MAX           65536u /* timers in all */
#define OKM_VT_MAX_PER_OWNER 4096u  /* timers of one descriptor */

struct okm_vt {
	u32 id;                       /* index in okm_vts */
	char name[OKM_VT_NAME_LEN];
	u8 kind;                      /* OKM_VT_PHYSICAL / OKM_VT_VIRTUAL */
	u8 scope;                     /* OKM_VT_GLOBAL / OKM_VT_PRIVATE */
	pid_t owner_pid;              /* allocating thread, for display */
	const struct task_struct *owner_task; /* compared, never dereferenced */
	struct okm_task *task;        /* private: the owner's context */
	struct okm_vt_owner *owner;   /* descriptor or kernel API */
	struct list_head owner_node;  /* on owner->timers, okm_vt_lock */
	struct list_head task_node;   /* on task->timers, okm_vt_lock */
	raw_spinlock_t lock;          /* guards dead and acct */
	bool dead;                    /* unlinked; waiting for RCU */
	struct okm_tacct acct;
	struct rcu_head rcu;
};

static DEFINE_XARRAY_ALLOC1(okm_vts);
static DEFINE_SPINLOCK(okm_vt_lock);
static unsigned int okm_nvts;          /* okm_vt_lock */
static struct okm_vt_owner okm_vt_kapi = {
	.timers = LIST_HEAD_INIT(okm_vt_kapi.timers),
};

static const char *const okm_vt_kind_names[] = { "physical", "virtual" };
static const char *const okm_vt_scope_names[] = { "global", "private" };

void okm_vt_owner_init(struct okm_vt_owner *o)
{
	INIT_LIST_HEAD(&o->timers);
	o->ntimers = 0;
}

static bool okm_vt_name_ok(const char *name)
{
	size_t i, len;

	if (!name)
		return false;
	len = strnlen(name, OKM_VT_NAME_LEN);

	if (len == 0 || len == OKM_VT_NAME_LEN)
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == ':' || c == '-'))
			return false;
	}
	return true;
}

int okm_vt_do_alloc(struct okm_vt_owner *o, const char *name, u32 kind,
		    u32 scope)
{
	struct okm_task *task = NULL;
	struct okm_vt *t;
	int ret;

	if (kind > OKM_VT_VIRTUAL || scope > OKM_VT_PRIVATE ||
	    (kind == OKM_VT_VIRTUAL && scope != OKM_VT_PRIVATE) ||
	    !okm_vt_name_ok(name))
		return -EINVAL;
	if (scope == OKM_VT_PRIVATE) {
		task = okm_task_current_get(GFP_KERNEL);
		if (!task)
			return -ENOMEM;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	strscpy(t->name, name, sizeof(t->name));
	t->kind = kind;
	t->scope = scope;
	t->owner_pid = task_pid_nr(current);
	t->owner_task = current;
	t->task = task;
	t->owner = o;
	raw_spin_lock_init(&t->lock);
	okm_tacct_clear(&t->acct);
	INIT_LIST_HEAD(&t->task_node);

	/*
	 * Join the lists before the id is published: nothing can remove the
	 * timer meanwhile (its owner is busy here; a private timer's task is
	 * current and alive).
	 */
	spin_lock(&okm_vt_lock);
	if (okm_nvts >= OKM_VT_MAX || o->ntimers >= OKM_VT_MAX_PER_OWNER) {
		spin_unlock(&okm_vt_lock);
		kfree(t);
		return -ENOSPC;
	}
	okm_nvts++;
	o->ntimers++;
	list_add_tail(&t->owner_node, &o->timers);
	if (task)
		list_add_tail(&t->task_node, &task->timers);
	spin_unlock(&okm_vt_lock);

	ret = xa_alloc(&okm_vts, &t->id, t, XA_LIMIT(1, INT_MAX), GFP_KERNEL);
	if (ret) {
		spin_lock(&okm_vt_lock);
		list_del(&t->owner_node);
		list_del(&t->task_node);
		o->ntimers--;
		okm_nvts--;
		spin_unlock(&okm_vt_lock);
		kfree(t);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	return t->id;
}

/* okm_vt_lock held: take @t out of everything; free it after RCU. */
static void okm_vt_unlink(struct okm_vt *t)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&t->lock, flags);
	t->dead = true;
	raw_spin_unlock_irqrestore(&t->lock, flags);
	xa_erase(&okm_vts, t->id);
	list_del(&t->owner_node);
	t->owner->ntimers--;
	list_del_init(&t->task_node);
	okm_nvts--;
	kfree_rcu(t, rcu);
}

/*
 * Under rcu_read_lock() or okm_vt_lock: the timer @id of @o, not yet
 * known to be alive (under the lock: alive).
 */
static struct okm_vt *okm_vt_find(struct okm_vt_owner *o, u64 id)
{
	struct okm_vt *t;

	if (id == 0 || id > INT_MAX)
		return NULL;
	t = xa_load(&okm_vts, id);
	if (!t || t->owner != o)
		return NULL;
	return t;
}

int okm_vt_do_dealloc(struct okm_vt_owner *o, u64 id)
{
	struct okm_vt *t;

	spin_lock(&okm_vt_lock);
	t = okm_vt_find(o, id);
	if (t)
		okm_vt_unlink(t);
	spin_unlock(&okm_vt_lock);
	return t ? 0 : -ENOENT;
}

void okm_vt_owner_release(struct okm_vt_owner *o)
{
	struct okm_vt *t, *n;

	spin_lock(&okm_vt_lock);
	list_for_each_entry_safe(t, n, &o->timers, owner_node)
		okm_vt_unlink(t);
	spin_unlock(&okm_vt_lock);
}

void okm_vt_task_exit(struct okm_task *task)
{
	struct okm_vt *t, *n;

	spin_lock(&okm_vt_lock);
	list_for_each_entry_safe(t, n, &task->timers, task_node)
		okm_vt_unlink(t);
	spin_unlock(&okm_vt_lock);
}

/*
 * The clock @t runs on, at @now, with its exclusion totals. t->lock held
 * (interrupts off); a virtual timer only from its owner task, whose
 * context is therefore alive and on this CPU.
 */
static u64 okm_vt_clock(struct okm_vt *t, u64 now, u64 *excl)
{
	unsigned int i;

	if (t->kind == OKM_VT_VIRTUAL)
		return okm_task_vnow(t->task, now, excl);
	for (i = 0; i < OKM_EXCL__COUNT; i++)
		excl[i] = 0;
	return now;
}

/* t->lock held. */
static void okm_vt_fill(struct okm_vt *t, bool live, u64 clk, const u64 *excl,
			struct okm_vt_value *v)
{
	u64 total, ex[OKM_EXCL__COUNT];
	u64 id = v->id;

	okm_tacct_read(&t->acct, live, clk, excl, &total, ex);
	memset(v, 0, sizeof(*v));
	v->id = id;
	v->ns = okm_clock_ns(total);
	v->cycles = okm_clock_cycles(total);
	v->intervals = t->acct.intervals;
	v->last_ns = okm_clock_ns(t->acct.last_cyc);
	v->excl_sched_ns = okm_clock_ns(ex[OKM_EXCL_SCHED]);
	v->excl_irq_ns = okm_clock_ns(ex[OKM_EXCL_IRQ]);
	v->running = t->acct.running;
	v->live = live && t->acct.running;
}

enum okm_vt_op { OKM_VT_OP_START, OKM_VT_OP_STOP, OKM_VT_OP_READ,
		 OKM_VT_OP_CLEAR };

static int okm_vt_op(struct okm_vt_owner *o, u64 id, enum okm_vt_op op,
		     struct okm_vt_value *v)
{
	u64 excl[OKM_EXCL__COUNT], clk = 0;
	struct okm_tacct keep;
	unsigned long flags;
	struct okm_vt *t;
	bool mine, live;
	int ret = 0;

	rcu_read_lock();
	t = okm_vt_find(o, id);
	if (!t) {
		ret = -ENOENT;
		goto out;
	}
	mine = t->owner_task == current;
	if (t->scope == OKM_VT_PRIVATE && !mine &&
	    (op == OKM_VT_OP_START || op == OKM_VT_OP_STOP)) {
		ret = -EPERM;
		goto out;
	}
	/* Only the owner can read a virtual clock (its task's, on its CPU). */
	live = t->kind == OKM_VT_PHYSICAL || mine;

	raw_spin_lock_irqsave(&t->lock, flags);
	if (t->dead) {
		ret = -ENOENT;
		goto unlock;
	}
	if (live)
		clk = okm_vt_clock(t, okm_now(), excl);
	switch (op) {
	case OKM_VT_OP_START:
		if (!okm_tacct_start(&t->acct, clk, excl))
			ret = -EBUSY;
		break;
	case OKM_VT_OP_STOP:
		if (!okm_tacct_stop(&t->acct, clk, excl))
			ret = -EINVAL;
		else if (v)
			okm_vt_fill(t, false, clk, excl, v);
		break;
	case OKM_VT_OP_READ:
		okm_vt_fill(t, live, clk, excl, v);
		break;
	case OKM_VT_OP_CLEAR:
		keep = t->acct;
		okm_tacct_clear(&t->acct);
		/*
		 * A running interval restarts now; on someone else's
		 * virtual clock, which we cannot read, it keeps its start.
		 */
		if (keep.running)
			okm_tacct_start(&t->acct, live ? clk : keep.start_cyc,
					live ? excl : keep.excl_start);
		break;
	}
unlock:
	raw_spin_unlock_irqrestore(&t->lock, flags);
out:
	rcu_read_unlock();
	return ret;
}

int okm_vt_do_start(struct okm_vt_owner *o, u64 id)
{
	return okm_vt_op(o, id, OKM_VT_OP_START, NULL);
}

int okm_vt_do_stop(struct okm_vt_owner *o, u64 id, struct okm_vt_value *v)
{
	return okm_vt_op(o, id, OKM_VT_OP_STOP, v);
}

int okm_vt_do_read(struct okm_vt_owner *o, u64 id, struct okm_vt_value *v)
{
	return okm_vt_op(o, id, OKM_VT_OP_READ, v);
}

int okm_vt_do_clear(struct okm_vt_owner *o, u64 id)
{
	return okm_vt_op(o, id, OKM_VT_OP_CLEAR, NULL);
}

unsigned int okm_vt_count(void)
{
	return READ_ONCE(okm_nvts);
}

int okm_vt_timers_show(struct seq_file *m, void *v)
{
	struct okm_vt_value val;
	unsigned long idx, flags;
	struct okm_vt *t;
	bool live;

	rcu_read_lock();
	xa_for_each(&okm_vts, idx, t) {
		u64 excl[OKM_EXCL__COUNT] = { 0 }, clk = 0;

		/* A reader is never the owner: virtual timers are not live. */
		live = t->kind == OKM_VT_PHYSICAL;
		val.id = t->id;
		raw_spin_lock_irqsave(&t->lock, flags);
		if (t->dead) {
			raw_spin_unlock_irqrestore(&t->lock, flags);
			continue;
		}
		if (live)
			clk = okm_now();
		okm_vt_fill(t, live, clk, excl, &val);
		raw_spin_unlock_irqrestore(&t->lock, flags);
		seq_printf(m, "id=%u name=%s kind=%s scope=%s owner=%d ns=%llu cycles=%llu intervals=%llu running=%u excl_sched_ns=%llu excl_irq_ns=%llu\n",
			   t->id, t->name, okm_vt_kind_names[t->kind],
			   okm_vt_scope_names[t->scope], t->owner_pid, val.ns,
			   val.cycles, val.intervals, val.running,
			   val.excl_sched_ns, val.excl_irq_ns);
	}
	rcu_read_unlock();
	return 0;
}

/* Unload: every interface and probe is gone, so nothing races us. */
void okm_vt_free(void)
{
	unsigned long idx;
	struct okm_vt *t;

	spin_lock(&okm_vt_lock);
	xa_for_each(&okm_vts, idx, t)
		okm_vt_unlink(t);
	spin_unlock(&okm_vt_lock);
	xa_destroy(&okm_vts);
}

/*
 * ---- the exported API ----
 * A negative id converts to a u64 above INT_MAX, which okm_vt_find()
 * refuses like id 0: -ENOENT.
 */

int okm_vt_alloc(const char *name, unsigned int kind, unsigned int scope)
{
	return okm_vt_do_alloc(&okm_vt_kapi, name, kind, scope);
}
EXPORT_SYMBOL_GPL(okm_vt_alloc);

int okm_vt_dealloc(int id)
{
	return okm_vt_do_dealloc(&okm_vt_kapi, id);
}
EXPORT_SYMBOL_GPL(okm_vt_dealloc);

int okm_vt_start(int id)
{
	return okm_vt_do_start(&okm_vt_kapi, id);
}
EXPORT_SYMBOL_GPL(okm_vt_start);

int okm_vt_stop(int id)
{
	return okm_vt_do_stop(&okm_vt_kapi, id, NULL);
}
EXPORT_SYMBOL_GPL(okm_vt_stop);

int okm_vt_clear(int id)
{
	return okm_vt_do_clear(&okm_vt_kapi, id);
}
EXPORT_SYMBOL_GPL(okm_vt_clear);

int okm_vt_read(int id, struct okm_vt_value *v)
{
	if (!v)
		return -EINVAL;
	v->id = id;
	return okm_vt_do_read(&okm_vt_kapi, id, v);
}
EXPORT_SYMBOL_GPL(okm_vt_read);
