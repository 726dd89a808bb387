// SPDX-License-Identifier: MIT
/*
 * /proc/self/mountinfo (osp_mountinfo.h): proc(5)'s
 * grammar, read strictly. The kernel writes each line with
 * show_mountinfo() (fs/proc_namespace.c), escaping a space, tab, newline
 * and backslash in paths, type and source as a backslash and three octal
 * digits; anything else is no line the kernel wrote, and is refused.
 * Lines are read a byte at a time into a fixed buffer, so that a line
 * longer than it, or one with a NUL byte, is skipped whole and never
 * split into two.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "osp_mountinfo.h"
#include "osprof/parse.h"

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

int osp_mountinfo_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		int v;

		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		if (!is_octal(s[1]) || !is_octal(s[2]) || !is_octal(s[3]))
			return -EINVAL;
		v = (s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0');
		/* \400 and above is no byte; \000 would cut the string short. */
		if (v == 0 || v > 255)
			return -EINVAL;
		*o++ = (char)v;
		s += 3;
	}
	*o = '\0';
	return 0;
}

/*
 * The field at *@p, NUL-terminated in place, *@p moved past it and its
 * one separating space. NULL when there is none or it is empty (two
 * spaces, a space at the start or the end).
 */
static char *field(char **p)
{
	char *f = *p, *sp;

	if (!f || *f == '\0' || *f == ' ')
		return NULL;
	sp = strchr(f, ' ');
	if (sp) {
		*sp = '\0';
		*p = sp + 1;
		/* A space ends a field only if another one follows. */
		if (**p == '\0')
			return NULL;
	} else {
		*p = NULL;
	}
	return f;
}

static int parse_uint(const char *s, size_t len, unsigned *out)
{
	uint64_t v;
	int err = osp_parse_u64_n(s, len, 0, UINT32_MAX, &v);

	if (err)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int osp_mountinfo_parse(char *line, struct osp_mount *m)
{
	char *p = line, *id, *parent, *dev, *colon, *f;

	memset(m, 0, sizeof(*m));
	if (!(id = field(&p)) || !(parent = field(&p)) || !(dev = field(&p)) ||
	    !(m->root = field(&p)) || !(m->point = field(&p)) || !field(&p) /* options */)
		return -EINVAL;
	/* Optional fields (shared:N, master:N, ...), up to a lone "-". */
	do {
		f = field(&p);
		if (!f)
			return -EINVAL;
	} while (strcmp(f, "-") != 0);
	if (!(m->fstype = field(&p)) || !(m->source = field(&p)) || !field(&p) /* super options */ || p)
		return -EINVAL;
	colon = strchr(dev, ':');
	if (!colon || parse_uint(id, strlen(id), &m->id) ||
	    parse_uint(parent, strlen(parent), &m->parent_id) ||
	    parse_uint(dev, (size_t)(colon - dev), &m->major) ||
	    parse_uint(colon + 1, strlen(colon + 1), &m->minor))
		return -EINVAL;
	if (osp_mountinfo_unescape(m->root) || osp_mountinfo_unescape(m->point) ||
	    osp_mountinfo_unescape(m->fstype) || osp_mountinfo_unescape(m->source))
		return -EINVAL;
	return 0;
}

int osp_mountinfo_from(struct osp_mountinfo *mi, FILE *f)
{
	mi->f = f;
	mi->skipped = 0;
	mi->line = malloc(OSP_MOUNTINFO_LINE_MAX + 1);
	if (!mi->line) {
		fclose(f);
		mi->f = NULL;
		return -ENOMEM;
	}
	return 0;
}

int osp_mountinfo_open(struct osp_mountinfo *mi, const char *path)
{
	FILE *f = fopen(path ? path : "/proc/self/mountinfo", "re");

	if (!f) {
		mi->f = NULL;
		mi->line = NULL;
		return -errno;
	}
	return osp_mountinfo_from(mi, f);
}

/*
 * The next line into mi->line, without its newline: 1, 0 at the end,
 * -EIO on a read error; *@whole false when it was too long or held a NUL
 * (its bytes are consumed all the same).
 */
static int read_line(struct osp_mountinfo *mi, bool *whole)
{
	size_t n = 0;
	int c;

	*whole = true;
	while ((c = getc_unlocked(mi->f)) != EOF && c != '\n') {
		if (c == '\0' || n == OSP_MOUNTINFO_LINE_MAX)
			*whole = false;
		else if (*whole)
			mi->line[n++] = (char)c;
	}
	if (ferror(mi->f))
		return -EIO;
	if (c == EOF && n == 0 && *whole)
		return 0;
	mi->line[n] = '\0';
	return 1;
}

int osp_mountinfo_next(struct osp_mountinfo *mi, struct osp_mount *m)
{
	bool whole;
	int r;

	while ((r = read_line(mi, &whole)) == 1) {
		if (whole && osp_mountinfo_parse(mi->line, m) == 0)
			return 1;
		mi->skipped++;
	}
	return r;
}

void osp_mountinfo_close(struct osp_mountinfo *mi)
{
	if (mi->f)
		fclose(mi->f);
	free(mi->line);
	mi->f = NULL;
	mi->line = NULL;
}
