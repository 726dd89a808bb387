// SPDX-License-Identifier: MIT
/*
 * Reading the eBPF layers' per-CPU histogram maps into profiles. The keys
 * are listed first (sorted, repeats dropped: iterating a hash map that
 * changes may restart) and then looked up one by one. Keys that name the
 * same operation (FUSE's RENAME and RENAME2, two handlers of one name on
 * a line) are merged into one op, counters too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"

static int key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct obp_key));
}

/* Every key of kind @kind (0: any) in map @fd, sorted, into a new array. */
static int list_keys(int fd, unsigned kind, struct obp_key **out, size_t *n)
{
	struct obp_key cur, next, *keys = NULL;
	size_t nk = 0, cap = 0, u = 0;
	bool first = true;

	while (bpf_map_get_next_key(fd, first ? NULL : &cur, &next) == 0) {
		first = false;
		cur = next;
		if (kind && next.kind != kind)
			continue;
		if (nk == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct obp_key *nkeys;

			/* A map that keeps restarting our walk: the keys so
			 * far are all its keys many times over. */
			if (ncap > 16 * OBP_MAX_HISTS)
				break;
			nkeys = realloc(keys, ncap * sizeof(*keys));
			if (!nkeys) {
				free(keys);
				return -ENOMEM;
			}
			keys = nkeys;
			cap = ncap;
		}
		keys[nk++] = next;
	}
	if (errno != ENOENT && nk < cap) {
		int err = -errno;

		free(keys);
		return err;
	}
	if (nk)
		qsort(keys, nk, sizeof(*keys), key_cmp);
	for (size_t i = 0; i < nk; i++)
		if (!u || key_cmp(&keys[u - 1], &keys[i]) != 0)
			keys[u++] = keys[i];
	*out = keys;
	*n = u;
	return 0;
}

/* The name layer @l gives key @k. */
static const char *key_name(struct obp *b, enum obp_layer l, const struct obp_key *k,
			    char *buf, size_t len)
{
	char handler[OBP_IRQ_NAME_LEN + 1] = "";
	int sums_fd, names_fd;

	switch (l) {
	case OBP_L_FUSE:
		return obp_fuse_op_name(k->a, buf, len);
	case OBP_L_BLOCK:
		return obp_block_op_name(k->a, k->b, buf, len);
	case OBP_L_IRQ:
		if (k->kind == OBP_K_SOFTIRQ)
			return obp_softirq_name(k->a, buf, len);
		/* a name the program could not note stays "unnamed" */
		if (!obp_irq_maps(b, &sums_fd, &names_fd))
			bpf_map_lookup_elem(names_fd, k, handler);
		handler[OBP_IRQ_NAME_LEN] = '\0';
		return obp_irq_op_name(k->a, handler, buf, len);
	default:
		return obp_syscall_name(k->a, buf, len);
	}
}

/* Sum @ncpu per-CPU copies at @vals into @op's latency histogram. */
static int op_fill(struct osp_op *op, const struct obp_hist *vals, int ncpu)
{
	uint64_t dense[OBP_NBUCKETS] = { 0 };
	struct osp_hist *h = &op->lat;
	bool any = false;

	_Static_assert(OBP_NBUCKETS == OSP_HIST_NBUCKETS(1), "BPF buckets are core's at resolution 1");
	h->count = h->sum = h->min = h->max = 0;
	for (int c = 0; c < ncpu; c++) {
		const struct obp_hist *v = &vals[c];
		uint64_t n = 0;

		for (unsigned i = 0; i < OBP_NBUCKETS; i++) {
			dense[i] += v->bk[i];
			n += v->bk[i];
		}
		if (!n)
			continue;
		h->count += n;
		h->sum += v->sum;
		if (!any || v->min < h->min)
			h->min = v->min;
		if (v->max > h->max)
			h->max = v->max;
		any = true;
	}
	return osp_hist_from_dense(h, dense);
}

static int op_cmp(const void *a, const void *b)
{
	return strcmp(((const struct osp_op *)a)->name, ((const struct osp_op *)b)->name);
}

