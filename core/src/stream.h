/* SPDX-License-Identifier: MIT */
/* Private to the writers: the one way a writer reports how its stream fared. */
#ifndef OSPROF_STREAM_H
#define OSPROF_STREAM_H

#include <errno.h>
#include <stdio.h>

/* Flush @out and report any error it saw: 0 or -EIO. */
static inline int osp_stream_status(FILE *out)
{
	return (fflush(out) != 0 || ferror(out)) ? -EIO : 0;
}

#endif
