/* SPDX-License-Identifier: MIT */
/*
 * What osprof-exporter's tests share: a private temporary directory,
 * fixture sources written with core's JSON writer, the exporter (and
 * other programs) started as real processes and always reaped, and a
 * minimal HTTP/1.1 client on a raw socket (so tests can also send what
 * no client library would). Strings handed out live until teardown.
 */
#ifndef TESTS_EXPORTER_OEXT_H
#define TESTS_EXPORTER_OEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../report/cli.h"
#include "osprof/profile.h"

/* The program under test. */
#define OEXT_BIN env_or("OEX_BIN", "osprof-exporter")

/* Make the test's directory (cli_setup: tpath() names paths in it);
 * kill what was started and remove it all (fini). */
void oext_setup(void);
void oext_teardown(void);
/*
 * A profile of one layer at resolution @res with op @op holding the
 * @n latencies @lat_ns, written as @dir/.osprof/@file (a mount's control
 * directory: file "stats.json" for layer fs), with source "lower" @lower
 * when not NULL. Returns the profile (kept until teardown).
 */
struct osp_profile *oext_fixture(const char *dir, const char *file,
				 const char *layer, unsigned res,
				 const char *lower, const char *op,
				 const uint64_t *lat_ns, size_t n);

/* A started process: its pid and the file its stderr goes to. */
struct oext_proc {
	pid_t pid;
	char *err_path;
};
/* Start @argv (stdout and stderr to a file in the test's directory);
 * it is killed and reaped at teardown if still running. */
struct oext_proc oext_spawn(char *const *argv);
/* SIGTERM @p, reap it; its exit status, -1 when a signal ended it. */
int oext_stop(struct oext_proc *p);
/*
 * osprof-exporter on a free loopback port over the sources @paths
 * (NULL-terminated); waits until it listens and returns the port.
 */
unsigned oext_exporter(char *const *paths, struct oext_proc *p);
/* The same with the options @opts (NULL-terminated) before the paths;
 * the address it says may be http:// or https://. */
unsigned oext_exporter_opts(char *const *opts, char *const *paths,
			    struct oext_proc *p);

/*
 * Certificates for TLS tests, made now with openssl in the test's
 * directory (never kept): a CA (ca.pem), a server certificate for
 * 127.0.0.1 and localhost signed by it (server.pem, server.key), a
 * client certificate signed by it (client.pem, client.key), and one
 * signed by another CA (stranger.pem, stranger.key). Skips the test
 * without openssl.
 */
void oext_certs(void);
/* A bcrypt hash ($2b$, cost 4) of @pass (kept). */
char *oext_bcrypt(const char *pass);
/* The same at cost @cost (4 to 31). */
char *oext_bcrypt_cost(const char *pass, unsigned cost);

/* A TCP connection to 127.0.0.1:@port, or -1. */
int oext_connect(unsigned port);
/* The same from the loopback address @from ("127.0.0.2": all of 127/8
 * is this host's), or -1. */
int oext_connect_from(unsigned port, const char *from);

struct oext_resp {
	int status;      /* HTTP status, 0 when no status line came */
	char *headers;   /* the header block, NUL-terminated */
	char *body;      /* the body (NUL after it) */
	size_t body_len;
};
/* Send @req on a new connection, read the answer to the close (5 s at
 * most); status 0 and nothing else when the connection is refused. */
struct oext_resp oext_http_raw(unsigned port, const char *req, size_t len);
/* GET @target with Accept @accept (none when NULL). */
struct oext_resp oext_get(unsigned port, const char *target, const char *accept);
/* The value of header @name in @r (kept), or NULL. */
char *oext_header(const struct oext_resp *r, const char *name);

/* A port nothing listens on now (bound to port 0, then closed). */
unsigned oext_free_port(void);
/* @s percent-encoded for a URL's query (kept). */
char *oext_urlencode(const char *s);
/* Seconds since an arbitrary start (CLOCK_MONOTONIC). */
double oext_now(void);

/* The Accept header Prometheus 2.42 sends with native histograms on. */
#define OEXT_ACCEPT_PROTO "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"

#endif
