// SPDX-License-Identifier: MIT
/*
 * `osprof-report top MNT`: what bcc's filetop shows, from a mount of
 * osprof-fs with -o top: every --interval seconds it reads
 * MNT/.osprof/top.json and shows the files and the processes that took
 * the most time in the interval (the difference since the last read, by
 * path and by pid; the first screen shows the totals so far), sorted by
 * time. On a terminal it redraws the screen and quits on q (the terminal
 * is put in non-canonical mode and restored on every exit, also on
 * SIGINT and SIGTERM); elsewhere it writes one block after another.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "orp.h"
#include "osprof/escape.h"
#include "osprof/format.h"

#define CMD "top"

struct top_args {
	const char *mnt;
	double interval_s;
	uint64_t count;     /* refreshes, 0: until q or a signal */
	uint64_t top;       /* rows per table */
};

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void help(void)
{
	printf("Usage: " ORP_PROG " top MNT [--interval S] [--count N] [--top N]\n"
	       "Show, like filetop, the files and processes that took the most time in\n"
	       "a mount of osprof-fs with top on (-o top, or 'top on' in its ctl): every\n"
	       "S seconds, the requests, bytes read and written and total time of each\n"
	       "since the last refresh (the first screen: since mount or reset), sorted\n"
	       "by time, and the p99 latency since mount or reset. Quit with q or Ctrl-C.\n\n"
	       "  -i, --interval S  seconds between refreshes (default 1)\n"
	       "  -c, --count N     stop after N refreshes (default: never)\n"
	       "  -n, --top N       rows per table (default 10)\n"
	       "  -h, --help        this help\n\n"
	       "On a terminal the screen is redrawn; otherwise blocks follow each other.\n\n"
	       "Examples:\n"
	       "  osprof-fs /data /mnt/p -o top && " ORP_PROG " top /mnt/p\n"
	       "  " ORP_PROG " top /mnt/p --interval 5 --count 12 > top.log\n");
}

static int parse_args(int argc, char **argv, struct top_args *a)
{
	const struct osp_opt opts[] = {
		{ 'i', "interval", OSP_OPT_DOUBLE, &a->interval_s, .dmin = 0.01, .dmax = 86400 },
		{ 'c', "count", OSP_OPT_U64, &a->count, .umin = 1, .umax = UINT32_MAX },
		{ 'n', "top", OSP_OPT_U64, &a->top, .umin = 1, .umax = 100000 },
		{ 'h', "help", OSP_OPT_STOP },
		{ 0 },
	};
	int rc = orp_opts_parse(CMD, opts, argc, argv, help);

	if (rc)
		return rc;
	if (optind != argc - 1) {
		orp_usage_error(CMD, "%s", optind >= argc ? "no MNT given" : "one MNT only");
		return -EINVAL;
	}
	a->mnt = argv[optind];
	return 0;
}

/* MNT/.osprof/top.json now, parsed. 0, or -errno said on stderr. */
static int read_doc(const char *mnt, struct orp_top_doc *d)
{
	char path[4096], err[ORP_ERRLEN], *text = NULL;
	size_t len = 0;
	int r;

	if ((size_t)snprintf(path, sizeof(path), "%s/.osprof/top.json", mnt) >= sizeof(path)) {
		orp_error("%s: path too long", mnt);
		return -ENAMETOOLONG;
	}
	r = osp_read_path(path, &text, &len);
	if (r == -ENOTDIR || r == -ENOENT) {
		orp_error("%s: not an osprof-fs mount (top reads MNT/.osprof/top.json "
			  "of a mount made with -o top)", mnt);
		return r;
	}
	if (r == -EACCES) {
		orp_error("%s: " ORP_NAMES_PRIVATE, path);
		return r;
	}
	if (r) {
		orp_error("%s: %s", path, osp_read_error(r));
		return r;
	}
	r = orp_top_parse(text, len, d, err, sizeof(err));
	free(text);
	if (r) {
		orp_error("%s: %s", path, err);
	} else if (!d->enabled) {
		orp_error("%s: the mount's top view is off (mount it with -o top, or write 'top on' "
			  "to its ctl)", path);
		r = -ENOENT;
	}
	return r;
}

/* One row of the interval: @cur less what @prev had of the same key. */
static void row_delta(struct orp_top_entry *row, const struct orp_top_entry *cur,
		      const struct orp_top_entry *prev)
{
	*row = *cur;
	/* A key seen again after a reset starts from nothing. */
	if (!prev || prev->requests > cur->requests || prev->total_ns > cur->total_ns)
		return;
	row->requests -= prev->requests;
	row->read_bytes -= prev->read_bytes <= cur->read_bytes ? prev->read_bytes : 0;
	row->write_bytes -= prev->write_bytes <= cur->write_bytes ? prev->write_bytes : 0;
	row->total_ns -= prev->total_ns;
}

/* Orders of a table's keys: a file by its path, a process by its pid. */
static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct orp_top_entry *)a)->name,
		      ((const struct orp_top_entry *)b)->name);
}

