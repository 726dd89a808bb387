// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the parser of `ctl` batches, ofs_ctl_cmd_parse
 * (fs/ofs_ctl_cmd.c), on any bytes. It either accepts a batch of at most
 * OFS_CTL_BATCH_MAX_CMDS commands, one per non-blank line and in line
 * order, each within its documented range (top's on only from a line
 * that says on), or refuses it with -EINVAL and a one-line reason
 * of printable ASCII (the header promises it never quotes the input).
 * The answer must not depend on the size of the error buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ofs_ctl_cmd.h"
#include "ofz.h"

/* The blanks that separate words, as the parser has them. */
static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Lines holding anything but blanks: each must be one command. */
static size_t command_lines(const char *buf, size_t len)
{
	size_t n = 0;
	bool empty = true;

	for (size_t i = 0; i <= len; i++) {
		if (i == len || buf[i] == '\n') {
			n += !empty;
			empty = true;
		} else if (!blank(buf[i])) {
			empty = false;
		}
	}
	return n;
}

/* Whether line @line (from 1) of @buf holds the word "on". */
static bool says_on(const char *buf, size_t len, size_t line)
{
	const char *p = buf, *end = buf + len, *eol;

	for (size_t l = 1; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : end;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	eol = eol ? eol : end;
	for (const char *s = p; s + 2 <= eol; s++)
		if (s[0] == 'o' && s[1] == 'n' && (s == p || blank(s[-1])) &&
		    (s + 2 == eol || blank(s[2])))
			return true;
	return false;
}

static void check_batch(const struct ofs_ctl_batch *b, const char *buf,
			size_t len)
{
	if (b->n > OFS_CTL_BATCH_MAX_CMDS || b->n != command_lines(buf, len))
		ofz_fail("ctl: %zu commands accepted from %zu command lines", b->n,
			 command_lines(buf, len));
	for (size_t i = 0; i < b->n; i++) {
		const struct ofs_ctl_cmd *c = &b->cmds[i];

		if (c->kind >= OFS_CTL__COUNT)
			ofz_fail("ctl: command %zu of kind %d", i, (int)c->kind);
		/* Lines count from 1, one command each, in order. */
		if (c->line < 1 || c->line > len + 1 ||
		    (i && c->line <= b->cmds[i - 1].line))
			ofz_fail("ctl: command %zu on line %zu", i, c->line);
		if (c->kind == OFS_CTL_TIMELINE ?
		    c->interval_ms < 1 || c->interval_ms > OFS_CTL_TL_INTERVAL_MAX_MS ||
		    c->snapshots > OFS_CTL_TL_SNAPSHOTS_MAX :
		    c->interval_ms || c->snapshots)
			ofz_fail("ctl: command %zu: interval %llu ms, %llu snapshots",
				 i, (unsigned long long)c->interval_ms,
				 (unsigned long long)c->snapshots);
		if (c->kind == OFS_CTL_SLOW ? c->slow_ns > OFS_CTL_SLOW_MAX_NS &&
					      c->slow_ns != UINT64_MAX : c->slow_ns != 0)
			ofz_fail("ctl: command %zu: slow threshold %llu ns", i,
				 (unsigned long long)c->slow_ns);
		/* on is top's alone, and only from a line that says "on". */
		if (c->on && (c->kind != OFS_CTL_TOP || !says_on(buf, len, c->line)))
			ofz_fail("ctl: command %zu (kind %d, line %zu) is on", i, (int)c->kind,
				 c->line);
	}
}

static void check_reason(const char *err, size_t errlen)
{
	ofz_check_err("ofs_ctl_cmd_parse", err, errlen);
	for (const char *s = err; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			ofz_fail("ctl: reason holds byte 0x%02x: '%s'",
				 (unsigned char)*s, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A copy of exactly @size bytes: a read past the end is caught. */
	char *buf = malloc(size ? size : 1);
	struct ofs_ctl_batch *b = malloc(sizeof(*b));
	char err[256], small[8] = "canary!";
	int r, r_small, r_none;

	if (!buf || !b)
		ofz_fail("out of memory");
	memcpy(buf, data, size);
	r = ofs_ctl_cmd_parse(buf, size, b, err, sizeof(err));
	if (r == 0)
		check_batch(b, buf, size);
	else if (r == -EINVAL)
		check_reason(err, sizeof(err));
	else
		ofz_fail("ctl: returned %d", r);
	r_small = ofs_ctl_cmd_parse(buf, size, b, small, sizeof(small));
	r_none = ofs_ctl_cmd_parse(buf, size, b, small, 0);
	if (r_small != r || r_none != r)
		ofz_fail("ctl: %d with a 256-byte reason, %d with 8, %d with none",
			 r, r_small, r_none);
	if (r && !memchr(small, '\0', sizeof(small)))
		ofz_fail("ctl: a short reason not NUL-terminated");
	free(buf);
	free(b);
	return 0;
}
