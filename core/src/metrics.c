// SPDX-License-Identifier: MIT
/*
 * The series of osprof's metric family (osprof/metrics.h): which profiles
 * are served (a machine-wide layer once), the labels of each histogram
 * (block's operation split into device and op, irq's into irq) and of
 * osprof_info, and the fixed classic bucket bounds. The expositions --
 * core's text writer, osprof-exporter's protobuf -- take their series
 * from osp_om_walk, so they cannot disagree on a name or a label.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "osprof/layers.h"
#include "osprof/metrics.h"

static const struct {
	const char *layer;
	struct osp_om_le le;
} le_sets[] = {
	{ OSP_LAYER_BLOCK, { 10, 36 } }, /* 1.024 us .. 68.7 s: a device is no faster */
	{ OSP_LAYER_IRQ, { 6, 30 } },    /* 64 ns .. 1.07 s: handlers are short */
};
/* fs, fuse, syscall, lower and any other layer: 256 ns .. 68.7 s. */
static const struct osp_om_le le_default = { 8, 36 };

bool osp_om_machine_wide(const char *layer)
{
	return strcmp(layer, OSP_LAYER_BLOCK) == 0 || strcmp(layer, OSP_LAYER_IRQ) == 0;
}

struct osp_om_le osp_om_le_of(const char *layer)
{
	for (size_t i = 0; i < sizeof(le_sets) / sizeof(le_sets[0]); i++)
		if (strcmp(layer, le_sets[i].layer) == 0)
			return le_sets[i].le;
	return le_default;
}

uint64_t osp_om_le_cumulative(const struct osp_hist *h, unsigned exp)
{
	/* Bucket exp * res has upper bound 2^exp exactly. */
	uint64_t last = (uint64_t)exp * h->res, cum = 0;

	for (uint32_t i = 0; i < h->nbk && h->bk[i].idx <= last; i++)
		cum += h->bk[i].count;
	return cum;
}

char *osp_om_seconds(char *buf, size_t len, uint64_t ns)
{
	int end = snprintf(buf, len, "%" PRIu64 ".%09" PRIu64, ns / 1000000000u,
			   ns % 1000000000u);

	/* Trailing zeros of the fraction say nothing: "2.500000000" -> "2.5". */
	while (end > 0 && (size_t)end < len && buf[end - 1] == '0')
		buf[--end] = '\0';
	if (end > 0 && (size_t)end < len && buf[end - 1] == '.')
		buf[--end] = '\0';
	return buf;
}

/* The strings made for one series, freed together: at most a name and a
 * value for each of its labels. */
struct owned {
	char *s[2 * OSP_OM_LABELS_MAX];
	size_t n;
};

/* Keep @s (NULL: out of memory) to free with the others; @s or NULL. */
static char *own(struct owned *o, char *s)
{
	if (s && o->n == sizeof(o->s) / sizeof(o->s[0])) {
		free(s); /* never: a series has no more labels */
		return NULL;
	}
	return s ? o->s[o->n++] = s : NULL;
}

static void owned_free(struct owned *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->s[i]);
}

/* The text of @key of @l, owned, or NULL (absent: *@nomem stays false). */
static const char *kv_text(struct owned *o, const struct osp_kvlist *l,
			   const char *key, bool *nomem)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].key, key) == 0) {
			char *t = own(o, osp_kv_text(&l->items[i]));

			*nomem |= !t;
			return t;
		}
	}
	return NULL;
}

static void add(struct osp_om_series *s, const char *name, const char *value)
{
	s->name[s->nlabels] = name;
	s->value[s->nlabels++] = value;
}

/*
 * @key as a label name, [a-zA-Z_][a-zA-Z0-9_]*, owned; NULL when it
 * cannot be one (empty, reserved "__", or a name @s has already).
 */
static const char *label_name(struct owned *o, const struct osp_om_series *s,
			      const char *key, bool *nomem)
{
	size_t n = strlen(key);
	char *name = malloc(n + 2), *w = name;
	bool bad;

	if (!name) {
		*nomem = true;
		return NULL;
	}
	if (*key >= '0' && *key <= '9')
		*w++ = '_';
	for (; *key; key++) {
		char c = *key;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		*w++ = ok ? c : '_';
	}
	*w = '\0';
	bad = !*name || strncmp(name, "__", 2) == 0;
	for (size_t i = 0; !bad && i < s->nlabels; i++)
		bad = strcmp(s->name[i], name) == 0;
	if (bad) {
		free(name);
		return NULL;
	}
	name = own(o, name);
	*nomem |= !name;
	return name;
}

