// SPDX-License-Identifier: MIT
/*
 * osprof-fs and the eBPF layers (bpf/obp.h): loaded after the mount, for
 * this mount's device only, with the processes that send it requests as
 * the syscall layer's workload and this daemon as the lower layer's
 * process; served in the control directory beside the fs layer (`fuse`,
 * `syscall`, `lower` and their .json), with the mount's host, source and
 * options; reset, enabled and disabled with it; dumped beside it.
 *
 * Where osprof.ko also offers a layer (lower), the module serves it unless
 * -o layers asks for the eBPF one; each profile says which served it
 * (source.layer_source).
 *
 * With -o cpu_time, a request's CPU time is its virtual time from eBPF
 * (bpf/obp.h's obp_vt): each worker thread takes a slot on its first
 * request and reads what its virtual time leaves out from memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osprof/format.h"
#include "obp.h"
#include "ofs.h"

/*
 * Why the layers of @missing did not load, on one line: the reason alone
 * when they share it (not root, no BTF), else each reason after the
 * layers it stopped ("fuse: ...; syscall, lower: ...").
 */
static void say_why(const struct obp *b, unsigned missing)
{
	unsigned done = 0, first = OBP_L__COUNT;
	bool same = true;

	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		if (!(missing & OBP_LAYER_BIT(l)))
			continue;
		if (first == OBP_L__COUNT)
			first = l;
		else if (strcmp(obp_why(b, l), obp_why(b, first)) != 0)
			same = false;
	}
	if (same) {
		fprintf(stderr, "%s\n", obp_why(b, first));
		return;
	}
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		const char *why = obp_why(b, l);

		if (!(missing & OBP_LAYER_BIT(l)) || (done & OBP_LAYER_BIT(l)))
			continue;
		fprintf(stderr, "%s%s", done ? "; " : "", obp_layer_name(l));
		done |= OBP_LAYER_BIT(l);
		for (unsigned k = l + 1; k < OBP_L__COUNT; k++)
			if ((missing & OBP_LAYER_BIT(k)) && strcmp(obp_why(b, k), why) == 0) {
				fprintf(stderr, ", %s", obp_layer_name(k));
				done |= OBP_LAYER_BIT(k);
			}
		fprintf(stderr, ": %s", why);
	}
	fputc('\n', stderr);
}

/* ---- virtual time (-o cpu_time) ---- */

/* This thread's slot: NULL until its first request. */
static __thread const struct obp_vt_slot *vt_slot;
static __thread int vt_no = -1;
static pthread_key_t vt_key;
static pthread_once_t vt_key_once = PTHREAD_ONCE_INIT;
static uint64_t vt_errors; /* threads left without a slot (atomic) */

/* A worker that exits gives its slot back (libfuse retires idle ones). */
static void vt_thread_exit(void *arg)
{
	struct obp_vt *vt = arg;

	if (vt_no >= 0)
		obp_vt_unregister(vt, vt_no);
	vt_no = -1;
	vt_slot = NULL;
}

static void vt_key_make(void)
{
	if (pthread_key_create(&vt_key, vt_thread_exit) != 0)
		vt_key = (pthread_key_t)-1;
}

bool ofs_bpf_vt_deduct(struct ofs *fs, uint64_t *ns)
{
	if (!vt_slot) {
		int no = obp_vt_register(fs->vt, &vt_slot);

		if (no < 0) {
			vt_slot = NULL;
			__atomic_add_fetch(&vt_errors, 1, __ATOMIC_RELAXED);
			return false;
		}
		vt_no = no;
		if (vt_key != (pthread_key_t)-1)
			pthread_setspecific(vt_key, fs->vt);
	}
	*ns = obp_vt_deduct_ns(vt_slot);
	return true;
}

/* -o cpu_time: eBPF's virtual time where it loads, else the thread
 * clock, quietly (ctl and the profile's options say which). */
static void vt_open(struct ofs *fs)
{
	char why[200];

	if (!fs->opts.cpu_time || fs->opts.vtimers)
		return;
	pthread_once(&vt_key_once, vt_key_make);
	if (obp_vt_open(&fs->vt, why, sizeof(why)) != 0)
		fs->vt = NULL;
}

