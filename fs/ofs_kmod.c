// SPDX-License-Identifier: MIT
/*
 * osprof-fs and the kernel module osprof.ko: when the module is loaded,
 * the daemon registers its own process (so the module's `lower` layer
 * profiles the daemon's calls on the lower file system), serves the
 * module's layers in the control directory (`lower`, `block`, `irq` in the
 * human form and as JSON, with this mount's host and source), and with
 * -o vtimers times each request's virtual time through /dev/osprof_vt:
 * one private virtual timer per worker thread, allocated on the thread's
 * first request, started after the request's entry timestamp and stopped
 * before its reply timestamp, so the virtual time is part of the latency
 * (latency = cpu + wait). Without the module nothing here shows: no
 * files, no messages. The control directory's logic stays in ofs_ctl.c;
 * this file knows the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "osprof/format.h"
#include "osprof/kmod.h"
#include "osprof_vt.h"
#include "ofs.h"
#include "ofs_kmod.h"
#include "ofs_profile.h"

#define KMOD_PROC "/proc/osprof"

struct ofs_kmod {
	int vt_fd;         /* /dev/osprof_vt with -o vtimers, else -1 */
	bool registered;   /* our pid was accepted by /proc/osprof/ctl */
	uint64_t vt_errors; /* failed timer ioctls (atomic; cpu 0 recorded) */
};

/*
 * This thread's private virtual timer on fs->kmod->vt_fd; 0 until its
 * first request. The module releases it when the thread exits (libfuse
 * retires idle workers), so it is never deallocated here.
 */
static __thread uint64_t vt_id;

/* ---- /proc/osprof ---- */

bool ofs_kmod_loaded(void)
{
	return access(KMOD_PROC, F_OK) == 0;
}

bool ofs_kmod_present(struct ofs *fs, const char *layer)
{
	char path[64];

	(void)fs;
	snprintf(path, sizeof(path), KMOD_PROC "/%s", layer);
	return access(path, R_OK) == 0;
}

