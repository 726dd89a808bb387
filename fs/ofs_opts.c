// SPDX-License-Identifier: MIT
/*
 * Command-line options of osprof-fs: our -o options (parsed strictly, each
 * bad value named in a one-line error), the two positional directories,
 * --dump, and libfuse's own options, which pass through to libfuse. Also
 * the cache modes' defaults and the description of the settings that goes
 * into every profile.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "osprof/parse.h"
#include "obp.h"
#include "ofs.h"
#include "ofs_opts.h"
#include "ofs_slow.h"
#include "ofs_top.h"

/* Raw option strings, parsed and checked after fuse_opt has run. */
struct raw {
	char *res, *timeline, *timeline_size, *ctl_name, *ctl_group, *cache;
	char *entry_timeout, *attr_timeout, *fd_cache, *readdirplus, *dump, *poll_us;
	char *layers, *lower_source, *syscall, *by, *by_max;
	char *slow, *slow_size, *top_max, *passthrough_s, *io_uring_s;
	int passthrough, io_uring, noopen, io_uring_pin;
	int writeback, cpu_time, vtimers, noprofile, top, values, nonempty;
	int nonopt;
	int answer; /* KEY_HELP or KEY_VERSION when one was asked for */
	struct ofs_opts *o;
};

/* Positive: fuse_opt keeps the negative keys for itself. */
enum { KEY_HELP = 1, KEY_VERSION, KEY_ALLOW_OTHER, KEY_RO, KEY_RW };

#define RAW(t, f) { t, offsetof(struct raw, f), 0 }
#define FLAG(t, f, v) { t, offsetof(struct raw, f), v }

static const struct fuse_opt specs[] = {
	RAW("resolution=%s", res),
	RAW("timeline=%s", timeline),
	RAW("timeline_size=%s", timeline_size),
	RAW("ctl_name=%s", ctl_name),
	RAW("ctl_group=%s", ctl_group),
	RAW("cache=%s", cache),
	RAW("entry_timeout=%s", entry_timeout),
	RAW("attr_timeout=%s", attr_timeout),
	RAW("fd_cache=%s", fd_cache),
	RAW("readdirplus=%s", readdirplus),
	RAW("poll_us=%s", poll_us),
	RAW("layers=%s", layers),
	RAW("lower_source=%s", lower_source),
	RAW("syscall=%s", syscall),
	RAW("slow=%s", slow),
	RAW("slow_size=%s", slow_size),
	RAW("top_max=%s", top_max),
	FLAG("top", top, 1),
	RAW("by=%s", by),
	RAW("by_max=%s", by_max),
	RAW("dump=%s", dump),
	RAW("--dump=%s", dump),
	RAW("--dump %s", dump),
	FLAG("writeback", writeback, 1),
	FLAG("no_writeback", writeback, 0),
	FLAG("cpu_time", cpu_time, 1),
	FLAG("vtimers", vtimers, 1),
	FLAG("noprofile", noprofile, 1),
	FLAG("values", values, 1),
	FLAG("nonempty", nonempty, 1),
	FLAG("passthrough", passthrough, 1),
	RAW("passthrough=%s", passthrough_s),
	FLAG("io_uring", io_uring, 1),
	FLAG("noopen", noopen, 1),
	FLAG("io_uring_pin", io_uring_pin, 1),
	RAW("io_uring=%s", io_uring_s),
	FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
	FUSE_OPT_KEY("ro", KEY_RO),
	FUSE_OPT_KEY("rw", KEY_RW),
	FUSE_OPT_KEY("-h", KEY_HELP),
	FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION),
	FUSE_OPT_KEY("--version", KEY_VERSION),
	FUSE_OPT_END
};

