// SPDX-License-Identifier: MIT
/*
 * "Where the time goes", computed (orp_where.h): per FUSE operation, the
 * level of each layer -- the application's calls that make it, the FUSE
 * request, the daemon, the daemon's lower calls that serve it, the disk
 * -- found through orp_where_map.c's table, then the rows that stack
 * them. A step between two levels is a subtraction only when both counted
 * the same requests: the request is one a call waits for, no other busy
 * operation shares the calls counted, and the counts agree within
 * ORP_WHERE_TOLERANCE. Where a step is none, the row says why and the
 * level below starts a block of its own, its time the base of the shares
 * under it: a number is never divided by one it does not belong to.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "orp_where.h"
#include "osprof/format.h"
#include "osprof/layers.h"

static const char *const level_layers[] = {
	[ORP_WL_APP] = OSP_LAYER_SYSCALL, [ORP_WL_FUSE] = OSP_LAYER_FUSE, [ORP_WL_FS] = OSP_LAYER_FS,
	[ORP_WL_LOWER] = OSP_LAYER_LOWER, [ORP_WL_DISK] = OSP_LAYER_BLOCK,
};
_Static_assert(sizeof(level_layers) / sizeof(level_layers[0]) == ORP_WL__COUNT,
	       "a layer for every level");

static const char *const verdict_names[] = {
	[ORP_WV_OK] = "ok", [ORP_WV_COUNTS] = "counts", [ORP_WV_ASYNC] = "async",
	[ORP_WV_SHARED] = "shared", [ORP_WV_PASSTHROUGH] = "passthrough",
	[ORP_WV_DISK] = "disk",
};
_Static_assert(sizeof(verdict_names) / sizeof(verdict_names[0]) == ORP_WV__COUNT,
	       "a name for every verdict");

const char *orp_wlevel_layer(enum orp_wlevel lv)
{
	return (unsigned)lv < ORP_WL__COUNT ? level_layers[lv] : "?";
}

const char *orp_wverdict_name(enum orp_wverdict v)
{
	return (unsigned)v < ORP_WV__COUNT ? verdict_names[v] : "?";
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static const struct osp_op *busy_op(const struct osp_profile *p, const char *name)
{
	const struct osp_op *op = p ? osp_profile_find_op(p, name) : NULL;

	return op && op->lat.count ? op : NULL;
}

/*
 * Add @op (a call of the level) to @side: its count when @counted, its
 * histogram when @hist (a disk request's queue time is not a request).
 */
static int side_add(struct orp_wside *side, const struct osp_op *op, bool counted, bool hist)
{
	if (!side->present) {
		if (osp_hist_init(&side->hist, op->lat.res))
			return -EINVAL;
		side->present = true;
	}
	if (counted)
		side->count = add_sat(side->count, op->lat.count);
	side->sum_ns = add_sat(side->sum_ns, op->lat.sum);
	/* A histogram that does not merge (another resolution, an overflow)
	 * leaves the chart without it; the counts and sums stand. */
	if (hist && osp_hist_merge(&side->hist, &op->lat) == -ENOMEM)
		return -ENOMEM;
	if (side->ncalls < ORP_WHERE_CALLS)
		side->call[side->ncalls++] = op;
	return 0;
}

/* The calls of @list that @p counted, into @side. */
static int side_calls(struct orp_wside *side, const struct osp_profile *p,
		      const char *const *list, bool counted)
{
	int rc = 0;

	for (size_t i = 0; !rc && list && list[i]; i++) {
		const struct osp_op *op = busy_op(p, list[i]);

		if (op)
			rc = side_add(side, op, counted, true);
	}
	return rc;
}

/* One FUSE operation's request level (fuse or fs). */
static int side_request(struct orp_wside *side, const struct osp_profile *p,
			const char *name)
{
	const struct osp_op *op = busy_op(p, name);

	if (!op)
		return 0;
	if (osp_hist_copy(&side->hist, &op->lat))
		return -ENOMEM;
	side->present = true;
	side->count = op->lat.count;
	side->sum_ns = op->lat.sum;
	return 0;
}

