// SPDX-License-Identifier: MIT
/*
 * The HTTP side of osprof-exporter, on libmicrohttpd: GET (or HEAD)
 * /metrics re-reads every source and answers in the exposition the Accept
 * header prefers; any other path is 404, any other method 405.
 *
 * Built to keep answering scrapes beside clients that connect and send
 * nothing, or trickle a request a byte at a time, by the thousand:
 *  - one event loop (epoll, libmicrohttpd's own thread), not a thread per
 *    connection: an idle connection costs a descriptor and a little
 *    memory, not a thread;
 *  - at most OEX_HTTP_PER_IP connections from one address (libmicrohttpd
 *    closes the others as they come), so one client cannot take the
 *    slots every other one needs; at most a connection limit in all,
 *    sized to the descriptors the process may open;
 *  - a request's headers must be complete within OEX_HTTP_HEADERS_S of
 *    the connection's start, however they trickle (libmicrohttpd's own
 *    timeout counts from the last byte, so a byte a second would hold a
 *    connection for ever): a watcher thread answers 408 and shuts the
 *    connection down past it; and each connection carries one request
 *    (Connection: close), so a connection never waits for a second one;
 *  - a connection idle OEX_HTTP_IDLE_S (a client that stops reading its
 *    answer) is closed by libmicrohttpd; headers past
 *    OEX_HTTP_MEM_BYTES get 431, malformed requests 400.
 * A scrape does not run in the loop: its connection is suspended and a
 * thread of its own reads the sources and renders the answer, then
 * resumes it, so a scrape stuck on a source (a hung FUSE mount) holds one
 * thread and no other connection. At most OEX_SCRAPES_MAX run at once
 * (503 beyond), not counting those stuck on a source (one a source at
 * most, below: so as many as the command line names).
 *
 * With a web configuration (--web.config.file), connections are TLS
 * (oex_tls.c sets each session up when libmicrohttpd announces it) and
 * requests need basic auth: the bcrypt check costs tens of milliseconds,
 * so it runs in the scrape's thread, never in the loop, and every request
 * -- 404s and 405s too -- goes there first; without the right user and
 * password the answer is 401 whatever the path. Credentials not seen to
 * pass (oex_auth_cached) take one of OEX_LOGINS_MAX login slots while
 * their bcrypt runs, not a scrape slot, so that clients without the
 * password cannot keep the scraper out. A new reading of the file
 * (SIGHUP) applies to the connections and requests that follow.
 *
 * A source is read by one scrape at a time: one state per source, when
 * the scrape reading it began (since, under mu), which both makes the
 * others wait and counts that scrape stuck after OEX_SOURCE_WAIT_S. A
 * scrape that finds a source still read OEX_SOURCE_WAIT_S after that
 * began -- an earlier scrape is stuck reading it -- reports it down
 * instead of waiting, so a hung source holds one thread, not one per
 * scrape, and the other sources are still served.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "oex_http.h"
#include "osprof/escape.h"

/* Seconds for a request's headers to arrive, from the connection's start. */
#define OEX_HTTP_HEADERS_S 5
/* Seconds a connection may make no progress at all, then it is closed. */
#define OEX_HTTP_IDLE_S 10u
/* Connections from one address at once. Above 64 half-requests plus the
 * scrapers beside them on one address (a proxy, localhost). */
#define OEX_HTTP_PER_IP 128u
/* Connections at once, at most; fewer when the descriptor limit says so
 * (each pending one holds two: libmicrohttpd's and the watcher's). */
#define OEX_HTTP_CONN_MAX 4096u
/* Descriptors kept for the sources, the loop and the scrapes. */
#define OEX_HTTP_FD_RESERVE 256u
/* Memory a connection may use to read its request (headers). */
#define OEX_HTTP_MEM_BYTES ((size_t)16 << 10)
/* Scrapes running at once. */
#define OEX_SCRAPES_MAX 8u
/* Requests checking credentials not seen to pass (a bcrypt each) at once:
 * beside the scrapes, so that they cannot keep the scraper out. */
#define OEX_LOGINS_MAX 2u
/* Seconds a scrape waits for another one's read of a source to end. */
#define OEX_SOURCE_WAIT_S 1
/* libmicrohttpd's messages (one per refused connection) at most this many
 * a window of OEX_LOG_WINDOW_S seconds; the rest are counted. */
