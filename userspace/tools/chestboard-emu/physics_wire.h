/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The physics on the host (nb-physics-server) and the emulator that uses it
 * (chestboard-emu --physics-host): the messages on the stream between them.
 *
 * Every message is a 16-byte header and a payload, all little-endian:
 *
 *   u32 magic    PHYSW_MAGIC ("NBPH")
 *   u16 version  PHYSW_VERSION; any other is refused
 *   u16 type     PHYSW_REQUEST (emulator to server) or PHYSW_REPLY
 *   u32 length   the payload's bytes: exactly what this version's tables
 *                make for the type, never more than PHYSW_MAX_PAYLOAD
 *   u32 seq      the request's number; a reply carries its request's
 *
 * A request (struct physw_request, request_fields[] in physics_wire.c):
 * flags (PHYSW_F_*), the model seconds to run, the 25 joints' targets (rad)
 * and stiffnesses (0..1) in LoLA's order, a push (fx, fy N, seconds) and a
 * hold height (m). A reply (struct physw_reply, reply_fields[]): the
 * fields of struct sim_physics_sense one by one, the torso's pose, the
 * model time the server ran for the requests it took, the server's CPU for
 * them and how many requests it folded into the one step.
 *
 * The payloads are field by field from those tables, not struct copies: a
 * field added to struct sim_physics_sense is one line of sense_fields[]
 * (and changes the length, so an emulator and server built apart refuse
 * each other's messages instead of misreading them).
 */
#ifndef CHESTBOARD_EMU_PHYSICS_WIRE_H
#define CHESTBOARD_EMU_PHYSICS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <naobody/body.h>
#include <physics/sim_physics.h>

#define PHYSW_MAGIC		0x4850424eu	/* "NBPH" */
#define PHYSW_VERSION		1
#define PHYSW_HEADER		16
#define PHYSW_MAX_PAYLOAD	4096		/* a length above: not ours */

enum physw_type {
	PHYSW_REQUEST = 1,
	PHYSW_REPLY = 2,
};

#define PHYSW_F_START	(1u << 0)	/* a new body: target is its pose */
#define PHYSW_F_PUSH	(1u << 1)	/* push[] applies */
#define PHYSW_F_HOLD	(1u << 2)	/* lift it hold_height m */
#define PHYSW_F_RELEASE	(1u << 3)	/* let it go */
#define PHYSW_F_ALL	0xfu

struct physw_request {
	uint32_t flags;
	float seconds;
	float target[NAOBODY_JOINTS];		/* rad */
	float stiffness[NAOBODY_JOINTS];	/* 0..1 */
	float push[3];				/* fx, fy (N), seconds */
	float hold_height;			/* m */
};

struct physw_reply {
	struct sim_physics_sense sense;
	float torso[4];				/* x, y, z (m), yaw (rad) */
	float model_seconds;			/* run for the requests taken */
	uint32_t cpu_us;			/* the server's CPU for them */
	uint32_t folded;			/* requests taken in this step */
	float mass;				/* kg, the model's */
};

/* A decoded message: its header's type and seq, and one of the bodies. */
struct physw_msg {
	enum physw_type type;
	uint32_t seq;
	union {
		struct physw_request req;
		struct physw_reply rep;
	};
};

/* The payload's length for a type (0: not a type of this version). */
size_t physw_payload_len(enum physw_type type);

/*
 * Encode m into buf (len bytes): the message's total length, or -ENOSPC.
 * Floats go as their IEEE-754 bits, little-endian.
 */
int physw_encode(const struct physw_msg *m, uint8_t *buf, size_t len);

/*
 * Decode the message at the start of buf (len bytes received so far):
 *   > 0         a message of that many bytes, in *m;
 *   0           not a whole message yet (read more);
 *   -EBADMSG    not a message: wrong magic;
 *   -EPROTONOSUPPORT  another version;
 *   -EMSGSIZE   a length above PHYSW_MAX_PAYLOAD, or not its type's;
 *   -EPROTO     an unknown type, or a request with unknown flags;
 *   -EDOM       a float that is NaN or infinite (it would poison the
 *               model, or the counts made from it).
 * On an error the stream has lost its framing: the caller drops it (the
 * server closes the connection; the emulator discards up to the next
 * magic, physw_resync()).
 */
int physw_decode(const uint8_t *buf, size_t len, struct physw_msg *m);

/* Where the next PHYSW_MAGIC starts after buf[0] (len if none). */
size_t physw_resync(const uint8_t *buf, size_t len);

#endif
