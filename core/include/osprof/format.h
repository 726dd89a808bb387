/* SPDX-License-Identifier: MIT */
/*
 * Writers and reader of profiles:
 *  - the human `stats` view: a header naming the clock and settings, a
 *    table sorted by total time, one ASCII log2 histogram per operation
 *    (print_log2_hist style, with DESIGN.md's bucket bounds), then the
 *    peaks of each operation (osp_hist_peaks: buckets, latency range,
 *    count, share, mean);
 *  - the human timeline view;
 *  - JSON, DESIGN.md's profile format (one op per line, jq-friendly);
 *  - a JSON reader (json-c) that round-trips the writer's output and
 *    rejects malformed input with a message naming what is wrong.
 *
 * Writers return 0, or -EIO when the stream reports an error. Every name
 * and value taken from the profile is escaped for the output's language
 * with osprof/escape.h's helpers (text, JSON). The metrics for Prometheus
 * are osprof/metrics.h's.
 */
#ifndef OSPROF_FORMAT_H
#define OSPROF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "layers.h"
#include "profile.h"

int osp_write_stats(FILE *out, const struct osp_profile *p);
int osp_write_timeline(FILE *out, const struct osp_profile *p);
int osp_write_json(FILE *out, const struct osp_profile *p);

/*
 * osp_write_hist_ascii - one histogram as print_log2_hist does it: a
 * line per bucket from the first to the last non-empty one, labelled with
 * its latency range, stars in proportion to the largest bucket (count *
 * 40 / largest, rounded down, no minimum: a count of 1 against 200,000
 * draws no star, and is seen by its count). @indent spaces before each
 * line.
 */
int osp_write_hist_ascii(FILE *out, const struct osp_hist *h, int indent);

/* Format @ns into @buf with three significant digits and a unit (ns, us, ms, s). */
char *osp_fmt_ns(char *buf, size_t len, double ns);

/*
 * osp_read_json - parse a profile from @len bytes at @text.
 * Returns the profile, or NULL with a one-line reason in @err (which names
 * the offending key, e.g. "ops[2].buckets[0]: index 900 out of range").
 * A larger format version is refused. Checksums are not enforced here; call
 * osp_profile_check.
 */
struct osp_profile *osp_read_json(const char *text, size_t len, char *err,
				  size_t errlen);
/*
 * The most osp_read_stream reads: a profile's JSON, timeline included (its
 * snapshots are bounded by OSP_TIMELINE_BOUND_BYTES in memory), is far
 * smaller; a reader pointed at /dev/zero or a runaway file stops here
 * rather than take all memory.
 */
#define OSP_READ_MAX_BYTES ((size_t)1 << 30)
/*
 * osp_read_stream - all of @f, to its end (also a /proc file whose size
 * says 0), into a new buffer *@buf of *@len bytes and a NUL after them;
 * the caller frees it. 0; -ENOMEM; -EFBIG past OSP_READ_MAX_BYTES;
 * -errno of the failed read (-EIO when it left none).
 */
int osp_read_stream(FILE *f, char **buf, size_t *len);
/* osp_read_stream of the file at @path (opened here): 0 or -errno. */
int osp_read_path(const char *path, char **buf, size_t *len);
/* What osp_read_stream's (or an fopen's) negative errno @rc means, in words. */
const char *osp_read_error(int rc);
/* Read and parse the file at @path ("-" for stdin); NULL and @err on error. */
struct osp_profile *osp_read_json_file(const char *path, char *err,
				       size_t errlen);

/* ---- where a run's files are (files.c) ---- */
/*
 * The JSON file of each layer in a mount's control directory or a saved
 * run's directory: a mount serves layer fs as stats.json, a saved run may
 * name it fs.json; each file says its layer.
 */
#define OSP_LAYER_FILES (1 + (0 OSP_LAYERS(OSP_LAYER_ONE)))
extern const char *const osp_layer_files[OSP_LAYER_FILES];
/* The kernel module's layers, files of /proc/osprof (osprof/kmod.h):
 * OSP_LAYERS' kmod rows, in their order. */
#define OSP_KMOD_LAYERS (0 OSP_LAYERS(OSP_LAYER_KMOD_ONE))
extern const char *const osp_kmod_layers[OSP_KMOD_LAYERS];
/*
 * osp_file_beside - where the companion @name of a profile written to
 * @file goes: @name before @file's extension ("run.json", "fuse" ->
 * "run.fuse.json"; "run" -> "run.fuse"). A new string, or NULL (ENOMEM).
 */
char *osp_file_beside(const char *file, const char *name);

/*
 * What a path named as a profile source is: one rule for osprof-report
 * and osprof-exporter. A directory is, in this order:
 *  - a mount of osprof-fs, when it holds .osprof/stats.json: its layer
 *    files (osp_layer_files) are read from PATH/.osprof (the control
 *    directory itself is a run directory);
 *  - a run directory, when it holds any of osp_layer_files;
 *  - /proc/osprof's kind, when it holds any of osp_kmod_layers: each is
 *    the kernel module's text of the layer it is named;
 *  - else a directory with no profile.
 * Anything else is one file: a regular file, or other (a device, a FIFO,
 * a socket), which a program may read as a file or refuse.
 * Whether a file is there is asked with stat (fstatat), never by opening
 * it: a FIFO or a hung mount's file in place of stats.json does not block
 * the choice.
 */
enum osp_source_kind {
	OSP_SOURCE_FILE,
	OSP_SOURCE_OTHER,
	OSP_SOURCE_MOUNT,
	OSP_SOURCE_RUN_DIR,
	OSP_SOURCE_KMOD_DIR,
	OSP_SOURCE_NO_PROFILE,
	OSP_SOURCE_KINDS
};
/* What a kind of source reads: the files subdir/files[i] after its path. */
struct osp_source {
	enum osp_source_kind kind;
	const char *name;          /* "file", "mount", "run directory", ... */
	const char *subdir;        /* "/.osprof" for a mount, else "" */
	const char *const *files;  /* names read there, each maybe missing; NULL for none */
	size_t nfiles;
	bool kmod_text;            /* files[i] is the module's text of layer files[i] */
};
/* One entry per kind, indexed by it. */
extern const struct osp_source osp_sources[OSP_SOURCE_KINDS];
/*
 * osp_source_find - which kind of source @path is (the rules above), as a
 * pointer into osp_sources in *@src. 0, or the -errno of looking at @path
 * (-ENOENT, -ENOTDIR, -EACCES, -ENAMETOOLONG, ...), *@src untouched.
 * Allocates nothing; thread-safe.
 */
int osp_source_find(const char *path, const struct osp_source **src);
/*
 * osp_source_file - the path of file @i (< src->nfiles) of source @path:
 * "PATH/.osprof/fuse.json", "/proc/osprof/irq". A new string, or NULL
 * (ENOMEM).
 */
char *osp_source_file(const char *path, const struct osp_source *src, size_t i);
/*
 * osp_source_kmod_layer - for one file read whole (@len bytes at @text):
 * the kernel module's layer it holds when its name (after the last '/')
 * is one of osp_kmod_layers and its text is not JSON (does not start with
 * '{' after white space), else NULL. A saved /proc/osprof/lower is read
 * as what it is.
 */
const char *osp_source_kmod_layer(const char *path, const char *text, size_t len);

#endif /* OSPROF_FORMAT_H */
