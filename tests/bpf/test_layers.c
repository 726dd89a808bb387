// SPDX-License-Identifier: MIT
/*
 * The loader's own logic (layer lists, names) and the syscall layer on
 * this very process: exact counts of calls it makes, and the bucket of a
 * known sleep; with a mount filter, exactly the calls on the mount (its
 * descriptors, opens and stat calls whose result is on it), none of
 * another mount's, of a skipped inode's or of a path call that leaves no
 * evidence.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "obp.h"
#include "obp_impl.h" /* struct obp: which skeleton loaded */
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

/* The light skeleton's loader does CO-RE in the kernel: 5.17 and later
 * (before, obp_sys.c falls back to the regular skeleton). */
static bool light_loads_here(void)
{
	struct utsname u;
	int maj = 0, min = 0;

	cr_assert_eq(uname(&u), 0);
	cr_assert_eq(sscanf(u.release, "%d.%d", &maj, &min), 2, "%s", u.release);
	return maj > 5 || (maj == 5 && min >= 17);
}

/*
 * N preads, M fstats and K 2 ms sleeps of this process: counted exactly,
 * with @slots calls' histograms found by index (0: the default number)
 * and the others' by hash; loaded by the light skeleton when @light
 * (obp_sys.c: unless more slots than it has are asked for), else by the
 * regular one.
 */