#define OEX_LOG_BURST 5u
#define OEX_LOG_WINDOW_S 10

/* A connection whose request headers are awaited (the watch list). */
struct oex_conn {
	struct oex_conn *prev, *next;
	int fd;            /* a duplicate of its socket, to cut it; -1 none */
	double start_s;    /* when it was accepted, CLOCK_MONOTONIC */
	bool listed;       /* on the watch list */
};

/* A scrape under way: made by the loop, filled by its thread. */
struct oex_req {
	struct oex_http *h;
	struct MHD_Connection *conn;
	bool proto;        /* protobuf rather than text */
	unsigned refuse;   /* 0: a scrape; else the status to answer once authorized */
	struct oex_web *web; /* the reading the request is checked against */
	char *user, *pass; /* basic auth's, as given (NULL: none); owned */
	bool login;        /* its credentials cost a bcrypt: a login slot */
	bool done;         /* status, type, body are set */
	unsigned status;
	const char *type;
	char *body;        /* owned until queued */
	size_t len;
};

struct oex_http {
	struct MHD_Daemon *mhd;
	const char *const *paths; /* the sources, borrowed */
	struct oex_web *_Atomic web; /* the reading in use, NULL: none; owned
				      * with the older ones chained to it */
	bool tls;                 /* connections are TLS */
	size_t npaths;

	pthread_mutex_t mu;       /* guards what follows */
	pthread_cond_t cond;      /* a scrape or a source's reading ended; the
				   * watch list changed; stop */
	double *since;            /* per source: when a scrape began reading
				   * it; 0: none reads it */
	unsigned scrapes;         /* scrape threads running, logins among them */
	unsigned logins;          /* of them, checking credentials (a bcrypt) */
	bool stopping;
	struct oex_conn *head, *tail; /* the watch list, oldest first */
	pthread_t watcher;
	bool watching;            /* the watcher thread runs */

	pthread_mutex_t log_mu;   /* guards the log's window */
	double log_start_s;
	unsigned log_lines, log_dropped;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the watch list: headers within OEX_HTTP_HEADERS_S ---------------- */

static void unlink_conn(struct oex_http *h, struct oex_conn *c)
{
	if (!c->listed)
		return;
	*(c->prev ? &c->prev->next : &h->head) = c->next;
	*(c->next ? &c->next->prev : &h->tail) = c->prev;
	c->prev = c->next = NULL;
	c->listed = false;
}

/* Stop watching @c: off the list, our duplicate closed. */
static void unwatch(struct oex_http *h, struct oex_conn *c)
{
	pthread_mutex_lock(&h->mu);
	unlink_conn(h, c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&h->mu);
}

static void on_connection(void *cls, struct MHD_Connection *conn,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	struct oex_http *h = cls;
	struct oex_conn *c = *socket_context;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (h->tls) {
			const union MHD_ConnectionInfo *tls =
				MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);

			/* Before its handshake, which the loop starts next. */
			if (tls && tls->tls_session)
				oex_tls_session(tls->tls_session);
		}

		/* Without memory or a descriptor the connection goes
		 * unwatched: the idle timeout still holds. */
		c = calloc(1, sizeof(*c));
		if (!c)
			return;
		c->fd = info ? fcntl(info->connect_fd, F_DUPFD_CLOEXEC, 0) : -1;
		if (c->fd < 0) {
			free(c);
			return;
		}
		c->start_s = now_s();
		pthread_mutex_lock(&h->mu);
		c->prev = h->tail;
		*(h->tail ? &h->tail->next : &h->head) = c;
		h->tail = c;
		c->listed = true;
		pthread_mutex_unlock(&h->mu);
		*socket_context = c;
		return;
	}
	if (!c)
		return;
	/* Closed: libmicrohttpd still holds its descriptor, we let go of ours. */
	unwatch(h, c);
	free(c);
	*socket_context = NULL;
}

/* @conn's request headers are in: it is no longer watched. */
static void headers_done(struct oex_http *h, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (info && info->socket_context)
		unwatch(h, info->socket_context);
}