static void usage(const char *prog)
{
	printf("usage: %s LOWERDIR MOUNTPOINT [options]\n\n"
"Mount a profiled view of LOWERDIR at MOUNTPOINT (they may be the same\n"
"directory). Every file-system request through it is timed into a log2\n"
"latency histogram per operation; read them in MOUNTPOINT/.osprof/.\n\n"
"osprof options:\n"
"    -o resolution=N        buckets per power of two: 1, 2, 4 or 8 (default 1)\n"
"    -o cache=MODE          kernel caching: never (default: every request reaches\n"
"                           the profiler; timeouts 0, direct I/O on files),\n"
"                           auto (timeouts 1 s; page cache kept until mtime or\n"
"                           size change), always (timeouts 1 day, page cache\n"
"                           kept, cached readdir and symlinks); outside never,\n"
"                           closing a read-only file sends no FLUSH\n"
"    -o entry_timeout=S     dentry timeout in seconds (overrides the mode)\n"
"    -o attr_timeout=S      attribute timeout in seconds (overrides the mode)\n"
"    -o writeback           kernel writeback cache (with cache=auto|always)\n"
"    -o passthrough         the kernel reads, writes and maps opened files on\n"
"                           the lower files itself (Linux 6.9+, CAP_SYS_ADMIN,\n"
"                           not with writeback): those requests no longer\n"
"                           reach the fs layer, the syscall layer times them;\n"
"                           off with one line saying why when unavailable;\n"
"                           =require refuses to mount instead\n"
"    -o io_uring            requests come over FUSE's io_uring rings, one per\n"
"                           CPU (Linux 6.14+, the fuse module's enable_uring\n"
"                           Y); as passthrough, off with one line, or =require\n"
"    -o io_uring_pin        with io_uring, each queue's threads stay on its\n"
"                           CPU, the callers', and none polls: faster where\n"
"                           the lower file system works long per request\n"
"                           (creates, deletes), slower where it does not\n"
"    -o noopen              the kernel answers opens itself: the first OPEN,\n"
"                           OPENDIR, CREATE and FLUSH are answered ENOSYS,\n"
"                           then none of them nor RELEASE reach the profiler;\n"
"                           reads, writes and listings go through descriptors\n"
"                           kept per inode; locks stay in the kernel; implies\n"
"                           default_permissions (with cache=auto|always, not\n"
"                           with writeback or passthrough)\n"
"    -o ro                  read-only (the kernel's mount option): a file read\n"
"                           again keeps its atime, so a warm pass sends no\n"
"                           GETATTR; ctl cannot be written either: SIGUSR1\n"
"                           resets the counters\n"
"    -o cpu_time            also record each request's CPU time: its virtual\n"
"                           time from eBPF (without time switched out or in\n"
"                           interrupts, read from memory) as root on a\n"
"                           kernel with BTF, else the thread CPU clock\n"
"    -o vtimers             record each request's virtual time instead (the\n"
"                           time its thread ran, without interrupts), from\n"
"                           osprof.ko's virtual timers (/dev/osprof_vt)\n"
"    -o noprofile           start with recording disabled ('enable' in ctl)\n"
"    -o values              value profiles: per latency bucket, the size and seek\n"
"                           distance of reads and writes, and whether readdir\n"
"                           was at the directory's end (.osprof/values.json)\n"
"    -o timeline=MS         snapshot per-interval deltas every MS milliseconds\n"
"    -o timeline_size=N     keep at most N snapshots (default 1000)\n"
"    -o nonempty            mount over a MOUNTPOINT that holds files (refused\n"
"                           otherwise, since the mount hides them; not needed\n"
"                           in place, over LOWERDIR itself)\n"
"    -o ctl_name=NAME       control directory name (default .osprof)\n"
"    -o ctl_group=GROUP     a group (name or gid) that may read the control\n"
"                           files naming files, processes or users (top, slow,\n"
"                           by): mode 0440 in it; default 0400, the mounting\n"
"                           user and root only\n"
"    -o fd_cache=N          O_PATH descriptors kept open (default: half the\n"
"                           open-file limit); inodes are known by file handle\n"
"    -o readdirplus=MODE    auto (default, the kernel chooses), yes or no\n"
"    -o poll_us=N           one worker per CPU polls up to N us after replying\n"
"                           (past 30 us at idle priority; the window follows\n"
"                           the gaps between requests, none after a request\n"
"                           that blocked) before sleeping: fewer wakeups of\n"
"                           halted CPUs on VMs; with io_uring, each queue's\n"
"                           first thread polls its ring, at most 30 us; 0 for\n"
"                           libfuse's blocking pool, and io_uring threads that\n"
"                           only sleep; default: 0 with cache=never or\n"
"                           io_uring, 200 otherwise, as measured\n"
"    -o layers=LIST         layers beside fs, colon-separated: fuse (the\n"
"                           kernel's FUSE requests of this mount), syscall (the\n"
"                           system calls of the processes using the mount),\n"
"                           lower (this daemon's calls on LOWERDIR), block,\n"
"                           irq; all or none (default: every layer that loads;\n"
"                           all but lower need eBPF: root, a kernel with BTF; a\n"
"                           layer named here that cannot load stops the mount)\n"
"    -o lower_source=SRC    daemon (default: it times its own calls, ~30 ns\n"
"                           each) or ebpf (the kernel times every system call\n"
"                           the daemon makes; costs every process on the\n"
"                           machine ~0.05 us per system call while loaded)\n"
"    -o syscall=CALLS       which calls of the processes using the mount the\n"
"                           syscall layer counts: mount (default: those on the\n"
"                           mount's files: on their descriptors, and opens and\n"
"                           stat calls whose result is on it) or all (every\n"
"                           call they make)\n"
"    -o by=KEY              also a profile per value of KEY: pid (the caller's\n"
"                           thread), comm (its process name), uid, dir (the\n"
"                           top-level directory under the mount a request's\n"
"                           inode is in), file (the request's inode; the\n"
"                           directory for name operations); in .osprof/by and\n"
"                           by.json, with the top values by total time\n"
"    -o by_max=N            values with a profile of their own, the first seen\n"
"                           (default 64, 1 to " OFS_BY_MAX_STR "); later ones' requests go to\n"
"                           'other', counted\n"
"    -o slow=DURATION       log every request at least this slow (10ms, 500us,\n"
"                           2s; 0: every request) in .osprof/slow (default off)\n"
"    -o slow_size=N         entries the slow log keeps, the newest (default 1024)\n"
"    -o top                 per-file and per-process counts in .osprof/top\n"
"                           (default off: a table lookup per request; 'top on'\n"
"                           and 'top off' in ctl switch it while mounted)\n"
"    -o top_max=N           files and processes kept each (default 256; the\n"
"                           rest are folded into 'other')\n"
"    --dump FILE            write the final JSON profile to FILE at unmount\n"
"                           (also -o dump=FILE); each eBPF layer's beside it,\n"
"                           FILE with .LAYER before its extension, the slow\n"
"                           log as FILE.slow.json, -o values' tables as\n"
"                           FILE.values.json, -o by's values as FILE.by.json,\n"
"                           -o top's tables as FILE.top.json\n\n"
"Examples:\n"
"    %s /data /mnt/p && grep -r foo /mnt/p; cat /mnt/p/.osprof/stats\n"
"    %s /srv /srv -o cache=auto --dump /tmp/srv.json    # in place\n"
"    echo reset > /mnt/p/.osprof/ctl; echo 'timeline 100' > /mnt/p/.osprof/ctl\n"
"    fusermount3 -u /mnt/p\n\n"
"FUSE options:\n", prog, prog, prog);
	fuse_cmdline_help();
	fuse_lowlevel_help();
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *out)
{
	struct raw *raw = data;

	(void)out;
	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		if (raw->nonopt++ == 0) {
			raw->o->lower = strdup(arg);
			return 0;
		}
		if (raw->nonopt == 2)
			return 1; /* the mountpoint, for fuse_parse_cmdline */
		fprintf(stderr, "osprof-fs: too many arguments at '%s' (see --help)\n", arg);
		return -1;
	case KEY_HELP:
	case KEY_VERSION:
		/*
		 * Stop at the first one, as exit() here used to, but let
		 * ofs_opts_parse answer and return 1: the caller frees what
		 * it holds, and a fuzzer can call the parser in a loop.
		 */
		raw->answer = key;
		return -1;
	case KEY_RO:
	case KEY_RW:
		raw->o->read_only = key == KEY_RO; /* the last one says */
		return 1; /* the kernel's mount option: libfuse passes it on */
	case KEY_ALLOW_OTHER:
		raw->o->allow_other = true;
		return 1; /* libfuse needs it too */
	default:
		return 1;
	}
}

