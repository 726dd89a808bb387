// SPDX-License-Identifier: MIT
/*
 * The slow-request log (-o slow=DURATION, ctl's `slow`): every request at
 * least as slow as the threshold, with who asked, what about and when, in
 * a bounded ring that overwrites its oldest entry when full (and counts
 * it), shown as bcc's fileslower shows its lines (.osprof/slow) and as
 * JSON (.osprof/slow.json).
 *
 * Cost. The threshold is an atomic in struct ofs read by every closed
 * request (ofs_slow_record, ofs_slow.h): one load and one branch, the same
 * whether the log is off (UINT64_MAX) or no request is slow. Only a slow
 * request pays more: the wall clock, its process name (cached, ofs_who.c),
 * its path (readlink of its descriptor in /proc) and the ring's
 * mutex -- the one lock on a request's path, taken only by slow requests
 * and, for a copy of the ring, by the reader. Entries are written whole
 * under it, so a reader never sees half of one. This is done before the
 * reply leaves (ofs_req_close): the inode a request names is only
 * guaranteed alive until then (a forget may free it right after), so the
 * path cannot be taken later without a reference; the latency recorded is
 * taken before, but the caller waits that much more (README: measured).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "osprof/escape.h"
#include "obp.h"
#include "ofs.h"
#include "ofs_dump.h"
#include "ofs_req.h"
#include "ofs_slow.h"
#include "ofs_who.h"

/* A path longer than this is cut, and ends in "..." */
#define SLOW_PATH_LEN 480

struct slow_entry {
	uint64_t wall_ns;       /* when it was logged (its reply), Unix ns */
	uint64_t lat_ns;
	uint64_t size_bytes;    /* the size asked for (read, write, ...) */
	int64_t off;
	enum ofs_op op;
	unsigned bucket;        /* of the latency, at the mount's resolution */
	pid_t pid;
	uid_t uid;
	char comm[OFS_COMM_LEN];  /* "?" when the process was gone */
	char path[SLOW_PATH_LEN]; /* "?" when unknown (forget) */
};

struct ofs_slow {
	pthread_mutex_t mu;     /* guards what follows */
	unsigned cap;           /* entries in e */
	uint64_t head;          /* entries put in since reset; next at head % cap */
	uint64_t dropped;       /* overwritten while full, since reset */
	struct slow_entry e[];
};

/* The path of what @r is about: its inode's, "/name" after it for name
 * operations. 0 or -errno. */
static int req_path(const struct ofs_req *r, char *buf, size_t len)
{
	size_t n;
	int err;

	/* A forget may have freed its inode before its reply. */
	if (!r->ino || r->op == OFS_OP_FORGET || r->op == OFS_OP_BATCH_FORGET)
		return -ENOENT;
	err = ofs_inode_path(r->fs, r->ino, buf, len);
	if (err || !r->name)
		return err;
	n = strlen(buf);
	if (n == 1)
		n = 0; /* the root: "/name", not "//name" */
	return snprintf(buf + n, len - n, "/%s", r->name) < (int)(len - n) ? 0 : -ENAMETOOLONG;
}

void ofs_slow_log(struct ofs_req *r, uint64_t lat_ns)
{
	struct ofs_slow *s = __atomic_load_n(&r->fs->slow, __ATOMIC_ACQUIRE);
	struct slow_entry e = {
		.wall_ns = osp_clock_unix_ns(), .lat_ns = lat_ns, .size_bytes = r->size_bytes,
		.off = r->off, .op = r->op, .bucket = osp_bucket_index(lat_ns, r->fs->opts.res),
		.pid = r->pid, .uid = r->uid,
	};

	if (!s)
		return;
	ofs_comm_label(r->pid, e.comm);
	ofs_label_mark(e.path, sizeof(e.path), req_path(r, e.path, sizeof(e.path)));
	pthread_mutex_lock(&s->mu);
	if (s->head >= s->cap)
		s->dropped++;
	s->e[s->head++ % s->cap] = e;
	pthread_mutex_unlock(&s->mu);
}

