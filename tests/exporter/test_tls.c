// SPDX-License-Identifier: MIT
/*
 * osprof-exporter with --web.config.file, against curl: TLS with the
 * test's own CA (certificates made at test time, oext_certs), basic auth
 * with bcrypt hashes, client certificates, plain HTTP to the TLS port,
 * SIGHUP, and bad files refused at start with one line naming the key.
 * Skipped, saying so, without curl or openssl.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "oext.h"

TestSuite(tls, .init = oext_setup, .fini = oext_teardown, .timeout = 60);

#define CURL_BIN env_or("OEXT_CURL", "/usr/bin/curl")

static const uint64_t lat[] = { 1000, 5000, 250000 };

/* What curl saw: its exit status, the HTTP status, headers and body. */
struct got {
	int rc;
	int status;   /* 0 when no answer came */
	char *headers, *body;
};

/*
 * curl @url with the extra arguments @args (NULL-terminated), trusting
 * the test's CA.
 */
static struct got curl(const char *url, char *const *args)
{
	char *argv[24] = { (char *)CURL_BIN, "-sS", "-m", "5", "--cacert", tpath("ca.pem"),
			   "-D", tpath("curl.headers"), "-o", tpath("curl.body"),
			   "-w", "%{http_code}" };
	size_t n = 12;
	struct got g;
	struct run r;

	if (access(CURL_BIN, X_OK) != 0)
		cr_skip_test("no %s: install Debian's curl package", CURL_BIN);
	unlink(tpath("curl.headers"));
	unlink(tpath("curl.body"));
	for (; *args; args++) {
		cr_assert(n < 22);
		argv[n++] = *args;
	}
	argv[n++] = (char *)url;
	r = run_argv(argv);
	g.rc = r.status;
	g.status = atoi(r.out ? r.out : "0");
	g.headers = slurp(tpath("curl.headers"));
	g.body = slurp(tpath("curl.body"));
	g.headers = g.headers ? own(g.headers) : "";
	g.body = g.body ? own(g.body) : "";
	return g;
}

/* What @p wrote to stderr so far (kept). */
static const char *stderr_of(const struct oext_proc *p)
{
	char *t = slurp(p->err_path);

	return t ? own(t) : "";
}

/* A web configuration @text as the test's web.yml; its path. */
static char *web(const char *text)
{
	char *path = tpath("web.yml");

	spit(path, text, strlen(text));
	return path;
}

/* TLS with the test's server certificate, then @more (keys of
 * tls_server_config, indented), then basic_auth_users alice and bob
 * (passwords "alice's secret" and "bob's"). */
static char *web_tls(const char *more)
{
	char *text;

	cr_assert(asprintf(&text,
			   "tls_server_config:\n  cert_file: %s\n  key_file: %s\n%s"
			   "basic_auth_users:\n  alice: '%s'\n  bob: '%s'\n",
			   tpath("server.pem"), tpath("server.key"), more,
			   oext_bcrypt("alice's secret"), oext_bcrypt("bob's")) > 0);
	return web(own(text));
}

/* A fixture mount and the exporter over it with web configuration
 * @cfg: the URL of its /metrics (https). */
static char *serve(const char *cfg, struct oext_proc *p)
{
	char *mnt = tpath("m"), *url;
	unsigned port;

	oext_fixture(mnt, "stats.json", "fs", 1, "/data", "read", lat, 3);
	port = oext_exporter_opts((char *[]){ "--web.config.file", (char *)cfg, NULL },
				  (char *[]){ mnt, NULL }, p);
	cr_assert(strstr(stderr_of(p), "listening on https://"),
		  "it says it serves https: %s", stderr_of(p));
	cr_assert(asprintf(&url, "https://127.0.0.1:%u/metrics", port) > 0);
	return own(url);
}

Test(tls, curl_with_the_ca_and_a_password_gets_the_family)
{
	struct oext_proc p;
	char *url;
	struct got g;

	oext_certs();
	url = serve(web_tls(""), &p);
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", NULL });
	cr_assert_eq(g.rc, 0, "curl: %d", g.rc);
	cr_assert_eq(g.status, 200);
	cr_expect(strstr(g.body, "osprof_latency_seconds_bucket{"), "the family: %.500s", g.body);
	cr_expect(strstr(g.body, "osprof_source_up{"));
	g = curl(url, (char *[]){ "-u", "bob:bob's", NULL });
	cr_expect_eq(g.status, 200, "the second user too");
	cr_expect_eq(oext_stop(&p), 0);
}