/* Add @v to @op's counter @name, made when new. */
static int counter_add(struct osp_op *op, const char *name, uint64_t v)
{
	for (size_t i = 0; i < op->ncounters; i++)
		if (strcmp(op->counters[i].name, name) == 0) {
			op->counters[i].value += v;
			return 0;
		}
	return osp_op_add_counter(op, name, v);
}

/*
 * Layer irq: add key @k's counter sums (map @fd, per CPU) to @op; @pmc
 * is op attribute "pmc". A key without sums (no run counted) adds 0s,
 * so every op of a profile with counters has them all.
 */
static int add_pmc(struct obp *b, struct osp_op *op, const struct obp_key *k, int fd, int ncpu)
{
	struct obp_pmc_sums *v, sum = { 0 };
	int err;

	err = osp_kv_set_str(&op->attrs, "pmc", b->pmc_n ? "available" : "unavailable");
	if (err || !b->pmc_n)
		return err;
	_Static_assert(sizeof(struct obp_pmc_sums) % 8 == 0, "per-CPU values are 8-byte aligned");
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, k, v) == 0)
		for (int c = 0; c < ncpu; c++) {
			sum.runs += v[c].runs;
			for (unsigned e = 0; e < OBP_PMC_MAX; e++)
				sum.v[e] += v[c].v[e];
		}
	else if (errno != ENOENT)
		err = -errno;
	free(v);
	for (unsigned e = 0; !err && e < b->pmc_n; e++)
		err = counter_add(op, b->pmc_names[e], sum.v[e]);
	return err ? err : counter_add(op, "pmc_runs", sum.runs);
}

/* Add key @k's histogram (per-CPU values @vals) to @p. */
static int add_key(struct obp *b, struct osp_profile *p, enum obp_layer l,
		   const struct obp_key *k, const struct obp_hist *vals, int ncpu)
{
	int sums_fd, names_fd, err;
	struct osp_op *op, tmp;
	char name[64];

	key_name(b, l, k, name, sizeof(name));
	op = osp_profile_find_op(p, name);
	if (!op) {
		op = osp_profile_add_op(p, name, false);
		if (!op)
			return -ENOMEM;
		err = op_fill(op, vals, ncpu);
		if (!err && l == OBP_L_IRQ && !obp_irq_maps(b, &sums_fd, &names_fd))
			err = add_pmc(b, op, k, sums_fd, ncpu);
		return err;
	}
	err = osp_op_init(&tmp, name, 1, false);
	err = err ? err : op_fill(&tmp, vals, ncpu);
	if (!err) {
		uint64_t lo = op->lat.count ? op->lat.min : tmp.lat.min;

		err = osp_hist_merge(&op->lat, &tmp.lat);
		/* merge adds buckets, count and sum; min and max are ours */
		if (!err && tmp.lat.count) {
			op->lat.min = lo < tmp.lat.min ? lo : tmp.lat.min;
			if (tmp.lat.max > op->lat.max)
				op->lat.max = tmp.lat.max;
		}
	}
	osp_op_fini(&tmp);
	if (!err && l == OBP_L_IRQ && !obp_irq_maps(b, &sums_fd, &names_fd))
		err = add_pmc(b, op, k, sums_fd, ncpu);
	return err;
}

/* Layer irq's options: whether it has counters, which, and why not. */
static int fill_pmc_meta(struct obp *b, struct osp_profile *p)
{
	char text[sizeof(b->pmc_why) + 16], events[OBP_PMC_MAX * 24] = "";
	int err;

	for (unsigned e = 0; e < b->pmc_n; e++)
		snprintf(events + strlen(events), sizeof(events) - strlen(events), "%s%s",
			 e ? "," : "", b->pmc_names[e]);
	if (b->pmc_n)
		snprintf(text, sizeof(text), "available");
	else
		snprintf(text, sizeof(text), "unavailable: %s", b->pmc_why);
	err = osp_kv_set_str(&p->options, "pmc", text);
	err = err ? err : osp_kv_set_str(&p->options, "pmc_events", events);
	/* some events opened, not all: say which failed */
	if (!err && b->pmc_n && b->pmc_why[0])
		err = osp_kv_set_str(&p->options, "pmc_missing", b->pmc_why);
	return err;
}

