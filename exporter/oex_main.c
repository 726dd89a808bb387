// SPDX-License-Identifier: MIT
/*
 * osprof-exporter: serves osprof profiles to Prometheus over HTTP, so the
 * daemon itself stays free of network code.
 *
 *   osprof-exporter [--listen ADDR:PORT] [--web.config.file FILE] MOUNT|DIR|FILE...
 *
 * Every scrape of /metrics re-reads each source (an osprof-fs mount, a
 * directory of saved layer files, /proc/osprof, a JSON profile file). It listens on loopback,
 * 127.0.0.1:9464, unless told otherwise; port 0 takes any free port. The
 * address it listens on is written as one line to stderr once it does.
 * With --web.config.file (exporter-toolkit's format: oex_webcfg.h) it
 * serves over TLS and asks for basic auth as the file says, and SIGHUP
 * reads the file again (a bad one is said and the one in use kept).
 * It runs until SIGINT or SIGTERM. Exit status: 0 after a signal, 1 when
 * it cannot listen (or a scrape stuck on a source outlived the shutdown's
 * wait), 2 for bad usage (a bad address, a bad web configuration, or a
 * path that is no source at start: one line).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "oex_http.h"
#include "osp_opt.h"
#include "osprof/escape.h"

static void usage(FILE *out)
{
	fputs("usage: " OEX_PROG " [--listen ADDR:PORT] [--web.config.file FILE] MOUNT|DIR|FILE...\n"
	      "Serve the osprof profiles of each osprof-fs MOUNT, saved run DIR,\n"
	      "/proc/osprof or JSON profile FILE at http://ADDR:PORT/metrics, for\n"
	      "Prometheus (classic text, or protobuf with native histograms when the\n"
	      "scraper asks for it); every scrape reads them anew. The family is\n"
	      "osprof_latency_seconds{mount,layer,op}, as .osprof/metrics and\n"
	      "osprof-report export write it, and osprof_source_up{mount}. A path\n"
	      "that is no source at start is refused (exit 2).\n"
	      "\n"
	      "  -l, --listen ADDR:PORT  where to listen (default " OEX_DEFAULT_LISTEN ");\n"
	      "                          IPv6 as [::1]:9464; port 0 takes a free one\n"
	      "      --web.config.file FILE\n"
	      "                          TLS and basic auth as Prometheus's exporter-toolkit\n"
	      "                          file FILE says (tls_server_config, basic_auth_users\n"
	      "                          with bcrypt hashes); a bad one is refused (exit 2);\n"
	      "                          SIGHUP reads it again\n"
	      "  -h, --help              this text\n"
	      "  -V, --version           the version\n"
	      "\n"
	      "examples:\n"
	      "  " OEX_PROG " /mnt/p\n"
	      "  " OEX_PROG " --listen [::1]:9464 /mnt/a /mnt/b /proc/osprof\n"
	      "  " OEX_PROG " --listen 0.0.0.0:9464 --web.config.file /etc/osprof/web.yml /mnt/p\n", out);
}

/* Connections the kernel keeps waiting for accept: a burst of clients
 * connecting at once is not refused while the loop catches up. */
#define OEX_BACKLOG 1024

/* A socket bound to @ss and listening, or -1 with a line on stderr. */
static int listen_on(const char *text, const struct sockaddr_storage *ss,
		     socklen_t len)
{
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) != 0 ||
	    listen(fd, OEX_BACKLOG) != 0)
		goto fail;
	return fd;
fail:
	fprintf(stderr, OEX_PROG ": cannot listen on ");
	osp_esc_text(stderr, text);
	fprintf(stderr, ": %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* "listening on http://127.0.0.1:9464/metrics" with the port bound
 * (https:// over TLS). */
static void say_where(int fd, bool tls)
{
	const char *scheme = tls ? "https" : "http";
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN];
	unsigned port;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0)
		return;
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		port = ntohs(a->sin6_port);
		fprintf(stderr, OEX_PROG ": listening on %s://[%s]:%u/metrics\n", scheme, host, port);
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		port = ntohs(a->sin_port);
		fprintf(stderr, OEX_PROG ": listening on %s://%s:%u/metrics\n", scheme, host, port);
	}
	fflush(stderr);
}

/* Seconds shutdown waits for the scrapes under way. */
#define OEX_STOP_WAIT_S 2

/*
 * Stop the server, waiting OEX_STOP_WAIT_S at most for the scrapes under
 * way: one stuck reading a hung mount would never end, and a signal must
 * still stop us. 0; when they did not end, the process exits with 1.
 */
static int stop(struct oex_http *http)
{
	if (oex_http_stop(http, OEX_STOP_WAIT_S) == -EBUSY) {
		fputs(OEX_PROG ": a scrape is still reading a source; exiting without it\n",
		      stderr);
		/* Not exit(): library destructors would run under the
		 * stuck scrape's thread. */
		fflush(NULL);
		_exit(1);
	}
	return 0;
}

/*
 * Each source must be one when we start (a typo is said now, not served
 * as a source down for ever) and named once (its series would repeat):
 * 0, or 2 with one line on stderr.
 */
