// SPDX-License-Identifier: MIT
/*
 * A real Prometheus (Debian's prometheus package) scraping
 * osprof-exporter over two fixture mounts with different latency
 * distributions, on loopback, every second: once with
 * --enable-feature=native-histograms (Prometheus then asks for protobuf,
 * and keeps the native part of osprof_latency_seconds) and once without
 * (the text format: the classic buckets). After two scrapes,
 * histogram_quantile(0.99, ...) must lie in the bucket in which the
 * mount's own profile puts its p99 (osp_hist_percentile): the power of
 * two's from the classic buckets, the profile's own bucket -- its bounds
 * moved to the native grid in seconds -- from the native histogram; the
 * two mounts must be told apart, and the queries of docs/metrics.md
 * answer (time by layer, osprof_info). And over TLS with basic auth
 * (--web.config.file; certificates made at test time): Prometheus with
 * the CA file and the password scrapes it, the target up; with a wrong
 * password the target is down, for a 401.
 * Skipped, saying so, where prometheus is not installed.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "oex.h"
#include "oext.h"

TestSuite(prometheus, .init = oext_setup, .fini = oext_teardown, .timeout = 90);

#define PROM_BIN env_or("OEXT_PROMETHEUS", "/usr/bin/prometheus")

/* @n values: @nfast of @fast_ns, the rest of @slow_ns, so the p99 lies
 * well inside the slow one's bucket whatever the rank convention. */
static uint64_t *bimodal(size_t n, size_t nfast, uint64_t fast_ns, uint64_t slow_ns)
{
	uint64_t *v = own(calloc(n, sizeof(*v)));

	for (size_t i = 0; i < n; i++)
		v[i] = i < nfast ? fast_ns : slow_ns;
	return v;
}

/* /api/v1/query?query=@q, parsed (freed at teardown with its text). */
static json_object *query(unsigned port, const char *q)
{
	char target[2048];
	struct oext_resp r;
	json_object *j;

	snprintf(target, sizeof(target), "/api/v1/query?query=%s", oext_urlencode(q));
	r = oext_get(port, target, NULL);
	if (r.status != 200)
		return NULL;
	j = json_tokener_parse(r.body);
	cr_assert(j, "not JSON: %.2000s", r.body);
	return j;
}

/* The value of a one-sample instant vector, NAN when there is none. */
static double scalar_of(json_object *j)
{
	json_object *data, *result, *value;

	if (!j || !json_object_object_get_ex(j, "data", &data) ||
	    !json_object_object_get_ex(data, "result", &result) ||
	    json_object_array_length(result) != 1 ||
	    !json_object_object_get_ex(json_object_array_get_idx(result, 0), "value", &value))
		return NAN;
	return strtod(json_object_get_string(json_object_array_get_idx(value, 1)), NULL);
}

static double query_value(unsigned port, const char *q)
{
	json_object *j = query(port, q);
	double v = scalar_of(j);

	json_object_put(j);
	return v;
}

/* The bucket (lo, hi] ns of resolution @res that holds @ns. */
static void bucket_of(double ns, unsigned res, double *lo, double *hi)
{
	unsigned i = osp_bucket_index((uint64_t)ceil(ns), res);

	*lo = osp_bucket_lower_ns(i, res);
	*hi = osp_bucket_upper_ns(i, res);
}

static bool within(double v, double lo, double hi)
{
	return v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
}

struct mount {
	char *path;
	const struct osp_profile *prof;
	double p99_ns;
};

