// SPDX-License-Identifier: MIT
/*
 * Value profiles (-o values), OSprof's direct profile and value
 * correlation: for read and write, the request's size and its seek
 * distance; for readdir and readdirplus, whether the reply was at the end
 * of the directory; each counted per latency bucket, in two-dimensional
 * tables [latency bucket][value bucket] (osprof/values.h gives the value
 * buckets). A peak of an operation's latency histogram is a range of
 * latency buckets, so the report sums a peak's rows to say which values
 * it holds.
 *
 * The tables are allocated at mount (65 x 132 counters for a seek table
 * at resolution 1, 513 x 132 at 8: 0.5 MiB) and recorded with one relaxed
 * atomic add each: no allocation, no lock. Shared by every worker, one
 * counter written from several CPUs at once would move its cache line
 * between them at every request (measured here once: +92 ns a request
 * with two threads recording back to back, against ~10 ns alone), so each table
 * is kept in shards, one per CPU up to 8 (fewer when they would pass
 * 8 MiB in all), and a thread records into the shard it is given at its
 * first record, in turn; threads that share a shard stay correct (the
 * adds are atomic), readers sum the shards.
 *
 * The seek distance needs where the previous request on the same open
 * file ended: each open file (struct ofs_file) keeps it, exchanged at the
 * request's close for offset + the bytes its reply carried (what was
 * actually read or written; nothing on an error). Requests on one file
 * that run at once close in any order, so their distances are then
 * approximate: each is measured from whichever closed before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osprof/format.h"
#include "osprof/values.h"
#include "ofs.h"
#include "ofs_dump.h"
#include "ofs_pt.h"
#include "ofs_req.h"
#include "ofs_values.h"

/* The tables, in the order of the files' listings. */
enum vt {
	VT_READ_SIZE,
	VT_READ_SEEK,
	VT_WRITE_SIZE,
	VT_WRITE_SEEK,
	VT_READDIR,
	VT_READDIRPLUS,
	VT__COUNT
};

static const struct {
	enum ofs_op op;
	enum osp_value_kind kind;
} vt_desc[VT__COUNT] = {
	[VT_READ_SIZE] = { OFS_OP_READ, OSP_VALUE_SIZE },
	[VT_READ_SEEK] = { OFS_OP_READ, OSP_VALUE_SEEK },
	[VT_WRITE_SIZE] = { OFS_OP_WRITE, OSP_VALUE_SIZE },
	[VT_WRITE_SEEK] = { OFS_OP_WRITE, OSP_VALUE_SEEK },
	[VT_READDIR] = { OFS_OP_READDIR, OSP_VALUE_AT_END },
	[VT_READDIRPLUS] = { OFS_OP_READDIRPLUS, OSP_VALUE_AT_END },
};

#define SHARDS_MAX 8u
#define SHARDS_BYTES_MAX (8u << 20)
/* Counters per 64-byte line: shards start on a line of their own. */
#define LINE_CELLS 8u

struct ofs_values {
	unsigned res;                 /* the profile's resolution */
	unsigned nlat;                /* latency buckets: OSP_HIST_NBUCKETS(res) */
	unsigned nshard;              /* copies of each table, 1 .. SHARDS_MAX */
	_Atomic unsigned next_shard;  /* the shard the next new thread gets */
	size_t stride[VT__COUNT];     /* cells from one shard to the next */
	_Atomic uint64_t *cell[VT__COUNT]; /* nshard x (nlat x nbuckets(kind),
					    * row-major), @stride apart */
};

/* This thread's shard + 1; 0 before its first record. */
static __thread unsigned shard_plus1;

static size_t vt_cells(const struct ofs_values *v, enum vt t)
{
	return (size_t)v->nlat * osp_value_nbuckets(vt_desc[t].kind);
}

