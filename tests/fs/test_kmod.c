// SPDX-License-Identifier: MIT
/*
 * osprof-fs and the kernel module (fs/ofs_kmod.c). This machine cannot
 * load modules, so at mount level the tests check the module's absence:
 * no `lower`, `block`, `irq` or `*.json` of theirs in .osprof (neither
 * listed nor found), ctl says so, -o vtimers is refused with its one-line
 * reason, and the profile names its CPU-time source. The generation of
 * those files is unit-tested on real samples of the module's text
 * (tests/vm/data), with ofs_kmod.c compiled in; the VM test
 * (tests/vm/) runs all of it against the loaded module.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "ofs.h"
#include "ofs_kmod.h"
#include "osprof/format.h"

#ifndef OFS_TEST_KMOD_DATA
#error "OFS_TEST_KMOD_DATA must name tests/vm/data"
#endif

static const char *const kmod_files[] = {
	"lower", "block", "irq", "lower.json", "block.json", "irq.json",
};
#define NKMOD_FILES (sizeof(kmod_files) / sizeof(kmod_files[0]))

/* ---- at mount level, without the module ---- */

static struct mnt m;

static void up(void)
{
	h_tree(&m);
}

static void down(void)
{
	h_cleanup(&m);
}

TestSuite(kmod, .init = up, .fini = down, .timeout = 60);

static void need_no_module(void)
{
	if (access("/proc/osprof", F_OK) == 0)
		cr_skip_test("osprof.ko is loaded here: the VM test covers that case");
}

/* True when readdir of @dir lists @name. */
static bool listed(const char *dir, const char *name)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool found = false;

	cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, name) == 0)
			found = true;
	closedir(d);
	return found;
}

Test(kmod, layer_files_are_absent_without_the_module)
{
	char p[PATH_MAX + 64];
	struct stat st;

	need_no_module();
	/* Without the eBPF layers too: their lower would be listed. */
	h_start(&m, (const char *const[]){ "-o", "layers=none", NULL });
	for (size_t i = 0; i < NKMOD_FILES; i++) {
		snprintf(p, sizeof(p), "%s/%s", m.ctl, kmod_files[i]);
		cr_expect_not(listed(m.ctl, kmod_files[i]), "%s is listed", kmod_files[i]);
		errno = 0;
		cr_expect_neq(stat(p, &st), 0, "%s exists", p);
		cr_expect_eq(errno, ENOENT, "stat %s: %s", p, strerror(errno));
		errno = 0;
		cr_expect_lt(open(p, O_RDONLY), 0, "%s opens", p);
		cr_expect_eq(errno, ENOENT, "open %s: %s", p, strerror(errno));
	}
	/* The others are there as before. */
	cr_expect(listed(m.ctl, "stats"));
	cr_expect(listed(m.ctl, "ctl"));
	osp_profile_free(h_profile(&m));
	cr_expect_eq(h_stop(&m), 0);
}

Test(kmod, ctl_says_the_module_is_absent)
{
	char p[PATH_MAX + 64], *ctl;

	need_no_module();
	h_start(&m, NULL);
	snprintf(p, sizeof(p), "%s/ctl", m.ctl);
	ctl = h_slurp(p, NULL);
	cr_assert_not_null(ctl);
	cr_expect_not_null(strstr(ctl, "\nkmod absent\n"), "%s", ctl);
	cr_expect_not_null(strstr(ctl, "\nkmod_registered no\n"), "%s", ctl);
	cr_expect_not_null(strstr(ctl, "\ncpu_source none\n"), "%s", ctl);
	cr_expect_null(strstr(ctl, "vtimer_errors"), "%s", ctl);
	free(ctl);
	cr_expect_eq(h_stop(&m), 0);
}

