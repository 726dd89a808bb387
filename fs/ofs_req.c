// SPDX-License-Identifier: MIT
/*
 * A request's context (struct ofs_req, ofs_req.h): opened by the wrapper's
 * handler, closed by the reply. Timing a request costs two cycle-counter
 * reads and one lock-free record, nothing when recording is disabled.
 * With -o cpu_time the thread's CPU time for the request is recorded too;
 * with -o vtimers, in its place, the request's virtual time from osprof.ko
 * (ofs_kmod.c); with eBPF virtual time, the elapsed time less what eBPF
 * saw the thread lose (ofs_bpf.c). ofs_req_close is where a request is
 * recorded: its latency and CPU time go to the fs-layer profile
 * (fs->set), and whatever else is to be learnt per request is taken there
 * too -- the slow-request log (ofs_slow.c), the top view (ofs_top.c) once
 * it is on, -o values' tables (ofs_values.c) and -o by='s profiles per
 * key value (ofs_by.c).
 */
#include <assert.h>
#include <time.h>

#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_by.h"
#include "ofs_creds.h"
#include "ofs_kmod.h"
#include "ofs_req.h"
#include "ofs_slow.h"
#include "ofs_top.h"
#include "ofs_values.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void timing_start(struct ofs_req *r)
{
	struct ofs *fs = r->fs;

	r->on = osp_set_enabled(fs->set);
	if (!r->on)
		return;
	r->cpu0_ns = fs->opts.cpu_time && !fs->opts.vtimers && !fs->vt ? thread_cpu_ns() : 0;
	r->c0 = osp_clock_read(&fs->clk);
	/* Right after c0: the virtual time of [c0, end] is the elapsed time
	 * less what it left out meanwhile. */
	r->vt_on = fs->vt && ofs_bpf_vt_deduct(fs, &r->cpu0_ns);
	if (r->vt_on)
		return;
	/*
	 * The virtual timer runs inside the latency interval, so that cpu <=
	 * latency holds per request (latency = cpu + wait); the latency then
	 * includes the two ioctls.
	 */
	r->vt_on = fs->opts.vtimers && ofs_kmod_vt_start(fs);
}

int ofs_req_open(struct ofs_req *r, bool as_caller)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(r->req);

	r->fs = fuse_req_userdata(r->req);
	r->pid = ctx->pid;
	r->uid = ctx->uid;
	r->gid = ctx->gid;
	r->creds.switched = false;
	timing_start(r);
	return as_caller ? ofs_creds_enter(r->fs, r->req, &r->creds) : 0;
}

/* The CPU time @r used on this thread, stopping its virtual timer. */
static uint64_t timing_cpu_ns(struct ofs_req *r)
{
	struct ofs *fs = r->fs;
	uint64_t d1, el;

	if (r->vt_on && fs->vt) {
		if (!ofs_bpf_vt_deduct(fs, &d1))
			return 0;
		el = osp_clock_to_ns(&fs->clk, osp_clock_read(&fs->clk) - r->c0);
		/* Two clocks (calibrated TSC, ktime) may differ by a few ns. */
		return el > d1 - r->cpu0_ns ? el - (d1 - r->cpu0_ns) : 0;
	}
	if (r->vt_on)
		return ofs_kmod_vt_stop(fs);
	if (fs->opts.cpu_time && !fs->opts.vtimers && !fs->vt)
		return thread_cpu_ns() - r->cpu0_ns;
	return 0;
}

void ofs_req_close(struct ofs_req *r)
{
	uint64_t lat_ns, cpu_ns;

	if (!r->on)
		return;
	r->on = false;
	cpu_ns = r->detached ? r->cpu_ns : timing_cpu_ns(r);
	lat_ns = osp_clock_to_ns(&r->fs->clk, osp_clock_read(&r->fs->clk) - r->c0);
	osp_set_record(r->fs->set, r->op, lat_ns, cpu_ns);
	ofs_slow_record(r, lat_ns);
	/* Set once, by -o top or ctl's `top on`, which another thread may
	 * write now: an atomic load (ofs_top.c says why it is safe). */
	if (__atomic_load_n(&r->fs->top, __ATOMIC_ACQUIRE))
		ofs_top_record(r, lat_ns);
	if (r->fs->values)
		ofs_values_record(r, lat_ns);
	if (r->fs->by)
		ofs_by_record(r, lat_ns, cpu_ns);
}

void ofs_req_detach(struct ofs_req *r, struct ofs_req *to)
{
	*to = *r;
	to->creds.switched = false; /* the worker gives it back, not @to */
	r->on = false;
	if (!to->on)
		return;
	/* What the worker spent; the thread that replies only waits. */
	to->cpu_ns = timing_cpu_ns(to);
	to->vt_on = false;
	to->detached = true;
}

void ofs_req_end(struct ofs_req *r)
{
	/* Every handler replies (ofs_req_reply_*) or detaches before it returns. */
	assert(!r->on);
	ofs_creds_leave(&r->creds);
}
