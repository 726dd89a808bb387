// SPDX-License-Identifier: MIT
/*
 * osprof-exporter as Prometheus meets it: the text exposition of fixture
 * mounts (the fixed le set, complete, its cumulative counts exact against
 * the latencies recorded, hostile names escaped), the protobuf one decoded
 * back with protobuf-c (native buckets, schema, spans, deltas), content
 * negotiation, the command line, and the error paths: a path that is no
 * source, a mount that goes away between scrapes, a malformed request,
 * slow clients: a request's headers cut past 5 s however they trickle,
 * scrapes answered beside 1,000 idle or trickling connections and beside
 * 64 half-requests kept open, one address held to 128 connections.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "config.h"
#include "metrics.pb-c.h"
#include "oex.h"
#include "oext.h"
#include "../core/om_parse.h"

TestSuite(exporter, .init = oext_setup, .fini = oext_teardown, .timeout = 60);

/* Latencies of every range: sub-256 ns, each power of two's edges, a
 * value over the largest le (2^36 ns), and exact powers of two. */
static const uint64_t lat[] = {
	0, 1, 2, 3, 200, 256, 257, 511, 512, 700, 1000, 1024, 1025, 5000,
	65536, 65537, 1000000, 1000000, 33554432, 123456789,
	(uint64_t)1 << 36, ((uint64_t)1 << 36) + 1, (uint64_t)1 << 40,
};
#define NLAT (sizeof(lat) / sizeof(lat[0]))

/* The value of the sample whose name and labels are exactly @series. */
static bool sample(const char *body, const char *series, double *v)
{
	size_t n = strlen(series);

	for (const char *l = body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, series, n) == 0 && l[n] == ' ') {
			*v = strtod(l + n + 1, NULL);
			return true;
		}
	}
	return false;
}

static uint64_t count_le(const uint64_t *v, size_t n, uint64_t bound)
{
	uint64_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += v[i] <= bound;
	return c;
}

static void check_text_hist(const char *body, const char *labels,
			    unsigned lo, unsigned hi)
{
	char series[1024], le[32];
	double v;

	for (unsigned k = lo - 1; k <= hi + 1; k++) {
		snprintf(series, sizeof(series), "osprof_latency_seconds_bucket{%s,le=\"%s\"}",
			 labels, osp_om_seconds(le, sizeof(le), (uint64_t)1 << k));
		if (k < lo || k > hi) {
			cr_expect(!sample(body, series, &v), "%s is not in the set", series);
			continue;
		}
		cr_assert(sample(body, series, &v), "missing %s in:\n%.2000s", series, body);
		cr_expect_eq((uint64_t)v, count_le(lat, NLAT, (uint64_t)1 << k),
			     "%s: %.0f", series, v);
	}
	snprintf(series, sizeof(series), "osprof_latency_seconds_bucket{%s,le=\"+Inf\"}", labels);
	cr_assert(sample(body, series, &v), "missing %s", series);
	cr_expect_eq((uint64_t)v, NLAT);
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{%s}", labels);
	cr_assert(sample(body, series, &v));
	cr_expect_eq((uint64_t)v, NLAT);
}

/* SIGHUP without --web.config.file (systemctl reload sends it whatever
 * the options) is said and changes nothing: the exporter serves on. */
Test(exporter, sighup_without_a_web_config_is_said_and_serves_on)
{
	char *m1 = tpath("hup"), *log;
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;

	oext_fixture(m1, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m1, NULL }, &p);
	cr_assert_eq(kill(p.pid, SIGHUP), 0);
	for (int i = 0; i < 100; i++) {
		log = slurp(p.err_path);
		if (log && strstr(log, "SIGHUP"))
			break;
		free(log);
		log = NULL;
		usleep(20000);
	}
	cr_assert_not_null(log, "a line says SIGHUP was taken");
	cr_expect(strstr(log, "osprof-exporter: SIGHUP: no --web.config.file to read again\n"),
		  "%s", log);
	free(log);
	r = oext_get(port, "/metrics", NULL);
	cr_expect_eq(r.status, 200, "it serves on");
	oext_stop(&p);
}

/* A source named relative to where the exporter started is labelled
 * with its absolute path: the mount point, as osprof-fs names it. */
