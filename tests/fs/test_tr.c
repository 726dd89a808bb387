// SPDX-License-Identifier: MIT
/*
 * The transport's pure parts (fs/ofs_tr_proto.c, ofs_tr_umap.c), no mount: INIT and OPEN/CREATE
 * replies patched at the protocol's offsets, requests rebuilt from a ring
 * entry in place (and refused when the kernel's numbers do not add up),
 * replies written into an entry, the unique -> request map under
 * threads, and the CPU lists that say which queues get threads.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ofs_tr_cpus.h"
#include "ofs_tr_proto.h"
#include "ofs_tr_umap.h"

/* An INIT reply as libfuse 3.14 writes it: out-header, 64-byte init_out. */
struct init_msg {
	struct fuse_out_header out;
	struct fuse_init_out io;
};

Test(tr, init_reply_asks_for_passthrough_with_stack_depth_one_in_flags2)
{
	struct init_msg m = { .out = { sizeof(m), 0, 1 } };
	unsigned char *b = (unsigned char *)&m.io;

	m.io.flags = FUSE_INIT_EXT;
	m.io.flags2 = 0x1;
	cr_assert_eq(ofs_tr_patch_init(&m, sizeof(m), OFS_FUSE_PASSTHROUGH | OFS_FUSE_OVER_IO_URING, 1), 0);
	cr_expect_eq(m.io.flags2, 0x1u | 0x20u | 0x200u, "bit 37 and 41 land as 0x20 and 0x200 of flags2");
	cr_expect_eq(m.io.flags, (uint32_t)FUSE_INIT_EXT, "flags untouched");
	cr_expect_eq(b[36], 1, "max_stack_depth is the u32 at offset 36");
	cr_expect_eq(b[37] | b[38] | b[39], 0);
}

Test(tr, init_reply_without_passthrough_leaves_stack_depth)
{
	struct init_msg m = { .out = { sizeof(m), 0, 1 } };

	cr_assert_eq(ofs_tr_patch_init(&m, sizeof(m), OFS_FUSE_OVER_IO_URING, 1), 0);
	cr_expect_eq(m.io.flags2, 0x200u);
	cr_expect_eq(m.io.unused[0], 0u);
}

Test(tr, init_error_or_short_reply_is_not_patched)
{
	struct init_msg m = { .out = { sizeof(m), -EPROTO, 1 } };

	cr_expect_eq(ofs_tr_patch_init(&m, sizeof(m), OFS_FUSE_PASSTHROUGH, 1), -EINVAL);
	cr_expect_eq(m.io.flags2, 0u);
	m.out.error = 0;
	/* an old minor's 24-byte reply has no flags2 */
	cr_expect_eq(ofs_tr_patch_init(&m, sizeof(m.out) + 24, OFS_FUSE_PASSTHROUGH, 1), -EINVAL);
	cr_expect_eq(m.io.flags2, 0u);
}

Test(tr, open_reply_gets_passthrough_and_backing_id_without_cache_flags)
{
	struct fuse_open_out o = { .fh = 0x1234, .open_flags = FOPEN_KEEP_CACHE | FOPEN_DIRECT_IO | FOPEN_NOFLUSH };
	struct ofs_fuse_open_out *p = ofs_tr_open_out(&o, sizeof(o), FUSE_OPEN, sizeof(struct fuse_entry_out));
	unsigned char *b = (unsigned char *)&o;

	cr_assert_eq((void *)p, (void *)&o);
	ofs_tr_patch_open(p, 7);
	cr_expect_eq(o.open_flags, (uint32_t)(FOPEN_NOFLUSH | (1u << 7)));
	cr_expect_eq(b[12], 7, "backing_id is the word at offset 12");
	cr_expect_eq(o.fh, 0x1234u);
}