/*
 * The parsers below return 0 or -errno (said): each names the option it
 * refuses in one line on stderr, through bad() or its own.
 */
static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "osprof-fs: bad option -o %s=%s: %s\n", opt, val, why);
	return -EINVAL;
}

static int get_uint(const char *opt, const char *val, uint64_t min,
		    uint64_t max, unsigned *out)
{
	uint64_t v;
	char why[64];

	if (!val)
		return 0;
	if (osp_parse_u64(val, min, max, &v) != 0) {
		snprintf(why, sizeof(why), "expected a whole number from %llu to %llu",
			 (unsigned long long)min, (unsigned long long)max);
		return bad(opt, val, why);
	}
	*out = (unsigned)v;
	return 0;
}

static int get_secs(const char *opt, const char *val, double *out)
{
	if (val && osp_parse_double(val, 0.0, 1e9, out) != 0)
		return bad(opt, val, "expected seconds, a number >= 0");
	return 0;
}

static int parse_cache(struct ofs_opts *o, const struct raw *r)
{
	static const char *const modes[] = { "never", "auto", "always" };
	static const double timeouts[] = { 0.0, 1.0, 86400.0 };
	int err;

	o->cache = OFS_CACHE_NEVER;
	if (r->cache) {
		unsigned i;

		for (i = 0; i < 3 && strcmp(r->cache, modes[i]) != 0; i++)
			;
		if (i == 3)
			return bad("cache", r->cache, "expected never, auto or always");
		o->cache = (enum ofs_cache)i;
	}
	o->entry_timeout = o->attr_timeout = timeouts[o->cache];
	err = get_secs("entry_timeout", r->entry_timeout, &o->entry_timeout);
	return err ? err : get_secs("attr_timeout", r->attr_timeout, &o->attr_timeout);
}

