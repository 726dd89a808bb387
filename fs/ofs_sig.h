/* SPDX-License-Identifier: MIT */
/*
 * The signals that stop the daemon (SIGINT, SIGTERM, SIGHUP) belong to
 * the thread that runs the session loop: libfuse's handlers mark the
 * session exited, and only the thread waiting there notices at once.
 * Threads started beside it block them, by starting under this mask.
 */
#ifndef OSPROF_FS_OFS_SIG_H
#define OSPROF_FS_OFS_SIG_H

#include <pthread.h>
#include <signal.h>

/* Block the stop signals in the calling thread (the threads it starts
 * inherit the mask); the mask before in *@old, for pthread_sigmask. */
static inline void ofs_sig_block_stop(sigset_t *old)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, old);
}

#endif /* OSPROF_FS_OFS_SIG_H */
