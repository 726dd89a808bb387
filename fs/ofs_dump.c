// SPDX-License-Identifier: MIT
/*
 * --dump's files: each is written to a temporary file beside it and
 * renamed over it, so that a reader never meets a torn one; the files
 * that accompany the profile (FILE.slow.json, FILE.top.json, ...) are
 * named beside --dump's FILE by core's osp_file_beside.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osprof/format.h"
#include "ofs.h"
#include "ofs_dump.h"

int ofs_dump_to(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx)
{
	char *tmp = NULL;
	FILE *f;
	int fd, err;

	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -ENOMEM;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		free(tmp);
		return err;
	}
	err = write(f, ctx);
	if (fclose(f) != 0 && !err)
		err = -EIO;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

int ofs_dump_beside(struct ofs *fs, const char *name,
		    int (*write)(FILE *f, const void *ctx), const void *ctx)
{
	char *path = osp_file_beside(fs->opts.dump, name);
	int err = path ? ofs_dump_to(path, write, ctx) : -ENOMEM;

	if (err)
		fprintf(stderr, "osprof-fs: --dump %s: %s\n", path ? path : fs->opts.dump,
			strerror(-err));
	free(path);
	return err;
}

static int write_profile(FILE *f, const void *p)
{
	return osp_write_json(f, p);
}

int ofs_dump_write(const char *path, const struct osp_profile *p)
{
	return ofs_dump_to(path, write_profile, p);
}