Test(tls, a_wrong_password_an_unknown_user_or_none_get_401)
{
	struct oext_proc p;
	char *url, *other;
	struct got g;

	oext_certs();
	url = serve(web_tls(""), &p);
	g = curl(url, (char *[]){ "-u", "alice:alice's secreT", NULL });
	cr_expect_eq(g.status, 401, "a wrong password");
	cr_expect(strstr(g.headers, "WWW-Authenticate: Basic"), "headers: %s", g.headers);
	cr_expect(!strstr(g.body, "osprof_"), "nothing of the metrics");
	g = curl(url, (char *[]){ "-u", "bob:alice's secret", NULL });
	cr_expect_eq(g.status, 401, "another user's password");
	g = curl(url, (char *[]){ "-u", "carol:alice's secret", NULL });
	cr_expect_eq(g.status, 401, "an unknown user");
	g = curl(url, (char *[]){ NULL });
	cr_expect_eq(g.status, 401, "no credentials");
	/* Any path: nothing is said before the credentials are right. */
	cr_assert(asprintf(&other, "%.*s/other", (int)(strlen(url) - strlen("/metrics")), url) > 0);
	g = curl(own(other), (char *[]){ NULL });
	cr_expect_eq(g.status, 401, "another path without credentials");
	g = curl(other, (char *[]){ "-u", "alice:alice's secret", NULL });
	cr_expect_eq(g.status, 404, "another path with them");
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", NULL });
	cr_expect_eq(g.status, 200, "and it serves on");
}

/*
 * Clients without the password cannot keep the scraper out: each of
 * their checks costs a bcrypt (cost 12 here, a few hundred ms), but they
 * take at most two login slots, not the scrape slots; the scraper's
 * credentials, seen to pass once, need no bcrypt again. Before, 16 such
 * clients held all 8 scrape slots and the scraper got 503.
 */
Test(tls, clients_without_the_password_do_not_keep_the_scraper_out)
{
	struct oext_proc p;
	char *text, *url, cmd[4096];
	struct got g;

	oext_certs();
	cr_assert(asprintf(&text, "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
			   "basic_auth_users:\n  alice: '%s'\n", tpath("server.pem"),
			   tpath("server.key"), oext_bcrypt_cost("alice's secret", 12)) > 0);
	url = serve(web(own(text)), &p);
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", NULL });
	cr_assert_eq(g.status, 200, "the first scrape logs in");
	/* 16 wrong passwords at once, repeated for about 2 s */
	snprintf(cmd, sizeof(cmd),
		 "for i in $(seq 16); do (for j in 1 2 3 4 5 6; do %s -s -o /dev/null -m 5 "
		 "--cacert '%s' -u 'mallory:guess' '%s'; done) & done; wait",
		 CURL_BIN, tpath("ca.pem"), url);
	{
		FILE *storm = popen(cmd, "r");

		cr_assert_not_null(storm);
		usleep(300000);
		for (int i = 0; i < 5; i++) {
			g = curl(url, (char *[]){ "-u", "alice:alice's secret", NULL });
			cr_expect_eq(g.status, 200, "scrape %d beside the storm: %d %s", i, g.status,
				     g.body);
		}
		pclose(storm);
	}
	cr_expect_eq(oext_stop(&p), 0);
}

Test(tls, plain_http_to_the_tls_port_gets_no_answer)
{
	struct oext_proc p;
	char *url, *plain;
	struct oext_resp r;
	unsigned port;

	oext_certs();
	url = serve(web_tls(""), &p);
	cr_assert(sscanf(url, "https://127.0.0.1:%u/", &port) == 1);
	r = oext_get(port, "/metrics", NULL);
	cr_expect_eq(r.status, 0, "an HTTP answer came: %.200s", r.headers);
	cr_assert(asprintf(&plain, "http://127.0.0.1:%u/metrics", port) > 0);
	cr_expect_neq(curl(own(plain), (char *[]){ "-u", "alice:alice's secret", NULL }).status, 200);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", NULL }).status, 200);
}

Test(tls, require_and_verify_takes_only_a_certificate_of_its_ca)
{
	struct oext_proc p;
	char *url, *more;
	struct got g;

	oext_certs();
	cr_assert(asprintf(&more, "  client_auth_type: RequireAndVerifyClientCert\n"
				  "  client_ca_file: %s\n", tpath("ca.pem")) > 0);
	url = serve(web_tls(own(more)), &p);
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", NULL });
	cr_expect_eq(g.status, 0, "no certificate: no answer");
	cr_expect_neq(g.rc, 0);
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", "--cert", tpath("stranger.pem"),
				  "--key", tpath("stranger.key"), NULL });
	cr_expect_eq(g.status, 0, "a certificate of another CA: no answer");
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", "--cert", tpath("client.pem"),
				  "--key", tpath("client.key"), NULL });
	cr_expect_eq(g.status, 200, "its CA's certificate");
	cr_expect(strstr(g.body, "osprof_latency_seconds_bucket{"));
	/* The server's own certificate is not one for a client. */
	g = curl(url, (char *[]){ "-u", "alice:alice's secret", "--cert", tpath("server.pem"),
				  "--key", tpath("server.key"), NULL });
	cr_expect_eq(g.status, 0, "a server certificate as a client's: no answer");
}

Test(tls, verify_if_given_takes_none_but_not_a_strangers)
{
	struct oext_proc p;
	char *url, *more;

	oext_certs();
	cr_assert(asprintf(&more, "  client_auth_type: VerifyClientCertIfGiven\n"
				  "  client_ca_file: %s\n", tpath("ca.pem")) > 0);
	url = serve(web_tls(own(more)), &p);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", NULL }).status, 200);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", "--cert",
					   tpath("stranger.pem"), "--key", tpath("stranger.key"),
					   NULL }).status, 0);
}

