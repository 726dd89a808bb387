// SPDX-License-Identifier: MIT
/*
 * Where a run's files are (osprof/format.h): the JSON file of each layer
 * in a control or run directory, the kernel module's layers under
 * /proc/osprof, and the companion files written beside a profile
 * (FILE.LAYER.json, FILE.slow.json, ...). One list and one rule for the
 * daemon, osprof-trace, osprof-report and osprof-exporter.
 */
#include <stdio.h>
#include <string.h>

#include "osprof/format.h"

const char *const osp_layer_files[OSP_LAYER_FILES] = {
	"stats.json", "fs.json", "fuse.json", "syscall.json",
	"lower.json", "block.json", "irq.json",
};

const char *const osp_kmod_layers[OSP_KMOD_LAYERS] = { "lower", "block", "irq" };

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