int ofs_values_new(struct ofs *fs)
{
	struct ofs_values *v;
	size_t shard_bytes = 0;
	long ncpu;

	if (!fs->opts.values)
		return 0;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->res = fs->opts.res;
	v->nlat = OSP_HIST_NBUCKETS(v->res);
	for (unsigned t = 0; t < VT__COUNT; t++) {
		v->stride[t] = (vt_cells(v, t) + LINE_CELLS - 1) / LINE_CELLS * LINE_CELLS;
		shard_bytes += v->stride[t] * sizeof(uint64_t);
	}
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	v->nshard = ncpu > 0 && (unsigned long)ncpu < SHARDS_MAX ? (unsigned)ncpu : SHARDS_MAX;
	while (v->nshard > 1 && v->nshard * shard_bytes > SHARDS_BYTES_MAX)
		v->nshard--;
	for (unsigned t = 0; t < VT__COUNT; t++) {
		v->cell[t] = aligned_alloc(LINE_CELLS * sizeof(uint64_t),
					   v->nshard * v->stride[t] * sizeof(uint64_t));
		if (v->cell[t])
			memset(v->cell[t], 0, v->nshard * v->stride[t] * sizeof(uint64_t));
		if (!v->cell[t]) {
			fs->values = v;
			ofs_values_free(fs);
			return -ENOMEM;
		}
	}
	fs->values = v;
	return 0;
}

void ofs_values_free(struct ofs *fs)
{
	struct ofs_values *v = fs->values;

	if (!v)
		return;
	for (unsigned t = 0; t < VT__COUNT; t++)
		free(v->cell[t]);
	free(v);
	fs->values = NULL;
}

static inline void vt_add(struct ofs_values *v, unsigned shard, enum vt t, unsigned lat_b,
			  unsigned val_b)
{
	atomic_fetch_add_explicit(&v->cell[t][shard * v->stride[t] +
					      lat_b * osp_value_nbuckets(vt_desc[t].kind) + val_b],
				  1, memory_order_relaxed);
}

/* Size and seek distance of a read or write on its open file. */
static inline void vt_add_rw(struct ofs_values *v, unsigned shard, enum vt size_tab,
			     unsigned lat_b, const struct ofs_req *r)
{
	struct ofs_file *f = (struct ofs_file *)(uintptr_t)r->fh;
	int64_t end = r->off + (int64_t)r->done_bytes;
	int64_t prev = atomic_exchange_explicit(&f->next_off, end, memory_order_relaxed);

	vt_add(v, shard, size_tab, lat_b, osp_value_size_bucket(r->size_bytes));
	vt_add(v, shard, size_tab + 1, lat_b, osp_value_seek_bucket(prev, r->off));
}

void ofs_values_record(const struct ofs_req *r, uint64_t lat_ns)
{
	struct ofs_values *v = r->fs->values;
	unsigned lat_b = osp_bucket_index(lat_ns, v->res), s = shard_plus1;

	if (__builtin_expect(s == 0, 0)) {
		s = atomic_fetch_add_explicit(&v->next_shard, 1, memory_order_relaxed) % v->nshard + 1;
		shard_plus1 = s;
	}
	s--;
	switch (r->op) {
	case OFS_OP_READ:
		vt_add_rw(v, s, VT_READ_SIZE, lat_b, r);
		break;
	case OFS_OP_WRITE:
		vt_add_rw(v, s, VT_WRITE_SIZE, lat_b, r);
		break;
	case OFS_OP_READDIR:
		vt_add(v, s, VT_READDIR, lat_b, r->done_bytes == 0);
		break;
	case OFS_OP_READDIRPLUS:
		vt_add(v, s, VT_READDIRPLUS, lat_b, r->done_bytes == 0);
		break;
	default:
		break;
	}
}

void ofs_values_reset(struct ofs *fs)
{
	struct ofs_values *v = fs->values;

	if (!v)
		return;
	for (unsigned t = 0; t < VT__COUNT; t++) {
		size_t n = v->nshard * v->stride[t];

		for (size_t i = 0; i < n; i++)
			atomic_store_explicit(&v->cell[t][i], 0, memory_order_relaxed);
	}
}

