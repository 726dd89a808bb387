// SPDX-License-Identifier: MIT
/*
 * The top view (-o top, or ctl's `top on`): per file and per process, requests, bytes read
 * and written, total latency and a log2 latency histogram (for p99), shown
 * sorted by total time in .osprof/top and as JSON in .osprof/top.json,
 * which `osprof-report top` polls as filetop does.
 *
 * Off by default: each table is -o top_max entries of about 1 KiB
 * preallocated, and every request pays a key lookup in each of the two
 * tables and a few atomic adds on counters that threads share when they
 * serve the same file or process.
 *
 * Switched at run time by ctl, with no lock on the request path: fs->top
 * is set once, at mount (-o top) or by the first `top on`, with a release
 * store after the tables are whole, and freed only at teardown, when no
 * request runs any more; a request loads it with acquire, so it sees the
 * tables as they were built, and may count into them at any time. `top
 * off` is therefore a flag (t->on), never a free: a request that read it
 * on just before may still count once after it, into tables that stay.
 * Off keeps the counts (hidden, as `disable` keeps the profile's) until
 * on again or reset. Keys are the lower file (ofs_inode_key:
 * device and inode number, so hard links are one; the directory for name
 * operations; forgets count for their process only) and the
 * caller's pid (its thread id, as FUSE gives it). Each key is named on
 * its first request (its path, or its process name and uid), before that
 * reply leaves. Keys past top_max are folded into one "other" entry per
 * table. An inode number or pid reused by a new file or process after its
 * first keeps the first one's name until a reset, as bcc's tools do.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "osprof/escape.h"
#include "osprof/hist.h"
#include "ofs.h"
#include "ofs_dump.h"
#include "ofs_inode.h"
#include "ofs_keys.h"
#include "ofs_req.h"
#include "ofs_top.h"
#include "ofs_who.h"

#define TOP_LABEL_LEN 256
#define TOP_BUCKETS OSP_HIST_NBUCKETS(1)

/* One file's or process's counters; every field atomic (relaxed adds). */
struct top_entry {
	uint64_t requests, read_bytes, write_bytes, total_ns;
	uint64_t hist[TOP_BUCKETS];  /* requests per log2 latency bucket */
	uint32_t named;              /* label and uid are set */
	uid_t uid;                   /* processes: the first request's */
	char label[TOP_LABEL_LEN];   /* a path, or a process name */
};

struct top_table {
	struct ofs_keys *keys;
	struct top_entry *e;         /* one per slot */
	struct top_entry other;      /* keys past the slots */
};

struct ofs_top {
	unsigned max;
	uint32_t on;                 /* atomic: recording */
	struct top_table files, procs;
};

static int table_init(struct top_table *t, unsigned max)
{
	t->keys = ofs_keys_new(max);
	t->e = t->keys ? calloc(max, sizeof(t->e[0])) : NULL;
	return t->e ? 0 : -ENOMEM;
}

static void table_fini(struct top_table *t)
{
	ofs_keys_free(t->keys);
	free(t->e);
}

/* Both tables of @max entries each, recording off; NULL (-ENOMEM). */
static struct ofs_top *top_alloc(unsigned max)
{
	struct ofs_top *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->max = max;
	if (table_init(&t->files, t->max) || table_init(&t->procs, t->max)) {
		table_fini(&t->files);
		table_fini(&t->procs);
		free(t);
		return NULL;
	}
	return t;
}

/* The tables, once published; NULL before. */
static struct ofs_top *top_of(struct ofs *fs)
{
	return __atomic_load_n(&fs->top, __ATOMIC_ACQUIRE);
}

int ofs_top_new(struct ofs *fs)
{
	int err;

	if (!fs->opts.top)
		return 0;
	err = ofs_top_prepare(fs);
	if (!err)
		ofs_top_set(fs, true);
	return err;
}

