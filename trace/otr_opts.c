// SPDX-License-Identifier: MIT
/*
 * osprof-trace's command line: options in one struct with their defaults,
 * one table for core's osp_opt_parse, every number through core's strict
 * parsers, and the help with copy-pastable examples. Nothing here touches
 * the system: a bad command line changes nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "osp_opt.h"
#include "otr.h"
#include "osprof/parse.h"

static void help(void)
{
	printf("Usage: " OTR_PROG " [-p PID]... [--cgroup DIR] [--mount DIR] [--layers LIST]\n"
	       "                    [--interval S] [-o FILE] [-- COMMAND [ARG]...]\n"
	       "Profile the system calls of processes, a cgroup or a command with eBPF:\n"
	       "one log2 latency histogram per call, no FUSE mount, no kernel module.\n"
	       "At the end (Ctrl-C, SIGTERM, the command's exit, or every -p process's)\n"
	       "print the stats view of each layer on standard error (standard output\n"
	       "is the command's alone, as with strace -c) and, with -o, write the JSON\n"
	       "profiles that osprof-report reads.\n\n"
	       "  -p, --pid PID       trace process PID (repeatable), and its children\n"
	       "  -c, --cgroup DIR    trace the processes of cgroup v2 directory DIR\n"
	       "  -m, --mount DIR     only calls on the mount that holds DIR: on its\n"
	       "                      files' descriptors, and opens and stat calls whose\n"
	       "                      result is on it; other calls on paths and calls on\n"
	       "                      no file are dropped. On a FUSE mount the fuse layer\n"
	       "                      of that mount is loaded too (it counts the mount's\n"
	       "                      requests from every process)\n"
	       "  -L, --layers LIST   comma-separated layers (see below), or all\n"
	       "                      (default: syscall, plus fuse with a FUSE --mount)\n"
	       "  -i, --interval S    also print each S seconds' own counts (0.001 ..\n"
	       "                      86400), on standard error too; the JSON gets them\n"
	       "                      as its timeline\n"
	       "  -o, --output FILE   write the first layer listed to FILE as JSON and\n"
	       "                      each other layer L to FILE with .L before its\n"
	       "                      extension: -o run.json -L syscall,fuse writes\n"
	       "                      run.json (syscall) and run.fuse.json (fuse)\n"
	       "  -h, --help          this help\n"
	       "  -V, --version       the version\n"
	       "  -- COMMAND ARG...   run COMMAND traced from its first instruction, with\n"
	       "                      its children; end when it exits, with its status\n\n"
	       "Layers:");
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if (l != OBP_L_LOWER) /* osprof-fs's own */
			printf(" %s", obp_layer_name(l));
	printf("\n\nNeeds root (CAP_BPF, CAP_PERFMON) and a kernel with BTF. Exit status:\n"
	       "the command's when one runs, else 0; 1 when tracing is impossible\n"
	       "here (said in one line); 2 for bad input.\n\n"
	       "Examples:\n"
	       "  " OTR_PROG " -- grep -r pattern /usr/include          # a command\n"
	       "  " OTR_PROG " -o grep.json -- grep -r pattern /usr/include\n"
	       "  " OTR_PROG " -p 1234 -i 5                 # a running process, every 5 s\n"
	       "  " OTR_PROG " --cgroup /sys/fs/cgroup/system.slice/nginx.service\n"
	       "  " OTR_PROG " --mount /data -o data.json -- tar cf /dev/null /data\n"
	       "  " OTR_PROG " --mount /mnt/p -L syscall,fuse -o p.json -- make\n"
	       "  osprof-report show data.json\n");
}

/* The first layer of @list (for "all": the first in obp's order). */
static enum obp_layer first_layer(const char *list, unsigned mask)
{
	char word[64], err[OTR_ERRLEN];
	size_t n = strcspn(list, ",:");
	unsigned m = 0;

	if (n < sizeof(word)) {
		memcpy(word, list, n);
		word[n] = '\0';
		if (obp_layers_parse(word, &m, err, sizeof(err)) == 0 && m)
			mask = m;
	}
	return (enum obp_layer)__builtin_ctz(mask);
}

/* What the table's calls get: the options, and where to say what is wrong. */
struct parse_ctx {
	struct otr_opts *o;
	char *err;
	size_t errlen;
};

