// SPDX-License-Identifier: MIT
/*
 * osprof-randread: the OSprof paper's random-read workload. N processes each
 * open the same file (their own open file description, as separate programs
 * would) and repeatedly pread SIZE bytes at a random SIZE-aligned offset,
 * optionally with O_DIRECT, for --ops reads each or for --seconds. Each read
 * is timed with CLOCK_MONOTONIC into the reader's latency histogram, which
 * lives in shared memory; the parent merges them and prints the operations
 * done, the throughput and the latency percentiles. The readers open the
 * file and fill their buffer before a barrier (a pipe the parent closes once
 * all are forked), so start-up is not measured.
 */
#include "orr.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "osp_opt.h"
#include "osprof/clock.h"
#include "osprof/parse.h"

#define EXIT_USAGE 2
#define DIRECT_ALIGN 4096	/* buffer alignment for O_DIRECT */
#define DIRECT_SIZE_UNIT 512	/* the smallest logical block size */

struct orr_opts {
	const char *path;
	unsigned procs;		/* readers */
	uint64_t size_bytes;	/* per read, also the offset alignment */
	bool direct;
	uint64_t ops;		/* reads per reader, or 0: run for seconds */
	double seconds;
	bool seconds_given;	/* --seconds, which excludes --ops */
	uint64_t seed;
	uint64_t file_bytes;	/* found when validating the file */
};

/* One reader's outcome, in shared memory. */
struct reader {
	uint64_t ops;
	int open_err;		/* errno of the reader's open, or 0 */
	int err;		/* errno of the failed read, or -1: short read */
	uint64_t err_offset;
	uint64_t start_ns;
	uint64_t end_ns;
	struct orr_lat lat;
};

static const char usage_text[] =
"Usage: osprof-randread FILE [--procs N] [--size BYTES] [--direct]\n"
"                            [--ops N | --seconds S] [--seed S]\n"
"\n"
"The OSprof paper's random-read workload: N processes each pread SIZE bytes\n"
"at random SIZE-aligned offsets of FILE, then it prints the operations done,\n"
"the throughput and the read latency percentiles (p50 p90 p99 p99.9 max).\n"
"\n"
"  -p, --procs N      reader processes (default 2)\n"
"  -s, --size BYTES   bytes per read, and offset alignment (default 512;\n"
"                     suffixes k, m, g multiply by 1024^1..3)\n"
"  -d, --direct       open with O_DIRECT (SIZE must be a multiple of 512, or\n"
"                     of the file system's block size; buffers are 4096-aligned)\n"
"  -n, --ops N        reads per process (default: run for --seconds)\n"
"  -t, --seconds S    run for S seconds (default 5 unless --ops)\n"
"  -r, --seed S       offsets are a function of S + the reader's index\n"
"                     (default 1): the same seed reads the same offsets\n"
"  -h, --help         this help\n"
"  -V, --version      the version\n"
"\n"
"Exit status: 0, 1 when a read failed, 2 for a bad argument or file.\n"
"\n"
"Examples:\n"
"  osprof-randread /mnt/p/big --seconds 10\n"
"  osprof-randread /data/big --procs 1 --size 4k --direct --ops 100000\n";

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("osprof-randread: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_USAGE);
}

/* --seconds S: its own words for any refusal. */
static int opt_seconds(const struct osp_opt *opt, const char *arg)
{
	struct orr_opts *o = opt->dst;

	if (osp_parse_double(arg, 0.001, 86400, &o->seconds) < 0)
		die("--seconds: '%s' is not a number in [0.001, 86400]", arg);
	o->seconds_given = true;
	return 0;
}

