// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/osprof/ctl: the module's settings. Reading gives them, one
 * "key value" a line. Writing takes commands, one a line:
 *
 *   pid <tgid>                 profile this process's VFS calls (lower)
 *   unpid <tgid>               stop profiling it
 *   reset [lower|block|irq|all]    zero the profiles (default all)
 *   enable|disable <lower|block|irq|all>   switch recording
 *   irq_events <e1,e2,...>|none    performance counters read around
 *                                  interrupt handlers (resets irq)
 *
 * A write is all or nothing: every line is parsed and checked, and what
 * can fail (pid table full, counters to create) is prepared, before
 * anything changes. Malformed input (unknown command or layer, wrong
 * number of words, a number that is not one, an unknown event, an empty
 * or over-long write, NUL bytes) fails with -EINVAL; other failures:
 * -ESRCH no such process, -ENOENT unpid of a process not registered,
 * -ENOSPC too many processes, -ENOMEM.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "okm.h"

const char *const okm_layer_names[OKM_LAYER__COUNT] = {
	[OKM_LAYER_LOWER] = "lower",
	[OKM_LAYER_BLOCK] = "block",
	[OKM_LAYER_IRQ] = "irq",
};

bool okm_layer_on[OKM_LAYER__COUNT] = { true, true, true };
unsigned int okm_layer_epoch[OKM_LAYER__COUNT] = { 1, 1, 1 };
DEFINE_MUTEX(okm_ctl_mutex);

#define OKM_CTL_MAX_BYTES 4096
#define OKM_CTL_MAX_CMDS  64
#define OKM_CTL_ALL_LAYERS ((1u << OKM_LAYER__COUNT) - 1)

enum okm_ctl_op {
	OKM_CTL_PID,
	OKM_CTL_UNPID,
	OKM_CTL_RESET,
	OKM_CTL_ENABLE,
	OKM_CTL_DISABLE,
	OKM_CTL_IRQ_EVENTS,
	OKM_CTL__COUNT
};

static const char *const okm_ctl_names[] = {
	[OKM_CTL_PID] = "pid",
	[OKM_CTL_UNPID] = "unpid",
	[OKM_CTL_RESET] = "reset",
	[OKM_CTL_ENABLE] = "enable",
	[OKM_CTL_DISABLE] = "disable",
	[OKM_CTL_IRQ_EVENTS] = "irq_events",
};
static_assert(ARRAY_SIZE(okm_ctl_names) == OKM_CTL__COUNT);

struct okm_ctl_cmd {
	enum okm_ctl_op op;
	int num;                /* pid, unpid: the number written */
	unsigned int layers;    /* reset, enable, disable: bit per layer */
	int nids;               /* irq_events */
	u8 ids[OKM_PMC_MAX];
};

int okm_ctl_show(struct seq_file *m, void *v)
{
	pid_t pids[OKM_MAX_PIDS];
	unsigned int i, n;
	char rate[32];

	mutex_lock(&okm_ctl_mutex);
	okm_clock_rate_str(rate, sizeof(rate));
	seq_printf(m, "version 1\nclock %s\ncycles_per_ns %s\n",
		   okm_clock_name(), rate);
	for (i = 0; i < OKM_LAYER__COUNT; i++)
		seq_printf(m, "%s %s\n", okm_layer_names[i],
			   okm_on(i) ? "enabled" : "disabled");
	n = okm_lower_pids(pids);
	seq_puts(m, "pids");
	for (i = 0; i < n; i++)
		seq_printf(m, "%c%d", i ? ',' : ' ', pids[i]);
	seq_puts(m, n ? "\n" : " none\n");
	okm_pmc_ctl_show(m);
	okm_lower_ctl_show(m);
	okm_block_ctl_show(m);
	okm_irq_ctl_show(m);
	seq_printf(m, "timers %u\ntasks %u\n", okm_vt_count(), okm_task_count());
	mutex_unlock(&okm_ctl_mutex);
	return 0;
}

/* A positive decimal pid: digits only, at most 9 of them. */
static int okm_ctl_parse_pid(const char *s, int *out)
{
	size_t i, len = strlen(s);

	if (len == 0 || len > 9)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (!isdigit(s[i]))
			return -EINVAL;
	}
	if (kstrtoint(s, 10, out) || *out <= 0)
		return -EINVAL;
	return 0;
}

