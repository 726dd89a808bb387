// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the reader of .osprof/top.json, orp_top_parse
 * (report/orp_top_read.c), which `osprof-report top` runs on what a mount
 * serves. On any bytes it either accepts a document -- every entry named,
 * at most 65536 a table -- or refuses it with -EINVAL and a one-line
 * reason that quotes none of the input, leaving the document empty.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "ofz.h"

static void check_table(const struct orp_top_entry *e, size_t n, const char *what)
{
	if (n > 65536 || (n && !e))
		ofz_fail("top: %zu %s", n, what);
	for (size_t i = 0; i < n; i++)
		if (!e[i].name)
			ofz_fail("top: %s %zu has no name", what, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly @size bytes: a read past the end is caught. */
	char *buf = malloc(size ? size : 1), err[256];
	struct orp_top_doc d;
	int r;

	if (!buf)
		ofz_fail("out of memory");
	memcpy(buf, data, size);
	r = orp_top_parse(buf, size, &d, err, sizeof(err));
	if (r == 0) {
		check_table(d.files, d.nfiles, "files");
		check_table(d.procs, d.nprocs, "processes");
	} else if (r == -EINVAL) {
		ofz_check_err("orp_top_parse", err, sizeof(err));
		if (d.files || d.procs || d.nfiles || d.nprocs)
			ofz_fail("top: a refused document left entries");
	} else {
		ofz_fail("top: returned %d", r);
	}
	orp_top_doc_free(&d);
	orp_top_doc_free(&d); /* idempotent */
	free(buf);
	return 0;
}
