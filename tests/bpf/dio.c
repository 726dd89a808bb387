// SPDX-License-Identifier: MIT
/*
 * Real block I/O for the block and irq tests (dio.h). The file's data is
 * written and synced before it is read with O_DIRECT: a file system may
 * answer reads of unwritten extents with zeros and no I/O.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "dio.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The whole disk of device maj:min, from sysfs: a partition's parent. */
static void find_disk(struct dio *d)
{
	char p[96], real[PATH_MAX], *base;
	struct stat st;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u", d->maj, d->min);
	if (!realpath(p, real)) {
		snprintf(d->why, sizeof(d->why), "device %u:%u is not a block device", d->maj, d->min);
		return;
	}
	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/partition", d->maj, d->min);
	if (stat(p, &st) == 0)
		*strrchr(real, '/') = '\0';
	base = basename(real);
	snprintf(p, sizeof(p), "/sys/block/%s/mq", base);
	/* bio-based devices (dm, md, zram) make no requests of their own */
	if (stat(p, &st) != 0) {
		snprintf(d->why, sizeof(d->why), "disk %s makes no requests (not blk-mq)", base);
		return;
	}
	snprintf(d->disk, sizeof(d->disk), "%s", base);
}

int dio_setup(struct dio *d, size_t nblocks)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	char *data;
	int fd, err = 0;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	snprintf(d->dir, sizeof(d->dir), "%s/obp-dio-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d->dir))
		return -errno;
	snprintf(d->path, sizeof(d->path), "%s/data", d->dir);
	d->nblocks = nblocks;
	data = malloc(2 * nblocks * DIO_BLOCK);
	if (!data || posix_memalign(&d->buf, DIO_BLOCK, DIO_BLOCK)) {
		free(data);
		rmdir(d->dir);
		return -ENOMEM;
	}
	memset(data, 0x5a, 2 * nblocks * DIO_BLOCK);
	errno = 0;
	fd = open(d->path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, data, 2 * nblocks * DIO_BLOCK) != (ssize_t)(2 * nblocks * DIO_BLOCK) ||
	    fsync(fd) != 0 || fstat(fd, &st) != 0)
		err = errno ? -errno : -EIO;
	free(data);
	if (fd >= 0)
		close(fd);
	if (!err) {
		d->fd = open(d->path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (d->fd < 0)
			err = -errno;
	}
	if (err) {
		dio_cleanup(d);
		return err;
	}
	d->maj = major(st.st_dev);
	d->min = minor(st.st_dev);
	find_disk(d);
	return 0;
}

uint64_t dio_read(struct dio *d, size_t i)
{
	uint64_t t0 = mono_ns();

	if (pread(d->fd, d->buf, DIO_BLOCK, (off_t)(2 * i * DIO_BLOCK)) != DIO_BLOCK)
		return 0;
	return mono_ns() - t0;
}

int dio_write_sync(struct dio *d, size_t i)
{
	if (pwrite(d->fd, d->buf, DIO_BLOCK, (off_t)((2 * i + 1) * DIO_BLOCK)) != DIO_BLOCK)
		return -EIO;
	return fdatasync(d->fd) ? -errno : 0;
}

void dio_cleanup(struct dio *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	unlink(d->path);
	rmdir(d->dir);
	free(d->buf);
	d->buf = NULL;
}

uint64_t dio_disk_stat(const char *disk, unsigned field)
{
	unsigned long long v = UINT64_MAX;
	char p[96];
	FILE *f;

	snprintf(p, sizeof(p), "/sys/block/%s/stat", disk);
	f = fopen(p, "r");
	if (!f)
		return UINT64_MAX;
	for (unsigned i = 0; i <= field; i++)
		if (fscanf(f, "%llu", &v) != 1) {
			v = UINT64_MAX;
			break;
		}
	fclose(f);
	return v;
}
