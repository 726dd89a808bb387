/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel virtual timer API of osprof.ko, exported (GPL) to other
 * modules: the Virtual Timers paper's alloc, dealloc, start, stop, clear
 * and read. Kinds and scopes, the value structure and the errors are those
 * of the user-space interface, osprof_vt.h.
 *
 * Timers are named by id so that a stale id fails cleanly (-ENOENT)
 * instead of touching freed memory: a private timer dies with the task
 * that allocated it, whatever its user still holds. Timers allocated here
 * are seen only through this API (not through /dev/osprof_vt).
 *
 * Context: okm_vt_alloc may sleep; the others take a spinlock with
 * interrupts off and may be called from any task context. A private
 * timer may be started and stopped only by the task that allocated it
 * (-EPERM otherwise).
 */
#ifndef OKM_VT_H
#define OKM_VT_H

#include "osprof_vt.h"

/* Allocate; returns the id (>= 1) or -EINVAL, -ENOMEM, -ENOSPC. */
int okm_vt_alloc(const char *name, unsigned int kind, unsigned int scope);
/* 0 or -ENOENT. */
int okm_vt_dealloc(int id);
/* 0, -ENOENT, -EPERM, -EBUSY (running). */
int okm_vt_start(int id);
/* 0, -ENOENT, -EPERM, -EINVAL (not running). */
int okm_vt_stop(int id);
/* 0 or -ENOENT; a running timer restarts its interval. */
int okm_vt_clear(int id);
/* Fill @v (see OKM_VT_IOC_READ); 0 or -ENOENT. */
int okm_vt_read(int id, struct okm_vt_value *v);

#endif /* OKM_VT_H */
