/* SPDX-License-Identifier: MIT */
/*
 * Basic auth against the web configuration's bcrypt hashes (libcrypt's
 * crypt_rn). Every check costs one bcrypt, whatever the user: a wrong
 * password, an unknown user (hashed against a dummy hash of the users'
 * highest cost) and a right one take the same time, and the result is
 * compared over all its bytes. Nothing is cached between checks.
 */
#ifndef OEX_AUTH_H
#define OEX_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "oex_webcfg.h"

struct oex_auth {
	const struct oex_webcfg *cfg; /* borrowed */
	char dummy[64];               /* a bcrypt hash no password is known for */
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
 * oex_auth_check - whether @user (NULL: none given) with @pass is one of
 * the users with its password. Thread-safe; one bcrypt of the user's
 * cost (or the highest) whatever the answer.
 */
bool oex_auth_check(const struct oex_auth *a, const char *user, const char *pass);

#endif /* OEX_AUTH_H */
