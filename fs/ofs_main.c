// SPDX-License-Identifier: MIT
/*
 * osprof-fs: mount a profiled passthrough view of a directory.
 *
 * The order matters: the lower directory is opened before the mount (so
 * LOWERDIR may equal MOUNTPOINT), the mountpoint is checked for another
 * FUSE mount on it, the session is mounted, and after the loop ends --
 * SIGINT, SIGTERM or fusermount3 -u -- the final profile is dumped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "osprof/escape.h"
#include "osprof/format.h"
#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_by.h"
#include "ofs_creds.h"
#include "ofs_ctl.h"
#include "ofs_dump.h"
#include "ofs_inode.h"
#include "ofs_iofd.h"
#include "ofs_kmod.h"
#include "ofs_lock.h"
#include "ofs_loop.h"
#include "ofs_mount.h"
#include "ofs_opts.h"
#include "ofs_prof.h"
#include "ofs_sigctl.h"
#include "ofs_profile.h"
#include "ofs_slow.h"
#include "ofs_top.h"
#include "ofs_tr.h"
#include "ofs_values.h"

/*
 * Whether directory @path holds anything but "." and "..": 1 yes, 0 no,
 * -errno when it cannot be read (then nobody is told anything of it).
 */
static int dir_has_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -errno;
	errno = 0;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (!found && errno)
		found = -errno;
	closedir(d);
	return found;
}

/*
 * A mount hides what its mountpoint holds: refuse a mountpoint with files
 * unless it is the lower directory itself (in place) or -o nonempty says
 * so; an empty LOWERDIR beside it means the two were given the wrong way
 * round. A mountpoint that cannot be read is left to the mount to judge.
 * 0 or -ENOTEMPTY (said).
 */
static int check_nonempty(const struct ofs_opts *o)
{
	struct stat lower, mnt;

	if (o->nonempty || stat(o->lower_abs, &lower) != 0 || stat(o->mount_abs, &mnt) != 0 ||
	    (lower.st_dev == mnt.st_dev && lower.st_ino == mnt.st_ino) ||
	    dir_has_entries(o->mount_abs) != 1)
		return 0;
	fputs("osprof-fs: mountpoint ", stderr);
	osp_esc_text(stderr, o->mount_abs);
	if (dir_has_entries(o->lower_abs) == 0) {
		fputs(" is not empty but lower directory ", stderr);
		osp_esc_text(stderr, o->lower_abs);
		fputs(" is: the arguments look swapped (osprof-fs LOWERDIR MOUNTPOINT)\n",
		      stderr);
	} else {
		fputs(" is not empty: the mount would hide its files "
		      "(-o nonempty to mount anyway)\n", stderr);
	}
	return -ENOTEMPTY;
}

/*
 * The mountpoint, a directory where no stale or foreign FUSE mount makes
 * it busy (its directory is then never read: a hung daemon would hang us)
 * and, unless asked otherwise, empty (check_nonempty). 0 or -errno (said).
 */
static int check_mountpoint(const struct ofs_opts *o)
{
	struct stat st;
	char *type = NULL;
	dev_t dev;
	bool in_place = strcmp(o->lower_abs, o->mount_abs) == 0;
	int err;

	if (stat(o->mount_abs, &st) != 0) {
		err = -errno;
		fprintf(stderr, "osprof-fs: mountpoint %s: %s\n", o->mount_abs, strerror(-err));
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "osprof-fs: mountpoint %s: Not a directory\n", o->mount_abs);
		return -ENOTDIR;
	}
	ofs_mount_at(o->mount_abs, &type, &dev, NULL);
	if (type && strncmp(type, "fuse", 4) == 0 &&
	    (!in_place || strcmp(type, "fuse.osprof-fs") == 0)) {
		fprintf(stderr, "osprof-fs: mountpoint %s is busy: a %s file system is mounted there (unmount it with fusermount3 -u)\n",
			o->mount_abs, type);
		free(type);
		return -EBUSY;
	}
	free(type);
	return check_nonempty(o);
}