Test(exporter, the_mount_label_is_the_absolute_path)
{
	char *m1 = tpath("rel/m1"), *dir = tpath("rel"), labels[PATH_MAX + 64];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double v;

	cr_assert_eq(mkdir(dir, 0755), 0, "%s", strerror(errno));
	oext_fixture(m1, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	cr_assert_eq(chdir(dir), 0, "%s", strerror(errno));
	port = oext_exporter((char *[]){ "m1", NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200, "%s", r.headers);
	snprintf(labels, sizeof(labels), "osprof_source_up{mount=\"%s\"}", m1);
	cr_expect(sample(r.body, labels, &v), "no %s in %s", labels, r.body);
	cr_expect_null(strstr(r.body, "mount=\"m1\""), "%s", r.body);
	oext_stop(&p);
}

Test(exporter, text_le_set_is_fixed_complete_and_exact_at_every_resolution)
{
	char *m1 = tpath("m1"), *m2 = tpath("m2"), labels[512];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double v;

	oext_fixture(m1, "stats.json", "fs", 1, "/lower/one", "read", lat, NLAT);
	oext_fixture(m1, "block.json", "block", 4, NULL, "sda.read", lat, NLAT);
	oext_fixture(m2, "stats.json", "fs", 8, NULL, "read", lat, NLAT);
	oext_fixture(m2, "irq.json", "irq", 2, NULL, "LOC:timer", lat, NLAT);
	port = oext_exporter((char *[]){ m1, m2, NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200, "%s", r.headers);
	cr_expect_str_eq(oext_header(&r, "Content-Type"), OEX_CT_TEXT);
	cr_expect(strstr(r.body, "# TYPE osprof_latency_seconds histogram\n"));

	snprintf(labels, sizeof(labels), "mount=\"%s\",layer=\"fs\",op=\"read\"", m1);
	check_text_hist(r.body, labels, 8, 36);
	check_text_hist(r.body, "layer=\"block\",device=\"sda\",op=\"read\"", 10, 36);
	snprintf(labels, sizeof(labels), "mount=\"%s\",layer=\"fs\",op=\"read\"", m2);
	check_text_hist(r.body, labels, 8, 36);
	check_text_hist(r.body, "layer=\"irq\",irq=\"LOC:timer\"", 6, 30);

	/* The sum, in seconds, exact to the nanosecond. */
	snprintf(labels, sizeof(labels), "osprof_latency_seconds_sum{mount=\"%s\",layer=\"fs\",op=\"read\"}", m2);
	cr_assert(sample(r.body, labels, &v));
	{
		uint64_t sum = 0;
		char want[64], line[600];

		for (size_t i = 0; i < NLAT; i++)
			sum += lat[i];
		snprintf(line, sizeof(line), "%s %s\n", labels, osp_om_seconds(want, sizeof(want), sum));
		cr_expect(strstr(r.body, line), "no line %s", line);
	}
	snprintf(labels, sizeof(labels), "osprof_source_up{mount=\"%s\"}", m2);
	cr_assert(sample(r.body, labels, &v));
	cr_expect_eq(v, 1);
	/* One TYPE line per family: Prometheus refuses a family split up. */
	cr_expect(!strstr(strstr(r.body, "# TYPE osprof_latency_seconds") + 1,
			  "# TYPE osprof_latency_seconds"));
	oext_stop(&p);
}

Test(exporter, hostile_mount_op_and_lower_names_are_escaped)
{
	char *m = tpath("m\"q\\b\nl"), want[1024], *esc_m;
	const char *op = "re\"ad\\x\ny";
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;

	oext_fixture(m, "stats.json", "fs", 1, "lo\"w\\er\n", op, lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	om_promtool(r.body);
	cr_assert(asprintf(&esc_m, "%.*sm\\\"q\\\\b\\nl", (int)(strlen(m) - 7), m) > 0);
	snprintf(want, sizeof(want),
		 "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"re\\\"ad\\\\x\\ny\"} %zu\n",
		 esc_m, NLAT);
	cr_expect(strstr(r.body, want), "no line\n%s\nin\n%.2000s", want, r.body);
	snprintf(want, sizeof(want), "osprof_info{mount=\"%s\",layer=\"fs\",version=\"" OSPROF_VERSION
		 "\",resolution=\"1\",lower=\"lo\\\"w\\\\er\\n\"} 1\n", esc_m);
	cr_expect(strstr(r.body, want), "no line\n%s\nin\n%.2000s", want, r.body);
	snprintf(want, sizeof(want), "osprof_source_up{mount=\"%s\"} 1\n", esc_m);
	cr_expect(strstr(r.body, want), "no line %s", want);
	/* Nothing raw: every line is a comment or a sample. */
	for (const char *l = r.body; *l; l = strchr(l, '\n') + 1)
		cr_expect(l[0] == '#' || strncmp(l, "osprof_", 7) == 0, "line: %.40s", l);
	free(esc_m);
	oext_stop(&p);
}

/* The delimited MetricFamily messages of @r, unpacked. */
static size_t unpack_all(const struct oext_resp *r,
			 Io__Prometheus__Client__MetricFamily **out, size_t max)
{
	const uint8_t *b = (const uint8_t *)r->body, *e = b + r->body_len;
	size_t n = 0;

	while (b < e) {
		uint64_t len = 0;
		unsigned shift = 0;

		do {
			cr_assert(b < e && shift < 64, "truncated varint");
			len |= (uint64_t)(*b & 0x7f) << shift;
			shift += 7;
		} while (*b++ & 0x80);
		cr_assert(len <= (uint64_t)(e - b), "message past the body's end");
		cr_assert(n < max);
		out[n] = io__prometheus__client__metric_family__unpack(NULL, len, b);
		cr_assert(out[n], "message %zu does not unpack", n);
		n++;
		b += len;
	}
	return n;
}

static const Io__Prometheus__Client__Metric *
find_metric(Io__Prometheus__Client__MetricFamily **fam, size_t n,
	    const char *family, const char *mount)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(fam[i]->name, family) != 0)
			continue;
		for (size_t m = 0; m < fam[i]->n_metric; m++)
			for (size_t l = 0; l < fam[i]->metric[m]->n_label; l++)
				if (strcmp(fam[i]->metric[m]->label[l]->name, "mount") == 0 &&
				    strcmp(fam[i]->metric[m]->label[l]->value, mount) == 0)
					return fam[i]->metric[m];
	}
	return NULL;
}

/* Native buckets back into our indices (index + the shift of the
 * resolution, oex_native_shift): each must hold what the profile's bucket
 * holds, and no other; and the classic buckets beside them. */
static void check_histogram(const Io__Prometheus__Client__Histogram *h,
			    const struct osp_hist *want)
{
	int shift = oex_native_shift(want->res);
	uint64_t count = 0, total = h->zero_count;
	int64_t idx = 0;
	size_t d = 0, seen = 0;

	cr_assert(h->has_schema);
	cr_expect_eq(h->schema, __builtin_ctz(want->res), "schema %d for res %u",
		     h->schema, want->res);
	/* The native bound nearest 1 ns, 2^(-K/r) s. */
	cr_expect_eq(h->zero_threshold, exp2(-(double)shift / want->res));
	cr_expect(h->zero_threshold > 0.93e-9 && h->zero_threshold < 1.02e-9,
		  "zero threshold %g", h->zero_threshold);
	cr_expect_eq(h->zero_count, osp_hist_bucket(want, 0));
	cr_expect_eq(h->sample_count, want->count);
	cr_expect_eq(h->sample_sum, (double)want->sum / 1e9, "the sum in seconds");
	for (size_t s = 0; s < h->n_positive_span; s++) {
		idx += h->positive_span[s]->offset;
		for (uint32_t j = 0; j < h->positive_span[s]->length; j++, idx++) {
			cr_assert(d < h->n_positive_delta);
			count += (uint64_t)h->positive_delta[d++];
			cr_expect_eq(count, osp_hist_bucket(want, (unsigned)(idx + shift)),
				     "native bucket %" PRId64 ": %" PRIu64, idx, count);
			total += count;
			seen += count > 0;
		}
	}
	cr_expect_eq(d, h->n_positive_delta);
	cr_expect_eq(total, want->count);
	cr_expect_eq(seen + (osp_hist_bucket(want, 0) > 0), want->nbk);
	/* The classic buckets, the text format's fixed le set. */
	cr_expect_eq(h->n_bucket, 36 - 8 + 1);
	for (size_t i = 0; i < h->n_bucket; i++) {
		uint64_t bound = (uint64_t)1 << (8 + i);

		cr_expect_eq(h->bucket[i]->upper_bound, (double)bound / 1e9);
		cr_expect_eq(h->bucket[i]->cumulative_count, count_le(lat, NLAT, bound));
	}
}

Test(exporter, protobuf_holds_classic_and_native_buckets_under_one_name)
{
	char *m1 = tpath("m1"), *m2 = tpath("m2"), *gone = tpath("gone"), cmd[600];
	Io__Prometheus__Client__MetricFamily *fam[16];
	const struct osp_profile *p1, *p2;
	const Io__Prometheus__Client__Metric *m;
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	size_t n;

	p1 = oext_fixture(m1, "stats.json", "fs", 1, "/l", "read", lat, NLAT);
	p2 = oext_fixture(m2, "stats.json", "fs", 8, NULL, "read", lat, NLAT);
	oext_fixture(gone, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m1, m2, gone, NULL }, &p);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", gone);
	cr_assert_eq(system(cmd), 0);
	r = oext_get(port, "/metrics", OEXT_ACCEPT_PROTO);
	cr_assert_eq(r.status, 200);
	cr_expect_str_eq(oext_header(&r, "Content-Type"), OEX_CT_PROTO);
	n = unpack_all(&r, fam, 16);
	cr_expect_eq(n, 3, "the latency, info and up families: %zu", n);
	for (size_t i = 0; i < n; i++)
		cr_expect(!strstr(fam[i]->name, "nanoseconds"), "%s", fam[i]->name);

	m = find_metric(fam, n, OSP_OM_LATENCY, m1);
	cr_assert(m && m->histogram);
	check_histogram(m->histogram, &p1->ops[0].lat);
	cr_expect_eq(m->n_label, 3, "mount, layer, op");
	m = find_metric(fam, n, OSP_OM_LATENCY, m2);
	cr_assert(m && m->histogram);
	check_histogram(m->histogram, &p2->ops[0].lat);
	m = find_metric(fam, n, OSP_OM_INFO, m1);
	cr_assert(m && m->gauge);
	cr_expect_eq(m->gauge->value, 1);
	m = find_metric(fam, n, OEX_FAMILY_UP, gone);
	cr_assert(m && m->gauge);
	cr_expect_eq(m->gauge->value, 0);
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(fam[i], NULL);
	oext_stop(&p);
}

