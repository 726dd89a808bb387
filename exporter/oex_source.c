// SPDX-License-Identifier: MIT
/*
 * The sources osprof-exporter reads, afresh on every scrape: a directory
 * mounted by osprof-fs (MOUNT/.osprof/stats.json and every other layer's
 * JSON beside it), a directory of saved layer files, /proc/osprof (the
 * kernel module's text, read with core's osp_read_kmod), or one profile
 * file (osprof-trace's -o FILE, say). Which of these a
 * path is gets decided on each scrape, by core's rule (osp_source_find,
 * as osprof-report decides), so a mount that goes away and comes back is
 * served again; at start, a path that is none of these is refused
 * (oex_source_check). Parsing is core's (osp_read_json, osp_read_kmod);
 * this file only finds the files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "oex.h"
#include "osprof/escape.h"
#include "osprof/format.h"
#include "osprof/kmod.h"

static void log_line(FILE *log, const char *path, const char *what)
{
	if (!log)
		return;
	fputs(OEX_PROG ": ", log);
	osp_esc_text(log, path);
	fprintf(log, ": %s\n", what);
}

/* Keep @p as one of @src's layers; a second profile of a layer is dropped. */
static void keep(struct oex_source *src, struct osp_profile *p,
		 const char *file, FILE *log)
{
	for (size_t i = 0; i < src->n; i++) {
		if (strcmp(src->prof[i]->layer, p->layer) == 0) {
			log_line(log, file, "a second profile of its layer, left out");
			osp_profile_free(p);
			return;
		}
	}
	if (src->n == OEX_LAYERS_MAX) {
		osp_profile_free(p);
		return;
	}
	/* Snapshots are not served: free them now. */
	osp_profile_drop_timeline(p);
	/* A bad checksum is the writer's bug: say so, serve the buckets. */
	if (osp_profile_check(p, NULL) > 0)
		log_line(log, file, "the buckets of some histograms do not add up to their count: served as the buckets say");
	src->prof[src->n++] = p;
	src->up = true;
}

/*
 * Read @path as JSON (@kmod_layer NULL) or the module's text; a file that
 * is not there is skipped silently, any other failure logged.
 */
static void load_path(struct oex_source *src, const char *path,
		      const char *kmod_layer, FILE *log)
{
	struct osp_profile *p = NULL;
	char *text = NULL, err[256];
	size_t len = 0;
	int rc = osp_read_path(path, &text, &len);

	if (rc) {
		if (rc != -ENOENT && rc != -ENODEV && rc != -ENXIO)
			log_line(log, path, osp_read_error(rc));
		return;
	}
	if (kmod_layer)
		p = osp_read_kmod(kmod_layer, text, len, err, sizeof(err));
	else
		p = osp_read_json(text, len, err, sizeof(err));
	if (p)
		keep(src, p, path, log);
	else
		log_line(log, path, err);
	free(text);
}

int oex_source_check(const char *path, char *err, size_t errlen)
{
	const struct osp_source *found;
	int rc = osp_source_find(path, &found);

	if (rc) {
		snprintf(err, errlen, "%s", strerror(-rc));
		return rc;
	}
	switch (found->kind) {
	case OSP_SOURCE_MOUNT:
	case OSP_SOURCE_RUN_DIR:
	case OSP_SOURCE_KMOD_DIR:
	case OSP_SOURCE_FILE:
		return 0;
	case OSP_SOURCE_NO_PROFILE:
		snprintf(err, errlen, "a directory with no profile, not an osprof-fs mount, a run directory or /proc/osprof");
		return -EINVAL;
	default:
		snprintf(err, errlen, "neither a directory nor a regular file");
		return -EINVAL;
	}
}

void oex_source_load(struct oex_source *src, const char *path, FILE *log)
{
	const struct osp_source *found;
	int rc = osp_source_find(path, &found);

	src->path = path;
	if (rc == 0 && found->kind == OSP_SOURCE_FILE) {
		/* One profile file (osprof-trace -o FILE writes such). */
		load_path(src, path, NULL, log);
		return;
	}
	/*
	 * Anything but a mount or a run directory is read as /proc/osprof,
	 * each of its files skipped while missing: a path not there yet (the
	 * module not loaded) is a source down, served once it comes.
	 */
	if (rc || (found->kind != OSP_SOURCE_MOUNT && found->kind != OSP_SOURCE_RUN_DIR))
		found = &osp_sources[OSP_SOURCE_KMOD_DIR];
	for (size_t i = 0; i < found->nfiles; i++) {
		char *file = osp_source_file(path, found, i);

		if (!file) {
			log_line(log, path, "out of memory");
			continue;
		}
		load_path(src, file, found->kmod_text ? found->files[i] : NULL, log);
		free(file);
	}
}

void oex_source_fini(struct oex_source *src)
{
	for (size_t i = 0; i < src->n; i++)
		osp_profile_free(src->prof[i]);
	src->n = 0;
	src->up = false;
}