static void expect_refusal(const char *const *args, const char *line)
{
	char *err = NULL, p[PATH_MAX + 64];
	int st = h_run_fail(args, &err);

	cr_expect_eq(st, 2, "exit status %d for: %s", st, line);
	cr_expect_str_eq(err, line, "stderr is exactly the one line");
	cr_expect_neq(access(h_path(p, m.dir, ".osprof"), F_OK), 0, "nothing mounted");
	free(err);
}

Test(kmod, vtimers_is_refused_without_the_module)
{
	const char *a[] = { m.lower, m.dir, "-f", "-o", "vtimers", NULL };

	need_no_module();
	expect_refusal(a, "osprof-fs: -o vtimers needs the osprof kernel module "
			  "(/dev/osprof_vt: No such file or directory)\n");
}

Test(kmod, vtimers_and_cpu_time_exclude_each_other)
{
	const char *a[] = { m.lower, m.dir, "-f", "-o", "cpu_time,vtimers", NULL };

	expect_refusal(a, "osprof-fs: -o cpu_time and -o vtimers exclude each other: "
			  "choose one source of CPU time\n");
}

Test(kmod, the_profile_names_its_cpu_time_source)
{
	const char *args[] = { "-o", "cpu_time", NULL };
	struct osp_profile *p;
	const char *src;

	h_start(&m, NULL);
	p = h_profile(&m);
	cr_expect_null(osp_kv_get(&p->options, "cpu_source"), "no CPU time, no source");
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);

	h_start(&m, args);
	p = h_profile(&m);
	src = osp_kv_get(&p->options, "cpu_source");
	cr_assert_not_null(src);
	/* Virtual time from eBPF where it loads (root, BTF), else the
	 * thread clock: the ctl test of the bpf suite covers the first. */
	if (geteuid() == 0 && access("/sys/kernel/btf/vmlinux", R_OK) == 0)
		cr_expect_str_eq(src, "\"ebpf_vtime\"");
	else
		cr_expect_str_eq(src, "\"thread_cputime\"");
	osp_profile_free(p);
	cr_expect_eq(h_stop(&m), 0);
}

Test(kmod, help_documents_vtimers)
{
	char cmd[PATH_MAX + 64], out[PATH_MAX + 16], *s;

	snprintf(out, sizeof(out), "%s/help.txt", m.top);
	snprintf(cmd, sizeof(cmd), "'%s' --help > '%s'", h_osprof_fs(), out);
	cr_assert_eq(h_sh("%s", cmd), 0);
	s = h_slurp(out, NULL);
	cr_assert_not_null(s);
	cr_expect_not_null(strstr(s, "-o vtimers"), "%s", s);
	cr_expect_not_null(strstr(s, "/dev/osprof_vt"), "%s", s);
	free(s);
}

/* ---- ofs_kmod.c's file generation, on the module's real text ---- */

static char host[] = "testhost", mnt_abs[] = "/mnt/p", lower_abs[] = "/data";

/* A daemon as far as ofs_kmod.c looks at one. */
static void fake_fs(struct ofs *fs)
{
	memset(fs, 0, sizeof(*fs));
	snprintf(fs->host, sizeof(fs->host), "%s", host);
	fs->opts.mount_abs = mnt_abs;
	fs->opts.lower_abs = lower_abs;
}

static char *sample(const char *layer, size_t *len)
{
	char path[PATH_MAX];
	char *text;

	snprintf(path, sizeof(path), "%s/%s.txt", OFS_TEST_KMOD_DATA, layer);
	text = h_slurp(path, len);
	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	return text;
}

static struct osp_profile *sample_profile(struct ofs *fs, const char *layer)
{
	char err[256] = "", *text;
	struct osp_profile *p;
	size_t len;

	text = sample(layer, &len);
	p = ofs_kmod_profile(fs, layer, text, len, err, sizeof(err));
	free(text);
	cr_assert_not_null(p, "%s: %s", layer, err);
	return p;
}