int ofs_bpf_open(struct ofs *fs)
{
	struct obp_opts o = {
		.layers = fs->opts.layers,
		.follow_callers = true,
	};
	char err[256], *type = NULL;
	unsigned missing;
	int e;

	vt_open(fs);
	/* Unasked, the module's layers stay the module's: it was loaded on
	 * purpose, and its lower layer also has virtual time. */
	if (fs->opts.layers_auto && ofs_kmod_loaded())
		for (unsigned l = 0; l < OBP_L__COUNT; l++)
			if (ofs_kmod_present(fs, obp_layer_name(l)))
				o.layers &= ~OBP_LAYER_BIT(l);
	if (!o.layers)
		return 0;
	e = ofs_mount_at(fs->opts.mount_abs, &type, &o.fuse_dev);
	free(type);
	if (e) {
		fprintf(stderr, "osprof-fs: eBPF layers off: cannot find this mount's device in /proc/self/mountinfo: %s\n",
			strerror(-e));
		return fs->opts.layers_auto ? 0 : -1;
	}
	e = obp_open(&o, &fs->bpf, err, sizeof(err));
	if (e) {
		fprintf(stderr, "osprof-fs: eBPF layers off: %s\n", err);
		return fs->opts.layers_auto ? 0 : -1;
	}
	missing = o.layers & ~obp_layers(fs->bpf);
	if (missing && fs->opts.layers_auto && !obp_layers(fs->bpf)) {
		fputs("osprof-fs: eBPF layers off (the fs layer goes on): ", stderr);
		say_why(fs->bpf, missing);
	} else if (missing && !fs->opts.layers_auto) {
		for (unsigned l = 0; l < OBP_L__COUNT; l++)
			if (missing & OBP_LAYER_BIT(l))
				fprintf(stderr, "osprof-fs: eBPF layer %s off: %s\n",
					obp_layer_name(l), obp_why(fs->bpf, l));
		return -1;
	}
	/* Otherwise some loaded, quietly: ctl says why the others did not
	 * (a kernel older than a tracepoint, say). */
	if (!obp_layers(fs->bpf)) {
		obp_close(fs->bpf);
		fs->bpf = NULL;
		return 0;
	}
	obp_enable(fs->bpf, !fs->opts.noprofile);
	return 0;
}

void ofs_bpf_daemon(struct ofs *fs)
{
	int err;

	if (!fs->bpf)
		return;
	err = obp_daemon_set(fs->bpf, getpid());
	if (err)
		fprintf(stderr, "osprof-fs: eBPF lower layer: cannot register the daemon: %s\n",
			strerror(-err));
}

void ofs_bpf_close(struct ofs *fs)
{
	obp_close(fs->bpf);
	fs->bpf = NULL;
	/* The workers have stopped: nothing reads a slot any more. */
	obp_vt_close(fs->vt);
	fs->vt = NULL;
}

/* The loaded eBPF layer named @layer, or -1. */
static int loaded(struct ofs *fs, const char *layer)
{
	for (unsigned l = 0; fs->bpf && l < OBP_L__COUNT; l++)
		if ((obp_layers(fs->bpf) & OBP_LAYER_BIT(l)) &&
		    strcmp(obp_layer_name(l), layer) == 0)
			return (int)l;
	return -1;
}

bool ofs_bpf_present(struct ofs *fs, const char *layer)
{
	return loaded(fs, layer) >= 0;
}

bool ofs_layer_present(struct ofs *fs, const char *layer)
{
	return ofs_bpf_present(fs, layer) || ofs_kmod_present(fs, layer);
}

/* eBPF layer @l with this mount's source and options; 0 or -errno. */
static int layer_profile(struct ofs *fs, enum obp_layer l, struct osp_profile **out)
{
	struct osp_profile *p = NULL;
	int err = obp_profile(fs->bpf, l, &p);

	err = err ? err : ofs_profile_set_source(fs, p);
	err = err ? err : ofs_opts_describe(fs, p);
	if (err) {
		osp_profile_free(p);
		return err;
	}
	*out = p;
	return 0;
}

