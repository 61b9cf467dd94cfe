// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzz the preference block: the codec's reassembly and libnaobody's
 * parser.
 *
 * Input: a mode byte, then data. Mode bit 0 clear: a stream of pieces,
 * each [u8 piece index][u8 length][bytes], fed to the reassembly. Mode bit
 * 0 set: a block (zero-padded or cut to 4,635 bytes), sealed with a good
 * CRC when bit 1 is set, parsed.
 *
 * Invariants: the reassembly counts each piece once and never more than
 * 145; a complete block checks as the CRC says. Entries stay inside the
 * block; a block that parses, written back and parsed again, gives the
 * same calibration, and a third writing gives the same bytes.
 */
#include <stdint.h>
#include <string.h>

#include "nb_codec.h"
#include <naobody/prefs.h>
#include "fuzz.h"

static struct nb_prefs_asm pa;
static uint8_t block[NAOBODY_PREFS_SIZE], b2[NAOBODY_PREFS_SIZE],
	       b3[NAOBODY_PREFS_SIZE];

static void pieces(const uint8_t *d, size_t n)
{
	unsigned int i, have;
	int r, m;

	nb_prefs_asm_init(&pa);
	while (n >= 2) {
		unsigned int piece = d[0], len = d[1];

		d += 2;
		n -= 2;
		if (len > n)
			len = n;
		r = nb_prefs_asm_put(&pa, piece, d, len);
		if (piece >= NB_PREFS_PIECES)
			FZ_ASSERT(r == -ERANGE);
		else if (len != nb_prefs_piece_len(piece))
			FZ_ASSERT(r == -EMSGSIZE);
		else
			FZ_ASSERT(r == 0 &&
				  !memcmp(pa.block + piece * NB_PREFS_PIECE, d,
					  len));
		d += len;
		n -= len;
	}
	for (i = 0, have = 0; i < NB_PREFS_PIECES; i++)
		have += !!(pa.have[i / 32] & (1U << (i % 32)));
	FZ_ASSERT(have == pa.pieces && pa.pieces <= NB_PREFS_PIECES);
	m = nb_prefs_asm_missing(&pa, 0);
	FZ_ASSERT(pa.pieces == NB_PREFS_PIECES ? m == -ENOENT :
		  m >= 0 && m < NB_PREFS_PIECES);
	r = nb_prefs_asm_check(&pa);
	if (pa.pieces < NB_PREFS_PIECES)
		FZ_ASSERT(r == -EAGAIN);
	else
		FZ_ASSERT(r == nb_prefs_crc_check(pa.block, sizeof(pa.block)));
}

static void parse(const uint8_t *d, size_t n, bool seal)
{
	struct nb_calibration cal, cal2;
	struct nb_pref e;
	size_t pos = 0, last = 0;
	int r, w, entries = 0;

	memset(block, 0, sizeof(block));
	memcpy(block, d, n < sizeof(block) ? n : sizeof(block));
	if (seal)
		nb_prefs_crc_seal(block, sizeof(block));
	/* the codec and libnaobody agree on the CRC */
	FZ_ASSERT((nb_prefs_crc_check(block, sizeof(block)) == 0) ==
		  (nb_prefs_verify(block, sizeof(block)) == 0));

	while ((r = nb_prefs_next(block, sizeof(block), &pos, &e)) > 0) {
		FZ_ASSERT(pos > last && pos <= NAOBODY_PREFS_SIZE - 4);
		FZ_ASSERT(strlen(e.key) > 0 && strlen(e.key) <= NB_PREF_KEY_MAX);
		last = pos;
		entries++;
	}
	r = nb_prefs_parse(block, sizeof(block), &cal);
	if (r < 0) {
		FZ_ASSERT(r == -EBADMSG);
		return;
	}
	FZ_ASSERT(r == entries);
	FZ_ASSERT(cal.boards <= NB_CAL_BOARDS);

	w = nb_prefs_build(&cal, b2, sizeof(b2));
	FZ_ASSERT(w >= 0);
	FZ_ASSERT(nb_prefs_crc_check(b2, sizeof(b2)) == 0);
	FZ_ASSERT(nb_prefs_parse(b2, sizeof(b2), &cal2) >= 0);
	FZ_ASSERT(memcmp(&cal, &cal2, sizeof(cal)) == 0);
	FZ_ASSERT(nb_prefs_build(&cal2, b3, sizeof(b3)) == w);
	FZ_ASSERT(memcmp(b2, b3, sizeof(b2)) == 0);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		parse(data + 1, size - 1, data[0] & 2);
	else
		pieces(data + 1, size - 1);
	return 0;
}
