/* SPDX-License-Identifier: MIT */
/*
 * osprof-exporter's HTTP server (libmicrohttpd): serves /metrics over
 * the sources named by path, read afresh on every scrape.
 */
#ifndef OEX_HTTP_H
#define OEX_HTTP_H

#include "oex.h"

struct oex_http;

/*
 * oex_http_start - serve on @listen_fd (bound and listening; the server
 * owns it from now on) the @npaths sources @paths (borrowed: they must
 * outlive the server), from threads of its own. NULL when libmicrohttpd
 * could not start (it says why on stderr).
 */
struct oex_http *oex_http_start(int listen_fd, const char *const *paths,
				size_t npaths);
/* Stop serving, wait for the scrapes under way, free; NULL is accepted.
 * A scrape stuck reading a source makes it wait as long. */
void oex_http_stop(struct oex_http *h);

#endif /* OEX_HTTP_H */
