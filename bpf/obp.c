// SPDX-License-Identifier: MIT
/*
 * Loading the eBPF layers: each BPF object (one per group of layers,
 * obp_<name>.bpf.c) has its loader beside it (obp_<name>.c, a struct
 * obp_loader) that opens it from its skeleton, tells it its options
 * through read-only data, loads, feeds its maps and attaches it. Here:
 * the table of loaders and what goes through it (open, close, the
 * recording switch, which maps hold a layer), the layer names, the pid
 * filter and the reasons. A layer that fails is left out with its
 * reason; the others go on. libbpf's own messages (verifier logs) are
 * kept, not printed: the last line goes into the reason;
 * OSPROF_BPF_DEBUG=1 prints them all.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"

#define LAYER_NAME(ID, name, ebpf, kmod) OSP_IF(ebpf, [OBP_L_##ID] = name,)
static const char *const layer_names[OBP_L__COUNT] = { OSP_LAYERS(LAYER_NAME) };
#undef LAYER_NAME

const char *obp_layer_name(enum obp_layer l)
{
	return (unsigned)l < OBP_L__COUNT ? layer_names[l] : NULL;
}

int obp_layers_parse(const char *list, unsigned *mask, char *err, size_t errlen)
{
	unsigned m = 0;
	const char *s = list;

	if (strcmp(list, "all") == 0) {
		*mask = OBP_LAYERS_ALL;
		return 0;
	}
	if (strcmp(list, "none") == 0 || !*list) {
		*mask = 0;
		return 0;
	}
	while (*s) {
		size_t n = strcspn(s, ",:");
		unsigned l;

		for (l = 0; l < OBP_L__COUNT; l++)
			if (strlen(layer_names[l]) == n && strncmp(s, layer_names[l], n) == 0)
				break;
		if (l == OBP_L__COUNT) {
			char known[160] = "";

			for (l = 0; l < OBP_L__COUNT; l++)
				snprintf(known + strlen(known), sizeof(known) - strlen(known),
					 "%s, ", layer_names[l]);
			snprintf(err, errlen, "not a layer: '%.*s' (layers: %sor all, none)",
				 (int)(n > 64 ? 64 : n), s, known);
			return -EINVAL;
		}
		m |= OBP_LAYER_BIT(l);
		s += n;
		if ((*s == ',' || *s == ':') && *++s == '\0') {
			snprintf(err, errlen, "layer list ends in a separator");
			return -EINVAL;
		}
	}
	*mask = m;
	return 0;
}

/* ---- libbpf's messages ---- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char log_last[256];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int debug = -1;
	char line[256];
	size_t n;

	if (debug < 0)
		debug = getenv("OSPROF_BPF_DEBUG") != NULL;
	if (debug)
		return vfprintf(stderr, fmt, ap);
	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	if (n) {
		pthread_mutex_lock(&log_mu);
		memcpy(log_last, line, n + 1);
		pthread_mutex_unlock(&log_mu);
	}
	return 0;
}

void obp_libbpf_quiet(void)
{
	libbpf_set_print(libbpf_log);
}

/*
 * Root refused: kernel lockdown forbids what the programs do (reading
 * kernel memory), or a security module does. Say which lockdown mode is
 * on when the kernel tells ("none [integrity] confidentiality").
 */
static void lockdown_why(char *msg, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	char line[128] = "", *a, *z;

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	a = strchr(line, '[');
	z = a ? strchr(a, ']') : NULL;
	if (a && z && strncmp(a + 1, "none", 4) != 0)
		snprintf(msg, len, "not permitted even as root: kernel lockdown is '%.*s' "
			 "(see the kernel log)", (int)(z - a - 1), a + 1);
	else
		snprintf(msg, len, "not permitted even as root (a security module or a "
			 "missing capability: CAP_BPF and CAP_PERFMON; see the kernel log)");
}

void obp_why_msg(char *msg, size_t len, const char *what, int err)
{
	/* Lack of privilege needs no more than that: it is every layer's.
	 * Not -EACCES: that is also the verifier's refusal of a program. */
	if (err == -EPERM && geteuid() != 0)
		snprintf(msg, len, "not permitted (eBPF needs root: CAP_BPF and CAP_PERFMON)");
	else if (err == -EPERM)
		lockdown_why(msg, len);
	else {
		pthread_mutex_lock(&log_mu);
		snprintf(msg, len, "%s: %s%s%.120s", what, strerror(-err),
			 log_last[0] ? ": " : "", log_last);
		pthread_mutex_unlock(&log_mu);
	}
}

