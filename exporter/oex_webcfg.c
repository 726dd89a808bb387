// SPDX-License-Identifier: MIT
/*
 * The web configuration file's reader (oex_webcfg.h), on libyaml's event
 * parser: the file is external input, so every event is checked against
 * the one shape the format allows and the first thing out of place ends
 * the reading with one line naming its line and key. Nothing nests
 * deeper than that shape, so no input recurses or grows without bound.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <yaml.h>

#include "oex_webcfg.h"

const char *const oex_client_auth_names[OEX_CLIENT_AUTHS] = {
	[OEX_CLIENT_NONE] = "NoClientCert",
	[OEX_CLIENT_REQUEST] = "RequestClientCert",
	[OEX_CLIENT_REQUIRE_ANY] = "RequireAnyClientCert",
	[OEX_CLIENT_VERIFY_GIVEN] = "VerifyClientCertIfGiven",
	[OEX_CLIENT_REQUIRE_VERIFY] = "RequireAndVerifyClientCert",
};
_Static_assert(sizeof(oex_client_auth_names) / sizeof(oex_client_auth_names[0]) ==
	       OEX_CLIENT_AUTHS, "a name per client_auth_type");

const char *const oex_tls_version_names[OEX_TLS_VERSIONS] = {
	[OEX_TLS10] = "TLS10",
	[OEX_TLS11] = "TLS11",
	[OEX_TLS12] = "TLS12",
	[OEX_TLS13] = "TLS13",
};
_Static_assert(sizeof(oex_tls_version_names) / sizeof(oex_tls_version_names[0]) ==
	       OEX_TLS_VERSIONS, "a name per TLS version");

/* The largest file read: a few users and paths take a few KB. */
#define OEX_WEBCFG_MAX_BYTES ((size_t)1 << 20)

/* exporter-toolkit's keys that osprof-exporter does not honour. */
static const char *const unsupported[] = {
	"http_server_config", "rate_limit", "cert", "key", "client_ca",
	"client_allowed_sans", "cipher_suites", "prefer_server_cipher_suites",
	"curve_preferences",
};

struct rd {
	yaml_parser_t p;
	yaml_event_t ev;     /* the current event, deleted by next() */
	bool have;
	char *err;
	size_t errlen;
	bool failed;
};

/* Say why at @line (1-based) under @key (NULL: the file), once. */
__attribute__((format(printf, 4, 5)))
static int fail(struct rd *r, size_t line, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->failed)
		return -EINVAL;
	r->failed = true;
	n = snprintf(r->err, r->errlen, "%zu: %s%s", line, key ? key : "", key ? ": " : "");
	if (n >= 0 && (size_t)n < r->errlen) {
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	/* One line: a value quoted in the message could hold a newline. */
	for (char *c = r->err; *c; c++)
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	return -EINVAL;
}

static size_t line_of(const struct rd *r)
{
	return r->ev.start_mark.line + 1;
}

/* The next event into r->ev. */
static int next(struct rd *r)
{
	if (r->have)
		yaml_event_delete(&r->ev);
	r->have = false;
	if (!yaml_parser_parse(&r->p, &r->ev))
		return fail(r, r->p.problem_mark.line + 1, NULL, "not YAML: %s",
			    r->p.problem ? r->p.problem : "unreadable");
	r->have = true;
	if (r->ev.type == YAML_ALIAS_EVENT)
		return fail(r, line_of(r), NULL, "aliases are not supported");
	return 0;
}

static const char *scalar(const struct rd *r)
{
	return (const char *)r->ev.data.scalar.value;
}

/* A plain scalar YAML reads as null: "", ~, null. */
static bool is_null(const struct rd *r)
{
	const char *v = scalar(r);

	return r->ev.type == YAML_SCALAR_EVENT &&
	       r->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null") ||
		!strcmp(v, "Null") || !strcmp(v, "NULL"));
}

static bool is_unsupported(const char *key)
{
	for (size_t i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(key, unsupported[i]))
			return true;
	return false;
}

/* The string value of @key, next event, into *@dst (NULL for null). */
static int read_string(struct rd *r, const char *key, char **dst)
{
	if (next(r))
		return -EINVAL;
	if (r->ev.type != YAML_SCALAR_EVENT)
		return fail(r, line_of(r), key, "expected a string");
	if (memchr(scalar(r), '\0', r->ev.data.scalar.length))
		return fail(r, line_of(r), key, "holds a NUL byte");
	if (is_null(r))
		return 0;
	*dst = strdup(scalar(r));
	return *dst ? 0 : fail(r, line_of(r), key, "out of memory");
}

/* The value of @key, one of the @n @names, into *@dst. */
static int read_enum(struct rd *r, const char *key, const char *const *names,
		     unsigned n, unsigned *dst)
{
	char list[256] = "";

	if (next(r))
		return -EINVAL;
	if (r->ev.type != YAML_SCALAR_EVENT)
		return fail(r, line_of(r), key, "expected a string");
	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(scalar(r), names[i])) {
			*dst = i;
			return 0;
		}
		strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
	}
	return fail(r, line_of(r), key, "'%.64s' is none of %s", scalar(r), list);
}

