// SPDX-License-Identifier: MIT
/*
 * The control directory (.osprof by default): a virtual directory at the
 * mount root, answered by lookup but absent from readdir, whose files are
 * generated when opened (one consistent snapshot however they are read)
 * and served with direct I/O. With -o noopen no OPEN comes, nor direct
 * I/O: each lookup of a file gives a snapshot inode of its own (struct
 * ctl_snap), whose pages the kernel may cache, since they never change.
 * `ctl` takes commands, one a line; a write
 * with any bad line fails with EINVAL and changes nothing. Only the
 * mounting user or root may write it. The files that name files,
 * processes or users (top, slow, by) only they may read, and the members
 * of -o ctl_group (may_read): a user who may not list a directory must
 * not learn its files' names here. Nothing here is profiled.
 *
 * Some files exist only at times: the kernel-side layers are there while
 * their eBPF programs are loaded (ofs_bpf.c) or /proc/osprof is
 * (ofs_kmod.c), the value profiles with -o values (ofs_values.c). Each
 * entry may name a presence predicate; an absent entry is neither listed
 * nor found, and keeps its inode number and readdir offset, so the others
 * never move.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "osprof/format.h"
#include "osprof/metrics.h"
#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_by.h"
#include "ofs_ctl.h"
#include "ofs_ctl_cmd.h"
#include "ofs_inode.h"
#include "ofs_iofd.h"
#include "ofs_kmod.h"
#include "ofs_layer.h"
#include "ofs_list.h"
#include "ofs_lock.h"
#include "ofs_opts.h"
#include "ofs_profile.h"
#include "ofs_slow.h"
#include "ofs_top.h"
#include "ofs_tr.h"
#include "ofs_values.h"

#define CTL_DIR_INO 2

/* Write the file's content for argument @arg (the entry's) to @out. */
typedef int (*ctl_gen_fn)(struct ofs *fs, const char *arg, FILE *out);
/* True when the file exists now. */
typedef bool (*ctl_present_fn)(struct ofs *fs, const char *arg);

struct ctl_entry {
	const char *name;
	mode_t mode;             /* CTL_NAMES: see ctl_mode */
	ctl_gen_fn gen;
	const char *arg;         /* passed to gen and present */
	ctl_present_fn present;  /* NULL: always there */
};

/*
 * An open control file: its generated content. The kernel takes a reply's
 * data during the writev that sends it, so the reader can close the file
 * and release can run before the replying thread is back from writev:
 * the open file and each read in flight hold a reference.
 */
struct ctl_buf {
	char *data;
	size_t len;
	unsigned refs; /* atomic */
	struct ofs_list link; /* on ofs_ctl.open while open */
};

static void ctl_buf_put(struct ctl_buf *b)
{
	if (__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		free(b->data);
		free(b);
	}
}

/* The files, in listing order; new ones go before the sentinel. */
enum ctl_file {
	CF_STATS,
	CF_STATS_JSON,
	CF_METRICS,
	CF_TIMELINE,
	CF_CTL,
	CF_LOWER,
	CF_LOWER_JSON,
	CF_BLOCK,
	CF_BLOCK_JSON,
	CF_IRQ,
	CF_IRQ_JSON,
	CF_FUSE,
	CF_FUSE_JSON,
	CF_SYSCALL,
	CF_SYSCALL_JSON,
	CF_SLOW,
	CF_SLOW_JSON,
	CF_TOP,
	CF_TOP_JSON,
	CF_VALUES,
	CF_VALUES_JSON,
	CF_BY,
	CF_BY_JSON,
	CF__COUNT
};

/*
 * -o noopen: no OPEN comes, so there is no open file to hold a snapshot,
 * and the kernel reads the files through its page cache, which every
 * reader of an inode shares. So each LOOKUP of a control file (the entry
 * times out at once: every path walk, each open's, looks up anew) gets a
 * node id of its own, OFS_CTL_SNAP_INO + its slot here: a snapshot
 * inode. Its content is made at its first GETATTR or READ and never
 * changes after, so readers that overlap each read their own whole
 * snapshot, and the kernel's cached pages of it stay right; it is freed
 * when the kernel forgets the node id.
 */
struct ctl_snap {
	uint64_t nlookup;      /* the kernel's lookups of it; 0: a free slot */
	uint64_t gen;          /* allocations of the slot, for snap_buf */
	unsigned entry;        /* its file: an index of entries[] */
	struct timespec made;  /* its lookup: its mtime */
	struct ctl_buf *b;     /* one reference; NULL until first needed */
};

struct ofs_ctl {
	pthread_mutex_t mu; /* serialises ctl commands; guards open */
	pthread_mutex_t snap_mu;              /* guards the rest */
	struct ctl_snap snap[OFS_CTL_SNAPS];
	unsigned snap_next;                   /* where the search for a free slot starts */
	size_t last_len[CF__COUNT];           /* each file's last snapshot's size */
	/*
	 * The open files (struct ctl_buf), freed at teardown if the kernel
	 * never released them (the daemon was stopped while they were open).
	 */
	struct ofs_list open;
	char last_error[160]; /* why the last refused batch was refused */
};

