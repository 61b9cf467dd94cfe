// SPDX-License-Identifier: GPL-2.0-only
/*
 * The preference block: 4,635 bytes read from the chest board in 32-byte
 * pieces (spec), the last one 27 bytes long, checked with a CRC. Where the
 * CRC sits is provisional (nb_layout.h: its last four bytes, big endian,
 * over the bytes before them). Parsing the typed key-value pairs is
 * userspace's job (libnaobody, <naobody/prefs.h>).
 */
#include "nb_codec.h"
#include "nb_layout.h"

/**
 * nb_prefs_asm_init() - start reassembling a preference block
 * @p: the reassembly, about 4.7 KB: keep it off the stack
 *
 * Context: any.
 */
void nb_prefs_asm_init(struct nb_prefs_asm *p)
{
	memset(p, 0, sizeof(*p));
}

/**
 * nb_prefs_asm_put() - store a piece
 * @p: the reassembly
 * @piece: the piece's index (struct nb_msg_info.piece)
 * @data: its bytes
 * @len: their number: nb_prefs_piece_len(@piece)
 *
 * A piece that arrives again replaces the earlier copy.
 *
 * Context: any.
 * Return: 0; -ERANGE for an index past the last piece; -EMSGSIZE for a
 * wrong length.
 */
int nb_prefs_asm_put(struct nb_prefs_asm *p, unsigned int piece,
		     const u8 *data, size_t len)
{
	if (piece >= NB_PREFS_PIECES)
		return -ERANGE;
	if (len != nb_prefs_piece_len(piece))
		return -EMSGSIZE;
	memcpy(p->block + piece * NB_PREFS_PIECE, data, len);
	if (!(p->have[piece / 32] & BIT(piece % 32))) {
		p->have[piece / 32] |= BIT(piece % 32);
		p->pieces++;
	}
	return 0;
}

/**
 * nb_prefs_asm_missing() - the next piece to ask for
 * @p: the reassembly
 * @from: where to start looking; the search wraps around
 *
 * Context: any.
 * Return: the index of a missing piece, or -ENOENT when all have arrived.
 */
int nb_prefs_asm_missing(const struct nb_prefs_asm *p, unsigned int from)
{
	unsigned int i, piece;

	if (p->pieces >= NB_PREFS_PIECES)
		return -ENOENT;
	for (i = 0; i < NB_PREFS_PIECES; i++) {
		piece = (from + i) % NB_PREFS_PIECES;
		if (!(p->have[piece / 32] & BIT(piece % 32)))
			return piece;
	}
	return -ENOENT;
}

/**
 * nb_prefs_asm_check() - is the block complete and sound?
 * @p: the reassembly
 *
 * Context: any; computes a CRC over 4,631 bytes.
 * Return: 0; -EAGAIN while pieces are missing; -EBADMSG if the block's CRC
 * does not match.
 */
int nb_prefs_asm_check(const struct nb_prefs_asm *p)
{
	if (p->pieces < NB_PREFS_PIECES)
		return -EAGAIN;
	return nb_prefs_crc_check(p->block, sizeof(p->block));
}

/**
 * nb_prefs_crc_check() - check a whole preference block's CRC
 * @block: the block
 * @len: its length, NB_PREFS_SIZE
 *
 * Context: any.
 * Return: 0; -EMSGSIZE for a wrong length; -EBADMSG for a CRC mismatch.
 */
int nb_prefs_crc_check(const u8 *block, size_t len)
{
	if (len != NB_PREFS_SIZE)
		return -EMSGSIZE;
	if (nb_env_crc32(0, block, NB_PREFS_CRC_OFF) !=
	    get_unaligned_be32(block + NB_PREFS_CRC_OFF))
		return -EBADMSG;
	return 0;
}

/**
 * nb_prefs_crc_seal() - write a preference block's CRC, for the emulator
 * @block: the block
 * @len: its length; nothing is written unless it is NB_PREFS_SIZE
 *
 * Context: any.
 */
void nb_prefs_crc_seal(u8 *block, size_t len)
{
	if (len != NB_PREFS_SIZE)
		return;
	put_unaligned_be32(nb_env_crc32(0, block, NB_PREFS_CRC_OFF),
			   block + NB_PREFS_CRC_OFF);
}
