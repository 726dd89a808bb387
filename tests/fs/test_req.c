// SPDX-License-Identifier: MIT
/*
 * A request's context (fs/ofs_req.c) on its own: closing it is the one
 * place a request is recorded, once however often its reply path closes
 * it; a request detached to another thread (a lock waited for) is
 * recorded once, by the thread that replies, with the CPU time its worker
 * used; and the caller's identity stays with the worker, which gives it
 * back when its handler ends. The mount-level side of the same (a waited
 * flock counted once with its whole wait) is in test_locks.c.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <time.h>

#include "ofs.h"
#include "ofs_creds.h"
#include "ofs_req.h"
#include "ofs_slow.h"
#include "ofs_top.h"
#include "ofs_values.h"

/* The rest of the daemon is stubbed (ofs_req_stub.c); it counts the
 * identities given back here. */
extern unsigned ofs_req_stub_creds_left;

/* -o values is off here (fs.values is NULL): never called. */
void ofs_values_record(const struct ofs_req *r, uint64_t lat_ns)
{
	(void)r;
	(void)lat_ns;
	cr_assert_fail("value profiles recorded with -o values off");
}

/* The slow log and the top view: counted calls. */
static unsigned slow_logged, top_recorded;

void ofs_slow_log(struct ofs_req *r, uint64_t lat_ns)
{
	(void)r;
	(void)lat_ns;
	slow_logged++;
}

void ofs_top_record(struct ofs_req *r, uint64_t lat_ns)
{
	(void)r;
	(void)lat_ns;
	top_recorded++;
}

static struct ofs fs;

static void up(void)
{
	static const char *names[OFS_OP__COUNT];

	for (unsigned i = 0; i < OFS_OP__COUNT; i++)
		names[i] = "op";
	osp_clock_init_monotonic(&fs.clk);
	fs.opts.cpu_time = true; /* the thread's CPU clock */
	fs.set = osp_set_new(names, OFS_OP__COUNT, 1, true);
	cr_assert_not_null(fs.set);
	osp_set_enable(fs.set, true);
	ofs_req_stub_creds_left = 0;
	fs.slow_ns = UINT64_MAX;
	slow_logged = top_recorded = 0;
}

static void down(void)
{
	osp_set_free(fs.set);
}

TestSuite(req, .init = up, .fini = down, .timeout = 30);

/* The latency and CPU histograms of @op recorded so far, as a reader sees them. */
static void read_op(enum ofs_op op, uint64_t *count, uint64_t *cpu_max_ns,
		    uint64_t *lat_min_ns)
{
	struct osp_profile *p = osp_profile_new("fs", 1);

	cr_assert_not_null(p);
	cr_assert_eq(osp_set_snapshot(fs.set, p), 0);
	cr_assert_eq(p->nops, OFS_OP__COUNT);
	*count = p->ops[op].lat.count;
	*cpu_max_ns = p->ops[op].cpu.max;
	*lat_min_ns = p->ops[op].lat.min;
	osp_profile_free(p);
}

/* A context as ofs_req_open leaves it, timed from now. */
static struct ofs_req timed(enum ofs_op op)
{
	struct timespec ts;
	struct ofs_req r = { .op = op, .fs = &fs, .on = true };

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	r.cpu0_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r.c0 = osp_clock_read(&fs.clk);
	return r;
}

/* Spend about @ns of this thread's CPU time. */
static void burn(uint64_t ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((uint64_t)(b.tv_sec - a.tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
		       (uint64_t)a.tv_nsec < ns);
}

Test(req, a_request_closed_again_is_recorded_once)
{
	struct ofs_req r = timed(OFS_OP_READ);
	uint64_t n, cpu, lat;

	ofs_req_close(&r);
	ofs_req_close(&r);
	ofs_req_end(&r);
	read_op(OFS_OP_READ, &n, &cpu, &lat);
	cr_expect_eq(n, 1);
}

Test(req, a_request_not_timed_is_not_recorded)
{
	struct ofs_req r = { .op = OFS_OP_READ, .fs = &fs };
	uint64_t n, cpu, lat;

	ofs_req_close(&r);
	ofs_req_end(&r);
	read_op(OFS_OP_READ, &n, &cpu, &lat);
	cr_expect_eq(n, 0);
}

static void *reply_later(void *arg)
{
	struct ofs_req *w = arg;

	nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
	ofs_req_close(w);
	return NULL;
}

Test(req, a_detached_request_is_recorded_once_by_the_thread_that_replies)
{
	struct ofs_req r = timed(OFS_OP_FLOCK), w;
	uint64_t n, cpu, lat;
	pthread_t th;

	burn(2000000);
	ofs_req_detach(&r, &w);
	/* The worker's reply path and end find it closed: nothing recorded. */
	ofs_req_close(&r);
	ofs_req_end(&r);
	read_op(OFS_OP_FLOCK, &n, &cpu, &lat);
	cr_expect_eq(n, 0, "recorded at the reply, not when detached");
	cr_assert_eq(pthread_create(&th, NULL, reply_later, &w), 0);
	pthread_join(th, NULL);
	ofs_req_close(&w);
	read_op(OFS_OP_FLOCK, &n, &cpu, &lat);
	cr_expect_eq(n, 1);
	cr_expect_geq(lat, 20000000, "its latency runs to the reply: %llu ns",
		      (unsigned long long)lat);
	cr_expect_geq(cpu, 2000000, "the CPU time its worker used: %llu ns",
		      (unsigned long long)cpu);
	cr_expect_lt(cpu, 20000000, "not the waiter's wait: %llu ns", (unsigned long long)cpu);
}

Test(req, the_callers_identity_stays_with_the_worker_when_detached)
{
	struct ofs_req r = timed(OFS_OP_FLOCK), w;

	cr_assert_eq(ofs_creds_enter(&fs, NULL, &r.creds), 0);
	ofs_req_detach(&r, &w);
	cr_expect_not(w.creds.switched, "the waiter holds no identity to give back");
	ofs_req_close(&w);
	ofs_req_end(&w);
	cr_expect_eq(ofs_req_stub_creds_left, 0);
	ofs_req_end(&r);
	cr_expect_eq(ofs_req_stub_creds_left, 1, "given back once, by the worker");
}

Test(req, only_a_request_at_least_the_slow_threshold_goes_to_the_slow_log)
{
	struct ofs_req a = timed(OFS_OP_READ), b;

	ofs_req_close(&a);
	ofs_req_end(&a);
	cr_expect_eq(slow_logged, 0, "off: never");
	fs.slow_ns = 0;
	b = timed(OFS_OP_READ);
	ofs_req_close(&b);
	ofs_req_end(&b);
	cr_expect_eq(slow_logged, 1, "threshold 0: every request");
	fs.slow_ns = 3600000000000ull;
	b = timed(OFS_OP_READ);
	ofs_req_close(&b);
	ofs_req_end(&b);
	cr_expect_eq(slow_logged, 1, "an hour: none");
	cr_expect_eq(top_recorded, 0, "no top view: never called");
}
