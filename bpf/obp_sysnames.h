/* SPDX-License-Identifier: MIT */
/* The x86-64 system call names by number (generated: gen_sysnames.sh). */
#ifndef OBP_SYSNAMES_H
#define OBP_SYSNAMES_H
#define OBP_SYSNAMES_MAX 1024
extern const char *const obp_sysnames[OBP_SYSNAMES_MAX];
#endif
