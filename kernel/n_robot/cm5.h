/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * CM-5 (BRBrain firmware) framing: the receive rules and the checks on the
 * packets the host writes. Pure C, shared with userspace; see framer.h.
 */
#ifndef _N_ROBOT_CM5_H
#define _N_ROBOT_CM5_H

#include "framer.h"

struct cm5_format {
	u32 count;
	struct n_robot_cm5_entry entry[N_ROBOT_CM5_MAX_DYNAMIXELS];
};

/* What the host side has told the firmware: formats, and the model per id. */
struct cm5_state {
	struct cm5_format fmt[2];	/* N_ROBOT_CM5_FORMAT_READ, _WRITE */
	u8 model[256];
};

extern const struct nrf_proto cm5_proto;

/* The BRBrain checksum: the inverse of the byte sum. */
u8 cm5_checksum(const u8 *p, size_t n);
/* Is register address addr read-only on this model? */
bool cm5_read_only(u8 model, u32 addr);
/* Sum of the byte counts of a format. */
u32 cm5_format_bytes(const struct cm5_format *fmt);

/* Both formats empty and known, every id an AX-12, nothing outstanding. */
void cm5_state_init(struct cm5_state *s, struct nrf *rx);
/*
 * Validate a format (0, -EINVAL, -EMSGSIZE or -EACCES, see the uapi
 * header) and, if valid, make it the current one.
 */
int cm5_set_format(struct cm5_state *s, struct nrf *rx, u32 which,
		   const struct n_robot_cm5_entry *entry, u32 count);
/* Validate a packet the host wants to send; 0 or a negative errno. */
int cm5_tx_check(const struct cm5_state *s, const u8 *p, size_t len);
/*
 * -ESTALE if p (which passed cm5_tx_check()) is a READ_DATA or WRITE_DATA
 * and that format is unknown: sent but not answered by a clean STATUS.
 */
int cm5_tx_ready(const struct nrf *rx, const u8 *p, size_t len);
/* The packet passed cm5_tx_check() and is being sent: learn from it. */
void cm5_tx_commit(struct cm5_state *s, struct nrf *rx, const u8 *p,
		   size_t len);

#endif /* _N_ROBOT_CM5_H */
