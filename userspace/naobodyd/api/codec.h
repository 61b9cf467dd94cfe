/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * naobodyd: the robot API's messages (Documentation/robot-api.rst) in MessagePack,
 * with field names, enums externally tagged as rmp-serde writes them:
 * "Unit", {"Newtype": value}, {"Struct": {"field": value, ...}}.
 *
 * Decoding is lenient where the spec allows it and strict on values:
 *   - unknown variants and fields are reported, never fatal;
 *   - a struct may also come as an array of its fields in order (what
 *     rmp-serde writes without field names);
 *   - a unit variant may also come as {"Unit": nil};
 *   - a missing Option is nil; a missing head is Center, speed Normal;
 *   - a value of the wrong type or out of range makes the message invalid,
 *     with a message naming the field.
 */
#ifndef NAOBODYD_CODEC_H
#define NAOBODYD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <msgpack.h>

#include <motion/motion.h>

#include "leds.h"
#include "outq.h"

enum to_robot_kind {
	TR_HELLO,
	TR_HEARTBEAT,
	TR_POWER,
	TR_MOTION,
	TR_LEDS,
	TR_SPEAKER,
	TR_SPEAKER_CLEAR,
	TR_VOLUME,
	TR_SUBSCRIBE,
	TR_STOP,
};

enum decode_result {
	DECODE_OK,
	DECODE_UNKNOWN,		/* not a variant this daemon knows */
	DECODE_INVALID,		/* a known variant with a bad value */
};

enum camera { CAMERA_TOP, CAMERA_BOTTOM };

struct subscription {
	bool state;
	float rate;		/* Hz; 0 when not given (the default 20 Hz) */
	bool cameras[2];	/* enum camera */
	float camera_fps;
	bool microphone;
};

struct to_robot {
	enum to_robot_kind kind;
	char variant[32];	/* the variant's name, for log lines */
	char error[160];	/* DECODE_UNKNOWN, DECODE_INVALID: why */
	char unknown[96];	/* unknown field names, ignored */
	union {
		struct {
			uint32_t version;
			char client[64];
		} hello;
		enum power_req power;
		struct motion_req motion;
		struct {
			bool all_back;		/* Leds: nil */
			struct leds_req req;
		} leds;
		struct {
			size_t samples;
		} speaker;
		struct {
			bool has_percent;
			uint8_t percent;	/* clamped to 100 */
			bool has_muted;
			bool muted;
		} volume;
		struct subscription subscribe;
	};
};

enum decode_result codec_decode(const msgpack_object *o, struct to_robot *m);

/*
 * A Speaker frame straight from its bytes, without a MessagePack object
 * per sample: a frame of 8 MiB holds up to about 8 million samples, and
 * costs nothing but its bytes. Returns DECODE_OK or DECODE_INVALID (with
 * m->error naming the sample), or -1 when the frame is not a Speaker of
 * the usual shapes ({"Speaker": {"samples": [...]}}, {"Speaker": [[...]]},
 * {"Speaker": [...]}) or not well formed: the generic path then decides.
 */
int codec_decode_speaker(const uint8_t *p, size_t len, struct to_robot *m);

/*
 * The samples of a frame accepted as a Speaker (DECODE_OK from either
 * decoder), into out (at most max of them): how many the frame holds.
 */
size_t codec_speaker_samples(const uint8_t *p, size_t len, int16_t *out, size_t max);

/* What a State carries. */
struct state_view {
	double time;			/* s since the epoch, of the body state */
	const char *primary_state;
	const char *fall_state;
	const char *motion;
	const struct nb_sensors *s;
	const float *odometry;		/* x, y (m), heading (rad); NULL: none */
	float odometry_uncertainty;	/* m, with odometry */
	uint32_t hot;			/* bit j: LoLA joint j is hot (motion/care.h) */
};

/* Touch sensors as the API groups them, and their Event names. */
#define API_TOUCHES 8
extern const char *const api_touch_name[API_TOUCHES];
extern const char *const api_touch_event[API_TOUCHES];
uint32_t api_touch_bits(const struct nb_sensors *s);	/* bit i: api_touch_name[i] */

