/* SPDX-License-Identifier: MIT */
/*
 * The layers, named once: the name each layer's profiles carry ("layer"
 * in the JSON format, a control file's and a dump file's name), and which
 * sources can time it. Every component takes its names from here
 * (tests/facts checks that they agree); a new layer is a row of
 * OSP_LAYERS and its name below. Macros only, with no includes: BPF
 * programs (clang -target bpf) may include it too.
 */
#ifndef OSPROF_LAYERS_H
#define OSPROF_LAYERS_H

#define OSP_LAYER_FUSE "fuse"       /* the kernel's FUSE requests */
#define OSP_LAYER_FS "fs"           /* osprof-fs's handling of them */
#define OSP_LAYER_SYSCALL "syscall" /* the workload's system calls */
#define OSP_LAYER_LOWER "lower"     /* calls on the lower file system */
#define OSP_LAYER_BLOCK "block"     /* disk requests */
#define OSP_LAYER_IRQ "irq"         /* interrupt handlers */

/*
 * OSP_LAYERS(X) expands X(ID, name, ebpf, kmod) once per layer, top down
 * as osprof-report orders them: ID an upper-case identifier, name the
 * layer's name, ebpf 1 when an eBPF program times it (bpf/, in this
 * order: enum obp_layer), kmod 1 when osprof.ko does (a /proc/osprof
 * file, in this order: osp_kmod_layers). ebpf and kmod are the literal
 * tokens 0 or 1 (OSP_IF pastes them).
 */
#define OSP_LAYERS(X)                           \
	X(FUSE, OSP_LAYER_FUSE, 1, 0)           \
	X(FS, OSP_LAYER_FS, 0, 0)               \
	X(SYSCALL, OSP_LAYER_SYSCALL, 1, 0)     \
	X(LOWER, OSP_LAYER_LOWER, 1, 1)         \
	X(BLOCK, OSP_LAYER_BLOCK, 1, 1)         \
	X(IRQ, OSP_LAYER_IRQ, 1, 1)

/* How many layers (0 OSP_LAYERS(OSP_LAYER_ONE)), how many have ebpf, or
 * kmod, 1 (0 OSP_LAYERS(OSP_LAYER_EBPF_ONE)). */
#define OSP_LAYER_ONE(ID, name, ebpf, kmod) + 1
#define OSP_LAYER_EBPF_ONE(ID, name, ebpf, kmod) + (ebpf)
#define OSP_LAYER_KMOD_ONE(ID, name, ebpf, kmod) + (kmod)

/* OSP_IF(flag, ...): the rest when the literal token @flag is 1, nothing
 * when it is 0: for keeping some rows of a table. */
#define OSP_IF(flag, ...) OSP_IF_##flag(__VA_ARGS__)
#define OSP_IF_0(...)
#define OSP_IF_1(...) __VA_ARGS__
/* A row that a list leaves out. */
#define OSP_SKIP(...)

#endif /* OSPROF_LAYERS_H */
