// SPDX-License-Identifier: MIT
/*
 * The facts every component takes from core's two lists -- the FUSE
 * operations (osprof/fuse_ops.h) and the layers (osprof/layers.h) --
 * checked against what each component does with them: osprof-fs's
 * operations and their order, the fuse layer's name of each opcode,
 * what passthrough leaves out (fs's list, report's map), report's map of
 * operations, and each layer's name through every lookup that takes one
 * (bpf's names and its -o layers parser, report's order and levels,
 * core's file lists). A component that keeps a list of its own, or a row
 * added to one place and not the others, fails here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "obp.h"
#include "ofs.h"
#include "ofs_opts.h"
#include "orp.h"
#include "orp_where.h"
#include "osprof/format.h"
#include "osprof/fuse_ops.h"
#include "osprof/layers.h"

/* One row of either list, for walking. */
struct op_row {
	const char *id, *name;
	unsigned opcode;
	char kind; /* 'O'p, 'A'gain, 'K'ernel */
	int pt;
	int ofs;   /* OFS_OP_<ID>, -1 for KERNEL rows */
};

#define ROW_OP(ID, name, opcode, pt) { #ID, name, opcode, 'O', pt, OFS_OP_##ID },
#define ROW_AGAIN(ID, name, opcode) { #ID, name, opcode, 'A', 0, OFS_OP_##ID },
#define ROW_KERNEL(ID, name, opcode) { #ID, name, opcode, 'K', 0, -1 },
static const struct op_row ops[] = { OSP_FUSE_OPS(ROW_OP, ROW_AGAIN, ROW_KERNEL) };
#define NOPS (sizeof(ops) / sizeof(ops[0]))

struct layer_row {
	const char *id, *name;
	int ebpf, kmod;
};

#define ROW_LAYER(ID, name, ebpf, kmod) { #ID, name, ebpf, kmod },
static const struct layer_row layers[] = { OSP_LAYERS(ROW_LAYER) };
#define NLAYERS (sizeof(layers) / sizeof(layers[0]))

static bool passed_through(const char *name)
{
	for (size_t i = 0; i < OFS_PASSED_THROUGH_N; i++)
		if (strcmp(ofs_passed_through[i], name) == 0)
			return true;
	return false;
}

Test(fuse_ops, fs_serves_the_op_rows_in_their_order_by_their_names)
{
	size_t n = 0;

	for (size_t i = 0; i < NOPS; i++) {
		if (ops[i].kind != 'O')
			continue;
		cr_expect_eq(ops[i].ofs, (int)n, "%s is OFS_OP_%s, the %zu-th op row", ops[i].name,
			     ops[i].id, n);
		cr_expect_str_eq(ofs_op_names[ops[i].ofs], ops[i].name);
		n++;
	}
	cr_expect_eq(n, OFS_OP__COUNT);
}

Test(fuse_ops, each_opcode_has_its_rows_name_in_the_fuse_layer)
{
	char buf[32];

	for (size_t i = 0; i < NOPS; i++) {
		cr_expect_str_eq(obp_fuse_op_name(ops[i].opcode, buf, sizeof(buf)), ops[i].name,
				 "opcode %u", ops[i].opcode);
		if (ops[i].kind == 'A')
			cr_expect_str_eq(ofs_op_names[ops[i].ofs], ops[i].name,
					 "opcode %u counts as %s", ops[i].opcode, ops[i].id);
	}
	/* every other opcode is unnamed */
	for (unsigned op = 0; op < 256; op++) {
		bool listed = false;

		for (size_t i = 0; i < NOPS; i++)
			listed |= ops[i].opcode == op;
		if (!listed) {
			char want[16];

			snprintf(want, sizeof(want), "op_%u", op);
			cr_expect_str_eq(obp_fuse_op_name(op, buf, sizeof(buf)), want);
		}
	}
}

