// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: osprof-exporter's web configuration file
 * (exporter/oex_webcfg.c, libyaml), the whole input as the file's bytes.
 * Beyond crashes and leaks: a refusal is one line and leaves the
 * configuration empty; an accepted one has, with TLS, both of the
 * certificate's files and a version range in order, a client CA where
 * its client_auth_type checks certificates and none where it asks for
 * none, and users each named once with a well-formed bcrypt hash; and it
 * reads the same twice.
 */
#include <stdlib.h>
#include <string.h>

#include "ofz.h"
#include "oex_webcfg.h"

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void check(const struct oex_webcfg *c)
{
	if (c->tls) {
		if (!c->cert_file || !c->key_file)
			ofz_fail("TLS without cert_file or key_file");
		if (c->min_version > c->max_version || c->max_version >= OEX_TLS_VERSIONS)
			ofz_fail("versions %d..%d", c->min_version, c->max_version);
		if (c->client_auth >= OEX_CLIENT_AUTHS)
			ofz_fail("client_auth_type %d", c->client_auth);
		if ((c->client_auth == OEX_CLIENT_NONE && c->client_ca_file) ||
		    ((c->client_auth == OEX_CLIENT_VERIFY_GIVEN ||
		      c->client_auth == OEX_CLIENT_REQUIRE_VERIFY) && !c->client_ca_file))
			ofz_fail("client_auth_type %d with client CA %p", c->client_auth,
				 (const void *)c->client_ca_file);
	}
	for (size_t i = 0; i < c->nusers; i++) {
		const char *h = c->users[i].hash;

		if (!c->users[i].name || !h || strlen(h) != 60 || strncmp(h, "$2", 2))
			ofz_fail("user %zu: a bad name or hash accepted", i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->users[i].name, c->users[j].name))
				ofz_fail("user %s twice", c->users[i].name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oex_webcfg a, b;
	char err[200];
	int rc = oex_webcfg_parse((const char *)data, size, &a, err, sizeof(err));

	if (rc != 0) {
		ofz_check_err("webcfg", err, sizeof(err));
		if (a.tls || a.nusers || a.cert_file || a.users)
			ofz_fail("a refused file left settings");
		return 0;
	}
	check(&a);
	if (oex_webcfg_parse((const char *)data, size, &b, err, sizeof(err)) != 0 ||
	    a.tls != b.tls || a.nusers != b.nusers || a.client_auth != b.client_auth ||
	    !str_eq(a.cert_file, b.cert_file) || !str_eq(a.key_file, b.key_file) ||
	    !str_eq(a.client_ca_file, b.client_ca_file))
		ofz_fail("read differently twice");
	for (size_t i = 0; i < a.nusers; i++)
		if (strcmp(a.users[i].name, b.users[i].name) || strcmp(a.users[i].hash, b.users[i].hash))
			ofz_fail("user %zu read differently twice", i);
	oex_webcfg_fini(&a);
	oex_webcfg_fini(&b);
	return 0;
}
