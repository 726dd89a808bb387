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
 * outlive the server), from threads of its own. Raises the process's
 * soft limit of open files to its hard limit (idle connections cost a
 * descriptor each). NULL when libmicrohttpd could not start (it says why
 * on stderr).
 */
struct oex_http *oex_http_start(int listen_fd, const char *const *paths,
				size_t npaths);
/*
 * oex_http_stop - stop accepting, wait @wait_s seconds at most for the
 * scrapes under way, then stop serving and free: 0 (NULL is accepted).
 * -EBUSY when a scrape is still reading a source (a hung mount): the
 * server is left as it is, and the caller should exit.
 */
int oex_http_stop(struct oex_http *h, unsigned wait_s);

#endif /* OEX_HTTP_H */
