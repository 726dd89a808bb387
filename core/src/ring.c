// SPDX-License-Identifier: MIT
/* A bounded ring of snapshots, and deltas of cumulative readings (ring.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/ring.h"

struct osp_ring {
	unsigned cap;
	unsigned head;       /* the oldest */
	unsigned n;
	size_t bound_bytes;
	size_t bytes;
	uint64_t dropped;
	struct osp_snapshot *slots;
};

size_t osp_ring_capacity_max(size_t bound_bytes)
{
	size_t n = bound_bytes / OSP_RING_SLOT_BYTES;

	return n < UINT32_MAX ? n : UINT32_MAX;
}

int osp_ring_new(unsigned capacity, size_t bound_bytes, struct osp_ring **out)
{
	struct osp_ring *r;

	if (capacity == 0)
		return -EINVAL;
	/* Not even idle intervals would fit: refuse, do not shrink it. */
	if (capacity > osp_ring_capacity_max(bound_bytes))
		return -E2BIG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->slots = calloc(capacity, sizeof(*r->slots));
	if (!r->slots) {
		free(r);
		return -ENOMEM;
	}
	r->cap = capacity;
	r->bound_bytes = bound_bytes;
	r->bytes = (size_t)capacity * OSP_RING_SLOT_BYTES;
	*out = r;
	return 0;
}

static size_t op_bytes(const struct osp_op *o)
{
	return sizeof(*o) + strlen(o->name) + 1 + osp_hist_bytes(&o->lat) +
	       osp_hist_bytes(&o->cpu);
}

size_t osp_snapshot_bytes(const struct osp_snapshot *s)
{
	size_t b = 0;

	for (size_t i = 0; i < s->nops; i++)
		b += op_bytes(&s->ops[i]);
	return b;
}

void osp_snapshot_fini(struct osp_snapshot *s)
{
	for (size_t i = 0; i < s->nops; i++)
		osp_op_fini(&s->ops[i]);
	free(s->ops);
	memset(s, 0, sizeof(*s));
}

static void drop_oldest(struct osp_ring *r)
{
	struct osp_snapshot *s = &r->slots[r->head];

	r->bytes -= osp_snapshot_bytes(s);
	osp_snapshot_fini(s);
	r->head = (r->head + 1) % r->cap;
	r->n--;
	r->dropped++;
}

void osp_ring_push(struct osp_ring *r, struct osp_snapshot *s)
{
	if (r->n == r->cap)
		drop_oldest(r);
	r->slots[(r->head + r->n) % r->cap] = *s;
	memset(s, 0, sizeof(*s));
	r->n++;
	r->bytes += osp_snapshot_bytes(&r->slots[(r->head + r->n - 1) % r->cap]);
	/* The oldest go first; a snapshot over the bound on its own, too. */
	while (r->bytes > r->bound_bytes && r->n)
		drop_oldest(r);
}

void osp_ring_clear(struct osp_ring *r)
{
	while (r->n)
		drop_oldest(r);
	r->head = 0;
	r->dropped = 0;
}

void osp_ring_free(struct osp_ring *r)
{
	if (!r)
		return;
	osp_ring_clear(r);
	free(r->slots);
	free(r);
}

/* Deep copies of @n ops (NULL for none: an idle interval costs nothing). */
static int ops_copy_n(struct osp_op **dst, const struct osp_op *src, size_t n)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = calloc(n, sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (osp_op_copy(&(*dst)[i], &src[i])) {
			while (i--)
				osp_op_fini(&(*dst)[i]);
			free(*dst);
			*dst = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

int osp_ring_copy(const struct osp_ring *r, struct osp_profile *p,
		  uint64_t interval_ns, size_t extra)
{
	p->snaps = calloc(r->n + extra ? r->n + extra : 1, sizeof(*p->snaps));
	if (!p->snaps)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n; i++) {
		const struct osp_snapshot *s = &r->slots[(r->head + i) % r->cap];

		p->snaps[i].t_ns = s->t_ns;
		p->nsnaps = i;
		if (ops_copy_n(&p->snaps[i].ops, s->ops, s->nops)) {
			osp_profile_drop_timeline(p);
			return -ENOMEM;
		}
		p->snaps[i].nops = s->nops;
	}
	p->nsnaps = r->n;
	p->tl_interval_ns = interval_ns;
	p->tl_dropped = r->dropped;
	return 0;
}

void osp_ring_stats(const struct osp_ring *r, struct osp_ring_stats *out)
{
	out->capacity = r->cap;
	out->held = r->n;
	out->bytes = r->bytes;
	out->bound_bytes = r->bound_bytes;
	out->dropped = r->dropped;
}

/* The op of @p named @name (through @ix), or NULL. */
static const struct osp_op *prev_op(const struct osp_profile *p,
				    const struct osp_name_index *ix, const char *name)
{
	size_t i;

	if (!p)
		return NULL;
	i = osp_name_index_find(ix, name);
	return i == SIZE_MAX ? NULL : &p->ops[i];
}

int osp_snapshot_delta(struct osp_snapshot *s, const struct osp_profile *cur,
		       const struct osp_profile *prev, uint64_t t_ns)
{
	struct osp_name_index *ix = NULL;
	struct osp_hist empty_lat, empty_cpu;
	size_t busy = 0;
	int err = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->t_ns = t_ns;
	if (prev && prev->res != cur->res)
		return -EINVAL;
	if (prev && !(ix = osp_name_index_ops(prev->ops, prev->nops)))
		return -ENOMEM;
	if (osp_hist_init(&empty_lat, cur->res) || osp_hist_init(&empty_cpu, cur->res)) {
		osp_name_index_free(ix);
		return -EINVAL;
	}
	for (size_t i = 0; i < cur->nops; i++) {
		const struct osp_op *p = prev_op(prev, ix, cur->ops[i].name);

		busy += cur->ops[i].lat.count != (p ? p->lat.count : 0);
	}
	if (!busy) {
		osp_name_index_free(ix);
		return 0;
	}
	s->ops = calloc(busy, sizeof(*s->ops));
	if (!s->ops)
		goto fail;
	for (size_t i = 0; i < cur->nops; i++) {
		const struct osp_op *c = &cur->ops[i], *p = prev_op(prev, ix, c->name);
		struct osp_op *o = &s->ops[s->nops];

		if (c->lat.count == (p ? p->lat.count : 0))
			continue;
		o->name = strdup(c->name);
		o->has_cpu = c->has_cpu;
		s->nops++;
		if (!o->name || osp_hist_delta(&o->lat, &c->lat, p ? &p->lat : &empty_lat) ||
		    (c->has_cpu && osp_hist_delta(&o->cpu, &c->cpu,
						  p && p->has_cpu ? &p->cpu : &empty_cpu)))
			goto fail;
	}
	osp_name_index_free(ix);
	return 0;
fail:
	osp_name_index_free(ix);
	osp_snapshot_fini(s);
	s->t_ns = t_ns;
	return err;
}
