// SPDX-License-Identifier: MIT
/*
 * Basic auth's check (oex_auth.h): bcrypt through libcrypt, compared in
 * constant time.
 */
#include <crypt.h>
#include <sodium.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oex_auth.h"

/* Equal when @a and @b (NUL-terminated) are, in a time that depends on
 * the length of @b alone: every byte is looked at, none is branched on. */
static bool same(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	unsigned char diff = na != nb;

	for (size_t i = 0; i < nb; i++)
		diff |= (unsigned char)(a[i < na ? i : 0] ^ b[i]);
	return diff == 0;
}

int oex_auth_init(struct oex_auth *a, const struct oex_webcfg *cfg,
		  char *err, size_t errlen)
{
	struct crypt_data *cd;
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	unsigned long cost = 4;
	const char *h;

	*a = (struct oex_auth){ .cfg = cfg };
	pthread_mutex_init(&a->mu, NULL);
	if (!cfg->nusers)
		return 0;
	if (sodium_init() < 0) {
		snprintf(err, errlen, "libsodium cannot start");
		return -EINVAL;
	}
	randombytes_buf(a->key, sizeof(a->key));
	/* The users' highest cost: an unknown user costs what a known one
	 * does. The format (oex_webcfg.c) says the cost's digits. */
	for (size_t i = 0; i < cfg->nusers; i++) {
		unsigned long c = strtoul(cfg->users[i].hash + 4, NULL, 10);

		cost = c > cost ? c : cost;
	}
	cd = calloc(1, sizeof(*cd));
	if (!cd) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h = crypt_gensalt_rn("$2b$", cost, NULL, 0, setting, sizeof(setting));
	h = h ? crypt_rn("osprof-exporter: no such user", setting, cd, sizeof(*cd)) : NULL;
	if (!h || h[0] == '*' || strlen(h) >= sizeof(a->dummy)) {
		free(cd);
		snprintf(err, errlen, "libcrypt cannot make a bcrypt hash: %s",
			 strerror(errno ? errno : EINVAL));
		return -EINVAL;
	}
	strcpy(a->dummy, h);
	free(cd);
	return 0;
}

bool oex_auth_on(const struct oex_auth *a)
{
	return a->cfg && a->cfg->nusers > 0;
}

/* The tag of @user and @pass under @a's key: user, a 0 byte, password. */
static void tag_of(const struct oex_auth *a, const char *user, const char *pass,
		   uint8_t tag[OEX_AUTH_TAG])
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, a->key, sizeof(a->key), OEX_AUTH_TAG);
	crypto_generichash_update(&st, (const uint8_t *)user, strlen(user) + 1);
	crypto_generichash_update(&st, (const uint8_t *)pass, strlen(pass));
	crypto_generichash_final(&st, tag, OEX_AUTH_TAG);
}

bool oex_auth_cached(struct oex_auth *a, const char *user, const char *pass)
{
	uint8_t tag[OEX_AUTH_TAG];
	bool hit = false;

	if (!oex_auth_on(a) || !user || !pass)
		return false;
	tag_of(a, user, pass, tag);
	pthread_mutex_lock(&a->mu);
	/* every tag compared, in constant time: which one matched is not told */
	for (unsigned i = 0; i < a->ntags; i++)
		hit |= sodium_memcmp(tag, a->tag[i], OEX_AUTH_TAG) == 0;
	pthread_mutex_unlock(&a->mu);
	sodium_memzero(tag, sizeof(tag));
	return hit;
}

/* Remember that @user with @pass passed. */
static void remember(struct oex_auth *a, const char *user, const char *pass)
{
	uint8_t tag[OEX_AUTH_TAG];

	tag_of(a, user, pass, tag);
	pthread_mutex_lock(&a->mu);
	memcpy(a->tag[a->next], tag, OEX_AUTH_TAG);
	a->next = (a->next + 1) % OEX_AUTH_CACHED;
	if (a->ntags < OEX_AUTH_CACHED)
		a->ntags++;
	pthread_mutex_unlock(&a->mu);
	sodium_memzero(tag, sizeof(tag));
}

bool oex_auth_check(struct oex_auth *a, const char *user, const char *pass)
{
	const char *want = a->dummy, *got;
	struct crypt_data *cd;
	bool known = false, ok;

	if (!oex_auth_on(a))
		return true;
	if (oex_auth_cached(a, user, pass))
		return true;
	/* Every name is compared, so the lookup's time says nothing of
	 * which one matched. */
	for (size_t i = 0; i < a->cfg->nusers; i++) {
		bool m = user && same(user, a->cfg->users[i].name);

		want = m ? a->cfg->users[i].hash : want;
		known |= m;
	}
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	got = crypt_rn(pass ? pass : "", want, cd, sizeof(*cd));
	ok = got && same(got, want) && known;
	free(cd);
	if (ok)
		remember(a, user, pass);
	return ok;
}
