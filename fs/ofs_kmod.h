/* SPDX-License-Identifier: MIT */
/* The kernel module osprof.ko (ofs_kmod.c): registration, its layers'
 * profiles, the virtual timers. */
#ifndef OSPROF_FS_OFS_KMOD_H
#define OSPROF_FS_OFS_KMOD_H

#include <stdio.h>
#include "osprof/profile.h"
#include "ofs.h"

/*
 * ofs_kmod_new - the module's state in @fs; with -o vtimers, open
 * /dev/osprof_vt. Returns 0, or -errno after a one-line reason on stderr
 * (-ENOENT: -o vtimers without the module). Call before serving.
 */
int ofs_kmod_new(struct ofs *fs);
/* Unregister (if registered), close /dev/osprof_vt, free; NULL-safe. */
void ofs_kmod_free(struct ofs *fs);
/*
 * ofs_kmod_register - when the module is loaded, register this process
 * (`pid <tgid>` to /proc/osprof/ctl) so its lower layer profiles the
 * daemon; call after daemonizing, the pid must be final. Nothing, and no
 * message, without the module; a one-line note when it refuses us.
 */
void ofs_kmod_register(struct ofs *fs);
/* `unpid <tgid>` when registered; errors ignored (the module may be gone). */
void ofs_kmod_unregister(struct ofs *fs);
/* True while /proc/osprof exists. */
bool ofs_kmod_loaded(void);
/* True when /proc/osprof/@layer is readable (the control files' predicate). */
bool ofs_kmod_present(struct ofs *fs, const char *layer);
/*
 * ofs_kmod_gen_text, ofs_kmod_gen_json - read /proc/osprof/@layer now and
 * write it to @out as core's human view or DESIGN.md's JSON profile (layer
 * @layer, this mount's host and source). 0 or -errno: -ENOENT when the
 * module is gone, -EIO for text that does not parse (named on stderr) or
 * a failed write. Thread-safe.
 */
int ofs_kmod_gen_text(struct ofs *fs, const char *layer, FILE *out);
int ofs_kmod_gen_json(struct ofs *fs, const char *layer, FILE *out);
/*
 * ofs_kmod_profile - the profile of @layer from @len bytes of the module's
 * text at @text, with this mount's host and source. NULL with a one-line
 * reason in @err. The caller frees it (osp_profile_free).
 */
struct osp_profile *ofs_kmod_profile(struct ofs *fs, const char *layer,
				     const char *text, size_t len, char *err,
				     size_t errlen);
/* The module's lines of the ctl file (`kmod`, `kmod_registered`, ...). */
void ofs_kmod_describe(struct ofs *fs, FILE *out);
/*
 * ofs_kmod_vt_start - start this thread's private virtual timer (allocated
 * on its first use); only with -o vtimers. True when it runs; on failure
 * the error is counted (vtimer_errors in ctl) and false returned.
 */
bool ofs_kmod_vt_start(struct ofs *fs);
/* Stop it: the virtual ns of the interval just ended (0, counted, on error). */
uint64_t ofs_kmod_vt_stop(struct ofs *fs);

#endif /* OSPROF_FS_OFS_KMOD_H */