static void ctl_buf_link(struct ofs_ctl *c, struct ctl_buf *b)
{
	pthread_mutex_lock(&c->mu);
	ofs_list_add(&c->open, &b->link);
	pthread_mutex_unlock(&c->mu);
}

/* The file is closed: drop the open file's reference. */
static void ctl_buf_close(struct ofs_ctl *c, struct ctl_buf *b)
{
	pthread_mutex_lock(&c->mu);
	ofs_list_del(&b->link);
	pthread_mutex_unlock(&c->mu);
	ctl_buf_put(b);
}

static int gen_profile(struct ofs *fs, const char *arg, FILE *out);
static int gen_ctl(struct ofs *fs, const char *arg, FILE *out);

/*
 * The mode of the files that name files, processes or users (the top
 * tables, the slow log, the per-value profiles of -o by): only the
 * mounting user and root may read them, and -o ctl_group's members when
 * it is given (ctl_mode). The others' counts and histograms name nothing
 * and stay readable by everyone, as the mount's own files are.
 */
#define CTL_NAMES 0440

/* Inode numbers are CTL_DIR_INO + 1 + index: fixed, present or not. */
static const struct ctl_entry entries[] = {
	[CF_STATS] = { "stats", 0444, gen_profile, "stats", NULL },
	[CF_STATS_JSON] = { "stats.json", 0444, gen_profile, "json", NULL },
	[CF_METRICS] = { "metrics", 0444, gen_profile, "metrics", NULL },
	[CF_TIMELINE] = { "timeline", 0444, gen_profile, "timeline", NULL },
	[CF_CTL] = { "ctl", 0644, gen_ctl, NULL, NULL },
	[CF_LOWER] = { OSP_LAYER_LOWER, 0444, ofs_layer_gen_text, OSP_LAYER_LOWER, ofs_layer_present },
	[CF_LOWER_JSON] = { OSP_LAYER_LOWER ".json", 0444, ofs_layer_gen_json, OSP_LAYER_LOWER, ofs_layer_present },
	[CF_BLOCK] = { OSP_LAYER_BLOCK, 0444, ofs_layer_gen_text, OSP_LAYER_BLOCK, ofs_layer_present },
	[CF_BLOCK_JSON] = { OSP_LAYER_BLOCK ".json", 0444, ofs_layer_gen_json, OSP_LAYER_BLOCK, ofs_layer_present },
	[CF_IRQ] = { OSP_LAYER_IRQ, 0444, ofs_layer_gen_text, OSP_LAYER_IRQ, ofs_layer_present },
	[CF_IRQ_JSON] = { OSP_LAYER_IRQ ".json", 0444, ofs_layer_gen_json, OSP_LAYER_IRQ, ofs_layer_present },
	[CF_FUSE] = { OSP_LAYER_FUSE, 0444, ofs_layer_gen_text, OSP_LAYER_FUSE, ofs_bpf_present },
	[CF_FUSE_JSON] = { OSP_LAYER_FUSE ".json", 0444, ofs_layer_gen_json, OSP_LAYER_FUSE, ofs_bpf_present },
	[CF_SYSCALL] = { OSP_LAYER_SYSCALL, 0444, ofs_layer_gen_text, OSP_LAYER_SYSCALL, ofs_bpf_present },
	[CF_SYSCALL_JSON] = { OSP_LAYER_SYSCALL ".json", 0444, ofs_layer_gen_json, OSP_LAYER_SYSCALL, ofs_bpf_present },
	[CF_SLOW] = { "slow", CTL_NAMES, ofs_slow_gen, "text", NULL },
	[CF_SLOW_JSON] = { "slow.json", CTL_NAMES, ofs_slow_gen, "json", NULL },
	[CF_TOP] = { "top", CTL_NAMES, ofs_top_gen, "text", NULL },
	[CF_TOP_JSON] = { "top.json", CTL_NAMES, ofs_top_gen, "json", NULL },
	[CF_VALUES] = { "values", 0444, ofs_values_gen_text, NULL, ofs_values_present },
	[CF_VALUES_JSON] = { "values.json", 0444, ofs_values_gen_json, NULL, ofs_values_present },
	[CF_BY] = { "by", CTL_NAMES, ofs_by_gen, "text", ofs_by_present },
	[CF_BY_JSON] = { "by.json", CTL_NAMES, ofs_by_gen, "json", ofs_by_present },
};
#define NENTRIES (sizeof(entries) / sizeof(entries[0]))
_Static_assert(NENTRIES == CF__COUNT, "an entry for every control file");
_Static_assert(CTL_DIR_INO + NENTRIES < OFS_CTL_SNAP_INO, "fixed control inodes stay below the snapshots'");
_Static_assert(OFS_CTL_SLOW_MAX_NS == OFS_SLOW_MAX_NS, "ctl's slow bound is -o slow's");

