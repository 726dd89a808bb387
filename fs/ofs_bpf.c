// SPDX-License-Identifier: MIT
/*
 * osprof-fs and the eBPF layers (bpf/obp.h): loaded after the mount, for
 * this mount's device only, with the processes that send it requests as
 * the syscall layer's workload and this daemon as the lower layer's
 * process; served in the control directory beside the fs layer (`fuse`,
 * `syscall`, `lower`, `block`, `irq` and their .json), with the mount's
 * host, source and options; reset, enabled and disabled with it; in its
 * timeline; dumped beside it.
 *
 * Where osprof.ko also offers a layer (lower, block, irq), the module
 * serves it unless -o layers asks for the eBPF one; each profile says
 * which served it (source.layer_source).
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
#include <time.h>
#include <unistd.h>

#include "osprof/format.h"
#include "osprof/ring.h"
#include "osprof/set.h"
#include "obp.h"
#include "ofs.h"
#include "ofs_bpf.h"
#include "ofs_ctl.h"
#include "ofs_dump.h"
#include "ofs_kmod.h"
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
 * The eBPF layers' timeline runs with the fs layer's (same interval and
 * capacity, each layer bounded in bytes as the fs layer is): a thread
 * reads every layer each interval and keeps the difference from its last
 * reading. A read that fails is counted (missed); its events land in the
 * next snapshot.
 */
struct ofs_bpf_tl {
	pthread_mutex_t mu;      /* everything below; the thread ticks under it */
	pthread_cond_t cv;       /* signals stop; CLOCK_MONOTONIC */
	pthread_t thread;
	bool running, stop;
	uint64_t interval_ns;
	uint64_t missed;
	struct osp_profile *prev[OBP_L__COUNT]; /* last reading, NULL: none */
	struct osp_ring *ring[OBP_L__COUNT];
};

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

/* The timeline's state, not running; 0 or -1 after saying why. */
static int tl_new(struct ofs *fs)
{
	struct ofs_bpf_tl *tl = calloc(1, sizeof(*tl));
	pthread_condattr_t ca;

	if (!tl) {
		fprintf(stderr, "osprof-fs: eBPF layers: out of memory\n");
		return -1;
	}
	pthread_mutex_init(&tl->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&tl->cv, &ca);
	pthread_condattr_destroy(&ca);
	fs->bpf_tl = tl;
	return 0;
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

	vt_open(fs);
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
			return -1;
		}
	}
	if (!o.layers)
		return 0;
	e = ofs_mount_at(fs->opts.mount_abs, &type, &o.fuse_dev, &o.mount_id);
	o.mount_dev = o.fuse_dev;
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
		fprintf(stderr, "osprof-fs: eBPF layers off (the fs%s layer%s on): ",
			fs->lower ? " and lower" : "", fs->lower ? "s go" : " goes");
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
	return tl_new(fs);
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
	if (fs->bpf_tl) {
		pthread_mutex_destroy(&fs->bpf_tl->mu);
		pthread_cond_destroy(&fs->bpf_tl->cv);
		free(fs->bpf_tl);
		fs->bpf_tl = NULL;
	}
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

/* True when @layer is the daemon's own lower layer (not eBPF's). */
static bool daemon_lower(struct ofs *fs, const char *layer)
{
	return fs->lower && strcmp(layer, "lower") == 0 && !ofs_bpf_present(fs, layer);
}

bool ofs_layer_present(struct ofs *fs, const char *layer)
{
	return ofs_bpf_present(fs, layer) || daemon_lower(fs, layer) ||
	       ofs_kmod_present(fs, layer);
}

/* ---- the timeline ---- */


/* Layer @l's snapshot since its last reading, now; 0 or -errno. */
static int tl_delta(struct ofs *fs, enum obp_layer l, struct osp_snapshot *s,
		    struct osp_profile **cur)
{
	int err = obp_profile(fs->bpf, l, cur);

	if (err)
		return err;
	err = osp_snapshot_delta(s, *cur, fs->bpf_tl->prev[l], (*cur)->elapsed_ns);
	if (err) {
		osp_profile_free(*cur);
		*cur = NULL;
	}
	return err;
}

static void tl_tick_locked(struct ofs *fs)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;

	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		struct osp_profile *cur;
		struct osp_snapshot s;

		if (!tl->ring[l])
			continue;
		if (tl_delta(fs, l, &s, &cur) != 0) {
			tl->missed++;
			continue;
		}
		osp_ring_push(tl->ring[l], &s);
		osp_profile_free(tl->prev[l]);
		tl->prev[l] = cur;
	}
}

static void *tl_thread(void *arg)
{
	struct ofs *fs = arg;
	struct ofs_bpf_tl *tl = fs->bpf_tl;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&tl->mu);
	while (!tl->stop) {
		uint64_t ns = (uint64_t)next.tv_nsec + tl->interval_ns;

		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		/* An absolute deadline: no drift from the ticks' cost. */
		while (!tl->stop && pthread_cond_timedwait(&tl->cv, &tl->mu, &next) != ETIMEDOUT)
			;
		if (!tl->stop)
			tl_tick_locked(fs);
	}
	pthread_mutex_unlock(&tl->mu);
	return NULL;
}

/* Drop every snapshot and reading (the rings stay). Under tl->mu. */
static void tl_clear_locked(struct ofs_bpf_tl *tl)
{
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		if (tl->ring[l])
			osp_ring_clear(tl->ring[l]);
		osp_profile_free(tl->prev[l]);
		tl->prev[l] = NULL;
	}
	tl->missed = 0;
}

