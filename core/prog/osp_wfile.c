// SPDX-License-Identifier: MIT
/* Writing an output file whole, or in place when it is no regular file:
 * see osp_wfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* A device, FIFO or socket (or a link to one): written where it is. */
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

int osp_wfile_open(struct osp_wfile *w, const char *path)
{
	struct stat st, lst;
	bool exists;
	mode_t mode;
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
	if (asprintf(&w->tmp, "%s.tmp.XXXXXX", w->path) < 0) {
		w->tmp = NULL;
		wfile_clear(w);
		return -ENOMEM;
	}
	fd = mkstemp(w->tmp);
	if (fd < 0) {
		e = -errno;
		wfile_clear(w);
		return e;
	}
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode = umask(0);
		umask(mode);
		mode = 0666 & ~mode;
	}
	/* mkstemp makes 0600. A failure costs only the mode, not the data. */
	(void)fchmod(fd, mode);
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