static int layer_gen(struct ofs *fs, const char *layer, FILE *out,
		     int (*w)(FILE *, const struct osp_profile *))
{
	int l = loaded(fs, layer), err;
	struct osp_profile *p;

	if (l < 0)
		return -ENOENT;
	err = layer_profile(fs, (enum obp_layer)l, &p);
	if (err)
		return err;
	err = w(out, p);
	osp_profile_free(p);
	return err;
}

int ofs_layer_gen_text(struct ofs *fs, const char *layer, FILE *out)
{
	if (!ofs_bpf_present(fs, layer))
		return ofs_kmod_gen_text(fs, layer, out);
	return layer_gen(fs, layer, out, osp_write_stats);
}

int ofs_layer_gen_json(struct ofs *fs, const char *layer, FILE *out)
{
	if (!ofs_bpf_present(fs, layer))
		return ofs_kmod_gen_json(fs, layer, out);
	return layer_gen(fs, layer, out, osp_write_json);
}

/*
 * A control request's reply ends its FUSE request in this thread: mark
 * the thread for the fuse layer meanwhile. Two map updates, a few us,
 * only for control requests. A failure only lets that request be
 * counted; it is not worth failing the request for.
 */
void ofs_bpf_ctl_begin(struct ofs *fs)
{
	if (fs->bpf)
		obp_skip_thread(fs->bpf, gettid(), true);
}

void ofs_bpf_ctl_end(struct ofs *fs)
{
	if (fs->bpf)
		obp_skip_thread(fs->bpf, gettid(), false);
}

void ofs_bpf_reset(struct ofs *fs)
{
	if (fs->bpf)
		obp_reset(fs->bpf);
}

void ofs_bpf_enable(struct ofs *fs, bool on)
{
	if (fs->bpf)
		obp_enable(fs->bpf, on);
}

void ofs_bpf_describe(struct ofs *fs, FILE *out)
{
	bool first = true;

	if (fs->vt)
		fprintf(out, "vt_errors %" PRIu64 "\n", __atomic_load_n(&vt_errors, __ATOMIC_RELAXED));

	fputs("ebpf_layers ", out);
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if (obp_layers(fs->bpf) & OBP_LAYER_BIT(l)) {
			fprintf(out, "%s%s", first ? "" : ",", obp_layer_name(l));
			first = false;
		}
	fputs(first ? "none\n" : "\n", out);
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		struct obp_stats st;

		if (!fs->bpf)
			break;
		if (obp_layers(fs->bpf) & OBP_LAYER_BIT(l)) {
			if (obp_stats(fs->bpf, l, &st) == 0)
				fprintf(out, "ebpf_%s_lost %" PRIu64 "\n", obp_layer_name(l),
					st.hist_full + st.inflight_full);
		} else if (obp_why(fs->bpf, l)[0]) {
			fprintf(out, "ebpf_%s_off %s\n", obp_layer_name(l), obp_why(fs->bpf, l));
		}
	}
}

/* FILE with .@layer before its extension: run.json -> run.fuse.json. */
static char *dump_path(const char *file, const char *layer)
{
	const char *slash = strrchr(file, '/'), *dot = strrchr(file, '.');
	char *out = NULL;

	if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : file))
		dot = file + strlen(file);
	if (asprintf(&out, "%.*s.%s%s", (int)(dot - file), file, layer, dot) < 0)
		return NULL;
	return out;
}

int ofs_bpf_dump(struct ofs *fs)
{
	int ret = 0;

	for (unsigned l = 0; fs->bpf && l < OBP_L__COUNT; l++) {
		struct osp_profile *p = NULL;
		char *path;
		int err;

		if (!(obp_layers(fs->bpf) & OBP_LAYER_BIT(l)))
			continue;
		path = dump_path(fs->opts.dump, obp_layer_name(l));
		err = path ? layer_profile(fs, l, &p) : -ENOMEM;
		err = err ? err : ofs_dump_write(path, p);
		if (err) {
			fprintf(stderr, "osprof-fs: --dump %s: %s\n", path ? path : fs->opts.dump,
				strerror(-err));
			ret = err;
		}
		osp_profile_free(p);
		free(path);
	}
	return ret;
}
