/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * PAROL6 framing: FF FF FF, a length, the payload, 01 02. Pure C, shared
 * with userspace; see framer.h.
 */
#ifndef _N_ROBOT_PAROL6_H
#define _N_ROBOT_PAROL6_H

#include "framer.h"

/* Offsets in a command frame (from the start of the frame). */
#define PAROL6_CMD_OFF_COMMAND	40
#define PAROL6_CMD_OFF_CRC	53

extern const struct nrf_proto parol6_proto;

/* Is this a command byte the firmware knows? */
bool parol6_known_command(u8 cmd);
/* Validate a command frame the host wants to send; 0 or a negative errno. */
int parol6_tx_check(const u8 *p, size_t len);

#endif /* _N_ROBOT_PAROL6_H */