static bool entry_present(struct ofs *fs, const struct ctl_entry *e)
{
	return !e->present || e->present(fs, e->arg);
}

/* @ino's snapshot slot (ctl_snap), or NULL when it is no snapshot inode. */
static struct ctl_snap *snap_of(struct ofs *fs, fuse_ino_t ino)
{
	if (ino < OFS_CTL_SNAP_INO || ino >= OFS_CTL_INO_END)
		return NULL;
	return &fs->ctl->snap[ino - OFS_CTL_SNAP_INO];
}

/* The entry of @ino, present or not, a snapshot inode's too; NULL for the
 * directory and for a snapshot inode forgotten (which the kernel does
 * not name again). */
static const struct ctl_entry *entry_of(struct ofs *fs, fuse_ino_t ino)
{
	struct ctl_snap *sn = snap_of(fs, ino);
	const struct ctl_entry *e = NULL;

	if (ino > CTL_DIR_INO && ino <= CTL_DIR_INO + NENTRIES)
		return &entries[ino - CTL_DIR_INO - 1];
	if (sn) {
		pthread_mutex_lock(&fs->ctl->snap_mu);
		if (sn->nlookup)
			e = &entries[sn->entry];
		pthread_mutex_unlock(&fs->ctl->snap_mu);
	}
	return e;
}

/* Whether @ino is ctl itself, or a snapshot inode of it. */
static bool is_ctl_file(struct ofs *fs, fuse_ino_t ino)
{
	return entry_of(fs, ino) == &entries[CF_CTL];
}

/* The fs-layer profile in the form @arg names: stats, json, metrics, timeline. */
/*
 * With passthrough, the human view says which operations no longer reach
 * this layer, and where they are timed instead (stats.json says it in
 * its options: passed_through, passed_through_layer).
 */
static int passed_through_note(struct ofs *fs, FILE *out)
{
	bool timed = ofs_layer_present(fs, OSP_LAYER_SYSCALL);

	if (!ofs_tr_on(fs->tr, OFS_TR_PASSTHROUGH))
		return 0;
	fprintf(out, "\npassthrough: the kernel does these on the lower files itself, not through\nthis daemon:\n");
	for (size_t i = 0; i < OFS_PASSED_THROUGH_N; i++)
		fprintf(out, "%-12s passed through: %s\n", ofs_passed_through[i],
			timed ? "its profile is in layer syscall (.osprof/syscall)"
			      : "its profile would be in layer syscall, which is not loaded");
	return ferror(out) ? -EIO : 0;
}