static int fill_meta(struct obp *b, enum obp_layer l, struct osp_profile *p)
{
	char host[256] = "";
	int err;

	gethostname(host, sizeof(host) - 1);
	err = osp_str_set(&p->host, host);
	err = err ? err : osp_str_set(&p->clock_source, "ktime");
	err = err ? err : osp_kv_set_str(&p->source, "layer_source", "ebpf");
	p->cycles_per_ns = 1.0;
	p->start_unix_ns = b->start_unix_ns;
	p->elapsed_ns = osp_clock_mono_ns() - b->start_mono_ns;
	return err || l != OBP_L_IRQ ? err : fill_pmc_meta(b, p);
}

/* True when no CPU's copy in @vals holds a value (a slot since reset). */
static bool hist_empty(const struct obp_hist *vals, int ncpu)
{
	for (int c = 0; c < ncpu; c++)
		for (unsigned i = 0; i < OBP_NBUCKETS; i++)
			if (vals[c].bk[i])
				return false;
	return true;
}

/* Add the histograms of kind @kind kept by index (obp_abi.h) to @p,
 * @vals room for one per-CPU value. */
static int add_slots(struct obp *b, struct osp_profile *p, enum obp_layer l,
		     const struct obp_object *o, unsigned kind, struct obp_hist *vals, int ncpu)
{
	__u32 base = kind == OBP_K_LOWER ? OBP_SYS_MAX_NR : 0, n = OBP_SYS_MAX_NR, out;
	__u32 *keys = calloc(2 * n, sizeof(*keys)), *slots = keys + n, before = base - 1;
	int err = 0;

	if (!keys)
		return -ENOMEM;
	/* One system call for the kind's half of the table (an array's
	 * batch goes on after the key it is given: the element before). */
	if (bpf_map_lookup_batch(o->slot_of_fd, base ? &before : NULL, &out, keys, slots, &n,
				 NULL) != 0 && errno != ENOENT)
		err = -errno;
	for (__u32 i = 0; !err && i < n; i++) {
		struct obp_key k = { .kind = kind, .a = keys[i] - base };
		__u32 slot = slots[i] - 1;

		if (!slots[i] || keys[i] < base || keys[i] >= base + OBP_SYS_MAX_NR)
			continue;
		if (bpf_map_lookup_elem(o->slot_hists_fd, &slot, vals) != 0)
			err = -errno;
		else if (!hist_empty(vals, ncpu))
			err = add_key(b, p, l, &k, vals, ncpu);
	}
	free(keys);
	return err;
}

int obp_profile(struct obp *b, enum obp_layer l, struct osp_profile **out)
{
	int ncpu = libbpf_num_possible_cpus(), err, hfd;
	const struct obp_object *o;
	struct obp_key *keys = NULL;
	struct obp_hist *vals = NULL;
	struct osp_profile *p;
	unsigned kind;
	size_t nk = 0;

	err = obp_layer_maps(b, l, &o, &kind);
	if (err)
		return err;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	hfd = o->hists_fd;
	p = osp_profile_new(obp_layer_name(l), 1);
	if (!p)
		return -ENOMEM;
	/* A per-CPU value is ncpu copies, each rounded up to 8 bytes. */
	_Static_assert(sizeof(struct obp_hist) % 8 == 0, "per-CPU values are 8-byte aligned");
	vals = calloc((size_t)ncpu, sizeof(*vals));
	err = vals ? fill_meta(b, l, p) : -ENOMEM;
	err = err ? err : list_keys(hfd, kind, &keys, &nk);
	if (!err && o->slot_of_fd >= 0)
		err = add_slots(b, p, l, o, kind, vals, ncpu);
	for (size_t i = 0; !err && i < nk; i++) {
		if (bpf_map_lookup_elem(hfd, &keys[i], vals) != 0) {
			if (errno == ENOENT) /* deleted since listed: a reset */
				continue;
			err = -errno;
			break;
		}
		err = add_key(b, p, l, &keys[i], vals, ncpu);
	}
	free(vals);
	free(keys);
	if (err) {
		osp_profile_free(p);
		return err;
	}
	if (p->nops > 1)
		qsort(p->ops, p->nops, sizeof(*p->ops), op_cmp);
	*out = p;
	return 0;
}

