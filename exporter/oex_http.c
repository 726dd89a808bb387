// SPDX-License-Identifier: MIT
/*
 * The HTTP side of osprof-exporter, on libmicrohttpd: GET (or HEAD)
 * /metrics re-reads every source and answers in the exposition the Accept
 * header prefers; any other path is 404, any other method 405.
 *
 * A thread per connection, so a scrape stuck on a source (a hung FUSE
 * mount) or a client that sends nothing holds only its own thread; each
 * connection is dropped after OEX_HTTP_TIMEOUT_S idle seconds, at most
 * OEX_HTTP_CONN_MAX are served at once, and a request's headers must fit
 * in OEX_HTTP_MEM_BYTES (libmicrohttpd answers 431 otherwise). Malformed
 * requests are refused by libmicrohttpd with 400 before they reach us.
 *
 * A source is read by one scrape at a time (a lock per source). A scrape
 * that cannot take a source's lock within OEX_SOURCE_WAIT_S -- an earlier
 * scrape is stuck reading it, say on a hung FUSE mount -- reports it down
 * instead of waiting, so a hung source holds one thread, not one per
 * scrape, and the other sources are still served.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "oex_http.h"
#include "osprof/escape.h"

/* Seconds a connection may stay idle (a slow client), then it is closed. */
#define OEX_HTTP_TIMEOUT_S 10u
/* Connections served at once; more wait in the listen backlog. */
#define OEX_HTTP_CONN_MAX 64u
/* Memory a connection may use to read its request (headers). */
#define OEX_HTTP_MEM_BYTES ((size_t)16 << 10)
/* Seconds a scrape waits for another one's read of a source to end. */
#define OEX_SOURCE_WAIT_S 1

struct oex_http {
	struct MHD_Daemon *mhd;
	const char *const *paths; /* the sources, borrowed */
	size_t npaths;
	pthread_mutex_t *reading; /* one per source: held while it is read */
};

/* Read source @i into @src unless another scrape has been at it for
 * OEX_SOURCE_WAIT_S; then it is down for this scrape. */
static void load_source(struct oex_http *h, size_t i, struct oex_source *src)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += OEX_SOURCE_WAIT_S;
	if (pthread_mutex_timedlock(&h->reading[i], &until) != 0) {
		src->path = h->paths[i];
		fputs(OEX_PROG ": ", stderr);
		osp_esc_text(stderr, h->paths[i]);
		fputs(": an earlier scrape is still reading it: reported down\n", stderr);
		return;
	}
	oex_source_load(src, h->paths[i], stderr);
	pthread_mutex_unlock(&h->reading[i]);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *type, char *body, size_t len,
			     bool owned)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body,
					    owned ? MHD_RESPMEM_MUST_FREE
						  : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn,
				  unsigned status, const char *msg)
{
	return reply(conn, status, "text/plain; charset=utf-8", (char *)msg,
		     strlen(msg), false);
}

/* Read every source now and render them in the chosen exposition. */
static enum MHD_Result scrape(struct oex_http *h, struct MHD_Connection *conn)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	bool proto = oex_accept_wants_proto(accept);
	struct oex_source *srcs = calloc(h->npaths, sizeof(*srcs));
	char *body = NULL;
	size_t len = 0;
	FILE *mem;
	int rc = -ENOMEM;

	if (!srcs)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	for (size_t i = 0; i < h->npaths; i++)
		load_source(h, i, &srcs[i]);
	mem = open_memstream(&body, &len);
	if (mem) {
		rc = proto ? oex_write_proto(mem, srcs, h->npaths)
			   : oex_write_text(mem, srcs, h->npaths);
		if (fclose(mem) != 0 && rc == 0)
			rc = -EIO;
	}
	for (size_t i = 0; i < h->npaths; i++)
		oex_source_fini(&srcs[i]);
	free(srcs);
	if (rc != 0) {
		free(body);
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				  "the metrics could not be rendered\n");
	}
	return reply(conn, MHD_HTTP_OK, proto ? OEX_CT_PROTO : OEX_CT_TEXT,
		     body, len, true);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **state)
{
	(void)version;
	(void)upload;
	(void)upload_len;
	(void)state;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "only GET /metrics is served\n");
	if (strcmp(url, "/metrics") != 0)
		return reply_text(conn, MHD_HTTP_NOT_FOUND,
				  "not found: the metrics are at /metrics\n");
	return scrape(cls, conn);
}

struct oex_http *oex_http_start(int listen_fd, const char *const *paths,
				size_t npaths)
{
	struct oex_http *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->paths = paths;
	h->npaths = npaths;
	h->reading = calloc(npaths, sizeof(*h->reading));
	if (!h->reading) {
		free(h);
		return NULL;
	}
	for (size_t i = 0; i < npaths; i++)
		pthread_mutex_init(&h->reading[i], NULL);
	h->mhd = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION |
				  MHD_USE_INTERNAL_POLLING_THREAD |
				  MHD_USE_POLL | MHD_USE_ERROR_LOG,
				  0, NULL, NULL, on_request, h,
				  MHD_OPTION_LISTEN_SOCKET, listen_fd,
				  MHD_OPTION_CONNECTION_TIMEOUT, OEX_HTTP_TIMEOUT_S,
				  MHD_OPTION_CONNECTION_LIMIT, OEX_HTTP_CONN_MAX,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, OEX_HTTP_MEM_BYTES,
				  MHD_OPTION_END);
	if (!h->mhd) {
		free(h->reading);
		free(h);
		return NULL;
	}
	return h;
}

void oex_http_stop(struct oex_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	for (size_t i = 0; i < h->npaths; i++)
		pthread_mutex_destroy(&h->reading[i]);
	free(h->reading);
	free(h);
}