/* "vda.read.queue": device "vda", direction "read", queue time. */
static bool block_name(const char *name, char *dev, size_t devlen, char *dir,
		       size_t dirlen, bool *queue)
{
	const char *op;
	size_t n = osp_block_split(name, &op), dl = strcspn(op, ".");

	*queue = op[dl] != '\0';
	if (!n || n >= devlen || dl >= dirlen)
		return false;
	snprintf(dev, devlen, "%.*s", (int)n, name);
	snprintf(dir, dirlen, "%.*s", (int)dl, op);
	return true;
}

/* The disk level: every device's requests of the directions @op uses. */
static int side_disk(struct orp_where_op *op, const struct osp_profile *p)
{
	struct orp_wside *side = &op->lv[ORP_WL_DISK];
	int rc = 0;

	for (size_t i = 0; !rc && i < p->nops; i++) {
		const struct osp_op *b = &p->ops[i];
		char dev[64], dir[32];
		struct orp_wdisk *d = NULL;
		bool queue;

		if (!b->lat.count || !block_name(b->name, dev, sizeof(dev), dir, sizeof(dir), &queue) ||
		    !orp_names_have(op->map->disk, dir))
			continue;
		for (size_t k = 0; k < op->ndisks && !d; k++)
			if (strcmp(op->disks[k].dev, dev) == 0)
				d = &op->disks[k];
		if (!d && op->ndisks < ORP_WHERE_DISKS) {
			d = &op->disks[op->ndisks];
			if (!(d->dev = strdup(dev)))
				return -ENOMEM;
			op->ndisks++;
		}
		if (!d)
			continue; /* more devices than room: the level still counts them */
		if (queue) {
			d->queue_count = add_sat(d->queue_count, b->lat.count);
			d->queue_sum_ns = add_sat(d->queue_sum_ns, b->lat.sum);
		} else {
			d->count = add_sat(d->count, b->lat.count);
			d->sum_ns = add_sat(d->sum_ns, b->lat.sum);
		}
		/* Queue time is part of what a lower call waits for; its
		 * requests are the same ones, so only service ones count. */
		rc = side_add(side, b, !queue, !queue);
	}
	if (side->present && !side->count)
		side->present = false;
	return rc;
}

__attribute__((format(printf, 2, 3)))
static int note(struct orp_where_op *op, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (op->nnotes == ORP_WHERE_NOTES)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&op->notes[op->nnotes], fmt, ap);
	va_end(ap);
	if (n < 0) {
		op->notes[op->nnotes] = NULL;
		return -ENOMEM;
	}
	op->nnotes++;
	return 0;
}

/* "read, pread64, readv" of a list, into @buf. */
static char *list_text(char *buf, size_t len, const char *const *list)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; list && list[i] && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", list[i]);
	return buf;
}

/* The levels of @op, and the notes on those left out. */
static int gather_levels(const struct orp_where *w, struct orp_where_op *op)
{
	const struct orp_fuse_map *m = op->map;
	char calls[256];
	int rc;

	rc = side_request(&op->lv[ORP_WL_FUSE], w->layer[ORP_WL_FUSE], op->name);
	if (!rc)
		rc = side_request(&op->lv[ORP_WL_FS], w->layer[ORP_WL_FS], op->name);
	if (rc || !m)
		return rc ? rc : note(op, "not in osprof-report's table of FUSE operations: only fuse and fs are stacked");
	if (w->layer[ORP_WL_APP]) {
		if (m->app_kind == ORP_APP_WALK)
			rc = note(op, "syscall: not stacked: %s", m->app_more);
		else if (!m->app)
			rc = note(op, "syscall: no application call makes it: %s", m->app_more);
		else
			rc = side_calls(&op->lv[ORP_WL_APP], w->layer[ORP_WL_APP], m->app, true);
		if (!rc && m->app && m->app_kind != ORP_APP_WALK && !op->lv[ORP_WL_APP].present)
			rc = note(op, "syscall: none of its calls counted (%s)",
				  list_text(calls, sizeof(calls), m->app));
	}
	if (!rc && w->layer[ORP_WL_LOWER]) {
		if (!m->lower)
			rc = note(op, "lower: the daemon makes no call on the lower file system for it");
		else
			rc = side_calls(&op->lv[ORP_WL_LOWER], w->layer[ORP_WL_LOWER], m->lower, true);
		if (!rc && op->lv[ORP_WL_LOWER].present)
			rc = side_calls(&op->lv[ORP_WL_LOWER], w->layer[ORP_WL_LOWER], m->lower_also, false);
		else if (!rc && m->lower)
			rc = note(op, "lower: none of its calls counted (%s)",
				  list_text(calls, sizeof(calls), m->lower));
	}
	if (!rc && w->layer[ORP_WL_DISK] && m->disk)
		rc = side_disk(op, w->layer[ORP_WL_DISK]);
	return rc;
}

