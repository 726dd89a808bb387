/* SPDX-License-Identifier: MIT */
/*
 * Real block I/O for the block and irq tests: a file in a private
 * temporary directory, written and synced so that O_DIRECT reads of it
 * reach the device, and the device that holds it.
 */
#ifndef OBP_TEST_DIO_H
#define OBP_TEST_DIO_H

#include <stddef.h>
#include <stdint.h>

#define DIO_BLOCK 4096 /* one read; also the alignment O_DIRECT needs */

struct dio {
	char dir[64];         /* the temporary directory */
	char path[96];        /* the file in it */
	int fd;               /* opened O_DIRECT */
	size_t nblocks;       /* the file holds 2 * nblocks blocks */
	void *buf;            /* aligned DIO_BLOCK bytes */
	unsigned maj, min;    /* the file system's device (st_dev) */
	char disk[64];        /* its whole disk's name ("" if not a disk) */
	char why[160];        /* why disk is "" */
};

/* Make the directory and a file of 2 * @nblocks blocks of data, synced.
 * 0 or -errno (then nothing is left behind). */
int dio_setup(struct dio *d, size_t nblocks);
/* Read block 2 * @i (so no two reads are adjacent and none could merge):
 * its wall time in ns, or 0 on a failed read. */
uint64_t dio_read(struct dio *d, size_t i);
/* Write block 2 * @i + 1 and fdatasync. 0 or -errno. */
int dio_write_sync(struct dio *d, size_t i);
/* Remove the file and the directory. */
void dio_cleanup(struct dio *d);

/* Field @field (0-based) of /sys/block/@disk/stat, or UINT64_MAX. */
uint64_t dio_disk_stat(const char *disk, unsigned field);

#endif