/* The lower directory and its inode table. 0 or -errno (said). */
static int open_lower(struct ofs *fs)
{
	const char *lower = fs->opts.lower_abs;
	int root_fd, mount_fd, err;

	root_fd = open(lower, O_PATH | O_DIRECTORY);
	if (root_fd < 0) {
		err = -errno;
		fprintf(stderr, "osprof-fs: lower directory %s: %s\n", fs->opts.lower,
			strerror(-err));
		return err;
	}
	/* An ordinary descriptor: open_by_handle_at refuses O_PATH ones. */
	mount_fd = open(lower, O_RDONLY | O_DIRECTORY);
	if (mount_fd < 0)
		mount_fd = dup(root_fd);
	fs->itab = ofs_itab_new(root_fd, mount_fd, fs->opts.fd_cache);
	if (!fs->itab) {
		fprintf(stderr, "osprof-fs: out of memory\n");
		close(root_fd);
		close(mount_fd);
		return -ENOMEM;
	}
	return 0;
}

/* The fs layer's profile and -o values' tables. 0 or -errno (said). */
static int setup_profile(struct ofs *fs)
{
	int err;

	osp_clock_init(&fs->clk);
	fs->set = osp_set_new(ofs_op_names, OFS_OP__COUNT, fs->opts.res, fs->opts.cpu_time);
	if (!fs->set) {
		err = -errno;
		fprintf(stderr, "osprof-fs: cannot create the profile: %s\n", strerror(-err));
		return err;
	}
	if (fs->opts.noprofile)
		osp_set_enable(fs->set, false);
	err = ofs_values_new(fs);
	if (err) {
		fprintf(stderr, "osprof-fs: cannot allocate the value profiles: out of memory\n");
		return err;
	}
	/* The timeline starts later (start_threads): refuse now, before mounting. */
	if (fs->opts.timeline_size > osp_set_timeline_capacity_max(OSP_TIMELINE_BOUND_BYTES)) {
		fprintf(stderr, "osprof-fs: -o timeline_size=%u: a timeline keeps at most %zu snapshots in its %zu MiB\n",
			fs->opts.timeline_size,
			osp_set_timeline_capacity_max(OSP_TIMELINE_BOUND_BYTES),
			OSP_TIMELINE_BOUND_BYTES >> 20);
		return -EINVAL;
	}
	return 0;
}

/*
 * The threads that run beside the workers: the timeline's, the lock
 * waiters', SIGUSR1's reset's, and the transport's. Started after daemonizing, whose fork
 * only the calling thread survives. 0 or -errno (said).
 */
static int start_threads(struct ofs *fs)
{
	int err;

	if (fs->opts.timeline_ms) {
		err = ofs_timeline_start(fs, (uint64_t)fs->opts.timeline_ms * 1000000,
					 fs->opts.timeline_size);
		if (err) {
			fprintf(stderr, "osprof-fs: cannot start the timeline: %s\n", strerror(-err));
			return err;
		}
	}
	err = ofs_lock_init(fs, OFS_LOCK_WAITERS_MAX);
	if (err) {
		fprintf(stderr, "osprof-fs: cannot start the lock waiters: %s\n", strerror(-err));
		return err;
	}
	err = ofs_sigctl_start(fs);
	if (err) {
		fprintf(stderr, "osprof-fs: cannot take SIGUSR1 for resets: %s\n", strerror(-err));
		return err;
	}
	return ofs_tr_start(fs->tr);
}

/* The transport -o passthrough and -o io_uring ask for (ofs_tr.h); NULL
 * after the one line that says why it refuses. */
static struct ofs_tr *new_transport(const struct ofs *fs)
{
	struct ofs_tr_cfg cfg = {
		.want = { [OFS_TR_PASSTHROUGH] = fs->opts.passthrough,
			  [OFS_TR_IO_URING] = fs->opts.io_uring },
		.writeback = fs->opts.writeback,
		.max_threads = fs->opts.max_threads,
		.poll_us = fs->opts.singlethread ? 0 : fs->opts.poll_us,
		.pin = fs->opts.io_uring_pin,
		.lower = fs->opts.lower_abs,
		.mountpoint = fs->opts.mount_abs,
	};

	return ofs_tr_new(&cfg);
}

