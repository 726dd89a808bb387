/* SPDX-License-Identifier: MIT */
/*
 * The polling loop's window rule (fs/ofs_loop.c), apart so that it can be
 * tested on its own: KVM's halt-polling grow and shrink
 * (virt/kvm/kvm_main.c), applied to the time a worker waited from its
 * reply to its next request.
 */
#ifndef OFS_POLL_H
#define OFS_POLL_H

#include <stdint.h>

/* The first window after a gap the window missed by little. */
#define OFS_POLL_GROW_NS 10000u

/*
 * ofs_poll_adapt - the next window of a worker whose window was @win ns
 * and whose last gap was @gap_ns, polling at most @max_ns: kept when the
 * gap was caught (gap <= win), halved (to 0 below OFS_POLL_GROW_NS) when
 * the gap was past @max_ns, else doubled (from OFS_POLL_GROW_NS), never
 * past @max_ns.
 */
static inline uint64_t ofs_poll_adapt(uint64_t win, uint64_t gap_ns, uint64_t max_ns)
{
	if (gap_ns <= win)
		return win;
	if (gap_ns > max_ns)
		return win / 2 < OFS_POLL_GROW_NS ? 0 : win / 2;
	if (win == 0)
		return OFS_POLL_GROW_NS < max_ns ? OFS_POLL_GROW_NS : max_ns;
	return win * 2 < max_ns ? win * 2 : max_ns;
}

#endif