int ofs_slow_set(struct ofs *fs, uint64_t ns)
{
	struct ofs_slow *s;

	if (!fs->slow && ns != UINT64_MAX) {
		s = calloc(1, sizeof(*s) + (size_t)fs->opts.slow_size * sizeof(s->e[0]));
		if (!s)
			return -ENOMEM;
		pthread_mutex_init(&s->mu, NULL);
		s->cap = fs->opts.slow_size;
		/* Published before any request can pass the threshold. */
		__atomic_store_n(&fs->slow, s, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&fs->slow_ns, ns, __ATOMIC_RELEASE);
	return 0;
}

void ofs_slow_reset(struct ofs *fs)
{
	struct ofs_slow *s = fs->slow;

	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->head = s->dropped = 0;
	pthread_mutex_unlock(&s->mu);
}

uint64_t ofs_slow_dropped(struct ofs *fs)
{
	uint64_t n = 0;

	if (fs->slow) {
		pthread_mutex_lock(&fs->slow->mu);
		n = fs->slow->dropped;
		pthread_mutex_unlock(&fs->slow->mu);
	}
	return n;
}

/* A copy of the log, oldest first: *@n entries (malloc'd; NULL when
 * empty), what was dropped. 0 or -ENOMEM. */
static int slow_copy(struct ofs_slow *s, struct slow_entry **out, size_t *n,
		     uint64_t *dropped)
{
	struct slow_entry *e = NULL;
	size_t want, held, first;

	*out = NULL;
	*n = 0;
	*dropped = 0;
	if (!s)
		return 0;
	/*
	 * Allocated outside the lock for what the log holds now, not for its
	 * whole capacity on every read; of entries logged meanwhile, the
	 * copy keeps the newest that fit.
	 */
	pthread_mutex_lock(&s->mu);
	want = s->head < s->cap ? (size_t)s->head : s->cap;
	pthread_mutex_unlock(&s->mu);
	e = malloc((want ? want : 1) * sizeof(*e));
	if (!e)
		return -ENOMEM;
	pthread_mutex_lock(&s->mu);
	held = s->head < s->cap ? (size_t)s->head : s->cap;
	held = held < want ? held : want;
	first = (size_t)((s->head - held) % s->cap);
	for (size_t i = 0; i < held; i++)
		e[i] = s->e[(first + i) % s->cap];
	*dropped = s->dropped;
	pthread_mutex_unlock(&s->mu);
	*out = e;
	*n = held;
	return 0;
}

static void gen_text_entry(FILE *out, const struct slow_entry *e)
{
	time_t t = (time_t)(e->wall_ns / 1000000000u);
	struct tm tm;
	char hms[16];

	localtime_r(&t, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	fprintf(out, "%s.%03u ", hms, (unsigned)(e->wall_ns / 1000000u % 1000u));
	osp_esc_text_col(out, e->comm, 16);
	fprintf(out, " %7d %6u %-12s %8" PRIu64 " %8" PRId64 " %10.3f %6u ", (int)e->pid,
		(unsigned)e->uid, ofs_op_names[e->op], e->size_bytes, e->off / 1024,
		(double)e->lat_ns / 1e6, e->bucket);
	osp_esc_text(out, e->path);
	fputc('\n', out);
}

static void gen_json_entry(FILE *out, const struct slow_entry *e, bool first)
{
	fprintf(out, "%s\n    {\"wall_ns\": %" PRIu64 ", \"op\": \"%s\", \"latency_ns\": %" PRIu64
		", \"bucket\": %u, \"pid\": %d, \"comm\": ", first ? "" : ",", e->wall_ns,
		ofs_op_names[e->op], e->lat_ns, e->bucket, (int)e->pid);
	osp_esc_json(out, e->comm);
	fprintf(out, ", \"uid\": %u, \"path\": ", (unsigned)e->uid);
	osp_esc_json(out, e->path);
	fprintf(out, ", \"size\": %" PRIu64 ", \"offset\": %" PRId64 "}", e->size_bytes, e->off);
}

int ofs_slow_gen(struct ofs *fs, const char *arg, FILE *out)
{
	uint64_t ns = __atomic_load_n(&fs->slow_ns, __ATOMIC_ACQUIRE), dropped;
	bool json = strcmp(arg, "json") == 0;
	struct slow_entry *e;
	size_t n;
	int err = slow_copy(fs->slow, &e, &n, &dropped);

	if (err)
		return err;
	if (json) {
		fputs("{\"format\": \"osprof-slow\", \"version\": 1, \"threshold_ns\": ", out);
		if (ns == UINT64_MAX)
			fputs("null", out);
		else
			fprintf(out, "%" PRIu64, ns);
		fprintf(out, ", \"resolution\": %u, \"capacity\": %u, \"dropped\": %" PRIu64
			", \"requests\": [", fs->opts.res, fs->slow ? fs->slow->cap : 0, dropped);
		for (size_t i = 0; i < n; i++)
			gen_json_entry(out, &e[i], i == 0);
		fputs(n ? "\n]}\n" : "]}\n", out);
	} else {
		fprintf(out, "%-12s %-16s %7s %6s %-12s %8s %8s %10s %6s %s\n", "TIME", "COMM", "PID",
			"UID", "OP", "BYTES", "OFF_KB", "LAT(ms)", "BUCKET", "PATH");
		for (size_t i = 0; i < n; i++)
			gen_text_entry(out, &e[i]);
		if (ns == UINT64_MAX)
			fputs("# threshold off", out);
		else
			fprintf(out, "# threshold %.3f ms (%" PRIu64 " ns)", (double)ns / 1e6, ns);
		fprintf(out, ", %zu held of %u, %" PRIu64 " dropped\n", n,
			fs->slow ? fs->slow->cap : 0, dropped);
	}
	free(e);
	return ferror(out) ? -EIO : 0;
}

static int write_json(FILE *f, const void *fs)
{
	return ofs_slow_gen((struct ofs *)fs, "json", f);
}

int ofs_slow_dump(struct ofs *fs)
{
	return fs->slow ? ofs_dump_beside(fs, "slow", OFS_DUMP_NAMES, write_json, fs) : 0;
}

void ofs_slow_free(struct ofs *fs)
{
	if (!fs->slow)
		return;
	pthread_mutex_destroy(&fs->slow->mu);
	free(fs->slow);
	fs->slow = NULL;
}