/* Why a load or attach of @what failed with @err, for each of @layers. */
static void why_failed(struct obp *b, unsigned layers, const char *what, int err)
{
	char msg[sizeof(b->why[0])];

	obp_why_msg(msg, sizeof(msg), what, err);
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if (layers & OBP_LAYER_BIT(l))
			snprintf(b->why[l], sizeof(b->why[l]), "%s", msg);
}

/* ---- the objects ---- */

/*
 * Every BPF object's loader, in the order they open: syscall's before
 * fuse's, whose follow_callers shares its pids maps. A new layer is a
 * new obp_<name>.bpf.c and obp_<name>.c, and a row here.
 */
static const struct obp_loader *const loaders[] = {
	&obp_sys_loader,
	&obp_fuse_loader,
	&obp_block_loader,
	&obp_irq_loader,
};
#define NLOADERS (sizeof(loaders) / sizeof(loaders[0]))
_Static_assert(NLOADERS <= OBP_L__COUNT, "each object holds a layer: room in struct obp's obj");

void *obp_object(const struct obp *b, const struct obp_loader *ld)
{
	for (size_t i = 0; i < NLOADERS; i++)
		if (loaders[i] == ld)
			return b->obj[i].skel;
	return NULL;
}

/*
 * libbpf 1.1 parses the kernel's BTF once per object it loads (megabytes
 * of it): read 4 KiB at a time into a fresh buffer, copied into another,
 * both freed once the object is loaded. Blocks that big malloc maps
 * afresh each time, page by page, and unmaps after. With opts.load_heap
 * malloc serves them from its heap instead, whose top we first give to
 * transparent huge pages (a hint: nothing where the system has them off)
 * and keep while the objects load, so a later object reuses memory
 * already there (what that saves at start:
 * docs/layers.md#what-a-call-costs). Afterwards the heap is trimmed; malloc's thresholds stay fixed at their
 * defaults (it has no way back to its adaptive ones), which a daemon may
 * not want.
 */
#define LOAD_HEAP_HUGE_BYTES ((size_t)2 << 20)
#define LOAD_HEAP_MAX_BYTES ((size_t)32 << 20) /* malloc's most on 64 bits */
#define LOAD_HEAP_DEFAULT_BYTES ((size_t)128 << 10) /* its start values */

static bool load_heap_begin(void)
{
	struct stat st;
	size_t len;
	char *p;
	uintptr_t lo, hi;

	if (stat("/sys/kernel/btf/vmlinux", &st) != 0 || st.st_size <= 0 ||
	    (uint64_t)st.st_size >= LOAD_HEAP_MAX_BYTES / 2 - 2 * LOAD_HEAP_HUGE_BYTES)
		return false;
	/* Both copies, the type index, and a huge page of slack each side. */
	len = 2 * (size_t)st.st_size + 4 * LOAD_HEAP_HUGE_BYTES;
	if (!mallopt(M_MMAP_THRESHOLD, (int)LOAD_HEAP_MAX_BYTES) ||
	    !mallopt(M_TRIM_THRESHOLD, (int)(2 * LOAD_HEAP_MAX_BYTES)))
		return true; /* whichever took is undone at the end */
	p = malloc(len);
	if (!p)
		return true;
	lo = ((uintptr_t)p + LOAD_HEAP_HUGE_BYTES - 1) & ~(LOAD_HEAP_HUGE_BYTES - 1);
	hi = ((uintptr_t)p + len) & ~(LOAD_HEAP_HUGE_BYTES - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	free(p); /* the heap's top now, kept: above the trim threshold */
	return true;
}

static void load_heap_end(void)
{
	mallopt(M_MMAP_THRESHOLD, (int)LOAD_HEAP_DEFAULT_BYTES);
	mallopt(M_TRIM_THRESHOLD, (int)LOAD_HEAP_DEFAULT_BYTES);
	malloc_trim(0);
}

int obp_open(const struct obp_opts *o, struct obp **out, char *err, size_t errlen)
{
	bool heap;
	struct obp *b;
	int e;

	if (o->layers & ~OBP_LAYERS_ALL) {
		snprintf(err, errlen, "unknown layer bits 0x%x", o->layers & ~OBP_LAYERS_ALL);
		return -EINVAL;
	}
	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "eBPF layers: out of memory");
		return -ENOMEM;
	}
	b->opts = *o;
	b->pids_fd = -1;
	b->start_unix_ns = osp_clock_unix_ns();
	b->start_mono_ns = osp_clock_mono_ns();
	obp_libbpf_quiet();
	if (o->layers && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(b->why[0], sizeof(b->why[0]), "this kernel has no BTF (/sys/kernel/btf/vmlinux)");
		for (unsigned l = 1; l < OBP_L__COUNT; l++)
			memcpy(b->why[l], b->why[0], sizeof(b->why[0]));
		*out = b;
		return 0;
	}
	heap = o->load_heap && o->layers && load_heap_begin();
	for (size_t i = 0; i < NLOADERS; i++) {
		unsigned want = o->layers & loaders[i]->layers;

		if (!want && !(loaders[i]->needed && loaders[i]->needed(b)))
			continue;
		e = loaders[i]->open(b, want, &b->obj[i]);
		if (b->obj[i].skel)
			b->layers |= want;
		if (e)
			why_failed(b, want, loaders[i]->what, e);
	}
	if (heap)
		load_heap_end();
	*out = b;
	return 0;
}

