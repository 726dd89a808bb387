/* SPDX-License-Identifier: MIT */
/*
 * Writing an output file whole (osprof-report's -o, osprof-fs's --dump):
 * into a temporary file beside it, renamed over it at the end, so that a
 * reader never meets a torn one and a failed write leaves the old file.
 * But only a regular file (or a new name) is replaced: a path that is a
 * device, a FIFO or a socket (-o /dev/null, -o /dev/stdout, a pipe a
 * reader waits on) is opened and written in place -- renaming over it
 * would put a regular file where /dev/null was, as root. A symbolic link
 * to a file stays a link: its target is replaced.
 *
 * Private to osprof's programs (core/prog): neither installed nor in
 * libosprof.
 */
#ifndef OSP_WFILE_H
#define OSP_WFILE_H

#include <stdio.h>

struct osp_wfile {
	FILE *f;     /* where to write */
	char *path;  /* the file renamed over; NULL when written in place */
	char *tmp;   /* the temporary file; NULL when written in place */
};

/*
 * Open @path for writing as above; 0, or -errno (nothing created). A new
 * file gets the mode any new file gets (0666 less the umask), a replaced
 * one keeps its mode.
 */
int osp_wfile_open(struct osp_wfile *w, const char *path);

/*
 * Finish: flush and close, and rename the temporary file into place. 0,
 * or -errno (EIO for a stream error), the temporary file then removed.
 */
int osp_wfile_commit(struct osp_wfile *w);

/* Give up: close, and remove the temporary file; the old file stays. */
void osp_wfile_abort(struct osp_wfile *w);

#endif /* OSP_WFILE_H */
