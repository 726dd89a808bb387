// SPDX-License-Identifier: MIT
/*
 * The inputs of osprof-report. One command-line argument names one
 * profile set, which may hold several layers of one run:
 *  - "-" or a file: a JSON profile (DESIGN.md's format);
 *  - a directory mounted by osprof-fs: MOUNT/.osprof/stats.json (layer fs)
 *    plus every other layer's JSON beside it (fuse, syscall, lower, block,
 *    irq) when those layers run; the control directory itself works too,
 *    and so does any directory of such files (a run saved with fs.json
 *    beside fuse.json, ...);
 *  - /proc/osprof (or any directory holding lower, block or irq but no
 *    JSON layer file), and a single /proc/osprof/<layer> file: the kernel
 *    module's text, handed to core's osp_read_kmod;
 *  - a comma-separated list of the above ("a/fs.json,a/fuse.json"), when
 *    the argument as a whole names nothing: the layers of one run kept in
 *    separate places. A path that holds a comma still works as itself.
 * Which of these a path is, core decides (osp_source_find, osprof/format.h),
 * for osprof-exporter too; this file reads what it finds.
 * Every failure names the input; checksum failures are warnings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/kmod.h"
#include "osprof/format.h"

/* Print osp_profile_check's warnings as our own, naming the input. */
static void warn_checksums(const char *spec, const struct osp_profile *p)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	osp_profile_check(p, mem);
	fclose(mem);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "warning: ", 9) == 0)
			line += 9;
		/* @line is escaped already (osp_profile_check); name and layer not. */
		fputs(ORP_PROG ": warning: ", stderr);
		osp_esc_text(stderr, spec);
		fputs(" (layer ", stderr);
		osp_esc_text(stderr, p->layer);
		fprintf(stderr, "): %s\n", line);
	}
	free(text);
}

/* Take ownership of @p, one profile per layer. */
static int add_profile(struct orp_input *in, struct osp_profile *p,
		       const char *path, char *err, size_t errlen)
{
	for (size_t i = 0; i < in->n; i++) {
		if (strcmp(in->prof[i]->layer, p->layer) == 0) {
			snprintf(err, errlen, "%s: a second profile of layer %s",
				 path, p->layer);
			osp_profile_free(p);
			return -EINVAL;
		}
	}
	if (in->n == ORP_LAYERS_MAX) {
		snprintf(err, errlen, "%s: more than %d layers", path, ORP_LAYERS_MAX);
		osp_profile_free(p);
		return -E2BIG;
	}
	in->prof[in->n++] = p;
	warn_checksums(in->spec, p);
	return 0;
}

/* Parse @len bytes of @text read from @path as JSON or, for a kernel
 * module layer (@kmod_layer not NULL), as the module's text. */
static int parse_text(struct orp_input *in, const char *path, const char *text,
		      size_t len, const char *kmod_layer, char *err, size_t errlen)
{
	char inner[ORP_ERRLEN / 2];
	struct osp_profile *p;

	if (len == 0) {
		snprintf(err, errlen, "%s: empty file, not a profile", path);
		return -EINVAL;
	}
	if (kmod_layer)
		p = osp_read_kmod(kmod_layer, text, len, inner, sizeof(inner));
	else
		p = osp_read_json(text, len, inner, sizeof(inner));
	if (!p) {
		/* The text view (.osprof/stats, a layer's text) is for people. */
		bool text_view = !kmod_layer && len > 7 && memcmp(text, "osprof ", 7) == 0;

		snprintf(err, errlen, "%s: %s%s", path, inner,
			 text_view ? " (this is the text view: give its JSON, "
				     "such as .osprof/stats.json, or the mount itself)" : "");
		return -EINVAL;
	}
	return add_profile(in, p, path, err, errlen);
}

/*
 * Load @path, as the module's text of @kmod_layer when given, else as
 * JSON unless osp_source_kmod_layer says otherwise; when @optional, a file that
 * does not exist (or that the kernel module does not serve right now) is
 * skipped: returns 1.
 */
static int load_path(struct orp_input *in, const char *path,
		     const char *kmod_layer, bool optional, char *err,
		     size_t errlen)
{
	char *text;
	size_t len;
	int rc = osp_read_path(path, &text, &len);

	if (rc) {
		if (optional && (rc == -ENOENT || rc == -ENODEV || rc == -ENXIO))
			return 1;
		snprintf(err, errlen, "%s: %s", path, osp_read_error(rc));
		return rc;
	}
	if (!kmod_layer)
		kmod_layer = osp_source_kmod_layer(path, text, len);
	rc = parse_text(in, path, text, len, kmod_layer, err, errlen);
	free(text);
	return rc;
}

/*
 * A mount, a run directory or /proc/osprof: every file of @src present
 * under @path, at least one.
 */
