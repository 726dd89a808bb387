// SPDX-License-Identifier: MIT
/*
 * TLS material and per-session set-up for osprof-exporter (oex_tls.h).
 * client_auth_type is Go's, mapped to GnuTLS: NoClientCert asks for no
 * certificate; RequestClientCert asks and takes what comes (or nothing);
 * RequireAnyClientCert needs one and does not check it;
 * VerifyClientCertIfGiven checks one that comes against client_ca_file;
 * RequireAndVerifyClientCert needs one and checks it. A check is
 * GnuTLS's chain verification against the CA, for the TLS client purpose,
 * inside the handshake, so a refused client fails its handshake.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gnutls/x509.h>

#include "oex_tls.h"

/* The most certificates of a chain read from cert_file or sent by a client. */
#define OEX_TLS_CHAIN_MAX 16u

struct oex_tls {
	gnutls_pcert_st pcert[OEX_TLS_CHAIN_MAX]; /* the server's chain */
	unsigned npcert;
	gnutls_privkey_t key;
	gnutls_x509_trust_list_t ca;      /* client_ca_file; NULL: none */
	gnutls_priority_t prio;           /* min_version..max_version */
	enum oex_client_auth client_auth;
};

static struct oex_tls *_Atomic in_use;

void oex_tls_free(struct oex_tls *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->npcert; i++)
		gnutls_pcert_deinit(&t->pcert[i]);
	if (t->key)
		gnutls_privkey_deinit(t->key);
	if (t->ca)
		gnutls_x509_trust_list_deinit(t->ca, 1);
	if (t->prio)
		gnutls_priority_deinit(t->prio);
	free(t);
}

/* "KEY: 'PATH': WHY" into @err; NULL. */
static struct oex_tls *refuse(struct oex_tls *t, char *err, size_t errlen,
			      const char *key, const char *path, const char *why)
{
	snprintf(err, errlen, "tls_server_config.%s: '%s': %s", key, path, why);
	oex_tls_free(t);
	return NULL;
}

/* @path's bytes into @d (gnutls_free): 0, or -1 with errno set. */
static int load(const char *path, gnutls_datum_t *d)
{
	errno = 0;
	if (gnutls_load_file(path, d) >= 0)
		return 0;
	if (!errno)
		errno = EIO;
	return -1;
}

