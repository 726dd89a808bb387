/* SPDX-License-Identifier: MIT */
/*
 * Writing an output file whole (osprof-report's -o, osprof-fs's --dump):
 * into a temporary file beside it, renamed over it at the end, so that a
 * reader never meets a torn one and a failed write leaves the old file.
 * But only a regular file (or a new name) is replaced: a path that is a
 * device or a FIFO (-o /dev/null, -o /dev/stdout, a pipe a reader waits
 * on) is opened and written in place -- renaming over it would put a
 * regular file where /dev/null was, as root; a socket fails to open
 * (ENXIO). A symbolic link to an existing file stays a link: its target
 * is replaced (a dangling one is replaced by the file).
 *
 * Private to osprof's programs (core/prog): neither installed nor in
 * libosprof.
 */
#ifndef OSP_WFILE_H
#define OSP_WFILE_H

#include <stdio.h>
#include <sys/types.h>

struct osp_wfile {
	FILE *f;     /* where to write */
	char *path;  /* the file renamed over; NULL when written in place */
	char *tmp;   /* the temporary file; NULL when written in place */
};

/*
 * Open @path for writing as above; 0, or -errno (nothing created). A new
 * file gets @mode less the umask (0666 for a program's output; osprof-fs
 * runs with umask 0, as a FUSE daemon does, and passes 0644), a replaced
 * one keeps its mode.
 */
int osp_wfile_open(struct osp_wfile *w, const char *path, mode_t mode);

/*
 * Finish: flush and close, and rename the temporary file into place. 0,
 * or -errno (EIO for a stream error), the temporary file then removed.
 */
int osp_wfile_commit(struct osp_wfile *w);

/* Give up: close, and remove the temporary file; the old file stays. */
void osp_wfile_abort(struct osp_wfile *w);

#endif /* OSP_WFILE_H */
