// SPDX-License-Identifier: MIT
/*
 * Loading the virtual time programs (obp_vt.bpf.c) and handing out their
 * per-thread slots. The slot array is mmapped: a thread reads its slot
 * with plain loads (obp_vt_deduct_ns in obp.h). Slots are claimed by
 * compare-and-swap of their tid from 0, so registration takes no lock and
 * the programs' own freeing of a dead thread's slot (tid back to 0) needs
 * no word with us.
 *
 * The order of every change keeps the programs from writing a slot that
 * is not the thread's: a claimed slot is zeroed before its tid enters
 * vt_tids, and vt_gen is bumped after a tid enters or leaves vt_tids (so
 * each CPU's memory of "this thread's slot" is looked up again) and
 * before a slot is released for reuse.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_vt.skel.h"

/* The initial PID namespace's inode number (PROC_PID_INIT_INO): tids the
 * programs see are that namespace's, gettid() gives the caller's. */
#define OBP_PID_INIT_INO 0xEFFFFFFCu

struct obp_vt {
	struct obp_vt_bpf *skel;
	struct obp_vt_slot *slots; /* mmapped vt_slots, OBP_VT_SLOTS of them */
	size_t slots_len;          /* bytes mapped */
	unsigned hint;             /* where the next free slot is looked for */
	char vectors[128];         /* system vectors attached, for obp_vt_vectors */
};

/* Optional hard-interrupt tracepoints (x86 system vectors) and the short
 * names of their programs in obp_vt.bpf.c (obp_vt_<short>_in/_out). */
static const struct {
	const char *tp, *prog;
} vectors[] = {
	{ "local_timer", "tmr" },
	{ "reschedule", "rsch" },
	{ "call_function", "cf" },
	{ "call_function_single", "cf1" },
};

/* Load only the vector programs whose tracepoints this kernel has. */
static void vectors_pick(struct obp_vt *vt)
{
	struct bpf_object *obj = vt->skel->obj;

	for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
		char tp[64], prog[64];
		bool have = true;

		for (int exit = 0; exit < 2; exit++) {
			snprintf(tp, sizeof(tp), "%s_%s", vectors[i].tp, exit ? "exit" : "entry");
			have = have && libbpf_find_vmlinux_btf_id(tp, BPF_TRACE_RAW_TP) >= 0;
		}
		for (int exit = 0; exit < 2; exit++) {
			snprintf(prog, sizeof(prog), "obp_vt_%s_%s", vectors[i].prog,
				 exit ? "out" : "in");
			struct bpf_program *bp = bpf_object__find_program_by_name(obj, prog);

			if (bp)
				bpf_program__set_autoload(bp, have);
		}
		if (have)
			snprintf(vt->vectors + strlen(vt->vectors),
				 sizeof(vt->vectors) - strlen(vt->vectors), "%s%s",
				 vt->vectors[0] ? " " : "", vectors[i].tp);
	}
}

int obp_vt_open(struct obp_vt **out, char *why, size_t whylen)
{
	struct obp_vt *vt;
	struct stat st;
	int err;

	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		snprintf(why, whylen, "virtual time: this kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return -EOPNOTSUPP;
	}
	if (stat("/proc/self/ns/pid", &st) == 0 && st.st_ino != OBP_PID_INIT_INO) {
		snprintf(why, whylen, "virtual time: this process is not in the initial PID namespace, whose thread ids the programs see");
		return -EOPNOTSUPP;
	}
	vt = calloc(1, sizeof(*vt));
	if (!vt) {
		snprintf(why, whylen, "virtual time: out of memory");
		return -ENOMEM;
	}
	obp_libbpf_quiet();
	vt->skel = obp_vt_bpf__open();
	if (!vt->skel) {
		err = -errno;
		goto fail;
	}
	vectors_pick(vt);
	err = obp_vt_bpf__load(vt->skel);
	err = err ? err : obp_vt_bpf__attach(vt->skel);
	if (err)
		goto fail;
	vt->slots_len = sizeof(struct obp_vt_slot) * OBP_VT_SLOTS;
	vt->slots = mmap(NULL, vt->slots_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bpf_map__fd(vt->skel->maps.vt_slots), 0);
	if (vt->slots == MAP_FAILED) {
		vt->slots = NULL;
		err = -errno;
		goto fail;
	}
	*out = vt;
	return 0;
fail:
	obp_why_msg(why, whylen, "virtual time", err);
	obp_vt_close(vt);
	return err;
}

