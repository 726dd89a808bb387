// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU histogram cells and the histogram text of the /proc records.
 *
 * Every profile keeps its histograms per CPU so that recording needs
 * neither a lock nor an atomic read-modify-write: the CPU owning a cell
 * updates it with interrupts off, inside a sequence count, and a reader
 * on any CPU retries its copy until it saw no update in between. So a
 * reader's copy of a histogram is always consistent: its buckets add up
 * to its count, which DESIGN.md's readers check.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/seq_file.h>
#include <linux/string.h>

#include "okm.h"

bool okm_cell_read(const struct okm_cell *c, unsigned int epoch,
		   const void *body, void *dst, size_t len)
{
	unsigned int seq, cell_epoch;

	do {
		seq = read_seqcount_begin(&c->seq);
		cell_epoch = READ_ONCE(c->epoch);
		memcpy(dst, body, len);
	} while (read_seqcount_retry(&c->seq, seq));
	if (cell_epoch != epoch) {
		memset(dst, 0, len);
		return false;
	}
	return true;
}

void okm_seq_layer_header(struct seq_file *m, enum okm_layer l)
{
	char rate[32];

	okm_clock_rate_str(rate, sizeof(rate));
	seq_printf(m, "layer=%s clock=%s cycles_per_ns=%s enabled=%d\n",
		   okm_layer_names[l], okm_clock_name(), rate, okm_on(l));
}

void okm_seq_hist(struct seq_file *m, const char *p, const struct okm_hist *h)
{
	unsigned int i;
	bool first = true;

	seq_printf(m, "%scount=%llu %ssum_ns=%llu %smin_ns=%llu %smax_ns=%llu %shist=",
		   p, h->count, p, h->sum_ns, p, h->min_ns, p, h->max_ns, p);
	for (i = 0; i < OKM_NBUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		seq_printf(m, "%s%u:%llu", first ? "" : ",", i, h->buckets[i]);
		first = false;
	}
}

void okm_sanitize_name(char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c >= 0x7f || c == '=' || c == ',')
			*s = '_';
	}
}
