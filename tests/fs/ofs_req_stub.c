// SPDX-License-Identifier: MIT
/*
 * What a request's context (fs/ofs_req.c) reaches of the rest of the
 * daemon, reduced to nothing, for its unit test (test_req.c, which counts
 * the slow log's and the top view's calls itself): osprof.ko's virtual
 * timers and eBPF virtual time are never on; taking the caller's identity
 * only marks it taken, and giving it back counts in
 * ofs_req_stub_creds_left. With every symbol ofs_req.o needs defined
 * here, the linker takes ofs_req.o alone from the daemon's library: the
 * test runs the daemon's own object, not a copy compiled for it.
 */
#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_by.h"
#include "ofs_creds.h"
#include "ofs_kmod.h"
#include "ofs_req.h"

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

/* -o by, off. */
void ofs_by_record(struct ofs_req *r, uint64_t lat_ns, uint64_t cpu_ns)
{
	(void)r;
	(void)lat_ns;
	(void)cpu_ns;
}
