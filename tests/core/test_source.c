// SPDX-License-Identifier: MIT
/*
 * What a path named as a profile source is (osp_source_find, shared by
 * osprof-report and osprof-exporter): each kind on a real temporary tree,
 * the order of the rules where a directory fits several, the files each
 * kind reads, a missing path and hostile ones (a FIFO in place of
 * stats.json, a path through a file, one too long, an empty one).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "osprof/format.h"

static char root[] = "/tmp/osp-test-source-XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

/* root/@rel, in a static buffer (one at a time). */
static const char *at(const char *rel)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/%s", root, rel);
	return buf;
}

static void mkdir_at(const char *rel)
{
	cr_assert_eq(mkdir(at(rel), 0755), 0, "mkdir %s", rel);
}

static void touch_at(const char *rel)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_EXCL, 0644);

	cr_assert_geq(fd, 0, "create %s", rel);
	close(fd);
}

/* The kind osp_source_find gives root/@rel (asserted to succeed). */
static enum osp_source_kind kind_at(const char *rel)
{
	const struct osp_source *src = NULL;

	cr_assert_eq(osp_source_find(at(rel), &src), 0, "find %s", rel);
	cr_assert_not_null(src);
	cr_assert_eq(src, &osp_sources[src->kind], "%s: not an entry of osp_sources", rel);
	return src->kind;
}

TestSuite(source, .init = setup, .fini = teardown);

Test(source, a_regular_file_is_a_file)
{
	touch_at("run.json");
	cr_expect_eq(kind_at("run.json"), OSP_SOURCE_FILE);
	cr_expect_eq(osp_sources[OSP_SOURCE_FILE].nfiles, 0);
}

Test(source, a_mount_reads_its_control_directory)
{
	const struct osp_source *src;
	char *file;

	mkdir_at("m");
	mkdir_at("m/.osprof");
	touch_at("m/.osprof/stats.json");
	cr_assert_eq(osp_source_find(at("m"), &src), 0);
	cr_expect_eq(src->kind, OSP_SOURCE_MOUNT);
	cr_expect_str_eq(src->subdir, "/.osprof");
	cr_expect_eq(src->nfiles, OSP_LAYER_FILES);
	cr_expect_not(src->kmod_text);
	file = osp_source_file("/mnt/p", src, 2);
	cr_assert_not_null(file);
	cr_expect_str_eq(file, "/mnt/p/.osprof/fuse.json");
	free(file);
	/* The control directory itself is a run directory. */
	cr_expect_eq(kind_at("m/.osprof"), OSP_SOURCE_RUN_DIR);
}

Test(source, any_layer_file_makes_a_run_directory)
{
	const struct osp_source *src;
	char *file;

	for (size_t i = 0; i < OSP_LAYER_FILES; i++) {
		char dir[32], rel[64];

		snprintf(dir, sizeof(dir), "run%zu", i);
		mkdir_at(dir);
		snprintf(rel, sizeof(rel), "%s/%s", dir, osp_layer_files[i]);
		touch_at(rel);
		cr_expect_eq(kind_at(dir), OSP_SOURCE_RUN_DIR, "%s", osp_layer_files[i]);
	}
	src = &osp_sources[OSP_SOURCE_RUN_DIR];
	cr_expect_str_eq(src->subdir, "");
	file = osp_source_file("saved", src, 0);
	cr_assert_not_null(file);
	cr_expect_str_eq(file, "saved/stats.json");
	free(file);
}

Test(source, the_kernel_modules_files_make_a_kmod_directory)
{
	const struct osp_source *src;
	char *file;

	mkdir_at("proc");
	touch_at("proc/irq");
	cr_assert_eq(osp_source_find(at("proc"), &src), 0);
	cr_expect_eq(src->kind, OSP_SOURCE_KMOD_DIR);
	cr_expect(src->kmod_text);
	cr_expect_eq(src->nfiles, OSP_KMOD_LAYERS);
	file = osp_source_file("/proc/osprof", src, 2);
	cr_assert_not_null(file);
	cr_expect_str_eq(file, "/proc/osprof/irq");
	cr_expect_str_eq(src->files[2], "irq");
	free(file);
}

