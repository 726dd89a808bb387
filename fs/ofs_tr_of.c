// SPDX-License-Identifier: MIT
/*
 * The transport's one tie to the daemon: libfuse hands its custom I/O
 * callbacks the session's userdata, the daemon (struct ofs), whose
 * transport this finds. Apart, so that no other file of the transport
 * depends on the daemon's struct (ofs.h).
 */
#include "ofs.h"
#include "ofs_tr.h"

struct ofs_tr *ofs_tr_of(void *userdata)
{
	return ((struct ofs *)userdata)->tr;
}