struct oex_tls *oex_tls_load(const struct oex_webcfg *cfg, char *err, size_t errlen)
{
	struct oex_tls *t = calloc(1, sizeof(*t));
	gnutls_certificate_credentials_t cred;
	gnutls_datum_t d = { 0 };
	char prio[160] = "NORMAL:-VERS-ALL";
	static const char *const vers[OEX_TLS_VERSIONS] = {
		"+VERS-TLS1.0", "+VERS-TLS1.1", "+VERS-TLS1.2", "+VERS-TLS1.3",
	};
	int rc;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->client_auth = cfg->client_auth;
	if (load(cfg->cert_file, &d) < 0)
		return refuse(t, err, errlen, "cert_file", cfg->cert_file, strerror(errno));
	t->npcert = OEX_TLS_CHAIN_MAX;
	rc = gnutls_pcert_list_import_x509_raw(t->pcert, &t->npcert, &d,
					       GNUTLS_X509_FMT_PEM, 0);
	gnutls_free(d.data);
	if (rc < 0) {
		t->npcert = 0;
		return refuse(t, err, errlen, "cert_file", cfg->cert_file, gnutls_strerror(rc));
	}
	if (load(cfg->key_file, &d) < 0)
		return refuse(t, err, errlen, "key_file", cfg->key_file, strerror(errno));
	rc = gnutls_privkey_init(&t->key);
	if (rc >= 0)
		rc = gnutls_privkey_import_x509_raw(t->key, &d, GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_memset(d.data, 0, d.size);
	gnutls_free(d.data);
	if (rc < 0)
		return refuse(t, err, errlen, "key_file", cfg->key_file, gnutls_strerror(rc));
	/* Both read: GnuTLS's own check that the key is the certificate's. */
	if (gnutls_certificate_allocate_credentials(&cred) < 0)
		return refuse(t, err, errlen, "cert_file", cfg->cert_file, "out of memory");
	rc = gnutls_certificate_set_x509_key_file2(cred, cfg->cert_file, cfg->key_file,
						   GNUTLS_X509_FMT_PEM, NULL, 0);
	gnutls_certificate_free_credentials(cred);
	if (rc < 0)
		return refuse(t, err, errlen, "key_file", cfg->key_file,
			      rc == GNUTLS_E_CERTIFICATE_KEY_MISMATCH
			      ? "not the key of cert_file's certificate" : gnutls_strerror(rc));
	if (cfg->client_ca_file) {
		if (gnutls_x509_trust_list_init(&t->ca, 0) < 0)
			return refuse(t, err, errlen, "client_ca_file", cfg->client_ca_file,
				      "out of memory");
		if (load(cfg->client_ca_file, &d) < 0)
			return refuse(t, err, errlen, "client_ca_file", cfg->client_ca_file,
				      strerror(errno));
		rc = gnutls_x509_trust_list_add_trust_mem(t->ca, &d, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
		gnutls_free(d.data);
		if (rc <= 0)
			return refuse(t, err, errlen, "client_ca_file", cfg->client_ca_file,
				      rc < 0 ? gnutls_strerror(rc) : "no certificate in it");
	}
	for (unsigned v = cfg->min_version; v <= cfg->max_version; v++) {
		strcat(prio, ":");
		strcat(prio, vers[v]);
	}
	if (gnutls_priority_init(&t->prio, prio, NULL) < 0) {
		t->prio = NULL;
		return refuse(t, err, errlen, "min_version", oex_tls_version_names[cfg->min_version],
			      "GnuTLS refuses this version range");
	}
	return t;
}

void oex_tls_use(struct oex_tls *t)
{
	atomic_store(&in_use, t);
}

int oex_tls_retrieve(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn,
		     int nreqs, const gnutls_pk_algorithm_t *pk_algos,
		     int pk_algos_length, gnutls_pcert_st **pcert,
		     unsigned int *pcert_length, gnutls_privkey_t *privkey)
{
	struct oex_tls *t = atomic_load(&in_use);

	(void)session;
	(void)req_ca_rdn;
	(void)nreqs;
	(void)pk_algos;
	(void)pk_algos_length;
	if (!t)
		return -1;
	*pcert = t->pcert;
	*pcert_length = t->npcert;
	*privkey = t->key;
	return 0;
}

/* The client's chain against the CA, for the TLS client purpose: 0 when
 * it holds (or, where allowed, none came), else -1: the handshake fails. */
static int verify_client(gnutls_session_t session)
{
	struct oex_tls *t = atomic_load(&in_use);
	gnutls_typed_vdata_st purpose = {
		.type = GNUTLS_DT_KEY_PURPOSE_OID,
		.data = (unsigned char *)GNUTLS_KP_TLS_WWW_CLIENT,
	};
	gnutls_x509_crt_t chain[OEX_TLS_CHAIN_MAX];
	const gnutls_datum_t *peers;
	unsigned n = 0, status = 1, i;
	int rc = 0;

	if (!t)
		return -1;
	peers = gnutls_certificate_get_peers(session, &n);
	if (!peers || n == 0)
		return t->client_auth == OEX_CLIENT_REQUEST ||
		       t->client_auth == OEX_CLIENT_VERIFY_GIVEN ? 0 : -1;
	if (t->client_auth != OEX_CLIENT_VERIFY_GIVEN &&
	    t->client_auth != OEX_CLIENT_REQUIRE_VERIFY)
		return 0;
	if (!t->ca || n > OEX_TLS_CHAIN_MAX)
		return -1;
	for (i = 0; i < n; i++) {
		rc = gnutls_x509_crt_init(&chain[i]);
		if (rc < 0)
			break;
		rc = gnutls_x509_crt_import(chain[i], &peers[i], GNUTLS_X509_FMT_DER);
		if (rc < 0) {
			i++; /* deinit it too */
			break;
		}
	}
	if (rc >= 0)
		rc = gnutls_x509_trust_list_verify_crt2(t->ca, chain, n, &purpose, 1, 0,
							&status, NULL);
	while (i-- > 0)
		gnutls_x509_crt_deinit(chain[i]);
	return rc >= 0 && status == 0 ? 0 : -1;
}

void oex_tls_session(gnutls_session_t session)
{
	struct oex_tls *t = atomic_load(&in_use);

	if (!t)
		return;
	gnutls_priority_set(session, t->prio);
	if (t->client_auth == OEX_CLIENT_NONE) {
		gnutls_certificate_server_set_request(session, GNUTLS_CERT_IGNORE);
		return;
	}
	gnutls_certificate_server_set_request(session,
		t->client_auth == OEX_CLIENT_REQUEST ||
		t->client_auth == OEX_CLIENT_VERIFY_GIVEN ? GNUTLS_CERT_REQUEST
							  : GNUTLS_CERT_REQUIRE);
	gnutls_session_set_verify_function(session, verify_client);
}
