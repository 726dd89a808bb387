// SPDX-License-Identifier: MIT
/*
 * --dump's files: each is written whole by core's osp_wfile (to a
 * temporary file beside it, renamed over it, so that a reader never meets
 * a torn one; a device or FIFO is written in place); the files
 * that accompany the profile (FILE.slow.json, FILE.top.json, ...) are
 * named beside --dump's FILE by core's osp_file_beside. Those that name
 * files, processes or users are the daemon's user's alone (0600), as
 * their control files are (ofs_ctl.c); the profiles are 0644.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osprof/format.h"
#include "ofs.h"
#include "osp_wfile.h"
#include "ofs_dump.h"

int ofs_dump_to(const char *path, mode_t mode, int (*write)(FILE *f, const void *ctx),
		const void *ctx)
{
	struct osp_wfile w;
	int err = osp_wfile_open(&w, path, mode);

	if (err)
		return err;
	err = write(w.f, ctx);
	if (err) {
		osp_wfile_abort(&w);
		return err;
	}
	return osp_wfile_commit(&w);
}

int ofs_dump_beside(struct ofs *fs, const char *name, mode_t mode,
		    int (*write)(FILE *f, const void *ctx), const void *ctx)
{
	char *path = osp_file_beside(fs->opts.dump, name);
	int err = path ? ofs_dump_to(path, mode, write, ctx) : -ENOMEM;

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
	return ofs_dump_to(path, 0644, write_profile, p);
}