/* ---- verdicts ------------------------------------------------------------ */

static bool counts_agree(uint64_t a, uint64_t b)
{
	uint64_t hi = a > b ? a : b, d = a > b ? a - b : b - a;

	return (double)d <= ORP_WHERE_TOLERANCE * (double)hi;
}

static bool op_busy(const struct orp_where_op *o)
{
	return (o->lv[ORP_WL_FUSE].present && o->lv[ORP_WL_FUSE].count) ||
	       (o->lv[ORP_WL_FS].present && o->lv[ORP_WL_FS].count);
}

/* The calls of @list (or @also) at @lv in map @m. */
static bool level_has(const struct orp_fuse_map *m, enum orp_wlevel lv, const char *call)
{
	if (lv == ORP_WL_APP)
		return m->app_kind == ORP_APP_CALL && orp_names_have(m->app, call);
	if (lv == ORP_WL_LOWER)
		return orp_names_have(m->lower, call) || orp_names_have(m->lower_also, call);
	return orp_names_have(m->disk, call);
}

/*
 * The other busy operations whose calls at level @lv include one of
 * @calls, which @op counted there, into @r's sharers (the first
 * ORP_WHERE_SHARERS named, all of them counted).
 */
static void sharers(const struct orp_where *w, const struct orp_where_op *op,
		    enum orp_wlevel lv, const char *const *calls, struct orp_wrow *r)
{
	r->nsharers = 0;
	for (size_t i = 0; i < w->n; i++) {
		const struct orp_where_op *o = &w->ops[i];
		bool shares = false;

		if (o == op || !o->map || !op_busy(o))
			continue;
		for (size_t k = 0; calls && calls[k] && !shares; k++)
			shares = level_has(o->map, lv, calls[k]) &&
				 (lv == ORP_WL_DISK || busy_op(w->layer[lv], calls[k]));
		if (!shares)
			continue;
		if (r->nsharers < ORP_WHERE_SHARERS)
			r->sharer[r->nsharers] = (struct orp_wsharer){
				.name = o->name,
				.count = o->lv[ORP_WL_FUSE].present ? o->lv[ORP_WL_FUSE].count
								    : o->lv[ORP_WL_FS].count,
			};
		r->nsharers++;
	}
}

/* The counted calls of @op at level @lv, a NULL-terminated list (freed
 * by the caller; its strings are the profile's). */
static const char **counted_calls(const struct orp_where *w, const struct orp_where_op *op,
				  enum orp_wlevel lv)
{
	const char *const *lists[2] = { NULL, NULL };
	const char **v;
	size_t n = 0, k = 0;

	if (lv == ORP_WL_APP) {
		lists[0] = op->map->app;
	} else if (lv == ORP_WL_LOWER) {
		lists[0] = op->map->lower;
		lists[1] = op->map->lower_also;
	} else {
		lists[0] = op->map->disk;
	}
	for (size_t l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && lists[l][i]; i++)
			n++;
	v = calloc(n + 1, sizeof(*v));
	for (size_t l = 0; v && l < 2; l++)
		for (size_t i = 0; lists[l] && lists[l][i]; i++)
			if (lv == ORP_WL_DISK || busy_op(w->layer[lv], lists[l][i]))
				v[k++] = lists[l][i];
	return v;
}

/*
 * The verdict on step @r of @op (its levels and counts set) and the cause
 * it rests on: passed through, no call waiting, calls shared, counts
 * apart -- the first that holds -- else a subtraction. 0 or -ENOMEM.
 */
