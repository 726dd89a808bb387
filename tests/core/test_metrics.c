// SPDX-License-Identifier: MIT
/*
 * osprof's metric family (osprof/metrics.h) as core writes it, parsed
 * back: the exact series of a known set of profiles from two mounts (the
 * machine-wide layers once), block's and irq's names split into labels,
 * osprof_info's labels, the fixed le set, hostile names read back
 * exactly, and the two text formats.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "osprof/metrics.h"
#include "om_parse.h"

static struct osp_profile *prof(const char *layer, unsigned res,
				const char *const *ops, const uint64_t *lat, size_t nops)
{
	struct osp_profile *p = osp_profile_new(layer, res);

	cr_assert_not_null(p);
	for (size_t i = 0; i < nops; i++) {
		struct osp_op *o = osp_profile_add_op(p, ops[i], false);

		cr_assert_not_null(o);
		/* lat[i] requests of lat[i] * 1000 ns; 0: an empty op */
		for (uint64_t k = 0; k < lat[i]; k++)
			cr_assert_eq(osp_hist_record(&o->lat, lat[i] * 1000), 0);
	}
	return p;
}

/* A profile of @layer at @res with one request of 1 us to "read". */
static struct osp_profile *read_once(const char *layer, unsigned res)
{
	static const char *const ops[] = { "read" };
	static const uint64_t one[] = { 1 };

	return prof(layer, res, ops, one, 1);
}

static char *render(const struct osp_om_src *src, size_t n, unsigned flags)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	cr_assert_eq(osp_write_metrics(f, src, n, flags), 0);
	fclose(f);
	return buf;
}

Test(metrics, two_mounts_give_exact_series_and_the_machine_wide_layers_once)
{
	static const char *const fs_ops[] = { "read", "mkdir", "getattr" };
	static const uint64_t fs1[] = { 3, 0, 2 }, fs2[] = { 5, 0, 0 };
	static const char *const blk_ops[] = { "vda.read", "vda.read.queue", "sda.write" };
	static const uint64_t blk1[] = { 4, 4, 1 }, blk2[] = { 40, 40, 10 };
	static const char *const irq_ops[] = { "31:virtio0-stats", "softirq:TIMER" };
	static const uint64_t irq1[] = { 7, 9 }, irq2[] = { 70, 90 };
	struct osp_profile *p[6] = {
		prof("fs", 1, fs_ops, fs1, 3), prof("block", 1, blk_ops, blk1, 3),
		prof("irq", 2, irq_ops, irq1, 2), prof("fs", 4, fs_ops, fs2, 3),
		prof("block", 1, blk_ops, blk2, 3), prof("irq", 1, irq_ops, irq2, 2),
	};
	struct osp_om_src src[6];
	struct om_sample *smp = calloc(1000, sizeof(*smp));
	struct om_series ser[64];
	const struct om_series *s;
	size_t n, m;
	char *text;

	for (size_t i = 0; i < 6; i++)
		src[i] = (struct osp_om_src){ .mount = i < 3 ? "/m1" : "/m2", .p = p[i] };
	cr_assert_eq(osp_kv_set_str(&p[0]->source, "lower", "/data"), 0);
	text = render(src, 6, 0);
	om_promtool(text);
	n = om_parse(text, smp, 1000);
	m = om_series_of(smp, n, ser, 64);
	/* fs: m1 read, getattr; m2 read (mkdir and m2's getattr are empty);
	 * block: 3 and irq: 2, from m1 only; info: m1 fs, block, irq, m2 fs. */
	cr_expect_eq(m, 3 + 3 + 2 + 4, "%zu series:\n%s", m, text);
	cr_expect_eq(n, 3 * (29 + 3) + 3 * (27 + 3) + 2 * (25 + 3) + 4, "%zu samples", n);

	s = om_find(ser, m, OSP_OM_LATENCY, "mount=/m1,layer=fs,op=read");
	cr_assert_not_null(s);
	cr_expect_eq(s->count, 3);
	cr_expect_eq(s->samples, 29 + 3);
	s = om_find(ser, m, OSP_OM_LATENCY, "mount=/m2,layer=fs,op=read");
	cr_expect(s && s->count == 5);
	cr_expect_null(om_find(ser, m, OSP_OM_LATENCY, "mount=/m1,layer=fs,op=mkdir"),
		       "an empty histogram is not served");
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=block,device=vda,op=read");
	cr_expect(s && s->count == 4, "block from the first mount, no mount label");
	cr_expect(s && s->samples == 27 + 3);
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=block,device=vda,op=read.queue");
	cr_expect(s && s->count == 4);
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=block,device=sda,op=write");
	cr_expect(s && s->count == 1);
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=irq,irq=31:virtio0-stats");
	cr_expect(s && s->count == 7 && s->samples == 25 + 3);
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=irq,irq=softirq:TIMER");
	cr_expect(s && s->count == 9);
	s = om_find(ser, m, OSP_OM_INFO,
			"mount=/m1,layer=fs,version=" OSPROF_VERSION ",resolution=1,lower=/data");
	cr_expect(s && s->samples == 1, "info of m1's fs layer:\n%s", text);
	cr_expect_not_null(om_find(ser, m, OSP_OM_INFO,
				       "layer=irq,version=" OSPROF_VERSION ",resolution=2"));
	cr_expect_not_null(om_find(ser, m, OSP_OM_INFO,
				       "mount=/m2,layer=fs,version=" OSPROF_VERSION ",resolution=4"));
	for (size_t i = 0; i < n; i++)
		cr_expect(strcmp(smp[i].name, "osprof_latency_seconds_total") != 0 &&
			  !strstr(smp[i].name, "nanoseconds"), "%s", smp[i].name);
	/* No CPU time in these profiles: no CPU family at all. */
	cr_expect_null(strstr(text, OSP_OM_CPU));
	free(text);
	free(smp);
	for (size_t i = 0; i < 6; i++)
		osp_profile_free(p[i]);
}

