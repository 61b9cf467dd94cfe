/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel types the n_robot framers use, for their userspace builds
 * (libraries, unit tests, fuzzers, benchmark). The kernel build never sees
 * this file.
 */
#ifndef _N_ROBOT_KTYPES_H
#define _N_ROBOT_KTYPES_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* _N_ROBOT_KTYPES_H */