static void expect_source(const struct osp_profile *p)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	cr_assert_not_null(p->host);
	cr_expect_str_eq(p->host, host);
	cr_assert_not_null(osp_kv_get(&p->source, "mount"));
	cr_expect_str_eq(osp_kv_get(&p->source, "mount"), "\"/mnt/p\"");
	cr_assert_not_null(osp_kv_get(&p->source, "lower"));
	cr_expect_str_eq(osp_kv_get(&p->source, "lower"), "\"/data\"");
	cr_assert_not_null(osp_kv_get(&p->source, "pid"));
	cr_expect_str_eq(osp_kv_get(&p->source, "pid"), pid);
}

Test(kmod_gen, each_layer_gets_its_layer_name_host_and_source)
{
	static const char *const layers[] = { "lower", "block", "irq" };
	struct ofs fs;

	fake_fs(&fs);
	for (size_t i = 0; i < 3; i++) {
		struct osp_profile *p = sample_profile(&fs, layers[i]);
		size_t len, records = 0;
		char *text = sample(layers[i], &len);

		/* One operation per record: every line but the header. */
		for (char *c = strchr(text, '\n'); c && c[1]; c = strchr(c + 1, '\n'))
			records++;
		free(text);
		cr_expect_str_eq(p->layer, layers[i]);
		cr_expect_eq(p->nops, records, "%s: %zu operations of %zu records", layers[i], p->nops,
			     records);
		cr_expect_eq(osp_profile_check(p, stderr), 0, "%s checksums", layers[i]);
		expect_source(p);
		osp_profile_free(p);
	}
}

Test(kmod_gen, lower_keeps_virtual_time_as_the_cpu_histogram)
{
	struct ofs fs;
	struct osp_profile *p;
	const struct osp_op *rd;

	fake_fs(&fs);
	p = sample_profile(&fs, "lower");
	rd = osp_profile_find_op(p, "read");
	cr_assert_not_null(rd);
	cr_expect_eq(rd->lat.count, 56);
	cr_expect(rd->has_cpu);
	cr_expect_eq(rd->cpu.count, 56);
	cr_expect_leq(rd->cpu.sum, rd->lat.sum, "virtual time within latency");
	osp_profile_free(p);
}

/* @w's output of @p, NUL-terminated. */
static char *render(const struct osp_profile *p,
		    int (*w)(FILE *, const struct osp_profile *), size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	cr_assert_not_null(f);
	cr_expect_eq(w(f, p), 0);
	cr_assert_eq(fclose(f), 0);
	if (len)
		*len = n;
	return buf;
}

Test(kmod_gen, json_form_reads_back_with_checksums_holding)
{
	static const char *const layers[] = { "lower", "block", "irq" };
	struct ofs fs;

	fake_fs(&fs);
	for (size_t i = 0; i < 3; i++) {
		struct osp_profile *p = sample_profile(&fs, layers[i]), *q;
		char err[256] = "", *json;
		size_t len;

		json = render(p, osp_write_json, &len);
		q = osp_read_json(json, len, err, sizeof(err));
		cr_assert_not_null(q, "%s.json: %s", layers[i], err);
		cr_expect_str_eq(q->layer, layers[i]);
		cr_expect_eq(q->nops, p->nops);
		cr_expect_eq(osp_profile_check(q, stderr), 0);
		expect_source(q);
		for (size_t k = 0; k < p->nops; k++) {
			cr_expect_str_eq(q->ops[k].name, p->ops[k].name);
			cr_expect_eq(q->ops[k].lat.count, p->ops[k].lat.count);
			cr_expect_eq(q->ops[k].lat.sum, p->ops[k].lat.sum);
		}
		osp_profile_free(q);
		osp_profile_free(p);
		free(json);
	}
}

/* @want is a whole line of @text. */
static void expect_line(const char *text, const char *want)
{
	char *l = h_line(text, want);

	cr_expect(l && strcmp(l, want) == 0, "no line '%s' in:\n%s", want, text);
	free(l);
}