static void setup_caching(struct ofs *fs)
{
	fs->direct_io = fs->opts.cache == OFS_CACHE_NEVER;
	/*
	 * auto keeps file pages across opens too: the kernel drops them
	 * when a refreshed mtime or size says the file changed
	 * (FUSE_CAP_AUTO_INVAL_DATA, asked for in ofs_pt_init).
	 */
	fs->keep_cache = fs->opts.cache != OFS_CACHE_NEVER;
	/*
	 * Directory contents are cached under always alone. Under auto the
	 * kernel would serve a second listing from its cache (invalidated on
	 * a new mtime), but with no attributes: once the 1 s entry timeout
	 * passes, each entry costs a LOOKUP where readdirplus brought them
	 * all: as much handler time, for many more round trips
	 * (docs/caching.md#caching).
	 */
	fs->cache_readdir = fs->opts.cache == OFS_CACHE_ALWAYS;
}

/* Name the mount after its lower directory, type fuse.osprof-fs. */
static int add_mount_opts(struct ofs *fs, struct fuse_args *args)
{
	char *opts = NULL, *fsname = NULL;
	int err = fuse_opt_add_opt(&opts, "subtype=osprof-fs");

	/* Escaping covers the ',' and '\\' a path may hold; '=' is fine. */
	if (!err && asprintf(&fsname, "fsname=%s", fs->opts.lower_abs) < 0)
		err = -1;
	err = err ? err : fuse_opt_add_opt_escaped(&opts, fsname);
	/*
	 * With noopen the kernel sends no OPEN: it must check permissions
	 * itself at open, or a write to a read-only file would fail only at
	 * its first WRITE, and with allow_other anyone could read anything
	 * the daemon may.
	 */
	if (fs->opts.allow_other || fs->opts.noopen)
		err = err ? err : fuse_opt_add_opt(&opts, "default_permissions");
	err = err ? err : fuse_opt_add_arg(args, "-o");
	err = err ? err : fuse_opt_add_arg(args, opts);
	free(fsname);
	free(opts);
	return err ? -ENOMEM : 0;
}