/* With noopen, the human view says which operations the kernel answers. */
static int noopen_note(FILE *out)
{
	fprintf(out, "\nnoopen: the kernel answers these itself (the first of each was answered\nENOSYS here); neither this layer nor layer fuse sees them:\n");
	for (size_t i = 0; i < OFS_KERNEL_ANSWERED_N; i++)
		fprintf(out, "%s%s", i ? " " : "", ofs_kernel_answered[i]);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

static int gen_profile(struct ofs *fs, const char *arg, FILE *out)
{
	struct osp_profile *p = ofs_profile_build(fs);
	int err;

	if (!p)
		return -ENOMEM;
	if (strcmp(arg, "json") == 0)
		err = osp_write_json(out, p);
	else if (strcmp(arg, "metrics") == 0)
		err = osp_write_metrics(out, &(struct osp_om_src){ .p = p }, 1,
					OSP_OM_OPENMETRICS);
	else if (strcmp(arg, "timeline") == 0)
		err = osp_write_timeline(out, p);
	else
		err = osp_write_stats(out, p);
	if (!err && strcmp(arg, "stats") == 0)
		err = passed_through_note(fs, out);
	if (!err && strcmp(arg, "stats") == 0 && fs->opts.noopen)
		err = noopen_note(out);
	osp_profile_free(p);
	return err;
}

static int gen_ctl(struct ofs *fs, const char *arg, FILE *out)
{
	uint64_t inodes, fds, granted, cancelled, refused, underflows, slow_ns;
	struct osp_timeline_stats tl;
	unsigned waiting;
	bool handles;

	(void)arg;
	osp_set_timeline_stats(fs->set, &tl);
	ofs_itab_stats(fs, &inodes, &fds, &handles, &underflows);
	fprintf(out, "profiling %s\n", osp_set_enabled(fs->set) ? "on" : "off");
	if (tl.interval_ns)
		fprintf(out, "timeline %" PRIu64 " %u\n", tl.interval_ns / 1000000, tl.capacity);
	else
		fputs("timeline off\n", out);
	fprintf(out, "timeline_dropped %" PRIu64 "\ntimeline_missed %" PRIu64
		"\ntimeline_bytes %zu\ntimeline_bound_bytes %zu\n",
		tl.dropped, tl.missed, tl.bytes, (size_t)OSP_TIMELINE_BOUND_BYTES);
	pthread_mutex_lock(&fs->ctl->mu);
	fprintf(out, "last_error %s\n", fs->ctl->last_error[0] ? fs->ctl->last_error : "none");
	pthread_mutex_unlock(&fs->ctl->mu);
	fprintf(out, "resolution %u\nvalues %s\n", fs->opts.res, fs->values ? "on" : "off");
	fprintf(out, "cache %s\nentry_timeout %g\nattr_timeout %g\n",
		ofs_cache_name(fs->opts.cache), fs->opts.entry_timeout, fs->opts.attr_timeout);
	fprintf(out, "threads %s\npoll_us %u\n",
		fs->opts.singlethread ? "single" : fs->opts.poll_us ? "poll" : "pool",
		fs->opts.singlethread ? 0 : fs->opts.poll_us);
	ofs_tr_describe(fs->tr, out);
	fprintf(out, "writeback %s\ncpu_time %s\ncpu_source %s\n",
		fs->opts.writeback ? "on" : "off", fs->opts.cpu_time ? "on" : "off",
		ofs_cpu_source_name(fs));
	fprintf(out, "clock %s %.6f\n", osp_clock_source_name(fs->clk.source),
		fs->clk.cycles_per_ns);
	fprintf(out, "lost %" PRIu64 "\n", osp_set_lost(fs->set));
	fprintf(out, "by %s\nby_max %u\n", ofs_by_key_names[fs->opts.by], fs->opts.by_max);
	fprintf(out, "inodes %" PRIu64 "\nfd_cached %" PRIu64 "\nfd_cache_max %u\nfile_handles %s\n"
		"forget_underflows %" PRIu64 "\n",
		inodes, fds, fs->opts.fd_cache, handles ? "yes" : "no", underflows);
	ofs_lock_stats(fs, &waiting, &granted, &cancelled, &refused);
	fprintf(out, "locks_waiting %u\nlocks_granted_after_wait %" PRIu64
		"\nlocks_cancelled %" PRIu64 "\nlocks_refused %" PRIu64 "\n",
		waiting, granted, cancelled, refused);
	fprintf(out, "lower %s\nmount %s\npid %d\n", fs->opts.lower_abs,
		fs->opts.mount_abs, (int)getpid());
	ofs_kmod_describe(fs, out);
	ofs_bpf_describe(fs, out);
	slow_ns = __atomic_load_n(&fs->slow_ns, __ATOMIC_RELAXED);
	if (slow_ns == UINT64_MAX)
		fputs("slow_threshold_ns off\n", out);
	else
		fprintf(out, "slow_threshold_ns %" PRIu64 "\n", slow_ns);
	fprintf(out, "slow_dropped %" PRIu64 "\ntop %s\n", ofs_slow_dropped(fs),
		ofs_top_on(fs) ? "on" : "off");
	fprintf(out, "noopen %s\niofds %" PRIu64 "\n", fs->opts.noopen ? "on" : "off",
		ofs_iofd_count(fs));
	return ferror(out) ? -EIO : 0;
}

/* ---- commands ---- */

/* The snapshots a timeline command keeps: as given, else -o timeline_size. */
static uint64_t cmd_snapshots(const struct ofs *fs, const struct ofs_ctl_cmd *c)
{
	return c->snapshots ? c->snapshots : fs->opts.timeline_size;
}

static int cmd_apply(struct ofs *fs, const struct ofs_ctl_cmd *c)
{
	switch (c->kind) {
	case OFS_CTL_RESET:
		osp_set_reset(fs->set);
		ofs_bpf_reset(fs);
		ofs_slow_reset(fs);
		ofs_top_reset(fs);
		ofs_values_reset(fs);
		ofs_by_reset(fs);
		return 0;
	case OFS_CTL_SLOW:
		return ofs_slow_set(fs, c->slow_ns);
	case OFS_CTL_ENABLE:
	case OFS_CTL_DISABLE:
		osp_set_enable(fs->set, c->kind == OFS_CTL_ENABLE);
		ofs_bpf_enable(fs, c->kind == OFS_CTL_ENABLE);
		return 0;
	case OFS_CTL_TIMELINE:
		return ofs_timeline_start(fs, c->interval_ms * 1000000,
					  (unsigned)cmd_snapshots(fs, c));
	case OFS_CTL_TIMELINE_OFF:
		ofs_timeline_stop(fs);
		return 0;
	case OFS_CTL_TOP:
		/* Its tables were made before the batch applied (ctl_run). */
		ofs_top_set(fs, c->on);
		return 0;
	case OFS_CTL__COUNT:
		break;
	}
	return -EINVAL;
}

/*
 * What the daemon refuses of a well-formed command: a timeline whose ring
 * alone would pass its bound in bytes. Checked for the whole batch before
 * any command is applied. 0, or -EINVAL with the reason in @why.
 */
static int cmd_check(struct ofs *fs, const struct ofs_ctl_cmd *c, char *why, size_t len)
{
	uint64_t n = cmd_snapshots(fs, c);
	size_t max = osp_set_timeline_capacity_max(OSP_TIMELINE_BOUND_BYTES);

	if (c->kind != OFS_CTL_TIMELINE || n <= max)
		return 0;
	snprintf(why, len, "line %zu: a timeline keeps at most %zu snapshots in its %zu MiB "
		 "(asked for %" PRIu64 ")", c->line, max, OSP_TIMELINE_BOUND_BYTES >> 20, n);
	return -EINVAL;
}

/*
 * Run the batch written at offset @off: all of it is checked before any
 * is applied. A refusal is kept, with its reason, for the `ctl` file's
 * last_error line (a write can only return an errno).
 */
static int ctl_run(struct ofs *fs, const char *buf, size_t size, off_t off)
{
	struct ofs_ctl *c = fs->ctl;
	struct ofs_ctl_batch b = { 0 };
	char why[sizeof(c->last_error)];
	int err = 0;

	if (off != 0) {
		/*
		 * The rest of a write too large for one FUSE request, or a
		 * second write on the same open file: a batch is one write.
		 */
		snprintf(why, sizeof(why), "a batch is one write at offset 0 (this one at %lld)",
			 (long long)off);
		err = -EINVAL;
	} else {
		err = ofs_ctl_cmd_parse(buf, size, &b, why, sizeof(why));
	}
	for (size_t i = 0; !err && i < b.n; i++)
		err = cmd_check(fs, &b.cmds[i], why, sizeof(why));
	pthread_mutex_lock(&c->mu);
	/* What `top on` needs is made first: its ENOMEM changes nothing. */
	for (size_t i = 0; !err && i < b.n; i++)
		if (b.cmds[i].kind == OFS_CTL_TOP && b.cmds[i].on &&
		    (err = ofs_top_prepare(fs)) != 0)
			snprintf(why, sizeof(why), "line %zu: top on: %s", b.cmds[i].line,
				 strerror(-err));
	for (size_t i = 0; !err && i < b.n; i++) {
		err = cmd_apply(fs, &b.cmds[i]);
		if (err)
			snprintf(why, sizeof(why), "command %zu: %s", i + 1, strerror(-err));
	}
	if (err)
		memcpy(c->last_error, why, sizeof(why));
	pthread_mutex_unlock(&c->mu);
	return err;
}

int ofs_ctl_command(struct ofs *fs, const char *cmds)
{
	return ctl_run(fs, cmds, strlen(cmds), 0);
}

/* ---- the FUSE side ---- */

/* @e's mode: a file that names things is the group's only with -o ctl_group. */
static mode_t ctl_mode(const struct ofs *fs, const struct ctl_entry *e)
{
	return e->mode == CTL_NAMES && !fs->opts.ctl_group_set ? 0400 : e->mode;
}

/*
 * The attributes say who may read what: under default_permissions (on
 * with allow_other and with noopen) the kernel checks its opens by them.
 */
static void ctl_attr(struct ofs *fs, fuse_ino_t ino, struct stat *st)
{
	const struct ctl_entry *e = entry_of(fs, ino);

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = fs->owner_uid;
	st->st_gid = fs->opts.ctl_group_set ? fs->opts.ctl_gid : fs->owner_gid;
	st->st_mtim.tv_sec = st->st_ctim.tv_sec = st->st_atim.tv_sec =
		(time_t)(fs->start_unix_ns / 1000000000u);
	st->st_blksize = 4096;
	if (e) {
		st->st_mode = S_IFREG | ctl_mode(fs, e);
		st->st_nlink = 1;
	} else {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	}
}

bool ofs_ctl_is_root_entry(struct ofs *fs, fuse_ino_t parent, const char *name)
{
	return parent == FUSE_ROOT_ID && strcmp(name, fs->opts.ctl_name) == 0;
}

static int ctl_gen(struct ofs *fs, const struct ctl_entry *e, struct ctl_buf **bp);

/*
 * -o noopen: a new snapshot inode of entries[@entry], for a lookup, its
 * node id and attributes in @e: those of the file, with its own inode
 * number and an mtime of now, and the size of the file's last snapshot
 * (a guess; the kernel asks again before it reads past it, and a short
 * read sets it). 0, or -ENFILE with every slot taken.
 */
static int snap_new(struct ofs *fs, unsigned entry, struct fuse_entry_param *e)
{
	struct ofs_ctl *c = fs->ctl;
	struct ctl_snap *sn = NULL;
	size_t guess;

	pthread_mutex_lock(&c->snap_mu);
	for (unsigned k = 0; k < OFS_CTL_SNAPS && !sn; k++) {
		unsigned i = (c->snap_next + k) % OFS_CTL_SNAPS;

		if (!c->snap[i].nlookup) {
			sn = &c->snap[i];
			c->snap_next = i + 1;
		}
	}
	if (sn) {
		sn->nlookup = 1;
		sn->gen++;
		sn->entry = entry;
		clock_gettime(CLOCK_REALTIME, &sn->made);
	}
	guess = c->last_len[entry];
	pthread_mutex_unlock(&c->snap_mu);
	if (!sn)
		return -ENFILE;
	e->ino = OFS_CTL_SNAP_INO + (fuse_ino_t)(sn - c->snap);
	ctl_attr(fs, e->ino, &e->attr);
	e->attr.st_size = guess ? (off_t)guess : 4096;
	e->attr.st_mtim = e->attr.st_ctim = sn->made;
	return 0;
}

/*
 * -o noopen: the content of snapshot inode @sn, with a reference taken,
 * made now if it was not yet (unlocked: generating may take the command
 * mutex; the first made is kept). 0, -ESTALE when the kernel forgot it,
 * or the generator's error.
 */
static int snap_buf(struct ofs *fs, struct ctl_snap *sn, struct ctl_buf **bp)
{
	struct ofs_ctl *c = fs->ctl;
	struct ctl_buf *b, *mine;
	uint64_t gen;
	unsigned entry;
	int err;

	pthread_mutex_lock(&c->snap_mu);
	b = sn->nlookup ? sn->b : NULL;
	if (b)
		__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	gen = sn->gen;
	entry = sn->entry;
	err = sn->nlookup ? 0 : -ESTALE;
	pthread_mutex_unlock(&c->snap_mu);
	if (b || err) {
		*bp = b;
		return err;
	}
	err = ctl_gen(fs, &entries[entry], &mine);
	if (err)
		return err;
	pthread_mutex_lock(&c->snap_mu);
	if (!sn->nlookup || sn->gen != gen) {
		err = -ESTALE; /* forgotten meanwhile */
	} else if (sn->b) {
		b = sn->b; /* another reader's came first */
		__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	} else {
		/* mine: the caller's reference, and one more the slot's */
		sn->b = b = mine;
		mine = NULL;
		c->last_len[entry] = b->len;
		__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	}
	pthread_mutex_unlock(&c->snap_mu);
	if (mine)
		ctl_buf_put(mine);
	*bp = b;
	return err;
}

void ofs_ctl_forget(struct ofs *fs, fuse_ino_t ino, uint64_t nlookup)
{
	struct ctl_snap *sn = snap_of(fs, ino);
	struct ctl_buf *b = NULL;

	if (!sn)
		return; /* a fixed inode: never counted */
	pthread_mutex_lock(&fs->ctl->snap_mu);
	sn->nlookup -= nlookup < sn->nlookup ? nlookup : sn->nlookup;
	if (!sn->nlookup) {
		b = sn->b;
		sn->b = NULL;
	}
	pthread_mutex_unlock(&fs->ctl->snap_mu);
	if (b)
		ctl_buf_put(b);
}

static void c_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ofs *fs = ofs_of(req);
	struct fuse_entry_param e = { 0 };
	int err;

	if (parent == FUSE_ROOT_ID) {
		e.ino = CTL_DIR_INO;
	} else {
		for (size_t i = 0; i < NENTRIES; i++)
			if (parent == CTL_DIR_INO && strcmp(name, entries[i].name) == 0 &&
			    entry_present(fs, &entries[i]))
				e.ino = CTL_DIR_INO + 1 + i;
	}
	if (!e.ino) {
		ofs_reply_err(req, -ENOENT);
		return;
	}
	if (fs->iofd && e.ino != CTL_DIR_INO) {
		err = snap_new(fs, (unsigned)(e.ino - CTL_DIR_INO - 1), &e);
		if (err) {
			ofs_reply_err(req, err);
			return;
		}
	} else {
		ctl_attr(fs, e.ino, &e.attr);
	}
	if (fuse_reply_entry(req, &e) == -ENOENT && e.ino != CTL_DIR_INO)
		ofs_ctl_forget(fs, e.ino, 1); /* the caller was gone: not looked up */
}

