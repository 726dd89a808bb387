// SPDX-License-Identifier: MIT
/*
 * Directory entries through the mount, by plain READDIR (-o
 * readdirplus=no) and by READDIRPLUS (=yes): a directory larger than one
 * reply buffer, holding regular files, directories, symlinks, a FIFO and
 * a socket, lists exactly what the lower directory lists, each entry with
 * the lower's d_type and inode number. The profile says which request
 * served the listing, so each run tests the path it names.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "harness.h"

#define NFILES 3000 /* ~60 bytes an entry: many 4 KiB reply buffers */
#define NDIRS 40
#define NLINKS 40

static struct mnt m;

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(dirents, .fini = down, .timeout = 120);

struct ent {
	char name[256];
	ino_t ino;
	unsigned char type;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

/* Every entry of @dir, sorted by name, into *@out; returns the count. */
static size_t list(const char *dir, struct ent **out)
{
	size_t n = 0, cap = 64;
	struct ent *v = malloc(cap * sizeof(*v));
	DIR *d = opendir(dir);
	struct dirent *de;

	cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
	cr_assert_not_null(v);
	errno = 0;
	while ((de = readdir(d))) {
		if (n == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
			cr_assert_not_null(v);
		}
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		v[n].ino = de->d_ino;
		v[n].type = de->d_type;
		n++;
	}
	cr_assert_eq(errno, 0, "readdir %s: %s", dir, strerror(errno));
	closedir(d);
	qsort(v, n, sizeof(*v), by_name);
	*out = v;
	return n;
}

/* lower/big: files, directories, symlinks, a FIFO and a socket. */
static void make_tree(void)
{
	char dir[PATH_MAX], p[PATH_MAX + 80];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s;

	h_path(dir, m.lower, "big");
	cr_assert_eq(mkdir(dir, 0755), 0);
	for (int i = 0; i < NFILES; i++) {
		snprintf(p, sizeof(p), "%s/file-%04d-with-a-name-long-enough-to-fill-buffers", dir, i);
		cr_assert_eq(h_write_str(p, ""), 0, "%s", p);
	}
	for (int i = 0; i < NDIRS; i++) {
		snprintf(p, sizeof(p), "%s/dir-%02d", dir, i);
		cr_assert_eq(mkdir(p, 0755), 0);
	}
	for (int i = 0; i < NLINKS; i++) {
		snprintf(p, sizeof(p), "%s/link-%02d", dir, i);
		cr_assert_eq(symlink("dir-00", p), 0);
	}
	snprintf(p, sizeof(p), "%s/fifo", dir);
	cr_assert_eq(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/sock", dir);
	cr_assert_lt(strlen(p), sizeof(sa.sun_path), "%s", p);
	strcpy(sa.sun_path, p);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	cr_assert_geq(s, 0);
	cr_assert_eq(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	close(s);
}

/* Mounted with -o readdirplus=@mode, big lists as the lower does, by
 * requests of @op (and none of @other_op). */
static void expect_same_listing(const char *mode, const char *op, const char *other_op)
{
	const char *args[] = { "-o", mode, NULL };
	char lower[PATH_MAX], upper[PATH_MAX];
	struct ent *a, *b;
	struct osp_profile *p;
	size_t na, nb, kinds[16] = { 0 };

	h_start(&m, args);
	na = list(h_path(lower, m.lower, "big"), &a);
	nb = list(h_path(upper, m.dir, "big"), &b);
	cr_assert_eq(nb, na, "%s: %zu entries through the mount, %zu below", mode, nb, na);
	cr_assert_eq(na, NFILES + NDIRS + NLINKS + 2 + 2, "the tree as made");
	for (size_t i = 0; i < na; i++) {
		cr_expect_str_eq(b[i].name, a[i].name, "%s", mode);
		cr_expect_eq(b[i].type, a[i].type, "%s: %s d_type %u, lower %u", mode,
			     a[i].name, b[i].type, a[i].type);
		cr_expect_eq(b[i].ino, a[i].ino, "%s: %s inode %lu, lower %lu", mode, a[i].name,
			     (unsigned long)b[i].ino, (unsigned long)a[i].ino);
		kinds[a[i].type & 15]++;
	}
	/* The lower gave each kind its own type: every kind was compared. */
	cr_expect_eq(kinds[DT_REG], NFILES);
	cr_expect_eq(kinds[DT_DIR], NDIRS + 2);
	cr_expect_eq(kinds[DT_LNK], NLINKS);
	cr_expect_eq(kinds[DT_FIFO], 1);
	cr_expect_eq(kinds[DT_SOCK], 1);
	p = h_profile(&m);
	cr_expect_gt(h_count(p, op), 1, "%s: more than one %s request", mode, op);
	cr_expect_eq(h_count(p, other_op), 0, "%s: no %s request", mode, other_op);
	osp_profile_free(p);
	free(a);
	free(b);
	cr_assert_eq(h_stop(&m), 0);
}

Test(dirents, readdir_and_readdirplus_list_types_and_inodes_as_the_lower)
{
	h_tree(&m);
	make_tree();
	expect_same_listing("readdirplus=no", "readdir", "readdirplus");
	expect_same_listing("readdirplus=yes", "readdirplus", "readdir");
}