const char *const ofs_by_key_names[OFS_BY__COUNT] = {
	[OFS_BY_NONE] = "none",
	[OFS_BY_PID] = "pid",
	[OFS_BY_COMM] = "comm",
	[OFS_BY_UID] = "uid",
	[OFS_BY_DIR] = "dir",
	[OFS_BY_FILE] = "file",
};
_Static_assert(sizeof(ofs_by_key_names) / sizeof(ofs_by_key_names[0]) == OFS_BY__COUNT,
	       "a name for every key");

/* -o by=KEY and -o by_max=N. */
static int parse_by(struct ofs_opts *o, const struct raw *r)
{
	o->by = OFS_BY_NONE;
	o->by_max = 64;
	if (r->by) {
		unsigned i;

		for (i = 1; i < OFS_BY__COUNT && strcmp(r->by, ofs_by_key_names[i]) != 0; i++)
			;
		if (i == OFS_BY__COUNT)
			return bad("by", r->by, "expected pid, comm, uid, dir or file");
		o->by = (enum ofs_by_key)i;
	}
	return get_uint("by_max", r->by_max, 1, OFS_BY_MAX, &o->by_max);
}

/* -o layers: a list checked now; absent means every layer that loads. */
static int parse_layers(struct ofs_opts *o, const char *list)
{
	char why[200];

	o->layers_auto = !list;
	o->layers = OBP_LAYERS_ALL;
	if (list && obp_layers_parse(list, &o->layers, why, sizeof(why)) != 0)
		return bad("layers", list, why);
	return 0;
}

static int parse_misc(struct ofs_opts *o, const struct raw *r)
{
	o->ctl_name = strdup(r->ctl_name ? r->ctl_name : ".osprof");
	if (!o->ctl_name || !o->ctl_name[0] || strchr(o->ctl_name, '/') ||
	    strcmp(o->ctl_name, ".") == 0 || strcmp(o->ctl_name, "..") == 0 ||
	    strlen(o->ctl_name) > NAME_MAX)
		return bad("ctl_name", r->ctl_name, "expected a file name (no '/', not . or ..)");
	o->readdirplus = -1;
	if (r->readdirplus) {
		if (strcmp(r->readdirplus, "yes") == 0)
			o->readdirplus = 1;
		else if (strcmp(r->readdirplus, "no") == 0)
			o->readdirplus = 0;
		else if (strcmp(r->readdirplus, "auto") != 0)
			return bad("readdirplus", r->readdirplus, "expected auto, yes or no");
	}
	if (r->cpu_time && r->vtimers) {
		fprintf(stderr, "osprof-fs: -o cpu_time and -o vtimers exclude each other: choose one source of CPU time\n");
		return -EINVAL;
	}
	o->writeback = r->writeback;
	o->values = r->values;
	o->nonempty = r->nonempty;
	/* Either fills the CPU histograms; vtimers says which source. */
	o->cpu_time = r->cpu_time || r->vtimers;
	o->vtimers = r->vtimers;
	o->noprofile = r->noprofile;
	if (r->lower_source && strcmp(r->lower_source, "ebpf") != 0 &&
	    strcmp(r->lower_source, "daemon") != 0)
		return bad("lower_source", r->lower_source, "expected daemon or ebpf");
	o->lower_ebpf = r->lower_source && strcmp(r->lower_source, "ebpf") == 0;
	if (r->syscall && strcmp(r->syscall, "mount") != 0 && strcmp(r->syscall, "all") != 0)
		return bad("syscall", r->syscall, "expected mount or all");
	o->syscall_all = r->syscall && strcmp(r->syscall, "all") == 0;
	return parse_layers(o, r->layers);
}

