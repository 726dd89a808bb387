// SPDX-License-Identifier: MIT
/* CSV output shared by the tools that export tables (RFC 4180 quoting). */
#include <string.h>

#include "osprof/format.h"

void osp_csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
