/* SPDX-License-Identifier: MIT */
/*
 * okm-guest: the tests of osprof.ko that run inside the QEMU guest (see
 * tests/vm/run-vm-test.sh). Static, no dependency beyond libc. Each test
 * prints "PASS <name>" or "FAIL <name>: <why>" lines, plus "INFO" lines
 * with the figures it saw; the host counts the PASS and FAIL lines.
 */
#ifndef OKM_GUEST_H
#define OKM_GUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "osprof_vt.h"

#define G_PROC "/proc/osprof/"

/* ---- reporting ---- */
void g_pass(const char *name);
void g_fail(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void g_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Number of FAIL lines printed by this process. */
int g_failures(void);

/* ---- files ---- */
/* Whole file into a malloc'd NUL-terminated buffer; NULL (errno) on error. */
char *g_read_file(const char *path, size_t *len);
/* write(2) @s to @path in one call; 0 or -errno. */
int g_write_file(const char *path, const char *s);
/* Same, with a byte count (for NULs and oversize). */
int g_write_bytes(const char *path, const void *buf, size_t len);

/* ---- records: "key=value key=value" lines ---- */
/*
 * g_rec_find - the first line of @text whose key @key equals @val, copied
 * into @line (NUL-terminated, at most @len bytes); false if none.
 */
bool g_rec_find(const char *text, const char *key, const char *val,
		char *line, size_t len);
/* Value of @key in @line into @out; false if absent. */
bool g_rec_get(const char *line, const char *key, char *out, size_t len);
/* Numeric value of @key in @line; false if absent or not a number. */
bool g_rec_u64(const char *line, const char *key, uint64_t *v);
/*
 * g_check_layer_text - validate a /proc/osprof/{lower,block,irq} text:
 * a header "layer=<layer> clock=..." then records of single-space
 * separated key=value pairs whose hist/vhist are ascending b:c lists
 * adding up to count/vcount. Returns NULL or a static message.
 */
const char *g_check_layer_text(const char *layer, const char *text);

/* ---- the module ---- */
/* Write one ctl command; 0 or -errno. */
int g_ctl(const char *cmd);
/* Pin the calling thread to @cpu; 0 or -errno. */
int g_pin(int cpu);
uint64_t g_mono_ns(void);
/* Spin (no syscalls) until the monotonic clock reaches @until_ns. */
void g_spin_until(uint64_t until_ns);
/* Sum count and sum_ns over the irq records matching @pred. */
struct g_irq_sum {
	uint64_t count, sum_ns;
	int lines;
};
void g_irq_sum(const char *text, bool (*pred)(const char *line),
	       struct g_irq_sum *out);
/* A g_irq_sum predicate: the local timer's record (irq=LOC). */
bool g_is_local_timer(const char *line);

/* ---- tests (guest_*.c) ---- */
int t_proc_readable(void);
int t_vt_sleep(void);
int t_vt_threads(void);
int t_vt_irq(void);
int t_vt_exit(void);
int t_ioctl_errors(void);
int t_ioctl_fuzz(void);
int t_timers_file(void);
int t_blk_lower(void);
int t_lower_ops(void);
int t_irq_list(void);
int t_ctl_errors(void);
int t_ctl_fuzz(void);
int t_rmmod_busy(void);
int t_selftest(void);
/* Background load for the unload test: runs until killed. */
int t_load(void);

#endif /* OKM_GUEST_H */