struct split_case {
	const char *layer, *name;
	const char *device, *irq, *op; /* NULL: no such label */
};

static const struct split_case split_cases[] = {
	{ "block", "vda.read", "vda", NULL, "read" },
	{ "block", "vda.read.queue", "vda", NULL, "read.queue" },
	{ "block", "nvme0n1.discard.queue", "nvme0n1", NULL, "discard.queue" },
	{ "block", "8:16.write", "8:16", NULL, "write" },
	{ "block", "a.b.c.queue", "a.b", NULL, "c.queue" },
	{ "block", "vda.queue", "vda", NULL, "queue" },
	{ "block", "nodot", NULL, NULL, "nodot" },
	{ "block", ".read", NULL, NULL, ".read" },
	{ "block", "vda.", NULL, NULL, "vda." },
	{ "irq", "31:virtio0-stats", NULL, "31:virtio0-stats", NULL },
	{ "irq", "softirq:TIMER", NULL, "softirq:TIMER", NULL },
	{ "irq", "a.b.queue", NULL, "a.b.queue", NULL },
	{ "fs", "vda.read", NULL, NULL, "vda.read" },
	{ "syscall", "pread64", NULL, NULL, "pread64" },
};
#define NSPLIT (sizeof(split_cases) / sizeof(split_cases[0]))

/* Indices, not the cases: a test runs in a process of its own, where
 * the cases' pointers would not hold. */
ParameterizedTestParameters(metrics, operation_names_split_into_labels)
{
	static int idx[NSPLIT];

	for (size_t i = 0; i < NSPLIT; i++)
		idx[i] = (int)i;
	return cr_make_param_array(int, idx, NSPLIT);
}

ParameterizedTest(int *i, metrics, operation_names_split_into_labels)
{
	static const uint64_t one[] = { 1 };
	const struct split_case *c = &split_cases[*i];
	struct osp_profile *p = prof(c->layer, 1, &c->name, one, 1);
	struct osp_om_src src = { .mount = "/m", .p = p };
	struct om_sample smp[64];
	char *text = render(&src, 1, 0);
	size_t n = om_parse(text, smp, 64);

	cr_assert_gt(n, 1);
	cr_expect_str_eq(om_label(&smp[0], "layer"), c->layer);
	cr_expect_eq(om_label(&smp[0], "mount") != NULL, !osp_om_machine_wide(c->layer));
	for (int k = 0; k < 3; k++) {
		static const char *const keys[] = { "device", "irq", "op" };
		const char *want = k == 0 ? c->device : k == 1 ? c->irq : c->op;
		const char *got = om_label(&smp[0], keys[k]);

		if (want)
			cr_expect(got && strcmp(got, want) == 0, "%s %s: %s %s, want %s",
				  c->layer, c->name, keys[k], got ? got : "(none)", want);
		else
			cr_expect_null(got, "%s %s: no %s label", c->layer, c->name, keys[k]);
	}
	free(text);
	osp_profile_free(p);
}

