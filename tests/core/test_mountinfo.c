// SPDX-License-Identifier: MIT
/*
 * The mountinfo reader (core/prog/osp_mountinfo.c): proc(5)'s lines parsed to
 * the field, the kernel's escapes undone and every other backslash
 * refused, hostile lines (cut short, doubled spaces, bad devices, too
 * long, with a NUL) skipped whole and counted, never split or half-used.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osp_mountinfo.h"

/* proc(5)'s own example. */
#define EXAMPLE "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue"

Test(mountinfo, parses_the_manual_example_to_the_field)
{
	char line[] = EXAMPLE;
	struct osp_mount m;

	cr_assert_eq(osp_mountinfo_parse(line, &m), 0);
	cr_expect_eq(m.id, 36);
	cr_expect_eq(m.parent_id, 35);
	cr_expect_eq(m.major, 98);
	cr_expect_eq(m.minor, 0);
	cr_expect_str_eq(m.root, "/mnt1");
	cr_expect_str_eq(m.point, "/mnt2");
	cr_expect_str_eq(m.fstype, "ext3");
	cr_expect_str_eq(m.source, "/dev/root");
}

Test(mountinfo, takes_no_optional_field_or_several)
{
	char none[] = "22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw";
	char many[] = "1 0 4294967295:4294967295 / /x rw shared:1 master:2 propagate_from:3 unbindable - fuse.osprof-fs /lower rw,user_id=0";
	struct osp_mount m;

	cr_assert_eq(osp_mountinfo_parse(none, &m), 0);
	cr_expect_str_eq(m.point, "/sys");
	cr_expect_str_eq(m.fstype, "sysfs");
	cr_assert_eq(osp_mountinfo_parse(many, &m), 0);
	cr_expect_eq(m.major, 4294967295u);
	cr_expect_eq(m.minor, 4294967295u);
	cr_expect_str_eq(m.fstype, "fuse.osprof-fs");
	cr_expect_str_eq(m.source, "/lower");
}

Test(mountinfo, undoes_the_kernels_escapes_in_every_string)
{
	char line[] = "7 1 8:1 /r\\040oot /a\\040b\\011c\\012d\\134e rw - t\\040y src\\134x rw";
	struct osp_mount m;

	cr_assert_eq(osp_mountinfo_parse(line, &m), 0);
	cr_expect_str_eq(m.root, "/r oot");
	cr_expect_str_eq(m.point, "/a b\tc\nd\\e");
	cr_expect_str_eq(m.fstype, "t y");
	cr_expect_str_eq(m.source, "src\\x");
}

/* Arrays, not pointers: Criterion copies parameters into a new process. */
struct esc_case {
	char in[24];
	int rc;
	char out[24];
};