static void syscall_counts(unsigned slots, bool load_heap, bool light)
{
	struct obp_opts o = { .layers = OBP_LAYER_BIT(OBP_L_SYSCALL), .sys_slots = slots,
			      .load_heap = load_heap };
	enum { N = 321, M = 123, K = 7 };
	struct osp_profile *p = NULL;
	struct timespec two_ms = { 0, 2000000 };
	char err[200], buf[64];
	struct obp *b;
	struct stat st;
	int fd;

	cr_assert_eq(obp_open(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(obp_layers(b), OBP_LAYER_BIT(OBP_L_SYSCALL), "%s", obp_why(b, OBP_L_SYSCALL));
	cr_assert_eq(obp_sys_light(b), light && light_loads_here());
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

Test(layers, syscall_counts)
{
	syscall_counts(0, false, true);
}

/* Two slots: pread64 and the next call take them, the rest go by hash. */
Test(layers, syscall_counts_past_the_slots)
{
	syscall_counts(2, false, true);
}

/* More slots than the light skeleton's map has: the regular skeleton,
 * which sizes the map, counts the same. */
Test(layers, syscall_counts_by_the_regular_skeleton)
{
	syscall_counts(OBP_SYS_SLOTS + 1, false, false);
}

/* Whether @tgid's bit is set in the bitmap of traced processes. */
static bool pid_bit(const struct obp *b, pid_t tgid)
{
	return (__atomic_load_n(&b->pid_bits[tgid / 64], __ATOMIC_RELAXED) >> (tgid % 64)) & 1;
}

/*
 * follow_children (osprof-trace's): a child that this process forks is
 * traced -- its N preads counted, the parent made none -- and its bit
 * is cleared once it has exited (its number may be reused). With @slots
 * past the light skeleton's map, the regular skeleton's programs (on
 * tp_btf) do the same.
 */
static void children_followed(unsigned slots)
{
	struct obp_opts o = { .layers = OBP_LAYER_BIT(OBP_L_SYSCALL), .follow_children = true,
			      .sys_slots = slots };
	enum { N = 77 };
	struct osp_profile *p = NULL;
	char err[200];
	struct obp *b;
	pid_t kid;
	int st;

	cr_assert_eq(obp_open(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(obp_layers(b), OBP_LAYER_BIT(OBP_L_SYSCALL), "%s", obp_why(b, OBP_L_SYSCALL));
	cr_assert_eq(obp_sys_light(b), !slots && light_loads_here());
	cr_assert_eq(obp_pid_add(b, getpid()), 0);
	kid = fork();
	cr_assert_geq(kid, 0);
	if (kid == 0) {
		char buf[8];
		int fd = open("/proc/self/exe", O_RDONLY);

		for (int i = 0; i < N; i++)
			if (fd < 0 || pread(fd, buf, sizeof(buf), i) != (ssize_t)sizeof(buf))
				_exit(1);
		_exit(0);
	}
	cr_assert_eq(waitpid(kid, &st, 0), kid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	obp_enable(b, false);
	cr_expect(pid_bit(b, getpid()), "the parent is still traced");
	cr_expect_not(pid_bit(b, kid), "the child's bit is cleared at its end");
	cr_assert_eq(obp_profile(b, OBP_L_SYSCALL, &p), 0);
	cr_expect_eq(tb_count(p, "pread64"), (uint64_t)N);
	osp_profile_free(p);
	obp_close(b);
}

Test(layers, children_are_followed_and_forgotten_when_they_end)
{
	children_followed(0);
}

Test(layers, children_are_followed_by_the_regular_skeleton_too)
{
	children_followed(OBP_SYS_SLOTS + 1);
}

/*
 * load_heap (osprof-trace's): libbpf's copies of the kernel's BTF come
 * from malloc's heap while two objects load; the layers count as
 * without, and afterwards the heap is given back and a 1 MiB block is
 * mapped on its own again (the default threshold, 128 KiB).
 */
Test(layers, load_heap_loads_counts_and_gives_the_memory_back)
{
	struct obp_opts o = { .layers = OBP_LAYER_BIT(OBP_L_SYSCALL) | OBP_LAYER_BIT(OBP_L_BLOCK),
			      .load_heap = true };
	struct mallinfo2 before, after;
	char err[200];
	struct obp *b;
	void *p;

	cr_assert_eq(obp_open(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(obp_layers(b), o.layers, "%s / %s", obp_why(b, OBP_L_SYSCALL),
		     obp_why(b, OBP_L_BLOCK));
#ifndef __SANITIZE_ADDRESS__ /* its allocator is not glibc's, which mallinfo2 reads */
	before = mallinfo2();
	cr_expect_lt(before.fordblks, (size_t)(1 << 20), "%zu bytes kept free in the heap",
		     before.fordblks);
	p = malloc(1 << 20);
	cr_assert_not_null(p);
	after = mallinfo2();
	cr_expect_eq(after.hblks, before.hblks + 1, "a 1 MiB block is mapped on its own");
	free(p);
#else
	(void)before, (void)after, (void)p;
#endif
	obp_close(b);
	syscall_counts(0, true, true);
}

/* ---- the mount filter ---- */

/* linux/stat.h's STATX_MNT_ID_UNIQUE (Linux 6.8; not in older headers) */
#define OBP_TEST_MNT_ID_UNIQUE 0x4000u

static char mtop[64];
static char ma[80], mb[80];

static void mounts_up(void)
{
	snprintf(mtop, sizeof(mtop), "/tmp/obp-mnt-XXXXXX");
	cr_assert(mkdtemp(mtop), "mkdtemp: %s", strerror(errno));
	snprintf(ma, sizeof(ma), "%s/a", mtop);
	snprintf(mb, sizeof(mb), "%s/b", mtop);
	cr_assert_eq(mkdir(ma, 0700), 0);
	cr_assert_eq(mkdir(mb, 0700), 0);
	if (mount("obp-test", ma, "tmpfs", 0, "size=1m") != 0)
		cr_skip_test("cannot mount tmpfs: %s", strerror(errno));
	if (mount("obp-test", mb, "tmpfs", 0, "size=1m") != 0)
		cr_skip_test("cannot mount tmpfs: %s", strerror(errno));
}

static void mounts_down(void)
{
	umount2(ma, MNT_DETACH);
	umount2(mb, MNT_DETACH);
	rmdir(ma);
	rmdir(mb);
	rmdir(mtop);
}

/* A file of a few bytes at @dir/@name; its path in @path. */
static void small_file(const char *dir, const char *name, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, "0123456789", 10), 10);
	close(fd);
}

/* Raw calls: the counts name the system calls, whatever the C library
 * would make of stat() or open(). */
static long raw_openat(const char *path)
{
	return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
}

/* True when this process holds a loaded BPF program named @name (the
 * kernel keeps 15 characters): each descriptor that links to a program
 * is asked its name. */
static bool holds_prog(const char *name)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	bool found = false;

	cr_assert_not_null(d);
	while (!found && (e = readdir(d))) {
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);
		char path[64], link[64];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:bpf-prog") == 0 &&
		    bpf_obj_get_info_by_fd(atoi(e->d_name), &info, &len) == 0)
			found = strncmp(info.name, name, sizeof(info.name) - 1) == 0;
	}
	closedir(d);
	return found;
}

/* @probe_reads: the programs of kernels before 6.2 (obp_opts). */
static void mount_filter_counts(bool probe_reads)
{
	enum { N = 41, S = 13, L = 7, F = 5, X = 11, Y = 3 };
	char fa[128], fb[128], fg[128], missing[128], buf[8];
	struct obp_opts o = { .layers = OBP_LAYER_BIT(OBP_L_SYSCALL), .mount_filter = true,
			      .probe_reads = probe_reads };
	struct osp_profile *p = NULL;
	struct statx stx;
	struct stat st;
	char err[200];
	struct obp *b;
	long a, bfd, g;
	void *map;

	small_file(ma, "f", fa, sizeof(fa));
	small_file(mb, "f", fb, sizeof(fb));
	small_file(ma, "g", fg, sizeof(fg));
	snprintf(missing, sizeof(missing), "%s/missing", ma);
	cr_assert_eq(statx(AT_FDCWD, ma, 0, STATX_MNT_ID, &stx), 0);
	o.mount_id = (int)stx.stx_mnt_id;
	o.mount_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	/* g stands for a control file: its inode is skipped. */
	cr_assert_eq(stat(fg, &st), 0);
	o.skip_ino_lo = st.st_ino;
	o.skip_ino_hi = st.st_ino + 1;
	cr_assert_eq(obp_open(&o, &b, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(obp_layers(b), OBP_LAYER_BIT(OBP_L_SYSCALL), "%s", obp_why(b, OBP_L_SYSCALL));
	/* the pair asked for, not the other */
	cr_assert(holds_prog(probe_reads ? "obp_sys_enter_pr" : "obp_sys_enter_mnt"));
	cr_assert(!holds_prog(probe_reads ? "obp_sys_enter_mnt" : "obp_sys_enter_pr"));
	cr_assert_eq(obp_pid_add(b, getpid()), 0);

	a = raw_openat(fa);                 /* counted: its descriptor is on a */
	bfd = raw_openat(fb);               /* not: on b */
	g = raw_openat(fg);                 /* not: a skipped inode */
	cr_assert(a >= 0 && bfd >= 0 && g >= 0);
	cr_assert_lt(raw_openat(missing), 0); /* not: no descriptor, no evidence */
	for (int i = 0; i < N; i++) {
		cr_assert_eq(pread((int)a, buf, 1, 0), 1);
		cr_assert_eq(pread((int)bfd, buf, 1, 0), 1);
		cr_assert_eq(pread((int)g, buf, 1, 0), 1);
	}
	for (int i = 0; i < S; i++) {
		cr_assert_eq(syscall(SYS_stat, fa, &st), 0);
		cr_assert_eq(syscall(SYS_stat, fb, &st), 0);
		cr_assert_eq(syscall(SYS_stat, fg, &st), 0);
	}
	for (int i = 0; i < L; i++)
		cr_assert_eq(syscall(SYS_lstat, fa, &st), 0);
	for (int i = 0; i < F; i++) {
		cr_assert_eq(syscall(SYS_newfstatat, AT_FDCWD, fa, &st, 0), 0);
		cr_assert_eq(syscall(SYS_newfstatat, (int)a, "", &st, AT_EMPTY_PATH), 0);
		cr_assert_eq(syscall(SYS_newfstatat, AT_FDCWD, fb, &st, 0), 0);
	}
	for (int i = 0; i < X; i++) {
		cr_assert_eq(statx(AT_FDCWD, fa, 0, STATX_BASIC_STATS | STATX_MNT_ID, &stx), 0);
		cr_assert_eq(statx(AT_FDCWD, fb, 0, STATX_BASIC_STATS | STATX_MNT_ID, &stx), 0);
		/* the 64-bit unique id (Linux 6.8): known by the device then */
		cr_assert_eq(statx(AT_FDCWD, fa, 0, STATX_BASIC_STATS | OBP_TEST_MNT_ID_UNIQUE, &stx), 0);
		cr_assert_eq(statx(AT_FDCWD, fb, 0, STATX_BASIC_STATS | OBP_TEST_MNT_ID_UNIQUE, &stx), 0);
	}
	for (int i = 0; i < Y; i++) {
		cr_assert_eq(access(fa, R_OK), 0);      /* a path call: no evidence */
		cr_assert_lt(syscall(SYS_stat, missing, &st), 0);
	}
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, (int)a, 0); /* counted */
	cr_assert_neq(map, MAP_FAILED);
	munmap(map, 4096);
	/* Anonymous: the descriptor it carries is not looked at. */
	map = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, (int)a, 0);
	cr_assert_neq(map, MAP_FAILED);
	munmap(map, 4096);
	close((int)a);                      /* counted */
	close((int)bfd);
	close((int)g);
	obp_enable(b, false);

	cr_assert_eq(obp_profile(b, OBP_L_SYSCALL, &p), 0);
	cr_expect_eq(osp_profile_check(p, stderr), 0u);
	cr_expect_eq(tb_count(p, "openat"), 1u);
	cr_expect_eq(tb_count(p, "pread64"), (uint64_t)N);
	cr_expect_eq(tb_count(p, "stat"), (uint64_t)S);
	cr_expect_eq(tb_count(p, "lstat"), (uint64_t)L);
	cr_expect_eq(tb_count(p, "newfstatat"), (uint64_t)(2 * F));
	cr_expect_eq(tb_count(p, "statx"), (uint64_t)(2 * X));
	cr_expect_eq(tb_count(p, "access"), 0u);
	cr_expect_eq(tb_count(p, "mmap"), 1u);
	cr_expect_eq(tb_count(p, "munmap"), 0u, "a call on no descriptor");
	cr_expect_eq(tb_count(p, "close"), 1u);
	cr_expect_eq(p->nops, 8u, "no op but those above");
	osp_profile_free(p);
	obp_close(b);
}

Test(layers, mount_filter_counts_the_mounts_calls_exactly, .init = mounts_up, .fini = mounts_down)
{
	mount_filter_counts(false);
}

Test(layers, mount_filter_by_probe_reads_counts_the_same, .init = mounts_up, .fini = mounts_down)
{
	mount_filter_counts(true);
}