static void run_prometheus(bool native)
{
	struct mount m[2];
	struct oext_proc exp, prom;
	unsigned exp_port, prom_port;
	char *cfg = tpath("prometheus.yml"), text[1024], q[1024];
	double answer[2], t0, t_scraped = 0;
	FILE *f;

	if (access(PROM_BIN, X_OK) != 0)
		cr_skip_test("no %s: install Debian's prometheus package", PROM_BIN);
	m[0].path = tpath("fast");
	m[0].prof = oext_fixture(m[0].path, "stats.json", "fs", 1, "/data/fast", "read",
				 bimodal(1000, 985, 3000, 300000), 1000);
	m[1].path = tpath("slow");
	m[1].prof = oext_fixture(m[1].path, "stats.json", "fs", 4, "/data/slow", "read",
				 bimodal(1000, 980, 50000, 20000000), 1000);
	for (int i = 0; i < 2; i++)
		m[i].p99_ns = osp_hist_percentile(&m[i].prof->ops[0].lat, 99);
	exp_port = oext_exporter((char *[]){ m[0].path, m[1].path, NULL }, &exp);

	f = fopen(cfg, "w");
	cr_assert(f);
	fprintf(f, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
		   "scrape_configs:\n  - job_name: osprof\n    static_configs:\n"
		   "      - targets: ['127.0.0.1:%u']\n", exp_port);
	cr_assert_eq(fclose(f), 0);
	prom_port = oext_free_port();
	{
		char *cfg_arg, *db_arg, *web_arg;
		char *argv[8] = { (char *)PROM_BIN };
		int n = 1;

		cr_assert(asprintf(&cfg_arg, "--config.file=%s", cfg) > 0);
		cr_assert(asprintf(&db_arg, "--storage.tsdb.path=%s", tpath("tsdb")) > 0);
		cr_assert(asprintf(&web_arg, "--web.listen-address=127.0.0.1:%u", prom_port) > 0);
		argv[n++] = own(cfg_arg);
		argv[n++] = own(db_arg);
		argv[n++] = own(web_arg);
		if (native)
			argv[n++] = "--enable-feature=native-histograms";
		prom = oext_spawn(argv);
	}

	/* Two scrapes of both mounts. */
	t0 = oext_now();
	snprintf(q, sizeof(q), "min(count_over_time(osprof_source_up[5m]))");
	while (oext_now() - t0 < 40) {
		double v = query_value(prom_port, q);

		if (!isnan(v) && v >= 2) {
			t_scraped = oext_now() - t0;
			break;
		}
		usleep(250000);
	}
	if (t_scraped == 0) {
		struct oext_resp r = oext_get(prom_port, "/api/v1/targets", NULL);

		cr_assert_fail("no two scrapes in 40 s; targets: %.2000s", r.body);
	}
	fprintf(stderr, "Prometheus (native histograms %s) scraped twice after %.1f s\n",
		native ? "on" : "off", t_scraped);

	for (int i = 0; i < 2; i++) {
		double lo, hi, ratio;

		if (!native) {
			/* Classic: the power-of-two le bucket of the profile's p99. */
			snprintf(q, sizeof(q),
				 "histogram_quantile(0.99, osprof_latency_seconds_bucket{op=\"read\",mount=\"%s\"})",
				 m[i].path);
			answer[i] = query_value(prom_port, q) * 1e9;
			bucket_of(m[i].p99_ns, 1, &lo, &hi);
			snprintf(text, sizeof(text), "mount %s: profile p99 %.0f ns, classic answer %.0f ns, le bucket (%.0f, %.0f]",
				 m[i].path, m[i].p99_ns, answer[i], lo, hi);
		} else {
			/* Native, in seconds under the same name: the profile's
			 * own bucket at its resolution, on the native grid. */
			snprintf(q, sizeof(q),
				 "histogram_quantile(0.99, osprof_latency_seconds{op=\"read\",mount=\"%s\"})",
				 m[i].path);
			answer[i] = query_value(prom_port, q) * 1e9;
			bucket_of(m[i].p99_ns, m[i].prof->res, &lo, &hi);
			ratio = exp2(-(double)oex_native_shift(m[i].prof->res) / m[i].prof->res) * 1e9;
			lo *= ratio;
			hi *= ratio;
			snprintf(text, sizeof(text), "mount %s: profile p99 %.0f ns, native answer %.0f ns, its bucket at resolution %u on the native grid (%.0f, %.0f]",
				 m[i].path, m[i].p99_ns, answer[i], m[i].prof->res, lo, hi);
		}
		fprintf(stderr, "%s\n", text);
		cr_expect(within(answer[i], lo, hi), "%s", text);
	}
	cr_expect(answer[0] * 10 < answer[1],
		  "the mounts are told apart: %.0f vs %.0f ns", answer[0], answer[1]);
	/* Where the time goes, by layer: the sums of every request. */
	{
		double want = 0, got;

		for (int i = 0; i < 2; i++)
			want += (double)m[i].prof->ops[0].lat.sum / 1e9;
		got = query_value(prom_port, native
			? "sum by (layer) (histogram_sum(osprof_latency_seconds))"
			: "sum by (layer) (osprof_latency_seconds_sum)");
		cr_expect(fabs(got - want) < 1e-6 * want, "time of layer fs: %g s, want %g s", got, want);
	}
	cr_expect_eq(query_value(prom_port, "count(osprof_info{layer=\"fs\",version!=\"\"})"), 2);
	/* Content negotiation: native histograms only when Prometheus asked
	 * for protobuf. */
	if (!native)
		cr_expect(isnan(query_value(prom_port, "count(osprof_latency_seconds)")),
			  "no native histograms from the text format");
	/* The gauge of both sources says up. */
	cr_expect_eq(query_value(prom_port, "sum(osprof_source_up)"), 2);
	cr_expect_eq(oext_stop(&prom), 0, "prometheus exits cleanly on SIGTERM");
	cr_expect_eq(oext_stop(&exp), 0);
}