/* Whether @h is a bcrypt hash as libcrypt reads it: $2a$, $2b$ or $2y$,
 * a two-digit cost 04..16 (OEX_BCRYPT_COST_MAX), '$', 53 characters of bcrypt's base 64. */
/* bcrypt costs at most: 2^16 rounds, about a second a check here. */
#define OEX_BCRYPT_COST_MAX 16u

static bool is_bcrypt(const char *h)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned cost;

	if (strlen(h) != 60 || h[0] != '$' || h[1] != '2' || !strchr("aby", h[2]) ||
	    h[3] != '$' || h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9' ||
	    h[6] != '$')
		return false;
	cost = (unsigned)(h[4] - '0') * 10 + (unsigned)(h[5] - '0');
	/* Past OEX_BCRYPT_COST_MAX a check takes seconds to days: at start
	 * (the dummy hash) it would hold the exporter, later every scrape. */
	if (cost < 4 || cost > OEX_BCRYPT_COST_MAX)
		return false;
	return strspn(h + 7, b64) == 53;
}

static int read_users(struct rd *r, struct oex_webcfg *cfg)
{
	char key[160];

	for (;;) {
		struct oex_user *u;
		char *name, *hash = NULL;

		if (next(r))
			return -EINVAL;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		if (r->ev.type != YAML_SCALAR_EVENT || is_null(r))
			return fail(r, line_of(r), "basic_auth_users", "a user name must be a string");
		if (memchr(scalar(r), '\0', r->ev.data.scalar.length) || strchr(scalar(r), ':'))
			return fail(r, line_of(r), "basic_auth_users",
				    "a user name holds neither ':' nor a NUL byte");
		snprintf(key, sizeof(key), "basic_auth_users.%.128s", scalar(r));
		for (size_t i = 0; i < cfg->nusers; i++)
			if (!strcmp(cfg->users[i].name, scalar(r)))
				return fail(r, line_of(r), key, "given twice");
		name = strdup(scalar(r));
		u = name ? realloc(cfg->users, (cfg->nusers + 1) * sizeof(*u)) : NULL;
		if (!u) {
			free(name);
			return fail(r, line_of(r), key, "out of memory");
		}
		cfg->users = u;
		if (read_string(r, key, &hash)) {
			free(name);
			return -EINVAL;
		}
		cfg->users[cfg->nusers++] = (struct oex_user){ .name = name, .hash = hash };
		if (!hash || !is_bcrypt(hash))
			return fail(r, line_of(r), key,
				    "not a bcrypt hash ($2y$, $2b$ or $2a$, cost 04..16, 60 characters)");
	}
}

/* Keys of tls_server_config, each given at most once. */
enum tls_key { K_CERT, K_KEY, K_CA, K_AUTH, K_MIN, K_MAX, K_N };
static const char *const tls_keys[K_N] = {
	[K_CERT] = "cert_file", [K_KEY] = "key_file", [K_CA] = "client_ca_file",
	[K_AUTH] = "client_auth_type", [K_MIN] = "min_version", [K_MAX] = "max_version",
};

static int read_tls(struct rd *r, struct oex_webcfg *cfg, size_t at_line)
{
	bool seen[K_N] = { 0 };
	char key[96];
	unsigned v = 0;

	for (;;) {
		enum tls_key k;
		int rc = 0;

		if (next(r))
			return -EINVAL;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			break;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return fail(r, line_of(r), "tls_server_config", "a key must be a string");
		snprintf(key, sizeof(key), "tls_server_config.%.64s", scalar(r));
		for (k = 0; k < K_N && strcmp(scalar(r), tls_keys[k]); k++)
			;
		if (k == K_N)
			return fail(r, line_of(r), key, is_unsupported(scalar(r))
				    ? "not supported by osprof-exporter" : "unknown key");
		if (seen[k])
			return fail(r, line_of(r), key, "given twice");
		seen[k] = true;
		switch (k) {
		case K_CERT: rc = read_string(r, key, &cfg->cert_file); break;
		case K_KEY: rc = read_string(r, key, &cfg->key_file); break;
		case K_CA: rc = read_string(r, key, &cfg->client_ca_file); break;
		case K_AUTH:
			rc = read_enum(r, key, oex_client_auth_names, OEX_CLIENT_AUTHS, &v);
			cfg->client_auth = v;
			break;
		case K_MIN:
		case K_MAX:
			rc = read_enum(r, key, oex_tls_version_names, OEX_TLS_VERSIONS, &v);
			*(k == K_MIN ? &cfg->min_version : &cfg->max_version) = v;
			break;
		case K_N: break;
		}
		if (rc)
			return -EINVAL;
	}
	/* As exporter-toolkit: a section with no certificate, key nor client
	 * setting is no TLS at all. */
	cfg->tls = cfg->cert_file || cfg->key_file || cfg->client_ca_file || seen[K_AUTH];
	if (!cfg->tls)
		return 0;
	if (!cfg->cert_file)
		return fail(r, at_line, "tls_server_config.cert_file", "missing");
	if (!cfg->key_file)
		return fail(r, at_line, "tls_server_config.key_file", "missing");
	if (cfg->min_version > cfg->max_version)
		return fail(r, at_line, "tls_server_config.min_version", "above max_version");
	if (cfg->client_ca_file && cfg->client_auth == OEX_CLIENT_NONE)
		return fail(r, at_line, "tls_server_config.client_ca_file",
			    "given with client_auth_type NoClientCert");
	if (!cfg->client_ca_file && (cfg->client_auth == OEX_CLIENT_VERIFY_GIVEN ||
				     cfg->client_auth == OEX_CLIENT_REQUIRE_VERIFY))
		return fail(r, at_line, "tls_server_config.client_auth_type",
			    "%s needs client_ca_file", oex_client_auth_names[cfg->client_auth]);
	return 0;
}

