/* SPDX-License-Identifier: MIT */
/*
 * /proc/self/mountinfo, read line by line (osp_mountinfo.c): what is
 * mounted where, of which type, from which source and device. One parser
 * for the daemon (what is mounted at its mountpoint), osprof-bench (the
 * mount that holds a run's directory) and the tests. The text is read as
 * hostile: a line that is not one mount, by proc(5)'s grammar, or that
 * holds an escape other than the kernel's three octal digits, is skipped
 * and counted, never half-used; a line is read whole or not at all, up to
 * OSP_MOUNTINFO_LINE_MAX bytes.
 *
 * Private to osprof's programs (core/prog): neither installed nor in
 * libosprof, whose ABI is core/include/osprof/ alone. Reading mountinfo
 * is a Linux detail of the daemon, the benchmark and the tests, not part
 * of the profiles libosprof is about, and a public struct osp_mount would
 * be an ABI to keep for no outside user.
 */
#ifndef OSP_MOUNTINFO_H
#define OSP_MOUNTINFO_H

#include <stdint.h>
#include <stdio.h>

/*
 * The longest line read: its root, mount point and source may each be a
 * path of PATH_MAX bytes, four times as long escaped (48 KiB in all),
 * and the options take the rest.
 */
#define OSP_MOUNTINFO_LINE_MAX 65536u

/* One mount: the strings point into the line just read (or parsed). */
struct osp_mount {
	unsigned id;            /* mount ID (field 1), unique while mounted */
	unsigned parent_id;     /* its parent's (field 2) */
	unsigned major, minor;  /* the st_dev of its files (field 3) */
	char *root;             /* the directory of its file system mounted here */
	char *point;            /* where: the mount point */
	char *fstype;           /* its type, "fuse.osprof-fs" for osprof-fs */
	char *source;           /* what is mounted ("none" for nothing) */
};

/* A mountinfo file being read. */
struct osp_mountinfo {
	FILE *f;
	char *line;             /* OSP_MOUNTINFO_LINE_MAX + 1 bytes */
	uint64_t skipped;       /* lines refused: not a mount, or too long */
};

/*
 * osp_mountinfo_unescape - undo mountinfo's escapes in place: a backslash
 * and exactly three octal digits, \000 excluded, stand for that byte (the
 * kernel writes \040 for a space, \011 a tab, \012 a newline, \134 a
 * backslash). 0, or -EINVAL for any other backslash (@s is then partly
 * decoded and must not be used).
 */
int osp_mountinfo_unescape(char *s);

/*
 * osp_mountinfo_parse - parse @line (one line, NUL-terminated, no
 * newline) in place into @m: IDs, major:minor, root, mount point,
 * options, optional fields up to a lone "-", type, source, super options,
 * each a non-empty field separated by one space; the strings unescaped.
 * 0, or -EINVAL with @m undefined. Pure; thread-safe on distinct lines.
 */
int osp_mountinfo_parse(char *line, struct osp_mount *m);

/*
 * osp_mountinfo_open - start reading the mountinfo file at @path (NULL:
 * /proc/self/mountinfo). 0 or -errno (-ENOMEM). Close with
 * osp_mountinfo_close.
 */
int osp_mountinfo_open(struct osp_mountinfo *mi, const char *path);
/* The same of the open stream @f, which it takes (closed by
 * osp_mountinfo_close, also when this fails). 0 or -ENOMEM. */
int osp_mountinfo_from(struct osp_mountinfo *mi, FILE *f);

/*
 * osp_mountinfo_next - the next mount, in the file's order (a mount over
 * another comes after it), into @m, valid until the next call. 1 for a
 * mount, 0 at the end, -errno when reading fails. Lines that are no mount
 * are skipped (counted in mi->skipped).
 */
int osp_mountinfo_next(struct osp_mountinfo *mi, struct osp_mount *m);

/* Close @mi and free its buffer; harmless after a failed open. */
void osp_mountinfo_close(struct osp_mountinfo *mi);

#endif /* OSP_MOUNTINFO_H */