/* The value of label @name of @m, NULL when it has none. */
static const char *label_of(const Io__Prometheus__Client__Metric *m, const char *name)
{
	for (size_t l = 0; l < m->n_label; l++)
		if (strcmp(m->label[l]->name, name) == 0)
			return m->label[l]->value;
	return NULL;
}

/*
 * osprof_info's labels from a profile's options arrive whole in protobuf:
 * core lends a series' label names for its call only, and the message is
 * packed after (they once dangled: Prometheus refused the scrape).
 */
Test(exporter, protobuf_info_labels_hold_the_profiles_options)
{
	static const char text[] =
		"{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"resolution\": 1,"
		" \"unit\": \"ns\", \"elapsed_ns\": 1000000, \"options\": {\"cache\": \"always\","
		" \"entry_timeout_s\": 86400.0, \"writeback\": false, \"transport\": \"dev\","
		" \"readdirplus\": \"auto\", \"passthrough\": false},"
		" \"ops\": [{\"name\": \"read\", \"count\": 4, \"sum\": 4000, \"min\": 1000,"
		" \"max\": 1000, \"buckets\": [[10, 4]]}]}\n";
	static const char *const want[][2] = {
		{ "cache", "always" }, { "entry_timeout_s", "86400.0" }, { "writeback", "false" },
		{ "transport", "dev" }, { "readdirplus", "auto" }, { "passthrough", "false" },
	};
	char *m1 = tpath("opts"), *ctl = tpath("opts/.osprof"), *file = tpath("opts/.osprof/stats.json");
	Io__Prometheus__Client__MetricFamily *fam[16];
	const Io__Prometheus__Client__Metric *m;
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	size_t n;
	FILE *f;

	cr_assert_eq(mkdir(m1, 0755), 0);
	cr_assert_eq(mkdir(ctl, 0755), 0);
	f = fopen(file, "w");
	cr_assert_not_null(f);
	cr_assert_eq(fputs(text, f) >= 0, true);
	cr_assert_eq(fclose(f), 0);
	port = oext_exporter((char *[]){ m1, NULL }, &p);
	r = oext_get(port, "/metrics", OEXT_ACCEPT_PROTO);
	cr_assert_eq(r.status, 200);
	n = unpack_all(&r, fam, 16);
	m = find_metric(fam, n, OSP_OM_INFO, m1);
	cr_assert(m && m->gauge);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_str_eq(label_of(m, want[i][0]) ? label_of(m, want[i][0]) : "(none)",
				 want[i][1], "label %s", want[i][0]);
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(fam[i], NULL);
	oext_stop(&p);
}