static void c_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ofs *fs = ofs_of(req);
	struct ctl_snap *sn = snap_of(fs, ino);
	struct ctl_buf *b;
	struct stat st;
	int err;

	(void)fi;
	ctl_attr(fs, ino, &st);
	if (sn) {
		/* -o noopen: the snapshot's own size, made now if need be */
		err = snap_buf(fs, sn, &b);
		if (err) {
			ofs_reply_err(req, err);
			return;
		}
		st.st_size = (off_t)b->len;
		pthread_mutex_lock(&fs->ctl->snap_mu);
		st.st_mtim = st.st_ctim = sn->made;
		pthread_mutex_unlock(&fs->ctl->snap_mu);
		ctl_buf_put(b);
	}
	fuse_reply_attr(req, &st, 0);
}

/* Truncation of ctl on open(O_TRUNC): nothing to truncate; others refuse. */
static void c_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		      int valid, struct fuse_file_info *fi)
{
	(void)attr;
	if (!is_ctl_file(ofs_of(req), ino) || (valid & ~(FUSE_SET_ATTR_SIZE | FUSE_SET_ATTR_ATIME |
					      FUSE_SET_ATTR_MTIME | FUSE_SET_ATTR_ATIME_NOW |
					      FUSE_SET_ATTR_MTIME_NOW | FUSE_SET_ATTR_CTIME))) {
		ofs_reply_err(req, -EPERM);
		return;
	}
	c_getattr(req, ino, fi);
}

