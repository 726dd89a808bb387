/* SPDX-License-Identifier: MIT */
/*
 * The TLS side of osprof-exporter on GnuTLS, as libmicrohttpd runs it:
 * the server's certificate chain and key, the client CA and the version
 * range of one reading of the web configuration, handed to each
 * connection. libmicrohttpd sets the credentials once, so the certificate
 * is given by a callback (MHD_OPTION_HTTPS_CERT_CALLBACK) from the set in
 * use, and each session is set up (priorities, whether a client
 * certificate is asked for and how it is checked) when libmicrohttpd
 * announces the connection, before its handshake: a new set (SIGHUP)
 * applies from the next connection on, without a restart.
 */
#ifndef OEX_TLS_H
#define OEX_TLS_H

#include <stddef.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>

#include "oex_webcfg.h"

struct oex_tls;

/*
 * oex_tls_load - read the files @cfg names (cfg->tls must be set): NULL
 * with one line in @err naming the key at fault
 * ("tls_server_config.cert_file: 'x.pem': ..."), else a set to free with
 * oex_tls_free.
 */
struct oex_tls *oex_tls_load(const struct oex_webcfg *cfg, char *err, size_t errlen);
void oex_tls_free(struct oex_tls *t);

/*
 * oex_tls_use - the set connections use from now on (NULL: none). One a
 * process: the callbacks GnuTLS and libmicrohttpd call carry no context.
 * A set stays valid while a handshake may still use it: the caller frees
 * it only once the server has stopped.
 */
void oex_tls_use(struct oex_tls *t);

/* For MHD_OPTION_HTTPS_CERT_CALLBACK: the set in use's chain and key. */
gnutls_certificate_retrieve_function2 oex_tls_retrieve;

/* Set up @session, not yet handshaken, by the set in use. */
void oex_tls_session(gnutls_session_t session);

#endif /* OEX_TLS_H */