Test(tr, create_reply_has_its_open_after_the_entry)
{
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} c = { .o = { .fh = 99 } };
	struct ofs_fuse_open_out *p = ofs_tr_open_out(&c, sizeof(c), FUSE_CREATE, sizeof(c.e));

	cr_assert_eq((void *)p, (void *)&c.o);
	cr_expect_eq(p->fh, 99u);
	cr_expect_null(ofs_tr_open_out(&c, sizeof(c) - 1, FUSE_CREATE, sizeof(c.e)), "short");
	cr_expect_null(ofs_tr_open_out(&c, sizeof(c), FUSE_LOOKUP, sizeof(c.e)), "no open in it");
}

Test(tr, flatten_refuses_what_does_not_fit)
{
	char a[3] = "abc", b[2] = "de", out[5];
	struct iovec iov[2] = { { a, 3 }, { b, 2 } };

	cr_expect_eq(ofs_tr_flatten(iov, 2, out, 5), 5);
	cr_expect_eq(memcmp(out, "abcde", 5), 0);
	cr_expect_eq(ofs_tr_flatten(iov, 2, out, 4), -E2BIG);
}

Test(tr, init_request_gives_minor_and_flags2_only_with_init_ext)
{
	struct {
		struct fuse_in_header in;
		struct fuse_init_in ii;
	} m = { .in = { sizeof(m), FUSE_INIT, 2 },
		.ii = { .major = 7, .minor = 45, .flags = FUSE_INIT_EXT, .flags2 = 0x220 } };
	uint32_t minor;
	uint64_t flags;

	cr_assert_eq(ofs_tr_init_in(&m, sizeof(m), &minor, &flags), 0);
	cr_expect_eq(minor, 45u);
	cr_expect(flags & OFS_FUSE_PASSTHROUGH);
	cr_expect(flags & OFS_FUSE_OVER_IO_URING);
	m.ii.flags = 0;
	cr_assert_eq(ofs_tr_init_in(&m, sizeof(m), &minor, &flags), 0);
	cr_expect_eq(flags >> 32, 0u, "flags2 means nothing without FUSE_INIT_EXT");
	cr_expect_eq(ofs_tr_init_in(&m, sizeof(m.in) + 8, &minor, &flags), -EINVAL);
	m.in.opcode = FUSE_LOOKUP;
	cr_expect_eq(ofs_tr_init_in(&m, sizeof(m), &minor, &flags), -EINVAL);
}

/* A ring entry as ofs_tr_uring.c lays it out: header, gap, payload. */
struct entry {
	struct ofs_fuse_uring_req_header h;
	char gap[4096 - sizeof(struct ofs_fuse_uring_req_header)];
	char payload[8192];
};

/* A WRITE as the kernel puts it in an entry. */
static void put_write(struct entry *e, uint32_t op_sz, uint32_t data_sz)
{
	struct fuse_in_header in = { .len = (uint32_t)(sizeof(in) + op_sz + data_sz),
				     .opcode = FUSE_WRITE, .unique = 42, .nodeid = 5 };
	struct fuse_write_in w = { .fh = 77, .offset = 4096, .size = data_sz };

	memset(e, 0, sizeof(*e));
	memcpy(e->h.in_out, &in, sizeof(in));
	memcpy(e->h.op_in, &w, sizeof(w));
	memset(e->payload, 'x', data_sz);
	e->h.ring_ent_in_out.payload_sz = data_sz;
	e->h.ring_ent_in_out.commit_id = 42;
}

Test(tr, ring_request_is_rebuilt_in_one_piece_before_its_payload)
{
	struct entry *e = malloc(sizeof(*e));
	char *start = NULL;
	ssize_t len;
	const struct fuse_in_header *in;
	const struct fuse_write_in *w;

	cr_assert_not_null(e);
	put_write(e, sizeof(struct fuse_write_in), 100);
	len = ofs_tr_uring_rebuild(&e->h, e->payload, sizeof(e->h) + sizeof(e->gap), sizeof(e->payload), &start);
	cr_assert_eq(len, (ssize_t)(sizeof(*in) + sizeof(*w) + 100));
	cr_expect_eq(start, e->payload - sizeof(*in) - sizeof(*w), "the payload is not copied");
	in = (const void *)start;
	w = (const void *)(in + 1);
	cr_expect_eq(in->unique, 42u);
	cr_expect_eq(in->opcode, (uint32_t)FUSE_WRITE);
	cr_expect_eq(w->fh, 77u);
	cr_expect_eq(w->size, 100u);
	cr_expect_eq(((const char *)(w + 1))[99], 'x');
	free(e);
}

