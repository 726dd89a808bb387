// SPDX-License-Identifier: MIT
/*
 * A reading of the web configuration file (oex_web.h): the parse, then
 * basic auth's dummy hash and the TLS files, each refusal one line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "oex_web.h"

struct oex_web *oex_web_load(const char *path, char *err, size_t errlen)
{
	struct oex_web *w = calloc(1, sizeof(*w));

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (oex_webcfg_load(path, &w->cfg, err, errlen) != 0 ||
	    oex_auth_init(&w->auth, &w->cfg, err, errlen) != 0)
		goto fail;
	if (w->cfg.tls) {
		w->tls = oex_tls_load(&w->cfg, err, errlen);
		if (!w->tls)
			goto fail;
	}
	return w;
fail:
	/* One line, whatever the paths it quotes hold. */
	for (char *c = err; *c; c++)
		if ((unsigned char)*c < ' ')
			*c = ' ';
	oex_webcfg_fini(&w->cfg);
	free(w);
	return NULL;
}

void oex_web_free(struct oex_web *w)
{
	while (w) {
		struct oex_web *older = w->older;

		oex_tls_free(w->tls);
		oex_webcfg_fini(&w->cfg);
		free(w);
		w = older;
	}
}
