/* SPDX-License-Identifier: MIT */
/*
 * Escaping of untrusted text -- names and values read from a profile (a
 * file anyone may mail), from /proc text or from argv -- for each language
 * osprof writes, one helper per language, so every writer escapes the same
 * way. Any byte but NUL may be in such a string; nothing it holds may end a
 * line, a string or a command early, run anything, or move a terminal's
 * cursor.
 *
 * Most share one spelling of what a person should not see raw, the "text"
 * spelling: printable ASCII and valid, printable UTF-8 stay as they are; a
 * backslash doubles; tab, newline and carriage return become \t \n \r;
 * other control bytes (C0 and DEL) and each byte that is not part of valid
 * UTF-8 become \xHH; C1 controls, line and paragraph separators and the
 * bidirectional controls (which reorder what a terminal shows) become
 * \u{HHHH}. The spelling is ASCII plus valid UTF-8, and tells apart any two
 * strings.
 *
 * Each function writes to @out and leaves stream errors in its error flag
 * for the writer's final check (osprof writers return -EIO then). None
 * allocates. Thread-safe on distinct streams.
 */
#ifndef OSPROF_ESCAPE_H
#define OSPROF_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* @s in the text spelling, for terminals and logs. */
void osp_esc_text(FILE *out, const char *s);
/*
 * The same, left-aligned in a column @width characters wide (a code point
 * counts as one): a longer string is written whole, as printf's %-*s does.
 */
void osp_esc_text_col(FILE *out, const char *s, int width);

/*
 * @s as one gnuplot single-quoted string, quotes included, in the text
 * spelling with ' doubled. Single quotes because gnuplot expands
 * `backquotes` (a shell command) and backslash escapes inside double
 * quotes, never inside single ones.
 */
void osp_esc_gp(FILE *out, const char *s);
/*
 * @s as one double-quoted column of gnuplot data (a datablock or a .dat
 * file), quotes included, that gnuplot shows (as a tic label, say) in the
 * text spelling: gnuplot ends the column at the next " whatever precedes
 * it, then reads backslash escapes in it, so the spelling's backslashes
 * are doubled and " is written \042.
 */
void osp_esc_gp_data(FILE *out, const char *s);

/*
 * @s in the text spelling with & < > " ' as character references: safe in
 * HTML (and XML) text and in quoted attribute values. Never use it inside
 * <script> or <style>: osprof pages put no untrusted text there.
 */
void osp_esc_html(FILE *out, const char *s);

/*
 * @s as one RFC 4180 CSV field, byte for byte: quoted (with "" for ") when
 * it holds a comma, quote, CR or LF. A field that starts with = + - @ tab
 * or CR gets a leading ' so that spreadsheets read it as text, never as a
 * formula (OWASP's advice against CSV injection); data tools see the '.
 */
void osp_csv_field(FILE *out, const char *s);

/*
 * @s as the inside of an OpenMetrics (and Prometheus text) label value or
 * HELP text, without the quotes: \ " and newline escaped as \\ \" \n, the
 * rest of valid UTF-8 as it is (so a parser reads back the very string),
 * and bytes that are not valid UTF-8 -- which the format cannot hold --
 * in the text spelling \xHH.
 */
void osp_esc_om(FILE *out, const char *s);
/*
 * Copy @s into @buf (@len > 0 bytes) as a valid metric name,
 * [a-zA-Z_:][a-zA-Z0-9_:]*: other characters become '_', a leading digit
 * or an empty name gets a '_' before it. Truncates to fit. Returns @buf.
 */
char *osp_metric_name(char *buf, size_t len, const char *s);

/*
 * @s as one JSON string, quotes included: " \ and control bytes escaped,
 * valid UTF-8 as it is, and each byte that is not valid UTF-8 as \u00HH
 * (its Latin-1 code point), so the output is always valid JSON in UTF-8.
 */
void osp_esc_json(FILE *out, const char *s);

#endif /* OSPROF_ESCAPE_H */
