/* SPDX-License-Identifier: MIT */
/*
 * osprof-exporter's web configuration file (--web.config.file), in the
 * format of Prometheus's exporter-toolkit (its docs/web-configuration.md),
 * so one file serves every exporter of a fleet: TLS (tls_server_config:
 * cert_file, key_file, client_auth_type, client_ca_file, min_version,
 * max_version) and basic auth (basic_auth_users: user: bcrypt hash). As
 * exporter-toolkit does, a key it does not know is refused; a key of
 * exporter-toolkit we do not honour (inline certificates, cipher suites,
 * http_server_config, rate_limit...) is refused too, rather than served
 * without what it asked for. Parsing only: the files it names are read
 * by oex_tls.c, the hashes checked by oex_auth.c.
 */
#ifndef OEX_WEBCFG_H
#define OEX_WEBCFG_H

#include <stdbool.h>
#include <stddef.h>

/* client_auth_type, Go's crypto/tls ClientAuthType names. */
enum oex_client_auth {
	OEX_CLIENT_NONE,          /* NoClientCert */
	OEX_CLIENT_REQUEST,       /* RequestClientCert: asked, not checked */
	OEX_CLIENT_REQUIRE_ANY,   /* RequireAnyClientCert: needed, not checked */
	OEX_CLIENT_VERIFY_GIVEN,  /* VerifyClientCertIfGiven */
	OEX_CLIENT_REQUIRE_VERIFY,/* RequireAndVerifyClientCert */
	OEX_CLIENT_AUTHS
};
extern const char *const oex_client_auth_names[OEX_CLIENT_AUTHS];

/* min_version and max_version: TLS10..TLS13. */
enum oex_tls_version {
	OEX_TLS10,
	OEX_TLS11,
	OEX_TLS12,
	OEX_TLS13,
	OEX_TLS_VERSIONS
};
extern const char *const oex_tls_version_names[OEX_TLS_VERSIONS];

/* One user of basic_auth_users. */
struct oex_user {
	char *name;
	char *hash;   /* bcrypt: $2a$, $2b$ or $2y$, cost 04..16, 60 bytes */
};

struct oex_webcfg {
	bool tls;                     /* tls_server_config was given */
	char *cert_file, *key_file;   /* both, when tls */
	char *client_ca_file;         /* NULL: none */
	enum oex_client_auth client_auth;
	enum oex_tls_version min_version, max_version; /* TLS12, TLS13 by default */
	struct oex_user *users;       /* basic_auth_users; none: no auth */
	size_t nusers;
};

/*
 * oex_webcfg_parse - the YAML text @text of @len bytes into @cfg. 0, or
 * -EINVAL with one line in @err naming the line and key at fault
 * ("3: tls_server_config.client_auth_type: ..."), @cfg then empty. A
 * file with nothing in it is a configuration without TLS nor auth, as
 * for exporter-toolkit. Any input is safe. Free with oex_webcfg_fini.
 */
int oex_webcfg_parse(const char *text, size_t len, struct oex_webcfg *cfg,
		     char *err, size_t errlen);

/*
 * oex_webcfg_load - oex_webcfg_parse of file @path's text (at most
 * 1 MiB): 0, -errno of the read, or -EINVAL; the reason in @err.
 */
int oex_webcfg_load(const char *path, struct oex_webcfg *cfg, char *err,
		    size_t errlen);

/* Free what @cfg holds and zero it (an empty one is accepted). */
void oex_webcfg_fini(struct oex_webcfg *cfg);

#endif /* OEX_WEBCFG_H */
