// SPDX-License-Identifier: MIT
/*
 * Basic auth's check (oex_auth.h): bcrypt through libcrypt, compared in
 * constant time.
 */
#include <crypt.h>
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
	if (!cfg->nusers)
		return 0;
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

bool oex_auth_check(const struct oex_auth *a, const char *user, const char *pass)
{
	const char *want = a->dummy, *got;
	struct crypt_data *cd;
	bool known = false, ok;

	if (!oex_auth_on(a))
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
	return ok;
}
