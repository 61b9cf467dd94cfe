/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * chestboard-emu: the NAO6 chest board, played through FunctionFS and
 * dummy_hcd. One thread, one epoll loop; every file below owns one concern:
 *
 *   main.c       options, start-up, the loop, timers, shutdown
 *   usb.c        the gadget, its endpoints, AIO, bind and unbind
 *   ep0.c        control requests 0x13, 0x02, 0x14, 0x15
 *   exchange.c   a frame arrives: decode, record, answer
 *   body.c       the scripted body: pose, waveforms, touches, battery
 *   boards.c     the boards' handshake answers, preferences, id strings
 *   misbehave.c  misbehaviours on demand
 *   record.c     the recording of command frames
 *   control.c    the control socket
 *   physics.c    the physical body (--physics): MuJoCo, through
 *                libnbphysics (<physics/sim_physics.h>), naobodyd's too
 *   physics_remote.c  ... or on the host (--physics-host), nb-physics-server
 *   physics_wire.c    the messages to and from it
 *
 * Documentation/chestboard-emu.rst describes the behaviour.
 */
#ifndef CHESTBOARD_EMU_H
#define CHESTBOARD_EMU_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/aio_abi.h>
#include <linux/naobody.h>
#include <linux/usb/ch9.h>

#include <emuctl/emuctl.h>
#include <gadget/gadget.h>
#include <naobody/prefs.h>

#include "nb_codec.h"

#define EMU_OUT_BUF		4608	/* > NB_FRAME_MAX, a multiple of 64 */
#define EMU_IN_BUF		8192	/* room for over-long answers */
#define EMU_PACKET		64	/* full-speed bulk packets */
#define EMU_MAX_CLIENTS		8
#define EMU_MAX_TOUCHES		64
#define EMU_MAX_WAVES		32
#define EMU_PENDING_MAX		64	/* queued request answers */

#define EMU_SILENT_MS		100	/* a silent hold's end: past 20 ms (default) */
#define EMU_RECONNECT_MS	1000	/* a harakiri reset's return (default) */
#define EMU_EP0_TIMEOUT_MS	50	/* longest an ep0 answer may block */
#define EMU_MIN_ANSWER		65	/* see exchange.c: dummy_hcd's FIFO */

/* epoll tags */
#define EMU_TAG_EP0		1
#define EMU_TAG_CONTROL		4	/* the listening socket */
#define EMU_TAG_PHYSICS		16	/* --physics-host's stream */
#define EMU_TAG_CLIENT		100	/* client slot i: EMU_TAG_CLIENT + i */

/* Vendor requests (spec) */
#define EMU_REQ_VERSION		0x02
#define EMU_REQ_START		0x13
#define EMU_REQ_ACK		0x14
#define EMU_REQ_STATUS		0x15

/* The 0x15 status bits (the emulator's own, see the documentation) */
#define EMU_ST_BAD_FRAME	(1U << 0)	/* last frame failed CRC or table */
#define EMU_ST_NO_ANSWER	(1U << 1)	/* no answer was ready */
#define EMU_ST_DROPPED		(1U << 2)	/* an answer went unread */
#define EMU_ST_STARTED		(1U << 3)	/* 0x13 was received */

struct emu_opts {
	const char *name;		/* gadget and FunctionFS instance */
	const char *udc;
	const char *socket;
	uint16_t product;
	uint32_t version;		/* 0x02's answer, big endian on the wire */
	int ack_wait_ms;		/* how long 0x14 waits for its frame */
	int silent_ms;			/* how long a silent cycle holds 0x14 */
	int reconnect_ms;		/* a harakiri reset: bound again after */
	int in_size;			/* what the host reads: answer limit */
	int record;			/* frames kept */
	int iso;
	int all_boards;			/* boards answer without a start command */
	int board_version;		/* handshake configuration version */
	int ready_fd;
	int verbose;
	int follow;
	const char *body_id;
	const char *product_name;	/* the product string */
	int bulk_packet;		/* the bulk endpoints' wMaxPacketSize */
	const char *physics;		/* --physics MODEL, NULL: scripted body */
	const char *physics_host;	/* --physics-host PATH: the model there */
};

/*
 * One AIO transfer on an endpoint file. IN transfers need no buffer of
 * their own: FunctionFS copies a write's data when it is submitted.
 */
struct emu_io {
	struct iocb cb;
	uint8_t *buf;			/* OUT only */
	size_t cap;
	bool busy;
	bool cancelled;
	bool zlp;			/* IN: the zero-length packet after one */
	uint64_t seq;			/* IN: the frame it answers */
	size_t len;
};

#define EMU_IN_SLOTS		8	/* answers and ZLPs being withdrawn */
#define EMU_OUT_SLOTS		4	/* the bulk OUT read, and probed ones */

/* A request answer waiting for room in an answer frame. */
struct emu_pending {
	uint8_t type;			/* enum nb_msg_type to send */
	uint8_t board;
	uint8_t value;
	uint16_t piece;
};

