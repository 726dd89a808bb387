// SPDX-License-Identifier: MIT
/*
 * The transport's one tie to the daemon: libfuse hands its custom I/O
 * callbacks the session's userdata, the daemon (struct ofs), whose
 * transport this finds. Apart, so that the transport's unit test links
 * the transport without the daemon, with a stub of its own.
 */
#include "ofs.h"
#include "ofs_tr.h"

struct ofs_tr *ofs_tr_of(void *userdata)
{
	return ((struct ofs *)userdata)->tr;
}