/* Delete every key of map @fd. */
static int clear_map(int fd)
{
	struct obp_key *keys;
	size_t nk;
	int err = list_keys(fd, 0, &keys, &nk);

	for (size_t i = 0; !err && i < nk; i++)
		if (bpf_map_delete_elem(fd, &keys[i]) != 0 && errno != ENOENT)
			err = -errno;
	if (!err || nk)
		free(keys);
	return err;
}

/* Zero the slots handed out of object @o's per-CPU histogram array, in
 * one system call (slots stay their calls'). */
static int clear_slots(const struct obp_object *o)
{
	__u32 n = __atomic_load_n(o->slots_used, __ATOMIC_RELAXED), *keys;
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct obp_hist *zero;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	n = n < o->nslots ? n : o->nslots;
	if (!n)
		return 0;
	keys = calloc(n, sizeof(*keys));
	zero = calloc((size_t)n * (size_t)ncpu, sizeof(*zero));
	for (__u32 i = 0; keys && i < n; i++)
		keys[i] = i;
	if (!keys || !zero)
		err = -ENOMEM;
	else if (bpf_map_update_batch(o->slot_hists_fd, keys, zero, &n, NULL) != 0)
		err = -errno;
	free(zero);
	free(keys);
	return err;
}

int obp_reset(struct obp *b)
{
	int err = 0, sums_fd, names_fd;

	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		const struct obp_object *o;
		unsigned kind;
		int e;

		if (obp_layer_maps(b, l, &o, &kind))
			continue;
		e = clear_map(o->hists_fd);
		/* syscall and lower share theirs: cleared twice, harmlessly */
		if (!e && o->slot_hists_fd >= 0)
			e = clear_slots(o);
		if (e && !err)
			err = e;
	}
	/* names stay: they name keys that may come back */
	if (!obp_irq_maps(b, &sums_fd, &names_fd)) {
		int e = clear_map(sums_fd);

		if (e && !err)
			err = e;
	}
	b->start_unix_ns = osp_clock_unix_ns();
	b->start_mono_ns = osp_clock_mono_ns();
	return err;
}

int obp_stats(struct obp *b, enum obp_layer l, struct obp_stats *out)
{
	int sfd, ncpu = libbpf_num_possible_cpus(), err;
	uint64_t sums[OBP_S__COUNT] = { 0 }, *v;
	const struct obp_object *o;
	unsigned kind;

	err = obp_layer_maps(b, l, &o, &kind);
	if (err)
		return err;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	sfd = o->stats_fd;
	v = calloc((size_t)ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (__u32 i = 0; i < OBP_S__COUNT; i++) {
		if (bpf_map_lookup_elem(sfd, &i, v) != 0) {
			err = -errno;
			break;
		}
		for (int c = 0; c < ncpu; c++)
			sums[i] += v[c];
	}
	free(v);
	out->hist_full = sums[OBP_S_HIST_FULL];
	out->inflight_full = sums[OBP_S_INFLIGHT_FULL];
	out->pids_full = sums[OBP_S_PIDS_FULL];
	out->skipped = sums[OBP_S_SKIPPED];
	out->missed = 0;
	if (o->bobj) {
		struct bpf_program *prog;

		bpf_object__for_each_program(prog, o->bobj) {
			struct bpf_prog_info info;
			__u32 len = sizeof(info);
			int fd = bpf_program__fd(prog);

			memset(&info, 0, sizeof(info));
			if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
				out->missed += info.recursion_misses;
		}
	}
	return err;
}
