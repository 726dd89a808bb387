// SPDX-License-Identifier: MIT
/*
 * Loading layer block (obp_block.bpf.c): no options, nothing to feed;
 * opened, loaded and attached as it is.
 */
#include <errno.h>

#include <bpf/libbpf.h>

#include "obp_impl.h"
#include "obp_block.skel.h"

static int block_open(struct obp *b, unsigned want, struct obp_object *out)
{
	struct obp_block_bpf *k = obp_block_bpf__open_and_load();
	int err;

	(void)b;
	(void)want;
	if (!k)
		return -errno;
	err = obp_block_bpf__attach(k);
	if (err) {
		obp_block_bpf__destroy(k);
		return err;
	}
	OBP_OBJECT_SET(out, k);
	return 0;
}

static void block_close(struct obp *b, void *skel)
{
	(void)b;
	obp_block_bpf__destroy(skel);
}

const struct obp_loader obp_block_loader = {
	.layers = OBP_LAYER_BIT(OBP_L_BLOCK),
	.kinds = { [OBP_L_BLOCK] = OBP_K_BLOCK },
	.what = "block layer",
	.open = block_open,
	.close = block_close,
};
