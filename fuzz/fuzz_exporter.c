// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the two texts osprof-exporter parses itself
 * (exporter/oex_net.c), the HTTP Accept header of every scrape
 * (oex_accept_wants_proto) and the --listen address (oex_addr_parse); the
 * request itself is libmicrohttpd's. The input, up to its first NUL, is
 * given to both. Beyond crashes: an accepted address is an IPv4 or IPv6
 * socket address of the right length that, printed back as ADDR:PORT,
 * parses to the same bytes; a refused one says why in one line.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oex.h"
#include "ofz.h"

static void check_addr(const char *text)
{
	struct sockaddr_storage ss, again;
	socklen_t len, len2;
	char err[128], host[INET6_ADDRSTRLEN], back[INET6_ADDRSTRLEN + 16];

	if (oex_addr_parse(text, &ss, &len, err, sizeof(err)) != 0) {
		ofz_check_err("addr", err, sizeof(err));
		return;
	}
	if (ss.ss_family == AF_INET && len == sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(back, sizeof(back), "%s:%u", host, ntohs(a->sin_port));
	} else if (ss.ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(back, sizeof(back), "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		ofz_fail("addr: accepted as family %d, length %u", ss.ss_family, (unsigned)len);
	}
	if (oex_addr_parse(back, &again, &len2, err, sizeof(err)) != 0 ||
	    len2 != len || memcmp(&ss, &again, len) != 0)
		ofz_fail("addr: '%s' printed back as '%s' does not parse the same", text, back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	bool proto;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	proto = oex_accept_wants_proto(text);
	if (proto != oex_accept_wants_proto(text))
		ofz_fail("accept: two answers for one header");
	check_addr(text);
	free(text);
	return 0;
}
