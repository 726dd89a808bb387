// SPDX-License-Identifier: MIT
/*
 * The JSON writer of DESIGN.md's profile format. Written by hand rather
 * than through a DOM so that each operation sits on one line (readable,
 * diffable, grep-able) and a large timeline streams without building a
 * tree. Strings are escaped so the output is valid JSON (and UTF-8) for any
 * bytes in names and paths. Unknown-to-the-format per-op attributes are
 * written as extra keys of the op, which readers keep.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "osprof/escape.h"
#include "osprof/format.h"
#include "stream.h"

/* Absent strings (host, clock) are written as "". */
static void json_str(FILE *out, const char *str)
{
	osp_esc_json(out, str ? str : "");
}

static void json_kv_object(FILE *out, const struct osp_kvlist *l)
{
	fputc('{', out);
	for (size_t i = 0; i < l->n; i++) {
		if (i)
			fputs(", ", out);
		json_str(out, l->items[i].key);
		fprintf(out, ": %s", l->items[i].json);
	}
	fputc('}', out);
}

static void json_hist_fields(FILE *out, const struct osp_hist *h)
{
	bool first = true;

	fprintf(out, "\"count\": %" PRIu64 ", \"sum\": %" PRIu64 ", \"min\": %" PRIu64
		     ", \"max\": %" PRIu64 ", \"buckets\": [",
		h->count, h->sum, h->min, h->max);
	for (uint32_t k = 0; k < h->nbk; k++) {
		fprintf(out, "%s[%u, %" PRIu64 "]", first ? "" : ", ", h->bk[k].idx,
			h->bk[k].count);
		first = false;
	}
	fputc(']', out);
}

static void json_op(FILE *out, const struct osp_op *o)
{
	fputs("{\"name\": ", out);
	json_str(out, o->name);
	fputs(", ", out);
	json_hist_fields(out, &o->lat);
	if (o->has_cpu) {
		fputs(", \"cpu\": {", out);
		json_hist_fields(out, &o->cpu);
		fputc('}', out);
	}
	if (o->ncounters) {
		fputs(", \"counters\": {", out);
		for (size_t i = 0; i < o->ncounters; i++) {
			fputs(i ? ", " : "", out);
			json_str(out, o->counters[i].name);
			fprintf(out, ": %" PRIu64, o->counters[i].value);
		}
		fputc('}', out);
	}
	for (size_t i = 0; i < o->attrs.n; i++) {
		fputs(", ", out);
		json_str(out, o->attrs.items[i].key);
		fprintf(out, ": %s", o->attrs.items[i].json);
	}
	fputc('}', out);
}

static void json_ops(FILE *out, const struct osp_op *ops, size_t n,
		     const char *indent)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s\n%s", i ? "," : "", indent);
		json_op(out, &ops[i]);
	}
	if (n)
		fprintf(out, "\n%.*s", (int)strlen(indent) - 2, indent);
	fputc(']', out);
}

int osp_write_json(FILE *out, const struct osp_profile *p)
{
	fprintf(out, "{\n  \"format\": \"osprof\", \"version\": %d,\n  \"layer\": ",
		OSP_FORMAT_VERSION);
	json_str(out, p->layer);
	fputs(",\n  \"host\": ", out);
	json_str(out, p->host);
	fputs(", \"source\": ", out);
	json_kv_object(out, &p->source);
	fputs(",\n  \"clock\": {\"source\": ", out);
	json_str(out, p->clock_source);
	fprintf(out, ", \"cycles_per_ns\": %.9g},\n", p->cycles_per_ns);
	fprintf(out, "  \"resolution\": %u, \"unit\": ", p->res);
	json_str(out, p->unit ? p->unit : "ns");
	fputs(",\n  \"options\": ", out);
	json_kv_object(out, &p->options);
	fprintf(out, ",\n  \"start_unix_ns\": %" PRIu64 ", \"elapsed_ns\": %" PRIu64
		     ",\n  \"ops\": ",
		p->start_unix_ns, p->elapsed_ns);
	json_ops(out, p->ops, p->nops, "    ");
	if (p->tl_interval_ns || p->nsnaps) {
		fprintf(out, ",\n  \"timeline\": {\"interval_ns\": %" PRIu64
			     ", \"dropped\": %" PRIu64 ", \"snapshots\": [",
			p->tl_interval_ns, p->tl_dropped);
		for (size_t s = 0; s < p->nsnaps; s++) {
			fprintf(out, "%s\n    {\"t_ns\": %" PRIu64 ", \"ops\": ",
				s ? "," : "", p->snaps[s].t_ns);
			json_ops(out, p->snaps[s].ops, p->snaps[s].nops, "      ");
			fputc('}', out);
		}
		fputs(p->nsnaps ? "\n  ]}" : "]}", out);
	}
	fputs("\n}\n", out);
	return osp_stream_status(out);
}