Test(fuse_ops, opcodes_and_names_are_each_listed_once)
{
	for (size_t i = 0; i < NOPS; i++)
		for (size_t j = i + 1; j < NOPS; j++) {
			cr_expect_neq(ops[i].opcode, ops[j].opcode, "%s and %s", ops[i].id, ops[j].id);
			if (ops[i].kind != 'A' && ops[j].kind != 'A')
				cr_expect_str_neq(ops[i].name, ops[j].name);
		}
}

Test(fuse_ops, report_maps_every_op_fs_serves_and_fs_knows_what_passes_through)
{
	for (size_t i = 0; i < NOPS; i++) {
		const struct orp_fuse_map *m = orp_fuse_map_find(ops[i].name);

		if (ops[i].kind != 'O') {
			cr_expect_null(ops[i].kind == 'K' ? m : NULL, "%s reaches no daemon", ops[i].name);
			continue;
		}
		cr_assert_not_null(m, "report's map has %s", ops[i].name);
		cr_expect_eq(passed_through(ops[i].name), ops[i].pt == 1, "fs: %s passes through",
			     ops[i].name);
	}
	cr_expect_eq(OFS_PASSED_THROUGH_N, 2);
}

Test(layers, names_are_each_listed_once)
{
	for (size_t i = 0; i < NLAYERS; i++)
		for (size_t j = i + 1; j < NLAYERS; j++)
			cr_expect_str_neq(layers[i].name, layers[j].name);
}

Test(layers, ebpf_layers_round_trip_through_bpfs_names_and_parser)
{
	unsigned l = 0;

	for (size_t i = 0; i < NLAYERS; i++) {
		unsigned mask = 0;
		char err[256] = "";
		int rc = obp_layers_parse(layers[i].name, &mask, err, sizeof(err));

		if (!layers[i].ebpf) {
			cr_expect_eq(rc, -EINVAL, "%s is no eBPF layer", layers[i].name);
			continue;
		}
		cr_expect_str_eq(obp_layer_name(l), layers[i].name);
		cr_expect_eq(rc, 0, "%s: %s", layers[i].name, err);
		cr_expect_eq(mask, OBP_LAYER_BIT(l), "%s", layers[i].name);
		l++;
	}
	cr_expect_eq(l, OBP_L__COUNT);
	cr_expect_null(obp_layer_name(OBP_L__COUNT));
}

Test(layers, report_orders_them_as_listed_and_names_its_levels_by_them)
{
	for (size_t i = 0; i < NLAYERS; i++)
		cr_expect_eq(orp_layer_rank(layers[i].name), i, "%s", layers[i].name);
	cr_expect_eq(orp_layer_rank("nosuch"), NLAYERS);
	for (int lv = 0; lv < ORP_WL__COUNT; lv++)
		cr_expect_lt(orp_layer_rank(orp_wlevel_layer(lv)), NLAYERS, "level %d: %s", lv,
			     orp_wlevel_layer(lv));
}

Test(layers, core_finds_each_layers_file_and_the_kernel_modules)
{
	size_t k = 0;

	for (size_t i = 0; i < NLAYERS; i++) {
		char file[64];
		bool found = false;

		snprintf(file, sizeof(file), "%s.json", layers[i].name);
		for (size_t f = 0; f < OSP_LAYER_FILES; f++)
			found |= strcmp(osp_layer_files[f], file) == 0;
		cr_expect(found, "a run directory's %s", file);
		snprintf(file, sizeof(file), "/proc/osprof/%s", layers[i].name);
		if (layers[i].kmod) {
			cr_assert_lt(k, OSP_KMOD_LAYERS);
			cr_expect_str_eq(osp_kmod_layers[k], layers[i].name);
			cr_expect_str_eq(osp_source_kmod_layer(file, "x", 1), layers[i].name);
			k++;
		} else {
			cr_expect_null(osp_source_kmod_layer(file, "x", 1), "%s", file);
		}
	}
	cr_expect_eq(k, OSP_KMOD_LAYERS);
}
