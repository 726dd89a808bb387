// SPDX-License-Identifier: MIT
/*
 * osprof-report: reads osprof profiles (files, mounts, /proc/osprof) and
 * renders, compares, exports and merges them. This file only dispatches to
 * the subcommands, one file each (orp_show.c, orp_plot.c, ...).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "orp.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct subcommand subcommands[] = {
	{ "show", orp_cmd_show, "the text view: table, histograms, peaks" },
	{ "plot", orp_cmd_plot, "gnuplot charts (PNG, SVG or PDF) with their scripts" },
	{ "compare", orp_cmd_compare, "rank the operations whose profiles differ (exit 1 if any)" },
	{ "html", orp_cmd_html, "one self-contained HTML report" },
	{ "export", orp_cmd_export, "JSON, CSV or OpenMetrics" },
	{ "merge", orp_cmd_merge, "add profiles bucket by bucket" },
	{ "top", orp_cmd_top, "files and processes by time, live, from a mount with -o top" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: " ORP_PROG " COMMAND [OPTION]... PROFILE...\n"
		"Render, compare and export osprof latency profiles.\n\n"
		"A PROFILE is one run's set of layers: a JSON profile file ('-' for\n"
		"stdin), a directory mounted by osprof-fs (its .osprof/stats.json and\n"
		"every other layer's JSON beside it: fuse, syscall, lower, block, irq),\n"
		"a directory of such layer files, /proc/osprof, or a comma-separated list\n"
		"of these (run/fs.json,run/fuse.json). Several layers of one run get the\n"
		"layered view (show, html, plot); compare pairs them layer by layer.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out,
		"\nExamples:\n"
		"  " ORP_PROG " show /mnt/p\n"
		"  " ORP_PROG " compare before.json after.json\n"
		"  " ORP_PROG " show --layered /mnt/p\n"
		"  " ORP_PROG " compare /mnt/before /mnt/after   # every layer, one section each\n"
		"  " ORP_PROG " plot run.json -o charts/\n"
		"  " ORP_PROG " top /mnt/p                      # like filetop (-o top)\n"
		"\n'" ORP_PROG " COMMAND --help' describes each command.\n"
		"Exit status: 0 success (compare: no differences), 1 compare found\n"
		"differences, 2 error.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return ORP_EXIT_ERROR;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return ORP_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf(ORP_PROG " %s\n", OSPROF_VERSION);
		return ORP_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (strcmp(argv[1], subcommands[i].name) == 0)
			return subcommands[i].run(argc - 1, argv + 1);
	orp_error("unknown command '%s' (try '" ORP_PROG " --help')", argv[1]);
	return ORP_EXIT_ERROR;
}
