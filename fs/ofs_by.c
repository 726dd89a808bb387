// SPDX-License-Identifier: MIT
/*
 * Profiles per key value (-o by=KEY): besides the totals, one profile set
 * per value of the key -- the caller's pid, its process name, its uid, the
 * top-level directory under the mount or the file a request is about --
 * for the first by_max values seen; the requests of later values go to
 * one `other` set, and the distinct values refused are counted.
 *
 * Recording (ofs_by_record, from ofs_req_close) finds the value's slot in
 * a lock-free map (ofs_keys.c) and records into its set as the totals
 * are recorded: no lock, no allocation but a worker's first record into a
 * set (its shard, as for the totals). Every set is made at mount. The
 * first request of a value takes its label once: the process name (pid,
 * comm) or the path in the mount (dir, file). A process name is hashed
 * to make the key (comm); two names with one hash go to `other` rather
 * than mix (counted as comm_collisions).
 *
 * Exposed as .osprof/by (text: a header per value, most total time first,
 * then core's stats view of its requests) and .osprof/by.json (format
 * "osprof-by": each value's profile as stats.json holds one), with
 * --dump FILE as FILE.by.json. The timeline covers every value: one
 * thread of ours ticks all their sets (core's ticked timelines), each
 * with an equal share of the timeline's memory bound, so by_max values
 * cost one thread, not by_max; reset zeroes every value's set and keeps
 * the values.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "obp.h"
#include "ofs.h"
#include "ofs_by.h"
#include "ofs_dump.h"
#include "ofs_inode.h"
#include "ofs_keys.h"
#include "ofs_opts.h"
#include "ofs_profile.h"
#include "ofs_req.h"
#include "ofs_who.h"
#include "osprof/escape.h"
#include "osprof/format.h"

/* Longer paths are cut (with "..." at the end) in labels. */
#define LABEL_LEN 256
/*
 * The value of requests about an inode that may be gone when they end
 * (forget, batch_forget) under by=dir and by=file.
 */
#define KEY_NO_INODE (OFS_KEYS_EMPTY - 1)
#define LABEL_NO_INODE "(forget)"

struct by_value {
	struct osp_set *set;
	atomic_bool ready;      /* key and label written (by its first request) */
	char label[LABEL_LEN];  /* process name or path, raw: escaped on output */
};

/* The thread that ticks every value's timeline (ofs_by_timeline_start). */
struct by_timeline {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* signals stop; waits on CLOCK_MONOTONIC */
	pthread_t thread;
	bool running, stop;     /* mu */
	uint64_t interval_ns;
};

struct ofs_by {
	enum ofs_by_key key;
	unsigned max;
	struct ofs_keys *keys;
	struct by_value *v;     /* max of them, slot order */
	struct osp_set *other;  /* values beyond max, and comm collisions */
	atomic_uint_fast64_t collisions;
	struct by_timeline tl;
};