bool ofs_values_present(struct ofs *fs, const char *arg)
{
	(void)arg;
	return fs->values != NULL;
}

/* One cell, summed over the shards. */
static uint64_t vt_get(const struct ofs_values *v, enum vt t, unsigned lat_b, unsigned val_b)
{
	size_t i = lat_b * osp_value_nbuckets(vt_desc[t].kind) + val_b;
	uint64_t n = 0;

	for (unsigned s = 0; s < v->nshard; s++, i += v->stride[t])
		n += atomic_load_explicit(&v->cell[t][i], memory_order_relaxed);
	return n;
}

int ofs_values_gen_text(struct ofs *fs, const char *arg, FILE *out)
{
	struct ofs_values *v = fs->values;
	char lo[32], hi[32], lab[32];

	(void)arg;
	if (!v)
		return -ENOENT;
	fprintf(out, "value profiles, resolution %u: per latency bucket, the requests of each value\n",
		v->res);
	for (unsigned t = 0; t < VT__COUNT; t++) {
		enum osp_value_kind k = vt_desc[t].kind;
		unsigned nval = osp_value_nbuckets(k);

		fprintf(out, "\n%s %s (%s)\n", ofs_op_names[vt_desc[t].op], osp_value_kind_name(k),
			osp_value_unit(k));
		for (unsigned l = 0; l < v->nlat; l++) {
			bool any = false;

			for (unsigned b = 0; b < nval; b++) {
				uint64_t c = vt_get(v, t, l, b);

				if (!c)
					continue;
				if (!any)
					fprintf(out, "  (%s, %s]:",
						osp_fmt_ns(lo, sizeof(lo), osp_bucket_lower_ns(l, v->res)),
						osp_fmt_ns(hi, sizeof(hi), osp_bucket_upper_ns(l, v->res)));
				fprintf(out, "%s %s %" PRIu64, any ? "," : "",
					osp_value_label(k, b, lab, sizeof(lab)), c);
				any = true;
			}
			if (any)
				fputc('\n', out);
		}
	}
	return ferror(out) ? -EIO : 0;
}

int ofs_values_gen_json(struct ofs *fs, const char *arg, FILE *out)
{
	struct ofs_values *v = fs->values;

	(void)arg;
	if (!v)
		return -ENOENT;
	fprintf(out, "{\"format\": \"osprof-values\", \"version\": 1, \"resolution\": %u, "
		"\"unit\": \"ns\",\n \"ops\": [", v->res);
	for (unsigned t = 0; t < VT__COUNT; t++) {
		enum osp_value_kind k = vt_desc[t].kind;
		unsigned nval = osp_value_nbuckets(k);
		bool any = false;

		fprintf(out, "%s\n  {\"op\": \"%s\", \"value\": \"%s\", \"unit\": \"%s\", \"buckets\": [",
			t ? "," : "", ofs_op_names[vt_desc[t].op], osp_value_kind_name(k),
			osp_value_unit(k));
		for (unsigned l = 0; l < v->nlat; l++)
			for (unsigned b = 0; b < nval; b++) {
				uint64_t c = vt_get(v, t, l, b);

				if (!c)
					continue;
				fprintf(out, "%s[%u, %u, %" PRIu64 "]", any ? ", " : "", l, b, c);
				any = true;
			}
		fputs("]}", out);
	}
	fputs("\n]}\n", out);
	return ferror(out) ? -EIO : 0;
}

static int values_json(FILE *out, const void *fs)
{
	return ofs_values_gen_json((struct ofs *)fs, NULL, out);
}

int ofs_values_dump(struct ofs *fs)
{
	return fs->values ? ofs_dump_beside(fs, "values", 0644, values_json, fs) : 0;
}