static bool may_write_ctl(fuse_req_t req)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);

	return ctx->uid == 0 || ctx->uid == ofs_of(req)->owner_uid;
}

/* Supplementary groups looked at, at most: the rest are not. */
#define CTL_GROUPS_MAX 256

/*
 * Whether the caller of @req may read @e (NULL: the directory): anyone a
 * file that names nothing; else root, the mounting user and, with -o
 * ctl_group, the group's members, by their primary or a supplementary
 * group. The kernel checks the same by ctl_attr's modes under
 * default_permissions; this holds without it too, and for -o noopen's
 * reads, which come with no OPEN.
 */
static bool may_read(fuse_req_t req, const struct ctl_entry *e)
{
	const struct ofs *fs = ofs_of(req);
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	gid_t groups[CTL_GROUPS_MAX];
	int n;

	if (!e || e->mode != CTL_NAMES || ctx->uid == 0 || ctx->uid == fs->owner_uid)
		return true;
	if (!fs->opts.ctl_group_set)
		return false;
	if (ctx->gid == fs->opts.ctl_gid)
		return true;
	n = fuse_req_getgroups(req, CTL_GROUPS_MAX, groups);
	for (int i = 0; i < n && i < CTL_GROUPS_MAX; i++)
		if (groups[i] == fs->opts.ctl_gid)
			return true;
	return false;
}

