// SPDX-License-Identifier: MIT
/*
 * Where a run's files are (osprof/format.h): the JSON file of each layer
 * in a control or run directory, the kernel module's layers under
 * /proc/osprof, and the companion files written beside a profile
 * (FILE.LAYER.json, FILE.slow.json, ...), and what a path named as a
 * source is (a mount, a run directory, /proc/osprof, a file). One list and
 * one rule for the daemon, osprof-trace, osprof-report and
 * osprof-exporter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "osprof/format.h"
#include "osprof/layers.h"

/* In the order they are read (and so shown): one per layer, and
 * stats.json (tests/facts checks that each is the right layer's). */
#define LAYER_FILES                                                              \
	"stats.json", OSP_LAYER_FS ".json", OSP_LAYER_FUSE ".json", OSP_LAYER_SYSCALL ".json", \
	OSP_LAYER_LOWER ".json", OSP_LAYER_BLOCK ".json", OSP_LAYER_IRQ ".json"
const char *const osp_layer_files[OSP_LAYER_FILES] = { LAYER_FILES };
_Static_assert(sizeof((const char *[]){ LAYER_FILES }) / sizeof(const char *) == OSP_LAYER_FILES,
	       "a file for every layer");
#undef LAYER_FILES

#define KMOD_LAYER(ID, name, ebpf, kmod) OSP_IF(kmod, name,)
const char *const osp_kmod_layers[OSP_KMOD_LAYERS] = { OSP_LAYERS(KMOD_LAYER) };
#undef KMOD_LAYER

char *osp_file_beside(const char *file, const char *name)
{
	const char *base = strrchr(file, '/'), *dot;
	char *s;

	base = base ? base + 1 : file;
	dot = strrchr(base, '.');
	/* A leading dot (".json") names the file, it is no extension. */
	if (!dot || dot == base)
		return asprintf(&s, "%s.%s", file, name) < 0 ? NULL : s;
	return asprintf(&s, "%.*s.%s%s", (int)(dot - file), file, name, dot) < 0 ? NULL : s;
}

const struct osp_source osp_sources[OSP_SOURCE_KINDS] = {
	[OSP_SOURCE_FILE] = { OSP_SOURCE_FILE, "file", "", NULL, 0, false },
	[OSP_SOURCE_OTHER] = { OSP_SOURCE_OTHER, "other", "", NULL, 0, false },
	[OSP_SOURCE_MOUNT] = { OSP_SOURCE_MOUNT, "mount", "/.osprof",
			       osp_layer_files, OSP_LAYER_FILES, false },
	[OSP_SOURCE_RUN_DIR] = { OSP_SOURCE_RUN_DIR, "run directory", "",
				 osp_layer_files, OSP_LAYER_FILES, false },
	[OSP_SOURCE_KMOD_DIR] = { OSP_SOURCE_KMOD_DIR, "kernel module directory", "",
				  osp_kmod_layers, OSP_KMOD_LAYERS, true },
	[OSP_SOURCE_NO_PROFILE] = { OSP_SOURCE_NO_PROFILE, "directory with no profile",
				    "", NULL, 0, false },
};

/* Whether any of @names is in the directory @dfd (stat, never opened). */
static bool has_any(int dfd, const char *const *names, size_t n)
{
	struct stat st;

	for (size_t i = 0; i < n; i++)
		if (fstatat(dfd, names[i], &st, 0) == 0)
			return true;
	return false;
}

int osp_source_find(const char *path, const struct osp_source **src)
{
	static const char *const ctl_stats[] = { ".osprof/stats.json" };
	enum osp_source_kind kind;
	struct stat st;
	/* O_PATH opens nothing for reading: a FIFO here does not block. */
	int dfd = open(path, O_PATH | O_CLOEXEC);

	if (dfd < 0)
		return -errno;
	if (fstat(dfd, &st) != 0) {
		int e = errno;

		close(dfd);
		return -e;
	}
	if (!S_ISDIR(st.st_mode))
		kind = S_ISREG(st.st_mode) ? OSP_SOURCE_FILE : OSP_SOURCE_OTHER;
	else if (has_any(dfd, ctl_stats, 1))
		kind = OSP_SOURCE_MOUNT;
	else if (has_any(dfd, osp_layer_files, OSP_LAYER_FILES))
		kind = OSP_SOURCE_RUN_DIR;
	else if (has_any(dfd, osp_kmod_layers, OSP_KMOD_LAYERS))
		kind = OSP_SOURCE_KMOD_DIR;
	else
		kind = OSP_SOURCE_NO_PROFILE;
	close(dfd);
	*src = &osp_sources[kind];
	return 0;
}

char *osp_source_file(const char *path, const struct osp_source *src, size_t i)
{
	char *s;

	return asprintf(&s, "%s%s/%s", path, src->subdir, src->files[i]) < 0 ? NULL : s;
}

const char *osp_source_kmod_layer(const char *path, const char *text, size_t len)
{
	const char *base = strrchr(path, '/');
	size_t i = 0;

	base = base ? base + 1 : path;
	while (i < len && strchr(" \t\r\n", text[i]) && text[i])
		i++;
	if (len == 0 || (i < len && text[i] == '{'))
		return NULL;
	for (size_t k = 0; k < OSP_KMOD_LAYERS; k++)
		if (strcmp(base, osp_kmod_layers[k]) == 0)
			return osp_kmod_layers[k];
	return NULL;
}
