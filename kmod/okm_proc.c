// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/osprof/: timers, lower, block, irq (records, one a line, as
 * DESIGN.md and kmod/README.md describe), ctl (settings and commands) and
 * selftest (costs of the timer operations). Every file is a seq_file made
 * whole when first read, so a reader gets one snapshot however it reads.
 * proc_remove() at unload waits for readers in progress.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "okm.h"

static struct proc_dir_entry *okm_proc_dir;

static int okm_ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, okm_ctl_show, NULL);
}

static ssize_t okm_ctl_proc_write(struct file *file, const char __user *buf,
				  size_t len, loff_t *ppos)
{
	return okm_ctl_write(buf, len);
}

static const struct proc_ops okm_ctl_proc_ops = {
	.proc_open = okm_ctl_open,
	.proc_read = seq_read,
	.proc_lseek = seq_lseek,
	.proc_release = single_release,
	.proc_write = okm_ctl_proc_write,
};

struct okm_proc_file {
	const char *name;
	int (*show)(struct seq_file *m, void *v);
};

static const struct okm_proc_file okm_proc_files[] = {
	{ "timers", okm_vt_timers_show },
	{ "lower", okm_lower_show },
	{ "block", okm_block_show },
	{ "irq", okm_irq_show },
	{ "selftest", okm_selftest_show },
};

int okm_proc_init(void)
{
	unsigned int i;

	okm_proc_dir = proc_mkdir("osprof", NULL);
	if (!okm_proc_dir)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(okm_proc_files); i++) {
		if (!proc_create_single(okm_proc_files[i].name, 0444,
					okm_proc_dir, okm_proc_files[i].show))
			goto err_remove;
	}
	if (!proc_create("ctl", 0644, okm_proc_dir, &okm_ctl_proc_ops))
		goto err_remove;
	return 0;

err_remove:
	proc_remove(okm_proc_dir);
	okm_proc_dir = NULL;
	return -ENOMEM;
}

void okm_proc_exit(void)
{
	proc_remove(okm_proc_dir);
	okm_proc_dir = NULL;
}
