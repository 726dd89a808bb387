// SPDX-License-Identifier: GPL-2.0
/*
 * The block layer: latency of each request from issue to the driver
 * (block_rq_issue) to its completion (block_rq_complete), per disk and
 * direction, as log2 histograms -- OSprof's driver-level profile.
 *
 * Requests in flight are remembered in a fixed open-addressed table keyed
 * by the request pointer, claimed and released with cmpxchg, so neither
 * probe takes a lock or allocates (completion runs in interrupt context,
 * often on another CPU). An entry older than OKM_BLK_STALE_NS (a request
 * that never completed, e.g. one the driver ended without the tracepoint)
 * may be reclaimed. A full table drops the request and counts it.
 * Partial completions are ignored: a request counts once, when its last
 * byte completes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>

#include "okm.h"

#define OKM_BLK_MAXDEV      16
#define OKM_BLK_BITS        12                 /* 4096 requests in flight */
#define OKM_BLK_SLOTS       (1u << OKM_BLK_BITS)
#define OKM_BLK_PROBES      32                 /* linear probe length */
#define OKM_BLK_BUSY        1UL                /* key of a slot being filled */
#define OKM_BLK_STALE_NS    (30ULL * NSEC_PER_SEC)

enum okm_blk_dir {
	OKM_BLK_READ,
	OKM_BLK_WRITE,
	OKM_BLK_FLUSH,
	OKM_BLK_DISCARD,
	OKM_BLK_OTHER,
	OKM_BLK_DIR__COUNT
};

static const char *const okm_blk_dir_names[] = {
	[OKM_BLK_READ] = "read",
	[OKM_BLK_WRITE] = "write",
	[OKM_BLK_FLUSH] = "flush",
	[OKM_BLK_DISCARD] = "discard",
	[OKM_BLK_OTHER] = "other",
};
static_assert(ARRAY_SIZE(okm_blk_dir_names) == OKM_BLK_DIR__COUNT);

struct okm_blk_dev {
	dev_t devt;
	char name[DISK_NAME_LEN];
};

/* Devices seen so far; entries below okm_blk_ndev never change. */
static struct okm_blk_dev okm_blk_devs[OKM_BLK_MAXDEV];
static unsigned int okm_blk_ndev;      /* published with release */
static DEFINE_RAW_SPINLOCK(okm_blk_dev_lock);

struct okm_blk_cell {
	struct okm_cell c;
	struct okm_hist h;
};

/* Per device: per CPU, one cell per direction. */
struct okm_blk_pcpu {
	struct okm_blk_cell dir[OKM_BLK_DIR__COUNT];
};

static struct okm_blk_pcpu __percpu *okm_blk_data[OKM_BLK_MAXDEV];

struct okm_blk_inflight {
	unsigned long key;  /* the request, 0 free, OKM_BLK_BUSY being filled */
	u64 t0;             /* clock at issue, also for staleness */
	u8 dev;
	u8 dir;
};

static struct okm_blk_inflight *okm_blk_tab;
static atomic64_t okm_blk_dropped = ATOMIC64_INIT(0);

static int okm_blk_dev_slot(struct gendisk *disk)
{
	dev_t devt = disk_devt(disk);
	unsigned long flags;
	unsigned int i, n;
	int ret = -1;

	/* pairs with the release below: entries under n are complete */
	n = smp_load_acquire(&okm_blk_ndev);

	for (i = 0; i < n; i++) {
		if (okm_blk_devs[i].devt == devt)
			return i;
	}
	raw_spin_lock_irqsave(&okm_blk_dev_lock, flags);
	n = okm_blk_ndev;
	for (i = 0; i < n; i++) {
		if (okm_blk_devs[i].devt == devt) {
			ret = i;
			goto out;
		}
	}
	if (n < OKM_BLK_MAXDEV) {
		okm_blk_devs[n].devt = devt;
		strscpy(okm_blk_devs[n].name, disk->disk_name,
			sizeof(okm_blk_devs[n].name));
		okm_sanitize_name(okm_blk_devs[n].name);
		/* publish the filled entry; pairs with the acquires */
		smp_store_release(&okm_blk_ndev, n + 1);
		ret = n;
	}
out:
	raw_spin_unlock_irqrestore(&okm_blk_dev_lock, flags);
	return ret;
}