static int judge(const struct orp_where *w, const struct orp_where_op *op, struct orp_wrow *r)
{
	bool at_disk = r->lo == ORP_WL_DISK;

	if (op->passthrough && r->up == ORP_WL_APP) {
		r->verdict = ORP_WV_PASSTHROUGH;
		r->cause = ORP_WC_PASSTHROUGH;
		return 0;
	}
	if (r->up == ORP_WL_APP && op->map && op->map->app_kind == ORP_APP_ASYNC) {
		r->verdict = ORP_WV_ASYNC;
		r->cause = ORP_WC_ASYNC;
		return 0;
	}
	if (op->map && (r->up == ORP_WL_APP || r->lo == ORP_WL_LOWER || at_disk)) {
		enum orp_wlevel at = r->up == ORP_WL_APP ? ORP_WL_APP : r->lo;
		const char **calls = counted_calls(w, op, at);

		if (!calls)
			return -ENOMEM;
		sharers(w, op, at, calls, r);
		free(calls);
	}
	if (r->nsharers) {
		r->verdict = at_disk ? ORP_WV_DISK : ORP_WV_SHARED;
		r->cause = ORP_WC_SHARED;
	} else if (!counts_agree(r->count_up, r->count_lo)) {
		r->verdict = at_disk ? ORP_WV_DISK : ORP_WV_COUNTS;
		r->cause = ORP_WC_COUNTS;
	}
	return 0;
}

/* ---- rows ------------------------------------------------------------------ */

/*
 * The rows of an operation are built in passes: lay_out (a row per level
 * counted and a step between each two), judge_steps (each step's
 * verdict), drop_inner_levels (a level inside a run of steps that
 * subtract), number_rows (times and shares, each of its block's base)
 * and unbase_alone (a base of no step). A block is a run of levels joined
 * by steps that subtract; a step that does not starts the next one.
 */

static double mean_of(const struct orp_wside *s)
{
	return s->count ? (double)s->sum_ns / (double)s->count : 0.0;
}

static struct orp_wrow *push_row(struct orp_where_op *op)
{
	struct orp_wrow *r;

	if (op->nrows == ORP_WHERE_ROWS)
		return NULL; /* five levels make at most nine rows */
	r = &op->rows[op->nrows++];
	memset(r, 0, sizeof(*r));
	r->mean_ns = r->total_ns = r->share = NAN;
	return r;
}

/* A level's own row: its count and time. */
static void push_level(struct orp_where_op *op, enum orp_wlevel lv)
{
	const struct orp_wside *s = &op->lv[lv];
	struct orp_wrow *r = push_row(op);

	if (!r)
		return;
	r->up = r->lo = lv;
	r->count_up = r->count_lo = s->count;
	r->mean_ns = mean_of(s);
	r->total_ns = (double)s->sum_ns;
}

/* A step from level @up to @lo, not yet judged. */
static void push_step(struct orp_where_op *op, enum orp_wlevel up, enum orp_wlevel lo)
{
	struct orp_wrow *r = push_row(op);

	if (!r)
		return;
	r->step = true;
	r->up = up;
	r->lo = lo;
	r->count_up = op->lv[up].count;
	r->count_lo = op->lv[lo].count;
}

/*
 * Pass 1: a row for each level @op counted, top down, with a step
 * between each two. Passed through, the step from the application's
 * calls is to fuse, whether or not fuse counted any (and is there when
 * no level under them counted).
 */
static void lay_out(struct orp_where_op *op)
{
	int above = -1;

	for (int lv = 0; lv < ORP_WL__COUNT; lv++) {
		if (!op->lv[lv].present || !op->lv[lv].count)
			continue;
		if (above >= 0)
			push_step(op, (enum orp_wlevel)above,
				  op->passthrough && above == ORP_WL_APP ? ORP_WL_FUSE
									 : (enum orp_wlevel)lv);
		push_level(op, (enum orp_wlevel)lv);
		above = lv;
	}
	if (op->passthrough && above == ORP_WL_APP)
		push_step(op, ORP_WL_APP, ORP_WL_FUSE);
}

/* Pass 2: each step's verdict. 0 or -ENOMEM. */
static int judge_steps(const struct orp_where *w, struct orp_where_op *op)
{
	int rc = 0;

	for (size_t i = 0; !rc && i < op->nrows; i++)
		if (op->rows[i].step)
			rc = judge(w, op, &op->rows[i]);
	return rc;
}

