// SPDX-License-Identifier: MIT
/*
 * Small helpers of osprof-report: error lines, option values through
 * core's strict number parsers, atomic output files, whole-file reads (also of
 * /proc files, whose size reads as 0), and a few profile utilities.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/format.h"
#include "osprof/parse.h"

/*
 * A message for stderr in core's text spelling: it quotes names from
 * profiles and argv, which must not break its one line or drive the
 * terminal. Messages are built raw; this is the one place they are escaped.
 */
static void message(const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0) {
		fputs("(out of memory)", stderr);
		return;
	}
	osp_esc_text(stderr, msg);
	free(msg);
}

void orp_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, ORP_PROG ": ");
	va_start(ap, fmt);
	message(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int orp_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, ORP_PROG " %s: ", cmd);
	va_start(ap, fmt);
	message(fmt, ap);
	va_end(ap);
	fprintf(stderr, " (try '" ORP_PROG " %s --help')\n", cmd);
	return ORP_EXIT_ERROR;
}

/* Say why --@name's value @s was refused (osp_parse_*'s @rc), as a usage error. */
static void say_u64(const char *cmd, const char *name, const char *s, int rc,
		    uint64_t min, uint64_t max)
{
	if (rc == -ERANGE)
		orp_usage_error(cmd, "--%s %s: out of range %llu..%llu", name, s,
				(unsigned long long)min, (unsigned long long)max);
	else
		orp_usage_error(cmd, "--%s '%s': not a whole number", name, s);
}

static void say_double(const char *cmd, const char *name, const char *s, int rc,
		       double min, double max)
{
	if (rc == -ERANGE)
		orp_usage_error(cmd, "--%s %s: out of range %g..%g", name, s, min, max);
	else
		orp_usage_error(cmd, "--%s '%s': not a number", name, s);
}

int orp_opts_parse(const char *cmd, const struct osp_opt *opts, int argc,
		   char **argv, void (*help)(void))
{
	struct osp_opt_fail f;
	int rc = osp_opt_parse(opts, "", argc, argv, &f);

	if (rc == 'h') {
		help();
		return 1;
	}
	if (rc == 0)
		return 0;
	if (!f.opt)
		orp_usage_error(cmd, "bad option");
	else if (f.opt->kind == OSP_OPT_U64)
		say_u64(cmd, f.opt->name, f.arg, rc, f.opt->umin, f.opt->umax);
	else if (f.opt->kind == OSP_OPT_DOUBLE)
		say_double(cmd, f.opt->name, f.arg, rc, f.opt->dmin, f.opt->dmax);
	/* An OSP_OPT_CALL has said why. */
	return -EINVAL;
}

int orp_opt_double(const char *cmd, const char *name, const char *s,
		   double min, double max, double *out)
{
	int rc = osp_parse_double(s, min, max, out);

	if (rc)
		say_double(cmd, name, s, rc, min, max);
	return rc ? -EINVAL : 0;
}

int orp_out_open(struct orp_out *o, const char *path, char *err, size_t errlen)
{
	int rc;

	memset(o, 0, sizeof(*o));
	if (strcmp(path, "-") == 0) {
		o->w.f = stdout;
		return 0;
	}
	o->name = path;
	rc = osp_wfile_open(&o->w, path, 0666);
	if (rc) {
		snprintf(err, errlen, "%s: cannot create: %s", path, strerror(-rc));
		memset(o, 0, sizeof(*o));
		return rc;
	}
	return 0;
}

int orp_out_close(struct orp_out *o, int write_rc, char *err, size_t errlen)
{
	const char *name = o->name ? o->name : "stdout";
	int rc;

	if (!o->name) {
		rc = write_rc ? -EIO : fflush(stdout) != 0 ? -errno : ferror(stdout) ? -EIO : 0;
	} else if (write_rc) {
		osp_wfile_abort(&o->w);
		rc = -EIO;
	} else {
		rc = osp_wfile_commit(&o->w);
	}
	if (rc)
		snprintf(err, errlen, "%s: write error%s%s", name, write_rc ? "" : ": ",
			 write_rc ? "" : strerror(-rc));
	memset(o, 0, sizeof(*o));
	return rc ? -EIO : 0;
}

int orp_mkdir(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int e;

	if (mkdir(path, 0755) == 0)
		return 0;
	e = errno;
	if (e == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (e == EEXIST)
		e = ENOTDIR;
	snprintf(err, errlen, "%s: cannot create directory: %s", path,
		 strerror(e));
	return -e;
}

int orp_cmp_op_total(const void *a, const void *b)
{
	const struct osp_op *x = *(const struct osp_op *const *)a;
	const struct osp_op *y = *(const struct osp_op *const *)b;

	if (x->lat.sum != y->lat.sum)
		return x->lat.sum < y->lat.sum ? 1 : -1;
	return strcmp(x->name, y->name);
}

int orp_profile_total(const struct osp_profile *p, struct osp_hist *out)
{
	int err = osp_hist_init(out, p->res);

	for (size_t i = 0; !err && i < p->nops; i++)
		err = osp_hist_merge(out, &p->ops[i].lat);
	if (err)
		osp_hist_fini(out);
	return err;
}

int orp_exit_stdout(int rc)
{
	if (rc)
		return ORP_EXIT_ERROR;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		orp_error("stdout: write error");
		return ORP_EXIT_ERROR;
	}
	return ORP_EXIT_OK;
}