static int serve(struct ofs *fs)
{
	struct fuse_loop_config *cfg;
	int res;

	if (fs->opts.singlethread)
		return fuse_session_loop(fs->se);
	if (fs->opts.poll_us) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		/* One poller per CPU: more only compete for the same CPUs. */
		return ofs_loop_poll(fs->se, ncpu > 1 ? (unsigned)ncpu : 2, fs->opts.max_threads,
				     (uint64_t)fs->opts.poll_us * 1000);
	}
	/*
	 * libfuse's pool with its own defaults (10 idle threads at most, one
	 * /dev/fuse descriptor): fewer idle threads, a descriptor per thread
	 * or fewer threads took longer at the same daemon CPU
	 * (docs/overhead.md#threading).
	 */
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, fs->opts.clone_fd);
	/* libfuse's parser says "not given" with UINT_MAX. */
	if (fs->opts.max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(cfg, fs->opts.max_idle_threads);
	fuse_loop_cfg_set_max_threads(cfg, fs->opts.max_threads);
	res = fuse_session_loop_mt(fs->se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return res;
}

static int dump_profile(struct ofs *fs)
{
	struct osp_profile *p = ofs_profile_build(fs);
	int err = p ? ofs_dump_write(fs->opts.dump, p) : -ENOMEM;

	if (err)
		fprintf(stderr, "osprof-fs: --dump %s: %s\n", fs->opts.dump, strerror(-err));
	osp_profile_free(p);
	return err;
}

/* Every start-up failure says why: @err (-errno) in setting up @what. */
static int say(int err, const char *what)
{
	if (err)
		fprintf(stderr, "osprof-fs: cannot set up %s: %s\n", what, strerror(-err));
	return err;
}

static void teardown(struct ofs *fs)
{
	ofs_lock_free(fs);
	ofs_slow_free(fs);
	ofs_top_free(fs);
	ofs_by_free(fs);
	osp_set_free(fs->set);
	ofs_values_free(fs);
	ofs_ctl_free(fs);
	ofs_kmod_free(fs);
	ofs_bpf_close(fs);
	ofs_iofd_free(fs); /* its records are opens of the inode table's inodes */
	ofs_itab_free(fs->itab);
	ofs_tr_free(fs->tr);
	ofs_opts_free(&fs->opts);
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct ofs fs = { 0 };
	int ret = 2, res;

	res = ofs_opts_parse(&fs, &args);
	if (res != 0) {
		ret = res > 0 ? 0 : 2;
		goto out_opts;
	}
	/* Modes arrive already masked by the kernel: do not mask twice. */
	umask(0);
	fs.owner_uid = getuid();
	fs.owner_gid = getgid();
	fs.switch_creds = geteuid() == 0 && fs.opts.allow_other;
	fs.start_unix_ns = osp_clock_unix_ns();
	gethostname(fs.host, sizeof(fs.host) - 1);
	setup_caching(&fs);
	if (open_lower(&fs) || check_mountpoint(&fs.opts))
		goto out;
	/* A feature required and unavailable refuses to mount: exit 1. */
	ret = 1;
	fs.tr = new_transport(&fs);
	if (!fs.tr)
		goto out;
	ret = 2;
	if (setup_profile(&fs) ||
	    say(ofs_ctl_new(&fs), "the control directory") || ofs_kmod_new(&fs) ||
	    say(ofs_slow_set(&fs, fs.opts.slow_ns), "the slow-request log") ||
	    say(ofs_top_new(&fs), "the top view") ||
	    ofs_by_new(&fs) ||
	    say(ofs_creds_init(), "the daemon's groups") ||
	    /* a sixth of the O_PATH cache: up to five descriptors each */
	    (fs.opts.noopen && say(ofs_iofd_new(&fs, fs.opts.fd_cache / 6), "-o noopen's descriptors")) ||
	    say(add_mount_opts(&fs, &args), "the mount options"))
		goto out;
	ofs_opts_unknown_said(true);
	fs.se = fuse_session_new(&args, &ofs_prof_ops, sizeof(ofs_prof_ops), &fs);
	ofs_opts_unknown_said(false);
	if (!fs.se)
		goto out; /* said why: an unknown option in our words, else libfuse */
	ret = 1;
	/* libfuse says why when these fail. */
	if (fuse_set_signal_handlers(fs.se) != 0)
		goto out_session;
	if (fuse_session_mount(fs.se, fs.opts.mount_abs) != 0)
		goto out_signals;
	if (ofs_tr_attach(fs.tr, fs.se) != 0 || ofs_bpf_open(&fs) != 0 ||
	    fuse_daemonize(fs.opts.foreground) != 0) {
		fuse_session_unmount(fs.se);
		goto out_signals;
	}
	/* after daemonizing: the pid is final */
	ofs_kmod_register(&fs);
	ofs_bpf_daemon(&fs);
	res = start_threads(&fs);
	if (!res)
		res = serve(&fs);
	ofs_tr_stop(fs.tr);
	ofs_sigctl_stop(&fs);
	/* Waiting lock requests are answered while the kernel still listens. */
	ofs_lock_cancel_all(&fs);
	ofs_kmod_unregister(&fs);
	fuse_session_unmount(fs.se);
	/* A signal number means a clean stop by SIGINT/SIGTERM. */
	ret = res < 0 || ofs_tr_failed(fs.tr) ? 1 : 0;
	if (fs.opts.dump && (dump_profile(&fs) != 0) + (ofs_bpf_dump(&fs) != 0) +
			    (ofs_slow_dump(&fs) != 0) + (ofs_values_dump(&fs) != 0) +
			    (ofs_by_dump(&fs) != 0) + (ofs_top_dump(&fs) != 0))
		ret = 1;
out_signals:
	fuse_remove_signal_handlers(fs.se);
out_session:
	/* The rings hold /dev/fuse open: they go first. */
	ofs_tr_close(fs.tr);
	fuse_session_destroy(fs.se);
out:
	teardown(&fs);
	fuse_opt_free_args(&args);
	return ret;
out_opts:
	ofs_opts_free(&fs.opts);
	fuse_opt_free_args(&args);
	return ret;
}
