/* SPDX-License-Identifier: MIT */
/*
 * osprof-exporter's HTTP server (libmicrohttpd): serves /metrics over
 * the sources named by path, read afresh on every scrape.
 */
#ifndef OEX_HTTP_H
#define OEX_HTTP_H

#include "oex.h"
#include "oex_web.h"

struct oex_http;

/*
 * oex_http_start - serve on @listen_fd (bound and listening; the server
 * owns it from now on) the @npaths sources @paths (borrowed: they must
 * outlive the server), from threads of its own; over TLS and behind
 * basic auth as the web configuration @web says (NULL: plain HTTP, no
 * auth; the server owns it from now on and frees it when it stops). Raises the process's
 * soft limit of open files to its hard limit (idle connections cost a
 * descriptor each). NULL when libmicrohttpd could not start (it says why
 * on stderr).
 */
struct oex_http *oex_http_start(int listen_fd, const char *const *paths,
				size_t npaths, struct oex_web *web);

/*
 * oex_http_reload - connections and requests from now on follow @web (a
 * new reading of the web configuration), which the server then owns: 0.
 * -EINVAL, @web left to the caller, when it would turn TLS on or off
 * (libmicrohttpd takes that at start only).
 */
int oex_http_reload(struct oex_http *h, struct oex_web *web);
/*
 * oex_http_stop - stop accepting, wait @wait_s seconds at most for the
 * scrapes under way, then stop serving and free: 0 (NULL is accepted).
 * -EBUSY when a scrape is still reading a source (a hung mount): the
 * server is left as it is, and the caller should exit.
 */
int oex_http_stop(struct oex_http *h, unsigned wait_s);

#endif /* OEX_HTTP_H */