enum emu_wave_shape { WAVE_NONE, WAVE_SINE, WAVE_SQUARE, WAVE_TRIANGLE,
		      WAVE_RAMP, WAVE_LINEAR };

struct emu_wave {
	int field;			/* index into the field table, -1 free */
	unsigned int index;
	int shape;
	int32_t amplitude;
	uint32_t period;
	uint64_t start;			/* cycle it started */
};

struct emu_touch {
	unsigned int bit;
	uint64_t start, end;		/* cycles [start, end) */
};

struct emu_body {
	struct naobody_sensors base;	/* values set; waves add to these */
	struct naobody_sensors now;	/* this cycle's values */
	struct emu_wave wave[EMU_MAX_WAVES];
	struct emu_touch touch[EMU_MAX_TOUCHES];
	uint32_t drain;			/* charge counts per 1000 cycles */
	uint64_t drain_acc;		/* in 1/1000 counts */
	int32_t target[NAOBODY_JOINTS];	/* last commanded positions */
	uint16_t stiffness[NAOBODY_JOINTS];
	uint64_t cycle;			/* the last frame's */
	uint64_t next;			/* the next frame's */
};

struct emu_boards {
	struct nb_calibration cal;		/* what the preferences hold */
	struct naobody_board hs[NB_BOARDS];	/* handshake answers */
	uint64_t started;			/* bit i: board i was started */
	uint64_t down;				/* bit i: board i is off the bus */
	uint8_t prefs[NB_PREFS_SIZE];
	char id[NAOBODY_CHEST_ID_SLOTS][NAOBODY_CHEST_ID_LEN + 1];
	uint8_t chest_led_op;		/* last chest mode op */
	bool bootloader;		/* the boot loader answers chest mode queries */
};

struct emu_misb {
	int left[__NB_EMU_MISB_MAX];	/* cycles to go; -1: until off */
	int arg[__NB_EMU_MISB_MAX];
};

struct emu_record {
	struct nb_emu_frame *ring;
	uint8_t (*raw)[512];		/* first bytes of each frame */
	unsigned int size;		/* entries */
};

struct emu_client {
	int fd;
	char line[512];
	size_t used;
	uint64_t wait_frames;		/* a pending "wait", 0: none */
	uint64_t wait_deadline;
};

enum emu_timer {
	T_ACK,				/* 0x14 waited long enough */
	T_RECONNECT,			/* bind again after a disconnect */
	T_STORM,			/* next step of a reconnect storm */
	T_HARAKIRI,			/* power off or reset */
	__T_MAX
};

/* What the physics cost (physics.c), for "physics" on the control socket. */
struct emu_physics_stats {
	uint64_t cycles;		/* steps of the model (physics.c's thread) */
	uint64_t model_ns;		/* model time run */
	uint64_t cpu_ns, cpu_max_ns;	/* the physics thread's CPU in it */
	uint64_t wall_ns, wall_max_ns;	/* the clock's time in it */
	uint64_t dt_max_ns;		/* the longest step run */
	uint64_t clamped;		/* steps cut to PHYS_MAX_STEP */
	uint64_t lag_ns;		/* clock time the model fell behind */
	uint64_t superseded;		/* frames' targets never stepped with */
};
struct emu_physics;
struct emu_remote;
struct sim_physics_sense;

struct emu {
	struct emu_opts opt;
	struct emu_physics *phys;	/* --physics, NULL: none */
	struct emu_remote *remote;	/* --physics-host, NULL: none */
	struct nb_gadget g;
	bool created, bound, enabled;
	bool quit;
	bool protocol_started;		/* 0x13 seen */

	int epfd, evfd, tfd, sigfd, ctlfd;
	aio_context_t aio;
	struct emu_io out[EMU_OUT_SLOTS], in[EMU_IN_SLOTS];
	unsigned int out_errors;		/* bulk OUT failures in a row */
	uint8_t frame[EMU_OUT_BUF];		/* the frame being handled */

	/* the exchange */
	uint64_t frames;		/* frames received; the next one's seq */
	uint64_t acked;			/* frames acknowledged (seq + 1) */
	uint32_t last_crc;		/* of the newest frame's bytes */
	bool last_bad;
	bool held;			/* a 0x14 waits for its frame */
	bool ep0_watched;		/* ep0 is in the epoll set */
	bool hold_silent;		/* ... and shall never be answered */
	struct usb_ctrlrequest held_setup;
	uint64_t held_since;		/* when the held 0x14 came */
	uint16_t status;		/* EMU_ST_* */
	uint8_t cycle_misb;		/* this cycle's misbehaviour */
	bool want_imu, want_battery, want_sonar;	/* this cycle's requests */
	struct emu_pending pending[EMU_PENDING_MAX];
	unsigned int npending;
	uint8_t answer[EMU_IN_BUF];

	struct emu_body body;
	struct emu_boards boards;
	struct emu_misb misb;
	struct emu_record rec;
	struct nb_emu_stats st;