static int okm_ctl_parse_layers(const char *s, unsigned int *layers)
{
	unsigned int i;

	if (!strcmp(s, "all")) {
		*layers = OKM_CTL_ALL_LAYERS;
		return 0;
	}
	for (i = 0; i < OKM_LAYER__COUNT; i++) {
		if (!strcmp(s, okm_layer_names[i])) {
			*layers = 1u << i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Parse one line (NUL-terminated, no newline). 1 command, 0 blank, -EINVAL. */
static int okm_ctl_parse_line(char *line, struct okm_ctl_cmd *c)
{
	char *tok[3], *s;
	int ntok = 0, op, ret;

	while ((s = strsep(&line, " \t\r")) != NULL) {
		if (!*s)
			continue;
		if (ntok == ARRAY_SIZE(tok))
			return -EINVAL;
		tok[ntok++] = s;
	}
	if (!ntok)
		return 0;
	op = match_string(okm_ctl_names, OKM_CTL__COUNT, tok[0]);
	if (op < 0)
		return -EINVAL;
	/* One argument each; reset's is optional. */
	if (ntok != 2 && !(op == OKM_CTL_RESET && ntok == 1))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->op = op;
	switch (c->op) {
	case OKM_CTL_PID:
	case OKM_CTL_UNPID:
		ret = okm_ctl_parse_pid(tok[1], &c->num);
		break;
	case OKM_CTL_RESET:
		c->layers = OKM_CTL_ALL_LAYERS;
		ret = ntok == 2 ? okm_ctl_parse_layers(tok[1], &c->layers) : 0;
		break;
	case OKM_CTL_ENABLE:
	case OKM_CTL_DISABLE:
		ret = okm_ctl_parse_layers(tok[1], &c->layers);
		break;
	case OKM_CTL_IRQ_EVENTS:
		c->nids = okm_pmc_parse(tok[1], c->ids);
		ret = c->nids < 0 ? -EINVAL : 0;
		break;
	default:
		ret = -EINVAL;
	}
	return ret ? -EINVAL : 1;
}

/* The global tgid of the process @nr names in the writer's namespace. */
static int okm_ctl_tgid(int nr, pid_t *tgid)
{
	struct task_struct *t;
	int ret = -ESRCH;

	rcu_read_lock();
	t = pid_task(find_vpid(nr), PIDTYPE_PID);
	if (t) {
		*tgid = task_tgid_nr(t);
		ret = 0;
	}
	rcu_read_unlock();
	return ret;
}

static int okm_pid_index(const pid_t *pids, unsigned int n, pid_t tgid)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (pids[i] == tgid)
			return i;
	}
	return -1;
}

struct okm_ctl_batch {
	const struct okm_ctl_cmd *cmds;
	unsigned int n;
};

/*
 * Apply the batch's pid and unpid commands to @pids (a copy of the set),
 * under the pid set's spinlock: nothing here sleeps.
 */
static int okm_ctl_plan_pids(pid_t *pids, unsigned int *npids, void *arg)
{
	const struct okm_ctl_batch *b = arg;
	const struct okm_ctl_cmd *cmds = b->cmds;
	unsigned int i, n = b->n;
	pid_t tgid;
	int k, ret;

	for (i = 0; i < n; i++) {
		if (cmds[i].op == OKM_CTL_PID) {
			ret = okm_ctl_tgid(cmds[i].num, &tgid);
			if (ret)
				return ret;
			if (okm_pid_index(pids, *npids, tgid) >= 0)
				continue;
			if (*npids == OKM_MAX_PIDS)
				return -ENOSPC;
			pids[(*npids)++] = tgid;
		} else if (cmds[i].op == OKM_CTL_UNPID) {
			/* A process gone: its number as the module saw it. */
			if (okm_ctl_tgid(cmds[i].num, &tgid))
				tgid = cmds[i].num;
			k = okm_pid_index(pids, *npids, tgid);
			if (k < 0)
				return -ENOENT;
			pids[k] = pids[--(*npids)];
		}
	}
	return 0;
}

static void okm_ctl_apply(const struct okm_ctl_cmd *c)
{
	unsigned int l;

	for (l = 0; l < OKM_LAYER__COUNT; l++) {
		if (!(c->layers & (1u << l)))
			continue;
		switch (c->op) {
		case OKM_CTL_RESET:
			WRITE_ONCE(okm_layer_epoch[l], okm_layer_epoch[l] + 1);
			break;
		case OKM_CTL_ENABLE:
			WRITE_ONCE(okm_layer_on[l], true);
			break;
		case OKM_CTL_DISABLE:
			WRITE_ONCE(okm_layer_on[l], false);
			break;
		default:
			break;
		}
	}
}

ssize_t okm_ctl_write(const char __user *ubuf, size_t len)
{
	struct okm_pmc_set *pmc = NULL;
	struct okm_ctl_cmd *cmds = NULL;
	struct okm_ctl_batch batch;
	unsigned int i, ncmds = 0;
	int last_events = -1;
	char *buf, *p, *line;
	ssize_t ret;

	if (len == 0 || len > OKM_CTL_MAX_BYTES)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = -EINVAL;
	if (strlen(buf) != len)
		goto out_buf; /* NUL bytes */
	cmds = kcalloc(OKM_CTL_MAX_CMDS, sizeof(*cmds), GFP_KERNEL);
	if (!cmds) {
		ret = -ENOMEM;
		goto out_buf;
	}
	p = buf;
	while ((line = strsep(&p, "\n")) != NULL) {
		struct okm_ctl_cmd c;
		int r = okm_ctl_parse_line(line, &c);

		if (r < 0)
			goto out_cmds;
		if (r == 0)
			continue;
		if (ncmds == OKM_CTL_MAX_CMDS)
			goto out_cmds;
		if (c.op == OKM_CTL_IRQ_EVENTS)
			last_events = ncmds;
		cmds[ncmds++] = c;
	}
	if (!ncmds)
		goto out_cmds;

	mutex_lock(&okm_ctl_mutex);
	if (last_events >= 0) {
		pmc = okm_pmc_set_create(cmds[last_events].ids,
					 cmds[last_events].nids);
		if (!pmc) {
			ret = -ENOMEM;
			goto out_unlock;
		}
	}
	batch.cmds = cmds;
	batch.n = ncmds;
	ret = okm_lower_pids_update(okm_ctl_plan_pids, &batch);
	if (ret) {
		okm_pmc_set_destroy(pmc);
		goto out_unlock;
	}
	/* Nothing can fail from here on. */
	for (i = 0; i < ncmds; i++)
		okm_ctl_apply(&cmds[i]);
	if (pmc) {
		okm_pmc_install(pmc);
		/* the sums meant other events: start the irq profile anew */
		WRITE_ONCE(okm_layer_epoch[OKM_LAYER_IRQ],
			   okm_layer_epoch[OKM_LAYER_IRQ] + 1);
	}
	ret = len;
out_unlock:
	mutex_unlock(&okm_ctl_mutex);
out_cmds:
	kfree(cmds);
out_buf:
	kfree(buf);
	return ret;
}
