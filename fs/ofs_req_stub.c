// SPDX-License-Identifier: MIT
/*
 * What a request's context (ofs_req.c) reaches of the rest of the daemon,
 * reduced to nothing, for the programs that take ofs_req.c on its own
 * (tests/fs/test_req.c, bench/osprof_values_cost.c): osprof.ko's virtual
 * timers and eBPF virtual time are never on; taking the caller's identity
 * only marks it taken, and giving it back counts in
 * ofs_req_stub_creds_left.
 */
#include "ofs.h"

unsigned ofs_req_stub_creds_left;

bool ofs_bpf_vt_deduct(struct ofs *fs, uint64_t *ns)
{
	(void)fs;
	*ns = 0;
	return false;
}

bool ofs_kmod_vt_start(struct ofs *fs)
{
	(void)fs;
	return false;
}

uint64_t ofs_kmod_vt_stop(struct ofs *fs)
{
	(void)fs;
	return 0;
}

int ofs_creds_enter(struct ofs *fs, fuse_req_t req, struct ofs_creds_saved *s)
{
	(void)fs;
	(void)req;
	s->switched = true;
	return 0;
}

void ofs_creds_leave(struct ofs_creds_saved *s)
{
	if (s->switched)
		ofs_req_stub_creds_left++;
	s->switched = false;
}

/* The slow log, the top view and -o by, off: weak, so a program that
 * counts their calls (tests/fs/test_req.c) defines its own. */
__attribute__((weak)) void ofs_slow_log(struct ofs_req *r, uint64_t lat_ns)
{
	(void)r;
	(void)lat_ns;
}

__attribute__((weak)) void ofs_top_record(struct ofs_req *r, uint64_t lat_ns)
{
	(void)r;
	(void)lat_ns;
}

__attribute__((weak)) void ofs_by_record(struct ofs_req *r, uint64_t lat_ns, uint64_t cpu_ns)
{
	(void)r;
	(void)lat_ns;
	(void)cpu_ns;
}