Test(metrics, info_holds_version_resolution_lower_source_and_options)
{
	struct osp_profile *p = read_once("fuse", 8);
	struct osp_om_src src = { .p = p };
	struct om_sample smp[64];
	const struct om_sample *info = NULL;
	static const char *const want[][2] = {
		{ "mount", "/mnt/p" }, { "layer", "fuse" }, { "version", OSPROF_VERSION },
		{ "resolution", "8" }, { "lower", "/data" }, { "layer_source", "ebpf" },
		{ "cache", "auto" }, { "attr_timeout_s", "1.5" }, { "writeback", "false" },
		{ "_9lives", "x" }, { "a_b", "y" }, { "transport", "io_uring" },
	};
	char *text;
	size_t n;

	osp_kv_set_str(&p->source, "mount", "/mnt/p");
	osp_kv_set_str(&p->source, "lower", "/data");
	osp_kv_set_str(&p->source, "layer_source", "ebpf");
	osp_kv_set_str(&p->options, "cache", "auto");
	osp_kv_set_num(&p->options, "attr_timeout_s", 1.5);
	osp_kv_set_bool(&p->options, "writeback", false);
	osp_kv_set_str(&p->options, "9lives", "x");
	osp_kv_set_str(&p->options, "a-b", "y");
	osp_kv_set_str(&p->options, "__reserved", "z"); /* left out */
	osp_kv_set_str(&p->options, "layer", "z");      /* a label it has: left out */
	osp_kv_set_str(&p->options, "", "z");           /* no name: left out */
	osp_kv_set_str(&p->options, "transport", "io_uring");
	text = render(&src, 1, OSP_OM_OPENMETRICS);
	om_promtool(text);
	cr_expect(strstr(text, "# TYPE osprof_info gauge\n"));
	n = om_parse(text, smp, 64);
	for (size_t i = 0; i < n; i++)
		if (strcmp(smp[i].name, OSP_OM_INFO) == 0)
			info = &smp[i];
	cr_assert_not_null(info, "%s", text);
	cr_expect_eq(info->value, 1);
	cr_expect_eq(info->nl, sizeof(want) / sizeof(want[0]), "%s", text);
	for (size_t i = 0; i < info->nl && i < sizeof(want) / sizeof(want[0]); i++) {
		cr_expect_str_eq(info->key[i], want[i][0]);
		cr_expect_str_eq(info->val[i], want[i][1]);
	}
	free(text);
	osp_profile_free(p);
}

Test(metrics, le_set_is_fixed_cumulative_and_exact)
{
	/* 1000 ns at resolution 8: below 2^10 = 1024 ns. */
	struct osp_profile *p = read_once("fs", 8);
	struct osp_om_src src = { .mount = "/m", .p = p };
	struct om_sample smp[64];
	char *text;
	size_t n, k = 0;

	cr_assert_eq(osp_hist_record(&p->ops[0].lat, 3000000000ull), 0);
	cr_assert_eq(osp_hist_record(&p->ops[0].lat, (uint64_t)1 << 40), 0);
	text = render(&src, 1, 0);
	cr_expect(strstr(text, "osprof_latency_seconds_sum{mount=\"/m\",layer=\"fs\",op=\"read\"} 1102.511628776\n"),
		  "the sum exact to the ns:\n%s", text);
	n = om_parse(text, smp, 64);
	for (size_t i = 0; i < n; i++) {
		const char *le = om_label(&smp[i], "le");
		char want[32];

		if (!le)
			continue;
		if (k <= 36 - 8) {
			osp_om_seconds(want, sizeof(want), (uint64_t)1 << (8 + k));
			cr_expect_str_eq(le, want);
			cr_expect_eq(smp[i].value, k + 8 < 10 ? 0 : k + 8 < 32 ? 1 : 2,
				     "le %s: %g", le, smp[i].value);
		} else {
			cr_expect_str_eq(le, "+Inf");
			cr_expect_eq(smp[i].value, 3);
		}
		k++;
	}
	cr_expect_eq(k, 36 - 8 + 2);
	free(text);
	osp_profile_free(p);
}

Test(metrics, seconds_are_exact_decimals)
{
	char b[32];

	cr_expect_str_eq(osp_om_seconds(b, sizeof(b), 0), "0");
	cr_expect_str_eq(osp_om_seconds(b, sizeof(b), 256), "0.000000256");
	cr_expect_str_eq(osp_om_seconds(b, sizeof(b), 2500000000ull), "2.5");
	cr_expect_str_eq(osp_om_seconds(b, sizeof(b), (uint64_t)1 << 36), "68.719476736");
	cr_expect_str_eq(osp_om_seconds(b, sizeof(b), UINT64_MAX), "18446744073.709551615");
}