static bool subtracts(const struct orp_wrow *r)
{
	return r->step && r->verdict == ORP_WV_OK;
}

/*
 * Pass 3: a level between two steps that subtract is inside their block:
 * its row goes. A level that opens a block stays as its base, and one
 * that closes a block (a step that subtracts above it, none below) with
 * its own share.
 */
static void drop_inner_levels(struct orp_where_op *op)
{
	size_t n = 0;

	/* Rows are read at i - 1 and i + 1 before they are overwritten:
	 * n never passes i. */
	for (size_t i = 0; i < op->nrows; i++) {
		bool inner = !op->rows[i].step && i > 0 && i + 1 < op->nrows &&
			     subtracts(&op->rows[i - 1]) && subtracts(&op->rows[i + 1]);

		if (!inner)
			op->rows[n++] = op->rows[i];
	}
	op->nrows = n;
}

/*
 * Pass 4: times and shares. A level that opens a block is its base
 * (100%); a step that subtracts takes the lower level's time from the
 * upper's; the level that closes a block has its own time as a share of
 * the base. A step that does not subtract has no time, but one passed
 * through that FUSE never saw: the upper level's time is all the
 * kernel's and the lower fs's.
 */
static void number_rows(struct orp_where_op *op)
{
	double base_ns = 0.0;

	for (size_t i = 0; i < op->nrows; i++) {
		struct orp_wrow *r = &op->rows[i];
		const struct orp_wside *up = &op->lv[r->up], *lo = &op->lv[r->lo];

		if (!r->step && (i == 0 || !subtracts(&op->rows[i - 1]))) {
			r->base = true;
			r->share = 1.0;
			base_ns = r->total_ns;
		} else if (!r->step) {
			r->share = base_ns > 0 ? r->total_ns / base_ns : NAN;
		} else if (subtracts(r)) {
			r->mean_ns = mean_of(up) - mean_of(lo);
			r->total_ns = (double)up->sum_ns - (double)lo->sum_ns;
			r->share = base_ns > 0 ? r->total_ns / base_ns : NAN;
		} else if (r->verdict == ORP_WV_PASSTHROUGH && !r->count_lo) {
			r->mean_ns = mean_of(up);
			r->total_ns = base_ns;
			r->share = 1.0;
		}
	}
}

/* Pass 5: a base with no step under it that has a share is the base of nothing. */
static void unbase_alone(struct orp_where_op *op)
{
	for (size_t i = 0; i < op->nrows; i++) {
		struct orp_wrow *r = &op->rows[i];
		const struct orp_wrow *next = i + 1 < op->nrows ? &op->rows[i + 1] : NULL;

		if (r->base && !(next && next->step && !isnan(next->share))) {
			r->base = false;
			r->share = NAN;
		}
	}
}

/* The rows of @op from its levels (gathered for every operation). */
static int build_rows(const struct orp_where *w, struct orp_where_op *op)
{
	int rc;

	lay_out(op);
	rc = judge_steps(w, op);
	if (rc)
		return rc;
	drop_inner_levels(op);
	number_rows(op);
	unbase_alone(op);
	return 0;
}

/* ---- passthrough ------------------------------------------------------------ */

/* What osprof-fs passed through before its profiles said which. */
#define PASSED_THROUGH_BEFORE "read,write"

/*
 * The next name of comma-separated @*s into @name (@len bytes), @*s moved
 * past it; false at the end. A name too long for @name is cut, so it is
 * no FUSE operation's.
 */
static bool next_name(const char **s, char *name, size_t len)
{
	size_t n;

	if (!*s)
		return false;
	n = strcspn(*s, ",");
	snprintf(name, len, "%.*s", (int)n, *s);
	*s = (*s)[n] ? *s + n + 1 : NULL;
	return true;
}

/* Whether @w's passed_through names FUSE operation @op. */
static bool passes(const struct orp_where *w, const char *op)
{
	const char *s = w->passed_through;
	char name[64];

	while (next_name(&s, name, sizeof(name)))
		if (strcmp(name, op) == 0)
			return true;
	return false;
}

