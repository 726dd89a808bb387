/* SPDX-License-Identifier: MIT */
/*
 * Private to core: the one strict UTF-8 decoder, for the JSON scanner
 * (which refuses what is not UTF-8) and the escapers (which spell it out).
 */
#ifndef OSPROF_UTF8_H
#define OSPROF_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * osp_utf8_next - the code point of the UTF-8 sequence at @s (at most @n
 * bytes, n >= 1), its length in *@len; -1 with *@len = 1 when the first
 * byte does not start a valid sequence. Valid is Unicode's table 3-7: no
 * overlong forms, no surrogates, nothing past U+10FFFF -- what strict
 * decoders accept.
 */
static inline int32_t osp_utf8_next(const unsigned char *s, size_t n, size_t *len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	int32_t cp;
	size_t k;

	*len = 1;
	if (s[0] < 0x80)
		return s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		k = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		k = 3;
		cp = s[0] & 0x0f;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		k = 4;
		cp = s[0] & 0x07;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return -1;
	}
	if (n < k || s[1] < lo || s[1] > hi)
		return -1;
	for (size_t i = 1; i < k; i++) {
		if (i > 1 && (s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*len = k;
	return cp;
}

/*
 * osp_utf8_unit - the code point a JSON reader gets back, from osp_esc_json,
 * for the unit at @s (at most @n bytes, n >= 1): the UTF-8 sequence's, or,
 * for a byte that does not start one, the byte's own value (its Latin-1
 * code point, as the writer spells it \u00HH). Its length in *@len.
 */
static inline int32_t osp_utf8_unit(const unsigned char *s, size_t n, size_t *len)
{
	int32_t cp = osp_utf8_next(s, n, len);

	return cp < 0 ? s[0] : cp;
}

#endif /* OSPROF_UTF8_H */
