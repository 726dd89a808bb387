// SPDX-License-Identifier: MIT
/*
 * osprof-exporter on a real osprof-fs mount (the fs tests' harness) and on
 * the kernel module's /proc text (the VM test's sample data, laid out as
 * /proc/osprof is): the mount's series carry the counts its own
 * stats.json holds, its lower directory in osprof_info; the module's layers
 * come with their CPU-time (virtual time) histograms; and once the mount
 * is unmounted the next scrape still answers, its source down.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../fs/harness.h"
#include "oext.h"

static struct mnt mnt;

static void setup(void)
{
	oext_setup();
	h_tree(&mnt);
}

static void teardown(void)
{
	h_cleanup(&mnt);
	oext_teardown();
}

TestSuite(exporter_mount, .init = setup, .fini = teardown, .timeout = 60);

/* The value of the first sample whose line starts with @head and holds
 * @part; -1 when there is none. */
static double find(const char *body, const char *head, const char *part)
{
	size_t n = strlen(head);

	for (const char *l = body; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *e = strchr(l, '\n');
		char line[2048];

		snprintf(line, sizeof(line), "%.*s", e ? (int)(e - l) : (int)strlen(l), l);
		if (strncmp(line, head, n) == 0 && strstr(line, part))
			return strtod(strrchr(line, ' ') + 1, NULL);
	}
	return -1;
}

Test(exporter_mount, serves_a_real_mount_and_the_modules_layers_then_the_mount_gone)
{
	char *kmod = tpath("proc-osprof"), *file, up[4200], lower[4200];
	const char *data = env_or("OEXT_KMOD_DATA", "");
	struct osp_profile *p;
	struct oext_proc exp;
	struct oext_resp r;
	unsigned port;
	uint64_t reads;
	char buf[4096];
	FILE *f;

	h_start(&mnt, NULL);
	file = h_at(mnt.dir, "f");
	cr_assert_eq(h_write_str(file, "some bytes to read back"), 0);
	for (int i = 0; i < 20; i++) {
		f = fopen(file, "r");
		cr_assert(f);
		cr_assert(fread(buf, 1, sizeof(buf), f) > 0);
		fclose(f);
	}
	/* cache=never: each fread asks for its bytes, then finds the end. */
	p = h_profile(&mnt);
	reads = h_count(p, "read");
	osp_profile_free(p);
	cr_assert_eq(reads, 40);

	cr_assert_eq(h_sh("mkdir '%s' && cp '%s/lower.txt' '%s/lower' && cp '%s/block.txt' '%s/block' && cp '%s/irq.txt' '%s/irq'",
			  kmod, data, kmod, data, kmod, data, kmod), 0,
		     "the module's sample text (OEXT_KMOD_DATA=%s)", data);
	/* The module first: its block and irq layers are served, not the
	 * mount's own eBPF ones (when it loaded them). */
	port = oext_exporter((char *[]){ kmod, mnt.dir, NULL }, &exp);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);

	snprintf(up, sizeof(up), "osprof_source_up{mount=\"%s\"}", mnt.dir);
	cr_expect_eq(find(r.body, up, ""), 1);
	snprintf(lower, sizeof(lower), "osprof_latency_seconds_count{mount=\"%s\",layer=\"fs\",op=\"read\"}", mnt.dir);
	cr_expect_eq(find(r.body, lower, ""), (double)reads,
		     "the read count of the mount's own stats.json (%" PRIu64 ")", reads);
	snprintf(lower, sizeof(lower), "osprof_latency_seconds_count{mount=\"%s\",layer=\"lower\",op=\"read\"}", kmod);
	cr_expect_eq(find(r.body, lower, ""), 56, "lower.txt's read count");
	snprintf(lower, sizeof(lower), "osprof_cpu_seconds_count{mount=\"%s\",layer=\"lower\",op=\"read\"}", kmod);
	cr_expect_eq(find(r.body, lower, ""), 56, "and its virtual-time histogram");
	snprintf(lower, sizeof(lower), "osprof_info{mount=\"%s\",layer=\"fs\",", mnt.dir);
	cr_expect_eq(find(r.body, lower, ",lower=\""), 1, "the lower directory, in osprof_info");
	/* The machine's layers, once, with no mount: from the first source
	 * that holds them, the module's. */
	cr_expect_eq(find(r.body, "osprof_latency_seconds_count{layer=\"block\",device=\"vda\",op=\"read\"}", ""),
		     53, "block.txt's one record");
	cr_expect_eq(find(r.body, "osprof_latency_seconds_count{layer=\"irq\",irq=\"4:ttyS0\"}", ""),
		     34, "irq.txt's first line");
	snprintf(up, sizeof(up), "osprof_source_up{mount=\"%s\"}", kmod);
	cr_expect_eq(find(r.body, up, ""), 1);

	cr_assert_eq(h_stop(&mnt), 0);
	r = oext_get(port, "/metrics", NULL);
	cr_assert_eq(r.status, 200);
	snprintf(up, sizeof(up), "osprof_source_up{mount=\"%s\"}", mnt.dir);
	cr_expect_eq(find(r.body, up, ""), 0, "unmounted: down");
	snprintf(lower, sizeof(lower), "osprof_latency_seconds_count{mount=\"%s\",", mnt.dir);
	cr_expect_eq(find(r.body, lower, ""), -1, "and its series gone");
	cr_expect_eq(oext_stop(&exp), 0);
}
