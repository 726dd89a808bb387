// SPDX-License-Identifier: MIT
/*
 * Virtual time from eBPF (-o cpu_time; bpf/obp.h's obp_vt): a request's
 * CPU time is its virtual time. Each worker thread takes a slot on its
 * first request, reads what its virtual time leaves out from memory, and
 * gives the slot back when it exits (libfuse retires idle workers).
 */
#include <pthread.h>
#include <stdint.h>

#include "obp.h"
#include "ofs_bpf.h"
#include "ofs_bpf_impl.h"

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

void ofs_bpf_vt_open(struct ofs *fs)
{
	char why[200];

	if (!fs->opts.cpu_time || fs->opts.vtimers)
		return;
	pthread_once(&vt_key_once, vt_key_make);
	if (obp_vt_open(&fs->vt, why, sizeof(why)) != 0)
		fs->vt = NULL;
}

void ofs_bpf_vt_close(struct ofs *fs)
{
	obp_vt_close(fs->vt);
	fs->vt = NULL;
}

uint64_t ofs_bpf_vt_errors(void)
{
	return __atomic_load_n(&vt_errors, __ATOMIC_RELAXED);
}
