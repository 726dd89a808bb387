// SPDX-License-Identifier: MIT
/*
 * ctl tests: malformed writes fail with EINVAL and change nothing (the
 * settings read back identical); well-formed commands take effect; a
 * write is all or nothing; random bytes never crash the kernel; the
 * module cannot be removed while a /dev/osprof_vt descriptor is open.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "guest.h"

#define CTL G_PROC "ctl"
/* The module's irq_events at load (DESIGN.md's default). */
#define DEFAULT_EVENTS \
	"instructions,branch_instructions,branch_misses,l1i_misses,l1d_misses"

static int ctl_bytes(const void *buf, size_t len)
{
	return g_write_bytes(CTL, buf, len);
}

/*
 * Write @cmd, then ctl must read with @want in it; else a FAIL line
 * "@what did not take". 0, or 1 after the FAIL.
 */
static int ctl_takes(const char *cmd, const char *want, const char *what)
{
	char *after = NULL;
	int bad = g_ctl(cmd) || !(after = g_read_file(CTL, NULL)) ||
		  !strstr(after, want);

	if (bad)
		g_fail("ctl_errors", "%s did not take%s%s", what,
		       after ? ":\n" : "", after ? after : "");
	free(after);
	return bad;
}

int t_ctl_errors(void)
{
	static const char *const bad_cmds[] = {
		"bogus\n", "\n", "   \n", "pid\n", "pid abc\n", "pid -1\n",
		"pid 0\n", "pid +5\n", "pid 0x10\n", "pid 1 2\n",
		"pid 99999999999999999999\n", "unpid\n", "reset nothing\n",
		"reset lower block\n", "enable\n", "enable nothing\n",
		"disable lower extra\n", "irq_events\n", "irq_events bogus\n",
		"irq_events instructions,\n", "irq_events ,instructions\n",
		"irq_events instructions,instructions\n",
		"irq_events a,b,c,d,e,f,g,h,i\n", "PID 1\n", "reset\nbogus\n",
		"disable irq\nenable nothing\n",
	};
	char *before, *after, big[5000];
	unsigned int i;
	int r, bad = 0;

	before = g_read_file(CTL, NULL);
	if (!before) {
		g_fail("ctl_errors", "read ctl: %s", strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(bad_cmds) / sizeof(bad_cmds[0]); i++) {
		r = g_ctl(bad_cmds[i]);
		if (r != -EINVAL) {
			g_fail("ctl_errors", "'%.40s' gave %s, want EINVAL", bad_cmds[i],
			       r ? strerror(-r) : "success");
			bad++;
		}
	}
	r = ctl_bytes("reset\0lower\n", 12);
	if (r != -EINVAL) {
		g_fail("ctl_errors", "NUL byte gave %d", r);
		bad++;
	}
	memset(big, 'a', sizeof(big));
	r = ctl_bytes(big, sizeof(big));
	if (r != -EINVAL) {
		g_fail("ctl_errors", "over-long write gave %d", r);
		bad++;
	}
	r = ctl_bytes("", 0);
	if (r != 0 && r != -EINVAL) {
		g_fail("ctl_errors", "empty write gave %d", r);
		bad++;
	}
	r = g_ctl("pid 999999\n");
	if (r != -ESRCH) {
		g_fail("ctl_errors", "pid of no process gave %d, want ESRCH", r);
		bad++;
	}
	r = g_ctl("unpid 1\n");
	if (r != -ENOENT) {
		g_fail("ctl_errors", "unpid of unregistered gave %d, want ENOENT", r);
		bad++;
	}
	after = g_read_file(CTL, NULL);
	/* the counters of dropped events may move; compare the settings */
	if (!after || strncmp(before, after, strstr(before, "lower_missing") ?
			      (size_t)(strstr(before, "lower_missing") - before) :
			      strlen(before))) {
		g_fail("ctl_errors", "settings changed by failed writes:\n%s---\n%s",
		       before, after ? after : "");
		bad++;
	}
	free(after);

	/* well-formed commands take effect */
	bad += ctl_takes("disable block\n", "\nblock disabled\n", "disable block");
	bad += ctl_takes("enable all\nreset\n", "\nblock enabled\n", "enable all");
	bad += ctl_takes("irq_events instructions,cycles\n",
			 "\nirq_events instructions,cycles\n", "irq_events");
	if (g_ctl("irq_events none\n")) {
		g_fail("ctl_errors", "irq_events none did not take");
		bad++;
	}
	bad += ctl_takes("irq_events " DEFAULT_EVENTS "\n",
			 "\nirq_events " DEFAULT_EVENTS "\n",
			 "irq_events back to the default");
	{
		char cmd[64], want[64];

		/* nothing else is registered now: unpid below must leave none */
		snprintf(cmd, sizeof(cmd), "pid %d\npid %d\n", getpid(), getppid());
		snprintf(want, sizeof(want), "\npids %d,%d\n", getpid(), getppid());
		bad += ctl_takes(cmd, want, "pid");
		snprintf(cmd, sizeof(cmd), "unpid %d\nunpid %d\n", getpid(), getppid());
		bad += ctl_takes(cmd, "\npids none\n", "unpid");
	}
	free(before);
	if (!bad)
		g_pass("ctl_errors");
	return bad != 0;
}

/* Random bytes and random word salads: errors only, never a crash. */
int t_ctl_fuzz(void)
{
	static const char *const words[] = {
		"pid", "unpid", "reset", "enable", "disable", "irq_events",
		"lower", "block", "irq", "all", "none", "1", "-1", "99999999",
		"instructions", "cycles,", ",", " ", "\n", "\t", "\r", "=",
		"l1d_misses", "a,b", "",
	};
	const size_t nw = sizeof(words) / sizeof(words[0]);
	unsigned int seed = 777;
	char buf[512];
	int i, accepted = 0;

	for (i = 0; i < 1500; i++) {
		size_t len = 0;
		int j, n = 1 + rand_r(&seed) % 6;

		if (i % 3 == 0) {
			len = (size_t)(rand_r(&seed) % (int)sizeof(buf));
			for (j = 0; j < (int)len; j++)
				buf[j] = (char)rand_r(&seed);
		} else {
			for (j = 0; j < n; j++) {
				const char *w = words[rand_r(&seed) % nw];
				size_t wl = strlen(w);

				if (len + wl + 1 >= sizeof(buf))
					break;
				memcpy(buf + len, w, wl);
				len += wl;
				if (rand_r(&seed) % 2)
					buf[len++] = ' ';
			}
		}
		if (ctl_bytes(buf, len) == 0)
			accepted++;
	}
	/* leave the module as we found it */
	g_ctl("enable all\n");
	g_ctl("irq_events " DEFAULT_EVENTS "\n");
	g_info("ctl_fuzz: 1500 random writes, %d accepted", accepted);
	g_pass("ctl_fuzz");
	return 0;
}

int t_rmmod_busy(void)
{
	int fd = open(OKM_VT_DEVICE, O_RDWR | O_CLOEXEC);
	long r;

	if (fd < 0) {
		g_fail("rmmod_refused_while_fd_open", "open: %s", strerror(errno));
		return 1;
	}
	r = syscall(SYS_delete_module, "osprof", O_NONBLOCK);
	if (r == 0) {
		g_fail("rmmod_refused_while_fd_open", "module removed under an open descriptor");
		close(fd);
		return 1;
	}
	if (errno != EWOULDBLOCK && errno != EBUSY) {
		g_fail("rmmod_refused_while_fd_open", "delete_module: %s", strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	g_pass("rmmod_refused_while_fd_open");
	return 0;
}
