// SPDX-License-Identifier: MIT
/*
 * The loader's own logic (layer lists, names) and the syscall layer on
 * this very process: exact counts of calls it makes, and the bucket of a
 * known sleep.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "obp.h"
#include "tb_helpers.h"

Test(layers, parse)
{
	unsigned m = 0;
	char err[200] = "";

	cr_assert_eq(obp_layers_parse("fuse,lower", &m, err, sizeof(err)), 0);
	cr_expect_eq(m, OBP_LAYER_BIT(OBP_L_FUSE) | OBP_LAYER_BIT(OBP_L_LOWER));
	cr_assert_eq(obp_layers_parse("all", &m, err, sizeof(err)), 0);
	cr_expect_eq(m, OBP_LAYERS_ALL);
	cr_assert_eq(obp_layers_parse("none", &m, err, sizeof(err)), 0);
	cr_expect_eq(m, 0u);
	m = 7;
	cr_expect_eq(obp_layers_parse("fuse,disk", &m, err, sizeof(err)), -EINVAL);
	cr_expect(strstr(err, "'disk'"), "%s", err);
	cr_expect_eq(m, 7u, "a bad list changes nothing");
	cr_expect_eq(obp_layers_parse("fuse,", &m, err, sizeof(err)), -EINVAL);
	cr_assert_eq(obp_layers_parse("syscall:fuse", &m, err, sizeof(err)), 0);
	cr_expect_eq(m, OBP_LAYER_BIT(OBP_L_FUSE) | OBP_LAYER_BIT(OBP_L_SYSCALL));
}

Test(layers, names)
{
	char b[64];

	cr_expect_str_eq(obp_fuse_op_name(15, b, sizeof(b)), "read");
	cr_expect_str_eq(obp_fuse_op_name(45, b, sizeof(b)), "rename");
	cr_expect_str_eq(obp_fuse_op_name(9999, b, sizeof(b)), "op_9999");
	cr_expect_str_eq(obp_syscall_name(17, b, sizeof(b)), "pread64");
	cr_expect_str_eq(obp_syscall_name(1000, b, sizeof(b)), "syscall_1000");
	cr_expect_eq(obp_syscall_nr("newfstatat"), 262);
	cr_expect_eq(obp_syscall_nr("no_such_call"), -1);
}

/* N preads, M fstats and K 2 ms sleeps of this process: counted exactly. */
Test(layers, syscall_counts)
{
	struct obp_opts o = { .layers = OBP_LAYER_BIT(OBP_L_SYSCALL) };
	enum { N = 321, M = 123, K = 7 };
	struct osp_profile *p = NULL;
	struct timespec two_ms = { 0, 2000000 };
	char err[200], buf[64];
	struct obp *b;
	struct stat st;
	int fd;

	cr_assert_eq(obp_open(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(obp_layers(b), OBP_LAYER_BIT(OBP_L_SYSCALL), "%s", obp_why(b, OBP_L_SYSCALL));
	fd = open("/proc/self/exe", O_RDONLY);
	cr_assert_geq(fd, 0);
	cr_assert_eq(obp_pid_add(b, getpid()), 0);
	for (int i = 0; i < N; i++)
		cr_assert_eq(pread(fd, buf, sizeof(buf), i), (ssize_t)sizeof(buf));
	for (int i = 0; i < M; i++)
		cr_assert_eq(fstat(fd, &st), 0);
	for (int i = 0; i < K; i++)
		cr_assert_eq(nanosleep(&two_ms, NULL), 0);
	obp_enable(b, false);
	cr_assert_eq(obp_profile(b, OBP_L_SYSCALL, &p), 0);
	cr_expect_eq(osp_profile_check(p, stderr), 0u);
	cr_expect_eq(tb_count(p, "pread64"), (uint64_t)N);
	cr_expect_eq(tb_count(p, "fstat") + tb_count(p, "newfstatat"), (uint64_t)M);
	tb_expect_2ms_sleeps(p, K);
	osp_profile_free(p);
	cr_assert_eq(obp_reset(b), 0);
	cr_assert_eq(obp_profile(b, OBP_L_SYSCALL, &p), 0);
	cr_expect_eq(p->nops, 0u, "reset empties the layer");
	osp_profile_free(p);
	close(fd);
	obp_close(b);
}