/* Write one command to /proc/osprof/ctl; 0 or -errno. */
static int ctl_command(const char *cmd)
{
	int fd = open(KMOD_PROC "/ctl", O_WRONLY | O_CLOEXEC), err = 0;
	size_t len = strlen(cmd);

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

void ofs_kmod_register(struct ofs *fs)
{
	char cmd[32];
	int err;

	if (!fs->kmod || !ofs_kmod_loaded())
		return;
	snprintf(cmd, sizeof(cmd), "pid %d\n", (int)getpid());
	err = ctl_command(cmd);
	if (err) {
		/* Not fatal: every other layer still works. Writing ctl needs root. */
		fprintf(stderr, "osprof-fs: cannot register with osprof.ko (%.*s to "
			KMOD_PROC "/ctl: %s): its lower layer will not show this daemon\n",
			(int)strlen(cmd) - 1, cmd, strerror(-err));
		return;
	}
	fs->kmod->registered = true;
}

void ofs_kmod_unregister(struct ofs *fs)
{
	char cmd[32];

	if (!fs->kmod || !fs->kmod->registered)
		return;
	fs->kmod->registered = false;
	snprintf(cmd, sizeof(cmd), "unpid %d\n", (int)getpid());
	/* ENOENT: the module was reloaded meanwhile and forgot us; fine. */
	ctl_command(cmd);
}

struct osp_profile *ofs_kmod_profile(struct ofs *fs, const char *layer,
				     const char *text, size_t len, char *err,
				     size_t errlen)
{
	struct osp_profile *p = osp_read_kmod(layer, text, len, err, errlen);

	if (!p)
		return NULL;
	if (ofs_profile_set_source(fs, p) != 0) {
		snprintf(err, errlen, "out of memory");
		osp_profile_free(p);
		return NULL;
	}
	return p;
}

/* Read /proc/osprof/@layer now and write it with @w. */
static int kmod_gen(struct ofs *fs, const char *layer, FILE *out,
		    int (*w)(FILE *, const struct osp_profile *))
{
	char path[64], why[256];
	struct osp_profile *p;
	size_t len = 0;
	char *text = NULL;
	int err;

	snprintf(path, sizeof(path), KMOD_PROC "/%s", layer);
	/* core's bounded reader: a /proc file's size says nothing. */
	err = osp_read_path(path, &text, &len);
	if (err)
		return err; /* ENOENT: the module went away since the lookup */
	p = ofs_kmod_profile(fs, layer, text, len, why, sizeof(why));
	free(text);
	if (!p) {
		/* The module's text is external input: name it, refuse it. */
		fprintf(stderr, "osprof-fs: %s: %s\n", path, why);
		return -EIO;
	}
	err = w(out, p);
	osp_profile_free(p);
	return err;
}

int ofs_kmod_gen_text(struct ofs *fs, const char *layer, FILE *out)
{
	return kmod_gen(fs, layer, out, osp_write_stats);
}

int ofs_kmod_gen_json(struct ofs *fs, const char *layer, FILE *out)
{
	return kmod_gen(fs, layer, out, osp_write_json);
}

void ofs_kmod_describe(struct ofs *fs, FILE *out)
{
	const struct ofs_kmod *k = fs->kmod;

	fprintf(out, "kmod %s\nkmod_registered %s\n",
		ofs_kmod_loaded() ? "loaded" : "absent",
		k && k->registered ? "yes" : "no");
	if (k && k->vt_fd >= 0)
		fprintf(out, "vtimer_errors %" PRIu64 "\n",
			__atomic_load_n(&k->vt_errors, __ATOMIC_RELAXED));
}

/* ---- virtual timers ---- */

static void vt_error(struct ofs_kmod *k)
{
	__atomic_add_fetch(&k->vt_errors, 1, __ATOMIC_RELAXED);
}

/* This thread's private virtual timer; 0 or -errno. */
static int vt_alloc(struct ofs_kmod *k)
{
	struct okm_vt_alloc a = { .kind = OKM_VT_VIRTUAL, .scope = OKM_VT_PRIVATE };

	/* The thread id in the name ties /proc/osprof/timers to a worker. */
	snprintf(a.name, sizeof(a.name), "osprof-fs.%ld", (long)syscall(SYS_gettid));
	if (ioctl(k->vt_fd, OKM_VT_IOC_ALLOC, &a) != 0)
		return -errno;
	vt_id = a.id;
	return 0;
}

bool ofs_kmod_vt_start(struct ofs *fs)
{
	struct ofs_kmod *k = fs->kmod;

	if (!vt_id && vt_alloc(k) != 0)
		goto fail;
	if (ioctl(k->vt_fd, OKM_VT_IOC_START, (unsigned long)vt_id) == 0)
		return true;
	if (errno == EBUSY) {
		/* Left running when a stop failed: stop it and start again. */
		struct okm_vt_value v = { .id = vt_id };

		if (ioctl(k->vt_fd, OKM_VT_IOC_STOP, &v) == 0 &&
		    ioctl(k->vt_fd, OKM_VT_IOC_START, (unsigned long)vt_id) == 0)
			return true;
	} else if (errno == ENOENT) {
		vt_id = 0; /* gone (cannot happen while we live); realloc next time */
	}
fail:
	vt_error(k);
	return false;
}

uint64_t ofs_kmod_vt_stop(struct ofs *fs)
{
	struct okm_vt_value v = { .id = vt_id };

	if (ioctl(fs->kmod->vt_fd, OKM_VT_IOC_STOP, &v) != 0) {
		vt_error(fs->kmod);
		return 0;
	}
	return v.last_ns;
}

/* ---- life cycle ---- */

int ofs_kmod_new(struct ofs *fs)
{
	struct ofs_kmod *k = calloc(1, sizeof(*k));

	if (!k) {
		fprintf(stderr, "osprof-fs: out of memory\n");
		return -ENOMEM;
	}
	k->vt_fd = -1;
	fs->kmod = k;
	if (!fs->opts.vtimers)
		return 0;
	k->vt_fd = open(OKM_VT_DEVICE, O_RDWR | O_CLOEXEC);
	if (k->vt_fd < 0) {
		int err = -errno;

		fprintf(stderr, "osprof-fs: -o vtimers needs the osprof kernel module ("
			OKM_VT_DEVICE ": %s)\n", strerror(-err));
		return err;
	}
	return 0;
}

void ofs_kmod_free(struct ofs *fs)
{
	if (!fs->kmod)
		return;
	ofs_kmod_unregister(fs);
	/* Closing the descriptor deallocates every worker's timer. */
	if (fs->kmod->vt_fd >= 0)
		close(fs->kmod->vt_fd);
	free(fs->kmod);
	fs->kmod = NULL;
}