Test(tls, min_version_tls13_refuses_a_tls12_client)
{
	struct oext_proc p;
	char *url;

	oext_certs();
	url = serve(web_tls("  min_version: TLS13\n"), &p);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", "--tls-max", "1.2",
					   NULL }).status, 0);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", NULL }).status, 200);
}

Test(tls, sighup_reads_the_users_again_and_keeps_them_when_the_file_is_bad)
{
	struct oext_proc p;
	char *url, *text;

	oext_certs();
	url = serve(web_tls(""), &p);
	cr_assert_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", NULL }).status, 200);
	cr_assert(asprintf(&text, "tls_server_config:\n  cert_file: %s\n  key_file: %s\n"
				  "basic_auth_users:\n  alice: '%s'\n",
			   tpath("server.pem"), tpath("server.key"), oext_bcrypt("new")) > 0);
	web(own(text));
	kill(p.pid, SIGHUP);
	for (int i = 0; i < 40 && !strstr(stderr_of(&p), "reloaded"); i++)
		usleep(50000);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:alice's secret", NULL }).status, 401);
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:new", NULL }).status, 200);
	web("basic_auth_users:\n  alice: plain\n");
	kill(p.pid, SIGHUP);
	for (int i = 0; i < 40 && !strstr(stderr_of(&p), "not reloaded"); i++)
		usleep(50000);
	cr_expect(strstr(stderr_of(&p), "not reloaded: 2: basic_auth_users.alice:"),
		  "stderr: %s", stderr_of(&p));
	cr_expect_eq(curl(url, (char *[]){ "-u", "alice:new", NULL }).status, 200,
		     "the file in use is kept");
	cr_expect_eq(oext_stop(&p), 0);
}

/* A bad file, and the key its one line must name. */
struct bad {
	const char *yaml; /* %1$s: the server's certificate, %2$s: its key */
	const char *says;
};

/* By index: a test's process may not share the table's address. */
static const struct bad bad_cases[] = {
	{ "tls_server_config:\n  cert_file: %1$s\n  key_file: %2$s\n  bogus: 1\n",
	  "4: tls_server_config.bogus: unknown key" },
	{ "tls_server_config:\n  cert_file: %1$s.missing\n  key_file: %2$s\n",
	  "tls_server_config.cert_file: '" },
	{ "tls_server_config:\n  cert_file: %1$s\n  key_file: %2$s\n  client_auth_type: Sometimes\n",
	  "4: tls_server_config.client_auth_type: 'Sometimes' is none of" },
	{ "basic_auth_users:\n  alice: $1$salt$hashhashhashhashhash\n",
	  "2: basic_auth_users.alice: not a bcrypt hash" },
	{ "tls_server_config:\n  cert_file: %1$s\n  key_file: %2$s\n  min_version: TLS14\n",
	  "4: tls_server_config.min_version: 'TLS14' is none of" },
	{ "tls_server_config:\n  cert_file: %1$s\n",
	  "1: tls_server_config.key_file: missing" },
	{ "tls_server_config:\n  cert_file: %1$s\n  key_file: %1$s\n",
	  "tls_server_config.key_file: '" },
	{ "tls_server_config:\n  cert_file: %1$s\n  key_file: %2$s\n  client_auth_type: RequireAndVerifyClientCert\n",
	  "1: tls_server_config.client_auth_type: RequireAndVerifyClientCert needs client_ca_file" },
	{ "rate_limit:\n  interval: 1s\n", "1: rate_limit: not supported by osprof-exporter" },
	{ "basic_auth_users: [alice]\n", "1: basic_auth_users: expected a mapping" },
	{ "tls_server_config:\n\tcert_file: x\n", "2: not YAML: " },
};
#define NBAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

ParameterizedTestParameters(tls, a_bad_file_refuses_start_with_one_line_naming_the_key)
{
	static int idx[NBAD];

	for (size_t i = 0; i < NBAD; i++)
		idx[i] = (int)i;
	return cr_make_param_array(int, idx, NBAD);
}

ParameterizedTest(int *i, tls, a_bad_file_refuses_start_with_one_line_naming_the_key)
{
	const struct bad *b = &bad_cases[*i];
	char *text, *err;
	struct run r;

	oext_certs();
	cr_assert(asprintf(&text, b->yaml, tpath("server.pem"), tpath("server.key")) > 0);
	oext_fixture(tpath("m"), "stats.json", "fs", 1, "/data", "read", lat, 3);
	r = run_argv((char *const[]){ (char *)OEXT_BIN, "--listen", "127.0.0.1:0",
				      "--web.config.file", web(own(text)), tpath("m"), NULL });
	cr_expect_eq(r.status, 2, "exit status; stderr: %s", r.err);
	err = r.err ? r.err : "";
	cr_expect(strstr(err, b->says), "names the key (%s): %s", b->says, err);
	cr_expect(strchr(err, '\n') && !strchr(err, '\n')[1], "one line: %s", err);
}