Test(exporter, native_buckets_are_the_nearest_grid_in_seconds)
{
	/* round(r * log2(1e9)); the native bounds within 7% of ours. */
	static const unsigned res[] = { 1, 2, 4, 8 };
	static const int want[] = { 30, 60, 120, 239 };

	for (size_t i = 0; i < 4; i++) {
		double ratio = exp2(-(double)oex_native_shift(res[i]) / res[i]) * 1e9;

		cr_expect_eq(oex_native_shift(res[i]), want[i]);
		cr_expect(ratio > 0.93 && ratio < 1.07, "r %u: ratio %g", res[i], ratio);
		cr_expect_eq(oex_native_shift(res[i]), (int)lround(res[i] * log2(1e9)));
	}
}

Test(exporter, accept_header_chooses_the_exposition)
{
	static const struct {
		const char *accept;
		bool proto;
	} cases[] = {
		{ NULL, false },
		{ "", false },
		{ "text/plain", false },
		{ OEXT_ACCEPT_PROTO, true },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", true },
		{ "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited; q=0.2, text/plain;q=0.5", false },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=text", false },
		{ "application/vnd.google.protobuf;encoding=delimited", false },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0", false },
		{ "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=junk", false },
		{ "*/*", false },
		{ ";;;,,,=;q=;", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(oex_accept_wants_proto(cases[i].accept), cases[i].proto,
			     "Accept: %s", cases[i].accept ? cases[i].accept : "(none)");
}

Test(exporter, a_bad_listen_address_exits_2_with_one_line)
{
	static const char *const bad[] = {
		"localhost:9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
		"127.0.0.1:-1", "127.0.0.1:+80", "127.0.0.1:80x", ":9464",
		"::1:9464", "[::1]9464", "[nope]:1", "1.2.3:4", "[::1]:",
		"300.0.0.1:80",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = run_argv((char *[]){ (char *)OEXT_BIN, "--listen",
						    (char *)bad[i], "/tmp", NULL });
		char *err = r.err, *nl = strchr(err, '\n');

		cr_expect_eq(r.status, 2, "--listen %s: exit %d", bad[i], r.status);
		cr_expect(nl && nl[1] == '\0', "--listen %s: not one line: %s", bad[i], err);
		cr_expect(strstr(err, bad[i]), "the line names the address: %s", err);
	}
}

Test(exporter, ipv6_loopback_is_accepted)
{
	char *argv[] = { (char *)OEXT_BIN, "--listen",
			 "[::1]:0", tpath("m"), NULL };
	struct oext_proc p;
	char *err = NULL;

	oext_fixture(tpath("m"), "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	p = oext_spawn(argv);

	for (int i = 0; i < 100; i++) {
		FILE *f = fopen(p.err_path, "r");
		char line[256] = "";

		if (f) {
			if (!fgets(line, sizeof(line), f))
				line[0] = '\0';
			fclose(f);
		}
		if (strstr(line, "listening on http://[::1]:")) {
			err = line;
			break;
		}
		if (strstr(line, "cannot listen")) {
			cr_log_warn("no IPv6 loopback here: %s", line);
			break;
		}
		usleep(20000);
	}
	if (err)
		cr_expect_eq(oext_stop(&p), 0);
	else
		oext_stop(&p);
}

Test(exporter, a_mount_gone_between_scrapes_leaves_a_200_and_source_up_0)
{
	char *m1 = tpath("m1"), *m2 = tpath("m2"), up[512], series[512], cmd[600];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double v;

	oext_fixture(m1, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	oext_fixture(m2, "stats.json", "fs", 1, NULL, "write", lat, NLAT);
	port = oext_exporter((char *[]){ m1, m2, NULL }, &p);
	snprintf(up, sizeof(up), "osprof_source_up{mount=\"%s\"}", m2);
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"write\"}", m2);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	cr_assert(sample(r.body, up, &v) && v == 1);
	cr_assert(sample(r.body, series, &v));

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", m2);
	cr_assert_eq(system(cmd), 0);
	for (int proto = 0; proto < 2; proto++) {
		r = oext_get(port, "/metrics", proto ? OEXT_ACCEPT_PROTO : NULL);
		cr_assert_eq(r.status, 200);
	}
	r = oext_get(port, "/metrics", NULL);
	cr_assert(sample(r.body, up, &v));
	cr_expect_eq(v, 0);
	cr_expect(!sample(r.body, series, &v), "the gone mount's series are absent");
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"read\"}", m1);
	cr_expect(sample(r.body, series, &v) && v == NLAT);

	/* A profile that is not one: the layer is left out, said on stderr. */
	oext_fixture(m2, "stats.json", "fs", 1, NULL, "write", lat, NLAT);
	{
		FILE *f = fopen(tpath("m2/.osprof/fuse.json"), "w");

		cr_assert(f);
		fputs("{\"format\": \"osprof\", \"version\": 1, \"ops\": [}", f);
		fclose(f);
	}
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	cr_expect(sample(r.body, up, &v) && v == 1, "back, with its fs layer");
	oext_stop(&p);
}

Test(exporter, a_malformed_request_gets_an_error_and_the_server_serves_on)
{
	static const char *const junk[] = {
		"\x01\x02\x03 garbage\r\n\r\n",
		"GET\r\n\r\n",
		"GET /metrics HTTP/9.9\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n",
		"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
		"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
	};
	char *m = tpath("m"), *big;
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		r = oext_http_raw(port, junk[i], strlen(junk[i]));
		cr_expect(r.status == 0 || r.status >= 400, "request %zu: %d", i, r.status);
		r = oext_get(port, "/metrics", NULL);
		cr_assert_eq(r.status, 200, "after request %zu", i);
	}
	/* Headers past the connection's memory bound. */
	big = malloc(200000);
	cr_assert(big);
	strcpy(big, "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ");
	memset(big + strlen(big), 'a', 150000);
	strcpy(big + 150000 + 40, "\r\n\r\n");
	r = oext_http_raw(port, big, strlen(big));
	cr_expect(r.status == 0 || r.status >= 400, "huge headers: %d", r.status);
	free(big);
	r = oext_get(port, "/nope", NULL);
	cr_expect_eq(r.status, 404);
	r = oext_http_raw(port, "DELETE /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 57);
	cr_expect_eq(r.status, 405);
	cr_expect_str_eq(oext_header(&r, "Allow"), "GET, HEAD");
	r = oext_get(port, "/metrics", NULL);
	cr_expect_eq(r.status, 200);
	cr_expect_eq(oext_stop(&p), 0, "still alive, and it exits cleanly");
}

Test(exporter, a_slow_client_does_not_block_a_concurrent_scrape)
{
	char *m = tpath("m");
	int idle[8];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double t0, dt;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	for (size_t i = 0; i < 8; i++) {
		idle[i] = oext_connect(port);
		cr_assert(idle[i] >= 0);
	}
	/* One that stops halfway through its request line, too. */
	cr_assert_eq(send(idle[0], "GET /metr", 9, 0), 9);
	usleep(100000);
	t0 = oext_now();
	r = oext_get(port, "/metrics", NULL);
	dt = oext_now() - t0;
	cr_expect_eq(r.status, 200);
	cr_expect(dt < 2.0, "the scrape took %.3f s beside idle connections", dt);
	cr_log_info("scrape beside 8 idle connections: %.1f ms", dt * 1e3);
	for (size_t i = 0; i < 8; i++) {
		char c;

		/* Still open: nothing came, no close. */
		cr_expect_eq(recv(idle[i], &c, 1, MSG_DONTWAIT), -1);
		close(idle[i]);
	}
	oext_stop(&p);
}

/* Seconds from @t0 until the server closes @fd, or -1 past @max_s;
 * what it sent before, up to @len - 1 bytes, into @got. */
static double closed_after(int fd, double t0, double max_s, char *got, size_t len)
{
	size_t have = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_usec = 200000 },
		   sizeof(struct timeval));
	got[0] = '\0';
	while (oext_now() - t0 < max_s) {
		char buf[256];
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n > 0) {
			size_t k = (size_t)n < len - 1 - have ? (size_t)n : len - 1 - have;

			memcpy(got + have, buf, k);
			have += k;
			got[have] = '\0';
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return oext_now() - t0;
	}
	return -1;
}

