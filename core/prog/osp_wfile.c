// SPDX-License-Identifier: MIT
/* Writing an output file whole, or in place when it is no regular file:
 * see osp_wfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "osp_wfile.h"

static void wfile_clear(struct osp_wfile *w)
{
	free(w->path);
	free(w->tmp);
	memset(w, 0, sizeof(*w));
}

/* A device or FIFO (or a link to one): written where it is; a socket
 * fails here (ENXIO). */
static int open_in_place(struct osp_wfile *w, const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return -errno;
	w->f = fdopen(fd, "w");
	if (!w->f) {
		int e = errno;

		close(fd);
		return -e;
	}
	return 0;
}

/*
 * Create the temporary file beside w->path with @mode, which the kernel
 * takes the umask from (mkstemp makes 0600, and reading the umask means
 * setting it, process-wide); O_CLOEXEC: osprof-trace forks a command.
 */
static int tmp_create(struct osp_wfile *w, mode_t mode)
{
	unsigned seed = (unsigned)getpid() * 2654435761u ^ (unsigned)(uintptr_t)w;

	for (int i = 0; i < 100; i++) {
		int fd;

		free(w->tmp);
		seed = seed * 1103515245u + 12345u;
		if (asprintf(&w->tmp, "%s.tmp.%08x", w->path, seed) < 0) {
			w->tmp = NULL;
			return -ENOMEM;
		}
		fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

int osp_wfile_open(struct osp_wfile *w, const char *path, mode_t mode)
{
	struct stat st, lst;
	bool exists;
	int fd, e;

	memset(w, 0, sizeof(*w));
	exists = stat(path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : open_in_place(w, path);
	/* A link to a file: replace its target, not the link. */
	if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		w->path = realpath(path, NULL);
	else
		w->path = strdup(path);
	if (!w->path) {
		e = -errno;
		wfile_clear(w);
		return e;
	}
	fd = tmp_create(w, mode);
	if (fd < 0) {
		wfile_clear(w);
		return fd;
	}
	/* A replaced file keeps its mode. A failure costs only the mode. */
	if (exists)
		(void)fchmod(fd, st.st_mode & 07777);
	w->f = fdopen(fd, "w");
	if (!w->f) {
		e = -errno;
		close(fd);
		unlink(w->tmp);
		wfile_clear(w);
		return e;
	}
	return 0;
}

int osp_wfile_commit(struct osp_wfile *w)
{
	int err = 0;

	if (fflush(w->f) != 0)
		err = -errno;
	else if (ferror(w->f))
		err = -EIO;
	if (fclose(w->f) != 0 && !err)
		err = -errno;
	w->f = NULL;
	if (!err && w->tmp && rename(w->tmp, w->path) != 0)
		err = -errno;
	if (err && w->tmp)
		unlink(w->tmp);
	wfile_clear(w);
	return err;
}

void osp_wfile_abort(struct osp_wfile *w)
{
	if (w->f)
		fclose(w->f);
	if (w->tmp)
		unlink(w->tmp);
	wfile_clear(w);
}