/* How many names @w's passed_through holds: operations it may add. */
static size_t npassed(const struct orp_where *w)
{
	const char *s = w->passed_through;
	char name[64];
	size_t n = 0;

	while (next_name(&s, name, sizeof(name)))
		n++;
	return n;
}

/* ---- the view ---------------------------------------------------------------- */

static int cmp_ops(const void *a, const void *b)
{
	const struct orp_where_op *x = a, *y = b;

	if (x->top_ns != y->top_ns)
		return x->top_ns < y->top_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static bool listed(const struct orp_where *w, const char *name)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->ops[i].name, name) == 0)
			return true;
	return false;
}

/* Add FUSE operation @name (a profile's string or the table's) to the view. */
static int add_op(struct orp_where *w, const char *name)
{
	struct orp_where_op *op = &w->ops[w->n++];

	memset(op, 0, sizeof(*op));
	op->name = name;
	op->map = orp_fuse_map_find(name);
	op->passthrough = op->map && passes(w, name);
	return gather_levels(w, op);
}

/* Under passthrough, each operation passed through that the application
 * made and FUSE never saw. */
static int add_passed(struct orp_where *w)
{
	const char *s = w->passed_through;
	char name[64];
	int rc = 0;

	while (!rc && w->layer[ORP_WL_APP] && next_name(&s, name, sizeof(name))) {
		const struct orp_fuse_map *m = orp_fuse_map_find(name);

		if (!m || listed(w, m->op))
			continue;
		for (size_t k = 0; m->app && m->app[k]; k++)
			if (busy_op(w->layer[ORP_WL_APP], m->app[k])) {
				rc = add_op(w, m->op);
				break;
			}
	}
	return rc;
}

/* The text of option @key of @p (the first), or NULL when it has none. -ENOMEM. */
static int option_text(const struct osp_profile *p, const char *key, char **out)
{
	*out = NULL;
	for (size_t i = 0; i < p->options.n; i++)
		if (strcmp(p->options.items[i].key, key) == 0)
			return (*out = osp_kv_text(&p->options.items[i])) ? 0 : -ENOMEM;
	return 0;
}

/*
 * The fs profile's options, as osprof-fs records them: transport;
 * passthrough, what it passed through and the layer that timed it
 * (passed_through, passed_through_layer; before osprof-fs wrote them,
 * read and write at layer syscall).
 */
static int read_options(struct orp_where *w)
{
	const struct osp_profile *p = w->layer[ORP_WL_FS] ? w->layer[ORP_WL_FS] : w->layer[ORP_WL_FUSE];
	const char *pt = osp_kv_get(&p->options, "passthrough");
	char *layer = NULL;
	int rc;

	w->passthrough = pt && strcmp(pt, "true") == 0;
	rc = option_text(p, "transport", &w->transport);
	if (rc || !w->passthrough)
		return rc;
	rc = option_text(p, "passed_through", &w->passed_through);
	if (!rc)
		rc = option_text(p, "passed_through_layer", &layer);
	if (!rc && !w->passed_through && !(w->passed_through = strdup(PASSED_THROUGH_BEFORE)))
		rc = -ENOMEM;
	/* The view stacks what was passed through on the application's calls
	 * alone: timed elsewhere, it has no level to put them at. */
	if (!rc && layer && strcmp(layer, level_layers[ORP_WL_APP]) != 0) {
		free(w->passed_through);
		w->passed_through = NULL;
	}
	free(layer);
	return rc;
}

