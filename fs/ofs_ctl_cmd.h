/* SPDX-License-Identifier: MIT */
/*
 * The command language of the control file `ctl`, on its own: pure
 * parsing, no FUSE and no daemon state, so that it is unit-tested and
 * fuzzed directly. ofs_ctl.c applies what it returns.
 *
 * A batch is the content of one write: commands one a line (blank lines
 * and surrounding blanks allowed), at most OFS_CTL_BATCH_MAX_CMDS of them
 * in at most OFS_CTL_BATCH_MAX_BYTES. The whole batch is checked before
 * anything is applied, so a bad line changes nothing.
 */
#ifndef OSPROF_FS_OFS_CTL_CMD_H
#define OSPROF_FS_OFS_CTL_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * One write, at most: small enough to parse on the stack of a worker,
 * large enough for any real batch, and below FUSE's smallest maximum
 * write (128 KiB), so a batch always reaches the daemon in one piece.
 */
#define OFS_CTL_BATCH_MAX_BYTES 65536u
#define OFS_CTL_BATCH_MAX_CMDS 64u
/* Limits of `timeline <interval_ms> [<max_snapshots>]`. */
#define OFS_CTL_TL_INTERVAL_MAX_MS 3600000u
#define OFS_CTL_TL_SNAPSHOTS_MAX 10000000u
/* Of `slow <duration>`: up to an hour. */
#define OFS_CTL_SLOW_MAX_NS 3600000000000ull

enum ofs_ctl_cmd_kind {
	OFS_CTL_RESET,
	OFS_CTL_ENABLE,
	OFS_CTL_DISABLE,
	OFS_CTL_TIMELINE,
	OFS_CTL_TIMELINE_OFF,
	OFS_CTL_SLOW,          /* slow DURATION | slow off */
	OFS_CTL_TOP,           /* top on | top off */
	OFS_CTL__COUNT
};

struct ofs_ctl_cmd {
	enum ofs_ctl_cmd_kind kind;
	size_t line;           /* where it is in the batch, from 1 */
	uint64_t interval_ms;  /* OFS_CTL_TIMELINE: >= 1 */
	uint64_t snapshots;    /* OFS_CTL_TIMELINE: 0 when not given */
	uint64_t slow_ns;      /* OFS_CTL_SLOW: the threshold; UINT64_MAX off */
	bool on;               /* OFS_CTL_TOP: on (else off) */
};

struct ofs_ctl_batch {
	size_t n;
	struct ofs_ctl_cmd cmds[OFS_CTL_BATCH_MAX_CMDS];
};

/*
 * ofs_ctl_cmd_parse - parse the @len bytes at @buf (not NUL-terminated;
 * may hold any byte) as one batch into @b.
 * Returns 0, or -EINVAL with a one-line reason in @err (NUL-terminated,
 * never quoting the input's bytes, so it is safe to show anywhere): too
 * long, a NUL byte, too many commands, or which line is wrong and why.
 * @b is complete only on success. Thread-safe; no allocation.
 */
int ofs_ctl_cmd_parse(const char *buf, size_t len, struct ofs_ctl_batch *b,
		      char *err, size_t errlen);

#endif /* OSPROF_FS_OFS_CTL_CMD_H */