void obp_vt_close(struct obp_vt *vt)
{
	if (!vt)
		return;
	if (vt->slots)
		munmap(vt->slots, vt->slots_len);
	obp_vt_bpf__destroy(vt->skel);
	free(vt);
}

const char *obp_vt_vectors(const struct obp_vt *vt)
{
	return vt ? vt->vectors : "";
}

static void gen_bump(struct obp_vt *vt)
{
	__atomic_fetch_add(&vt->skel->data->vt_gen, 1, __ATOMIC_SEQ_CST);
}

/* Give slot @i back, if @tid still holds it. */
static void slot_release(struct obp_vt *vt, unsigned i, __u32 tid)
{
	__atomic_compare_exchange_n(&vt->slots[i].tid, &tid, 0, false,
				    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Claim a free slot for @tid: its number, or -ENOSPC. */
static int slot_claim(struct obp_vt *vt, __u32 tid)
{
	unsigned start = __atomic_load_n(&vt->hint, __ATOMIC_RELAXED);

	for (unsigned n = 0; n < OBP_VT_SLOTS; n++) {
		unsigned i = (start + n) % OBP_VT_SLOTS;
		struct obp_vt_slot *s = &vt->slots[i];
		__u32 zero = 0;

		if (__atomic_load_n(&s->tid, __ATOMIC_RELAXED) != 0 ||
		    !__atomic_compare_exchange_n(&s->tid, &zero, tid, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		/* No program reaches it until tid is in vt_tids. */
		s->off_ns = s->irq_ns = s->out_ns = s->nswitch = s->nirq = 0;
		__atomic_store_n(&vt->hint, (i + 1) % OBP_VT_SLOTS, __ATOMIC_RELAXED);
		return (int)i;
	}
	return -ENOSPC;
}

int obp_vt_register(struct obp_vt *vt, const struct obp_vt_slot **slot)
{
	__u32 tid = (__u32)gettid(), k, old;
	int fd = bpf_map__fd(vt->skel->maps.vt_tids), i, err = 0;

	i = slot_claim(vt, tid);
	if (i < 0)
		return i;
	k = (__u32)i;
	if (bpf_map_update_elem(fd, &tid, &k, BPF_NOEXIST) != 0) {
		err = -errno;
		/* This thread registered before, or a dead thread of the same
		 * tid was missed: the new slot replaces the old one. */
		if (err == -EEXIST && bpf_map_lookup_elem(fd, &tid, &old) == 0) {
			err = bpf_map_update_elem(fd, &tid, &k, BPF_EXIST) ? -errno : 0;
			if (!err && old < OBP_VT_SLOTS) {
				gen_bump(vt);
				slot_release(vt, old, tid);
			}
		}
		if (err) {
			slot_release(vt, k, tid);
			return err;
		}
	}
	gen_bump(vt);
	*slot = &vt->slots[i];
	return i;
}

int obp_vt_unregister(struct obp_vt *vt, int slot)
{
	__u32 tid = (__u32)gettid();
	int err = 0;

	if (slot < 0 || slot >= OBP_VT_SLOTS)
		return -EINVAL;
	if (__atomic_load_n(&vt->slots[slot].tid, __ATOMIC_ACQUIRE) != tid)
		return -EPERM;
	if (bpf_map_delete_elem(bpf_map__fd(vt->skel->maps.vt_tids), &tid) != 0 && errno != ENOENT)
		err = -errno;
	gen_bump(vt);
	slot_release(vt, (unsigned)slot, tid);
	return err;
}
