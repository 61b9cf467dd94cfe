/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libmpread: a structural check of MessagePack before msgpack-c sees it.
 *
 * msgpack-c's unpacker allocates room for every element of an array or map
 * as soon as it reads the header, before the elements arrive: five bytes
 * that claim 16 million elements cost 400 MB. This walk allocates nothing;
 * it finds where one value ends (for the LoLA stream, which has no
 * framing) and refuses, before any allocation:
 *   - a container that claims more elements than bytes are left,
 *   - a string, binary or extension longer than the bytes left,
 *   - nesting deeper than MP_MAX_DEPTH,
 *   - more than max_values values in all,
 *   - the reserved byte 0xc1.
 * A value that passes is well formed, and unpacking it costs at most about
 * 48 bytes per value.
 */
#ifndef MPREAD_MPREAD_H
#define MPREAD_MPREAD_H

#include <stddef.h>
#include <stdint.h>

#define MP_MAX_DEPTH	16

/*
 * Walk one value at the start of data[0..len). limit is the most bytes the
 * value may take (len for a complete frame; the buffer's capacity for a
 * stream). Returns the value's length, 0 when more bytes are needed, or -1
 * with *why set when the bytes can never form an acceptable value.
 */
long mp_check(const uint8_t *data, size_t len, size_t limit, size_t max_values,
	      const char **why);

#endif
