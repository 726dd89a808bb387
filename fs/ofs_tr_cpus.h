/* SPDX-License-Identifier: MIT */
/*
 * Which CPUs the rings serve (ofs_tr_cpus.c): the kernel keeps one FUSE
 * queue per possible CPU and queues a request on its caller's CPU, so
 * only the online CPUs' queues ever receive one; an offline CPU's queue
 * still needs an entry registered, or the ring is never ready.
 */
#ifndef OSPROF_FS_OFS_TR_CPUS_H
#define OSPROF_FS_OFS_TR_CPUS_H

#include <stdbool.h>

/*
 * ofs_tr_cpus_parse - read CPU list @list as the kernel writes it in
 * /sys/devices/system/cpu/ ("0-3,8-11", a newline at the end or not):
 * @in[c] set true for each CPU c in it below @n (when @in is not NULL).
 * Returns how many CPUs it names (those at @n or above too), or -EINVAL
 * when it is not such a list.
 */
int ofs_tr_cpus_parse(const char *list, bool *in, unsigned n);

/*
 * ofs_tr_cpus_online - @online[c] for each of the @n possible CPUs:
 * whether it is online now. All true when the kernel's list cannot be
 * read (every queue is then served as an online one). Returns how many
 * are online.
 */
unsigned ofs_tr_cpus_online(bool *online, unsigned n);

/*
 * ofs_tr_cpus_possible - how many CPUs are possible: the kernel's number
 * of FUSE queues (num_possible_cpus). @fallback when the list cannot be
 * read.
 */
unsigned ofs_tr_cpus_possible(unsigned fallback);

#endif /* OSPROF_FS_OFS_TR_CPUS_H */
