// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/osprof_vt: virtual timers for user space (osprof_vt.h). Each open
 * descriptor owns the timers allocated through it; closing it (the last
 * reference) deallocates them. The device is world-usable (0666) so that
 * an unprivileged osprof-fs can time its requests; a descriptor holds at
 * most 4096 timers and the module 65536, so it cannot exhaust memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "okm.h"

static int okm_dev_open(struct inode *inode, struct file *f)
{
	struct okm_vt_owner *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	okm_vt_owner_init(o);
	f->private_data = o;
	return nonseekable_open(inode, f);
}

static int okm_dev_release(struct inode *inode, struct file *f)
{
	struct okm_vt_owner *o = f->private_data;

	okm_vt_owner_release(o);
	kfree(o);
	return 0;
}

static long okm_dev_alloc(struct okm_vt_owner *o, void __user *uarg)
{
	struct okm_vt_alloc a;
	int id;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.reserved[0] || a.reserved[1])
		return -EINVAL;
	id = okm_vt_do_alloc(o, a.name, a.kind, a.scope);
	if (id < 0)
		return id;
	a.id = id;
	if (copy_to_user(uarg, &a, sizeof(a))) {
		okm_vt_do_dealloc(o, id);
		return -EFAULT;
	}
	return 0;
}

static long okm_dev_value(struct okm_vt_owner *o, unsigned int cmd,
			  struct okm_vt_value __user *uarg)
{
	struct okm_vt_value v;
	long ret;

	if (get_user(v.id, &uarg->id))
		return -EFAULT;
	if (cmd == OKM_VT_IOC_STOP)
		ret = okm_vt_do_stop(o, v.id, &v);
	else
		ret = okm_vt_do_read(o, v.id, &v);
	if (ret)
		return ret;
	if (copy_to_user(uarg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

static long okm_dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	struct okm_vt_owner *o = f->private_data;

	switch (cmd) {
	case OKM_VT_IOC_ALLOC:
		return okm_dev_alloc(o, (void __user *)arg);
	case OKM_VT_IOC_START:
		return okm_vt_do_start(o, arg);
	case OKM_VT_IOC_STOP:
	case OKM_VT_IOC_READ:
		return okm_dev_value(o, cmd, (struct okm_vt_value __user *)arg);
	case OKM_VT_IOC_CLEAR:
		return okm_vt_do_clear(o, arg);
	case OKM_VT_IOC_DEALLOC:
		return okm_vt_do_dealloc(o, arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations okm_dev_fops = {
	.owner = THIS_MODULE,
	.open = okm_dev_open,
	.release = okm_dev_release,
	.unlocked_ioctl = okm_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice okm_dev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "osprof_vt",
	.fops = &okm_dev_fops,
	.mode = 0666,
};

int okm_dev_init(void)
{
	return misc_register(&okm_dev_misc);
}

void okm_dev_exit(void)
{
	misc_deregister(&okm_dev_misc);
}
