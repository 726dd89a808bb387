/* SPDX-License-Identifier: MIT */
/*
 * Basic auth against the web configuration's bcrypt hashes (libcrypt's
 * crypt_rn). Every check costs one bcrypt, whatever the user: a wrong
 * password, an unknown user (hashed against a dummy hash of the users'
 * highest cost) and a right one take the same time, and the result is
 * compared over all its bytes. Credentials that passed are remembered
 * (OEX_AUTH_CACHED of them, as a keyed BLAKE2b of user and password
 * under a key made at start, never the password), so a scraper that
 * comes back does not pay a bcrypt each time, as exporter-toolkit does;
 * a new reading of the file starts with none.
 */
#ifndef OEX_AUTH_H
#define OEX_AUTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "oex_webcfg.h"

#define OEX_AUTH_CACHED 16
#define OEX_AUTH_TAG 32

struct oex_auth {
	const struct oex_webcfg *cfg; /* borrowed */
	char dummy[64];               /* a bcrypt hash no password is known for */
	pthread_mutex_t mu;           /* the cache */
	uint8_t key[OEX_AUTH_TAG];    /* the tags' key, random */
	uint8_t tag[OEX_AUTH_CACHED][OEX_AUTH_TAG]; /* credentials that passed */
	unsigned ntags, next;         /* tags kept; the one to replace next */
};

/*
 * oex_auth_init - checks against @cfg's users (borrowed: it must
 * outlive @a): 0, or -errno when libcrypt could not make the dummy hash
 * (the reason in @err).
 */
int oex_auth_init(struct oex_auth *a, const struct oex_webcfg *cfg,
		  char *err, size_t errlen);

/* Whether @a has users at all (else every request is let in). */
bool oex_auth_on(const struct oex_auth *a);

/*
 * oex_auth_cached - whether @user with @pass passed a check before: no
 * bcrypt, a keyed hash and a compare over every tag kept. Thread-safe.
 */
bool oex_auth_cached(struct oex_auth *a, const char *user, const char *pass);
/*
 * oex_auth_check - whether @user (NULL: none given) with @pass is one of
 * the users with its password: remembered ones at once, else one bcrypt
 * of the user's cost (or the highest) whatever the answer, and a pass is
 * remembered. Thread-safe.
 */
bool oex_auth_check(struct oex_auth *a, const char *user, const char *pass);

#endif /* OEX_AUTH_H */
