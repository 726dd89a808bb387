/* SPDX-License-Identifier: MIT */
/*
 * The command lines of osprof's programs (osprof-report's subcommands,
 * osprof-trace, osprof-bench, osprof-randread, osprof-exporter): a program
 * lists its options once, a row each -- letter, long name, what the value
 * is and where it goes -- and osp_opt_parse runs getopt_long over the
 * table: it stores strings and flags, parses numbers with osprof/parse.h's
 * strict parsers, and hands the options a program reads itself to its
 * callbacks. Each program keeps its own words and exit codes: it says
 * what went wrong from what osp_opt_parse returns.
 *
 * Private to osprof's programs (core/prog): neither installed nor in
 * libosprof, whose ABI is core/include/osprof/ alone.
 */
#ifndef OSP_OPT_H
#define OSP_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What an option's value is, and so the type its dst points to. */
enum osp_opt_kind {
	OSP_OPT_STR,    /* const char *: the argument itself (argv's) */
	OSP_OPT_TRUE,   /* bool: set true; no argument */
	OSP_OPT_FALSE,  /* bool: set false; no argument */
	OSP_OPT_U64,    /* uint64_t: osp_parse_u64 in [umin, umax] */
	OSP_OPT_UINT,   /* unsigned: osp_parse_u64 in [umin, umax <= UINT_MAX] */
	OSP_OPT_SIZE,   /* uint64_t: osp_parse_size (k, m, g) in [umin, umax] */
	OSP_OPT_DOUBLE, /* double: osp_parse_double in [dmin, dmax] */
	OSP_OPT_CALL,   /* call(opt, argument): the program reads it */
	OSP_OPT_STOP,   /* no argument: osp_opt_parse returns its key (--help) */
	OSP_OPT_PRINT,  /* no argument: text goes to stdout, then as STOP */
	OSP_OPT_KINDS
};

struct osp_opt;
/* An OSP_OPT_CALL option's reader: 0, or a negative errno once it said why. */
typedef int osp_opt_call_fn(const struct osp_opt *opt, const char *arg);

/* One option, a row of a table that ends with a zero key. */
struct osp_opt {
	int key;                 /* its letter, or >= 256 for a long option alone */
	const char *name;        /* its long name without "--", or NULL */
	enum osp_opt_kind kind;
	void *dst;               /* where the value goes; a call's context */
	uint64_t umin, umax;     /* U64, UINT, SIZE: the range allowed */
	double dmin, dmax;       /* DOUBLE: the range allowed */
	osp_opt_call_fn *call;   /* CALL */
	const char *text;        /* PRINT: a usage text, a version line */
};

/* At most this many rows a table (getopt's tables are built on the stack). */
#define OSP_OPT_MAX 32

/* Why osp_opt_parse stopped short. */
struct osp_opt_fail {
	const struct osp_opt *opt; /* the row of @opts whose value was refused; NULL
				    * when getopt refused an option (unknown,
				    * or its value missing) */
	const char *arg;           /* that value */
	int rc;                    /* osp_parse_*'s -EINVAL or -ERANGE, or the call's */
	int c;                     /* with opt NULL: getopt's '?' or ':' */
};

/*
 * osp_opt_parse - getopt_long over @argv[1..@argc) with the options of
 * @opts (optind set to 1 first, so a subcommand's argv parses afresh).
 * @mode leads getopt's short options: "" (options anywhere), "+" (stop at
 * the first operand: a command's own options are not ours), "+:" (the
 * same, getopt silent: the program words every refusal).
 * Returns 0 at the end of the options (optind is the first operand), the
 * key of an OSP_OPT_STOP or OSP_OPT_PRINT option given (its text printed), or a negative errno with @fail
 * filled: -EINVAL for an option getopt refused (it has said so unless
 * @mode has ':'), a number's -EINVAL or -ERANGE (said by no one), a
 * call's own return, -E2BIG for a table of more than OSP_OPT_MAX rows.
 * Values given before the failure are stored. Not thread-safe (getopt).
 */
int osp_opt_parse(const struct osp_opt *opts, const char *mode, int argc,
		  char **argv, struct osp_opt_fail *fail);

/*
 * osp_opt_why - a number's refusal in words, as osprof-bench and
 * osprof-randread say it: "--runs: 'x' is not a whole number", "--hw:
 * '0' is out of range [0.001, 1000]". @buf holds the line (no newline).
 */
void osp_opt_why(const struct osp_opt_fail *fail, char *buf, size_t len);

#endif /* OSP_OPT_H */
