/* SPDX-License-Identifier: MIT */
/*
 * One reading of the web configuration file, everything the server
 * needs from it: the settings, basic auth's checker, the TLS material.
 * A reading replaced (SIGHUP) is kept, chained to its successor, until
 * the server stops: a scrape or a handshake under way may still use it.
 */
#ifndef OEX_WEB_H
#define OEX_WEB_H

#include "oex_auth.h"
#include "oex_tls.h"
#include "oex_webcfg.h"

struct oex_web {
	struct oex_webcfg cfg;
	struct oex_auth auth;     /* borrows cfg */
	struct oex_tls *tls;      /* NULL: plain HTTP */
	struct oex_web *older;    /* the reading this one replaced, or NULL */
};

/*
 * oex_web_load - read and check @path and the files it names: NULL with
 * one line in @err ("LINE: KEY: why", or "KEY: 'FILE': why" for a file
 * it names), else a reading to free with oex_web_free.
 */
struct oex_web *oex_web_load(const char *path, char *err, size_t errlen);
/* Free @w and every older reading chained to it (NULL is accepted). */
void oex_web_free(struct oex_web *w);

#endif /* OEX_WEB_H */
