// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: osprof-fs's option parser, ofs_opts_parse
 * (fs/ofs_opts.c), with libfuse's fuse_opt_parse and fuse_parse_cmdline
 * behind it. The input is an argv after "osprof-fs": words separated by
 * NUL bytes, the one byte no argument can hold.
 *
 * The parser prints: its stdout and stderr are swapped for memory streams
 * around each call (libfuse's default logger writes to the same stderr),
 * which both keeps the run quiet and lets us check that a refusal said
 * why and --help or --version answered. Nothing is written to disk: the
 * parser only resolves and stats the paths it is given.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofs.h"
#include "ofs_opts.h"
#include "ofz.h"

#define OFZ_MAX_WORDS 64

/* One call's stdout and stderr, kept in memory. */
struct capture {
	FILE *saved_out, *saved_err;
	char *out, *err;
	size_t out_len, err_len;
};

static void capture_start(struct capture *c)
{
	FILE *out = open_memstream(&c->out, &c->out_len);
	FILE *err = open_memstream(&c->err, &c->err_len);

	if (!out || !err)
		ofz_fail("open_memstream failed");
	c->saved_out = stdout;
	c->saved_err = stderr;
	stdout = out;
	stderr = err;
}

static void capture_end(struct capture *c)
{
	fclose(stdout);
	fclose(stderr);
	stdout = c->saved_out;
	stderr = c->saved_err;
}

/* argv[0] and the words of @data; NULL-terminated, every string malloc'd. */
static char **make_argv(const uint8_t *data, size_t size, int *argc)
{
	char **argv = calloc(OFZ_MAX_WORDS + 2, sizeof(*argv));
	size_t at = 0;
	int n = 0;

	if (!argv || !(argv[n++] = strdup("osprof-fs")))
		ofz_fail("out of memory");
	while (at < size && n <= OFZ_MAX_WORDS) {
		const uint8_t *nul = memchr(data + at, '\0', size - at);
		size_t len = nul ? (size_t)(nul - (data + at)) : size - at;

		argv[n] = strndup((const char *)data + at, len);
		if (!argv[n++])
			ofz_fail("out of memory");
		at += len + 1;
	}
	*argc = n;
	return argv;
}

static void free_argv(char **argv)
{
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* What an accepted command line promises the rest of the daemon. */
static void check_opts(const struct ofs *fs)
{
	const struct ofs_opts *o = &fs->opts;
	struct osp_profile *p;

	if (!o->lower || !o->mountpoint || !o->lower_abs || !o->mount_abs ||
	    o->lower_abs[0] != '/' || o->mount_abs[0] != '/')
		ofz_fail("accepted without both directories, absolute");
	if (!osp_res_valid(o->res) || o->timeline_ms > 3600000 ||
	    o->timeline_size < 1 || o->timeline_size > 10000000 ||
	    o->fd_cache < 16 || o->fd_cache > 1u << 24 || o->poll_us > 1000000)
		ofz_fail("a number out of its documented range");
	if (!o->ctl_name || !o->ctl_name[0] || strchr(o->ctl_name, '/') ||
	    !strcmp(o->ctl_name, ".") || !strcmp(o->ctl_name, "..") ||
	    strlen(o->ctl_name) > NAME_MAX)
		ofz_fail("control directory name '%s' accepted",
			 o->ctl_name ? o->ctl_name : "(null)");
	if (o->cache > OFS_CACHE_ALWAYS || !(o->entry_timeout >= 0) ||
	    !(o->attr_timeout >= 0) || o->entry_timeout > 1e9 ||
	    o->attr_timeout > 1e9 || o->readdirplus < -1 || o->readdirplus > 1)
		ofz_fail("a cache setting out of range");
	if (o->vtimers && !o->cpu_time)
		ofz_fail("vtimers without CPU histograms");
	if (o->dump && o->dump[0] != '/')
		ofz_fail("--dump path '%s' not made absolute", o->dump);
	/* The settings go into every profile's "options": valid JSON there. */
	p = osp_profile_new("fs", o->res);
	if (!p || ofs_opts_describe(fs, p) != 0)
		ofz_fail("ofs_opts_describe failed");
	ofz_check_profile(p);
	osp_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ofs fs = { 0 };
	struct fuse_args args;
	struct capture cap = { 0 };
	char **argv;
	int argc, res;

	argv = make_argv(data, size, &argc);
	args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	capture_start(&cap);
	res = ofs_opts_parse(&fs, &args);
	capture_end(&cap);
	if (res == 0)
		check_opts(&fs);
	else if (res < 0 && (cap.err_len == 0 || cap.err[cap.err_len - 1] != '\n'))
		ofz_fail("refused without a message line (stderr: '%s')", cap.err);
	else if (res == 1 && cap.out_len == 0)
		ofz_fail("returned 1 (--help, --version) but printed nothing");
	else if (res > 1 || res < -4095)
		ofz_fail("returned %d", res);
	free(cap.out);
	free(cap.err);
	ofs_opts_free(&fs.opts);
	fuse_opt_free_args(&args);
	free_argv(argv);
	return 0;
}
