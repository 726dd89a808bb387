// SPDX-License-Identifier: MIT
/*
 * osprof-fs and the eBPF layers (bpf/obp.h): loaded after the mount, for
 * this mount's device only, with the processes that send it requests as
 * the syscall layer's workload and this daemon as the lower layer's
 * process; served in the control directory beside the fs layer (`fuse`,
 * `syscall`, `lower`, `block`, `irq` and their .json; ofs_layer.c picks
 * the source of each), with the mount's host, source and options; reset,
 * enabled and disabled with it; in its timeline (ofs_bpf_tl.c); dumped
 * beside it.
 *
 * Where osprof.ko also offers a layer (lower, block, irq), the module
 * serves it unless -o layers asks for the eBPF one; each profile says
 * which served it (source.layer_source).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "osprof/format.h"
#include "osprof/layers.h"
#include "osprof/set.h"
#include "obp.h"
#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_bpf_impl.h"
#include "ofs_ctl.h"
#include "ofs_dump.h"
#include "ofs_kmod.h"
#include "ofs_layer.h"
#include "ofs_lower.h"
#include "ofs_mount.h"
#include "ofs_opts.h"
#include "ofs_profile.h"

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

/*
 * Keep @why as the reason each layer of @layers did not load, for ctl's
 * ebpf_<layer>_off lines (the first reason a layer got stays; an empty
 * one is none). Out of memory the line is left out: it is said, and the
 * mount goes on, as it would have without the line.
 */
static void keep_why(struct ofs *fs, unsigned layers, const char *why)
{
	if (!layers || !why[0])
		return;
	if (!fs->bpf_off && !(fs->bpf_off = calloc(OBP_L__COUNT, sizeof(*fs->bpf_off))))
		goto nomem;
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if ((layers & OBP_LAYER_BIT(l)) && !fs->bpf_off[l] &&
		    !(fs->bpf_off[l] = strdup(why)))
			goto nomem;
	return;
nomem:
	fprintf(stderr, "osprof-fs: eBPF layers: out of memory: ctl will not say why they are off\n");
}

/*
 * No eBPF layer of @layers loads, for @why (@e): said, and kept for ctl.
 * 0 when the layers were not asked for by name, else @e.
 */
static int off(struct ofs *fs, unsigned layers, const char *why, int e)
{
	fprintf(stderr, "osprof-fs: eBPF layers off: %s\n", why);
	keep_why(fs, layers, why);
	return fs->opts.layers_auto ? 0 : e;
}