static enum okm_blk_dir okm_blk_dir_of(struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
		return OKM_BLK_READ;
	case REQ_OP_WRITE:
		return OKM_BLK_WRITE;
	case REQ_OP_FLUSH:
		return OKM_BLK_FLUSH;
	case REQ_OP_DISCARD:
		return OKM_BLK_DISCARD;
	default:
		return OKM_BLK_OTHER;
	}
}

static void okm_blk_issue(void *data, struct request *rq)
{
	struct gendisk *disk = rq->q ? rq->q->disk : NULL;
	unsigned long key = (unsigned long)rq;
	u32 h = hash_ptr(rq, OKM_BLK_BITS);
	unsigned int i;
	u64 now;
	int dev;

	if (!okm_on(OKM_LAYER_BLOCK) || !disk)
		return;
	dev = okm_blk_dev_slot(disk);
	if (dev < 0)
		goto drop;
	now = okm_now();
	/* A requeued request issued again: restart its clock. */
	for (i = 0; i < OKM_BLK_PROBES; i++) {
		struct okm_blk_inflight *s = &okm_blk_tab[(h + i) & (OKM_BLK_SLOTS - 1)];

		if (READ_ONCE(s->key) == key) {
			WRITE_ONCE(s->t0, now);
			return;
		}
	}
	for (i = 0; i < OKM_BLK_PROBES; i++) {
		struct okm_blk_inflight *s = &okm_blk_tab[(h + i) & (OKM_BLK_SLOTS - 1)];
		unsigned long old = READ_ONCE(s->key);

		if (old == OKM_BLK_BUSY)
			continue;
		if (old && okm_clock_ns(okm_elapsed(READ_ONCE(s->t0), now)) <
			   OKM_BLK_STALE_NS)
			continue;
		if (cmpxchg(&s->key, old, OKM_BLK_BUSY) != old)
			continue;
		s->t0 = now;
		s->dev = dev;
		s->dir = okm_blk_dir_of(rq);
		/* t0, dev, dir before the key; pairs with complete's acquire */
		smp_store_release(&s->key, key);
		return;
	}
drop:
	atomic64_inc(&okm_blk_dropped);
}

static void okm_blk_record(unsigned int dev, unsigned int dir, u64 ns)
{
	struct okm_blk_cell *cell;
	unsigned long flags;

	local_irq_save(flags);
	cell = &this_cpu_ptr(okm_blk_data[dev])->dir[dir];
	okm_cell_write_begin(&cell->c, okm_epoch(OKM_LAYER_BLOCK), &cell->h,
			     sizeof(cell->h));
	okm_hist_record(&cell->h, ns);
	okm_cell_write_end(&cell->c);
	local_irq_restore(flags);
}

static void okm_blk_complete(void *data, struct request *rq,
			     blk_status_t error, unsigned int nr_bytes)
{
	unsigned long key = (unsigned long)rq;
	u32 h = hash_ptr(rq, OKM_BLK_BITS);
	unsigned int i;

	if (nr_bytes < blk_rq_bytes(rq))
		return; /* partial completion: the request goes on */
	for (i = 0; i < OKM_BLK_PROBES; i++) {
		struct okm_blk_inflight *s = &okm_blk_tab[(h + i) & (OKM_BLK_SLOTS - 1)];
		unsigned int dev, dir;
		u64 t0;

		/* pairs with issue's release: t0, dev, dir are set */
		if (smp_load_acquire(&s->key) != key)
			continue;
		t0 = READ_ONCE(s->t0);
		dev = READ_ONCE(s->dev);
		dir = READ_ONCE(s->dir);
		/* Lost to a reclaim meanwhile: then t0 may be someone else's. */
		if (cmpxchg(&s->key, key, 0) != key)
			return;
		if (okm_on(OKM_LAYER_BLOCK) && dev < OKM_BLK_MAXDEV &&
		    dir < OKM_BLK_DIR__COUNT)
			okm_blk_record(dev, dir,
				       okm_clock_ns(okm_elapsed(t0, okm_now())));
		return;
	}
}