static int by_pid(const void *a, const void *b)
{
	const struct orp_top_entry *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* @key's entry in the previous snapshot, sorted by sort_keys: a search,
 * not a scan per row (65,536 rows a table at most). */
static const struct orp_top_entry *find_prev(const struct orp_top_entry *e, size_t n,
					     const struct orp_top_entry *key, bool procs)
{
	return n ? bsearch(key, e, n, sizeof(*e), procs ? by_pid : by_path) : NULL;
}

/* Sort @d's tables by key for find_prev once it is the previous one. */
static void sort_keys(struct orp_top_doc *d)
{
	qsort(d->files, d->nfiles, sizeof(*d->files), by_path);
	qsort(d->procs, d->nprocs, sizeof(*d->procs), by_pid);
}

static int by_time(const void *a, const void *b)
{
	const struct orp_top_entry *x = a, *y = b;

	return x->total_ns < y->total_ns ? 1 : x->total_ns > y->total_ns ? -1 : 0;
}

/* One table of the interval: 0 or -ENOMEM. */
static int show_table(const struct top_args *a, bool procs, const struct orp_top_doc *cur,
		      const struct orp_top_doc *prev)
{
	const struct orp_top_entry *e = procs ? cur->procs : cur->files;
	size_t n = procs ? cur->nprocs : cur->nfiles, shown = 0;
	struct orp_top_entry *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		row_delta(&rows[i], &e[i],
			  prev ? find_prev(procs ? prev->procs : prev->files,
					   procs ? prev->nprocs : prev->nfiles, &e[i], procs) : NULL);
	qsort(rows, n, sizeof(*rows), by_time);
	if (procs)
		printf("%7s %-16s %6s ", "PID", "COMM", "UID");
	printf("%8s %12s %12s %11s %10s%s\n", "REQS", "READ_B", "WRITE_B", "TIME(ms)",
	       "P99(ms)", procs ? "" : " FILE");
	for (size_t i = 0; i < n && shown < a->top; i++) {
		const struct orp_top_entry *r = &rows[i];

		if (!r->requests)
			continue; /* idle in this interval */
		if (procs) {
			printf("%7llu ", (unsigned long long)r->pid);
			osp_esc_text_col(stdout, r->name, 16);
			printf(" %6llu ", (unsigned long long)r->uid);
		}
		printf("%8llu %12llu %12llu %11.3f %10.3f", (unsigned long long)r->requests,
		       (unsigned long long)r->read_bytes, (unsigned long long)r->write_bytes,
		       (double)r->total_ns / 1e6, (double)r->p99_ns / 1e6);
		if (!procs) {
			putchar(' ');
			osp_esc_text(stdout, r->name);
		}
		putchar('\n');
		shown++;
	}
	free(rows);
	return 0;
}

/* One refresh: 0 or -ENOMEM. */
static int show(const struct top_args *a, bool tty, const struct orp_top_doc *cur,
		const struct orp_top_doc *prev)
{
	time_t now = time(NULL);
	char hms[16];
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	if (tty)
		fputs("\033[H\033[2J", stdout);
	fputs("osprof top ", stdout);
	osp_esc_text(stdout, a->mnt);
	printf("  %s  %s\n\n", hms, prev ? "last interval" : "totals since mount or reset");
	if (show_table(a, false, cur, prev))
		return -ENOMEM;
	putchar('\n');
	if (show_table(a, true, cur, prev))
		return -ENOMEM;
	if (!tty)
		putchar('\n');
	fflush(stdout);
	return 0;
}

/*
 * Wait @s seconds for a key on the terminal @tty_in (-1: none). True when
 * it is time to quit: q, or a signal.
 */
static bool wait_quit(double s, int tty_in)
{
	struct timespec end, now;
	char c;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += (time_t)s;
	end.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	while (!stop_sig) {
		struct pollfd p = { .fd = tty_in, .events = POLLIN };
		long ms;

		clock_gettime(CLOCK_MONOTONIC, &now);
		ms = (long)(end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (ms <= 0)
			return false;
		if (poll(&p, tty_in >= 0 ? 1 : 0, (int)ms) > 0 && read(tty_in, &c, 1) == 1 &&
		    (c == 'q' || c == 'Q'))
			return true;
	}
	return true;
}

int orp_cmd_top(int argc, char **argv)
{
	struct top_args a = { .interval_s = 1.0, .top = 10 };
	struct orp_top_doc docs[2] = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct termios saved, raw;
	bool tty = isatty(STDOUT_FILENO), raw_on = false;
	int r, ret = ORP_EXIT_OK;
	uint64_t shown = 0;

	r = parse_args(argc, argv, &a);
	if (r)
		return r > 0 ? ORP_EXIT_OK : ORP_EXIT_ERROR;
	/* No SA_RESTART: a signal ends the wait at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		raw_on = tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0;
	}
	for (;;) {
		struct orp_top_doc *cur = &docs[shown % 2], *prev = shown ? &docs[(shown - 1) % 2] : NULL;

		orp_top_doc_free(cur);
		if (read_doc(a.mnt, cur) != 0) {
			ret = ORP_EXIT_ERROR;
			break;
		}
		if (show(&a, tty, cur, prev)) {
			orp_error("out of memory");
			ret = ORP_EXIT_ERROR;
			break;
		}
		sort_keys(cur); /* the next refresh's previous */
		if (++shown == a.count || wait_quit(a.interval_s, raw_on ? STDIN_FILENO : -1))
			break;
	}
	if (raw_on)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	orp_top_doc_free(&docs[0]);
	orp_top_doc_free(&docs[1]);
	return ret;
}
