// SPDX-License-Identifier: MIT
/*
 * Names of what the eBPF layers key their histograms by: FUSE opcodes as
 * the fs layer names its operations (so `fuse` and `fs` line up op for
 * op), x86-64 system calls by number, and disks, interrupt handlers and
 * softirq vectors as osprof.ko names them (so its profiles and ours
 * line up too).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "obp.h"
#include "osprof/format.h"
#include "osprof/fuse_ops.h"
#include "obp_sysnames.h"

/* By opcode: every row of osprof/fuse_ops.h (a FUSE opcode is at most
 * a few dozen). */
#define BY_OPCODE(ID, name, opcode, ...) [opcode] = name,
static const char *const fuse_names[] = {
	OSP_FUSE_OPS(BY_OPCODE, BY_OPCODE, BY_OPCODE)
};
#undef BY_OPCODE

const char *obp_fuse_op_name(unsigned op, char *buf, size_t len)
{
	if (op < sizeof(fuse_names) / sizeof(fuse_names[0]) && fuse_names[op])
		snprintf(buf, len, "%s", fuse_names[op]);
	else
		snprintf(buf, len, "op_%u", op);
	return buf;
}

const char *obp_syscall_name(unsigned nr, char *buf, size_t len)
{
	if (nr < OBP_SYSNAMES_MAX && obp_sysnames[nr])
		snprintf(buf, len, "%s", obp_sysnames[nr]);
	else
		snprintf(buf, len, "syscall_%u", nr);
	return buf;
}

int obp_syscall_nr(const char *name)
{
	for (int nr = 0; nr < OBP_SYSNAMES_MAX; nr++)
		if (obp_sysnames[nr] && strcmp(obp_sysnames[nr], name) == 0)
			return nr;
	return -1;
}

/* REQ_OP_* 0 .. 3, then everything else (as the BPF side folds it). */
static const char *const block_dirs[] = { "read", "write", "flush", "discard", "other" };

const char *obp_block_op_name(uint32_t dev, uint32_t b, char *buf, size_t len)
{
	unsigned maj = dev >> 20, min = dev & 0xfffff, dir = b >> 1;
	char path[64], link[PATH_MAX];
	const char *disk = NULL;
	char num[24];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		disk = strrchr(link, '/');
		disk = disk ? disk + 1 : link;
	}
	if (!disk || !*disk) {
		snprintf(num, sizeof(num), "%u:%u", maj, min);
		disk = num;
	}
	if (dir >= sizeof(block_dirs) / sizeof(block_dirs[0]))
		dir = sizeof(block_dirs) / sizeof(block_dirs[0]) - 1;
	snprintf(buf, len, "%s.%s%s", disk, block_dirs[dir], b & 1 ? ".queue" : "");
	return buf;
}

const char *obp_irq_op_name(unsigned irq, const char *name, char *buf, size_t len)
{
	size_t at;

	if (!name || !*name)
		name = "unnamed";
	snprintf(buf, len, "%u:", irq);
	at = strlen(buf);
	snprintf(buf + at, len - at, "%s", name);
	/* osprof.ko's okm_sanitize_name: a record is space-separated
	 * key=value pairs with comma-separated lists */
	for (char *c = buf + at; *c; c++)
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f || *c == '=' || *c == ',')
			*c = '_';
	return buf;
}

/* The kernel's softirq vectors (include/linux/interrupt.h, stable order:
 * /proc/softirqs lists them so). */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

const char *obp_softirq_name(unsigned vec, char *buf, size_t len)
{
	if (vec < sizeof(softirq_names) / sizeof(softirq_names[0]))
		snprintf(buf, len, "softirq:%s", softirq_names[vec]);
	else
		snprintf(buf, len, "softirq:%u", vec);
	return buf;
}

char *obp_layer_file(const char *file, enum obp_layer l)
{
	return osp_file_beside(file, obp_layer_name(l));
}