/* Each appends one frame (length prefix and value) to b. */
int codec_hello(struct buf *b, uint32_t version, const char *body_id,
		const char *head_id, bool simulated, bool echo_cancellation);
int codec_state(struct buf *b, const struct state_view *v);
int codec_event_touch(struct buf *b, int api_touch, bool pressed);
int codec_event_fall(struct buf *b, const char *state);
int codec_event_watchdog(struct buf *b, bool active);
/*
 * Temperature {joint, hot, temperature, stiffness}: LoLA joint j became
 * hot (its stiffness held at stiffness at most) or cooled down (stiffness 1).
 */
int codec_event_temperature(struct buf *b, int lola_joint, bool hot, float celsius,
			    float stiffness);
/* Image {camera, time, width, height, jpeg}: jpeg as MessagePack bin. */
int codec_image(struct buf *b, const char *camera, double time, uint32_t width,
		uint32_t height, const uint8_t *jpeg, size_t len);
/* Microphone {time, samples}: time is the first sample's, s since the epoch. */
int codec_microphone(struct buf *b, double time, const int16_t *samples, size_t n);

/*
 * The Error event: what the robot tells a client about one of its messages
 * (Documentation/robot-api.rst, "Errors"). One table, api_errors[], gives
 * each error its kind, its reason and the sentence a person reads.
 */
enum api_error {
	/* kind UnknownMessage: a variant this robot does not know; ignored */
	AERR_UNKNOWN_MESSAGE,
	/* kind UnknownField: a field it does not know; the rest applied */
	AERR_UNKNOWN_FIELD,
	/* kind BadValue: a known message with a bad value; ignored whole */
	AERR_BAD_VALUE,
	/* kind Malformed: not MessagePack, or a frame too long; then closed */
	AERR_MALFORMED,
	/* kind Handshake: anything but a good Hello first; then closed */
	AERR_HANDSHAKE,
	/* kind Version: another version in Hello; after the Hello, then closed */
	AERR_VERSION,
	/* kind Refused: the message was understood and not carried out */
	AERR_STOPPED,		/* Wake while the death switch is latched */
	AERR_UNCALIBRATED,	/* Wake while the body's calibration is not read */
	AERR_FALLEN,		/* Wake while down on a body that cannot get up */
	AERR_WALKING_DISABLED,	/* WalkTo/WalkToward on a body that does not walk */
	AERR_NOT_CONTROLLER,	/* a command before Hello: not the controller */
	AERR_HELLO_AGAIN,	/* Hello after the handshake */
	AERR_NO_SPEAKER,	/* Speaker, SpeakerClear without a speaker */
	AERR_SPEAKER_FULL,	/* Speaker that does not fit in the queue */
	AERR_NO_MIXER,		/* Volume without a mixer */
	AERR_MIXER_REFUSED,	/* Volume the mixer refused */
	AERR_NO_MICROPHONES,	/* Subscribe.microphone without microphones */
	AERR_LOW_BATTERY,	/* Wake while the battery is low (motion/care.h) */
	AERR_COUNT
};

struct api_error_info {
	const char *kind;	/* Error.kind */
	const char *reason;	/* Error.reason; NULL: nil */
	const char *command;	/* the command it is about when always the same; NULL: given */
	const char *message;	/* the sentence; "%s" takes the detail, when it has one */
};

extern const struct api_error_info api_errors[AERR_COUNT];

/*
 * {"Event": {"Error": {kind, reason, command, field, message, versions,
 * suppressed}}}. command and field may be NULL (nil); detail fills the
 * table's "%s" (NULL: ""); versions is the one version this robot speaks;
 * suppressed counts the errors not sent before this one (the per-client
 * limit).
 */
int codec_event_error(struct buf *b, enum api_error e, const char *command,
		      const char *field, const char *detail, uint32_t version,
		      uint32_t suppressed);

/*
 * The field an error of codec_decode() names ("Motion.WalkTo.x" of
 * "Motion.WalkTo.x: expected a number") into out; "" when it names none.
 */
void codec_error_field(const char *error, char *out, size_t n);

#endif
