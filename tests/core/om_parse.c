// SPDX-License-Identifier: MIT
/*
 * The tests' reader of osprof's metric text (om_parse.h).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "om_parse.h"

/* A label value's text-format escapes undone, in place; the end quote's
 * address in *@end. */
static void unescape(char *s, char **end)
{
	char *w = s;

	for (; *s && *s != '"'; s++) {
		if (*s == '\\') {
			s++;
			cr_assert(*s == '\\' || *s == '"' || *s == 'n', "bad escape \\%c", *s);
			*w++ = *s == 'n' ? '\n' : *s;
		} else {
			*w++ = *s;
		}
	}
	cr_assert_eq(*s, '"', "an unterminated label value");
	*end = s;
	*w = '\0';
}

size_t om_parse(char *text, struct om_sample *out, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct om_sample *s;
		char *p;

		if (l[0] == '#') {
			cr_expect(strncmp(l, "# HELP ", 7) == 0 || strncmp(l, "# TYPE ", 7) == 0 ||
				  strncmp(l, "# UNIT ", 7) == 0 || strcmp(l, "# EOF") == 0,
				  "comment: %s", l);
			continue;
		}
		cr_assert(n < max, "more than %zu samples", max);
		s = &out[n++];
		memset(s, 0, sizeof(*s));
		s->name = l;
		p = l + strcspn(l, "{ ");
		if (*p == '{') {
			*p++ = '\0';
			while (*p != '}') {
				char *eq = strchr(p, '='), *end;

				cr_assert(eq && eq[1] == '"', "label: %s", p);
				*eq = '\0';
				cr_assert(s->nl < OM_LABELS_MAX);
				s->key[s->nl] = p;
				s->val[s->nl++] = eq + 2;
				unescape(eq + 2, &end);
				p = end + 1;
				if (*p == ',')
					p++;
			}
			p++;
		} else {
			*p = '\0';
		}
		cr_assert_eq(*p, ' ', "no value after %s", s->name);
		s->value = strtod(p + 1, NULL);
	}
	return n;
}

const char *om_label(const struct om_sample *s, const char *key)
{
	for (size_t i = 0; i < s->nl; i++)
		if (strcmp(s->key[i], key) == 0)
			return s->val[i];
	return NULL;
}

/* The labels of @s but le, as "k=v,k=v" into @buf. */
static void labelset(const struct om_sample *s, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < s->nl && o < len; i++)
		if (strcmp(s->key[i], "le") != 0)
			o += (size_t)snprintf(buf + o, len - o, "%s%s=%s", o ? "," : "",
					      s->key[i], s->val[i]);
}

size_t om_series_of(const struct om_sample *s, size_t n, struct om_series *out,
		    size_t max)
{
	static const char *const suffixes[] = { "_bucket", "_sum", "_count" };
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		char name[64], ls[1024];
		size_t k;

		snprintf(name, sizeof(name), "%s", s[i].name);
		/* A histogram's samples are one series: its name without the suffix. */
		for (size_t f = 0; f < sizeof(suffixes) / sizeof(suffixes[0]); f++) {
			size_t a = strlen(name), b = strlen(suffixes[f]);

			if (a > b && strcmp(name + a - b, suffixes[f]) == 0) {
				name[a - b] = '\0';
				break;
			}
		}
		labelset(&s[i], ls, sizeof(ls));
		for (k = 0; k < m; k++)
			if (strcmp(out[k].name, name) == 0 && strcmp(out[k].labels, ls) == 0)
				break;
		if (k == m) {
			cr_assert(m < max, "more than %zu series", max);
			snprintf(out[m].name, sizeof(out[m].name), "%s", name);
			snprintf(out[m].labels, sizeof(out[m].labels), "%s", ls);
			out[m].samples = 0;
			out[m].count = -1;
			m++;
		}
		out[k].samples++;
		if (strstr(s[i].name, "_count"))
			out[k].count = s[i].value;
	}
	return m;
}

const struct om_series *om_find(const struct om_series *s, size_t n,
				const char *name, const char *labels)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].name, name) == 0 && strcmp(s[i].labels, labels) == 0)
			return &s[i];
	return NULL;
}

void om_promtool(const char *text)
{
	const char *bin = getenv("OM_PROMTOOL") ? getenv("OM_PROMTOOL") : "/usr/bin/promtool";
	char out[] = "/tmp/om-promtool-XXXXXX", cmd[256], said[2048] = "";
	int fd = mkstemp(out), st;
	size_t n;
	FILE *p, *f;

	if (access(bin, X_OK) != 0) {
		cr_log_warn("no %s: the exposition is not checked by promtool", bin);
		return;
	}
	cr_assert(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "%s check metrics > %s 2>&1", bin, out);
	p = popen(cmd, "w");
	cr_assert_not_null(p);
	fputs(text, p);
	st = pclose(p);
	f = fopen(out, "r");
	n = f ? fread(said, 1, sizeof(said) - 1, f) : 0;
	said[n] = '\0';
	if (f)
		fclose(f);
	unlink(out);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "promtool check metrics: %s", said);
}