/*
 * -o ctl_group: a group name, else a gid (a name made of digits is the
 * name, as chown(1) takes it). Looked up once, at mount: a group renamed
 * later keeps its gid.
 */
static int parse_ctl_group(struct ofs_opts *o, const char *val)
{
	struct group gr, *found = NULL;
	char buf[4096];
	uint64_t gid;

	o->ctl_group_set = val != NULL;
	if (!val)
		return 0;
	if (getgrnam_r(val, &gr, buf, sizeof(buf), &found) == 0 && found) {
		o->ctl_gid = found->gr_gid;
		return 0;
	}
	if (osp_parse_u64(val, 0, (gid_t)-2, &gid) != 0)
		return bad("ctl_group", val, "expected a group name or a gid");
	o->ctl_gid = (gid_t)gid;
	return 0;
}

/* FILE made absolute (the daemon changes directory), its directory checked. */
static int parse_dump(struct ofs_opts *o, const char *dump)
{
	char cwd[PATH_MAX], *dir, *slash;
	struct stat st;

	if (!dump)
		return 0;
	if (!dump[0] || dump[strlen(dump) - 1] == '/') {
		fprintf(stderr, "osprof-fs: --dump '%s': expected a file name\n", dump);
		return -EINVAL;
	}
	if (dump[0] == '/') {
		o->dump = strdup(dump);
	} else if (getcwd(cwd, sizeof(cwd)) && asprintf(&o->dump, "%s/%s", cwd, dump) < 0) {
		o->dump = NULL;
	}
	if (!o->dump) {
		fprintf(stderr, "osprof-fs: --dump %s: cannot resolve the path\n", dump);
		return -ENOENT;
	}
	dir = strdup(o->dump);
	slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (!dir || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "osprof-fs: --dump %s: directory %s does not exist\n",
			dump, dir ? dir : "?");
		free(dir);
		return -ENOENT;
	}
	free(dir);
	return 0;
}

/* -o NAME (@flag) or -o NAME=require (@val) into @want. */
static int parse_want(const char *name, int flag, const char *val, enum ofs_tr_want *want)
{
	*want = flag ? OFS_TR_ASK : OFS_TR_OFF;
	if (!val)
		return 0;
	if (strcmp(val, "require") == 0)
		*want = OFS_TR_REQUIRE;
	else if (strcmp(val, "yes") == 0)
		*want = OFS_TR_ASK;
	else if (strcmp(val, "no") != 0)
		return bad(name, val, "expected require, yes or no");
	else
		*want = OFS_TR_OFF;
	return 0;
}

/* -o slow, slow_size, top, top_max. */
static int parse_slow_top(struct ofs_opts *o, const struct raw *r)
{
	int err;

	o->slow_ns = UINT64_MAX;
	o->slow_size = 1024;
	o->top = r->top;
	o->top_max = 256;
	if (r->slow && osp_parse_duration(r->slow, OFS_SLOW_MAX_NS, &o->slow_ns) != 0)
		return bad("slow", r->slow, "expected a duration up to 3600s: 0, 500us, 10ms, 2s");
	err = get_uint("slow_size", r->slow_size, 1, OFS_SLOW_SIZE_MAX, &o->slow_size);
	return err ? err : get_uint("top_max", r->top_max, 1, OFS_TOP_MAX, &o->top_max);
}

/*
 * -o noopen: every request is to be seen under cache=never; the writeback
 * cache keeps the kernel's size of a file (the control files' would stay
 * 0); passthrough's backing file is given only in an OPEN reply.
 */
static int parse_noopen(struct ofs_opts *o, int noopen)
{
	o->noopen = noopen;
	if (noopen && o->cache == OFS_CACHE_NEVER) {
		fprintf(stderr, "osprof-fs: -o noopen needs cache=auto or cache=always (under cache=never every request is to be seen)\n");
		return -EINVAL;
	}
	if (noopen && o->writeback) {
		fprintf(stderr, "osprof-fs: -o noopen and -o writeback exclude each other: with the writeback cache the kernel keeps its own size of the control files, which only an open could refresh\n");
		return -EINVAL;
	}
	if (noopen && o->passthrough != OFS_TR_OFF) {
		fprintf(stderr, "osprof-fs: -o noopen and -o passthrough exclude each other: passthrough's backing file is given only in an OPEN reply\n");
		return -EINVAL;
	}
	return 0;
}