int ofs_by_new(struct ofs *fs)
{
	struct ofs_by *b;

	if (fs->opts.by == OFS_BY_NONE)
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		goto nomem;
	fs->by = b;
	pthread_mutex_init(&b->tl.mu, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&b->tl.cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	b->key = fs->opts.by;
	b->max = fs->opts.by_max;
	b->keys = ofs_keys_new(b->max);
	b->v = calloc(b->max, sizeof(*b->v));
	b->other = osp_set_new(ofs_op_names, OFS_OP__COUNT, fs->opts.res, fs->opts.cpu_time);
	if (!b->keys || !b->v || !b->other)
		goto nomem;
	for (unsigned i = 0; i < b->max; i++) {
		b->v[i].set = osp_set_new(ofs_op_names, OFS_OP__COUNT, fs->opts.res,
					  fs->opts.cpu_time);
		if (!b->v[i].set)
			goto nomem;
	}
	return 0;
nomem:
	fprintf(stderr, "osprof-fs: cannot make the %u profiles of -o by=%s: %s\n",
		fs->opts.by_max, ofs_by_key_names[fs->opts.by], strerror(errno ? errno : ENOMEM));
	ofs_by_free(fs);
	return -ENOMEM;
}

void ofs_by_free(struct ofs *fs)
{
	struct ofs_by *b = fs->by;

	if (!b)
		return;
	ofs_by_timeline_stop(fs);
	pthread_cond_destroy(&b->tl.cv);
	pthread_mutex_destroy(&b->tl.mu);
	for (unsigned i = 0; b->v && i < b->max; i++)
		osp_set_free(b->v[i].set);
	free(b->v);
	osp_set_free(b->other);
	ofs_keys_free(b->keys);
	free(b);
	fs->by = NULL;
}

/* Every set of @b: the values' (slot order), then other. */
static struct osp_set *set_at(struct ofs_by *b, unsigned i)
{
	return i < b->max ? b->v[i].set : b->other;
}

/* One tick of every value's set. A failed tick is counted by its set
 * (missed); the next spans both. */
static void tick_all(void *arg)
{
	struct ofs_by *b = arg;

	for (unsigned i = 0; i <= b->max; i++)
		osp_set_timeline_tick(set_at(b, i));
}

static void *timeline_thread(void *arg)
{
	struct ofs_by *b = arg;

	pthread_mutex_lock(&b->tl.mu);
	osp_tick_every(&b->tl.mu, &b->tl.cv, &b->tl.stop, b->tl.interval_ns, tick_all, b);
	pthread_mutex_unlock(&b->tl.mu);
	return NULL;
}

void ofs_by_timeline_stop(struct ofs *fs)
{
	struct ofs_by *b = fs->by;

	if (!b)
		return;
	pthread_mutex_lock(&b->tl.mu);
	if (!b->tl.running) {
		pthread_mutex_unlock(&b->tl.mu);
		return;
	}
	b->tl.stop = true;
	pthread_cond_signal(&b->tl.cv);
	pthread_mutex_unlock(&b->tl.mu);
	pthread_join(b->tl.thread, NULL);
	b->tl.running = false;
	for (unsigned i = 0; i <= b->max; i++)
		osp_set_timeline_stop(set_at(b, i));
}

int ofs_by_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity)
{
	struct ofs_by *b = fs->by;
	/* One bound for all of them: the values share the totals' bound. */
	size_t share = OSP_TIMELINE_BOUND_BYTES / (b ? b->max + 1 : 1);
	size_t cap_max = osp_set_timeline_capacity_max(share);
	int err = 0;

	if (!b)
		return 0;
	ofs_by_timeline_stop(fs);
	if (capacity > cap_max)
		capacity = (unsigned)cap_max;
	for (unsigned i = 0; !err && i <= b->max; i++)
		err = osp_set_timeline_start_ticked(set_at(b, i), interval_ns, capacity, share);
	if (!err) {
		b->tl.stop = false;
		b->tl.interval_ns = interval_ns;
		err = -pthread_create(&b->tl.thread, NULL, timeline_thread, b);
	}
	if (err) {
		for (unsigned i = 0; i <= b->max; i++)
			osp_set_timeline_stop(set_at(b, i));
		return err;
	}
	b->tl.running = true;
	return 0;
}

bool ofs_by_present(struct ofs *fs, const char *arg)
{
	(void)arg;
	return fs->by != NULL;
}

void ofs_by_reset(struct ofs *fs)
{
	if (!fs->by)
		return;
	for (unsigned i = 0; i < fs->by->max; i++)
		osp_set_reset(fs->by->v[i].set);
	osp_set_reset(fs->by->other);
	atomic_store_explicit(&fs->by->collisions, 0, memory_order_relaxed);
}

/* FNV-1a of a process name; never OFS_KEYS_EMPTY or KEY_NO_INODE. */
static uint64_t name_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h >= KEY_NO_INODE ? h - 2 : h;
}

/* The key of @r; for comm, its process name in @comm. */
static uint64_t value_key(const struct ofs_by *b, struct ofs_req *r, char comm[OFS_COMM_LEN])
{
	switch (b->key) {
	case OFS_BY_PID:
		return (uint64_t)(uint32_t)r->pid;
	case OFS_BY_UID:
		return (uint64_t)r->uid;
	case OFS_BY_COMM:
		/* A kernel request (forget, release: pid 0), or a process gone. */
		ofs_comm_label(r->pid, comm);
		return name_key(comm);
	case OFS_BY_DIR:
	case OFS_BY_FILE:
		/* A forget's inode may be freed by now; batch_forget names none. */
		if (r->op == OFS_OP_FORGET || r->op == OFS_OP_BATCH_FORGET || !r->ino)
			return KEY_NO_INODE;
		return ofs_inode_key(r->fs, r->ino, b->key == OFS_BY_DIR);
	default:
		return 0;
	}
}

/* The path of @r's inode into @v's label; by=dir: its first component. */
static void label_path(struct ofs_req *r, struct by_value *v, bool top)
{
	char *path = v->label;

	ofs_inode_label(r->fs, r->ino, path, LABEL_LEN);
	if (top && path[0] == '/' && path[1])
		path[1 + strcspn(path + 1, "/")] = '\0';
}

