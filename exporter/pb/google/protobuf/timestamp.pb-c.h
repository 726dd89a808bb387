/* SPDX-License-Identifier: MIT */
/*
 * metrics.pb-c.h includes the generated code of the proto it imports,
 * google/protobuf/timestamp.proto, by that path; meson's generated files
 * cannot sit in subdirectories, so protoc-c's output for it is
 * timestamp.pb-c.h in the build directory and this forwards to it.
 */
#include <timestamp.pb-c.h> /* not "": that would find this file */