Test(metrics, hostile_mounts_and_names_read_back_exactly)
{
	static const char *const ops[] = { "re\"ad\\x\ny{}=,", "vd\"a\\.re\nad" };
	static const uint64_t one[] = { 1, 1 };
	struct osp_profile *f = prof("fs", 1, ops, one, 1), *b = prof("block", 1, ops + 1, one, 1);
	struct osp_om_src src[2] = { { .mount = "/m\"q\\b\nl}", .p = f }, { .mount = "x", .p = b } };
	struct om_sample smp[128];
	char *text = render(src, 2, OSP_OM_OPENMETRICS);
	size_t n, lines = 0;

	om_promtool(text);
	for (const char *l = text; *l; l = strchr(l, '\n') + 1, lines++)
		cr_expect(l[0] == '#' || strncmp(l, "osprof_", 7) == 0, "line: %.60s", l);
	n = om_parse(text, smp, 128);
	cr_expect_eq(n + 6, lines, "one sample a line, 6 comment lines");
	cr_expect_str_eq(om_label(&smp[0], "mount"), "/m\"q\\b\nl}");
	cr_expect_str_eq(om_label(&smp[0], "op"), ops[0]);
	for (size_t i = 0; i < n; i++) {
		if (!om_label(&smp[i], "device"))
			continue;
		cr_expect_str_eq(om_label(&smp[i], "device"), "vd\"a\\");
		cr_expect_str_eq(om_label(&smp[i], "op"), "re\nad");
		cr_expect_null(om_label(&smp[i], "mount"));
	}
	free(text);
	osp_profile_free(f);
	osp_profile_free(b);
}

Test(metrics, openmetrics_has_units_and_one_eof_prometheus_text_neither)
{
	struct osp_profile *p = read_once("fs", 1);
	struct osp_om_src src = { .mount = "/m", .p = p };
	char *om, *prom;

	om = render(&src, 1, OSP_OM_OPENMETRICS);
	prom = render(&src, 1, 0);
	cr_expect(strstr(om, "# UNIT osprof_latency_seconds seconds\n"));
	cr_expect_str_eq(strstr(om, "# EOF"), "# EOF\n");
	cr_expect_null(strstr(prom, "# UNIT"));
	cr_expect_null(strstr(prom, "# EOF"));
	cr_expect_eq(strlen(om), strlen(prom) + strlen("# UNIT osprof_latency_seconds seconds\n# EOF\n"));
	free(om);
	free(prom);
	osp_profile_free(p);
}

Test(metrics, cpu_time_has_a_family_of_its_own_with_the_same_labels)
{
	struct osp_profile *p = osp_profile_new("lower", 1);
	struct osp_om_src src = { .mount = "/proc/osprof", .p = p };
	struct om_sample smp[256];
	struct osp_op *o;
	char *text;
	size_t n, cpu = 0;

	cr_assert_not_null(p);
	o = osp_profile_add_op(p, "read", true);
	cr_assert_not_null(o);
	cr_assert_eq(osp_hist_record(&o->lat, 5000), 0);
	cr_assert_eq(osp_hist_record(&o->cpu, 3000), 0);
	cr_assert_not_null(osp_profile_add_op(p, "write", false));
	text = render(&src, 1, 0);
	n = om_parse(text, smp, 256);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(smp[i].name, OSP_OM_CPU, strlen(OSP_OM_CPU)) != 0)
			continue;
		cpu++;
		cr_expect_str_eq(om_label(&smp[i], "op"), "read");
		cr_expect_str_eq(om_label(&smp[i], "mount"), "/proc/osprof");
		cr_expect_str_eq(om_label(&smp[i], "layer"), "lower");
	}
	cr_expect_eq(cpu, 29 + 3);
	free(text);
	osp_profile_free(p);
}

/* A walk's callback that counts, and stops at the third series. */
static int count_to_three(void *ctx, const struct osp_om_series *s)
{
	size_t *n = ctx;

	cr_expect_not_null(s->h);
	return ++*n == 3 ? -ECANCELED : 0;
}

Test(metrics, a_walk_stops_at_its_callbacks_error)
{
	static const char *const ops[] = { "a", "b", "c", "d" };
	static const uint64_t one[] = { 1, 1, 1, 1 };
	struct osp_profile *p = prof("fs", 1, ops, one, 4);
	struct osp_om_src src = { .mount = "/m", .p = p };
	size_t n = 0;

	cr_expect_eq(osp_om_walk(&src, 1, OSP_OM_LATENCY, count_to_three, &n), -ECANCELED);
	cr_expect_eq(n, 3);
	osp_profile_free(p);
}

Test(metrics, a_full_device_gives_eio)
{
	struct osp_profile *p = read_once("fs", 1);
	struct osp_om_src src = { .mount = "/m", .p = p };
	FILE *f = fopen("/dev/full", "w");

	cr_assert_not_null(f);
	cr_expect_eq(osp_write_metrics(f, &src, 1, OSP_OM_OPENMETRICS), -EIO);
	fclose(f);
	osp_profile_free(p);
}