/* -o io_uring_pin: a setting of the io_uring threads, nothing without them. */
static int parse_pin(struct ofs_opts *o, int pin)
{
	o->io_uring_pin = pin;
	if (pin && o->io_uring == OFS_TR_OFF) {
		fprintf(stderr, "osprof-fs: -o io_uring_pin needs -o io_uring (it keeps the io_uring threads on their queue's CPU)\n");
		return -EINVAL;
	}
	return 0;
}

/* Raise the soft open-file limit to the hard one; the default fd cache is half. */
static unsigned default_fd_cache(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return 512;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1u << 20)
		return 1u << 19;
	return rl.rlim_cur / 2 > 16 ? (unsigned)(rl.rlim_cur / 2) : 16;
}

static int parse_values(struct ofs_opts *o, struct raw *r)
{
	int err;

	o->res = 1;
	o->timeline_size = 1000;
	o->fd_cache = default_fd_cache();
	err = get_uint("resolution", r->res, 1, 8, &o->res);
	if (err)
		return err;
	if (!osp_res_valid(o->res))
		return bad("resolution", r->res, "expected 1, 2, 4 or 8");
	/* Each in turn; the first refusal stops (and is said). */
	if ((err = get_uint("timeline", r->timeline, 1, 3600000, &o->timeline_ms)) ||
	    (err = get_uint("timeline_size", r->timeline_size, 1, 10000000, &o->timeline_size)) ||
	    (err = get_uint("fd_cache", r->fd_cache, 16, 1u << 24, &o->fd_cache)) ||
	    (err = parse_cache(o, r)) || (err = parse_misc(o, r)) ||
	    (err = parse_ctl_group(o, r->ctl_group)) ||
	    (err = parse_dump(o, r->dump)) || (err = parse_slow_top(o, r)) ||
	    (err = parse_by(o, r)) ||
	    (err = parse_want("passthrough", r->passthrough, r->passthrough_s, &o->passthrough)) ||
	    (err = parse_want("io_uring", r->io_uring, r->io_uring_s, &o->io_uring)) ||
	    (err = parse_noopen(o, r->noopen)) ||
	    (err = parse_pin(o, r->io_uring_pin)))
		return err;
	/*
	 * Threading by measurement (interleaved warm grep -r on a 2-CPU VM,
	 * fs/ofs_loop.c): with kernel caching, polling workers took 0.57x
	 * the pool's time under always. Under never they took 0.66x for
	 * 1.21x its daemon CPU on /usr/include but 0.88x (within noise) for
	 * 1.48x on the Linux sources, and in the VM test the kernel module's
	 * lower layer counted one read more than the daemon's preads (likely
	 * glibc reading /sys/devices/system/cpu/online when malloc first
	 * makes an arena for a new thread, after the test's reset): there the
	 * pool stays, and -o poll_us=200 is a choice. Under io_uring a
	 * request goes to the entry its queue committed last, most often a
	 * sleeping thread's, not the poller's: polling caught few of a warm
	 * grep's requests and slowed it, and moved nothing on find or
	 * O_DIRECT reads (docs/overhead.md#io_uring-and-polling), so there
	 * the threads only sleep unless asked.
	 */
	o->poll_us = o->cache == OFS_CACHE_NEVER || o->io_uring != OFS_TR_OFF ? 0 : 200;
	return get_uint("poll_us", r->poll_us, 0, 1000000, &o->poll_us);
}

static void raw_free(struct raw *r)
{
	free(r->res);
	free(r->timeline);
	free(r->timeline_size);
	free(r->ctl_name);
	free(r->ctl_group);
	free(r->cache);
	free(r->entry_timeout);
	free(r->attr_timeout);
	free(r->fd_cache);
	free(r->readdirplus);
	free(r->dump);
	free(r->poll_us);
	free(r->layers);
	free(r->lower_source);
	free(r->syscall);
	free(r->slow);
	free(r->slow_size);
	free(r->top_max);
	free(r->by);
	free(r->by_max);
	free(r->passthrough_s);
	free(r->io_uring_s);
}