static void parse_args(int argc, char **argv, struct orr_opts *o)
{
	const struct osp_opt opts[] = {
		{ 'p', "procs", OSP_OPT_UINT, &o->procs, .umin = 1, .umax = 1024 },
		{ 's', "size", OSP_OPT_SIZE, &o->size_bytes, .umin = 1, .umax = 1ULL << 30 },
		{ 'd', "direct", OSP_OPT_TRUE, &o->direct },
		{ 'n', "ops", OSP_OPT_U64, &o->ops, .umin = 1, .umax = UINT64_MAX / 2 },
		{ 't', "seconds", OSP_OPT_CALL, o, .call = opt_seconds },
		{ 'r', "seed", OSP_OPT_U64, &o->seed, .umin = 0, .umax = UINT64_MAX },
		{ 'h', "help", OSP_OPT_PRINT, .text = usage_text },
		{ 'V', "version", OSP_OPT_PRINT, .text = "osprof-randread " OSPROF_VERSION "\n" },
		{ 0 },
	};
	struct osp_opt_fail f;
	char why[256];
	int rc;

	*o = (struct orr_opts){ .procs = 2, .size_bytes = 512, .seconds = 5.0,
				.seed = 1 };
	rc = osp_opt_parse(opts, "", argc, argv, &f);
	if (rc > 0) /* --help or --version, printed */
		exit(0);
	if (rc && !f.opt) {
		fprintf(stderr, "Try 'osprof-randread --help' for more information.\n");
		exit(EXIT_USAGE);
	}
	if (rc) {
		osp_opt_why(&f, why, sizeof(why));
		die("%s", why);
	}
	if (optind != argc - 1)
		die(optind == argc ? "no FILE given" : "one FILE only, got '%s' too",
		    argv[argc - 1]);
	o->path = argv[optind];
	if (o->seconds_given && o->ops)
		die("give --ops or --seconds, not both");
	if (o->direct && o->size_bytes % DIRECT_SIZE_UNIT)
		die("--direct: --size %" PRIu64 " is not a multiple of %d bytes",
		    o->size_bytes, DIRECT_SIZE_UNIT);
}

static int open_file(const struct orr_opts *o)
{
	return open(o->path, O_RDONLY | O_CLOEXEC | (o->direct ? O_DIRECT : 0));
}

/* Check the file exists, is readable, large enough; find its size. */
static void check_file(struct orr_opts *o)
{
	struct stat st;
	int fd = open_file(o);

	if (fd < 0 && errno == EINVAL && o->direct)
		die("%s: its file system does not support O_DIRECT", o->path);
	if (fd < 0)
		die("%s: %s", o->path, strerror(errno));
	if (fstat(fd, &st) < 0)
		die("%s: %s", o->path, strerror(errno));
	if (S_ISREG(st.st_mode))
		o->file_bytes = (uint64_t)st.st_size;
	else if (!S_ISBLK(st.st_mode) || ioctl(fd, BLKGETSIZE64, &o->file_bytes) < 0)
		die("%s: not a regular file or a block device", o->path);
	close(fd);
	if (o->file_bytes < o->size_bytes)
		die("%s: %" PRIu64 " bytes, smaller than --size %" PRIu64, o->path,
		    o->file_bytes, o->size_bytes);
}

static bool reader_done(const struct orr_opts *o, uint64_t done, uint64_t now,
			uint64_t deadline)
{
	return o->ops ? done >= o->ops : now >= deadline;
}

/* The reads of one process: never returns. */
static void reader_main(const struct orr_opts *o, unsigned index, int go_fd,
			struct reader *me)
{
	struct orr_rng rng;
	uint64_t blocks = o->file_bytes / o->size_bytes;
	void *buf = NULL;
	char c;
	int fd = open_file(o);

	if (fd < 0 || posix_memalign(&buf, DIRECT_ALIGN, o->size_bytes) != 0) {
		me->open_err = fd < 0 ? errno : ENOMEM;
		_exit(1);
	}
	memset(buf, 0, o->size_bytes); /* fault the pages in before timing */
	orr_rng_seed(&rng, o->seed + index);
	orr_lat_init(&me->lat);
	while (read(go_fd, &c, 1) < 0 && errno == EINTR)
		;
	uint64_t now = osp_clock_mono_ns();
	uint64_t deadline = now + (uint64_t)(o->seconds * 1e9);
	me->start_ns = now;
	while (!reader_done(o, me->ops, now, deadline)) {
		uint64_t off = orr_rng_below(&rng, blocks) * o->size_bytes;
		uint64_t t0 = osp_clock_mono_ns();
		ssize_t n = pread(fd, buf, o->size_bytes, (off_t)off);
		now = osp_clock_mono_ns();
		if (n != (ssize_t)o->size_bytes) {
			me->err = n < 0 ? errno : -1;
			me->err_offset = off;
			break;
		}
		orr_lat_record(&me->lat, now - t0);
		me->ops++;
	}
	me->end_ns = now;
	_exit(me->err ? 1 : 0);
}