/*
 * The watcher: cuts every connection whose headers are late. Its
 * descriptor is a duplicate of the socket, so shutting it down ends that
 * connection and no other, even when libmicrohttpd is closing it at the
 * same moment; libmicrohttpd then reads the end and closes its side.
 */
static void *watch(void *arg)
{
	static const char late[] = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n"
				   "Content-Length: 0\r\n\r\n";
	struct oex_http *h = arg;

	pthread_mutex_lock(&h->mu);
	while (!h->stopping) {
		double now = now_s(), wait_s = 1;
		struct timespec until;

		while (h->head && h->head->start_s + OEX_HTTP_HEADERS_S <= now) {
			struct oex_conn *c = h->head;

			/* Over TLS a plain answer would be noise: cut alone. */
			if (!h->tls)
				(void)!send(c->fd, late, sizeof(late) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			shutdown(c->fd, SHUT_RDWR);
			unlink_conn(h, c);
		}
		if (h->head && h->head->start_s + OEX_HTTP_HEADERS_S - now < wait_s)
			wait_s = h->head->start_s + OEX_HTTP_HEADERS_S - now;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(wait_s * 1e9) + 1000000;
		until.tv_sec += until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;
		pthread_cond_timedwait(&h->cond, &h->mu, &until);
	}
	pthread_mutex_unlock(&h->mu);
	return NULL;
}

/* ---- scrapes ---------------------------------------------------------- */

/* How many sources a scrape has been reading for OEX_SOURCE_WAIT_S or
 * more: those scrapes are stuck (under h->mu). */
static unsigned stuck_locked(const struct oex_http *h, double now)
{
	unsigned n = 0;

	for (size_t i = 0; i < h->npaths; i++)
		n += h->since[i] > 0 && now - h->since[i] >= OEX_SOURCE_WAIT_S;
	return n;
}

/* Read source @i into @src unless another scrape has been at it for
 * OEX_SOURCE_WAIT_S (counted from when it began: a source stuck for
 * long is down at once, not after another wait); then it is down for
 * this scrape. */
static void load_source(struct oex_http *h, size_t i, struct oex_source *src)
{
	struct timespec until;
	double held;
	bool mine;

	pthread_mutex_lock(&h->mu);
	held = h->since[i] > 0 ? now_s() - h->since[i] : 0;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += (long)((OEX_SOURCE_WAIT_S - (held < OEX_SOURCE_WAIT_S ? held : OEX_SOURCE_WAIT_S)) * 1e9);
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	while (h->since[i] > 0 && pthread_cond_timedwait(&h->cond, &h->mu, &until) != ETIMEDOUT)
		;
	mine = h->since[i] == 0;
	if (mine)
		h->since[i] = now_s();
	pthread_mutex_unlock(&h->mu);
	if (!mine) {
		src->path = h->paths[i];
		fputs(OEX_PROG ": ", stderr);
		osp_esc_text(stderr, h->paths[i]);
		fputs(": an earlier scrape is still reading it: reported down\n", stderr);
		return;
	}
	oex_source_load(src, h->paths[i], stderr);
	pthread_mutex_lock(&h->mu);
	h->since[i] = 0;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->mu);
}

static void set_text(struct oex_req *r, unsigned status, const char *msg)
{
	r->status = status;
	r->type = "text/plain; charset=utf-8";
	r->body = strdup(msg);
	r->len = r->body ? strlen(msg) : 0;
}