static int check_dirs(struct ofs_opts *o, const struct fuse_cmdline_opts *c)
{
	int err;

	if (!o->lower || !c->mountpoint) {
		fprintf(stderr, "osprof-fs: expected LOWERDIR and MOUNTPOINT (see --help)\n");
		return -EINVAL;
	}
	o->mountpoint = c->mountpoint; /* realpath'd by libfuse */
	o->lower_abs = realpath(o->lower, NULL);
	if (!o->lower_abs) {
		err = -errno;
		fprintf(stderr, "osprof-fs: lower directory %s: %s\n", o->lower, strerror(-err));
		return err;
	}
	o->mount_abs = strdup(o->mountpoint);
	return o->mount_abs ? 0 : -ENOMEM;
}

int ofs_opts_parse(struct ofs *fs, struct fuse_args *args)
{
	struct ofs_opts *o = &fs->opts;
	struct raw r = { .o = o, .writeback = 0 };
	struct fuse_cmdline_opts c;
	int err;

	if (fuse_opt_parse(args, &r, specs, opt_proc) != 0) {
		raw_free(&r);
		if (r.answer == KEY_HELP)
			usage(args->argv[0]);
		else if (r.answer == KEY_VERSION)
			printf("osprof-fs %s, FUSE library %s\n", OSPROF_VERSION,
			       fuse_pkgversion());
		/* Refused: said by opt_proc or by libfuse. */
		return r.answer ? 1 : -EINVAL;
	}
	err = parse_values(o, &r);
	raw_free(&r);
	if (err)
		return err;
	if (fuse_parse_cmdline(args, &c) != 0)
		return -EINVAL; /* said by libfuse */
	if (c.show_help || c.show_version) {
		/* Ours answer first; these cannot be reached, but be safe. */
		free(c.mountpoint);
		return 1;
	}
	o->foreground = c.foreground;
	o->debug = c.debug;
	o->singlethread = c.singlethread;
	o->clone_fd = c.clone_fd;
	o->max_idle_threads = c.max_idle_threads;
	o->max_threads = c.max_threads;
	return check_dirs(o, &c);
}

/*
 * libfuse 3.14 says what it refused in pieces, from fuse_session_new:
 * "fuse: unknown option(s): `", "%s " for each argument but the last,
 * then "%s'\n" (the arguments as it got them back from its parsers:
 * "-o" and the list, or an option of its own like "--frob"). The pieces
 * are gathered here and said as one line of ours; should a later libfuse
 * word it otherwise, its message passes unchanged.
 */
static struct {
	bool on;         /* inside the message */
	bool cut;        /* its arguments did not fit */
	unsigned n;      /* the options among them */
	size_t len;
	char text[1024]; /* the arguments, blank-separated */
} unknown;

static void unknown_add(const char *arg)
{
	size_t room = sizeof(unknown.text) - unknown.len;
	int w = snprintf(unknown.text + unknown.len, room, "%s%s", unknown.len ? " " : "", arg);

	if (w < 0 || (size_t)w >= room) {
		unknown.cut = true;
		unknown.len = sizeof(unknown.text) - 1;
	} else {
		unknown.len += (size_t)w;
	}
	/* "-o" comes before its list: the list's options are what count. */
	if (strcmp(arg, "-o") != 0)
		for (unknown.n++; *arg; arg++)
			unknown.n += *arg == ',';
}

static void unknown_log(enum fuse_log_level level, const char *fmt, va_list ap)
{
	bool last = strcmp(fmt, "%s'\n") == 0;

	(void)level;
	if (strcmp(fmt, "fuse: unknown option(s): `") == 0) {
		memset(&unknown, 0, sizeof(unknown));
		unknown.on = true;
		return;
	}
	if (!unknown.on || (!last && strcmp(fmt, "%s ") != 0)) {
		vfprintf(stderr, fmt, ap); /* as libfuse's own logger */
		return;
	}
	unknown_add(va_arg(ap, const char *));
	if (!last)
		return;
	unknown.on = false;
	fprintf(stderr, "osprof-fs: unknown option%s %s%s (see osprof-fs --help)\n",
		unknown.n > 1 ? "s" : "", unknown.text, unknown.cut ? "..." : "");
}

void ofs_opts_unknown_said(bool on)
{
	fuse_set_log_func(on ? unknown_log : NULL); /* NULL: libfuse's own again */
}

