// SPDX-License-Identifier: MIT
/*
 * What osprof-trace prints and writes. The eBPF maps are only ever read,
 * never zeroed: an interval is the difference of two cumulative readings
 * (core's osp_hist_delta), so no event is lost between intervals and the
 * intervals add up to the total exactly. They become the JSON profile's
 * timeline, as DESIGN.md's format has it (snapshots of deltas).
 *
 * Several layers, one -o FILE: the format holds one layer per document,
 * so the first layer listed goes to FILE and each other one to FILE with
 * ".<layer>" before the extension (otr_out_path); each is a whole
 * profile that osprof-report reads on its own.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otr.h"
#include "osprof/format.h"

char *otr_out_path(const char *out, enum obp_layer l, enum obp_layer first)
{
	const char *base = strrchr(out, '/'), *dot;
	char *s;

	if (l == first)
		return strdup(out);
	base = base ? base + 1 : out;
	dot = strrchr(base, '.');
	/* A leading dot (".json") names the file, it is no extension. */
	if (!dot || dot == base)
		return asprintf(&s, "%s.%s", out, obp_layer_name(l)) < 0 ? NULL : s;
	return asprintf(&s, "%.*s.%s%s", (int)(dot - out), out, obp_layer_name(l), dot) < 0
		       ? NULL : s;
}

/* The op of @p named @name, or an empty one. */
static const struct osp_hist *prev_hist(const struct osp_profile *p, const char *name,
					const struct osp_hist *empty)
{
	const struct osp_op *o = p ? osp_profile_find_op(p, name) : NULL;

	return o ? &o->lat : empty;
}

/* @cur minus @prev (NULL: nothing before) into @s: only ops with events. */
static int snap_delta(struct osp_snapshot *s, const struct osp_profile *cur,
		      const struct osp_profile *prev, uint64_t t_ns)
{
	struct osp_hist empty;
	int err = osp_hist_init(&empty, cur->res);

	memset(s, 0, sizeof(*s));
	s->t_ns = t_ns;
	if (err)
		return err;
	s->ops = calloc(cur->nops ? cur->nops : 1, sizeof(*s->ops));
	if (!s->ops)
		return -ENOMEM;
	for (size_t i = 0; i < cur->nops; i++) {
		const struct osp_op *c = &cur->ops[i];
		const struct osp_hist *p = prev_hist(prev, c->name, &empty);
		struct osp_op *o = &s->ops[s->nops];

		if (c->lat.count == p->count)
			continue;
		o->name = strdup(c->name);
		if (!o->name)
			return -ENOMEM; /* the caller frees s, o included */
		s->nops++;
		err = osp_hist_delta(&o->lat, &c->lat, p);
		if (err)
			return err;
	}
	return 0;
}

static void snap_free(struct osp_snapshot *s)
{
	for (size_t i = 0; i < s->nops; i++)
		osp_op_fini(&s->ops[i]);
	free(s->ops);
	memset(s, 0, sizeof(*s));
}

/*
 * Print snapshot @s of @cur's layer as a stats view: @cur's own header
 * (clock, source) over the snapshot's ops, lent for the call.
 */
static int print_snap(struct osp_profile *cur, const struct osp_snapshot *s,
		      uint64_t interval_ns)
{
	struct osp_op *ops = cur->ops;
	size_t nops = cur->nops, cap = cur->ops_cap;
	uint64_t elapsed = cur->elapsed_ns;
	int err;

	printf("\n--- %s: interval ending at %.3f s ---\n", cur->layer, (double)s->t_ns / 1e9);
	cur->ops = s->ops;
	cur->nops = cur->ops_cap = s->nops;
	cur->elapsed_ns = interval_ns;
	err = osp_write_stats(stdout, cur);
	cur->ops = ops;
	cur->nops = nops;
	cur->ops_cap = cap;
	cur->elapsed_ns = elapsed;
	fflush(stdout);
	return err;
}

/* Read layer @y and add the difference from its last reading. */
static int take(struct obp *b, struct otr_layer *y, uint64_t t_ns,
		struct osp_profile **cur, char *err, size_t errlen)
{
	struct osp_snapshot s, *n;
	int e = obp_profile(b, y->l, cur);