Test(kmod_gen, human_form_names_layer_clock_and_source)
{
	char *text, *l, want[128], tot[16], max[16];
	unsigned long long n;
	struct osp_profile *p;
	struct ofs fs;

	fake_fs(&fs);
	p = sample_profile(&fs, "block");
	text = render(p, osp_write_stats, NULL);
	/* The sample's one record: 53 requests, 54,569,400 ns, max 9.59 ms. */
	expect_line(text, "osprof block profile: 1 operations, 53 requests in 0ns");
	expect_line(text, "clock ktime (1.000 cycles/ns), resolution 1 bucket per power of 2, unit ns");
	snprintf(want, sizeof(want), "source: layer_source=osprof.ko mount=/mnt/p lower=/data pid=%d",
		 (int)getpid());
	expect_line(text, want);
	l = h_line(text, "vda.read ");
	cr_expect(l && sscanf(l, "vda.read %llu %15s %*s %*s %*s %15s", &n, tot, max) == 3 && n == 53 &&
		  strcmp(tot, "54.6ms") == 0 && strcmp(max, "9.59ms") == 0, "%s", text);
	free(l);
	free(text);
	osp_profile_free(p);
}

Test(kmod_gen, malformed_text_is_refused_with_the_line_named)
{
	static const char bad[] = "layer=block clock=ktime cycles_per_ns=1.000000 enabled=1\n"
				  "dev=vda dir=read count=x1 sum_ns=1 min_ns=1 max_ns=1 hist=1:1\n";
	char err[256] = "";
	struct ofs fs;

	fake_fs(&fs);
	cr_expect_null(ofs_kmod_profile(&fs, "block", bad, sizeof(bad) - 1, err, sizeof(err)));
	cr_expect_not_null(strstr(err, "line 2"), "%s", err);
	cr_expect_not_null(strstr(err, "count"), "%s", err);
}

Test(kmod_gen, without_the_module_the_files_cannot_be_generated)
{
	static const char *const layers[] = { "lower", "block", "irq" };
	struct ofs fs;

	need_no_module();
	fake_fs(&fs);
	cr_expect_not(ofs_kmod_loaded());
	for (size_t i = 0; i < 3; i++) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		cr_expect_not(ofs_kmod_present(&fs, layers[i]));
		cr_expect_eq(ofs_kmod_gen_text(&fs, layers[i], f), -ENOENT);
		cr_expect_eq(ofs_kmod_gen_json(&fs, layers[i], f), -ENOENT);
		fclose(f);
		cr_expect_eq(n, 0, "nothing written");
		free(buf);
	}
}

Test(kmod_gen, without_the_module_start_and_stop_are_silent, .init = cr_redirect_stderr)
{
	struct ofs fs;
	char *buf = NULL;
	size_t n = 0;
	FILE *f;

	need_no_module();
	fake_fs(&fs);
	cr_assert_eq(ofs_kmod_new(&fs), 0);
	ofs_kmod_register(&fs);
	f = open_memstream(&buf, &n);
	ofs_kmod_describe(&fs, f);
	fclose(f);
	cr_expect_str_eq(buf, "kmod absent\nkmod_registered no\n");
	free(buf);
	ofs_kmod_free(&fs);
	ofs_kmod_free(&fs); /* twice: a no-op */
	cr_expect_null(fs.kmod);
	fflush(stderr);
	cr_expect_stderr_eq_str("");
}

Test(kmod_gen, vtimers_without_the_device_fail_with_the_reason, .init = cr_redirect_stderr)
{
	struct ofs fs;

	need_no_module();
	fake_fs(&fs);
	fs.opts.vtimers = fs.opts.cpu_time = true;
	cr_expect_eq(ofs_kmod_new(&fs), -ENOENT);
	ofs_kmod_free(&fs);
	fflush(stderr);
	cr_expect_stderr_eq_str("osprof-fs: -o vtimers needs the osprof kernel module "
				"(/dev/osprof_vt: No such file or directory)\n");
}