/* The first request of a value names it, once. */
static void label(struct ofs_by *b, struct ofs_req *r, struct by_value *v, uint64_t key,
		  const char *comm)
{
	if (b->key == OFS_BY_COMM)
		snprintf(v->label, LABEL_LEN, "%s", comm);
	else if (b->key == OFS_BY_PID)
		ofs_comm_label(r->pid, v->label);
	else if (key == KEY_NO_INODE)
		strcpy(v->label, LABEL_NO_INODE);
	else if (b->key == OFS_BY_DIR || b->key == OFS_BY_FILE)
		label_path(r, v, b->key == OFS_BY_DIR);
	atomic_store_explicit(&v->ready, true, memory_order_release);
}

void ofs_by_record(struct ofs_req *r, uint64_t lat_ns, uint64_t cpu_ns)
{
	struct ofs_by *b = r->fs->by;
	char comm[OFS_COMM_LEN];
	uint64_t key = value_key(b, r, comm);
	struct by_value *v;
	bool fresh;
	int slot = ofs_keys_get(b->keys, key, &fresh);

	if (slot < 0) {
		osp_set_record(b->other, r->op, lat_ns, cpu_ns);
		return;
	}
	v = &b->v[slot];
	if (fresh) {
		label(b, r, v, key, comm);
	} else if (b->key == OFS_BY_COMM &&
		   atomic_load_explicit(&v->ready, memory_order_acquire) &&
		   strncmp(v->label, comm, OFS_COMM_LEN) != 0) {
		atomic_fetch_add_explicit(&b->collisions, 1, memory_order_relaxed);
		osp_set_record(b->other, r->op, lat_ns, cpu_ns);
		return;
	}
	osp_set_record(v->set, r->op, lat_ns, cpu_ns);
}

/* ---- reading them ---- */

/* One value as the files show it. */
struct row {
	char value[LABEL_LEN];  /* pid, uid: the number; else the label */
	const char *label;      /* pid: the process name; else NULL */
	struct osp_profile *p;  /* its requests, empty operations dropped */
	uint64_t requests, total_ns;
};

/* @p's requests and their total latency. */
static void row_totals(struct row *w)
{
	w->requests = w->total_ns = 0;
	for (size_t i = 0; i < w->p->nops; i++) {
		w->requests += w->p->ops[i].lat.count;
		w->total_ns += w->p->ops[i].lat.sum;
	}
}

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->value, y->value);
}

/* A profile of @set for the files, naming its value in its source. */
static int row_profile(struct ofs *fs, struct osp_set *set, const char *value, struct row *w)
{
	w->p = ofs_set_profile(fs, set, OSP_LAYER_FS);
	if (!w->p)
		return -ENOMEM;
	ofs_profile_drop_empty(w->p);
	row_totals(w);
	if (osp_kv_set_str(&w->p->source, "by", ofs_by_key_names[fs->by->key]) ||
	    osp_kv_set_str(&w->p->source, "by_value", value))
		return -ENOMEM;
	return 0;
}

struct snap {
	struct row *rows;   /* the values, most total time first */
	size_t n;
	struct row other;
	uint64_t refused;
	bool refused_more;
};

static void snap_free(struct snap *s)
{
	for (size_t i = 0; i < s->n; i++)
		osp_profile_free(s->rows[i].p);
	free(s->rows);
	osp_profile_free(s->other.p);
}

/* Every value's profile now, sorted. 0 or -ENOMEM. */
static int snap_take(struct ofs *fs, struct snap *s)
{
	struct ofs_by *b = fs->by;
	unsigned n = ofs_keys_count(b->keys);
	int err = 0;

	memset(s, 0, sizeof(*s));
	s->rows = calloc(n ? n : 1, sizeof(*s->rows));
	if (!s->rows)
		return -ENOMEM;
	for (unsigned i = 0; !err && i < n; i++) {
		struct by_value *v = &b->v[i];
		struct row *w = &s->rows[s->n];
		uint64_t key;

		/* Given but not yet named by its first request: a moment. */
		if (!atomic_load_explicit(&v->ready, memory_order_acquire) ||
		    !ofs_keys_key(b->keys, i, &key))
			continue;
		if (b->key == OFS_BY_PID || b->key == OFS_BY_UID)
			snprintf(w->value, sizeof(w->value), "%" PRIu64, key);
		else
			snprintf(w->value, sizeof(w->value), "%s", v->label);
		w->label = b->key == OFS_BY_PID ? v->label : NULL;
		err = row_profile(fs, v->set, w->value, w);
		s->n++;
	}
	strcpy(s->other.value, "other");
	err = err ? err : row_profile(fs, b->other, "other", &s->other);
	if (err) {
		snap_free(s);
		return err;
	}
	qsort(s->rows, s->n, sizeof(*s->rows), row_cmp);
	s->refused = ofs_keys_refused(b->keys, &s->refused_more);
	return 0;
}