Test(exporter, a_request_whose_headers_take_over_5_s_is_cut_however_they_trickle, .timeout = 40)
{
	static const char slow[] = "GET /metrics HTTP/1.1\r\nX-Slow: "
				   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	char *m = tpath("m"), got[128];
	struct oext_proc p;
	unsigned port;
	double t0, dt;
	int idle, half, trickle;
	size_t sent = 0;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	idle = oext_connect(port);
	half = oext_connect(port);
	trickle = oext_connect(port);
	cr_assert(idle >= 0 && half >= 0 && trickle >= 0);
	t0 = oext_now();
	cr_assert_eq(send(half, slow, 23, 0), 23);
	/* A byte every 100 ms: libmicrohttpd's own timeout, which counts
	 * from the last byte, would never end it. */
	while (oext_now() - t0 < 9 && sent < sizeof(slow) - 1 &&
	       send(trickle, slow + sent, 1, MSG_NOSIGNAL) == 1) {
		sent++;
		usleep(100000);
	}
	dt = oext_now() - t0;
	cr_expect(dt > 4.5 && dt < 7, "the trickle was cut after %.1f s (%zu bytes), the limit being 5 s",
		  dt, sent);
	cr_expect(closed_after(trickle, t0, 12, got, sizeof(got)) > 0, "the trickling connection is closed");
	dt = closed_after(idle, t0, 12, got, sizeof(got));
	cr_expect(dt > 4.5 && dt < 7, "an idle connection closed after %.1f s", dt);
	dt = closed_after(half, t0, 12, got, sizeof(got));
	cr_expect(dt > 4.5 && dt < 7, "half a request closed after %.1f s", dt);
	cr_expect_eq(strncmp(got, "HTTP/1.1 408 ", 13), 0, "a 408 first: %s", got);
	close(idle);
	close(half);
	close(trickle);
	cr_expect_eq(oext_get(port, "/metrics", NULL).status, 200);
	cr_expect_eq(oext_stop(&p), 0);
}