/* Read every source now and render them in the chosen exposition. */
static void render(struct oex_req *r)
{
	struct oex_http *h = r->h;
	struct oex_source *srcs = calloc(h->npaths, sizeof(*srcs));
	FILE *mem;
	int rc = -ENOMEM;

	if (!srcs) {
		set_text(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
		return;
	}
	for (size_t i = 0; i < h->npaths; i++)
		load_source(h, i, &srcs[i]);
	mem = open_memstream(&r->body, &r->len);
	if (mem) {
		rc = r->proto ? oex_write_proto(mem, srcs, h->npaths)
			      : oex_write_text(mem, srcs, h->npaths);
		if (fclose(mem) != 0 && rc == 0)
			rc = -EIO;
	}
	for (size_t i = 0; i < h->npaths; i++)
		oex_source_fini(&srcs[i]);
	free(srcs);
	if (rc != 0) {
		free(r->body);
		set_text(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "the metrics could not be rendered\n");
		return;
	}
	r->status = MHD_HTTP_OK;
	r->type = r->proto ? OEX_CT_PROTO : OEX_CT_TEXT;
}

/* Free @r and what it owns, its password wiped. */
static void req_free(struct oex_req *r)
{
	free(r->body);
	free(r->user);
	if (r->pass)
		explicit_bzero(r->pass, strlen(r->pass));
	free(r->pass);
	free(r);
}

/* Scrapes holding a slot (under h->mu): not those stuck on a source, nor
 * those still checking credentials. */
static unsigned scraping_locked(struct oex_http *h)
{
	return h->scrapes - h->logins - stuck_locked(h, now_s());
}

static void scrape_end(struct oex_http *h)
{
	pthread_mutex_lock(&h->mu);
	h->scrapes--;
	pthread_cond_broadcast(&h->cond);
	pthread_mutex_unlock(&h->mu);
}

/* The request's answer when it is not a scrape's: 401 without the
 * right credentials, else the status on_request chose. */
static bool refused(struct oex_req *r)
{
	if (r->web && !oex_auth_check(&r->web->auth, r->user, r->pass)) {
		set_text(r, MHD_HTTP_UNAUTHORIZED, "unauthorized: a user and password are needed\n");
		return true;
	}
	if (r->refuse == MHD_HTTP_METHOD_NOT_ALLOWED)
		set_text(r, r->refuse, "only GET /metrics is served\n");
	else if (r->refuse)
		set_text(r, r->refuse, "not found: the metrics are at /metrics\n");
	return r->refuse != 0;
}

/*
 * A login's bcrypt done: its slot becomes a scrape's when the credentials
 * passed and one is free. True when the request goes on.
 */
static bool logged_in(struct oex_req *r)
{
	struct oex_http *h = r->h;
	bool ok = oex_auth_check(&r->web->auth, r->user, r->pass), busy;

	pthread_mutex_lock(&h->mu);
	h->logins--;
	busy = ok && scraping_locked(h) > OEX_SCRAPES_MAX;
	pthread_mutex_unlock(&h->mu);
	if (!ok)
		set_text(r, MHD_HTTP_UNAUTHORIZED, "unauthorized: a user and password are needed\n");
	else if (busy)
		set_text(r, MHD_HTTP_SERVICE_UNAVAILABLE, "too many scrapes at once\n");
	return ok && !busy;
}

static void *scrape(void *arg)
{
	struct oex_req *r = arg;
	struct oex_http *h = r->h;

	if ((!r->login || logged_in(r)) && !refused(r))
		render(r);
	r->done = true;
	/* The loop calls on_request again, which queues the answer. */
	MHD_resume_connection(r->conn);
	scrape_end(h);
	return NULL;
}

/* ---- requests --------------------------------------------------------- */

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
	/* One request a connection: the headers' deadline runs from its start. */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Basic realm=\"" OEX_PROG "\", charset=\"UTF-8\"");
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

/* Start a scrape of @conn in a thread of its own (or, with @refuse,
 * only the auth check before that status), its connection suspended
 * until the answer is ready; or answer at once why not. */