static int load_set(struct orp_input *in, const char *path,
		    const struct osp_source *src, char *err, size_t errlen)
{
	size_t before = in->n;
	int rc = 0;

	for (size_t i = 0; rc >= 0 && i < src->nfiles; i++) {
		char *file = osp_source_file(path, src, i);

		if (!file) {
			snprintf(err, errlen, "%s%s: out of memory", path, src->subdir);
			return -ENOMEM;
		}
		rc = load_path(in, file, src->kmod_text ? src->files[i] : NULL, true,
			       err, errlen);
		free(file);
	}
	if (rc < 0)
		return rc;
	/* Of /proc/osprof, an empty set only when nothing was read before it. */
	if (src->kmod_text && in->n == 0) {
		snprintf(err, errlen, "%s: the kernel module serves no layer here",
			 path);
		return -ENOENT;
	}
	if (!src->kmod_text && in->n == before) {
		snprintf(err, errlen, "%s%s: no layer file (stats.json, fuse.json, ...) could be read",
			 path, src->subdir);
		return -ENOENT;
	}
	return 0;
}

/* One place of a set, its profiles added to @in. */
static int load_one(struct orp_input *in, const char *path, char *err,
		    size_t errlen)
{
	const struct osp_source *src;
	int rc;

	if (strcmp(path, "-") == 0) {
		struct osp_profile *p = osp_read_json_file("-", err, errlen);

		return p ? add_profile(in, p, "stdin", err, errlen) : -EINVAL;
	}
	rc = osp_source_find(path, &src);
	if (rc) {
		bool kmod = rc == -ENOENT && strncmp(path, "/proc/osprof", 12) == 0;

		snprintf(err, errlen, "%s: %s%s", path, strerror(-rc),
			 kmod ? " (the kernel module osprof.ko is not loaded: see docs/kmod.md)" : "");
		return rc;
	}
	switch (src->kind) {
	case OSP_SOURCE_FILE:
	case OSP_SOURCE_OTHER:
		return load_path(in, path, NULL, false, err, errlen);
	case OSP_SOURCE_NO_PROFILE:
		snprintf(err, errlen,
			 "%s: a directory but no profile: not an osprof-fs mount (no .osprof/stats.json) nor /proc/osprof",
			 path);
		return -ENOENT;
	default:
		return load_set(in, path, src, err, errlen);
	}
}

/* "a/fs.json,a/fuse.json": each part is a place of one set. */
static int load_list(struct orp_input *in, const char *spec, char *err,
		     size_t errlen)
{
	char *copy = strdup(spec), *part, *rest;
	int rc = 0;

	if (!copy) {
		snprintf(err, errlen, "%s: out of memory", spec);
		return -ENOMEM;
	}
	for (rest = copy; rc == 0 && rest;) {
		part = rest;
		rest = strchr(rest, ',');
		if (rest)
			*rest++ = '\0';
		if (!*part) {
			snprintf(err, errlen, "%s: an empty name in the list", spec);
			rc = -EINVAL;
		} else {
			rc = load_one(in, part, err, errlen);
		}
	}
	free(copy);
	return rc;
}

int orp_input_load(struct orp_input *in, const char *spec, char *err,
		   size_t errlen)
{
	struct stat st;
	int rc;

	memset(in, 0, sizeof(*in));
	in->spec = spec;
	if (strchr(spec, ',') && strcmp(spec, "-") != 0 && stat(spec, &st) != 0)
		rc = load_list(in, spec, err, errlen);
	else
		rc = load_one(in, spec, err, errlen);
	if (rc)
		orp_input_free(in);
	return rc;
}

void orp_input_free(struct orp_input *in)
{
	for (size_t i = 0; i < in->n; i++)
		osp_profile_free(in->prof[i]);
	in->n = 0;
}

/* "fs, lower" into @buf. */
static void list_layers(const struct orp_input *in, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < in->n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "",
				      in->prof[i]->layer);
}

/* Keep only layer @layer (NULL keeps all): 0, or -ENOENT with @err. */
static int input_select(struct orp_input *in, const char *layer, char *err,
			size_t errlen)
{
	size_t keep = in->n;
	char have[128];

	if (!layer)
		return 0;
	for (size_t i = 0; i < in->n; i++)
		if (strcmp(in->prof[i]->layer, layer) == 0)
			keep = i;
	if (keep == in->n) {
		list_layers(in, have, sizeof(have));
		snprintf(err, errlen, "%s: no layer %s (it has: %s)", in->spec,
			 layer, have);
		return -ENOENT;
	}
	for (size_t i = 0; i < in->n; i++)
		if (i != keep)
			osp_profile_free(in->prof[i]);
	in->prof[0] = in->prof[keep];
	in->n = 1;
	return 0;
}

int orp_input_single(const struct orp_input *in, char *err, size_t errlen)
{
	char have[128];

	if (in->n == 1)
		return 0;
	list_layers(in, have, sizeof(have));
	snprintf(err, errlen, "%s holds %zu layers (%s): choose one with --layer",
		 in->spec, in->n, have);
	return -EINVAL;
}

int orp_inputs_load(char *const *specs, size_t n, const char *layer,
		    struct orp_input **out, char *err, size_t errlen)
{
	struct orp_input *in = calloc(n ? n : 1, sizeof(*in));
	int rc = 0;

	if (!in) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		rc = orp_input_load(&in[i], specs[i], err, errlen);
		if (!rc)
			rc = input_select(&in[i], layer, err, errlen);
	}
	if (rc) {
		orp_inputs_free(in, n);
		return rc;
	}
	*out = in;
	return 0;
}

void orp_inputs_free(struct orp_input *in, size_t n)
{
	for (size_t i = 0; in && i < n; i++)
		orp_input_free(&in[i]);
	free(in);
}
