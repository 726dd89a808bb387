// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: core's mountinfo reader (core/prog/osp_mountinfo.c), on
 * any bytes read as a mountinfo file. Every line is either one mount or
 * skipped and counted: mounts and skipped lines add up to the lines of
 * the input, the mounts are exactly the lines osp_mountinfo_parse accepts
 * on their own, and each mount's strings are non-empty. A mount escaped
 * again as the kernel escapes (\ooo for space, tab, newline, backslash)
 * and written back as a line parses to the same fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osp_mountinfo.h"
#include "ofz.h"

/* The lines of @data as the reader counts them: one per newline, and one
 * more for bytes after the last. */
static size_t count_lines(const uint8_t *data, size_t size)
{
	size_t n = 0;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n + (size && data[size - 1] != '\n');
}

/* Of those, the lines osp_mountinfo_parse accepts alone (whole, no NUL,
 * at most OSP_MOUNTINFO_LINE_MAX bytes). */
static size_t count_mounts(const uint8_t *data, size_t size)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != '\n')
			continue;
		if (i > start || i < size) {
			size_t len = i - start;
			struct osp_mount m;
			char *line;

			if (len <= OSP_MOUNTINFO_LINE_MAX && !memchr(data + start, '\0', len)) {
				line = malloc(len + 1);
				if (!line)
					ofz_fail("out of memory");
				memcpy(line, data + start, len);
				line[len] = '\0';
				n += osp_mountinfo_parse(line, &m) == 0;
				free(line);
			}
		}
		start = i + 1;
	}
	return n;
}

/* @s escaped as the kernel's mangle() does, appended at *@at of @buf. */
static void put_escaped(char *buf, size_t *at, const char *s)
{
	for (; *s; s++) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\\')
			*at += (size_t)sprintf(buf + *at, "\\%03o", (unsigned char)*s);
		else
			buf[(*at)++] = *s;
	}
	buf[*at] = '\0';
}

static void check_round_trip(const struct osp_mount *m)
{
	size_t cap = 4 * (strlen(m->root) + strlen(m->point) + strlen(m->fstype) +
			  strlen(m->source)) + 64, at;
	char *line = malloc(cap);
	struct osp_mount b;

	if (!line)
		ofz_fail("out of memory");
	at = (size_t)sprintf(line, "%u %u %u:%u ", m->id, m->parent_id, m->major, m->minor);
	put_escaped(line, &at, m->root);
	line[at++] = ' ';
	put_escaped(line, &at, m->point);
	at += (size_t)sprintf(line + at, " rw - ");
	put_escaped(line, &at, m->fstype);
	line[at++] = ' ';
	put_escaped(line, &at, m->source);
	sprintf(line + at, " rw");
	if (osp_mountinfo_parse(line, &b) != 0)
		ofz_fail("mountinfo: a mount written back does not parse");
	if (b.id != m->id || b.parent_id != m->parent_id || b.major != m->major ||
	    b.minor != m->minor || strcmp(b.root, m->root) || strcmp(b.point, m->point) ||
	    strcmp(b.fstype, m->fstype) || strcmp(b.source, m->source))
		ofz_fail("mountinfo: a mount written back parses to other fields");
	free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* fmemopen wants a buffer of at least one byte. */
	FILE *f = fmemopen((void *)(size ? data : (const uint8_t *)""), size ? size : 1, "r");
	struct osp_mountinfo mi;
	struct osp_mount m;
	size_t mounts = 0;
	int r;

	if (!f)
		ofz_fail("fmemopen failed");
	if (!size)
		getc(f); /* the one byte given is no input */
	if (osp_mountinfo_from(&mi, f) != 0)
		ofz_fail("out of memory");
	while ((r = osp_mountinfo_next(&mi, &m)) == 1) {
		mounts++;
		if (!*m.root || !*m.point || !*m.fstype || !*m.source)
			ofz_fail("mountinfo: a mount with an empty string");
		check_round_trip(&m);
	}
	if (r != 0)
		ofz_fail("mountinfo: reading memory failed: %d", r);
	if (mounts + mi.skipped != count_lines(data, size))
		ofz_fail("mountinfo: %zu mounts and %llu skipped of %zu lines", mounts,
			 (unsigned long long)mi.skipped, count_lines(data, size));
	if (mounts != count_mounts(data, size))
		ofz_fail("mountinfo: %zu mounts read, %zu lines parse alone", mounts,
			 count_mounts(data, size));
	osp_mountinfo_close(&mi);
	return 0;
}