ParameterizedTestParameters(mountinfo, escapes)
{
	static struct esc_case cases[] = {
		{ "plain", 0, "plain" },
		{ "\\040", 0, " " },
		{ "a\\377b", 0, "a\377b" },
		{ "\\0401", 0, " 1" },            /* three digits, not four */
		{ "", 0, "" },
		{ "\\", -EINVAL, "" },            /* cut short */
		{ "a\\04", -EINVAL, "" },
		{ "a\\0", -EINVAL, "" },
		{ "\\08x", -EINVAL, "" },         /* 8 is no octal digit */
		{ "\\09", -EINVAL, "" },
		{ "\\x41", -EINVAL, "" },
		{ "\\400", -EINVAL, "" },         /* past a byte */
		{ "\\777", -EINVAL, "" },
		{ "\\000", -EINVAL, "" },         /* would cut the string */
		{ "a\\\\b", -EINVAL, "" },        /* the kernel writes \134 */
	};
	return cr_make_param_array(struct esc_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct esc_case *c, mountinfo, escapes)
{
	char s[24];
	int rc;

	memcpy(s, c->in, sizeof(s));
	rc = osp_mountinfo_unescape(s);
	cr_expect_eq(rc, c->rc, "'%s': rc %d, expected %d", c->in, rc, c->rc);
	if (c->rc == 0)
		cr_expect_str_eq(s, c->out, "'%s'", c->in);
}

struct bad_case {
	char line[112];
};

ParameterizedTestParameters(mountinfo, hostile_lines)
{
	static struct bad_case cases[] = {
		{ "" },
		{ " " },
		{ "36" },
		{ "36 35 98:0 /mnt1 /mnt2" },                          /* cut before options */
		{ "36 35 98:0 /mnt1 /mnt2 rw" },                       /* no separator */
		{ "36 35 98:0 /mnt1 /mnt2 rw master:1" },
		{ "36 35 98:0 /mnt1 /mnt2 rw -" },                     /* cut after it */
		{ "36 35 98:0 /mnt1 /mnt2 rw - ext3" },
		{ "36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root" },      /* no super options */
		{ "36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw extra" },
		{ "36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw " },  /* trailing space */
		{ " 36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw" },  /* leading space */
		{ "36  35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw" },  /* two spaces */
		{ "36 35 98:0 /mnt1 /mnt2 rw  - ext3 /dev/root rw" },
		{ "x 35 98:0 /m /m rw - t s rw" },
		{ "36 -1 98:0 /m /m rw - t s rw" },
		{ "36 35 98 /m /m rw - t s rw" },
		{ "36 35 98: /m /m rw - t s rw" },
		{ "36 35 :0 /m /m rw - t s rw" },
		{ "36 35 a:0 /m /m rw - t s rw" },
		{ "36 35 98:0:1 /m /m rw - t s rw" },
		{ "36 35 4294967296:0 /m /m rw - t s rw" },
		{ "36 35 98:0 /m\\04 /m rw - t s rw" },                /* bad escapes */
		{ "36 35 98:0 /m /m\\9 rw - t s rw" },
		{ "36 35 98:0 /m /m rw - t\\ s rw" },
		{ "36 35 98:0 /m /m rw - t s\\000 rw" },
	};
	return cr_make_param_array(struct bad_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, mountinfo, hostile_lines)
{
	char line[112];
	struct osp_mount m;

	memcpy(line, c->line, sizeof(line));
	cr_expect_eq(osp_mountinfo_parse(line, &m), -EINVAL, "'%s' accepted", c->line);
}

/* A file of @len bytes at @data; its path into @path. */
static void write_file(char path[64], const char *data, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/osprof-mountinfo-XXXXXX");
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

Test(mountinfo, skips_hostile_lines_whole_and_counts_them)
{
	size_t longlen = OSP_MOUNTINFO_LINE_MAX + 100, at = 0;
	/* The long line ends in what would parse as a mount if it were split. */
	const char *tail = " 9 9 9:9 /split /split rw - t s rw\n";
	static const char nul[] = "2 1 0:5 /\0 /nul rw - t s rw\n";
	char *data = malloc(longlen + 1024), path[64];
	struct osp_mountinfo mi;
	struct osp_mount m;

	cr_assert_not_null(data);
	at += (size_t)sprintf(data + at, "1 0 8:1 / / rw - ext4 /dev/sda1 rw\n");
	at += (size_t)sprintf(data + at, "garbage\n\n");
	memset(data + at, 'x', longlen);
	at += longlen;
	at += (size_t)sprintf(data + at, "%s", tail);
	memcpy(data + at, nul, sizeof(nul) - 1);
	at += sizeof(nul) - 1;
	at += (size_t)sprintf(data + at, "3 1 0:6 / /last rw - tmpfs none rw");
	write_file(path, data, at);
	free(data);

	cr_assert_eq(osp_mountinfo_open(&mi, path), 0);
	cr_assert_eq(osp_mountinfo_next(&mi, &m), 1);
	cr_expect_str_eq(m.point, "/");
	cr_expect_str_eq(m.source, "/dev/sda1");
	cr_assert_eq(osp_mountinfo_next(&mi, &m), 1);
	cr_expect_str_eq(m.point, "/last", "the line with no newline at the end is read");
	cr_expect_str_eq(m.fstype, "tmpfs");
	cr_expect_eq(osp_mountinfo_next(&mi, &m), 0);
	cr_expect_eq(osp_mountinfo_next(&mi, &m), 0, "the end stays the end");
	/* garbage, the empty line, the long one (whole), the one with a NUL */
	cr_expect_eq(mi.skipped, 4);
	osp_mountinfo_close(&mi);
	unlink(path);
}

Test(mountinfo, takes_a_line_of_exactly_the_maximum)
{
	const char *head = "1 0 8:1 / /";
	const char *foot = " rw - t s rw\n";
	size_t pad = OSP_MOUNTINFO_LINE_MAX - strlen(head) - strlen(foot) + 1;
	char *data = malloc(OSP_MOUNTINFO_LINE_MAX + 2), path[64];
	struct osp_mountinfo mi;
	struct osp_mount m;
	size_t at = 0;

	cr_assert_not_null(data);
	at += (size_t)sprintf(data, "%s", head);
	memset(data + at, 'p', pad);
	at += pad;
	at += (size_t)sprintf(data + at, "%s", foot);
	cr_assert_eq(at, OSP_MOUNTINFO_LINE_MAX + 1, "the line and its newline");
	write_file(path, data, at);
	free(data);
	cr_assert_eq(osp_mountinfo_open(&mi, path), 0);
	cr_assert_eq(osp_mountinfo_next(&mi, &m), 1);
	cr_expect_eq(strlen(m.point), 1 + pad);
	cr_expect_eq(mi.skipped, 0);
	osp_mountinfo_close(&mi);
	unlink(path);
}

Test(mountinfo, a_missing_file_is_its_errno)
{
	struct osp_mountinfo mi;

	cr_expect_eq(osp_mountinfo_open(&mi, "/nonexistent/mountinfo"), -ENOENT);
	osp_mountinfo_close(&mi); /* harmless after a failed open */
}

Test(mountinfo, reads_this_process_mounts_with_none_refused)
{
	struct osp_mountinfo mi;
	struct osp_mount m;
	unsigned n = 0, roots = 0;
	int r;

	cr_assert_eq(osp_mountinfo_open(&mi, NULL), 0);
	while ((r = osp_mountinfo_next(&mi, &m)) == 1) {
		n++;
		roots += strcmp(m.point, "/") == 0;
	}
	cr_expect_eq(r, 0);
	cr_expect_gt(n, 0);
	cr_expect_geq(roots, 1, "/ is mounted");
	cr_expect_eq(mi.skipped, 0, "every line the kernel wrote parses");
	osp_mountinfo_close(&mi);
}