Test(source, a_mount_wins_over_layer_files_which_win_over_the_modules)
{
	mkdir_at("d");
	touch_at("d/lower");
	cr_expect_eq(kind_at("d"), OSP_SOURCE_KMOD_DIR);
	touch_at("d/block.json");
	cr_expect_eq(kind_at("d"), OSP_SOURCE_RUN_DIR);
	mkdir_at("d/.osprof");
	/* A control directory without stats.json is no mount. */
	touch_at("d/.osprof/fuse.json");
	cr_expect_eq(kind_at("d"), OSP_SOURCE_RUN_DIR);
	touch_at("d/.osprof/stats.json");
	cr_expect_eq(kind_at("d"), OSP_SOURCE_MOUNT);
}

Test(source, a_directory_of_other_files_holds_no_profile)
{
	mkdir_at("e");
	touch_at("e/notes.txt");
	touch_at("e/stats.json.bak");
	cr_expect_eq(kind_at("e"), OSP_SOURCE_NO_PROFILE);
	cr_expect_eq(osp_sources[OSP_SOURCE_NO_PROFILE].nfiles, 0);
}

Test(source, a_fifo_is_other_and_is_never_opened)
{
	cr_assert_eq(mkfifo(at("fifo"), 0600), 0);
	/* Opening a FIFO with no writer would block: this returns. */
	cr_expect_eq(kind_at("fifo"), OSP_SOURCE_OTHER);
	mkdir_at("hung");
	mkdir_at("hung/.osprof");
	cr_assert_eq(mkfifo(at("hung/.osprof/stats.json"), 0600), 0);
	cr_expect_eq(kind_at("hung"), OSP_SOURCE_MOUNT);
}

Test(source, a_missing_path_is_an_error_that_leaves_src_alone)
{
	const struct osp_source *src = &osp_sources[OSP_SOURCE_FILE];

	cr_expect_eq(osp_source_find(at("nothing"), &src), -ENOENT);
	cr_expect_eq(src, &osp_sources[OSP_SOURCE_FILE]);
	cr_expect_eq(osp_source_find("", &src), -ENOENT);
}

Test(source, hostile_paths_are_refused_with_their_errno)
{
	const struct osp_source *src;
	char *huge = malloc(PATH_MAX + 16);

	touch_at("f");
	cr_expect_eq(osp_source_find(at("f/.osprof"), &src), -ENOTDIR);
	cr_assert_not_null(huge);
	memset(huge, 'a', PATH_MAX + 15);
	huge[0] = '/';
	huge[PATH_MAX + 15] = '\0';
	cr_expect_eq(osp_source_find(huge, &src), -ENAMETOOLONG);
	free(huge);
	/* A dangling link named stats.json is not there. */
	mkdir_at("l");
	mkdir_at("l/.osprof");
	cr_assert_eq(symlink("/nonexistent/osprof", at("l/.osprof/stats.json")), 0);
	cr_expect_eq(kind_at("l"), OSP_SOURCE_NO_PROFILE);
	/* A name with a newline and quotes is a name like any other. */
	mkdir_at("a\nb'\"");
	touch_at("a\nb'\"/fs.json");
	cr_expect_eq(kind_at("a\nb'\""), OSP_SOURCE_RUN_DIR);
}

Test(source, a_file_named_for_a_module_layer_is_its_text_unless_json)
{
	cr_expect_str_eq(osp_source_kmod_layer("saved/lower", "op=read count=1", 15), "lower");
	cr_expect_null(osp_source_kmod_layer("irq", "", 0));
	cr_expect_null(osp_source_kmod_layer("/proc/osprof/block", " \n{\"format\"", 11));
	cr_expect_null(osp_source_kmod_layer("saved/lower.json", "op=read", 7));
	cr_expect_null(osp_source_kmod_layer("lowerx", "op=read", 7));
	cr_expect_null(osp_source_kmod_layer("lower/", "op=read", 7));
	/* White space only, or a NUL before the brace: not JSON. */
	cr_expect_str_eq(osp_source_kmod_layer("block", "  \n", 3), "block");
	cr_expect_str_eq(osp_source_kmod_layer("irq", "\0{", 2), "irq");
	/* Only @len bytes are looked at. */
	cr_expect_str_eq(osp_source_kmod_layer("irq", "  {", 2), "irq");
}

Test(source, the_kind_table_names_each_kind)
{
	for (size_t k = 0; k < OSP_SOURCE_KINDS; k++) {
		cr_expect_eq(osp_sources[k].kind, (enum osp_source_kind)k);
		cr_expect_not_null(osp_sources[k].name);
		cr_expect_not_null(osp_sources[k].subdir);
		cr_expect_eq(osp_sources[k].files == NULL, osp_sources[k].nfiles == 0);
	}
}