int okm_block_show(struct seq_file *m, void *v)
{
	unsigned int epoch = okm_epoch(OKM_LAYER_BLOCK);
	/* pairs with okm_blk_dev_slot's release: names are complete */
	unsigned int n = smp_load_acquire(&okm_blk_ndev);
	struct okm_hist *sum, *tmp;
	unsigned int dev, dir;
	int cpu;

	sum = kmalloc(2 * sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	tmp = sum + 1;
	okm_seq_layer_header(m, OKM_LAYER_BLOCK);
	for (dev = 0; dev < n; dev++) {
		for (dir = 0; dir < OKM_BLK_DIR__COUNT; dir++) {
			memset(sum, 0, sizeof(*sum));
			for_each_possible_cpu(cpu) {
				struct okm_blk_cell *c =
					&per_cpu_ptr(okm_blk_data[dev], cpu)->dir[dir];

				if (okm_cell_read(&c->c, epoch, &c->h, tmp,
						  sizeof(*tmp)))
					okm_hist_merge(sum, tmp);
			}
			if (!sum->count)
				continue;
			seq_printf(m, "dev=%s dir=%s ", okm_blk_devs[dev].name,
				   okm_blk_dir_names[dir]);
			okm_seq_hist(m, "", sum);
			seq_putc(m, '\n');
		}
	}
	kfree(sum);
	return 0;
}

void okm_block_ctl_show(struct seq_file *m)
{
	seq_printf(m, "block_devices %u\nblock_dropped %lld\n",
		   READ_ONCE(okm_blk_ndev),
		   (long long)atomic64_read(&okm_blk_dropped));
}

static struct okm_tp okm_block_tps[] = {
	/* completion first: an issue is never seen without it */
	{ .name = "block_rq_complete", .probe = okm_blk_complete },
	{ .name = "block_rq_issue", .probe = okm_blk_issue },
};

int okm_block_init(void)
{
	int i, cpu, dir, ret;

	okm_blk_tab = vzalloc(array_size(OKM_BLK_SLOTS, sizeof(*okm_blk_tab)));
	if (!okm_blk_tab)
		return -ENOMEM;
	for (i = 0; i < OKM_BLK_MAXDEV; i++) {
		okm_blk_data[i] = alloc_percpu(struct okm_blk_pcpu);
		if (!okm_blk_data[i]) {
			ret = -ENOMEM;
			goto err_free;
		}
		for_each_possible_cpu(cpu) {
			for (dir = 0; dir < OKM_BLK_DIR__COUNT; dir++)
				okm_cell_init(&per_cpu_ptr(okm_blk_data[i], cpu)->dir[dir].c);
		}
	}
	ret = okm_tp_register(okm_block_tps, ARRAY_SIZE(okm_block_tps));
	if (ret < 0)
		goto err_free;
	if (ret < (int)ARRAY_SIZE(okm_block_tps))
		pr_warn("block: tracepoints missing, block profile incomplete\n");
	return 0;

err_free:
	okm_block_free();
	return ret;
}

void okm_block_stop(void)
{
	okm_tp_unregister(okm_block_tps, ARRAY_SIZE(okm_block_tps));
}

void okm_block_free(void)
{
	int i;

	for (i = 0; i < OKM_BLK_MAXDEV; i++) {
		free_percpu(okm_blk_data[i]);
		okm_blk_data[i] = NULL;
	}
	vfree(okm_blk_tab);
	okm_blk_tab = NULL;
}