/* The top mapping's keys, after its MAPPING_START. */
static int read_top(struct rd *r, struct oex_webcfg *cfg)
{
	bool seen_tls = false, seen_users = false;

	for (;;) {
		bool *seen;
		size_t at;
		char key[80];

		if (next(r))
			return -EINVAL;
		if (r->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		if (r->ev.type != YAML_SCALAR_EVENT)
			return fail(r, line_of(r), NULL, "a key must be a string");
		snprintf(key, sizeof(key), "%.64s", scalar(r));
		at = line_of(r);
		if (!strcmp(key, "tls_server_config"))
			seen = &seen_tls;
		else if (!strcmp(key, "basic_auth_users"))
			seen = &seen_users;
		else
			return fail(r, at, key, is_unsupported(key)
				    ? "not supported by osprof-exporter" : "unknown key");
		if (*seen)
			return fail(r, at, key, "given twice");
		*seen = true;
		if (next(r))
			return -EINVAL;
		if (is_null(r))
			continue;
		if (r->ev.type != YAML_MAPPING_START_EVENT)
			return fail(r, line_of(r), key, "expected a mapping");
		if ((seen == &seen_tls ? read_tls(r, cfg, at) : read_users(r, cfg)) != 0)
			return -EINVAL;
	}
}

static int read_doc(struct rd *r, struct oex_webcfg *cfg)
{
	if (next(r))
		return -EINVAL;
	if (r->ev.type != YAML_STREAM_START_EVENT)
		return fail(r, line_of(r), NULL, "not YAML");
	if (next(r))
		return -EINVAL;
	if (r->ev.type == YAML_STREAM_END_EVENT)
		return 0;
	/* DOCUMENT_START: the parser yields nothing else here. */
	if (next(r))
		return -EINVAL;
	if (r->ev.type == YAML_MAPPING_START_EVENT) {
		if (read_top(r, cfg))
			return -EINVAL;
	} else if (!is_null(r)) {
		return fail(r, line_of(r), NULL, "expected a mapping of settings");
	}
	if (next(r))  /* DOCUMENT_END */
		return -EINVAL;
	if (next(r))
		return -EINVAL;
	if (r->ev.type != YAML_STREAM_END_EVENT)
		return fail(r, line_of(r), NULL, "one YAML document only");
	return 0;
}

int oex_webcfg_parse(const char *text, size_t len, struct oex_webcfg *cfg,
		     char *err, size_t errlen)
{
	struct rd r = { .err = err, .errlen = errlen };
	int rc;

	*cfg = (struct oex_webcfg){ .min_version = OEX_TLS12, .max_version = OEX_TLS13 };
	if (errlen)
		err[0] = '\0';
	if (!yaml_parser_initialize(&r.p)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&r.p, (const unsigned char *)text, len);
	rc = read_doc(&r, cfg);
	if (r.have)
		yaml_event_delete(&r.ev);
	yaml_parser_delete(&r.p);
	if (rc)
		oex_webcfg_fini(cfg);
	return rc;
}

int oex_webcfg_load(const char *path, struct oex_webcfg *cfg, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *text;
	size_t n;
	int rc;

	*cfg = (struct oex_webcfg){ 0 };
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	text = malloc(OEX_WEBCFG_MAX_BYTES + 1);
	if (!text) {
		fclose(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n = fread(text, 1, OEX_WEBCFG_MAX_BYTES + 1, f);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (rc)
		snprintf(err, errlen, "cannot read it");
	else if (n > OEX_WEBCFG_MAX_BYTES)
		rc = -EFBIG, snprintf(err, errlen, "larger than %zu bytes", OEX_WEBCFG_MAX_BYTES);
	else
		rc = oex_webcfg_parse(text, n, cfg, err, errlen);
	free(text);
	return rc;
}

void oex_webcfg_fini(struct oex_webcfg *cfg)
{
	free(cfg->cert_file);
	free(cfg->key_file);
	free(cfg->client_ca_file);
	for (size_t i = 0; i < cfg->nusers; i++) {
		free(cfg->users[i].name);
		free(cfg->users[i].hash);
	}
	free(cfg->users);
	*cfg = (struct oex_webcfg){ 0 };
}
