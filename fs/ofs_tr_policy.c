// SPDX-License-Identifier: MIT
/*
 * Whether each feature of the transport is in force, and the one line
 * that says why not (ofs_tr_impl.h): what the user asked, turned off by
 * the first check that fails -- before mounting (-o writeback, no
 * CAP_SYS_ADMIN, no enable_uring, no io_uring), at INIT (what the kernel
 * offers), at the first backing file or ring registration -- or, with
 * =require, the daemon stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "ofs_cap.h"
#include "ofs_tr_impl.h"

const char *const ofs_tr_feature_names[OFS_TR__COUNT] = {
	[OFS_TR_PASSTHROUGH] = "passthrough",
	[OFS_TR_IO_URING] = "io_uring",
};
_Static_assert(sizeof(ofs_tr_feature_names) / sizeof(ofs_tr_feature_names[0]) == OFS_TR__COUNT,
	       "a name for every feature");

#define ENABLE_URING_PARAM "/sys/module/fuse/parameters/enable_uring"

bool ofs_tr_on(const struct ofs_tr *tr, enum ofs_tr_feature f)
{
	return tr && atomic_load(&tr->on[f]);
}

const char *ofs_tr_why(const struct ofs_tr *tr, enum ofs_tr_feature f)
{
	if (!tr || tr->cfg.want[f] == OFS_TR_OFF)
		return "not asked for";
	/* Written once, before maybe turns false (under mu). */
	return atomic_load(&tr->maybe[f]) ? "" : tr->why[f];
}

bool ofs_tr_failed(const struct ofs_tr *tr)
{
	return tr && atomic_load(&tr->failed);
}

void ofs_tr_turn_off(struct ofs_tr *tr, enum ofs_tr_feature f, const char *fmt, ...)
{
	bool require = tr->cfg.want[f] == OFS_TR_REQUIRE;
	va_list ap;

	pthread_mutex_lock(&tr->mu);
	if (!atomic_load(&tr->maybe[f])) {
		pthread_mutex_unlock(&tr->mu);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(tr->why[f], OFS_TR_WHY_LEN, fmt, ap);
	va_end(ap);
	atomic_store(&tr->on[f], false);
	atomic_store(&tr->maybe[f], false);
	pthread_mutex_unlock(&tr->mu);
	if (require)
		fprintf(stderr, "osprof-fs: -o %s=require: %s\n", ofs_tr_feature_names[f], tr->why[f]);
	else
		fprintf(stderr, "osprof-fs: %s off: %s\n", ofs_tr_feature_names[f], tr->why[f]);
	if (require) {
		atomic_store(&tr->failed, true);
		/* libfuse's handler ends the session loop, whichever it is. */
		if (tr->mounted)
			kill(getpid(), SIGTERM);
	}
}

/* The fuse module's enable_uring: 'Y', 'N', or 0 when it has none. */
static char enable_uring(void)
{
	char c = 0;
	int fd = open(ENABLE_URING_PARAM, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, &c, 1) != 1)
			c = 0;
		close(fd);
	}
	return c;
}

void ofs_tr_check_early(struct ofs_tr *tr)
{
	if (tr->cfg.want[OFS_TR_PASSTHROUGH]) {
		if (tr->cfg.writeback)
			ofs_tr_turn_off(tr, OFS_TR_PASSTHROUGH,
					"-o writeback is on (the kernel passes nothing through with the writeback cache)");
		else if (!ofs_cap_effective(CAP_SYS_ADMIN))
			ofs_tr_turn_off(tr, OFS_TR_PASSTHROUGH,
					"the daemon lacks CAP_SYS_ADMIN, which FUSE_DEV_IOC_BACKING_OPEN needs");
	}
	if (tr->cfg.want[OFS_TR_IO_URING]) {
		char c = enable_uring();
		struct io_uring probe;
		int err;

		if (c == 0) {
			ofs_tr_turn_off(tr, OFS_TR_IO_URING,
					"this kernel has no FUSE over io_uring (Linux 6.14 or later, CONFIG_FUSE_IO_URING)");
			return;
		}
		if (c != 'Y') {
			ofs_tr_turn_off(tr, OFS_TR_IO_URING, "the fuse module's enable_uring is N (%s)",
					ENABLE_URING_PARAM);
			return;
		}
		err = io_uring_queue_init(2, &probe, IORING_SETUP_SQE128);
		if (err) {
			ofs_tr_turn_off(tr, OFS_TR_IO_URING, "io_uring_setup: %s", strerror(-err));
			return;
		}
		io_uring_queue_exit(&probe);
	}
}
