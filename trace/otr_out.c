// SPDX-License-Identifier: MIT
/*
 * What osprof-trace prints and writes. The eBPF maps are only ever read,
 * never zeroed: an interval is the difference of two cumulative readings
 * (core's osp_hist_delta), so no event is lost between intervals and the
 * intervals add up to the total exactly. They become the JSON profile's
 * timeline, as DESIGN.md's format has it (snapshots of deltas).
 *
 * Every view goes to standard error, as strace -c and perf trace -s put
 * their summaries: standard output is the traced command's, and
 * `osprof-trace -- cmd > file` must leave in file what cmd wrote alone.
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

#include "osp_wfile.h"
#include "otr.h"
#include "osprof/format.h"
#include "osprof/set.h"

char *otr_out_path(const char *out, enum obp_layer l, enum obp_layer first)
{
	return l == first ? strdup(out) : obp_layer_file(out, l);
}

/*
 * Write @head and @p's stats view to standard error in one write: stderr
 * is unbuffered, so a view written straight to it would be a write per
 * field, interleaved with whatever the command writes there meanwhile.
 * 0, -ENOMEM, or -EIO when stderr refuses it.
 */
static int put_view(const char *head, const struct osp_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		return -ENOMEM;
	fputs(head, m);
	err = osp_write_stats(m, p);
	if (fclose(m) != 0 && !err)
		err = -ENOMEM;
	if (!err && fwrite(buf, 1, len, stderr) != len)
		err = -EIO;
	free(buf);
	return err;
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
	char head[128];
	int err;

	snprintf(head, sizeof(head), "\n--- %s: interval ending at %.3f s ---\n", cur->layer,
		 (double)s->t_ns / 1e9);
	cur->ops = s->ops;
	cur->nops = cur->ops_cap = s->nops;
	cur->elapsed_ns = interval_ns;
	err = put_view(head, cur);
	cur->ops = ops;
	cur->nops = nops;
	cur->ops_cap = cap;
	cur->elapsed_ns = elapsed;
	return err;
}

/*
 * Read layer @y into *@cur and the difference from its last reading into
 * @s (at @t_ns): the caller keeps it (keep()).
 */
static int take(struct obp *b, struct otr_layer *y, uint64_t t_ns,
		struct osp_profile **cur, struct osp_snapshot *s, char *err, size_t errlen)
{
	int e = obp_profile(b, y->l, cur);

	if (e) {
		snprintf(err, errlen, "layer %s: cannot read: %s", obp_layer_name(y->l), strerror(-e));
		return e;
	}
	e = y->ring ? 0 : osp_ring_new(OTR_INTERVALS_MAX, OSP_TIMELINE_BOUND_BYTES, &y->ring);
	e = e ? e : osp_snapshot_delta(s, *cur, y->prev, t_ns);
	if (e) {
		osp_profile_free(*cur);
		*cur = NULL;
		snprintf(err, errlen, "layer %s: %s", obp_layer_name(y->l), strerror(-e));
		return e;
	}
	y->last_t_ns = t_ns;
	return 0;
}

int otr_interval(struct obp *b, struct otr_layer *y, uint64_t t_ns,
		 uint64_t interval_ns, bool print, char *err, size_t errlen)
{
	struct osp_snapshot s;
	struct osp_profile *cur;
	int e = take(b, y, t_ns, &cur, &s, err, errlen);

	if (e)
		return e;
	if (print && (e = print_snap(cur, &s, interval_ns)) != 0)
		snprintf(err, errlen, "standard error: %s", strerror(-e));
	osp_ring_push(y->ring, &s);
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

/* Written whole (core's osp_wfile): a reader never meets a torn file. */
static int write_json(const char *path, const struct osp_profile *p, char *err, size_t errlen)
{
	struct osp_wfile w;
	int e = osp_wfile_open(&w, path, 0666);

	if (e) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(-e));
		return e;
	}
	if (osp_write_json(w.f, p)) {
		osp_wfile_abort(&w);
		snprintf(err, errlen, "%s: write error", path);
		return -EIO;
	}
	e = osp_wfile_commit(&w);
	if (e) {
		snprintf(err, errlen, "%s: write error: %s", path, strerror(-e));
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
		struct osp_snapshot s;

		/* The last, partial interval: the snapshots add up to the
		 * total, unless the oldest were dropped (tl_dropped says). */
		e = take(b, y, y->last_t_ns, &p, &s, err, errlen);
		if (e)
			return e;
		s.t_ns = p->elapsed_ns;
		osp_ring_push(y->ring, &s);
		e = osp_ring_copy(y->ring, p, interval_ns, 0);
		if (e) {
			snprintf(err, errlen, "layer %s: %s", obp_layer_name(y->l), strerror(-e));
			osp_profile_free(p);
			return e;
		}
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
	e = put_view("\n", p);
	if (e)
		snprintf(err, errlen, "standard error: %s", strerror(-e));
	if (!e && path)
		e = write_json(path, p, err, errlen);
	osp_profile_free(p);
	return e;
}

void otr_layer_fini(struct otr_layer *y)
{
	osp_ring_free(y->ring);
	osp_profile_free(y->prev);
	memset(y, 0, sizeof(*y));
}