void obp_close(struct obp *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < NLOADERS; i++)
		if (b->obj[i].skel)
			loaders[i]->close(b, b->obj[i].skel);
	free(b);
}

unsigned obp_layers(const struct obp *b)
{
	return b ? b->layers : 0;
}

const char *obp_why(const struct obp *b, enum obp_layer l)
{
	return b && (unsigned)l < OBP_L__COUNT ? b->why[l] : "";
}

void obp_enable(struct obp *b, bool on)
{
	for (size_t i = 0; i < NLOADERS; i++)
		if (b->obj[i].skel)
			__atomic_store_n(b->obj[i].enabled, on, __ATOMIC_RELAXED);
}

bool obp_enabled(const struct obp *b)
{
	for (size_t i = 0; i < NLOADERS; i++)
		if (b->obj[i].skel)
			return __atomic_load_n(b->obj[i].enabled, __ATOMIC_RELAXED);
	return false;
}

/* ---- the pid filter (obp_pids.bpf.h), in syscall's bitmap ---- */

int obp_pid_add(struct obp *b, pid_t tgid)
{
	if (!(b->layers & OBP_LAYER_BIT(OBP_L_SYSCALL)) || !b->pid_bits)
		return -ENOENT;
	if (tgid <= 0 || (unsigned)tgid >= OBP_PID_LIMIT)
		return -EINVAL;
	/* An atomic OR, as the programs set their bits. */
	__atomic_fetch_or(&b->pid_bits[tgid / 64], 1ull << (tgid % 64), __ATOMIC_SEQ_CST);
	return 0;
}

int obp_daemon_set(struct obp *b, pid_t tgid)
{
	if (!b)
		return 0;
	if (tgid <= 0 || (unsigned)tgid >= OBP_PID_LIMIT)
		return -EINVAL;
	b->opts.daemon_pid = tgid;
	/* Its calls are lower's, never syscall's: no workload bit. */
	if (b->pid_bits)
		__atomic_fetch_and(&b->pid_bits[tgid / 64], ~(1ull << (tgid % 64)), __ATOMIC_SEQ_CST);
	if (b->sys_daemon)
		__atomic_store_n(b->sys_daemon, (__u32)tgid, __ATOMIC_SEQ_CST);
	if (b->fuse_daemon)
		__atomic_store_n(b->fuse_daemon, (__u32)tgid, __ATOMIC_SEQ_CST);
	return 0;
}

/* ---- reading ---- */

int obp_layer_maps(struct obp *b, enum obp_layer l, const struct obp_object **obj,
		   unsigned *kind)
{
	if (!(b->layers & OBP_LAYER_BIT(l)))
		return -ENOENT;
	for (size_t i = 0; i < NLOADERS; i++)
		if (b->obj[i].skel && (loaders[i]->layers & OBP_LAYER_BIT(l))) {
			*obj = &b->obj[i];
			*kind = loaders[i]->kinds[l];
			return 0;
		}
	return -ENOENT;
}

unsigned obp_possible_cpus(void)
{
	int n = libbpf_num_possible_cpus();

	return n > 0 ? (unsigned)n : 1;
}