int ofs_bpf_open(struct ofs *fs)
{
	struct obp_opts o = {
		.layers = fs->opts.layers,
		.follow_callers = true,
		/* Only the mount's calls: then a caller's children may be
		 * followed too (a shell's, say) at no cost to the profile. */
		.mount_filter = !fs->opts.syscall_all,
		.follow_children = !fs->opts.syscall_all,
		/* The control directory's inodes (ofs_ctl_ino: FUSE makes a
		 * node id the inode number) are no workload's files. */
		.skip_ino_lo = FUSE_ROOT_ID + 1,
		.skip_ino_hi = OFS_CTL_INO_END,
	};
	char err[256], *type = NULL;
	unsigned missing;
	int e;

	ofs_bpf_vt_open(fs);
	/* Unasked, the module's layers stay the module's: it was loaded on
	 * purpose, and its lower layer also has virtual time. */
	if (fs->opts.layers_auto && ofs_kmod_loaded())
		for (unsigned l = 0; l < OBP_L__COUNT; l++)
			if (ofs_kmod_present(fs, obp_layer_name(l)))
				o.layers &= ~OBP_LAYER_BIT(l);
	/* lower: the daemon times its own calls unless eBPF is asked for. */
	if ((o.layers & OBP_LAYER_BIT(OBP_L_LOWER)) && !fs->opts.lower_ebpf) {
		o.layers &= ~OBP_LAYER_BIT(OBP_L_LOWER);
		if (ofs_lower_new(fs) != 0) {
			fprintf(stderr, "osprof-fs: cannot set up the lower layer: out of memory\n");
			return -ENOMEM;
		}
	}
	if (!o.layers)
		return 0;
	e = ofs_mount_at(fs->opts.mount_abs, &type, &o.fuse_dev, &o.mount_id);
	o.mount_dev = o.fuse_dev;
	free(type);
	if (e) {
		snprintf(err, sizeof(err), "cannot find this mount's device in /proc/self/mountinfo: %s",
			 strerror(-e));
		return off(fs, o.layers, err, e);
	}
	e = obp_open(&o, &fs->bpf, err, sizeof(err));
	if (e)
		return off(fs, o.layers, err, e);
	missing = o.layers & ~obp_layers(fs->bpf);
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if (missing & OBP_LAYER_BIT(l))
			keep_why(fs, OBP_LAYER_BIT(l), obp_why(fs->bpf, l));
	if (missing && fs->opts.layers_auto && !obp_layers(fs->bpf)) {
		fprintf(stderr, "osprof-fs: eBPF layers off (the fs%s layer%s on): ",
			fs->lower ? " and lower" : "", fs->lower ? "s go" : " goes");
		say_why(fs->bpf, missing);
	} else if (missing && !fs->opts.layers_auto) {
		for (unsigned l = 0; l < OBP_L__COUNT; l++)
			if (missing & OBP_LAYER_BIT(l))
				fprintf(stderr, "osprof-fs: eBPF layer %s off: %s\n",
					obp_layer_name(l), obp_why(fs->bpf, l));
		return -EOPNOTSUPP;
	}
	/* Otherwise some loaded, quietly: ctl says why the others did not
	 * (a kernel older than a tracepoint, say). */
	if (!obp_layers(fs->bpf)) {
		obp_close(fs->bpf);
		fs->bpf = NULL;
		return 0;
	}
	obp_enable(fs->bpf, !fs->opts.noprofile);
	return ofs_bpf_tl_new(fs);
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
	ofs_bpf_timeline_stop(fs);
	osp_set_free(fs->lower);
	fs->lower = NULL;
	ofs_bpf_tl_free(fs);
	obp_close(fs->bpf);
	fs->bpf = NULL;
	for (unsigned l = 0; fs->bpf_off && l < OBP_L__COUNT; l++)
		free(fs->bpf_off[l]);
	free(fs->bpf_off);
	fs->bpf_off = NULL;
	/* The workers have stopped: nothing reads a slot any more. */
	ofs_bpf_vt_close(fs);
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

/* Which calls layer syscall counts (-o syscall). */
static const char *syscall_calls(const struct ofs *fs)
{
	return fs->opts.syscall_all ? "all" : "mount";
}

/* eBPF layer @l with this mount's source and options, and its timeline
 * when one runs; 0 or -errno. */
static int layer_profile(struct ofs *fs, enum obp_layer l, struct osp_profile **out)
{
	struct osp_profile *p = NULL;
	int err = obp_profile(fs->bpf, l, &p);

	err = err ? err : (fs->bpf_tl ? ofs_bpf_tl_copy(fs, l, p) : 0);
	err = err ? err : ofs_profile_set_source(fs, p);
	err = err ? err : ofs_opts_describe(fs, p);
	/* which calls it holds: a reader compares them with the fs layer */
	if (!err && l == OBP_L_SYSCALL)
		err = osp_kv_set_str(&p->options, "calls", syscall_calls(fs));
	if (err) {
		osp_profile_free(p);
		return err;
	}
	*out = p;
	return 0;
}

int ofs_bpf_write(struct ofs *fs, const char *layer, FILE *out,
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
	if (fs->lower)
		osp_set_reset(fs->lower);
	if (!fs->bpf)
		return;
	/* With the maps emptied, the next reading starts from nothing. */
	ofs_bpf_tl_reset(fs);
}

void ofs_bpf_enable(struct ofs *fs, bool on)
{
	if (fs->lower)
		osp_set_enable(fs->lower, on);
	if (fs->bpf)
		obp_enable(fs->bpf, on);
}

void ofs_bpf_describe(struct ofs *fs, FILE *out)
{
	bool first = true;

	if (fs->vt)
		fprintf(out, "vt_errors %" PRIu64 "\n", ofs_bpf_vt_errors());

	fprintf(out, "lower_source %s\n", ofs_layer_source_names[ofs_layer_source(fs, OSP_LAYER_LOWER)]);
	if (ofs_bpf_present(fs, OSP_LAYER_SYSCALL))
		fprintf(out, "syscall_calls %s\n", syscall_calls(fs));
	fputs("ebpf_layers ", out);
	for (unsigned l = 0; l < OBP_L__COUNT; l++)
		if (obp_layers(fs->bpf) & OBP_LAYER_BIT(l)) {
			fprintf(out, "%s%s", first ? "" : ",", obp_layer_name(l));
			first = false;
		}
	fputs(first ? "none\n" : "\n", out);
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		struct obp_stats st;

		if (obp_layers(fs->bpf) & OBP_LAYER_BIT(l)) {
			if (obp_stats(fs->bpf, l, &st) == 0)
				fprintf(out, "ebpf_%s_lost %" PRIu64 "\n", obp_layer_name(l),
					st.hist_full + st.inflight_full + st.missed);
		} else if (fs->bpf_off && fs->bpf_off[l]) {
			fprintf(out, "ebpf_%s_off %s\n", obp_layer_name(l), fs->bpf_off[l]);
		}
	}
}

int ofs_bpf_dump(struct ofs *fs)
{
	int ret = 0;

	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		enum ofs_layer_source src = ofs_layer_source(fs, obp_layer_name(l));
		bool ebpf = src == OFS_LAYER_EBPF;
		struct osp_profile *p = NULL;
		char *path;
		int err;

		if (!ebpf && src != OFS_LAYER_DAEMON)
			continue;
		path = obp_layer_file(fs->opts.dump, l);
		if (!path)
			err = -ENOMEM;
		else if (ebpf)
			err = layer_profile(fs, l, &p);
		else
			err = (p = ofs_lower_profile(fs)) ? 0 : -ENOMEM;
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