/* Prometheus on a free port with the config @cfg written first. */
static unsigned start_prometheus(const char *cfg_text, struct oext_proc *prom)
{
	char *cfg = tpath("prometheus.yml"), *cfg_arg, *db_arg, *web_arg;
	unsigned port = oext_free_port();

	spit(cfg, cfg_text, strlen(cfg_text));
	cr_assert(asprintf(&cfg_arg, "--config.file=%s", cfg) > 0);
	cr_assert(asprintf(&db_arg, "--storage.tsdb.path=%s", tpath("tsdb")) > 0);
	cr_assert(asprintf(&web_arg, "--web.listen-address=127.0.0.1:%u", port) > 0);
	*prom = oext_spawn((char *[]){ (char *)PROM_BIN, own(cfg_arg), own(db_arg),
				       own(web_arg), NULL });
	return port;
}

/*
 * The exporter over TLS with basic auth (user alice, password "right"),
 * Prometheus scraping it with the CA file and password @pass: the target
 * is up and its series there when @pass is right, down with a 401 when
 * it is not.
 */
static void run_prometheus_tls(const char *pass)
{
	bool right = strcmp(pass, "right") == 0;
	struct oext_proc exp, prom;
	char *text, *mnt = tpath("m");
	unsigned exp_port, prom_port;
	double up = NAN, t0;

	if (access(PROM_BIN, X_OK) != 0)
		cr_skip_test("no %s: install Debian's prometheus package", PROM_BIN);
	oext_certs();
	oext_fixture(mnt, "stats.json", "fs", 1, "/data", "read",
		     bimodal(100, 90, 3000, 300000), 100);
	cr_assert(asprintf(&text, "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
				  "basic_auth_users:\n  alice: '%s'\n",
			   tpath("server.pem"), tpath("server.key"), oext_bcrypt("right")) > 0);
	spit(tpath("web.yml"), text, strlen(text));
	free(text);
	exp_port = oext_exporter_opts((char *[]){ "--web.config.file", tpath("web.yml"), NULL },
				      (char *[]){ mnt, NULL }, &exp);
	cr_assert(asprintf(&text,
			   "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
			   "scrape_configs:\n  - job_name: osprof\n    scheme: https\n"
			   "    tls_config:\n      ca_file: %s\n"
			   "    basic_auth:\n      username: alice\n      password: '%s'\n"
			   "    static_configs:\n      - targets: ['127.0.0.1:%u']\n",
			   tpath("ca.pem"), pass, exp_port) > 0);
	prom_port = start_prometheus(own(text), &prom);

	/* Until the target's first scrape says up or down. */
	t0 = oext_now();
	while (oext_now() - t0 < 40 && isnan(up)) {
		up = query_value(prom_port, "up{job=\"osprof\"}");
		if (isnan(up))
			usleep(250000);
	}
	{
		struct oext_resp r = oext_get(prom_port, "/api/v1/targets", NULL);

		fprintf(stderr, "Prometheus over TLS, password %s: up %g after %.1f s\n",
			pass, up, oext_now() - t0);
		cr_assert(!isnan(up), "no scrape in 40 s; targets: %.2000s", r.body);
		if (right) {
			cr_expect_eq(up, 1, "the target is up: %.2000s", r.body);
		} else {
			cr_expect_eq(up, 0, "the target is down: %.2000s", r.body);
			cr_expect(strstr(r.body, "401"), "for a 401: %.2000s", r.body);
		}
	}
	if (right) {
		double v = NAN;

		for (int i = 0; i < 40 && isnan(v); i++) {
			v = query_value(prom_port, "sum(osprof_source_up)");
			if (isnan(v))
				usleep(250000);
		}
		cr_expect_eq(v, 1, "its series are there");
		cr_expect_eq(query_value(prom_port,
			"sum(osprof_latency_seconds_count{op=\"read\"})"), 100);
	} else {
		cr_expect(isnan(query_value(prom_port, "sum(osprof_source_up)")),
			  "no series without the password");
	}
	cr_expect_eq(oext_stop(&prom), 0, "prometheus exits cleanly on SIGTERM");
	cr_expect_eq(oext_stop(&exp), 0);
}

Test(prometheus, scrapes_over_tls_with_basic_auth_and_a_ca_file)
{
	run_prometheus_tls("right");
}

Test(prometheus, a_wrong_password_shows_the_target_down)
{
	run_prometheus_tls("wrong");
}

Test(prometheus, scrapes_protobuf_and_answers_from_native_histograms_in_seconds)
{
	run_prometheus(true);
}

Test(prometheus, scrapes_text_and_answers_from_classic_histograms)
{
	run_prometheus(false);
}
