// SPDX-License-Identifier: MIT
/*
 * One getopt_long loop for every osprof program (osp_opt.h): the short and
 * long option tables are made from the program's one table of options,
 * and each value is stored by its kind, numbers through osprof/parse.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "osp_opt.h"
#include "osprof/parse.h"

static bool takes_arg(enum osp_opt_kind kind)
{
	return kind != OSP_OPT_TRUE && kind != OSP_OPT_FALSE && kind != OSP_OPT_STOP &&
	       kind != OSP_OPT_PRINT;
}

/* Store @arg as @o says: 0, or osp_parse_*'s or the call's error. */
static int store(const struct osp_opt *o, const char *arg)
{
	uint64_t u;
	int rc;

	switch (o->kind) {
	case OSP_OPT_STR:
		*(const char **)o->dst = arg;
		return 0;
	case OSP_OPT_TRUE:
	case OSP_OPT_FALSE:
		*(bool *)o->dst = o->kind == OSP_OPT_TRUE;
		return 0;
	case OSP_OPT_U64:
		return osp_parse_u64(arg, o->umin, o->umax, (uint64_t *)o->dst);
	case OSP_OPT_SIZE:
		return osp_parse_size(arg, o->umin, o->umax, (uint64_t *)o->dst);
	case OSP_OPT_UINT:
		rc = osp_parse_u64(arg, o->umin, o->umax, &u);
		if (rc == 0)
			*(unsigned *)o->dst = (unsigned)u;
		return rc;
	case OSP_OPT_DOUBLE:
		return osp_parse_double(arg, o->dmin, o->dmax, (double *)o->dst);
	case OSP_OPT_CALL:
		return o->call(o, arg);
	default:
		return -EINVAL;
	}
}

int osp_opt_parse(const struct osp_opt *opts, const char *mode, int argc,
		  char **argv, struct osp_opt_fail *fail)
{
	struct option longopts[OSP_OPT_MAX + 1];
	char shortopts[3 + 2 * OSP_OPT_MAX];
	size_t n, nlong = 0, s = strnlen(mode, 2);
	int c;

	memset(fail, 0, sizeof(*fail));
	memcpy(shortopts, mode, s);
	for (n = 0; opts[n].key; n++) {
		bool arg = takes_arg(opts[n].kind);

		if (n == OSP_OPT_MAX) {
			fail->rc = -E2BIG;
			return -E2BIG;
		}
		if (opts[n].name)
			longopts[nlong++] = (struct option){ opts[n].name,
				arg ? required_argument : no_argument, NULL, opts[n].key };
		if (opts[n].key < 256) {
			shortopts[s++] = (char)opts[n].key;
			if (arg)
				shortopts[s++] = ':';
		}
	}
	longopts[nlong] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[s] = '\0';
	opterr = strchr(mode, ':') ? 0 : 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct osp_opt *o = NULL;
		int rc;

		for (size_t i = 0; i < n && !o; i++)
			if (opts[i].key == c && c != '?' && c != ':')
				o = &opts[i];
		if (!o) {
			fail->c = c;
			fail->rc = -EINVAL;
			return -EINVAL;
		}
		if (o->kind == OSP_OPT_PRINT)
			fputs(o->text, stdout);
		if (o->kind == OSP_OPT_STOP || o->kind == OSP_OPT_PRINT)
			return c;
		rc = store(o, optarg);
		if (rc) {
			fail->opt = o;
			fail->arg = optarg;
			fail->rc = rc;
			return rc;
		}
	}
	return 0;
}

void osp_opt_why(const struct osp_opt_fail *fail, char *buf, size_t len)
{
	const struct osp_opt *o = fail->opt;
	bool dbl = o && o->kind == OSP_OPT_DOUBLE;

	if (!o || !o->name)
		snprintf(buf, len, "bad option");
	else if (fail->rc == -ERANGE && dbl)
		snprintf(buf, len, "--%s: '%s' is out of range [%g, %g]", o->name,
			 fail->arg, o->dmin, o->dmax);
	else if (fail->rc == -ERANGE)
		snprintf(buf, len, "--%s: '%s' is out of range [%" PRIu64 ", %" PRIu64 "]",
			 o->name, fail->arg, o->umin, o->umax);
	else
		snprintf(buf, len, "--%s: '%s' is not a %s", o->name, fail->arg,
			 dbl ? "number" : "whole number");
}