/* osprof_info's labels of @src (mount and layer already in @s). */
static int info_labels(struct owned *o, struct osp_om_series *s)
{
	const struct osp_profile *p = s->src->p;
	const char *lower, *ls, *res;
	char num[16];
	bool nomem = false;
	size_t nopt = 0;

	snprintf(num, sizeof(num), "%u", p->res);
	res = own(o, strdup(num));
	if (!res)
		return -ENOMEM;
	add(s, "version", OSPROF_VERSION);
	add(s, "resolution", res);
	/* A machine-wide layer's source is the mount it was read through,
	 * not what it measured. */
	lower = osp_om_machine_wide(p->layer) ? NULL
					      : kv_text(o, &p->source, "lower", &nomem);
	if (lower)
		add(s, "lower", lower);
	ls = kv_text(o, &p->source, "layer_source", &nomem);
	if (ls)
		add(s, "layer_source", ls);
	for (size_t i = 0; i < p->options.n && nopt < OSP_OM_INFO_OPTIONS_MAX; i++) {
		const char *name = label_name(o, s, p->options.items[i].key, &nomem);
		const char *v;

		if (!name)
			continue;
		v = own(o, osp_kv_text(&p->options.items[i]));
		if (!v)
			return -ENOMEM;
		add(s, name, v);
		nopt++;
	}
	return nomem ? -ENOMEM : 0;
}

/* The labels of operation @name of @s's profile (mount and layer in @s). */
static int op_labels(struct owned *o, struct osp_om_series *s, const char *name)
{
	const char *layer = s->src->p->layer, *op;
	size_t dev;

	if (strcmp(layer, OSP_LAYER_IRQ) == 0) {
		add(s, "irq", name);
		return 0;
	}
	if (strcmp(layer, OSP_LAYER_BLOCK) == 0 && (dev = osp_block_split(name, &op)) > 0) {
		const char *d = own(o, strndup(name, dev));

		if (!d)
			return -ENOMEM;
		add(s, "device", d);
		add(s, "op", op);
		return 0;
	}
	add(s, "op", name);
	return 0;
}

/* The mount label of @src (none for a machine-wide layer), when it is
 * the profile's own a new string in *@made. 0 or -ENOMEM. */
static int mount_of(const struct osp_om_src *src, const char **mount, char **made)
{
	const struct osp_kvlist *l = &src->p->source;

	*mount = *made = NULL;
	if (osp_om_machine_wide(src->p->layer))
		return 0;
	if (src->mount) {
		*mount = src->mount;
		return 0;
	}
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].key, "mount") == 0) {
			*mount = *made = osp_kv_text(&l->items[i]);
			return *made ? 0 : -ENOMEM;
		}
	}
	return 0;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

int osp_om_walk(const struct osp_om_src *src, size_t n, const char *family,
		int (*fn)(void *ctx, const struct osp_om_series *s), void *ctx)
{
	bool info = strcmp(family, OSP_OM_INFO) == 0;
	bool cpu = strcmp(family, OSP_OM_CPU) == 0;
	const char **mount = calloc(n ? n : 1, sizeof(*mount));
	char **made = calloc(n ? n : 1, sizeof(*made));
	int rc = mount && made ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = mount_of(&src[i], &mount[i], &made[i]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct osp_profile *p = src[i].p;
		bool repeat = false;

		for (size_t j = 0; j < i && !repeat; j++)
			repeat = same(mount[j], mount[i]) &&
				 strcmp(src[j].p->layer, p->layer) == 0;
		if (repeat)
			continue;
		for (size_t k = 0; rc == 0 && k < (info ? 1 : p->nops); k++) {
			struct osp_om_series s = { .family = family, .src = &src[i] };
			struct owned o = { .n = 0 };

			if (!info) {
				const struct osp_op *op = &p->ops[k];

				s.h = cpu ? &op->cpu : &op->lat;
				if ((cpu && !op->has_cpu) || (s.h->count == 0 && s.h->nbk == 0))
					continue;
			}
			if (mount[i])
				add(&s, "mount", mount[i]);
			add(&s, "layer", p->layer);
			rc = info ? info_labels(&o, &s) : op_labels(&o, &s, p->ops[k].name);
			if (rc == 0)
				rc = fn(ctx, &s);
			owned_free(&o);
		}
	}
	for (size_t i = 0; made && i < n; i++)
		free(made[i]);
	free(made);
	free(mount);
	return rc;
}
