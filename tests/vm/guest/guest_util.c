// SPDX-License-Identifier: MIT
/*
 * okm-guest helpers: reporting, whole-file reads and writes, the record
 * format of /proc/osprof (key=value pairs, hist=b:c,...), affinity and
 * clocks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

static int g_nfail;

void g_pass(const char *name)
{
	printf("PASS %s\n", name);
	fflush(stdout);
}

void g_fail(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	g_nfail++;
}

void g_info(const char *fmt, ...)
{
	va_list ap;

	printf("INFO ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int g_failures(void)
{
	return g_nfail;
}

char *g_read_file(const char *path, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;
	int fd, saved;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		free(buf);
		errno = saved;
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			saved = errno;
			free(buf);
			close(fd);
			errno = saved;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int g_write_bytes(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, buf, len);
	if (w < 0)
		ret = -errno;
	else if ((size_t)w != len)
		ret = -EIO;
	close(fd);
	return ret;
}

int g_write_file(const char *path, const char *s)
{
	return g_write_bytes(path, s, strlen(s));
}

int g_ctl(const char *cmd)
{
	return g_write_file(G_PROC "ctl", cmd);
}

bool g_rec_get(const char *line, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (*p && *p != '\n') {
		const char *end = p + strcspn(p, " \n");

		if ((size_t)(end - p) > klen && !strncmp(p, key, klen) &&
		    p[klen] == '=') {
			size_t vlen = (size_t)(end - p) - klen - 1;

			if (vlen >= len)
				vlen = len - 1;
			memcpy(out, p + klen + 1, vlen);
			out[vlen] = '\0';
			return true;
		}
		p = *end == ' ' ? end + 1 : end;
	}
	return false;
}

bool g_rec_u64(const char *line, const char *key, uint64_t *v)
{
	char buf[32], *end;

	if (!g_rec_get(line, key, buf, sizeof(buf)) || !buf[0])
		return false;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && !*end;
}

/*
 * The next line of *@text into @line, NUL-terminated (lines of @len bytes
 * or more are skipped), and *@text past it; false at the end of the text.
 */
static bool g_next_line(const char **text, char *line, size_t len)
{
	while (**text) {
		const char *p = *text, *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		*text = nl ? nl + 1 : p + n;
		if (n < len) {
			memcpy(line, p, n);
			line[n] = '\0';
			return true;
		}
	}
	return false;
}

bool g_rec_find(const char *text, const char *key, const char *val,
		char *line, size_t len)
{
	char v[128];

	while (g_next_line(&text, line, len)) {
		if (g_rec_get(line, key, v, sizeof(v)) && !strcmp(v, val))
			return true;
	}
	return false;
}

/* Check one hist value against its count; NULL or a message. */
static const char *g_check_hist(const char *h, uint64_t count)
{
	uint64_t total = 0;
	long prev = -1;
	const char *p = h;

	if (!*p)
		return count ? "empty hist with a count" : NULL;
	while (*p) {
		char *end;
		unsigned long b = strtoul(p, &end, 10);
		unsigned long long c;

		if (end == p || *end != ':' || b > 64 || (long)b <= prev)
			return "bad bucket index";
		prev = (long)b;
		p = end + 1;
		c = strtoull(p, &end, 10);
		if (end == p || c == 0)
			return "bad bucket count";
		total += c;
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			return "bad hist separator";
	}
	return total == count ? NULL : "buckets do not add up to count";
}

static const char *g_check_record(char *line, bool lower)
{
	static const char *const keys[] = { "count", "sum_ns", "min_ns",
					     "max_ns" };
	char hist[4096];
	uint64_t count, v;
	const char *msg;
	unsigned int i;
	char *p;

	if (!*line)
		return "empty line";
	if (line[strlen(line) - 1] == ' ' || line[0] == ' ' ||
	    strstr(line, "  "))
		return "stray space";
	for (p = line; *p;) {
		char *end = p + strcspn(p, " ");
		char *eq = memchr(p, '=', (size_t)(end - p));

		if (!eq || eq == p)
			return "token is not key=value";
		p = *end ? end + 1 : end;
	}
	for (i = 0; i < 4; i++) {
		if (!g_rec_u64(line, keys[i], &v))
			return "missing count/sum_ns/min_ns/max_ns";
	}
	g_rec_u64(line, "count", &count);
	if (!g_rec_get(line, "hist", hist, sizeof(hist)))
		return "missing hist";
	msg = g_check_hist(hist, count);
	if (msg || !lower)
		return msg;
	if (!g_rec_u64(line, "vcount", &count) ||
	    !g_rec_get(line, "vhist", hist, sizeof(hist)))
		return "missing vcount/vhist";
	return g_check_hist(hist, count);
}

const char *g_check_layer_text(const char *layer, const char *text)
{
	static char msg[256];
	char line[8192], want[64];
	const char *p = text, *err;
	int n = 0;

	snprintf(want, sizeof(want), "layer=%s ", layer);
	if (strncmp(text, want, strlen(want)))
		return "no header line";
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (!nl)
			return "last line not terminated";
		if (len >= sizeof(line))
			return "line too long";
		memcpy(line, p, len);
		line[len] = '\0';
		if (n > 0) {
			err = g_check_record(line, !strcmp(layer, "lower"));
			if (err) {
				snprintf(msg, sizeof(msg), "line %d: %s: %.120s",
					 n + 1, err, line);
				return msg;
			}
		}
		n++;
		p = nl + 1;
	}
	return NULL;
}

int g_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

uint64_t g_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void g_spin_until(uint64_t until_ns)
{
	volatile uint64_t x = 0;

	/* clock_gettime is a vDSO call: no syscall, no switch */
	while (g_mono_ns() < until_ns) {
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i;
	}
}

void g_irq_sum(const char *text, bool (*pred)(const char *line),
	       struct g_irq_sum *out)
{
	char line[8192];
	uint64_t c, s;

	memset(out, 0, sizeof(*out));
	while (g_next_line(&text, line, sizeof(line))) {
		if (!strncmp(line, "irq=", 4) && pred(line) &&
		    g_rec_u64(line, "count", &c) && g_rec_u64(line, "sum_ns", &s)) {
			out->count += c;
			out->sum_ns += s;
			out->lines++;
		}
	}
}

bool g_is_local_timer(const char *line)
{
	return !strncmp(line, "irq=LOC ", 8);
}
