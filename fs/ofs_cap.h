/* SPDX-License-Identifier: MIT */
/* Whether the daemon holds a capability (passthrough's CAP_SYS_ADMIN,
 * the pollers' CAP_SYS_NICE). */
#ifndef OFS_CAP_H
#define OFS_CAP_H

#include <linux/capability.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

/* True when capability @cap (CAP_*) is in this thread's effective set. */
static inline bool ofs_cap_effective(int cap)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap);
}

#endif /* OFS_CAP_H */