Test(tr, ring_request_with_no_operation_header_is_rebuilt)
{
	struct entry *e = malloc(sizeof(*e));
	char *start = NULL;

	cr_assert_not_null(e);
	put_write(e, 0, 6);
	cr_expect_eq(ofs_tr_uring_rebuild(&e->h, e->payload, 4096, sizeof(e->payload), &start),
		     (ssize_t)(sizeof(struct fuse_in_header) + 6));
	cr_expect_eq(start, e->payload - sizeof(struct fuse_in_header));
	free(e);
}

Test(tr, ring_request_whose_numbers_do_not_add_up_is_refused)
{
	struct entry *e = malloc(sizeof(*e));
	struct fuse_in_header *in = (void *)e->h.in_out;
	char *start = NULL;

	cr_assert_not_null(e);
	put_write(e, 40, 100);
	e->h.ring_ent_in_out.payload_sz = 9000;
	cr_expect_eq(ofs_tr_uring_rebuild(&e->h, e->payload, 4096, sizeof(e->payload), &start), -EINVAL,
		     "a payload larger than the entry's");
	put_write(e, 40, 100);
	in->len = 30;
	cr_expect_eq(ofs_tr_uring_rebuild(&e->h, e->payload, 4096, sizeof(e->payload), &start), -EINVAL,
		     "shorter than an in-header");
	put_write(e, 40, 100);
	in->len = sizeof(*in) + 20;
	cr_expect_eq(ofs_tr_uring_rebuild(&e->h, e->payload, 4096, sizeof(e->payload), &start), -EINVAL,
		     "a payload longer than the request");
	put_write(e, 40, 100);
	in->len = sizeof(*in) + 129 + 100;
	cr_expect_eq(ofs_tr_uring_rebuild(&e->h, e->payload, 4096, sizeof(e->payload), &start), -EINVAL,
		     "an operation header over op_in's 128 bytes");
	cr_expect_null(start, "nothing written out on a refusal");
	free(e);
}

Test(tr, reply_fills_the_entry_header_and_payload)
{
	struct entry *e = calloc(1, sizeof(*e));
	struct fuse_out_header out = { 0, 0, 42 };
	struct fuse_attr_out a = { .attr_valid = 3 };
	struct iovec iov[2] = { { &out, sizeof(out) }, { &a, sizeof(a) } };
	const struct fuse_out_header *o;

	cr_assert_not_null(e);
	cr_expect_eq(ofs_tr_uring_fill(&e->h, e->payload, sizeof(e->payload), iov, 2),
		     (ssize_t)(sizeof(out) + sizeof(a)));
	o = (const void *)e->h.in_out;
	cr_expect_eq(o->unique, 42u);
	cr_expect_eq(o->len, sizeof(out) + sizeof(a));
	cr_expect_eq(e->h.ring_ent_in_out.payload_sz, sizeof(a));
	cr_expect_eq(((struct fuse_attr_out *)(void *)e->payload)->attr_valid, 3u);
	cr_expect_eq(ofs_tr_uring_fill(&e->h, e->payload, sizeof(a) - 1, iov, 2), -E2BIG);
	free(e);
}

Test(tr, reply_pointing_into_the_payload_is_moved_not_smeared)
{
	struct entry *e = calloc(1, sizeof(*e));
	struct fuse_out_header out = { 0, 0, 1 };
	struct iovec iov[2] = { { &out, sizeof(out) }, { NULL, 100 } };

	cr_assert_not_null(e);
	for (int i = 0; i < 200; i++)
		e->payload[i] = (char)i;
	iov[1].iov_base = e->payload + 10;
	cr_expect_eq(ofs_tr_uring_fill(&e->h, e->payload, sizeof(e->payload), iov, 2), 116);
	for (int i = 0; i < 100; i++)
		cr_expect_eq(e->payload[i], (char)(i + 10));
	free(e);
}