	if (e) {
		snprintf(err, errlen, "layer %s: cannot read: %s", obp_layer_name(y->l), strerror(-e));
		return e;
	}
	e = snap_delta(&s, *cur, y->prev, t_ns);
	n = e ? NULL : realloc(y->snaps, (y->nsnaps + 1) * sizeof(*n));
	if (!n) {
		snap_free(&s);
		osp_profile_free(*cur);
		*cur = NULL;
		snprintf(err, errlen, "layer %s: out of memory", obp_layer_name(y->l));
		return -ENOMEM;
	}
	y->snaps = n;
	y->snaps[y->nsnaps++] = s;
	return 0;
}

int otr_interval(struct obp *b, struct otr_layer *y, uint64_t t_ns,
		 uint64_t interval_ns, bool print, char *err, size_t errlen)
{
	struct osp_profile *cur;
	int e = take(b, y, t_ns, &cur, err, errlen);

	if (e)
		return e;
	if (print && print_snap(cur, &y->snaps[y->nsnaps - 1], interval_ns)) {
		snprintf(err, errlen, "stdout: write error");
		e = -EIO;
	}
	osp_profile_free(y->prev);
	y->prev = cur;
	return e;
}

/* Note in @p what the programs could not record: a lost event is said. */
static int note_losses(struct obp *b, struct otr_layer *y, struct osp_profile *p)
{
	struct obp_stats st;
	int err = obp_stats(b, y->l, &st);

	if (err)
		return err;
	if (st.hist_full || st.inflight_full || st.pids_full)
		fprintf(stderr, OTR_PROG ": warning: layer %s lost events: %llu (histogram map full), "
			"%llu (in-flight map full), %llu processes not followed (pids map full)\n",
			obp_layer_name(y->l), (unsigned long long)st.hist_full,
			(unsigned long long)st.inflight_full, (unsigned long long)st.pids_full);
	err = osp_kv_set_u64(&p->options, "lost_hist_full", st.hist_full);
	err = err ? err : osp_kv_set_u64(&p->options, "lost_inflight_full", st.inflight_full);
	return err ? err : osp_kv_set_u64(&p->options, "lost_pids_full", st.pids_full);
}

static int write_json(const char *path, const struct osp_profile *p, char *err, size_t errlen)
{
	FILE *f = fopen(path, "w");
	int e;

	if (!f) {
		e = errno;
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(e));
		return -e;
	}
	e = osp_write_json(f, p);
	if (fclose(f) != 0 || e) {
		snprintf(err, errlen, "%s: write error", path);
		return -EIO;
	}
	return 0;
}

int otr_finish(struct obp *b, struct otr_layer *y, const struct osp_kvlist *source,
	       uint64_t interval_ns, const char *path, char *err, size_t errlen)
{
	struct osp_profile *p = NULL;
	int e;

	if (interval_ns) {
		/* The last, partial interval: the snapshots add up to the total. */
		e = take(b, y, y->nsnaps ? y->snaps[y->nsnaps - 1].t_ns : 0, &p, err, errlen);
		if (e)
			return e;
		y->snaps[y->nsnaps - 1].t_ns = p->elapsed_ns;
		p->tl_interval_ns = interval_ns;
		p->snaps = y->snaps;
		p->nsnaps = y->nsnaps;
		y->snaps = NULL;
		y->nsnaps = 0;
	} else if ((e = obp_profile(b, y->l, &p)) != 0) {
		snprintf(err, errlen, "layer %s: cannot read: %s", obp_layer_name(y->l), strerror(-e));
		return e;
	}
	for (size_t i = 0; i < source->n && !e; i++)
		e = osp_kv_set_json(&p->source, source->items[i].key, source->items[i].json);
	e = e ? e : note_losses(b, y, p);
	if (e) {
		snprintf(err, errlen, "layer %s: %s", obp_layer_name(y->l), strerror(-e));
		osp_profile_free(p);
		return e;
	}
	fputc('\n', stdout);
	if (osp_write_stats(stdout, p) || fflush(stdout)) {
		snprintf(err, errlen, "stdout: write error");
		e = -EIO;
	}
	if (!e && path)
		e = write_json(path, p, err, errlen);
	osp_profile_free(p);
	return e;
}

void otr_layer_fini(struct otr_layer *y)
{
	for (size_t i = 0; i < y->nsnaps; i++)
		snap_free(&y->snaps[i]);
	free(y->snaps);
	osp_profile_free(y->prev);
	memset(y, 0, sizeof(*y));
}