Test(exporter, a_source_stuck_in_one_scrape_is_reported_down_by_the_next, .timeout = 30)
{
	char *m = tpath("m"), *hung = tpath("hung"), *fifo, series[600];
	const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double t0, dt, v;
	int stuck;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	/* A FIFO no one writes: opening it blocks, as a read of a hung
	 * FUSE mount does. */
	oext_fixture(hung, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	fifo = tpath("hung/.osprof/stats.json");
	cr_assert_eq(unlink(fifo), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	port = oext_exporter((char *[]){ m, hung, NULL }, &p);
	stuck = oext_connect(port);
	cr_assert(stuck >= 0);
	cr_assert_eq(send(stuck, req, strlen(req), 0), (ssize_t)strlen(req));
	usleep(200000);

	for (int i = 0; i < 3; i++) {
		t0 = oext_now();
		r = oext_get(port, "/metrics", NULL);
		dt = oext_now() - t0;
		cr_assert_eq(r.status, 200);
		cr_expect(dt < 3, "scrape %d took %.2f s beside a stuck one", i, dt);
		snprintf(series, sizeof(series), "osprof_source_up{mount=\"%s\"}", hung);
		cr_expect(sample(r.body, series, &v) && v == 0, "the stuck source is down");
		snprintf(series, sizeof(series), "osprof_source_up{mount=\"%s\"}", m);
		cr_expect(sample(r.body, series, &v) && v == 1, "the other one is up");
	}
	/* SIGTERM still stops it, without waiting for the stuck scrape. */
	t0 = oext_now();
	cr_expect_eq(oext_stop(&p), 1, "exit 1: a scrape was left behind");
	cr_expect(oext_now() - t0 < 4.5, "stopped in %.1f s", oext_now() - t0);
	close(stuck);
}

/* As many hung sources as scrape slots (OEX_SCRAPES_MAX), each holding
 * a scrape stuck on it: none of those holds a slot, so the next scrape is
 * answered, every hung source down at once (before, it got 503). */
#define NHUNG 8

Test(exporter, scrapes_stuck_on_hung_sources_hold_no_slot, .timeout = 60)
{
	const char *req = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
	char *paths[NHUNG + 2], name[16], series[600];
	int fd[NHUNG];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double t0, dt, v;

	paths[0] = tpath("m");
	oext_fixture(paths[0], "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	for (int i = 0; i < NHUNG; i++) {
		snprintf(name, sizeof(name), "hung%d", i);
		paths[1 + i] = tpath(name);
		oext_fixture(paths[1 + i], "stats.json", "fs", 1, NULL, "read", lat, NLAT);
		snprintf(series, sizeof(series), "%s/.osprof/stats.json", paths[1 + i]);
		cr_assert_eq(unlink(series), 0);
		cr_assert_eq(mkfifo(series, 0600), 0);
	}
	paths[NHUNG + 1] = NULL;
	port = oext_exporter(paths, &p);
	/* NHUNG scrapes at once: one sticks on hung0, the others find it
	 * taken, wait their second, and move on to the next; and so on. */
	for (int i = 0; i < NHUNG; i++) {
		fd[i] = oext_connect(port);
		cr_assert(fd[i] >= 0);
		cr_assert_eq(send(fd[i], req, strlen(req), 0), (ssize_t)strlen(req));
	}
	usleep((NHUNG + 1) * 1000000);
	t0 = oext_now();
	r = oext_get(port, "/metrics", NULL);
	dt = oext_now() - t0;
	cr_assert_eq(r.status, 200, "a scrape beside %d stuck ones: status %d", NHUNG, r.status);
	cr_expect(dt < 3, "the scrape took %.2f s", dt);
	for (int i = 0; i < NHUNG; i++) {
		snprintf(series, sizeof(series), "osprof_source_up{mount=\"%s\"}", paths[1 + i]);
		cr_expect(sample(r.body, series, &v) && v == 0, "%s is down", paths[1 + i]);
	}
	snprintf(series, sizeof(series), "osprof_source_up{mount=\"%s\"}", paths[0]);
	cr_expect(sample(r.body, series, &v) && v == 1, "the other one is up");
	cr_expect_eq(oext_stop(&p), 1, "exit 1: scrapes were left behind");
	for (int i = 0; i < NHUNG; i++)
		close(fd[i]);
}

Test(exporter, label_values_read_the_same_from_text_and_protobuf)
{
	char *m = tpath("m\xfe\"\\"), want[600];
	Io__Prometheus__Client__MetricFamily *fam[8];
	const Io__Prometheus__Client__Metric *metric;
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	size_t n;

	/* UTF-8 (a profile's JSON holds nothing else), a quote, a backslash,
	 * a newline in the op; a byte that is not UTF-8 in the mount (argv). */
	oext_fixture(m, "stats.json", "fs", 1, NULL, "r\xc3\xbf\"\\\nd", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	snprintf(want, sizeof(want), "m\\\\xfe\\\"\\\\\",layer=\"fs\",op=\"r\xc3\xbf\\\"\\\\\\nd\"}");
	cr_expect(strstr(r.body, want), "no %s in\n%.2000s", want, r.body);

	r = oext_get(port, "/metrics", OEXT_ACCEPT_PROTO);
	cr_assert_eq(r.status, 200);
	n = unpack_all(&r, fam, 8);
	/* The text's value unescaped: \xfe stays spelled, the rest raw. */
	snprintf(want, sizeof(want), "%.*s\\xfe\"\\", (int)strlen(m) - 3, m);
	metric = find_metric(fam, n, OSP_OM_LATENCY, want);
	cr_assert(metric, "no series of mount %s", want);
	cr_expect_str_eq(metric->label[2]->name, "op");
	cr_expect_str_eq(metric->label[2]->value, "r\xc3\xbf\"\\\nd");
	for (size_t i = 0; i < n; i++)
		io__prometheus__client__metric_family__free_unpacked(fam[i], NULL);
	oext_stop(&p);
}

Test(exporter, a_profile_whose_buckets_disagree_with_its_count_is_served_as_its_buckets_say)
{
	char *m = tpath("m"), *err, series[600];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double v;
	FILE *f;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	f = fopen(tpath("m/.osprof/stats.json"), "w");
	cr_assert(f);
	fputs("{\"format\": \"osprof\", \"version\": 1, \"layer\": \"fs\", \"resolution\": 1, \"unit\": \"ns\",\n"
	      " \"ops\": [{\"name\": \"read\", \"count\": 10, \"sum\": 6000, \"min\": 900, \"max\": 1100,\n"
	      "           \"buckets\": [[10, 4], [11, 2]]}]}\n", f);
	cr_assert_eq(fclose(f), 0);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	snprintf(series, sizeof(series), "osprof_latency_seconds_bucket{mount=\"%s\",layer=\"fs\",op=\"read\",le=\"+Inf\"}", m);
	cr_expect(sample(r.body, series, &v) && v == 6, "+Inf as the buckets say");
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"read\"}", m);
	cr_expect(sample(r.body, series, &v) && v == 6);
	oext_stop(&p);
	err = slurp(p.err_path);
	cr_assert(err);
	cr_expect(strstr(err, "stats.json: the buckets of some histograms do not add up"), "%s", err);
	free(err);
}

Test(exporter, serves_a_saved_run_directory_and_a_single_profile_file)
{
	char *run = tpath("run/.osprof"), *file = tpath("t/.osprof/trace.json"), series[600];
	struct oext_proc p;
	struct oext_resp r;
	unsigned port;
	double v;

	/* A run saved with fs.json beside fuse.json, and osprof-trace's -o FILE. */
	oext_fixture(tpath("run"), "fs.json", "fs", 1, NULL, "read", lat, NLAT);
	oext_fixture(tpath("run"), "fuse.json", "fuse", 2, NULL, "read", lat, 5);
	oext_fixture(tpath("t"), "trace.json", "syscall", 1, NULL, "read", lat, 7);
	port = oext_exporter((char *[]){ run, file, NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"read\"}", run);
	cr_expect(sample(r.body, series, &v) && v == NLAT, "%s", series);
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fuse\",op=\"read\"}", run);
	cr_expect(sample(r.body, series, &v) && v == 5, "%s", series);
	snprintf(series, sizeof(series), "osprof_latency_seconds_count{mount=\"%s\",layer=\"syscall\",op=\"read\"}", file);
	cr_expect(sample(r.body, series, &v) && v == 7, "%s", series);
	oext_stop(&p);
}

Test(exporter, two_mounts_serve_exact_series_and_the_machine_wide_layers_once)
{
	char *m1 = tpath("m1"), *m2 = tpath("m2"), labels[600], *text;
	struct om_sample *smp = own(calloc(2000, sizeof(*smp)));
	struct om_series ser[32];
	Io__Prometheus__Client__MetricFamily *fam[8];
	const struct om_series *s;
	struct oext_proc p;
	struct oext_resp r;
	size_t n, m, nfam, proto_series = 0;
	unsigned port;

	/* Each mount with its fs layer and the machine's block and irq
	 * layers, as osprof-fs mounts that load them hold them. */
	oext_fixture(m1, "stats.json", "fs", 1, "/data/one", "read", lat, NLAT);
	oext_fixture(m1, "block.json", "block", 1, "/data/one", "vda.read.queue", lat, 5);
	oext_fixture(m1, "irq.json", "irq", 1, "/data/one", "31:virtio0-stats", lat, 7);
	oext_fixture(m2, "stats.json", "fs", 2, "/data/two", "read", lat, 3);
	oext_fixture(m2, "block.json", "block", 1, "/data/two", "vda.read.queue", lat, 9);
	oext_fixture(m2, "irq.json", "irq", 1, "/data/two", "31:virtio0-stats", lat, 11);
	port = oext_exporter((char *[]){ m1, m2, NULL }, &p);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	om_promtool(r.body);
	text = own(strdup(r.body));
	n = om_parse(text, smp, 2000);
	m = om_series_of(smp, n, ser, 32);
	/* latency: m1 fs, m2 fs, block, irq; info: m1 fs, block, irq, m2 fs;
	 * up: m1, m2. */
	cr_expect_eq(m, 4 + 4 + 2, "%zu series in\n%.3000s", m, r.body);
	cr_expect_eq(n, 2 * (29 + 3) + (27 + 3) + (25 + 3) + 4 + 2, "%zu samples", n);
	snprintf(labels, sizeof(labels), "mount=%s,layer=fs,op=read", m1);
	s = om_find(ser, m, OSP_OM_LATENCY, labels);
	cr_expect(s && s->count == NLAT && s->samples == 29 + 3, "%s", labels);
	snprintf(labels, sizeof(labels), "mount=%s,layer=fs,op=read", m2);
	s = om_find(ser, m, OSP_OM_LATENCY, labels);
	cr_expect(s && s->count == 3, "%s", labels);
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=block,device=vda,op=read.queue");
	cr_expect(s && s->count == 5 && s->samples == 27 + 3, "block once, from the first mount");
	s = om_find(ser, m, OSP_OM_LATENCY, "layer=irq,irq=31:virtio0-stats");
	cr_expect(s && s->count == 7 && s->samples == 25 + 3, "irq once, from the first mount");
	snprintf(labels, sizeof(labels), "mount=%s,layer=fs,version=%s,resolution=2,lower=/data/two",
		 m2, OSPROF_VERSION);
	cr_expect_not_null(om_find(ser, m, OSP_OM_INFO, labels), "%s", labels);
	snprintf(labels, sizeof(labels), "layer=block,version=%s,resolution=1", OSPROF_VERSION);
	cr_expect_not_null(om_find(ser, m, OSP_OM_INFO, labels), "%s", labels);
	snprintf(labels, sizeof(labels), "mount=%s", m2);
	s = om_find(ser, m, OEX_FAMILY_UP, labels);
	cr_expect(s && s->samples == 1);

	/* The protobuf exposition: the same series. */
	r = oext_get(port, "/metrics", OEXT_ACCEPT_PROTO);
	cr_assert_eq(r.status, 200);
	nfam = unpack_all(&r, fam, 8);
	for (size_t i = 0; i < nfam; i++)
		proto_series += fam[i]->n_metric;
	cr_expect_eq(nfam, 3);
	cr_expect_eq(proto_series, m, "%zu series in protobuf, %zu in text", proto_series, m);
	for (size_t i = 0; i < nfam; i++)
		io__prometheus__client__metric_family__free_unpacked(fam[i], NULL);
	oext_stop(&p);
}

Test(exporter, a_path_that_is_no_source_is_refused_at_start_with_one_line)
{
	char *dir = tpath("plain"), *fifo = tpath("fifo"), *m = tpath("m");
	const char *bad[][2] = {
		{ tpath("nonexistent"), "No such file or directory" },
		{ dir, "a directory with no profile" },
		{ fifo, "neither a directory nor a regular file" },
	};

	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct run r = run_argv((char *[]){ (char *)OEXT_BIN, "--listen", "127.0.0.1:0",
						    m, (char *)bad[i][0], NULL });
		char *nl = strchr(r.err, '\n');

		cr_expect_eq(r.status, 2, "%s: exit %d", bad[i][0], r.status);
		cr_expect(nl && nl[1] == '\0', "%s: not one line: %s", bad[i][0], r.err);
		cr_expect(strstr(r.err, bad[i][0]) && strstr(r.err, bad[i][1]),
			  "the line names the path and what it is: %s", r.err);
	}
	{
		struct run r = run_argv((char *[]){ (char *)OEXT_BIN, "--listen", "127.0.0.1:0",
						    m, m, NULL });

		cr_expect_eq(r.status, 2);
		cr_expect(strstr(r.err, "named twice"), "%s", r.err);
	}
}

/* Whether the server has closed @fd (an end or a reset is waiting,
 * after what it sent: read and dropped). */
static bool is_closed(int fd)
{
	for (;;) {
		char buf[256];
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		if (n > 0)
			continue;
		return n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
	}
}

/* A scrape within @max_s whose body is @want exactly. */
static void scrape_is(unsigned port, const char *want, double max_s, const char *when)
{
	double t0 = oext_now(), dt;
	struct oext_resp r = oext_get(port, "/metrics", NULL);

	dt = oext_now() - t0;
	cr_expect_eq(r.status, 200, "%s: status %d", when, r.status);
	cr_expect(dt < max_s, "%s: the scrape took %.2f s", when, dt);
	cr_expect_str_eq(r.body, want, "%s: the scrape's content", when);
}

#define NCONN 1000

Test(exporter, a_thousand_idle_or_trickling_connections_leave_scrapes_answered, .timeout = 90)
{
	char *m = tpath("m"), *want;
	int *fd = own(calloc(NCONN, sizeof(int)));
	struct oext_proc p;
	unsigned port;
	size_t open_n = 0, closed_n = 0;
	double t0;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	want = oext_get(port, "/metrics", NULL).body;
	cr_assert(strstr(want, "osprof_latency_seconds_count"));
	/* A thousand clients, one address each: under every limit, so all
	 * are accepted and held. Half send nothing, half trickle a request. */
	t0 = oext_now();
	for (int i = 0; i < NCONN; i++) {
		char from[32];

		snprintf(from, sizeof(from), "127.1.%d.%d", i / 250, 1 + i % 250);
		fd[i] = oext_connect_from(port, from);
		cr_assert(fd[i] >= 0, "connection %d: %s", i, strerror(errno));
		if (i % 2)
			cr_assert_eq(send(fd[i], "GET /metrics HTTP/1.1\r\nX-A: ", 28, 0), 28);
	}
	cr_log_info("%d connections in %.2f s", NCONN, oext_now() - t0);
	for (int k = 0; k < 8; k++) {
		char when[64];

		for (int i = 1; i < NCONN; i += 2)
			(void)!send(fd[i], "a", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		snprintf(when, sizeof(when), "scrape %d beside %d connections", k, NCONN);
		scrape_is(port, want, 1.0, when);
		usleep(250000);
	}
	for (int i = 0; i < NCONN; i++)
		open_n += !is_closed(fd[i]);
	cr_expect_eq(open_n, NCONN, "all held while under 5 s old: %zu open", open_n);
	/* Past the headers' limit, all are cut. */
	while (oext_now() - t0 < 5 + 3 + NCONN * 0.002) {
		for (int i = 1; i < NCONN; i += 2)
			(void)!send(fd[i], "a", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		usleep(200000);
	}
	for (int i = 0; i < NCONN; i++) {
		closed_n += is_closed(fd[i]);
		close(fd[i]);
	}
	cr_expect_eq(closed_n, NCONN, "%zu of %d closed past the headers' limit", closed_n, NCONN);
	scrape_is(port, want, 1.0, "the scrape after");
	cr_expect_eq(oext_stop(&p), 0);
}

Test(exporter, one_address_holds_at_most_128_connections, .timeout = 60)
{
	char *m = tpath("m"), *want;
	int *fd = own(calloc(NCONN, sizeof(int)));
	struct oext_proc p;
	unsigned port;
	size_t open_n = 0;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	want = oext_get(port, "/metrics", NULL).body;
	for (int i = 0; i < NCONN; i++) {
		fd[i] = oext_connect_from(port, "127.0.0.2");
		cr_assert(fd[i] >= 0, "connection %d: %s", i, strerror(errno));
	}
	scrape_is(port, want, 1.0, "a scrape from another address");
	/* The exporter closes those past the limit as it accepts them: count
	 * until it has (a closed one stays closed), for at most 5 s. */
	for (double t0 = oext_now(); oext_now() - t0 < 5; usleep(100000)) {
		open_n = 0;
		for (int i = 0; i < NCONN; i++)
			open_n += !is_closed(fd[i]);
		if (open_n <= 128)
			break;
	}
	for (int i = 0; i < NCONN; i++)
		close(fd[i]);
	cr_expect_eq(open_n, 128, "%zu of one address's connections held", open_n);
	cr_expect_eq(oext_stop(&p), 0);
}

Test(exporter, sixty_four_half_requests_kept_open_do_not_block_scrapes, .timeout = 60)
{
	static const char half[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
	char *m = tpath("m"), *want;
	int fd[64];
	struct oext_proc p;
	unsigned port, reopened = 0, scrapes = 0;
	double t0;

	oext_fixture(m, "stats.json", "fs", 1, NULL, "read", lat, NLAT);
	port = oext_exporter((char *[]){ m, NULL }, &p);
	want = oext_get(port, "/metrics", NULL).body;
	/* The scraper's own address, as a client beside it on one host. */
	for (int i = 0; i < 64; i++) {
		fd[i] = oext_connect(port);
		cr_assert(fd[i] >= 0);
		cr_assert_eq(send(fd[i], half, sizeof(half) - 1, 0), (ssize_t)sizeof(half) - 1);
	}
	t0 = oext_now();
	/* 12 s: past the headers' limit twice, each cut one opened again. */
	while (oext_now() - t0 < 12) {
		char when[64];

		for (int i = 0; i < 64; i++) {
			if (!is_closed(fd[i]))
				continue;
			close(fd[i]);
			fd[i] = oext_connect(port);
			cr_assert(fd[i] >= 0);
			(void)!send(fd[i], half, sizeof(half) - 1, MSG_NOSIGNAL);
			reopened++;
		}
		snprintf(when, sizeof(when), "scrape %u beside 64 half-requests", scrapes++);
		scrape_is(port, want, 1.0, when);
		usleep(200000);
	}
	cr_expect_geq(reopened, 64, "the half-requests were cut and opened again: %u", reopened);
	cr_log_info("%u scrapes, %u half-requests opened again", scrapes, reopened);
	for (int i = 0; i < 64; i++)
		close(fd[i]);
	cr_expect_eq(oext_stop(&p), 0);
}
