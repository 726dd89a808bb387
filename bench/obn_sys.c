// SPDX-License-Identifier: MIT
/*
 * The machine under osprof-bench: what it is (recorded in the JSON so figures
 * from different machines are never compared unknowingly), how much memory
 * is available around each run (a shrinking figure across runs is a leak),
 * dropping the page, dentry and inode caches for cold runs, and finding which
 * mount holds a path (the file system of the working directory; the FUSE
 * mount to remount).
 */
#include "obn.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "osp_mountinfo.h"

#define DROP_CACHES "/proc/sys/vm/drop_caches"

/* Value of "key: value" in a /proc text file into buf; 0 or -errno/-ENOENT. */
static int proc_field(const char *path, const char *key, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	size_t klen = strlen(key);
	int rc = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) != 0)
			continue;
		char *p = line + klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		p++;
		p += strspn(p, " \t");
		p[strcspn(p, "\n")] = '\0';
		snprintf(buf, len, "%s", p);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/* A /proc/meminfo figure ("1234 kB") in bytes. */
static int meminfo_bytes(const char *key, uint64_t *bytes)
{
	char val[64];
	uint64_t kib;
	int rc = proc_field("/proc/meminfo", key, val, sizeof(val));

	if (rc)
		return rc;
	val[strcspn(val, " ")] = '\0';
	if (osp_parse_u64(val, 0, UINT64_MAX / 1024, &kib))
		return -EPROTO;
	*bytes = kib * 1024;
	return 0;
}

int obn_sys_mem_available(uint64_t *bytes)
{
	return meminfo_bytes("MemAvailable", bytes);
}

static void cpu_model(char *buf, size_t len)
{
	/* x86 says "model name"; arm64 has no model name, only "CPU part". */
	if (proc_field("/proc/cpuinfo", "model name", buf, len) == 0)
		return;
	if (proc_field("/proc/cpuinfo", "CPU part", buf, len) == 0)
		return;
	snprintf(buf, len, "unknown");
}

void obn_sys_machine(struct obn_machine *m)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	if (gethostname(m->host, sizeof(m->host) - 1) < 0)
		snprintf(m->host, sizeof(m->host), "unknown");
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s %s", u.sysname,
			 u.release, u.version, u.machine);
	else
		snprintf(m->kernel, sizeof(m->kernel), "unknown");
	cpu_model(m->cpu_model, sizeof(m->cpu_model));
	m->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	if (meminfo_bytes("MemTotal", &m->mem_total_bytes))
		m->mem_total_bytes = 0;
	if (!getcwd(m->cwd, sizeof(m->cwd)))
		snprintf(m->cwd, sizeof(m->cwd), "unknown");
	if (obn_sys_mount_of(".", &m->cwd_mnt) < 0) {
		snprintf(m->cwd_mnt.point, sizeof(m->cwd_mnt.point), "unknown");
		snprintf(m->cwd_mnt.fstype, sizeof(m->cwd_mnt.fstype), "unknown");
		snprintf(m->cwd_mnt.source, sizeof(m->cwd_mnt.source), "unknown");
	}
}

int obn_sys_check_drop_caches(void)
{
	int fd = open(DROP_CACHES, O_WRONLY | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;
		fprintf(stderr, "osprof-bench: --cold: cannot open %s for writing: "
			"%s (dropping caches needs root)\n", DROP_CACHES,
			strerror(err));
		return -err;
	}
	close(fd);
	return 0;
}

int obn_sys_drop_caches(void)
{
	int fd, rc = 0;

	sync(); /* dirty pages cannot be dropped: write them first */
	fd = open(DROP_CACHES, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* 3: the page cache, and the dentries and inodes. */
	if (write(fd, "3\n", 2) != 2)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* Whether mount point mp contains path (both absolute, canonical). */
static bool contains(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return true;
	return strncmp(mp, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int obn_sys_mount_of(const char *path, struct obn_mount *m)
{
	char real[4096];
	struct osp_mountinfo mi;
	struct osp_mount ml;
	struct stat st;
	size_t best_len = 0;
	bool best_dev = false, found = false;
	int r;

	if (!realpath(path, real) || stat(real, &st) < 0)
		return -errno;
	r = osp_mountinfo_open(&mi, NULL);
	if (r)
		return r;
	while ((r = osp_mountinfo_next(&mi, &ml)) == 1) {
		if (!contains(ml.point, real))
			continue;
		/* Prefer the device's own mount (over-mounts, bind mounts);
		 * st_dev can differ from mountinfo on btrfs subvolumes, so a
		 * prefix alone is the fall-back. Later lines are mounted on top. */
		bool dev = ml.major == major(st.st_dev) && ml.minor == minor(st.st_dev);
		size_t len = strlen(ml.point);
		if ((best_dev && !dev) || (dev == best_dev && len < best_len))
			continue;
		best_dev = dev;
		best_len = len;
		found = true;
		snprintf(m->point, sizeof(m->point), "%s", ml.point);
		snprintf(m->fstype, sizeof(m->fstype), "%s", ml.fstype);
		snprintf(m->source, sizeof(m->source), "%s", ml.source);
	}
	osp_mountinfo_close(&mi);
	if (r < 0)
		return r;
	return found ? 0 : -ENOENT;
}
