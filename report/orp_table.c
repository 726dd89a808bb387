// SPDX-License-Identifier: MIT
/*
 * A small table built once and written as aligned text or as HTML, so
 * that the text view and the HTML report show the very same rows and
 * cannot drift apart. Every cell is written through core's escaping for
 * the output's language (osp_esc_text, osp_esc_html): cells may hold
 * names from a profile, which anyone may have written.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "orp.h"
#include "osprof/escape.h"

void orp_table_init(struct orp_table *t, const char *const *head,
		    const char *align)
{
	memset(t, 0, sizeof(*t));
	t->head = head;
	t->align = align;
	t->ncols = strlen(align);
}

void orp_table_fini(struct orp_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->marked);
	free(t->title);
	for (size_t i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	memset(t, 0, sizeof(*t));
}

/* A formatted copy into *@dst, or a sticky -ENOMEM in @t. */
static void set_text(struct orp_table *t, char **dst, const char *fmt,
		     va_list ap)
{
	char *s;

	if (t->err)
		return;
	if (vasprintf(&s, fmt, ap) < 0) {
		t->err = -ENOMEM;
		return;
	}
	free(*dst);
	*dst = s;
}

void orp_table_title(struct orp_table *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_text(t, &t->title, fmt, ap);
	va_end(ap);
}

void orp_table_note(struct orp_table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->err)
		return;
	if (t->nnotes == ORP_TABLE_NOTES) {
		t->err = -E2BIG; /* a programming error: more notes than room */
		return;
	}
	va_start(ap, fmt);
	set_text(t, &t->notes[t->nnotes], fmt, ap);
	va_end(ap);
	if (!t->err)
		t->nnotes++;
}

void orp_table_row(struct orp_table *t, bool marked)
{
	size_t cap = t->cap ? 2 * t->cap : 16;
	char **cells;
	bool *m;

	if (t->err)
		return;
	if (t->nrows == t->cap) {
		cells = realloc(t->cells, cap * t->ncols * sizeof(*cells));
		if (cells)
			t->cells = cells;
		m = cells ? realloc(t->marked, cap * sizeof(*m)) : NULL;
		if (!m) {
			t->err = -ENOMEM;
			return;
		}
		t->marked = m;
		t->cap = cap;
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(*t->cells));
	t->marked[t->nrows++] = marked;
	t->ncell = 0;
}

void orp_table_cell(struct orp_table *t, const char *fmt, ...)
{
	va_list ap;

	if (t->err)
		return;
	if (!t->nrows || t->ncell == t->ncols) {
		t->err = -E2BIG; /* a programming error: a cell past the row */
		return;
	}
	va_start(ap, fmt);
	set_text(t, &t->cells[(t->nrows - 1) * t->ncols + t->ncell], fmt, ap);
	va_end(ap);
	t->ncell++;
}

static const char *cell(const struct orp_table *t, size_t r, size_t c)
{
	const char *s = t->cells[r * t->ncols + c];

	return s ? s : "";
}

/* Characters @s takes on a terminal once escaped (a code point is one). */
static size_t text_width(const char *s)
{
	char *buf = NULL;
	size_t len = 0, w = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return strlen(s);
	osp_esc_text(m, s);
	if (fclose(m) != 0) {
		free(buf);
		return strlen(s);
	}
	for (size_t i = 0; i < len; i++)
		w += ((unsigned char)buf[i] & 0xc0) != 0x80;
	free(buf);
	return w;
}

static void text_cell(FILE *out, const char *s, size_t width, bool left,
		      bool last)
{
	size_t w = text_width(s);
	size_t pad = width > w ? width - w : 0;

	if (!left)
		fprintf(out, "%*s", (int)pad, "");
	osp_esc_text(out, s);
	if (left && !last)
		fprintf(out, "%*s", (int)pad, "");
}

int orp_table_write_text(const struct orp_table *t, FILE *out)
{
	size_t *width;

	if (t->err)
		return t->err;
	width = calloc(t->ncols, sizeof(*width));
	if (!width)
		return -ENOMEM;
	for (size_t c = 0; c < t->ncols; c++) {
		width[c] = text_width(t->head[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t w = text_width(cell(t, r, c));

			width[c] = w > width[c] ? w : width[c];
		}
	}
	if (t->title) {
		osp_esc_text(out, t->title);
		fputc('\n', out);
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		size_t end = t->ncols;

		/* Empty cells at the end of a row: no trailing blanks. */
		while (r && end > 1 && !*cell(t, r - 1, end - 1))
			end--;
		for (size_t c = 0; c < end; c++) {
			if (c)
				fputs("  ", out);
			text_cell(out, r ? cell(t, r - 1, c) : t->head[c], width[c],
				  t->align[c] == 'l', c + 1 == end);
		}
		fputc('\n', out);
	}
	for (size_t i = 0; i < t->nnotes; i++) {
		osp_esc_text(out, t->notes[i]);
		fputc('\n', out);
	}
	free(width);
	return ferror(out) ? -EIO : 0;
}

int orp_table_write_html(const struct orp_table *t, FILE *out)
{
	if (t->err)
		return t->err;
	if (t->title) {
		fputs("<h3>", out);
		osp_esc_html(out, t->title);
		fputs("</h3>\n", out);
	}
	fputs("<table><tr>", out);
	for (size_t c = 0; c < t->ncols; c++) {
		fputs(t->align[c] == 'l' ? "<th class=\"l\">" : "<th>", out);
		osp_esc_html(out, t->head[c]);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(t->marked[r] ? "<tr class=\"diff\">" : "<tr>", out);
		for (size_t c = 0; c < t->ncols; c++) {
			fputs(t->align[c] == 'l' ? "<td class=\"l\">" : "<td>", out);
			osp_esc_html(out, cell(t, r, c));
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	for (size_t i = 0; i < t->nnotes; i++) {
		fputs("<p class=\"meta\">", out);
		osp_esc_html(out, t->notes[i]);
		fputs("</p>\n", out);
	}
	return ferror(out) ? -EIO : 0;
}
