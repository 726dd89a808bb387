// SPDX-License-Identifier: MIT
/*
 * The transport's life (see ofs_tr.h): made before mounting, with the
 * checks that can be made then; its rings started after daemonizing,
 * stopped, closed before /dev/fuse is; freed; and its lines of the ctl
 * file. What it does meanwhile is in ofs_tr_io.c (the custom I/O),
 * ofs_tr_backing.c (backing files), ofs_tr_policy.c (what is in force,
 * and why not) and ofs_tr_uring.c (the rings).
 */
#include <stdlib.h>
#include <string.h>

#include "obp.h"
#include "ofs_tr_cpus.h"
#include "ofs_tr_impl.h"

struct ofs_tr *ofs_tr_new(const struct ofs_tr_cfg *cfg)
{
	struct ofs_tr *tr = calloc(1, sizeof(*tr));

	if (!tr) {
		fprintf(stderr, "osprof-fs: out of memory\n");
		return NULL;
	}
	tr->cfg = *cfg;
	if (tr->cfg.max_threads < 1)
		tr->cfg.max_threads = 1;
	tr->dev_fd = -1;
	pthread_mutex_init(&tr->mu, NULL);
	ofs_tr_umap_init(&tr->reqs);
	ofs_tr_umap_init(&tr->opens);
	for (int f = 0; f < OFS_TR__COUNT; f++)
		atomic_init(&tr->maybe[f], cfg->want[f] != OFS_TR_OFF);
	ofs_tr_check_early(tr);
	if (atomic_load(&tr->failed)) {
		ofs_tr_free(tr);
		return NULL;
	}
	return tr;
}

int ofs_tr_start(struct ofs_tr *tr)
{
	int err = 0;

	if (!tr || !atomic_load(&tr->maybe[OFS_TR_IO_URING]))
		return 0;
	/* as many queues as the kernel makes: num_possible_cpus() */
	tr->uring = ofs_tr_uring_new(tr, tr->se, tr->dev_fd, ofs_tr_cpus_possible(obp_possible_cpus()),
				     tr->cfg.max_threads,
				     tr->cfg.pin ? 0 : (uint64_t)tr->cfg.poll_us * 1000,
				     tr->cfg.pin, tr->cfg.mountpoint, &err);
	if (!tr->uring) {
		ofs_tr_turn_off(tr, OFS_TR_IO_URING, "cannot set up the rings: %s", strerror(-err));
		return atomic_load(&tr->failed) ? err : 0;
	}
	err = ofs_tr_uring_start(tr->uring);
	if (err)
		ofs_tr_turn_off(tr, OFS_TR_IO_URING, "cannot start the ring threads: %s", strerror(-err));
	return atomic_load(&tr->failed) ? err : 0;
}

void ofs_tr_uring_refused(struct ofs_tr *tr, int err)
{
	ofs_tr_turn_off(tr, OFS_TR_IO_URING, "FUSE_IO_URING_CMD_REGISTER: %s", strerror(-err));
}

void ofs_tr_stop(struct ofs_tr *tr)
{
	if (tr && tr->uring)
		ofs_tr_uring_stop(tr->uring);
}

void ofs_tr_close(struct ofs_tr *tr)
{
	if (!tr)
		return;
	atomic_store(&tr->closed, true);
	ofs_tr_uring_free(tr->uring);
	tr->uring = NULL;
}

/* Free what the map still holds (requests never answered). */
static void drain(struct ofs_tr_umap *m, bool embedded_in_entries)
{
	for (unsigned i = 0; i < OFS_TR_UMAP_BUCKETS; i++) {
		struct ofs_tr_unode *n = atomic_load(&m->b[i].head), *next;

		for (; n; n = next) {
			next = n->next;
			if (!embedded_in_entries || !((struct ofs_tr_pending *)(void *)n)->ent)
				free(n);
		}
		atomic_store(&m->b[i].head, NULL);
	}
}

void ofs_tr_free(struct ofs_tr *tr)
{
	if (!tr)
		return;
	ofs_tr_close(tr);
	drain(&tr->reqs, true);
	drain(&tr->opens, false);
	ofs_tr_umap_destroy(&tr->reqs);
	ofs_tr_umap_destroy(&tr->opens);
	pthread_mutex_destroy(&tr->mu);
	free(tr);
}

void ofs_tr_describe(const struct ofs_tr *tr, FILE *out)
{
	bool pt = ofs_tr_on(tr, OFS_TR_PASSTHROUGH);

	fprintf(out, "transport %s\n", ofs_tr_on(tr, OFS_TR_IO_URING) ? "io_uring" : "dev");
	if (tr && tr->cfg.want[OFS_TR_IO_URING] && !ofs_tr_on(tr, OFS_TR_IO_URING))
		fprintf(out, "io_uring off (%s)\n", ofs_tr_why(tr, OFS_TR_IO_URING));
	if (pt)
		fprintf(out, "passthrough on\n");
	else
		fprintf(out, "passthrough off (%s)\n", ofs_tr_why(tr, OFS_TR_PASSTHROUGH));
	if (!tr)
		return;
	if (pt || tr->cfg.want[OFS_TR_PASSTHROUGH])
		/* backing ids open now: a leak shows here */
		fprintf(out, "passthrough_opens %llu\npassthrough_backing_ids %llu\npassthrough_refused %llu\n",
			(unsigned long long)atomic_load(&tr->opens_patched),
			(unsigned long long)(atomic_load(&tr->backing_opened) -
					     atomic_load(&tr->backing_closed)),
			(unsigned long long)atomic_load(&tr->backing_refused));
	if (tr->uring) {
		unsigned q, held;
		uint64_t errors;

		/* Not the threads and entries: they grow with the load. The
		 * entries held for a later reply: the requests waiting (locks)
		 * now; one left after its reply is a leak. */
		ofs_tr_uring_stats(tr->uring, &q, &errors, &held);
		fprintf(out, "io_uring_queues %u\nio_uring_errors %llu\nio_uring_held %u\n", q,
			(unsigned long long)errors, held);
	}
}