/* Fork the readers, release them together, wait for all. */
static int run_readers(const struct orr_opts *o, struct reader *rd)
{
	int go[2], failed = 0;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	for (unsigned i = 0; i < o->procs; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "osprof-randread: fork: %s\n", strerror(errno));
			failed = 1;
			break;
		}
		if (pid == 0) {
			close(go[1]);
			reader_main(o, i, go[0], &rd[i]);
		}
	}
	close(go[0]);
	close(go[1]); /* EOF: every reader starts */
	for (;;) {
		int st;
		if (wait(&st) < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: all reaped */
		}
		if (st != 0)
			failed = 1;
	}
	return failed ? -EIO : 0;
}

/* A latency with a unit that keeps three or four digits. */
static const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	return buf;
}

static void report_errors(const struct orr_opts *o, const struct reader *rd)
{
	for (unsigned i = 0; i < o->procs; i++) {
		if (rd[i].open_err)
			fprintf(stderr, "osprof-randread: reader %u: %s: %s\n", i,
				o->path, strerror(rd[i].open_err));
		if (!rd[i].err)
			continue;
		if (rd[i].err < 0)
			fprintf(stderr, "osprof-randread: reader %u: short read of %s "
				"at offset %" PRIu64 "\n", i, o->path, rd[i].err_offset);
		else
			fprintf(stderr, "osprof-randread: reader %u: pread %s at offset "
				"%" PRIu64 ": %s%s\n", i, o->path, rd[i].err_offset,
				strerror(rd[i].err), rd[i].err == EINVAL && o->direct ?
				" (O_DIRECT: try a --size that is a multiple of the "
				"file system's block size, e.g. 4096)" : "");
	}
}

static void report(const struct orr_opts *o, const struct reader *rd)
{
	static struct orr_lat all; /* 15 KiB: not on the stack */
	uint64_t first = UINT64_MAX, last = 0;
	char b[6][32];

	orr_lat_init(&all);
	for (unsigned i = 0; i < o->procs; i++) {
		orr_lat_merge(&all, &rd[i].lat);
		first = rd[i].start_ns < first ? rd[i].start_ns : first;
		last = rd[i].end_ns > last ? rd[i].end_ns : last;
	}
	double secs = (double)(last - first) / 1e9;
	printf("osprof-randread: %s (%" PRIu64 " bytes), %u process%s, %" PRIu64
	       "-byte reads at random aligned offsets, %s, seed %" PRIu64 "\n",
	       o->path, o->file_bytes, o->procs, o->procs == 1 ? "" : "es",
	       o->size_bytes, o->direct ? "O_DIRECT" : "buffered", o->seed);
	printf("operations: %" PRIu64 "\n", all.count);
	printf("elapsed: %.6f s\n", secs);
	printf("throughput: %.0f ops/s, %.2f MiB/s\n", all.count / secs,
	       (double)all.count * (double)o->size_bytes / secs / (1024.0 * 1024));
	printf("latency: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s, mean %s\n",
	       fmt_ns(b[0], 32, orr_lat_percentile(&all, 50)),
	       fmt_ns(b[1], 32, orr_lat_percentile(&all, 90)),
	       fmt_ns(b[2], 32, orr_lat_percentile(&all, 99)),
	       fmt_ns(b[3], 32, orr_lat_percentile(&all, 99.9)),
	       fmt_ns(b[4], 32, all.max_ns),
	       fmt_ns(b[5], 32, all.count ? all.sum_ns / all.count : 0));
}

int main(int argc, char **argv)
{
	struct orr_opts o;

	parse_args(argc, argv, &o);
	check_file(&o);
	size_t len = o.procs * sizeof(struct reader);
	struct reader *rd = mmap(NULL, len, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rd == MAP_FAILED) {
		fprintf(stderr, "osprof-randread: mmap: %s\n", strerror(errno));
		return 1;
	}
	int rc = run_readers(&o, rd);
	report_errors(&o, rd);
	if (rc == 0)
		report(&o, rd);
	munmap(rd, len);
	if (fflush(stdout) != 0 || ferror(stdout))
		return 1;
	return rc < 0 ? 1 : 0;
}
