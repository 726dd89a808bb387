// SPDX-License-Identifier: MIT
/*
 * Escaping of untrusted text for every language osprof writes (see
 * osprof/escape.h). The text spelling is the common ground: the gnuplot
 * and HTML forms are it with their own quoting on top, so a name reads the
 * same in a terminal, a chart and a page. OpenMetrics and JSON keep every
 * valid UTF-8 string exact instead, since programs read them back; CSV
 * keeps every byte.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "osprof/escape.h"
#include "utf8.h"

/* Code points a terminal acts on instead of showing: C1, separators, bidi. */
static bool hidden_cp(int32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e ||
	       cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * The next unit of the text spelling of @n bytes at @s: returns the bytes
 * it takes; @esc gets its escape, or "" when those bytes stand as they are.
 */
static size_t text_unit(const unsigned char *s, size_t n, char esc[16])
{
	size_t len;
	int32_t cp = osp_utf8_next(s, n, &len);

	esc[0] = '\0';
	if (cp < 0)
		snprintf(esc, 16, "\\x%02x", s[0]);
	else if (cp == '\\')
		strcpy(esc, "\\\\");
	else if (cp == '\t')
		strcpy(esc, "\\t");
	else if (cp == '\n')
		strcpy(esc, "\\n");
	else if (cp == '\r')
		strcpy(esc, "\\r");
	else if (cp < 0x20 || cp == 0x7f)
		snprintf(esc, 16, "\\x%02x", (unsigned)cp);
	else if (hidden_cp(cp))
		snprintf(esc, 16, "\\u{%04x}", (unsigned)cp);
	return len;
}

/* Write ASCII @c, through @quote when it is one of @special. */
static void put_ascii(FILE *out, char c, const char *special,
		      void (*quote)(FILE *, char))
{
	if (c && special && strchr(special, c))
		quote(out, c);
	else
		fputc(c, out);
}

/*
 * Write the text spelling of @n bytes at @s; an ASCII character of it
 * (the string's or an escape's) found in @special goes to @quote instead,
 * for the target's own quoting. Returns the characters of the spelling
 * (a code point or an escape's characters each).
 */
static size_t text_walk(FILE *out, const char *s, size_t n, const char *special,
			void (*quote)(FILE *, char))
{
	const unsigned char *u = (const unsigned char *)s;
	size_t cols = 0;

	while (n) {
		char esc[16];
		size_t len = text_unit(u, n, esc);

		if (esc[0]) {
			for (const char *e = esc; *e; e++)
				put_ascii(out, *e, special, quote);
			cols += strlen(esc);
		} else if (len == 1) {
			put_ascii(out, (char)u[0], special, quote);
			cols++;
		} else {
			fwrite(u, 1, len, out);
			cols++;
		}
		u += len;
		n -= len;
	}
	return cols;
}

void osp_esc_text(FILE *out, const char *s)
{
	text_walk(out, s, strlen(s), NULL, NULL);
}

void osp_esc_text_col(FILE *out, const char *s, int width)
{
	size_t cols = text_walk(out, s, strlen(s), NULL, NULL);

	if (width > 0 && cols < (size_t)width)
		fprintf(out, "%*s", (int)((size_t)width - cols), "");
}

static void gp_quote(FILE *out, char c)
{
	(void)c;
	fputs("''", out); /* the one escape of a single-quoted string */
}

void osp_esc_gp(FILE *out, const char *s)
{
	fputc('\'', out);
	text_walk(out, s, strlen(s), "'", gp_quote);
	fputc('\'', out);
}

/* gnuplot's backslash escapes; octal, as no quote may stand in the data. */
static void gp_data_quote(FILE *out, char c)
{
	fputs(c == '"' ? "\\042" : "\\\\", out);
}

void osp_esc_gp_data(FILE *out, const char *s)
{
	fputc('"', out);
	text_walk(out, s, strlen(s), "\"\\", gp_data_quote);
	fputc('"', out);
}

static void html_quote(FILE *out, char c)
{
	switch (c) {
	case '&': fputs("&amp;", out); break;
	case '<': fputs("&lt;", out); break;
	case '>': fputs("&gt;", out); break;
	case '"': fputs("&quot;", out); break;
	default: fputs("&#39;", out); break;
	}
}

void osp_esc_html(FILE *out, const char *s)
{
	text_walk(out, s, strlen(s), "&<>\"'", html_quote);
}

void osp_csv_field(FILE *out, const char *s)
{
	/* A cell starting so is a formula (or DDE call) to a spreadsheet. */
	const char *lead = *s && strchr("=+-@\t\r", *s) ? "'" : "";

	if (!strpbrk(s, ",\"\r\n")) {
		fprintf(out, "%s%s", lead, s);
		return;
	}
	fprintf(out, "\"%s", lead);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void osp_esc_om(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		size_t len;
		int32_t cp = osp_utf8_next(u, n, &len);

		if (cp < 0)
			fprintf(out, "\\\\x%02x", u[0]); /* the text spelling, \ escaped */
		else if (cp == '\\' || cp == '"')
			fprintf(out, "\\%c", (char)cp);
		else if (cp == '\n')
			fputs("\\n", out);
		else
			fwrite(u, 1, len, out);
		u += len;
		n -= len;
	}
}

char *osp_metric_name(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (!*s || (*s >= '0' && *s <= '9'))
		buf[o++] = '_';
	for (; *s && o + 1 < len; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_' || c == ':';

		buf[o++] = ok ? c : '_';
	}
	buf[o < len ? o : len - 1] = '\0';
	return buf;
}

void osp_esc_json(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	fputc('"', out);
	while (n) {
		size_t len;
		int32_t cp = osp_utf8_next(u, n, &len);

		if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", (char)cp);
		else if (cp < 0x20) /* a control byte, or not UTF-8: Latin-1 */
			fprintf(out, "\\u%04x", u[0]);
		else
			fwrite(u, 1, len, out);
		u += len;
		n -= len;
	}
	fputc('"', out);
}