static enum MHD_Result start_scrape(struct oex_http *h, struct MHD_Connection *conn,
				    void **state, struct oex_web *web, unsigned refuse)
{
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	struct oex_req *r;
	pthread_attr_t attr;
	pthread_t t;
	bool busy;
	int rc;

	r = calloc(1, sizeof(*r));
	if (!r)
		return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory\n");
	*r = (struct oex_req){ .h = h, .conn = conn, .refuse = refuse, .web = web,
			       .proto = oex_accept_wants_proto(accept) };
	if (web) {
		/* Read here, in the loop: the connection is its. */
		char *pass = NULL, *user = MHD_basic_auth_get_username_password(conn, &pass);

		r->user = user ? strdup(user) : NULL;
		r->pass = pass ? strdup(pass) : NULL;
		if (pass)
			explicit_bzero(pass, strlen(pass));
		MHD_free(user);
		MHD_free(pass);
		/* Credentials not seen to pass cost a bcrypt: they take a
		 * login slot, not a scrape's, so clients without the
		 * password cannot keep the scraper out. */
		r->login = oex_auth_on(&web->auth) &&
			   !oex_auth_cached(&web->auth, r->user, r->pass);
	}
	pthread_mutex_lock(&h->mu);
	/* A scrape stuck on a source (at most one a source) holds no slot:
	 * hung mounts must not leave every scrape a 503. */
	busy = h->stopping || (r->login ? h->logins >= OEX_LOGINS_MAX :
			       scraping_locked(h) >= OEX_SCRAPES_MAX);
	if (!busy) {
		h->scrapes++;
		h->logins += r->login;
	}
	pthread_mutex_unlock(&h->mu);
	if (busy) {
		bool login = r->login;

		req_free(r);
		return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, login ?
				  "too many logins at once\n" : "too many scrapes at once\n");
	}
	*state = r;
	MHD_suspend_connection(conn);
	rc = pthread_attr_init(&attr);
	if (rc == 0) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&t, &attr, scrape, r);
		pthread_attr_destroy(&attr);
	}
	if (rc != 0) {
		set_text(r, MHD_HTTP_SERVICE_UNAVAILABLE, "no thread for the scrape\n");
		r->done = true;
		MHD_resume_connection(conn);
		if (r->login) {
			pthread_mutex_lock(&h->mu);
			h->logins--;
			pthread_mutex_unlock(&h->mu);
		}
		scrape_end(h);
	}
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_len, void **state)
{
	struct oex_http *h = cls;
	struct oex_req *r = *state;
	struct oex_web *web;
	unsigned refuse = 0;

	(void)version;
	(void)upload;
	if (r) {
		enum MHD_Result ret;

		*upload_len = 0; /* a GET's body, if any, is not read */
		if (!r->done)
			return MHD_YES;
		if (!r->body)
			return MHD_NO;
		ret = reply(conn, r->status, r->type, r->body, r->len, true);
		r->body = NULL;
		return ret;
	}
	headers_done(h, conn);
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		refuse = MHD_HTTP_METHOD_NOT_ALLOWED;
	else if (strcmp(url, "/metrics") != 0)
		refuse = MHD_HTTP_NOT_FOUND;
	web = atomic_load(&h->web);
	if (web && !oex_auth_on(&web->auth))
		web = NULL;
	/* Without auth a refusal needs no thread. */
	if (refuse && !web)
		return reply_text(conn, refuse, refuse == MHD_HTTP_NOT_FOUND
				  ? "not found: the metrics are at /metrics\n"
				  : "only GET /metrics is served\n");
	return start_scrape(h, conn, state, web, refuse);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **state,
			 enum MHD_RequestTerminationCode code)
{
	struct oex_req *r = *state;

	(void)cls;
	(void)conn;
	(void)code;
	if (r) {
		req_free(r);
		*state = NULL;
	}
}

/* libmicrohttpd says a line for every connection it refuses: a burst of
 * them is said in full, then only counted, so no client fills the log. */
static void on_log(void *cls, const char *fmt, va_list ap)
{
	struct oex_http *h = cls;
	double now = now_s();

	pthread_mutex_lock(&h->log_mu);
	if (now - h->log_start_s >= OEX_LOG_WINDOW_S) {
		if (h->log_dropped)
			fprintf(stderr, OEX_PROG ": libmicrohttpd: %u more messages left out\n",
				h->log_dropped);
		h->log_start_s = now;
		h->log_lines = h->log_dropped = 0;
	}
	if (h->log_lines++ < OEX_LOG_BURST) {
		fputs(OEX_PROG ": libmicrohttpd: ", stderr);
		vfprintf(stderr, fmt, ap);
	} else {
		h->log_dropped++;
	}
	pthread_mutex_unlock(&h->log_mu);
}

/* The connection limit the descriptor limit allows (raised to its hard
 * limit first: an idle connection is cheap, a refused scrape is not). */
static unsigned conn_limit(void)
{
	struct rlimit rl;
	rlim_t n;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 64;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	n = rl.rlim_cur == RLIM_INFINITY ? 2 * OEX_HTTP_CONN_MAX + OEX_HTTP_FD_RESERVE
					 : rl.rlim_cur;
	if (n < 2 * 64 + OEX_HTTP_FD_RESERVE)
		return 64;
	n = (n - OEX_HTTP_FD_RESERVE) / 2;
	return n < OEX_HTTP_CONN_MAX ? (unsigned)n : OEX_HTTP_CONN_MAX;
}