/* The content of @e now, in a new buffer with one reference; 0 or -errno. */
static int ctl_gen(struct ofs *fs, const struct ctl_entry *e, struct ctl_buf **bp)
{
	struct ctl_buf *b = calloc(1, sizeof(*b));
	FILE *out = b ? open_memstream(&b->data, &b->len) : NULL;
	int err;

	if (!out) {
		free(b);
		return -ENOMEM;
	}
	err = e->gen(fs, e->arg, out);
	if (fclose(out) != 0 && !err)
		err = -ENOMEM;
	if (err) {
		free(b->data);
		free(b);
		return err;
	}
	b->refs = 1;
	*bp = b;
	return 0;
}

static void c_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	const struct ctl_entry *e = entry_of(ofs_of(req), ino);
	struct ctl_buf *b;
	int err;

	if (!e) {
		ofs_reply_err(req, -EISDIR);
		return;
	}
	if (!entry_present(ofs_of(req), e)) {
		ofs_reply_err(req, -ENOENT); /* gone since its lookup */
		return;
	}
	if (!may_read(req, e) || ((fi->flags & O_ACCMODE) != O_RDONLY &&
				  (e != &entries[CF_CTL] || !may_write_ctl(req)))) {
		ofs_reply_err(req, -EACCES);
		return;
	}
	err = ctl_gen(ofs_of(req), e, &b);
	if (err) {
		ofs_reply_err(req, err);
		return;
	}
	fi->fh = (uintptr_t)b;
	fi->direct_io = 1; /* size 0 in getattr: reads must reach us */
	ctl_buf_link(ofs_of(req)->ctl, b);
	if (fuse_reply_open(req, fi) == -ENOENT)
		ctl_buf_close(ofs_of(req)->ctl, b);
}

static void c_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	struct ofs *fs = ofs_of(req);
	struct ctl_buf *b = (struct ctl_buf *)(uintptr_t)fi->fh;
	const struct ctl_entry *e;
	struct ctl_snap *sn;
	int err = 0;

	if (b) {
		__atomic_add_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
	} else {
		/* -o noopen: no OPEN was checked; a snapshot inode's own
		 * content (a fixed inode the kernel is never given then) */
		e = entry_of(fs, ino);
		sn = snap_of(fs, ino);
		if (!e)
			err = sn ? -ESTALE : -EISDIR;
		else if (!may_read(req, e))
			err = -EACCES;
		else
			err = sn ? snap_buf(fs, sn, &b) : ctl_gen(fs, e, &b);
		if (err) {
			ofs_reply_err(req, err);
			return;
		}
	}
	if ((size_t)off >= b->len)
		fuse_reply_buf(req, NULL, 0);
	else
		fuse_reply_buf(req, b->data + off,
			       size < b->len - (size_t)off ? size : b->len - (size_t)off);
	ctl_buf_put(b);
}