int orp_where_build(const struct orp_layered *l, struct orp_where *w)
{
	size_t cap = 0, levels = 0;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < l->n; i++)
		for (int lv = 0; lv < ORP_WL__COUNT; lv++)
			if (strcmp(l->prof[i]->layer, level_layers[lv]) == 0 && !w->layer[lv]) {
				w->layer[lv] = l->prof[i];
				levels++;
			}
	if ((!w->layer[ORP_WL_FUSE] && !w->layer[ORP_WL_FS]) || levels < 2)
		return -ENOENT;
	if (read_options(w))
		return -ENOMEM;
	for (int lv = ORP_WL_FUSE; lv <= ORP_WL_FS; lv++)
		cap += w->layer[lv] ? w->layer[lv]->nops : 0;
	w->ops = calloc(cap + npassed(w) + 1, sizeof(*w->ops));
	if (!w->ops)
		return -ENOMEM;
	for (int lv = ORP_WL_FS; !rc && lv >= ORP_WL_FUSE; lv--)
		for (size_t i = 0; !rc && w->layer[lv] && i < w->layer[lv]->nops; i++) {
			const struct osp_op *o = &w->layer[lv]->ops[i];

			if (o->lat.count && !listed(w, o->name))
				rc = add_op(w, o->name);
		}
	if (!rc)
		rc = add_passed(w);
	for (size_t i = 0; !rc && i < w->n; i++)
		rc = build_rows(w, &w->ops[i]);
	/* The order: the time of what the summary's shares are of. */
	for (size_t i = 0; i < w->n; i++) {
		struct orp_where_op *op = &w->ops[i];
		size_t first = 0, end;
		bool open;

		if (!orp_where_block(op, &first, &end, &open))
			first = 0;
		op->top_ns = op->nrows ? op->rows[first].total_ns : 0.0;
	}
	if (!rc)
		qsort(w->ops, w->n, sizeof(*w->ops), cmp_ops);
	return rc;
}

void orp_where_fini(struct orp_where *w)
{
	for (size_t i = 0; w->ops && i < w->n; i++) {
		struct orp_where_op *op = &w->ops[i];

		for (int lv = 0; lv < ORP_WL__COUNT; lv++) {
			osp_hist_fini(&op->lv[lv].hist);
		}
		for (size_t k = 0; k < op->nnotes; k++)
			free(op->notes[k]);
		for (size_t k = 0; k < op->ndisks; k++)
			free(op->disks[k].dev);
	}
	free(w->ops);
	free(w->transport);
	free(w->passed_through);
	memset(w, 0, sizeof(*w));
}

char *orp_where_layers(char *buf, size_t len, const struct orp_where *w)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int lv = 0; lv < ORP_WL__COUNT && o < len; lv++)
		if (w->layer[lv])
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", level_layers[lv]);
	return buf;
}

/* What the time between level @lv and the next one down is. */
static const char *segment(const struct orp_where *w, enum orp_wlevel lv)
{
	switch (lv) {
	case ORP_WL_APP:
		return "kernel outside FUSE";
	case ORP_WL_FUSE:
		return w->transport && strcmp(w->transport, "io_uring") == 0
			       ? "FUSE transport (io_uring) and queueing"
			       : "FUSE transport and queueing";
	case ORP_WL_FS:
		return "daemon's own work";
	default:
		return "lower fs, less the disk";
	}
}

static const char *const level_whats[] = {
	[ORP_WL_APP] = "application's calls", [ORP_WL_FUSE] = "FUSE requests",
	[ORP_WL_FS] = "daemon (osprof-fs)", [ORP_WL_LOWER] = "lower file system",
	[ORP_WL_DISK] = "disk",
};

const char *orp_wrow_what(const struct orp_where *w, const struct orp_wrow *r,
			  char *buf, size_t len)
{
	size_t o = 0;

	if (!r->step)
		return level_whats[r->up];
	if (r->verdict == ORP_WV_PASSTHROUGH)
		return "passed through to the lower fs";
	buf[0] = '\0';
	for (int lv = r->up; lv < (int)r->lo && o < len; lv++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " + " : "",
				      segment(w, (enum orp_wlevel)lv));
	return buf;
}

bool orp_where_block(const struct orp_where_op *op, size_t *first, size_t *end,
		     bool *open)
{
	size_t best = 0, best_steps = 0, bend = 0;
	bool found = false;

	for (size_t i = 0; i < op->nrows; i++) {
		size_t steps = 0, j = i + 1;

		if (!op->rows[i].base)
			continue;
		for (; j < op->nrows && op->rows[j].step && !isnan(op->rows[j].share); j++)
			steps++;
		/* The level row that closes the block, with its share. */
		if (j < op->nrows && !op->rows[j].step && !op->rows[j].base)
			j++;
		if (!found || steps > best_steps) {
			best = i;
			best_steps = steps;
			bend = j;
			found = true;
		}
	}
	if (!found)
		return false;
	*first = best;
	*end = bend;
	/* Open: a step that does not subtract follows the block. */
	*open = bend < op->nrows && op->rows[bend].step;
	return true;
}
