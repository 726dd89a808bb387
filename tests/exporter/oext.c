// SPDX-License-Identifier: MIT
/*
 * The shared harness of osprof-exporter's tests (see oext.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <crypt.h>

#include <criterion/criterion.h>

#include "oext.h"
#include "osprof/format.h"

#define OEXT_MAX_PROCS 32

static struct osp_profile *profs[16];
static size_t nprofs;
static struct oext_proc procs[OEXT_MAX_PROCS];
static size_t nprocs;

void oext_setup(void)
{
	cli_setup();
	signal(SIGPIPE, SIG_IGN);
}

/* Fail on what a sanitizer or a crash leaves in a program's stderr. */
static void check_stderr(const struct oext_proc *p)
{
	char line[512];
	FILE *f = fopen(p->err_path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		cr_expect(!strstr(line, "Sanitizer") && !strstr(line, "runtime error"),
			  "stderr of pid %d: %s", (int)p->pid, line);
	fclose(f);
}

void oext_teardown(void)
{
	for (size_t i = 0; i < nprocs; i++) {
		if (procs[i].pid > 0)
			oext_stop(&procs[i]);
		check_stderr(&procs[i]);
	}
	nprocs = 0;
	for (size_t i = 0; i < nprofs; i++)
		osp_profile_free(profs[i]);
	nprofs = 0;
	cli_teardown();
}

struct osp_profile *oext_fixture(const char *dir, const char *file,
				 const char *layer, unsigned res,
				 const char *lower, const char *op,
				 const uint64_t *lat_ns, size_t n)
{
	struct osp_profile *p = osp_profile_new(layer, res);
	struct osp_op *o;
	char *ctl, *path;
	FILE *f;

	cr_assert(p);
	o = osp_profile_add_op(p, op, false);
	cr_assert(o);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(osp_hist_record(&o->lat, lat_ns[i]), 0);
	cr_assert_eq(osp_kv_set_str(&p->source, "mount", dir), 0);
	if (lower)
		cr_assert_eq(osp_kv_set_str(&p->source, "lower", lower), 0);
	cr_assert(asprintf(&ctl, "%s/.osprof", dir) >= 0);
	mkdir(dir, 0755);
	mkdir(ctl, 0755);
	cr_assert(asprintf(&path, "%s/%s", ctl, file) >= 0);
	f = fopen(path, "w");
	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(osp_write_json(f, p), 0);
	cr_assert_eq(fclose(f), 0);
	free(ctl);
	free(path);
	cr_assert(nprofs < sizeof(profs) / sizeof(profs[0]));
	return profs[nprofs++] = p;
}

struct oext_proc oext_spawn(char *const *argv)
{
	struct oext_proc p = { .err_path = tpath("stderr.%zu", nprocs) };
	int fd;

	cr_assert(nprocs < OEXT_MAX_PROCS);
	p.pid = fork();
	cr_assert(p.pid >= 0);
	if (p.pid == 0) {
		/* Dies with the test, even one that crashed before its fini. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fd = open(p.err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	procs[nprocs++] = p;
	return p;
}

int oext_stop(struct oext_proc *p)
{
	int st;

	if (p->pid <= 0)
		return -1;
	kill(p->pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		if (waitpid(p->pid, &st, WNOHANG) == p->pid)
			goto reaped;
		usleep(50000);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
reaped:
	/* Mark it reaped in the list too, so teardown leaves it be. */
	for (size_t i = 0; i < nprocs; i++)
		if (procs[i].pid == p->pid)
			procs[i].pid = 0;
	p->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A file's text, "" when there is none yet (kept). */
static char *slurp_or_empty(const char *path)
{
	char *t = slurp(path);

	return t ? own(t) : "";
}

unsigned oext_exporter(char *const *paths, struct oext_proc *p)
{
	return oext_exporter_opts((char *[]){ NULL }, paths, p);
}

unsigned oext_exporter_opts(char *const *opts, char *const *paths,
			    struct oext_proc *p)
{
	char *argv[16] = { (char *)OEXT_BIN, "--listen",
			   "127.0.0.1:0" };
	size_t n = 3;
	unsigned port;

	for (; *opts; opts++) {
		cr_assert(n < 15);
		argv[n++] = *opts;
	}
	for (; *paths; paths++) {
		cr_assert(n < 15);
		argv[n++] = *paths;
	}
	*p = oext_spawn(argv);
	for (int i = 0; i < 200; i++) {
		const char *text = slurp_or_empty(p->err_path), *at;

		at = strstr(text, "listening on http://127.0.0.1:");
		if (at && sscanf(at, "listening on http://127.0.0.1:%u/", &port) == 1)
			return port;
		at = strstr(text, "listening on https://127.0.0.1:");
		if (at && sscanf(at, "listening on https://127.0.0.1:%u/", &port) == 1)
			return port;
		usleep(25000);
	}
	cr_assert_fail("the exporter did not say it listens: %s", slurp_or_empty(p->err_path));
	return 0;
}

int oext_connect(unsigned port)
{
	return oext_connect_from(port, NULL);
}

int oext_connect_from(unsigned port, const char *from)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in me = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (from && (inet_pton(AF_INET, from, &me.sin_addr) != 1 ||
		     bind(fd, (struct sockaddr *)&me, sizeof(me)) != 0)) {
		close(fd);
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

struct oext_resp oext_http_raw(unsigned port, const char *req, size_t len)
{
	struct oext_resp r = { 0 };
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap + 1), *sep;
	int fd = oext_connect(port);
	double end = oext_now() + 5;

	cr_assert(buf);
	if (fd < 0) { /* status 0: nothing listens (yet) */
		free(buf);
		r.headers = r.body = "";
		return r;
	}
	if (send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len)
		cr_log_info("the request was not sent whole: %s", strerror(errno));
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (oext_now() > end || poll(&pfd, 1, 100) < 0)
			break;
		if (!(pfd.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (got == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			cr_assert(buf);
		}
		n = recv(fd, buf + got, cap - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	own(buf);
	sscanf(buf, "HTTP/1.%*d %d", &r.status);
	sep = strstr(buf, "\r\n\r\n");
	if (sep) {
		*sep = '\0';
		r.headers = buf;
		r.body = sep + 4;
		r.body_len = got - (size_t)(r.body - buf);
	} else {
		r.headers = buf;
		r.body = buf + got;
	}
	return r;
}

struct oext_resp oext_get(unsigned port, const char *target, const char *accept)
{
	char *req;
	int n;

	if (accept)
		n = asprintf(&req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: %s\r\nConnection: close\r\n\r\n",
			     target, accept);
	else
		n = asprintf(&req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
			     target);
	cr_assert(n > 0);
	own(req);
	return oext_http_raw(port, req, (size_t)n);
}

char *oext_header(const struct oext_resp *r, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = r->headers; l; l = strstr(l, "\r\n")) {
		if (l[0] == '\r')
			l += 2;
		if (strncasecmp(l, name, n) == 0 && l[n] == ':') {
			const char *v = l + n + 1, *e = strstr(v, "\r\n");

			v += strspn(v, " ");
			return own(strndup(v, e ? (size_t)(e - v) : strlen(v)));
		}
	}
	return NULL;
}

unsigned oext_free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert(fd >= 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	close(fd);
	return ntohs(a.sin_port);
}

char *oext_urlencode(const char *s)
{
	char *out = own(malloc(3 * strlen(s) + 1)), *o = out;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-_.~", c))
			*o++ = (char)c;
		else
			o += sprintf(o, "%%%02X", c);
	}
	*o = '\0';
	return out;
}

double oext_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void oext_certs(void)
{
	/* P-256 keys: made in milliseconds. Each certificate says what it
	 * is for (serverAuth, clientAuth), as a checking peer wants. */
	static const char script[] =
		"set -e; cd \"$1\"; "
		"key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out \"$1\"; }; "
		"ca() { key $1.key; openssl req -x509 -new -key $1.key -out $1.pem -days 2 -subj /CN=$1; }; "
		"leaf() { key $1.key; openssl req -new -key $1.key -out $1.csr -subj /CN=$1; "
		"  printf '%b\\n' \"$3\" > $1.ext; "
		"  openssl x509 -req -in $1.csr -CA $2.pem -CAkey $2.key -CAcreateserial "
		"    -out $1.pem -days 2 -extfile $1.ext; }; "
		"ca ca; ca otherca; "
		"leaf server ca 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'; "
		"leaf client ca 'extendedKeyUsage=clientAuth'; "
		"leaf stranger otherca 'extendedKeyUsage=clientAuth'";
	struct run r;

	if (system("openssl version >/dev/null 2>&1") != 0)
		cr_skip_test("no openssl: install Debian's openssl package");
	r = run_argv((char *const[]){ "/bin/sh", "-c", (char *)script, "sh",
				      (char *)cli_dir(), NULL });
	cr_assert_eq(r.status, 0, "openssl: %s", r.err);
}

char *oext_bcrypt(const char *pass)
{
	return oext_bcrypt_cost(pass, 4);
}

char *oext_bcrypt_cost(const char *pass, unsigned cost)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd = own(calloc(1, sizeof(*cd)));
	const char *h;

	cr_assert(crypt_gensalt_rn("$2b$", cost, NULL, 0, setting, sizeof(setting)));
	h = crypt_rn(pass, setting, cd, sizeof(*cd));
	cr_assert(h && h[0] == '$', "libcrypt made no bcrypt hash");
	return own(strdup(h));
}