void ofs_opts_free(struct ofs_opts *o)
{
	free(o->lower);
	free(o->mountpoint);
	free(o->lower_abs);
	free(o->mount_abs);
	free(o->dump);
	free(o->ctl_name);
}

const char *ofs_cache_name(enum ofs_cache c)
{
	return c == OFS_CACHE_ALWAYS ? "always" : c == OFS_CACHE_AUTO ? "auto" : "never";
}

const char *ofs_cpu_source_name(const struct ofs *fs)
{
	const struct ofs_opts *o = &fs->opts;

	return o->vtimers ? "vtimer" : fs->vt ? "ebpf_vtime" : o->cpu_time ? "thread_cputime" : "none";
}

/* osprof/fuse_ops.h's OP rows with pt 1, in its order */
#define PASSED_THROUGH(ID, name, opcode, pt) OSP_IF(pt, name,)
const char *const ofs_passed_through[OFS_PASSED_THROUGH_N] = {
	OSP_FUSE_OPS(PASSED_THROUGH, OSP_SKIP, OSP_SKIP)
};
#undef PASSED_THROUGH
const char *const ofs_kernel_answered[OFS_KERNEL_ANSWERED_N] = {
	"open", "opendir", "create", "flush", "release", "releasedir"
};

/* @n names joined by commas into @l's key @key. */
static int set_list(struct osp_kvlist *l, const char *key, const char *const *names, size_t n)
{
	char list[128] = "";

	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
			 i ? "," : "", names[i]);
	return osp_kv_set_str(l, key, list);
}

int ofs_opts_describe(const struct ofs *fs, struct osp_profile *p)
{
	const struct ofs_opts *o = &fs->opts;
	struct osp_kvlist *l = &p->options;
	int err = 0;

	err |= osp_kv_set_str(l, "cache", ofs_cache_name(o->cache));
	err |= osp_kv_set_num(l, "entry_timeout_s", fs->opts.entry_timeout);
	err |= osp_kv_set_num(l, "attr_timeout_s", fs->opts.attr_timeout);
	/* files passed through are never opened with direct_io */
	err |= osp_kv_set_bool(l, "direct_io", fs->direct_io && !ofs_tr_on(fs->tr, OFS_TR_PASSTHROUGH));
	err |= osp_kv_set_bool(l, "writeback", o->writeback);
	/* Read-only, the kernel keeps atime: no GETATTR after a read. */
	err |= osp_kv_set_bool(l, "read_only", o->read_only);
	err |= osp_kv_set_bool(l, "cpu_time", o->cpu_time);
	if (o->cpu_time)
		err |= osp_kv_set_str(l, "cpu_source", ofs_cpu_source_name(fs));
	err |= osp_kv_set_str(l, "threads", o->singlethread ? "single" :
					     o->poll_us ? "poll" : "pool");
	if (!o->singlethread && o->poll_us)
		err |= osp_kv_set_u64(l, "poll_us", o->poll_us);
	err |= osp_kv_set_str(l, "readdirplus", o->readdirplus < 0 ? "auto" :
						 o->readdirplus ? "yes" : "no");
	err |= osp_kv_set_str(l, "transport", ofs_tr_on(fs->tr, OFS_TR_IO_URING) ? "io_uring" : "dev");
	if (ofs_tr_on(fs->tr, OFS_TR_IO_URING) && o->io_uring_pin)
		err |= osp_kv_set_bool(l, "io_uring_pin", true);
	err |= osp_kv_set_bool(l, "passthrough", ofs_tr_on(fs->tr, OFS_TR_PASSTHROUGH));
	if (ofs_tr_on(fs->tr, OFS_TR_PASSTHROUGH)) {
		/* what this layer does not see ("read,write"), and where it is */
		err |= set_list(l, "passed_through", ofs_passed_through, OFS_PASSED_THROUGH_N);
		err |= osp_kv_set_str(l, "passed_through_layer", OSP_LAYER_SYSCALL);
	}
	err |= osp_kv_set_bool(l, "noopen", o->noopen);
	if (o->noopen)
		/* what neither this layer nor fuse sees after the first */
		err |= set_list(l, "kernel_answered", ofs_kernel_answered, OFS_KERNEL_ANSWERED_N);
	if (o->by != OFS_BY_NONE) {
		err |= osp_kv_set_str(l, "by", ofs_by_key_names[o->by]);
		err |= osp_kv_set_u64(l, "by_max", o->by_max);
	}
	return err ? -ENOMEM : 0;
}