static int check_sources(char *const *paths, size_t n)
{
	char err[256];

	for (size_t i = 0; i < n; i++) {
		bool twice = false;

		for (size_t j = 0; j < i && !twice; j++)
			twice = strcmp(paths[i], paths[j]) == 0;
		if (twice)
			snprintf(err, sizeof(err), "named twice");
		else if (oex_source_check(paths[i], err, sizeof(err)) == 0)
			continue;
		fputs(OEX_PROG ": ", stderr);
		osp_esc_text(stderr, paths[i]);
		fprintf(stderr, ": %s\n", err);
		return 2;
	}
	return 0;
}

/*
 * @n source paths made absolute (realpath at start: the mount label names
 * the mount point whatever directory the exporter was started in), each
 * malloc'd, or a copy of one that cannot be resolved (check_sources says
 * why); NULL out of memory. The exporter keeps them until it exits.
 */
static char **absolute_paths(char *const *paths, size_t n)
{
	char **abs = calloc(n + 1, sizeof(*abs));

	for (size_t i = 0; abs && i < n; i++) {
		abs[i] = realpath(paths[i], NULL);
		if (!abs[i])
			abs[i] = strdup(paths[i]);
		if (!abs[i]) {
			while (i--)
				free(abs[i]);
			free(abs);
			return NULL;
		}
	}
	return abs;
}

/* The web configuration at @path, or NULL with one line on stderr
 * ("--web.config.file PATH: LINE: KEY: why"), after @when. */
static struct oex_web *load_web(const char *path, const char *when)
{
	char err[512];
	struct oex_web *w = oex_web_load(path, err, sizeof(err));

	if (!w) {
		fputs(OEX_PROG ": --web.config.file ", stderr);
		osp_esc_text(stderr, path);
		fprintf(stderr, ": %s", when);
		osp_esc_text(stderr, err); /* it may quote the file's bytes */
		fputc('\n', stderr);
	}
	return w;
}

/* SIGHUP: read the web configuration again; a bad one leaves the one in
 * use, saying why. */
static void reload_web(struct oex_http *http, const char *path)
{
	struct oex_web *w;

	/* systemctl reload sends SIGHUP whatever the options: never an end */
	if (!path) {
		fputs(OEX_PROG ": SIGHUP: no --web.config.file to read again\n", stderr);
		return;
	}
	w = load_web(path, "not reloaded: ");

	if (!w)
		return;
	if (oex_http_reload(http, w) != 0) {
		fputs(OEX_PROG ": --web.config.file ", stderr);
		osp_esc_text(stderr, path);
		fputs(": not reloaded: TLS is turned on or off at start only\n", stderr);
		oex_web_free(w);
		return;
	}
	fputs(OEX_PROG ": --web.config.file ", stderr);
	osp_esc_text(stderr, path);
	fputs(": reloaded\n", stderr);
}

/* The key of options with a long name alone. */
enum { OEX_OPT_WEB_CONFIG = 256 };

int main(int argc, char **argv)
{
	const char *listen_text = OEX_DEFAULT_LISTEN, *web_path = NULL;
	const struct osp_opt opts[] = {
		{ 'l', "listen", OSP_OPT_STR, &listen_text },
		{ OEX_OPT_WEB_CONFIG, "web.config.file", OSP_OPT_STR, &web_path },
		{ 'h', "help", OSP_OPT_STOP },
		{ 'V', "version", OSP_OPT_PRINT, .text = OEX_PROG " " OSPROF_VERSION "\n" },
		{ 0 },
	};
	struct osp_opt_fail f;
	struct sockaddr_storage ss;
	struct oex_http *http;
	struct oex_web *web = NULL;
	static char **srcs; /* the sources, absolute: kept until exit */
	bool tls;
	socklen_t sslen;
	char err[128];
	sigset_t sigs;
	int rc = osp_opt_parse(opts, "", argc, argv, &f), fd, sig;

	if (rc == 'h') {
		usage(stdout);
		return 0;
	}
	if (rc == 'V')
		return 0;
	if (rc) {
		usage(stderr);
		return 2;
	}
	if (oex_addr_parse(listen_text, &ss, &sslen, err, sizeof(err)) != 0) {
		fprintf(stderr, OEX_PROG ": bad --listen address '");
		osp_esc_text(stderr, listen_text);
		fprintf(stderr, "': %s\n", err);
		return 2;
	}
	if (optind == argc) {
		fputs(OEX_PROG ": no source: name an osprof-fs mount, a run directory or /proc/osprof (--help)\n",
		      stderr);
		return 2;
	}
	srcs = absolute_paths(&argv[optind], (size_t)(argc - optind));
	if (!srcs) {
		fputs(OEX_PROG ": out of memory\n", stderr);
		return 1;
	}
	if (check_sources(srcs, (size_t)(argc - optind)))
		return 2;
	if (web_path) {
		web = load_web(web_path, "");
		if (!web)
			return 2;
	}
	tls = web && web->tls;
	/* Signals wait for sigwait, in this thread; the server's threads
	 * inherit the mask and never see them. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	fd = listen_on(listen_text, &ss, sslen);
	if (fd < 0) {
		oex_web_free(web);
		return 1;
	}
	http = oex_http_start(fd, (const char *const *)srcs,
			      (size_t)(argc - optind), web);
	if (!http) {
		fprintf(stderr, OEX_PROG ": the HTTP server could not start\n");
		close(fd);
		return 1;
	}
	say_where(fd, tls);
	while (sigwait(&sigs, &sig) == 0 && sig == SIGHUP)
		reload_web(http, web_path);
	return stop(http);
}
