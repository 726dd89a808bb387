// SPDX-License-Identifier: MIT
/*
 * Parsing of `ctl` batches (see ofs_ctl_cmd.h). The input is walked in
 * place, by length: it is the raw payload of a FUSE write and may hold any
 * byte. Reasons name the line and what was expected, never the bytes
 * themselves, so a reason can go into a file or a log as it is.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "osprof/parse.h"
#include "ofs_ctl_cmd.h"

#define MAX_WORDS 3

struct word {
	const char *p;
	size_t len;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool word_is(const struct word *w, const char *s)
{
	return w->len == strlen(s) && memcmp(w->p, s, w->len) == 0;
}

/* A whole decimal number in [@min, @max]; false for anything else. */
static bool word_u64(const struct word *w, uint64_t min, uint64_t max, uint64_t *out)
{
	return osp_parse_u64_n(w->p, w->len, min, max, out) == 0;
}

/*
 * Split the line [@p, @end) into words. Returns how many (0 for a blank
 * line), or MAX_WORDS + 1 when there are more than MAX_WORDS.
 */
static size_t split(const char *p, const char *end, struct word *w)
{
	size_t n = 0;

	while (p < end) {
		const char *s;

		while (p < end && is_blank(*p))
			p++;
		if (p == end)
			break;
		if (n == MAX_WORDS)
			return MAX_WORDS + 1;
		for (s = p; p < end && !is_blank(*p); p++)
			;
		w[n].p = s;
		w[n].len = (size_t)(p - s);
		n++;
	}
	return n;
}

/* One non-blank line of @n words (n <= MAX_WORDS) into @c. */
static int parse_line(const struct word *w, size_t n, size_t line,
		      struct ofs_ctl_cmd *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof(*c));
	if (word_is(&w[0], "reset") || word_is(&w[0], "enable") ||
	    word_is(&w[0], "disable")) {
		if (n != 1)
			return fail(err, errlen, "line %zu: reset, enable and disable take no argument",
				    line);
		c->kind = word_is(&w[0], "reset") ? OFS_CTL_RESET :
			  word_is(&w[0], "enable") ? OFS_CTL_ENABLE : OFS_CTL_DISABLE;
		return 0;
	}
	if (word_is(&w[0], "slow")) {
		c->kind = OFS_CTL_SLOW;
		c->slow_ns = UINT64_MAX;
		if (n == 2 && (word_is(&w[1], "off") ||
			       osp_parse_duration_n(w[1].p, w[1].len, OFS_CTL_SLOW_MAX_NS,
						    &c->slow_ns) == 0))
			return 0;
		return fail(err, errlen, "line %zu: slow takes off, or a duration up to 3600s "
			    "(0, 500us, 10ms, 2s)", line);
	}
	if (word_is(&w[0], "top")) {
		c->kind = OFS_CTL_TOP;
		c->on = n == 2 && word_is(&w[1], "on");
		if (n == 2 && (c->on || word_is(&w[1], "off")))
			return 0;
		return fail(err, errlen, "line %zu: top takes on or off", line);
	}
	if (!word_is(&w[0], "timeline"))
		return fail(err, errlen,
			    "line %zu: unknown command (expected reset, enable, disable, timeline, "
			    "slow or top)", line);
	if (n == 2 && word_is(&w[1], "off")) {
		c->kind = OFS_CTL_TIMELINE_OFF;
		return 0;
	}
	c->kind = OFS_CTL_TIMELINE;
	if (n < 2 || !word_u64(&w[1], 1, OFS_CTL_TL_INTERVAL_MAX_MS, &c->interval_ms))
		return fail(err, errlen,
			    "line %zu: timeline takes off, or an interval of 1 to %u ms",
			    line, OFS_CTL_TL_INTERVAL_MAX_MS);
	if (n == 3 && !word_u64(&w[2], 1, OFS_CTL_TL_SNAPSHOTS_MAX, &c->snapshots))
		return fail(err, errlen,
			    "line %zu: timeline's snapshot count must be 1 to %u",
			    line, OFS_CTL_TL_SNAPSHOTS_MAX);
	return 0;
}

int ofs_ctl_cmd_parse(const char *buf, size_t len, struct ofs_ctl_batch *b,
		      char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len;
	size_t line = 0;

	if (errlen)
		err[0] = '\0';
	b->n = 0;
	if (len > OFS_CTL_BATCH_MAX_BYTES)
		return fail(err, errlen, "a batch is at most %u bytes, in one write",
			    OFS_CTL_BATCH_MAX_BYTES);
	if (len && memchr(buf, '\0', len))
		return fail(err, errlen, "a NUL byte in the batch");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		struct word w[MAX_WORDS];
		size_t n = split(p, eol, w);
		int r;

		line++;
		p = nl ? nl + 1 : end;
		if (n == 0)
			continue;
		if (n > MAX_WORDS)
			return fail(err, errlen, "line %zu: too many words", line);
		if (b->n == OFS_CTL_BATCH_MAX_CMDS)
			return fail(err, errlen, "more than %u commands in one batch",
				    OFS_CTL_BATCH_MAX_CMDS);
		r = parse_line(w, n, line, &b->cmds[b->n], err, errlen);
		if (r)
			return r;
		b->cmds[b->n++].line = line;
	}
	return 0;
}
