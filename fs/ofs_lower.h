/* SPDX-License-Identifier: MIT */
/*
 * The lower layer, timed by the daemon itself: every call the passthrough
 * makes on the lower file system goes through OFS_LOWER, which records its
 * latency per call into a profile set of its own (fs->lower), named after
 * the system call it makes, as the eBPF lower layer names them. Two clock
 * reads and a lock-free record, about 30 ns, and nothing paid by other
 * processes: tracing the daemon's system calls with eBPF makes every
 * system call on the machine take the kernel's slow tracepoint path
 * (README, Limitations). -o lower_source=ebpf takes that one instead.
 */
#ifndef OSPROF_FS_OFS_LOWER_H
#define OSPROF_FS_OFS_LOWER_H

#include <errno.h>
#include <stdint.h>

#include "ofs.h"

/* The calls, by the system call each makes (glibc 2.36, x86-64). */
enum ofs_lcall {
	OFS_LC_OPENAT,
	OFS_LC_OPEN_BY_HANDLE_AT,
	OFS_LC_NAME_TO_HANDLE_AT,
	OFS_LC_NEWFSTATAT,      /* fstat and fstatat alike */
	OFS_LC_PREAD64,
	OFS_LC_PWRITE64,
	OFS_LC_READDIR,         /* glibc's: getdents64 when its buffer is empty */
	OFS_LC_CLOSE,
	OFS_LC_DUP,
	OFS_LC_FSYNC,
	OFS_LC_FDATASYNC,
	OFS_LC_FALLOCATE,
	OFS_LC_FTRUNCATE,
	OFS_LC_TRUNCATE,
	OFS_LC_FLOCK,
	OFS_LC_COPY_FILE_RANGE,
	OFS_LC_LSEEK,
	OFS_LC_UTIMENSAT,
	OFS_LC_FCHMOD,
	OFS_LC_FCHMODAT,
	OFS_LC_FCHOWNAT,
	OFS_LC_READLINKAT,
	OFS_LC_MKDIRAT,
	OFS_LC_SYMLINKAT,
	OFS_LC_MKNODAT,
	OFS_LC_LINKAT,
	OFS_LC_UNLINKAT,
	OFS_LC_RENAMEAT2,
	OFS_LC_FSTATFS,
	OFS_LC_FACCESSAT2,
	OFS_LC_SETXATTR,
	OFS_LC_GETXATTR,
	OFS_LC_LISTXATTR,
	OFS_LC_REMOVEXATTR,
	OFS_LC__COUNT
};

extern const char *const ofs_lcall_names[OFS_LC__COUNT];

/* Its profile set, enabled as the fs layer is. 0 or -ENOMEM. */
int ofs_lower_new(struct ofs *fs);
/* Its profile (the calls made), with this mount's source; NULL on -ENOMEM. */
struct osp_profile *ofs_lower_profile(struct ofs *fs);

/* The clock at a call's start, 0 when the layer is off or disabled. */
static inline uint64_t ofs_lower_start(const struct ofs *fs)
{
	return fs->lower && osp_set_enabled(fs->lower) ? osp_clock_read(&fs->clk) : 0;
}

/* Record call @c that started at @c0 (ofs_lower_start), if it did. */
void ofs_lower_done(struct ofs *fs, enum ofs_lcall c, uint64_t c0);

/*
 * OFS_LOWER - the value of @expr, a call on the lower file system, timed
 * as call @c; errno as @expr left it.
 */
#define OFS_LOWER(fs, c, expr)                                   \
	({                                                       \
		uint64_t lc0_ = ofs_lower_start(fs);             \
		__typeof__(expr) lr_ = (expr);                   \
		int le_ = errno;                                 \
		ofs_lower_done((fs), (c), lc0_);                 \
		errno = le_;                                     \
		lr_;                                             \
	})

#endif /* OSPROF_FS_OFS_LOWER_H */
