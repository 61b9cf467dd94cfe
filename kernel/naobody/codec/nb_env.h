/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The codec's environment: the one place where the kernel and userspace
 * builds of kernel/naobody/codec differ.
 *
 * The codec uses only these from its environment:
 *
 *   u8 u16 u32 u64 s8 s16 s32 s64, bool, size_t   integer types
 *   get_unaligned_be16/be32, put_unaligned_be16/be32   byte order
 *   memcpy, memmove, memset                        <string.h>
 *   EBADMSG EPROTO EMSGSIZE ENOENT ENOSPC E2BIG ERANGE EINVAL EAGAIN
 *   ARRAY_SIZE, BUILD_BUG_ON, BIT, BIT_ULL, __always_inline (glibc has it)
 *   nb_env_crc32(crc, buf, len)                    zlib's crc32()
 *
 * In the kernel they come from the kernel's headers; crc32 is crc32_le()
 * from lib/crc32.c (CONFIG_CRC32), seeded and finished with ~0 so that it
 * computes zlib's function. In userspace the integer types are the uapi
 * __u8..__s64 from <linux/types.h>, byte order is done a byte at a time,
 * errno values are libc's, and crc32 is zlib's: link with -lz.
 * Documentation/chest-board-protocol.rst ("Building the codec") says more.
 */
#ifndef _NB_ENV_H
#define _NB_ENV_H

#ifdef __KERNEL__

#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/types.h>
/*
 * Linux 6.12 moved the unaligned helpers from <asm/unaligned.h> to
 * <linux/unaligned.h>. Test for the header rather than LINUX_VERSION_CODE
 * (which checkpatch rejects), so that backports work too. sparse 0.6.4
 * has no __has_include and takes the <asm/unaligned.h> branch, which is
 * right for the 6.1 kernel we build against.
 */
#ifdef __has_include
#if __has_include("linux/unaligned.h")
#define NB_ENV_LINUX_UNALIGNED
#endif
#endif
#ifdef NB_ENV_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* zlib's crc32(crc, buf, len): the kernel's crc32_le() pre- and post-inverted */
static inline u32 nb_env_crc32(u32 crc, const void *buf, size_t len)
{
	return crc32_le(crc ^ ~0U, buf, len) ^ ~0U;
}

#else /* userspace */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <linux/types.h>
#include <zlib.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#ifndef BUILD_BUG_ON
#define BUILD_BUG_ON(cond) static_assert(!(cond), #cond)
#endif
#ifndef BIT
#define BIT(nr) (1UL << (nr))
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr) (1ULL << (nr))
#endif

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline void put_unaligned_be16(u16 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 8;
	b[1] = v;
}

static inline void put_unaligned_be32(u32 v, void *p)
{
	u8 *b = p;

	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
}

static inline u32 nb_env_crc32(u32 crc, const void *buf, size_t len)
{
	return (u32)crc32_z(crc, buf, len);
}

#endif /* __KERNEL__ */
#endif /* _NB_ENV_H */