/* Free the rings: the timeline is off. Under tl->mu, its thread gone. */
static void tl_drop_locked(struct ofs_bpf_tl *tl)
{
	tl_clear_locked(tl);
	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		osp_ring_free(tl->ring[l]);
		tl->ring[l] = NULL;
	}
}

void ofs_bpf_timeline_stop(struct ofs *fs)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;

	if (fs->lower)
		osp_set_timeline_stop(fs->lower);
	if (!tl)
		return;
	pthread_mutex_lock(&tl->mu);
	if (!tl->running) {
		pthread_mutex_unlock(&tl->mu);
		return;
	}
	tl->stop = true;
	pthread_cond_signal(&tl->cv);
	pthread_mutex_unlock(&tl->mu);
	pthread_join(tl->thread, NULL);
	pthread_mutex_lock(&tl->mu);
	tl->running = false;
	tl_drop_locked(tl);
	pthread_mutex_unlock(&tl->mu);
}

int ofs_bpf_timeline_start(struct ofs *fs, uint64_t interval_ns, unsigned capacity)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;
	int err = 0;

	if (fs->lower) {
		err = osp_set_timeline_start(fs->lower, interval_ns, capacity);
		if (err)
			return err;
	}
	if (!tl)
		return 0;
	ofs_bpf_timeline_stop(fs);
	pthread_mutex_lock(&tl->mu);
	for (unsigned l = 0; !err && l < OBP_L__COUNT; l++)
		if (obp_layers(fs->bpf) & OBP_LAYER_BIT(l))
			err = osp_ring_new(capacity, OSP_TIMELINE_BOUND_BYTES, &tl->ring[l]);
	tl->interval_ns = interval_ns;
	tl->stop = false;
	err = err ? err : -pthread_create(&tl->thread, NULL, tl_thread, fs);
	if (err)
		tl_drop_locked(tl);
	tl->running = !err;
	pthread_mutex_unlock(&tl->mu);
	return err;
}

/* Layer @l's timeline into @p, with the interval in progress: the
 * snapshots add up to @p's totals unless some were dropped. */
static int tl_copy(struct ofs *fs, enum obp_layer l, struct osp_profile *p)
{
	struct ofs_bpf_tl *tl = fs->bpf_tl;
	struct osp_profile *cur = NULL;
	struct osp_snapshot partial;
	int err = 0;

	pthread_mutex_lock(&tl->mu);
	if (!tl->running || !tl->ring[l])
		goto out;
	err = tl_delta(fs, l, &partial, &cur);
	if (err)
		goto out;
	/* The partial interval is against this later reading: use its
	 * totals too, so the two agree. */
	err = osp_ring_copy(tl->ring[l], cur, tl->interval_ns, 1);
	if (err) {
		osp_snapshot_fini(&partial);
		goto out;
	}
	if (partial.nops)
		cur->snaps[cur->nsnaps++] = partial;
	else
		osp_snapshot_fini(&partial);
	/* @p takes @cur's ops and timeline. */
	{
		struct osp_profile t = *p;

		*p = *cur;
		*cur = t;
	}
out:
	pthread_mutex_unlock(&tl->mu);
	osp_profile_free(cur);
	return err;
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

	err = err ? err : (fs->bpf_tl ? tl_copy(fs, l, p) : 0);
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

/* The daemon's lower layer written with @w. */
static int lower_gen(struct ofs *fs, FILE *out, int (*w)(FILE *, const struct osp_profile *))
{
	struct osp_profile *p = ofs_lower_profile(fs);
	int err;

	if (!p)
		return -ENOMEM;
	err = w(out, p);
	osp_profile_free(p);
	return err;
}

/* Served by eBPF when loaded, else the daemon's lower, else the module. */
int ofs_layer_gen_text(struct ofs *fs, const char *layer, FILE *out)
{
	if (daemon_lower(fs, layer))
		return lower_gen(fs, out, osp_write_stats);
	if (!ofs_bpf_present(fs, layer))
		return ofs_kmod_gen_text(fs, layer, out);
	return layer_gen(fs, layer, out, osp_write_stats);
}

int ofs_layer_gen_json(struct ofs *fs, const char *layer, FILE *out)
{
	if (daemon_lower(fs, layer))
		return lower_gen(fs, out, osp_write_json);
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
	if (fs->lower)
		osp_set_reset(fs->lower);
	if (!fs->bpf)
		return;
	/* With the maps emptied, the next reading starts from nothing. */
	pthread_mutex_lock(&fs->bpf_tl->mu);
	obp_reset(fs->bpf);
	tl_clear_locked(fs->bpf_tl);
	pthread_mutex_unlock(&fs->bpf_tl->mu);
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
		fprintf(out, "vt_errors %" PRIu64 "\n", __atomic_load_n(&vt_errors, __ATOMIC_RELAXED));

	fprintf(out, "lower_source %s\n", ofs_bpf_present(fs, "lower") ? "ebpf" :
		fs->lower ? "daemon" : ofs_kmod_present(fs, "lower") ? "osprof.ko" : "none");
	if (ofs_bpf_present(fs, "syscall"))
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

int ofs_bpf_dump(struct ofs *fs)
{
	int ret = 0;

	for (unsigned l = 0; l < OBP_L__COUNT; l++) {
		bool ebpf = obp_layers(fs->bpf) & OBP_LAYER_BIT(l);
		struct osp_profile *p = NULL;
		char *path;
		int err;

		if (!ebpf && !daemon_lower(fs, obp_layer_name(l)))
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