static void http_free(struct oex_http *h)
{
	pthread_mutex_destroy(&h->mu);
	pthread_mutex_destroy(&h->log_mu);
	pthread_cond_destroy(&h->cond);
	oex_tls_use(NULL);
	oex_web_free(atomic_load(&h->web));
	free(h->since);
	free(h);
}

struct oex_http *oex_http_start(int listen_fd, const char *const *paths,
				size_t npaths, struct oex_web *web)
{
	struct oex_http *h = calloc(1, sizeof(*h));
	unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_ERROR_LOG;

	if (!h) {
		oex_web_free(web);
		return NULL;
	}
	h->web = web;
	h->tls = web && web->tls;
	if (h->tls) {
		if (!MHD_is_feature_supported(MHD_FEATURE_TLS) ||
		    !MHD_is_feature_supported(MHD_FEATURE_HTTPS_CERT_CALLBACK)) {
			fputs(OEX_PROG ": this libmicrohttpd has no TLS with a certificate callback\n",
			      stderr);
			oex_web_free(web);
			free(h);
			return NULL;
		}
		flags |= MHD_USE_TLS;
		oex_tls_use(web->tls);
	}
	h->paths = paths;
	h->npaths = npaths;
	h->since = calloc(npaths, sizeof(*h->since));
	if (!h->since) {
		oex_tls_use(NULL);
		oex_web_free(web);
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->mu, NULL);
	pthread_mutex_init(&h->log_mu, NULL);
	pthread_cond_init(&h->cond, NULL);
	h->log_start_s = now_s();
	/* MHD_OPTION_HTTPS_CERT_CALLBACK is read with TLS alone (the
	 * certificate of each handshake comes from the reading in use);
	 * without, it ends the list. */
	h->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
				  /* First, so that every message goes through it. */
				  MHD_OPTION_EXTERNAL_LOGGER, on_log, h,
				  MHD_OPTION_LISTEN_SOCKET, listen_fd,
				  MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				  MHD_OPTION_CONNECTION_TIMEOUT, OEX_HTTP_IDLE_S,
				  MHD_OPTION_CONNECTION_LIMIT, conn_limit(),
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, OEX_HTTP_PER_IP,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, OEX_HTTP_MEM_BYTES,
				  h->tls ? MHD_OPTION_HTTPS_CERT_CALLBACK : MHD_OPTION_END,
				  oex_tls_retrieve, MHD_OPTION_END);
	if (!h->mhd) {
		http_free(h);
		return NULL;
	}
	h->watching = pthread_create(&h->watcher, NULL, watch, h) == 0;
	if (!h->watching)
		fputs(OEX_PROG ": no thread to watch slow requests: only the idle timeout holds\n",
		      stderr);
	return h;
}

int oex_http_reload(struct oex_http *h, struct oex_web *web)
{
	if (!!web->tls != h->tls)
		return -EINVAL;
	/* Only the main thread reloads: no two swaps race. */
	web->older = atomic_load(&h->web);
	if (h->tls)
		oex_tls_use(web->tls);
	atomic_store(&h->web, web);
	return 0;
}

int oex_http_stop(struct oex_http *h, unsigned wait_s)
{
	struct timespec until;
	MHD_socket lfd;
	bool stuck = false;

	if (!h)
		return 0;
	lfd = MHD_quiesce_daemon(h->mhd);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += wait_s;
	pthread_mutex_lock(&h->mu);
	h->stopping = true;
	pthread_cond_broadcast(&h->cond);
	while (h->scrapes > 0 && !stuck)
		stuck = pthread_cond_timedwait(&h->cond, &h->mu, &until) == ETIMEDOUT &&
			h->scrapes > 0;
	pthread_mutex_unlock(&h->mu);
	/* A suspended connection must not meet MHD_stop_daemon. */
	if (stuck)
		return -EBUSY;
	if (h->watching)
		pthread_join(h->watcher, NULL);
	MHD_stop_daemon(h->mhd);
	if (lfd != MHD_INVALID_SOCKET)
		close(lfd);
	http_free(h);
	return 0;
}
