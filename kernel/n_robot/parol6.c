// SPDX-License-Identifier: GPL-2.0-only
/*
 * PAROL6 framing.
 *
 * A frame is FF FF FF, a length byte counting what follows, the payload and
 * the end bytes 01 02. There is no checksum (the "CRC" byte is a constant the
 * firmware ignores), so the length and the end bytes are all there is to
 * check: telemetry is accepted only with length 56, and anything else makes
 * the receiver slide one byte, because FF FF FF also occurs inside payloads
 * (a position of -1, the homed byte...).
 *
 * The firmware's own parser trusts the length byte: length 0 wedges it until
 * reset, and a stray FF before a header makes it swallow 255 bytes. So the
 * only frame we ever send is a command of length 52.
 */
#include "parol6.h"

#define PAROL6_START	0xFF
#define PAROL6_END1	0x01
#define PAROL6_END2	0x02

static bool parol6_is_start(u8 b)
{
	return b == PAROL6_START;
}

static enum nrf_verdict parol6_check(struct nrf *f, const u8 *c, u32 n,
				     u32 need, u32 *arg)
{
	const u32 len = N_ROBOT_PAROL6_TELEMETRY_FRAME;

	if (n >= 2 && c[1] != PAROL6_START) {
		*arg = NRF_GARBAGE;
		return NRF_BAD;
	}
	if (n >= 3 && c[2] != PAROL6_START) {
		*arg = NRF_GARBAGE;
		return NRF_BAD;
	}
	if (n < 4) {
		*arg = 4;
		return NRF_NEED;
	}
	if (c[3] != N_ROBOT_PAROL6_TELEMETRY_LEN) {
		*arg = NRF_LENGTH;
		return NRF_BAD;
	}
	if (n < len) {
		*arg = len;
		return NRF_NEED;
	}
	if (c[len - 2] != PAROL6_END1 || c[len - 1] != PAROL6_END2) {
		*arg = NRF_MARKER;
		return NRF_BAD;
	}
	*arg = len;
	return NRF_FRAME;
}

const struct nrf_proto parol6_proto = {
	.name = "parol6",
	.max_frame = N_ROBOT_PAROL6_TELEMETRY_FRAME,
	.is_start = parol6_is_start,
	.check = parol6_check,
};

bool parol6_known_command(u8 cmd)
{
	switch (cmd) {
	case 255:	/* idle */
	case 123:	/* jog */
	case 156:	/* go to position with speed */
	case 100:	/* home */
	case 101:	/* enable */
	case 102:	/* disable */
	case 103:	/* clear error */
	case 69:	/* repeatability test */
		return true;
	default:
		return false;
	}
}

int parol6_tx_check(const u8 *p, size_t len)
{
	if (len != N_ROBOT_PAROL6_CMD_FRAME)
		return -EINVAL;
	if (p[0] != PAROL6_START || p[1] != PAROL6_START ||
	    p[2] != PAROL6_START || p[3] != N_ROBOT_PAROL6_CMD_LEN)
		return -EINVAL;
	if (p[len - 2] != PAROL6_END1 || p[len - 1] != PAROL6_END2)
		return -EINVAL;
	if (!parol6_known_command(p[PAROL6_CMD_OFF_COMMAND]))
		return -EINVAL;
	return 0;
}
