/* SPDX-License-Identifier: MIT */
/*
 * Private to the chart writers (orp_chart.c, orp_irq.c): writing one
 * self-contained gnuplot script -- header, terminal, quoting, inline data
 * blocks, latency tic labels -- and registering it with a render set.
 */
#ifndef ORP_GP_H
#define ORP_GP_H

#include <stdio.h>

#include "orp.h"
#include "osprof/escape.h"

/* One script being written: DIR/<base>.gp, drawing DIR/<base>.<ext>. */
struct orp_gp {
	FILE *f;
	char *path;          /* the script's path */
	const char *base;    /* owned by the render set's chart */
};

/*
 * orp_gp_begin - register a chart named after @hint (sanitised, made
 * unique) with @title, create its script and write the header: comments
 * saying how to re-render, reset, terminal of size @w x @h, output.
 * 0 or -errno with @err.
 */
int orp_gp_begin(struct orp_render *r, struct orp_gp *g, const char *hint,
		 const char *title, int w, int h, char *err, size_t errlen);
/* Finish the script (unset output, close): 0 or -EIO with @err. On error
 * the chart is unregistered and its script removed. */
int orp_gp_end(struct orp_render *r, struct orp_gp *g, char *err,
	       size_t errlen);

/* `set <what> '<s>'` with @s quoted by core's osp_esc_gp. */
void orp_gp_set_str(FILE *f, const char *what, const char *s);
/* Begin and end an inline data block $<name>. */
void orp_gp_data_begin(FILE *f, const char *name);
void orp_gp_data_end(FILE *f);

/*
 * orp_gp_latency_axis - the x axis of a histogram over @lo..@hi (axis
 * positions: bucket b is drawn from b - 0.5 to b + 0.5) at resolution
 * @res, in latency only: ticks at round latencies (1us, 10us, 1ms ...;
 * 1-2-5 steps, or bucket bounds, when the range holds fewer than two), a
 * minor tick at every bucket bound, the title "latency". Sets no xrange.
 */
void orp_gp_latency_axis(FILE *f, double lo, double hi, unsigned res);
/* The axis position of @ns at resolution @res: bucket bounds at halves. */
double orp_gp_latency_pos(double ns, unsigned res);

/*
 * orp_gp_panels - small multiples: histogram @h[k] (all of one
 * resolution, none empty) as the shares of its requests in panel k, top
 * down, titled @names[k], its mean dashed; one latency axis and one share
 * axis for all (orp_chart.c). 0 or -errno with @err.
 */
int orp_gp_panels(struct orp_render *r, const char *hint, const char *title,
		  const struct osp_hist *const *h, const char *const *names, size_t n,
		  char *err, size_t errlen);

/* Colours used across charts (A, B, then more layers). */
extern const char *const orp_gp_colours[];
extern const size_t orp_gp_ncolours;

#endif /* ORP_GP_H */