static void c_write(fuse_req_t req, fuse_ino_t ino, const char *buf,
		    size_t size, off_t off, struct fuse_file_info *fi)
{
	int err;

	(void)fi;
	if (!is_ctl_file(ofs_of(req), ino)) {
		ofs_reply_err(req, -EACCES);
		return;
	}
	err = ctl_run(ofs_of(req), buf, size, off);
	if (err)
		ofs_reply_err(req, err);
	else
		fuse_reply_write(req, size);
}

static void c_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	ofs_reply_err(req, 0);
}

static void c_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct ctl_buf *b = (struct ctl_buf *)(uintptr_t)fi->fh;

	(void)ino;
	if (b)
		ctl_buf_close(ofs_of(req)->ctl, b);
	ofs_reply_err(req, 0);
}

static void c_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != CTL_DIR_INO) {
		ofs_reply_err(req, -ENOTDIR);
		return;
	}
	fi->fh = 0;
	fuse_reply_open(req, fi);
}

static void list_dir(fuse_req_t req, size_t size, off_t off, bool plus)
{
	struct ofs *fs = ofs_of(req);
	char *buf = calloc(1, size ? size : 1), *p = buf;
	size_t rem = size;

	if (!buf) {
		ofs_reply_err(req, -ENOMEM);
		return;
	}
	/* Offsets: 1 ".", 2 "..", 3.. the entries, absent ones skipped. */
	for (off_t i = off; i < (off_t)NENTRIES + 2; i++) {
		const char *name = i == 0 ? "." : i == 1 ? ".." : entries[i - 2].name;
		struct fuse_entry_param e = { 0 };
		size_t n;

		if (i >= 2 && !entry_present(fs, &entries[i - 2]))
			continue;
		ctl_attr(fs, i == 0 ? CTL_DIR_INO : i == 1 ? FUSE_ROOT_ID : CTL_DIR_INO + (fuse_ino_t)i - 1,
			 &e.attr);
		n = plus ? fuse_add_direntry_plus(req, p, rem, name, &e, i + 1)
			 : fuse_add_direntry(req, p, rem, name, &e.attr, i + 1);
		if (n > rem)
			break;
		p += n;
		rem -= n;
	}
	fuse_reply_buf(req, buf, size - rem);
	free(buf);
}

static void c_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	list_dir(req, size, off, false);
}

static void c_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
			  struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	list_dir(req, size, off, true);
}

static void c_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	ofs_reply_err(req, 0);
}

static void c_access(fuse_req_t req, fuse_ino_t ino, int mask)
{
	bool w = mask & W_OK;

	if (w && (!is_ctl_file(ofs_of(req), ino) || !may_write_ctl(req)))
		ofs_reply_err(req, -EACCES);
	else if ((mask & R_OK) && !may_read(req, entry_of(ofs_of(req), ino)))
		ofs_reply_err(req, -EACCES);
	else if ((mask & X_OK) && ino != CTL_DIR_INO)
		ofs_reply_err(req, -EACCES);
	else
		ofs_reply_err(req, 0);
}

static void c_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	(void)ino;
	(void)name;
	(void)size;
	ofs_reply_err(req, -ENODATA);
}

static void c_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	(void)ino;
	if (size == 0)
		fuse_reply_xattr(req, 0);
	else
		fuse_reply_buf(req, NULL, 0);
}

const struct fuse_lowlevel_ops ofs_ctl_ops = {
	.lookup = c_lookup,
	.getattr = c_getattr,
	.setattr = c_setattr,
	.open = c_open,
	.read = c_read,
	.write = c_write,
	.flush = c_flush,
	.release = c_release,
	.opendir = c_opendir,
	.readdir = c_readdir,
	.readdirplus = c_readdirplus,
	.releasedir = c_releasedir,
	.access = c_access,
	.getxattr = c_getxattr,
	.listxattr = c_listxattr,
};

int ofs_ctl_new(struct ofs *fs)
{
	fs->ctl = calloc(1, sizeof(*fs->ctl));
	if (!fs->ctl)
		return -ENOMEM;
	pthread_mutex_init(&fs->ctl->mu, NULL);
	pthread_mutex_init(&fs->ctl->snap_mu, NULL);
	ofs_list_init(&fs->ctl->open);
	return 0;
}

void ofs_ctl_free(struct ofs *fs)
{
	if (!fs->ctl)
		return;
	/* Serving is over: no read is in flight, only unreleased opens. */
	while (!ofs_list_empty(&fs->ctl->open)) {
		struct ctl_buf *b = ofs_container_of(fs->ctl->open.next, struct ctl_buf, link);

		ofs_list_del(&b->link);
		ctl_buf_put(b);
	}
	for (int i = 0; i < OFS_CTL_SNAPS; i++)
		if (fs->ctl->snap[i].b)
			ctl_buf_put(fs->ctl->snap[i].b);
	pthread_mutex_destroy(&fs->ctl->snap_mu);
	pthread_mutex_destroy(&fs->ctl->mu);
	free(fs->ctl);
	fs->ctl = NULL;
}