static int parse_layers(const struct osp_opt *opt, const char *s)
{
	struct parse_ctx *x = opt->dst;
	char why[OTR_ERRLEN];
	unsigned m;

	if (obp_layers_parse(s, &m, why, sizeof(why))) {
		snprintf(x->err, x->errlen, "--layers: %s", why);
		return -EINVAL;
	}
	/* lower is an osprof-fs daemon's own calls: here that is the
	 * syscall layer of its pid. "all" means every layer that applies. */
	if (strcmp(s, "all") == 0)
		m &= ~OBP_LAYER_BIT(OBP_L_LOWER);
	if (m & OBP_LAYER_BIT(OBP_L_LOWER)) {
		snprintf(x->err, x->errlen, "--layers: lower is osprof-fs's layer (its daemon's calls); "
			 "to trace a daemon here, give its pid: -p PID");
		return -EINVAL;
	}
	if (!m) {
		snprintf(x->err, x->errlen, "--layers '%s': no layer to trace", s);
		return -EINVAL;
	}
	x->o->layers = m;
	x->o->layers_given = true;
	x->o->first = first_layer(s, m);
	return 0;
}

static int parse_pid(const struct osp_opt *opt, const char *s)
{
	struct parse_ctx *x = opt->dst;
	uint64_t v;

	if (osp_parse_u64(s, 1, INT_MAX, &v)) {
		snprintf(x->err, x->errlen, "-p '%s': not a process id (1 .. %d)", s, INT_MAX);
		return -EINVAL;
	}
	if (x->o->npids == OTR_PIDS_MAX) {
		snprintf(x->err, x->errlen, "-p %s: more than %d processes", s, OTR_PIDS_MAX);
		return -EINVAL;
	}
	x->o->pids[x->o->npids++] = (pid_t)v;
	return 0;
}

static int parse_interval(const struct osp_opt *opt, const char *s)
{
	struct parse_ctx *x = opt->dst;
	double v;

	if (osp_parse_double(s, 0.001, 86400.0, &v)) {
		snprintf(x->err, x->errlen, "--interval '%s': not a number of seconds in 0.001 .. 86400", s);
		return -EINVAL;
	}
	x->o->interval_ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

int otr_opts_parse(struct otr_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	struct parse_ctx x = { o, err, errlen };
	const struct osp_opt opts[] = {
		{ 'p', "pid", OSP_OPT_CALL, &x, .call = parse_pid },
		{ 'c', "cgroup", OSP_OPT_STR, &o->cgroup },
		{ 'm', "mount", OSP_OPT_STR, &o->mount },
		{ 'L', "layers", OSP_OPT_CALL, &x, .call = parse_layers },
		{ 'i', "interval", OSP_OPT_CALL, &x, .call = parse_interval },
		{ 'o', "output", OSP_OPT_STR, &o->out },
		{ 'h', "help", OSP_OPT_STOP },
		{ 'V', "version", OSP_OPT_PRINT, .text = OTR_PROG " " OSPROF_VERSION "\n" },
		{ 0 },
	};
	struct osp_opt_fail f;
	bool dashdash;
	int rc;

	memset(o, 0, sizeof(*o));
	o->layers = OBP_LAYER_BIT(OBP_L_SYSCALL);
	o->first = OBP_L_SYSCALL;
	/* '+': the command's own options are not ours; ':' our own one-line messages. */
	rc = osp_opt_parse(opts, "+:", argc, argv, &f);
	if (rc == 'h') {
		help();
		return 1;
	}
	if (rc == 'V') /* printed */
		return 1;
	if (rc && f.opt)
		return rc;
	if (rc && f.c == ':') {
		snprintf(err, errlen, "%s needs a value", argv[optind - 1]);
		return -EINVAL;
	}
	if (rc) {
		if (optopt)
			snprintf(err, errlen, "unknown option -%c (see --help)", optopt);
		else
			snprintf(err, errlen, "unknown option %s (see --help)", argv[optind - 1]);
		return -EINVAL;
	}
	dashdash = optind > 1 && strcmp(argv[optind - 1], "--") == 0;
	if (optind < argc)
		o->cmd = &argv[optind];
	else if (dashdash) {
		snprintf(err, errlen, "-- without a command");
		return -EINVAL;
	}
	if (!o->cmd && !o->npids && !o->cgroup) {
		snprintf(err, errlen, "nothing to trace: give -p PID, --cgroup DIR or -- COMMAND (see --help)");
		return -EINVAL;
	}
	if (o->out && !*o->out) {
		snprintf(err, errlen, "-o: an empty file name");
		return -EINVAL;
	}
	return 0;
}
