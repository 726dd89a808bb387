/* SPDX-License-Identifier: MIT */
/*
 * The few kernel structures the BPF programs read, declared with only the
 * fields they use and preserve_access_index (CO-RE): libbpf relocates each
 * field access against the running kernel's BTF at load time, so the
 * build needs no vmlinux.h and does not depend on the build machine's
 * kernel. Field types only have to be the kernel's in size and kind.
 */
#ifndef OBP_KERN_H
#define OBP_KERN_H

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct pt_regs {
	unsigned long di; /* x86-64: a system call's first argument */
	unsigned long si; /* its second */
	unsigned long dx; /* its third */
	unsigned long r10; /* its fourth */
	unsigned long r8;  /* its fifth */
	unsigned long orig_ax; /* the call's number, at exit too */
};

struct task_struct {
	int pid;  /* thread id */
	int tgid; /* process id */
	struct files_struct *files;
};

/* From a descriptor to its mount: files->fdt->fd[n]->f_path.mnt, whose
 * struct mount holds it (container_of) and has the mount's id. */
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

struct vfsmount {
	struct super_block *mnt_sb;
};

struct path {
	struct vfsmount *mnt;
};

struct inode {
	unsigned long i_ino; /* a FUSE inode's is its node id */
	__u32 i_rdev;        /* dev_t of a device file */
};

struct file {
	struct path f_path;
	struct inode *f_inode;
};

struct mount {
	struct vfsmount mnt;
	int mnt_id; /* statx's STATX_MNT_ID, /proc/self/mountinfo's first field */
};

struct super_block {
	__u32 s_dev; /* dev_t: major << 20 | minor */
};

struct fuse_mount {
	struct super_block *sb;
};

struct fuse_in_header {
	__u32 len;
	__u32 opcode;
	__u64 unique;
	__u64 nodeid;
	__u32 uid;
	__u32 gid;
	__u32 pid;
};

struct fuse_req {
	struct {
		struct fuse_in_header h;
	} in;
	struct fuse_mount *fm;
};

struct gendisk {
	int major;
	int first_minor;
};

struct request_queue {
	struct gendisk *disk;
};

struct request {
	struct request_queue *q;
	__u32 cmd_flags; /* blk_opf_t: the operation in the low 8 bits */
};

struct irqaction {
	void *dev_id; /* what tells a shared line's handlers apart (free_irq) */
	const char *name;
};

#pragma clang attribute pop

#endif /* OBP_KERN_H */