int ofs_top_prepare(struct ofs *fs)
{
	struct ofs_top *t;

	if (top_of(fs))
		return 0;
	t = top_alloc(fs->opts.top_max);
	if (!t)
		return -ENOMEM;
	/* Whole before it is seen: requests load it with acquire. */
	__atomic_store_n(&fs->top, t, __ATOMIC_RELEASE);
	return 0;
}

void ofs_top_set(struct ofs *fs, bool on)
{
	struct ofs_top *t = top_of(fs);

	if (t)
		__atomic_store_n(&t->on, on, __ATOMIC_RELEASE);
}

bool ofs_top_on(struct ofs *fs)
{
	struct ofs_top *t = top_of(fs);

	return t && __atomic_load_n(&t->on, __ATOMIC_ACQUIRE);
}

void ofs_top_free(struct ofs *fs)
{
	struct ofs_top *t = fs->top;

	if (!t)
		return;
	fs->top = NULL;
	table_fini(&t->files);
	table_fini(&t->procs);
	free(t);
}

static void add(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void count(struct top_entry *e, uint64_t rd, uint64_t wr, uint64_t lat_ns)
{
	add(&e->requests, 1);
	if (rd)
		add(&e->read_bytes, rd);
	if (wr)
		add(&e->write_bytes, wr);
	add(&e->total_ns, lat_ns);
	add(&e->hist[osp_bucket_index(lat_ns, 1)], 1);
}

/* The entry of @key in @t, -1 slots folded into other; *@fresh on first sight. */
static struct top_entry *entry_of(struct top_table *t, uint64_t key, bool *fresh)
{
	int slot = ofs_keys_get(t->keys, key, fresh);

	return slot < 0 ? &t->other : &t->e[slot];
}

void ofs_top_record(struct ofs_req *r, uint64_t lat_ns)
{
	struct ofs_top *t = top_of(r->fs);
	uint64_t rd = r->op == OFS_OP_READ ? r->done_bytes : 0;
	uint64_t wr = r->op == OFS_OP_WRITE ? r->done_bytes : 0;
	struct top_entry *e;
	bool fresh;

	if (!t || !__atomic_load_n(&t->on, __ATOMIC_RELAXED))
		return;
	if (r->ino && r->op != OFS_OP_FORGET && r->op != OFS_OP_BATCH_FORGET) {
		/* The lower file's identity, as by=file keys it: a FUSE ino is
		 * an inode's address, which a new file may reuse once freed. */
		e = entry_of(&t->files, ofs_inode_key(r->fs, r->ino, false), &fresh);
		if (fresh) {
			ofs_inode_label(r->fs, r->ino, e->label, sizeof(e->label));
			__atomic_store_n(&e->named, 1, __ATOMIC_RELEASE);
		}
		count(e, rd, wr, lat_ns);
	}
	e = entry_of(&t->procs, (uint64_t)(uint32_t)r->pid, &fresh);
	if (fresh) {
		ofs_comm_label(r->pid, e->label);
		e->uid = r->uid;
		__atomic_store_n(&e->named, 1, __ATOMIC_RELEASE);
	}
	count(e, rd, wr, lat_ns);
}

static void entry_zero(struct top_entry *e)
{
	__atomic_store_n(&e->named, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&e->requests, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->read_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->write_bytes, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&e->total_ns, 0, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < TOP_BUCKETS; i++)
		__atomic_store_n(&e->hist[i], 0, __ATOMIC_RELAXED);
}

/*
 * ctl's reset. Requests counted meanwhile may land in an entry before or
 * after it is zeroed, or under a key the reset forgets (then unseen):
 * only those racing with the reset.
 */
static void table_reset(struct top_table *t, unsigned max)
{
	ofs_keys_reset(t->keys);
	for (unsigned i = 0; i < max; i++)
		entry_zero(&t->e[i]);
	entry_zero(&t->other);
}

void ofs_top_reset(struct ofs *fs)
{
	struct ofs_top *t = top_of(fs);

	if (!t)
		return;
	table_reset(&t->files, t->max);
	table_reset(&t->procs, t->max);
}

/* ---- the view ---- */

struct top_row {
	uint64_t key;
	uint64_t requests, read_bytes, write_bytes, total_ns;
	double p99_ns;
	uid_t uid;
	char label[TOP_LABEL_LEN];
};

/* The 99th percentile of @dense's requests, which took @total_ns in all. */
static double p99_of(const uint64_t *dense, uint64_t total_ns)
{
	struct osp_hist h;
	unsigned lo, hi;
	double p = 0;

	if (osp_hist_init(&h, 1) != 0 || osp_hist_from_dense(&h, dense) != 0) {
		osp_hist_fini(&h);
		return 0;
	}
	h.count = osp_hist_bucket_total(&h);
	if (osp_hist_range(&h, &lo, &hi)) {
		/* Bounds from the buckets (no min and max are kept); no
		 * request took longer than all of them together. */
		h.min = (uint64_t)osp_bucket_lower_ns(lo, 1) + 1;
		h.max = (uint64_t)osp_bucket_upper_ns(hi, 1);
		h.max = h.max < total_ns ? h.max : total_ns;
		h.min = h.min < h.max ? h.min : h.max;
		p = osp_hist_percentile(&h, 99.0);
	}
	osp_hist_fini(&h);
	return p;
}

static void row_of(const struct top_entry *e, uint64_t key, struct top_row *row)
{
	uint64_t dense[TOP_BUCKETS];

	row->key = key;
	row->requests = __atomic_load_n(&e->requests, __ATOMIC_RELAXED);
	row->read_bytes = __atomic_load_n(&e->read_bytes, __ATOMIC_RELAXED);
	row->write_bytes = __atomic_load_n(&e->write_bytes, __ATOMIC_RELAXED);
	row->total_ns = __atomic_load_n(&e->total_ns, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < TOP_BUCKETS; i++)
		dense[i] = __atomic_load_n(&e->hist[i], __ATOMIC_RELAXED);
	row->p99_ns = p99_of(dense, row->total_ns);
	row->uid = 0;
	strcpy(row->label, "?");
	if (__atomic_load_n(&e->named, __ATOMIC_ACQUIRE)) {
		row->uid = e->uid;
		memcpy(row->label, e->label, sizeof(row->label));
		row->label[sizeof(row->label) - 1] = '\0';
	}
}

static int by_total(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 :
	       x->key < y->key ? -1 : x->key > y->key;
}

/* The rows of @t, sorted by total time, and its other entry in *@other. */
static struct top_row *table_rows(struct top_table *t, size_t *n, struct top_row *other)
{
	unsigned count = ofs_keys_count(t->keys);
	struct top_row *rows = calloc(count ? count : 1, sizeof(*rows));
	uint64_t key;

	*n = 0;
	if (!rows)
		return NULL;
	for (unsigned i = 0; i < count; i++)
		if (ofs_keys_key(t->keys, i, &key))
			row_of(&t->e[i], key, &rows[(*n)++]);
	qsort(rows, *n, sizeof(*rows), by_total);
	row_of(&t->other, 0, other);
	return rows;
}

static void text_counts(FILE *out, const struct top_row *r)
{
	fprintf(out, "%9" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12.3f %10.3f", r->requests,
		r->read_bytes, r->write_bytes, (double)r->total_ns / 1e6, r->p99_ns / 1e6);
}

static void text_table(FILE *out, bool procs, const struct top_row *rows, size_t n,
		       const struct top_row *other)
{
	if (procs)
		fprintf(out, "\n%7s %-16s %6s ", "PID", "COMM", "UID");
	fprintf(out, "%9s %12s %12s %12s %10s%s\n", "REQS", "READ_B", "WRITE_B", "TIME(ms)",
		"P99(ms)", procs ? "" : " FILE");
	for (size_t i = 0; i <= n; i++) {
		const struct top_row *r = i < n ? &rows[i] : other;

		if (i == n && !r->requests)
			break;
		if (procs && i < n) {
			fprintf(out, "%7" PRIu64 " ", r->key);
			osp_esc_text_col(out, r->label, 16);
			fprintf(out, " %6u ", (unsigned)r->uid);
		} else if (procs) {
			fprintf(out, "%7s %-16s %6s ", "-", "(other)", "-");
		}
		text_counts(out, r);
		if (!procs && i < n) {
			fputc(' ', out);
			osp_esc_text(out, r->label);
		} else if (!procs) {
			fputs(" (other)", out);
		}
		fputc('\n', out);
	}
}

static void json_counts(FILE *out, const struct top_row *r)
{
	fprintf(out, "\"requests\": %" PRIu64 ", \"read_bytes\": %" PRIu64 ", \"write_bytes\": %"
		PRIu64 ", \"total_ns\": %" PRIu64 ", \"p99_ns\": %.0f}", r->requests,
		r->read_bytes, r->write_bytes, r->total_ns, r->p99_ns);
}

static void json_table(FILE *out, bool procs, const struct top_row *rows, size_t n,
		       const struct top_row *other)
{
	fprintf(out, "\"%s\": [", procs ? "processes" : "files");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n  {" : "\n  {", out);
		if (procs)
			fprintf(out, "\"pid\": %" PRIu64 ", \"comm\": ", rows[i].key);
		else
			fputs("\"path\": ", out);
		osp_esc_json(out, rows[i].label);
		if (procs)
			fprintf(out, ", \"uid\": %u", (unsigned)rows[i].uid);
		fputs(", ", out);
		json_counts(out, &rows[i]);
	}
	fprintf(out, "%s],\n\"other_%s\": {", n ? "\n" : "", procs ? "processes" : "files");
	json_counts(out, other);
}

int ofs_top_gen(struct ofs *fs, const char *arg, FILE *out)
{
	struct ofs_top *t = top_of(fs);
	struct top_row *rows[2], other[2];
	size_t n[2];
	bool json = strcmp(arg, "json") == 0;
	int err = 0;

	if (!t || !__atomic_load_n(&t->on, __ATOMIC_ACQUIRE)) {
		if (json)
			fputs("{\"format\": \"osprof-top\", \"version\": 1, \"enabled\": false, "
			      "\"files\": [], \"processes\": []}\n", out);
		else
			fputs("top off (mount with -o top, or write 'top on' to ctl)\n", out);
		return ferror(out) ? -EIO : 0;
	}
	rows[0] = table_rows(&t->files, &n[0], &other[0]);
	rows[1] = table_rows(&t->procs, &n[1], &other[1]);
	if (!rows[0] || !rows[1]) {
		err = -ENOMEM;
		goto out;
	}
	if (json) {
		fprintf(out, "{\"format\": \"osprof-top\", \"version\": 1, \"enabled\": true, "
			"\"max\": %u, \"unix_ns\": %" PRIu64 ",\n", t->max, osp_clock_unix_ns());
		for (int i = 0; i < 2; i++) {
			json_table(out, i == 1, rows[i], n[i], &other[i]);
			fputs(i ? "}\n" : ",\n", out);
		}
	} else {
		for (int i = 0; i < 2; i++)
			text_table(out, i == 1, rows[i], n[i], &other[i]);
	}
	err = ferror(out) ? -EIO : 0;
out:
	free(rows[0]);
	free(rows[1]);
	return err;
}

static int top_json(FILE *out, const void *fs)
{
	return ofs_top_gen((struct ofs *)fs, "json", out);
}

int ofs_top_dump(struct ofs *fs)
{
	return ofs_top_on(fs) ? ofs_dump_beside(fs, "top", OFS_DUMP_NAMES, top_json, fs) : 0;
}