/* "pid 1234 (grep): 5230 requests, 1.2 s" */
static void text_header(FILE *out, const char *key, const struct row *w)
{
	char t[32];

	fputs("==> ", out);
	if (key) {
		fprintf(out, "%s ", key);
		osp_esc_text(out, w->value);
	} else {
		fputs("other", out);
	}
	if (w->label) {
		fputs(" (", out);
		osp_esc_text(out, w->label);
		fputc(')', out);
	}
	fprintf(out, ": %" PRIu64 " requests, %s <==\n", w->requests,
		osp_fmt_ns(t, sizeof(t), (double)w->total_ns));
}

static int gen_text(struct ofs *fs, const struct snap *s, FILE *out)
{
	const char *key = ofs_by_key_names[fs->by->key];
	int err = 0;

	fprintf(out, "by %s\nmax_values %u\nvalues %zu\nfolded_requests %" PRIu64
		"\nrefused_values %s%" PRIu64 "\n", key, fs->by->max, s->n, s->other.requests,
		s->refused_more ? ">=" : "", s->refused);
	if (fs->by->key == OFS_BY_COMM)
		fprintf(out, "comm_collisions %" PRIu64 "\n",
			(uint64_t)atomic_load_explicit(&fs->by->collisions, memory_order_relaxed));
	for (size_t i = 0; !err && i < s->n; i++) {
		fputc('\n', out);
		text_header(out, key, &s->rows[i]);
		err = osp_write_stats(out, s->rows[i].p);
	}
	fputc('\n', out);
	text_header(out, NULL, &s->other);
	if (!err && s->other.requests)
		err = osp_write_stats(out, s->other.p);
	return err ? err : ferror(out) ? -EIO : 0;
}

/* "requests": N, "total_ns": T, "profile": {...} */
static int json_row(FILE *out, const struct row *w)
{
	fprintf(out, "\"requests\": %" PRIu64 ", \"total_ns\": %" PRIu64 ", \"profile\": ",
		w->requests, w->total_ns);
	return osp_write_json(out, w->p);
}

static int gen_json(struct ofs *fs, const struct snap *s, FILE *out)
{
	int err = 0;

	fprintf(out, "{\"format\": \"osprof-by\", \"version\": 1, \"key\": \"%s\", "
		"\"max_values\": %u, \"folded_requests\": %" PRIu64 ", \"refused_values\": %"
		PRIu64 ", \"refused_values_more\": %s, \"comm_collisions\": %" PRIu64
		", \"timeline\": \"every value\",\n\"values\": [",
		ofs_by_key_names[fs->by->key], fs->by->max, s->other.requests, s->refused,
		s->refused_more ? "true" : "false",
		(uint64_t)atomic_load_explicit(&fs->by->collisions, memory_order_relaxed));
	for (size_t i = 0; !err && i < s->n; i++) {
		fputs(i ? ",\n{\"value\": " : "\n{\"value\": ", out);
		osp_esc_json(out, s->rows[i].value);
		if (s->rows[i].label) {
			fputs(", \"label\": ", out);
			osp_esc_json(out, s->rows[i].label);
		}
		fputs(", ", out);
		err = json_row(out, &s->rows[i]);
		fputc('}', out);
	}
	fputs("],\n\"other\": {", out);
	err = err ? err : json_row(out, &s->other);
	fputs("}}\n", out);
	return err ? err : ferror(out) ? -EIO : 0;
}

int ofs_by_gen(struct ofs *fs, const char *arg, FILE *out)
{
	struct snap s;
	int err;

	if (!fs->by)
		return -ENOENT;
	err = snap_take(fs, &s);
	if (err)
		return err;
	err = strcmp(arg, "json") == 0 ? gen_json(fs, &s, out) : gen_text(fs, &s, out);
	snap_free(&s);
	return err;
}

static int dump_gen(FILE *out, const void *fs)
{
	return ofs_by_gen((struct ofs *)fs, "json", out);
}

int ofs_by_dump(struct ofs *fs)
{
	return fs->by ? ofs_dump_beside(fs, "by", OFS_DUMP_NAMES, dump_gen, fs) : 0;
}
