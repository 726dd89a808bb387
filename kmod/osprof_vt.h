/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * /dev/osprof_vt: virtual timers for user space, the ioctl interface of
 * osprof.ko. Include it from C user space (osprof-fs, tests) or from the
 * module; it needs only the uapi headers <linux/ioctl.h>, <linux/types.h>.
 *
 * A timer belongs to the file descriptor that allocated it: only ioctls on
 * that descriptor see it, and closing the descriptor (its last reference)
 * deallocates it. A private timer belongs also to the thread that
 * allocated it: only that thread may start or stop it, and the timer is
 * released when the thread exits (later ioctls on its id fail with
 * ENOENT). Virtual timers must be private.
 *
 * Typical use, one private virtual timer per thread:
 *
 *	int fd = open("/dev/osprof_vt", O_RDWR | O_CLOEXEC);
 *	struct okm_vt_alloc a = { .name = "req", .kind = OKM_VT_VIRTUAL,
 *				  .scope = OKM_VT_PRIVATE };
 *	ioctl(fd, OKM_VT_IOC_ALLOC, &a);          // a.id set
 *	ioctl(fd, OKM_VT_IOC_START, a.id);         // id passed by value
 *	... work ...
 *	struct okm_vt_value v = { .id = a.id };
 *	ioctl(fd, OKM_VT_IOC_STOP, &v);            // v.last_ns: this interval
 *
 * Errors (errno): EINVAL bad kind, scope, name or reserved field, stop of
 * a stopped timer; EBUSY start of a running timer; ENOENT no such timer
 * on this descriptor (or released); EPERM start/stop of a private timer
 * from another thread; ENOSPC too many timers; EFAULT bad pointer; ENOTTY
 * unknown request.
 */
#ifndef OSPROF_VT_H
#define OSPROF_VT_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define OKM_VT_DEVICE "/dev/osprof_vt"

/* Timer names: 1..31 characters of [A-Za-z0-9_.:-], NUL-terminated. */
#define OKM_VT_NAME_LEN 32

/* kind */
#define OKM_VT_PHYSICAL 0u /* all time between start and stop */
#define OKM_VT_VIRTUAL  1u /* minus time switched out and in interrupts */
/* scope */
#define OKM_VT_GLOBAL   0u /* any thread of the descriptor may start/stop */
#define OKM_VT_PRIVATE  1u /* only the allocating thread; dies with it */

struct okm_vt_alloc {
	char name[OKM_VT_NAME_LEN]; /* in */
	__u32 kind;                 /* in: OKM_VT_PHYSICAL or OKM_VT_VIRTUAL */
	__u32 scope;                /* in: OKM_VT_GLOBAL or OKM_VT_PRIVATE */
	__u64 id;                   /* out: the timer's id, >= 1 */
	__u64 reserved[2];          /* must be zero */
};

struct okm_vt_value {
	__u64 id;            /* in: the timer */
	__u64 ns;            /* out: total of the intervals, ns */
	__u64 cycles;        /* out: the same in CPU cycles */
	__u64 intervals;     /* out: finished start..stop intervals */
	__u64 last_ns;       /* out: the last finished interval, ns */
	__u64 excl_sched_ns; /* out: virtual only: time switched out */
	__u64 excl_irq_ns;   /* out: virtual only: time in interrupts */
	__u32 running;       /* out: 1 while started */
	__u32 live;          /* out: 1 if ns includes the running interval */
	__u64 reserved[2];   /* out: zero */
};

#define OKM_VT_IOC_MAGIC 0xB8

/* Allocate a timer; fills id. */
#define OKM_VT_IOC_ALLOC   _IOWR(OKM_VT_IOC_MAGIC, 0x40, struct okm_vt_alloc)
/* Start timer id (the ioctl argument is the id itself). */
#define OKM_VT_IOC_START   _IO(OKM_VT_IOC_MAGIC, 0x41)
/* Stop value.id; fills the totals, last_ns is the interval just ended. */
#define OKM_VT_IOC_STOP    _IOWR(OKM_VT_IOC_MAGIC, 0x42, struct okm_vt_value)
/*
 * Read value.id. A running interval is included (live = 1) for physical
 * timers and, for private ones, when read by the owner thread.
 */
#define OKM_VT_IOC_READ    _IOWR(OKM_VT_IOC_MAGIC, 0x43, struct okm_vt_value)
/* Zero timer id's totals (a running timer restarts its interval now). */
#define OKM_VT_IOC_CLEAR   _IO(OKM_VT_IOC_MAGIC, 0x44)
/* Deallocate timer id. */
#define OKM_VT_IOC_DEALLOC _IO(OKM_VT_IOC_MAGIC, 0x45)

#endif /* OSPROF_VT_H */