/* ---- the map, from several threads ---- */
#define PER_THREAD 20000
static struct ofs_tr_umap map;

static void *put_take(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * PER_THREAD * 2 + 1;
	struct ofs_tr_unode *n = calloc(PER_THREAD, sizeof(*n));
	long found = 0;

	for (int i = 0; i < PER_THREAD; i++) {
		n[i].key = base + 2 * (uint64_t)i;
		ofs_tr_umap_put(&map, &n[i]);
	}
	for (int i = PER_THREAD - 1; i >= 0; i--)
		found += ofs_tr_umap_take(&map, base + 2 * (uint64_t)i) == &n[i];
	for (int i = 0; i < PER_THREAD; i++)
		found -= ofs_tr_umap_take(&map, base + 2 * (uint64_t)i) != NULL;
	free(n);
	return (void *)found;
}

Test(tr, map_gives_each_key_back_once_under_threads)
{
	pthread_t th[4];
	void *found;

	ofs_tr_umap_init(&map);
	for (uintptr_t i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, put_take, (void *)i), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], &found);
		cr_expect_eq((long)found, PER_THREAD, "each key taken once, then gone");
	}
	cr_expect_null(ofs_tr_umap_take(&map, 1));
	ofs_tr_umap_destroy(&map);
}

/* The kernel's lists as /sys/devices/system/cpu/ has them: the queues
 * (possible CPUs) are counted, and only the online ones get threads. */
Test(tr, cpu_lists_count_and_mark_the_cpus_they_name)
{
	bool in[16];

	cr_expect_eq(ofs_tr_cpus_parse("0-1\n", in, 16), 2);
	cr_expect(in[0] && in[1] && !in[2]);
	cr_expect_eq(ofs_tr_cpus_parse("0", in, 16), 1);
	cr_expect(in[0] && !in[1]);
	cr_expect_eq(ofs_tr_cpus_parse("0-3,8-11\n", in, 16), 8);
	for (unsigned c = 0; c < 16; c++)
		cr_expect_eq(in[c], c <= 3 || (c >= 8 && c <= 11), "cpu %u", c);
	cr_expect_eq(ofs_tr_cpus_parse("0,2,4-5", in, 16), 4);
	cr_expect(in[0] && !in[1] && in[2] && !in[3] && in[4] && in[5] && !in[6]);
	/* CPUs past @n are counted, not marked */
	cr_expect_eq(ofs_tr_cpus_parse("0-63", in, 16), 64);
	cr_expect(in[15]);
	cr_expect_eq(ofs_tr_cpus_parse("0-7", NULL, 0), 8);
}

Test(tr, what_is_not_a_cpu_list_is_refused)
{
	bool in[4];

	cr_expect_eq(ofs_tr_cpus_parse("", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("\n", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("3-1", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("0-", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("0,,1", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("a", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("1 2", in, 4), -EINVAL);
	/* overlapping, out of order, a trailing comma: counted wrong if taken */
	cr_expect_eq(ofs_tr_cpus_parse("0-3,2-5", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("4,0-1", in, 4), -EINVAL);
	cr_expect_eq(ofs_tr_cpus_parse("0-1,", in, 4), -EINVAL);
	/* a range past the array marks what fits, counts all: quickly */
	cr_expect_eq(ofs_tr_cpus_parse("0-1048575", in, 4), 1 << 20);
}

/* This machine's: every online CPU is a possible one, and the queues
 * that get threads are the online ones. */
Test(tr, the_online_cpus_are_among_the_possible_ones)
{
	unsigned n = ofs_tr_cpus_possible(0), online;
	bool *on;

	cr_assert_gt(n, 0u);
	on = calloc(n, sizeof(*on));
	cr_assert_not_null(on);
	online = ofs_tr_cpus_online(on, n);
	cr_expect_gt(online, 0u);
	cr_expect_leq(online, n);
	cr_expect_eq(online, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	free(on);
}