	struct emu_client client[EMU_MAX_CLIENTS];
	uint64_t timer[__T_MAX];	/* deadlines, CLOCK_MONOTONIC ns; 0 off */
	unsigned int storm_left, storm_down_ms, storm_up_ms;
	uint8_t harakiri_op;
};

/* main.c */
uint64_t emu_now(void);
void emu_timer_set(struct emu *e, enum emu_timer t, uint64_t deadline);
void emu_log(struct emu *e, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* usb.c */
int usb_setup(struct emu *e);
void usb_teardown(struct emu *e);
int usb_bind(struct emu *e);
int usb_unbind(struct emu *e);
int usb_submit_out(struct emu *e);
bool usb_frame_in_flight(struct emu *e);
int usb_submit_in(struct emu *e, uint64_t seq, size_t len, bool zlp);
void usb_cancel_in(struct emu *e);
bool usb_in_queued(struct emu *e);
int usb_halt_in(struct emu *e);
int usb_halt_out(struct emu *e);
void usb_aio_events(struct emu *e);
void usb_disabled(struct emu *e);

/* ep0.c */
void ep0_init(void);
void ep0_events(struct emu *e);
void ep0_frame_arrived(struct emu *e);
void ep0_ack_timeout(struct emu *e);
void ep0_release(struct emu *e);

/* exchange.c */
void exchange_frame(struct emu *e, const uint8_t *buf, size_t len);
void exchange_answer_done(struct emu *e, uint64_t seq, long res);
void exchange_drop_answer(struct emu *e);
void exchange_fill(struct emu *e, struct nb_frame_builder *b, size_t reserve);
void exchange_pad(struct emu *e, struct nb_frame_builder *b);

/* body.c */
void body_init(struct emu_body *b);
void body_step(struct emu_body *b, uint64_t cycle, bool follow);
void body_command(struct emu_body *b, const struct naobody_actuators *a,
		  uint64_t targets);
int body_field(const char *name);
int body_set(struct emu_body *b, int field, unsigned int index, int32_t v);
int body_get(struct emu_body *b, int field, unsigned int index, int32_t *v);
int body_wave(struct emu_body *b, int field, unsigned int index, int shape,
	      int32_t amplitude, uint32_t period);
int body_wave_shape(const char *name);
int body_touch(struct emu_body *b, unsigned int bit, uint64_t start, uint32_t n);

/* boards.c */
int boards_init(struct emu_boards *bd, const struct emu_opts *o);
void boards_standing_body(const struct emu_boards *bd, struct naobody_sensors *s);
void boards_set_version(struct emu_boards *bd, int board, unsigned int v);
void boards_set_down(struct emu_boards *bd, int board, bool down);

/* misbehave.c */
int misb_pick(struct emu *e);
int misb_set(struct emu *e, unsigned int m, int cycles, int arg);
void misb_describe(struct emu *e, char *buf, size_t len);
int misb_answer(struct emu *e, int m, bool *zlp);

/* record.c */
int record_init(struct emu_record *r, unsigned int size);
void record_free(struct emu_record *r);
struct nb_emu_frame *record_new(struct emu_record *r, uint64_t seq,
				const uint8_t *raw, size_t len);
struct nb_emu_frame *record_find(struct emu_record *r, uint64_t seq);
unsigned int record_copy(struct emu_record *r, uint64_t from, uint64_t newest,
			 struct nb_emu_frame *out, unsigned int max);
const uint8_t *record_raw(struct emu_record *r, uint64_t seq, size_t *len);

/* control.c */
int control_setup(struct emu *e);
void control_teardown(struct emu *e);
void control_accept(struct emu *e);
void control_input(struct emu *e, int slot);
void control_frames_arrived(struct emu *e);
void control_timeouts(struct emu *e, uint64_t now);
uint64_t control_next_deadline(struct emu *e);

/* physics.c */
int physics_open(struct emu *e, const char *model);
void physics_close(struct emu *e);
bool physics_on(const struct emu *e);
void physics_sense(struct emu *e);
void physics_cycle(struct emu *e, uint64_t rx_ns);
int physics_report(struct emu *e, char *buf, size_t len);
void physics_reset_stats(struct emu *e);
int physics_push(struct emu *e, float fx, float fy, float seconds);
int physics_hold(struct emu *e, bool on, float height);
void physics_pose(struct emu *e, float pose[NAOBODY_JOINTS]);

/* physics_remote.c: the model on the host, behind physics.c's seams */
int remote_open(struct emu *e, const char *path);
void remote_close(struct emu *e);
void remote_input(struct emu *e);
bool remote_state(struct emu *e, struct sim_physics_sense *s);
void remote_cycle(struct emu *e, const float target[NAOBODY_JOINTS],
		  const float stiffness[NAOBODY_JOINTS]);
int remote_report(struct emu *e, char *buf, size_t len);
void remote_reset_stats(struct emu *e);
void remote_push(struct emu *e, float fx, float fy, float seconds);
void remote_hold(struct emu *e, bool on, float height);

#endif
