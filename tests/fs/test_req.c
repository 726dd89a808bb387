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
#include <errno.h>
#include <pthread.h>
#include <sys/statvfs.h>
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

/*
 * libfuse's replies, stubbed: each notes how many requests of the op
 * being replied to the profile held at that moment (a reader woken by the
 * reply could look no sooner). The daemon's own reply helpers
 * (ofs_req_reply_*, inline in ofs_req.h) call these.
 */
static enum ofs_op replying_op;
static uint64_t count_at_reply;
static unsigned replies;

static int at_reply(void)
{
	uint64_t cpu, lat;

	read_op(replying_op, &count_at_reply, &cpu, &lat);
	replies++;
	return 0;
}

int fuse_reply_err(fuse_req_t req, int err)
{
	(void)req;
	(void)err;
	return at_reply();
}

int fuse_reply_entry(fuse_req_t req, const struct fuse_entry_param *e)
{
	(void)req;
	(void)e;
	return at_reply();
}

int fuse_reply_create(fuse_req_t req, const struct fuse_entry_param *e,
		      const struct fuse_file_info *fi)
{
	(void)req;
	(void)e;
	(void)fi;
	return at_reply();
}

int fuse_reply_attr(fuse_req_t req, const struct stat *attr, double timeout)
{
	(void)req;
	(void)attr;
	(void)timeout;
	return at_reply();
}

int fuse_reply_readlink(fuse_req_t req, const char *link)
{
	(void)req;
	(void)link;
	return at_reply();
}

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi)
{
	(void)req;
	(void)fi;
	return at_reply();
}

int fuse_reply_statfs(fuse_req_t req, const struct statvfs *stbuf)
{
	(void)req;
	(void)stbuf;
	return at_reply();
}

int fuse_reply_xattr(fuse_req_t req, size_t count)
{
	(void)req;
	(void)count;
	return at_reply();
}

int fuse_reply_lseek(fuse_req_t req, off_t off)
{
	(void)req;
	(void)off;
	return at_reply();
}

int fuse_reply_write(fuse_req_t req, size_t count)
{
	(void)req;
	(void)count;
	return at_reply();
}

int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	(void)req;
	(void)buf;
	(void)size;
	return at_reply();
}

void fuse_reply_none(fuse_req_t req)
{
	(void)req;
	at_reply();
}

/* Reply to a request of @op by @kind; the count the reply found. */
static uint64_t count_seen_by_reply(enum ofs_op op, int kind)
{
	struct ofs_req r = timed(op);
	struct fuse_entry_param e = { 0 };
	struct fuse_file_info fi = { 0 };
	struct statvfs sv = { 0 };
	struct stat st = { 0 };

	replying_op = op;
	count_at_reply = UINT64_MAX;
	replies = 0;
	switch (kind) {
	case 0: ofs_req_reply_err(&r, -ENOENT); break;
	case 1: ofs_req_reply_entry(&r, &e); break;
	case 2: ofs_req_reply_create(&r, &e, &fi); break;
	case 3: ofs_req_reply_attr(&r, &st, 1.0); break;
	case 4: ofs_req_reply_readlink(&r, "target"); break;
	case 5: ofs_req_reply_open(&r, &fi); break;
	case 6: ofs_req_reply_statfs(&r, &sv); break;
	case 7: ofs_req_reply_xattr(&r, 12); break;
	case 8: ofs_req_reply_lseek(&r, 4096); break;
	case 9: ofs_req_reply_write(&r, 4096); break;
	case 10: ofs_req_reply_buf(&r, "data", 4); break;
	case 11: ofs_req_reply_none(&r); break;
	}
	ofs_req_end(&r);
	cr_assert_eq(replies, 1, "reply kind %d: one reply", kind);
	return count_at_reply;
}

/*
 * A process woken by a reply may read the profile at once: every reply
 * helper records its request before the reply goes out, so the count the
 * reply sees already holds it.
 */
Test(req, every_reply_goes_out_after_its_request_is_recorded)
{
	static const enum ofs_op ops[] = {
		OFS_OP_LOOKUP, OFS_OP_LOOKUP, OFS_OP_CREATE, OFS_OP_GETATTR,
		OFS_OP_READLINK, OFS_OP_OPEN, OFS_OP_STATFS, OFS_OP_GETXATTR,
		OFS_OP_LSEEK, OFS_OP_WRITE, OFS_OP_READ, OFS_OP_FORGET,
	};

	for (int kind = 0; kind < (int)(sizeof(ops) / sizeof(ops[0])); kind++) {
		uint64_t before, cpu, lat;

		read_op(ops[kind], &before, &cpu, &lat);
		cr_expect_eq(count_seen_by_reply(ops[kind], kind), before + 1,
			     "reply kind %d found %llu requests, not %llu", kind,
			     (unsigned long long)count_at_reply, (unsigned long long)before + 1);
	}
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
