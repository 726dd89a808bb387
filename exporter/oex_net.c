// SPDX-License-Identifier: MIT
/*
 * The two pieces of external text osprof-exporter reads itself (the HTTP
 * request is libmicrohttpd's): the Accept header, for content
 * negotiation, and the --listen address. Both take any bytes; both are
 * fuzzed (fuzz/fuzz_exporter.c).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include "oex.h"
#include "osprof/parse.h"

/* [s, e) with blanks trimmed on both sides. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && isblank((unsigned char)**s))
		(*s)++;
	while (*e > *s && isblank((unsigned char)(*e)[-1]))
		(*e)--;
}

static bool is(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(e - s) == n && strncasecmp(s, word, n) == 0;
}

/* RFC 9110's qvalue: 0, 1, or 0.ddd; anything else counts as 0. */
static double qvalue(const char *s, const char *e)
{
	double q = 0, scale = 0.1;

	if (s == e || (*s != '0' && *s != '1'))
		return 0;
	q = *s++ - '0';
	if (s == e)
		return q;
	if (*s++ != '.')
		return 0;
	for (int n = 0; s < e; s++, n++) {
		if (n == 3 || !isdigit((unsigned char)*s))
			return 0;
		q += (*s - '0') * scale;
		scale /= 10;
	}
	return q > 1 ? 0 : q;
}

/* One media range of an Accept header: its kind and q. */
enum media { MEDIA_OTHER, MEDIA_TEXT, MEDIA_PROTO };

static enum media media_range(const char *s, const char *e, double *q)
{
	const char *semi = memchr(s, ';', (size_t)(e - s));
	const char *te = semi ? semi : e, *ts = s;
	bool delimited = false, family = false;
	enum media kind = MEDIA_OTHER;

	*q = 1;
	trim(&ts, &te);
	if (is(ts, te, "text/plain") || is(ts, te, "application/openmetrics-text") ||
	    is(ts, te, "text/*") || is(ts, te, "*/*"))
		kind = MEDIA_TEXT;
	else if (is(ts, te, "application/vnd.google.protobuf"))
		kind = MEDIA_PROTO;
	while (semi) {
		const char *ps = semi + 1, *pe, *eq;

		semi = memchr(ps, ';', (size_t)(e - ps));
		pe = semi ? semi : e;
		eq = memchr(ps, '=', (size_t)(pe - ps));
		if (!eq)
			continue;
		const char *ks = ps, *ke = eq, *vs = eq + 1, *ve = pe;

		trim(&ks, &ke);
		trim(&vs, &ve);
		if (is(ks, ke, "q"))
			*q = qvalue(vs, ve);
		else if (is(ks, ke, "proto"))
			family = is(vs, ve, "io.prometheus.client.MetricFamily");
		else if (is(ks, ke, "encoding"))
			delimited = is(vs, ve, "delimited");
	}
	if (kind == MEDIA_PROTO && !(family && delimited))
		kind = MEDIA_OTHER;
	return kind;
}

bool oex_accept_wants_proto(const char *accept)
{
	double proto_q = 0, text_q = 0, q;
	const char *s = accept, *comma;

	if (!accept)
		return false;
	for (; s; s = comma ? comma + 1 : NULL) {
		const char *e;

		comma = strchr(s, ',');
		e = comma ? comma : s + strlen(s);
		switch (media_range(s, e, &q)) {
		case MEDIA_PROTO:
			proto_q = q > proto_q ? q : proto_q;
			break;
		case MEDIA_TEXT:
			text_q = q > text_q ? q : text_q;
			break;
		case MEDIA_OTHER:
			break;
		}
	}
	return proto_q > 0 && proto_q >= text_q;
}

int oex_addr_parse(const char *text, struct sockaddr_storage *ss,
		   socklen_t *sslen, char *err, size_t errlen)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *hs, *he;
	uint64_t port;

	memset(ss, 0, sizeof(*ss));
	if (text[0] == '[') {
		hs = text + 1;
		he = strchr(hs, ']');
		if (!he || he[1] != ':') {
			snprintf(err, errlen, "an IPv6 address is written [ADDR]:PORT");
			return -EINVAL;
		}
		colon = he + 1;
	} else {
		hs = text;
		colon = strrchr(text, ':');
		if (!colon) {
			snprintf(err, errlen, "no port: write ADDR:PORT");
			return -EINVAL;
		}
		he = colon;
	}
	if ((size_t)(he - hs) >= sizeof(host) || he == hs) {
		snprintf(err, errlen, "no address before the port");
		return -EINVAL;
	}
	memcpy(host, hs, (size_t)(he - hs));
	host[he - hs] = '\0';
	if (osp_parse_u64(colon + 1, 0, 65535, &port) != 0 ||
	    !isdigit((unsigned char)colon[1])) {
		snprintf(err, errlen, "port is not a number from 0 to 65535");
		return -EINVAL;
	}
	if (text[0] == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1) {
			snprintf(err, errlen, "not an IPv6 address");
			return -EINVAL;
		}
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*sslen = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1) {
			snprintf(err, errlen, "not an IPv4 address (IPv6: [ADDR]:PORT)");
			return -EINVAL;
		}
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*sslen = sizeof(*a4);
	}
	return 0;
}
