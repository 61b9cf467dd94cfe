// SPDX-License-Identifier: GPL-2.0-only
/*
 * chestboard-emu-capture: the chest board playing a layout loaded from a
 * file, recorded as naocap(8) would record a real robot: a usbmon pcap of
 * HAL's exchange with the board, the LoLA log of the same moments, the
 * marks of the guided script, the versions.
 *
 * It exists so that naoctl verify is tested against a board whose layout
 * it does not know. So nothing here comes from the codec: the messages are
 * built from the layout file's offsets, widths, byte orders and scales; the
 * frames' length table and CRC follow the file's reading and coverage; the
 * message lengths, the board's joints and the bit positions are written
 * here from Documentation/chest-board-protocol.rst. The body is physical
 * (radians, m/s^2, kilograms, metres, a tilt, a lifted foot, a person in
 * front of the sonar, a little sensor noise), and LoLA's side is what HAL
 * would decode from the planted layout: the counts times the planted
 * scale.
 *
 * HAL's half is modelled after the spec: the start-up (device descriptor,
 * 0x13, 0x02, the 00 20 handshake of every board, the start commands),
 * then every 12 ms bulk OUT, 0x14, bulk IN. The recorder's half: it
 * answers each LoLA packet with the measured positions, stiffness 0 and a
 * colour sequence on the chest and feet (what naocap sends).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pcap/pcap.h>
#include <pcap/usb.h>

#include <nbtool/version.h>

#include <capture/capture.h>

#define CYCLE_NS	12000000ull
#define G		9.81
#define NBOARDS		17

/* Documentation/chest-board-protocol.rst, "The boards" */
enum { JOINT, HAND, FOOT };
static const struct gen_board {
	const char *name;
	int kind;
	int joints;
	int joint[2];		/* LoLA joint indices */
	int touch;		/* first LoLA touch index */
	int fsr;		/* first LoLA FSR index */
} boards[NBOARDS] = {
	{ "Head", JOINT, 2, { 0, 1 }, -1, -1 },
	{ "LShoulder", JOINT, 2, { 2, 3 }, -1, -1 },
	{ "LArm", JOINT, 2, { 4, 5 }, -1, -1 },
	{ "LHand", HAND, 2, { 6, 23 }, 6, -1 },
	{ "RShoulder", JOINT, 2, { 18, 19 }, -1, -1 },
	{ "RArm", JOINT, 2, { 20, 21 }, -1, -1 },
	{ "RHand", HAND, 2, { 22, 24 }, 11, -1 },
	{ "LHip", JOINT, 2, { 7, 8 }, -1, -1 },
	{ "LThigh", JOINT, 1, { 9 }, -1, -1 },
	{ "LShin", JOINT, 1, { 10 }, -1, -1 },
	{ "LAnkle", JOINT, 2, { 11, 12 }, -1, -1 },
	{ "RHip", JOINT, 1, { 13 }, -1, -1 },
	{ "RThigh", JOINT, 1, { 14 }, -1, -1 },
	{ "RShin", JOINT, 1, { 15 }, -1, -1 },
	{ "RAnkle", JOINT, 2, { 16, 17 }, -1, -1 },
	{ "LFoot", FOOT, 0, { 0 }, 4, 0 },
	{ "RFoot", FOOT, 0, { 0 }, 9, 4 },
};

/* Message lengths (the same page); the layout file moves fields, not these */
#define LEN_IMU		19
#define LEN_BAT		11
#define LEN_SONAR	7
#define LEN_BUTTON	4
#define LEN_JOINT(n)	(3 + 6 * (n))
#define LEN_HAND	16
#define LEN_FOOT	12
#define LEN_HS		35
#define LEN_ACK		4
#define LEN_TARGETS(n)	(3 + 4 * (n))
#define LEN_FOOT_LEDS	6
#define LEN_DEV_REQ	3
#define LEN_SONAR_REQ	4
#define LEN_CHEST_LED	6
#define LEN_HS_REQ	4
#define LEN_START	4

static const char *const script[] = {
	"rest", "press the chest button", "touch the front head pad",
	"lift the left foot", "tilt the robot forward",
	"move the left arm by hand with stiffness off", "rest",
};
#define STEPS	(sizeof(script) / sizeof(script[0]))

struct gen {
	struct layout lay;
	pcap_dumper_t *dump;
	FILE *lola;
	uint64_t urb;
	uint16_t bus, dev;
	uint64_t seed;
	struct lola_command cmd;	/* the recorder's last command */
	bool have_cmd;
	struct lola_sensors last;
	char err[256];
};

static double noise(struct gen *g)
{
	g->seed = g->seed * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(g->seed >> 11) / (double)(1ull << 53) - 0.5;
}

static const struct lay_field *field(struct gen *g, const char *name)
{
	const struct lay_field *f = layout_field_c(&g->lay, name);

	if (!f) {
		fprintf(stderr, "chestboard-emu-capture: the layout has no field %s\n", name);
		exit(2);
	}
	return f;
}

/* factor: LoLA's unit per the field's unit (2 pi for turns...) */
static int64_t to_counts(const struct lay_field *f, double v, double factor)
{
	double c = v / factor * (double)f->den / (double)f->num;
	int64_t lo, hi, r = llround(c);

	if (f->is_signed) {
		hi = (1ll << (8 * f->width - 1)) - 1;
		lo = -hi - 1;
	} else {
		hi = (int64_t)((1ull << (8 * f->width)) - 1);
		lo = 0;
	}
	return r < lo ? lo : r > hi ? hi : r;
}

static double from_counts(const struct lay_field *f, int64_t c, double factor)
{
	return (double)c * (double)f->num / (double)f->den * factor;
}

/* A hand's position is thousandths of its range, whatever the joints' scale */
static double hand_factor(struct gen *g, const char *name)
{
	const struct lay_field *f = field(g, name);

	return (double)f->den / (double)f->num / 1000.0;
}

/* A register's 16 bits as they are; LoLA reads them as the field's sign says */
static float put_bits(struct gen *g, uint8_t *msg, size_t len, const char *name, uint16_t bits)
{
	const struct lay_field *f = field(g, name);
	bool ok;

	if ((size_t)f->offset + (size_t)f->width > len || f->width != 2) {
		fprintf(stderr, "chestboard-emu-capture: %s must be 2 bytes inside its message\n", name);
		exit(2);
	}
	lay_put(msg + f->offset, 2, f->little, bits);
	return (float)lay_get_value(msg, len, f, 0, &ok);
}

/* put v (in LoLA's unit) into msg; return what LoLA will read back */
static float put(struct gen *g, uint8_t *msg, size_t len, const char *name,
		 int index, double v, double factor)
{
	const struct lay_field *f = field(g, name);
	size_t off = (size_t)f->offset + (size_t)index * (size_t)f->stride;
	int64_t c = to_counts(f, v, factor);

	if (off + (size_t)f->width > len) {
		fprintf(stderr, "chestboard-emu-capture: %s[%d] at %zu is past its message of %zu bytes\n",
			name, index, off, len);
		exit(2);
	}
	lay_put(msg + off, f->width, f->little, (uint64_t)c);
	return (float)from_counts(f, c, factor);
}

/* ------------------------------------------------------------------------
 * Frames: messages, the planted length table and CRC
 */
struct frame {
	uint8_t buf[4096];
	size_t len;
	uint8_t mlen[255];
	unsigned int n;
	size_t mend;
	bool out;
};

static void frame_begin(struct frame *f, bool out)
{
	memset(f, 0, sizeof(*f));
	f->out = out;
	f->mend = out ? 4 : 0;
}

static uint8_t *frame_msg(struct frame *f, size_t len)
{
	uint8_t *m = f->buf + f->mend;

	if (f->n == 255 || f->mend + len + 2 * (f->n + 1) + 4 > sizeof(f->buf)) {
		fprintf(stderr, "chestboard-emu-capture: frame full\n");
		exit(2);
	}
	f->mlen[f->n++] = (uint8_t)len;
	f->mend += len;
	memset(m, 0, len);
	return m;
}

static void frame_end(struct gen *g, struct frame *f, uint32_t *crcp)
{
	size_t p = f->mend, start = f->out ? 4 : 0, crc_at;
	uint32_t crc;

	for (unsigned int i = 0; i < f->n; i++) {
		switch (g->lay.table) {
		case LAY_TABLE_U8_FORWARD:
			f->buf[p++] = f->mlen[i];
			break;
		case LAY_TABLE_U16BE_REVERSE:
			f->buf[p++] = 0;
			f->buf[p++] = f->mlen[f->n - 1 - i];
			break;
		default:
			f->buf[p++] = f->mlen[f->n - 1 - i];
		}
	}
	crc_at = f->out ? 0 : p;
	f->len = p + (f->out ? 0 : 4);
	memset(f->buf + crc_at, 0, 4);
	switch (g->lay.crc_cover) {
	case LAY_CRC_ZEROED:
		crc = lay_crc32(f->buf, f->len);
		break;
	case LAY_CRC_MESSAGES:
		crc = lay_crc32(f->buf + start, f->mend - start);
		break;
	default:
		crc = lay_crc32(f->buf + start, p - start);
	}
	lay_put(f->buf + crc_at, 4, g->lay.crc_little == 1, crc);
	*crcp = crc;
}

/* ------------------------------------------------------------------------
 * usbmon records through libpcap
 */
static void urb_record(struct gen *g, uint64_t ts, uint64_t id, char ev,
		       uint8_t type, uint8_t ep, const uint8_t *setup, int32_t status,
		       uint32_t urb_len, const uint8_t *data, uint32_t len)
{
	uint8_t pkt[sizeof(pcap_usb_header_mmapped) + 4096];
	pcap_usb_header_mmapped h = {
		.id = id, .event_type = (uint8_t)ev, .transfer_type = type,
		.endpoint_number = ep, .device_address = (uint8_t)g->dev,
		.bus_id = g->bus, .setup_flag = setup ? 0 : '-',
		.data_flag = data ? 0 : (ev == 'S' ? '<' : '>'),
		.ts_sec = (int64_t)(ts / 1000000000ull),
		.ts_usec = (int32_t)(ts % 1000000000ull / 1000),
		.status = status, .urb_len = urb_len, .data_len = data ? len : 0,
	};
	struct pcap_pkthdr ph;

	if (setup)
		memcpy(&h.s.setup, setup, 8);
	memcpy(pkt, &h, sizeof(h));
	if (data)
		memcpy(pkt + sizeof(h), data, len);
	ph.ts.tv_sec = (time_t)(ts / 1000000000ull);
	ph.ts.tv_usec = (suseconds_t)(ts % 1000000000ull);	/* nanoseconds */
	ph.caplen = ph.len = (uint32_t)sizeof(h) + (data ? len : 0);
	pcap_dump((u_char *)g->dump, &ph, pkt);
}

static void bulk_out(struct gen *g, uint64_t ts, const uint8_t *d, size_t len)
{
	uint64_t id = ++g->urb;

	urb_record(g, ts, id, 'S', URB_BULK, 0x01, NULL, -EINPROGRESS, (uint32_t)len, d, (uint32_t)len);
	urb_record(g, ts + 100000, id, 'C', URB_BULK, 0x01, NULL, 0, (uint32_t)len, NULL, 0);
}

static void bulk_in(struct gen *g, uint64_t ts, const uint8_t *d, size_t len)
{
	uint64_t id = ++g->urb;

	urb_record(g, ts, id, 'S', URB_BULK, 0x81, NULL, -EINPROGRESS, 512, NULL, 0);
	urb_record(g, ts + 600000, id, 'C', URB_BULK, 0x81, NULL, 0, (uint32_t)len, d, (uint32_t)len);
}

static void control(struct gen *g, uint64_t ts, uint8_t rt, uint8_t req, uint16_t value,
		    const uint8_t *d, uint16_t len)
{
	uint8_t setup[8] = { rt, req, (uint8_t)value, (uint8_t)(value >> 8), 0, 0,
			     (uint8_t)len, (uint8_t)(len >> 8) };
	uint64_t id = ++g->urb;
	bool in = rt & 0x80;

	urb_record(g, ts, id, 'S', URB_CONTROL, in ? 0x80 : 0x00, setup, -EINPROGRESS, len,
		   in ? NULL : d, in ? 0 : len);
	urb_record(g, ts + 150000, id, 'C', URB_CONTROL, in ? 0x80 : 0x00, NULL, 0, len,
		   in ? d : NULL, in ? len : 0);
}

/* ------------------------------------------------------------------------
 * The body, physically
 */
struct phys {
	double pitch, roll, dpitch, droll, dyaw;
	double pos[25], cur[25], temp[25];
	double fsr[8];
	double charge, current, btemp, sonar[2];
	int bstatus;
	unsigned int touch;	/* LoLA touch bits */
};

static void body_at(struct gen *g, double t, unsigned int step, double st, struct phys *p)
{
	double tilt = step == 4 ? sin(M_PI * st / 6.0) : 0;	/* over a 6 s step */
	double dtilt = step == 4 ? M_PI / 6.0 * cos(M_PI * st / 6.0) : 0;
	double total = 4.3, lift = step == 3 ? fmin(1.0, st / 1.5) : 0;

	memset(p, 0, sizeof(*p));
	p->pitch = 1.2 * tilt + 0.002 * noise(g);
	p->droll = 0.3 * 2 * M_PI / 3.0 * cos(2 * M_PI * t / 3.0) * (step == 4);
	p->roll = 0.3 * sin(2 * M_PI * t / 3.0) * (step == 4) + 0.002 * noise(g);
	p->dpitch = 1.2 * dtilt;
	/* then turned left and right on the spot */
	p->dyaw = step == 4 ? 1.5 * sin(2 * M_PI * st / 2.0) : 0;
	for (int j = 0; j < 25; j++) {
		double f = 0.05 + 0.013 * j, a = 0.25;

		if (step == 5 && j >= 2 && j <= 5)	/* the left arm by hand */
			a = 1.0;
		p->pos[j] = a * sin(2 * M_PI * f * t + j) + 0.001 * noise(g);
		if (j == 23 || j == 24)			/* hands: 0..1 */
			p->pos[j] = 0.5 + 0.45 * sin(2 * M_PI * f * t + j);
		p->cur[j] = 0.2 + 0.15 * sin(2 * M_PI * (f + 0.1) * t) + 0.01 * noise(g);
		p->temp[j] = 30 + j % 7 + t / 10.0;
	}
	for (int i = 0; i < 4; i++) {
		double share = (0.25 + 0.05 * sin(t + i)) * total;

		p->fsr[i] = share * (1 - lift);
		p->fsr[4 + i] = share * (1 + lift);
	}
	p->charge = 0.95 - 0.004 * t;
	p->bstatus = t > 20 ? 0x80d8 : 0x0068;	/* the charger from 20 s */
	p->current = (t > 20 ? 0.8 : -1.2) + 0.3 * sin(t) + 0.01 * noise(g);
	p->btemp = 28.5 + t / 20.0;
	/* a person walking up to 0.3 m and back to 3 m */
	p->sonar[0] = 1.65 + 1.35 * sin(2 * M_PI * t / 9.0);
	p->sonar[1] = 1.65 + 1.35 * sin(2 * M_PI * t / 7.0 + 1);
	if (step == 1 && st > 0.5 && st < 2.5)
		p->touch |= 1u << 0;
	if (step == 2 && st > 0.5 && st < 2.5)
		p->touch |= 1u << 1;			/* head: not on the chest board */
	if (step == 3 && st > 2.0)
		p->touch |= 1u << 5;			/* a bumper, lifting */
	if (step == 3 && st > 3.0 && st < 4.5)
		p->touch |= 1u << 4 | 1u << 10;
	if (step == 5 && st > 3.0 && st < 4.0)
		p->touch |= 1u << 6 | 1u << 12;
	if (step == 5 && st > 3.5 && st < 5.0)
		p->touch |= 1u << 7 | 1u << 11;
	if (step == 5 && st > 4.2 && st < 5.5)
		p->touch |= 1u << 8 | 1u << 13;
}

/* One answer frame from the body; fills LoLA's packet with what HAL decodes */
static void in_frame(struct gen *g, const struct phys *p, struct frame *f,
		     struct lola_sensors *s)
{
	double rad = M_PI / 180.0, acc[3], gyr[3];
	uint8_t *m;

	acc[0] = G * sin(p->pitch) + 0.02 * noise(g);
	acc[1] = -G * sin(p->roll) * cos(p->pitch) + 0.02 * noise(g);
	acc[2] = -G * cos(p->roll) * cos(p->pitch) + 0.02 * noise(g);
	gyr[0] = p->droll + 0.002 * noise(g);
	gyr[1] = p->dpitch + 0.002 * noise(g);
	gyr[2] = p->dyaw + 0.002 * noise(g);
	memset(s, 0, sizeof(*s));

	m = frame_msg(f, LEN_IMU);
	m[0] = 0x02, m[1] = 0x02, m[2] = 0x09;
	s->acc[0] = put(g, m, LEN_IMU, "imu.acc_x", 0, acc[0], 1);
	s->acc[1] = put(g, m, LEN_IMU, "imu.acc_y", 0, acc[1], 1);
	s->acc[2] = put(g, m, LEN_IMU, "imu.acc_z", 0, acc[2], 1);
	s->gyro[0] = put(g, m, LEN_IMU, "imu.gyr_x", 0, gyr[0], rad);
	s->gyro[1] = put(g, m, LEN_IMU, "imu.gyr_y", 0, gyr[1], rad);
	s->gyro[2] = put(g, m, LEN_IMU, "imu.gyr_z", 0, gyr[2], rad);
	s->angles[0] = put(g, m, LEN_IMU, "imu.angle_x", 0, p->roll, 1);
	s->angles[1] = put(g, m, LEN_IMU, "imu.angle_y", 0, p->pitch, 1);

	m = frame_msg(f, LEN_BAT);
	m[0] = 0x02, m[1] = 0x02, m[2] = 0x0b;
	s->battery[0] = put(g, m, LEN_BAT, "battery.charge", 0, p->charge, 1);
	s->battery[1] = put_bits(g, m, LEN_BAT, "battery.status", (uint16_t)p->bstatus);
	s->battery[2] = put(g, m, LEN_BAT, "battery.current", 0, p->current, 1);
	/* LoLA's temperature: tenths of a degree, 0.1 applied twice */
	s->battery[3] = put(g, m, LEN_BAT, "battery.temperature", 0, p->btemp / 10.0, 1);

	m = frame_msg(f, LEN_SONAR);
	m[0] = 0x02, m[1] = 0x02, m[2] = 0x42;
	s->sonar[0] = put(g, m, LEN_SONAR, "sonar.left", 0, p->sonar[0], 1);
	s->sonar[1] = put(g, m, LEN_SONAR, "sonar.right", 0, p->sonar[1], 1);

	m = frame_msg(f, LEN_BUTTON);
	m[0] = 0x02, m[1] = 0x03, m[2] = 0x05;
	s->touch[0] = put(g, m, LEN_BUTTON, "chest_button.pressed", 0, p->touch & 1, 1);
	s->touch[1] = (p->touch >> 1) & 1;	/* the head pads: head I2C */

	for (int b = 0; b < NBOARDS; b++) {
		const struct gen_board *bd = &boards[b];
		const struct lay_board *lb = layout_board_c(&g->lay, bd->name);
		size_t len = bd->kind == FOOT ? LEN_FOOT : bd->kind == HAND ? LEN_HAND :
			     LEN_JOINT(bd->joints);

		if (!lb) {
			fprintf(stderr, "chestboard-emu-capture: the layout has no board %s\n", bd->name);
			exit(2);
		}
		m = frame_msg(f, len);
		m[0] = 0x02, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
		if (bd->kind == FOOT) {
			static const char *const fsr[4] = { "foot.fsr_front_left",
				"foot.fsr_front_right", "foot.fsr_rear_left", "foot.fsr_rear_right" };
			unsigned int bits = (p->touch >> bd->touch) & 3;

			for (int i = 0; i < 4; i++)	/* 1 g per count, no offset */
				s->fsr[bd->fsr + i] = put(g, m, len, fsr[i], 0,
							  p->fsr[bd->fsr + i], 0.001);
			put(g, m, len, "foot.bumpers", 0, bits, 1);
			s->touch[bd->touch] = bits & 1;
			s->touch[bd->touch + 1] = bits >> 1 & 1;
			continue;
		}
		for (int i = 0; i < bd->joints; i++) {
			int j = bd->joint[i];
			bool hand = j == 23 || j == 24;

			s->position[j] = put(g, m, len, "joint.position", i, p->pos[j],
					     hand ? hand_factor(g, "joint.position") : 2 * M_PI);
			s->current[j] = put(g, m, len, "joint.current", i, p->cur[j], 1);
			s->temperature[j] = put(g, m, len, "joint.temperature", i, p->temp[j], 1);
			s->status[j] = put(g, m, len, "joint.status", i, 0, 1);
			s->stiffness[j] = g->have_cmd ? g->cmd.stiffness[j] : 0;
		}
		if (bd->kind == HAND) {
			unsigned int bits = (p->touch >> bd->touch) & 7;

			put(g, m, len, "hand.touch", 0, bits, 1);
			for (int i = 0; i < 3; i++)
				s->touch[bd->touch + i] = bits >> i & 1;
		}
	}
}

/* HAL's OUT frame from the recorder's last command */
static void out_frame(struct gen *g, struct frame *f, uint64_t cycle)
{
	const struct lola_command *c = &g->cmd;
	uint8_t *m;

	for (int b = 0; b < NBOARDS; b++) {
		const struct gen_board *bd = &boards[b];
		const struct lay_board *lb = layout_board_c(&g->lay, bd->name);

		if (cycle < 2) {		/* the handshake, asked twice */
			m = frame_msg(f, LEN_HS_REQ);
			m[0] = 0x00, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
			m[3] = 0x20;
			continue;
		}
		if (cycle == 2) {
			m = frame_msg(f, LEN_START);
			m[0] = 0x01, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
			put(g, m, LEN_START, "start.command", 0, bd->kind == JOINT ? 7 : 8, 1);
			continue;
		}
		if (bd->kind == FOOT) {
			const float *rgb = bd->fsr ? c->rfoot : c->lfoot;
			static const char *const led[3] = { "foot_leds.red",
				"foot_leds.green", "foot_leds.blue" };

			m = frame_msg(f, LEN_FOOT_LEDS);
			m[0] = 0x00, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
			for (int i = 0; i < 3; i++)
				put(g, m, LEN_FOOT_LEDS, led[i], 0, rgb[i], 1);
			continue;
		}
		m = frame_msg(f, LEN_TARGETS(bd->joints));
		m[0] = 0x00, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
		for (int i = 0; i < bd->joints; i++) {
			int j = bd->joint[i];
			bool hand = j == 23 || j == 24;

			put(g, m, LEN_TARGETS(bd->joints), "targets.position", i,
			    c->position[j], hand ? hand_factor(g, "targets.position") : 2 * M_PI);
			put(g, m, LEN_TARGETS(bd->joints), "targets.stiffness", i,
			    c->stiffness[j], 1);
		}
	}
	m = frame_msg(f, LEN_DEV_REQ);
	m[0] = 0x00, m[1] = 0x02, m[2] = 0x09;
	m = frame_msg(f, LEN_DEV_REQ);
	m[0] = 0x00, m[1] = 0x02, m[2] = 0x0b;
	m = frame_msg(f, LEN_SONAR_REQ);
	m[0] = 0x00, m[1] = 0x02, m[2] = 0x42;
	put(g, m, LEN_SONAR_REQ, "sonar_req.enable", 0, c->sonar[0] | c->sonar[1] << 1, 1);
	m = frame_msg(f, LEN_CHEST_LED);
	m[0] = 0x03, m[1] = 0x03, m[2] = 0x05;
	put(g, m, LEN_CHEST_LED, "chest_led.red", 0, c->chest[0], 1);
	put(g, m, LEN_CHEST_LED, "chest_led.green", 0, c->chest[1], 1);
	put(g, m, LEN_CHEST_LED, "chest_led.blue", 0, c->chest[2], 1);
}

/* The start-up's answers: handshakes, then acknowledges of the start */
static void startup_answer(struct gen *g, struct frame *f, uint64_t cycle)
{
	for (int b = 0; b < NBOARDS; b++) {
		const struct lay_board *lb = layout_board_c(&g->lay, boards[b].name);
		uint8_t *m;

		if (cycle < 2) {
			m = frame_msg(f, LEN_HS);
			m[0] = 0x02, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
			put(g, m, LEN_HS, "handshake.serial", 0,
			    boards[b].kind == FOOT ? 0 : 0x4e420000 + b + 1, 1);
			put(g, m, LEN_HS, "handshake.config_version", 0, 11, 1);
			put(g, m, LEN_HS, "handshake.hw_revision", 0, 3, 1);
			put(g, m, LEN_HS, "handshake.board_type", 0, boards[b].kind + 1, 1);
		} else {
			m = frame_msg(f, LEN_ACK);
			m[0] = 0x04, m[1] = (uint8_t)lb->bus, m[2] = (uint8_t)lb->address;
			put(g, m, LEN_ACK, "ack.status", 0, 0, 1);
		}
	}
}

/* What naocap answers: the measured positions, stiffness 0, colours */
static void recorder_command(struct gen *g, uint64_t k)
{
	struct lola_command *c = &g->cmd;

	memset(c, 0, sizeof(*c));
	memcpy(c->position, g->last.position, sizeof(c->position));
	for (int i = 0; i < 3; i++) {
		c->chest[i] = (float)(((k / 7 + (uint64_t)i * 3) % 11) / 10.0);
		c->lfoot[i] = (float)(((k / 5 + (uint64_t)i * 4) % 9) / 8.0);
		c->rfoot[i] = (float)(((k / 3 + (uint64_t)i * 2) % 6) / 5.0);
	}
	c->sonar[0] = c->sonar[1] = true;
	g->have_cmd = true;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: chestboard-emu-capture -l LAYOUT -o DIR [options]\n\n"
		"Writes the capture archive naocap(8) would write on a robot whose chest\n"
		"board speaks the layout in LAYOUT (a layout description file, see\n"
		"Documentation/capture.rst), with LoLA's side decoded from that layout.\n\n"
		"  -l LAYOUT      the layout the board plays\n"
		"  -o DIR         the archive directory (created)\n"
		"  -s SECONDS     seconds per script step (default 6)\n"
		"  -d VID:PID     the device's id (default ffff:0006)\n"
		"  -S SEED        the noise's seed (default 1)\n"
		"  -n             no LoLA log\n"
		"  -g CYCLE       damage the answer frame of CYCLE (one flipped bit)\n"
		"  -t SECONDS     stamp the LoLA log that much later (a clock that disagrees)\n"
		"  -h, --help     this help\n"
		"      --version  the program's version\n\n"
		"See chestboard-emu-capture(1).\n");
}

int main(int argc, char **argv)
{
	struct gen *g = calloc(1, sizeof(*g));
	const char *layout = NULL, *dir = NULL;
	unsigned int vid = 0xffff, pid = 0x0006;
	double step_s = 6;
	bool no_lola = false;
	long long glitch = -1;
	uint64_t skew = 0;
	char path[4200], err[256];
	FILE *marks, *ver;
	pcap_t *pd;
	int c;

	if (!g)
		return 1;
	g->seed = 1;
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};

	while ((c = getopt_long(argc, argv, "l:o:s:d:S:ng:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l': layout = optarg; break;
		case 'o': dir = optarg; break;
		case 's': step_s = atof(optarg); break;
		case 'd':
			if (sscanf(optarg, "%x:%x", &vid, &pid) != 2 || vid > 0xffff || pid > 0xffff) {
				fprintf(stderr, "chestboard-emu-capture: -d wants VID:PID in hex\n");
				return 2;
			}
			break;
		case 'S': g->seed = strtoull(optarg, NULL, 0); break;
		case 'n': no_lola = true; break;
		case 'g': glitch = atoll(optarg); break;
		case 't': skew = (uint64_t)(atof(optarg) * 1e9); break;
		case 'h': usage(stdout); return 0;
		case 'V': return nbtool_version("chestboard-emu-capture");
		default: usage(stderr); return 2;
		}
	}
	if (!layout || !dir || step_s < 1 || step_s > 600) {
		usage(stderr);
		return 2;
	}
	if (layout_read(layout, &g->lay, err, sizeof(err))) {
		fprintf(stderr, "chestboard-emu-capture: %s\n", err);
		return 2;
	}
	if (g->lay.crc_cover < 0 || g->lay.crc_little < 0 || g->lay.ack_little < 0 ||
	    g->lay.table < 0) {
		fprintf(stderr, "chestboard-emu-capture: %s: crc.cover, crc.order, ack.order and table are needed\n",
			layout);
		return 2;
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	g->bus = 1;
	g->dev = 3;
	pd = pcap_open_dead_with_tstamp_precision(DLT_USB_LINUX_MMAPPED, 65535,
						  PCAP_TSTAMP_PRECISION_NANO);
	snprintf(path, sizeof(path), "%s/" CAP_FILE_PCAP, dir);
	g->dump = pd ? pcap_dump_open(pd, path) : NULL;
	if (!g->dump) {
		fprintf(stderr, "chestboard-emu-capture: %s: %s\n", path, pd ? pcap_geterr(pd) : "pcap");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/" CAP_FILE_LOLA, dir);
	if (!no_lola) {
		g->lola = fopen(path, "wb");
		if (!g->lola || lola_log_open(g->lola)) {
			perror(path);
			return 1;
		}
	}
	snprintf(path, sizeof(path), "%s/" CAP_FILE_MARKS, dir);
	marks = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/" CAP_FILE_VERSIONS, dir);
	ver = fopen(path, "w");
	if (!marks || !ver) {
		perror(path);
		return 1;
	}
	fprintf(ver, "naocap.version chestboard-emu-capture (planted layout %s)\n"
		"usb.busdev %u:%u\nusb.id %04x:%04x\nhal.version none (emulated)\n",
		layout, g->bus, g->dev, vid, pid);

	{
		uint64_t t0 = 1764590400ull * 1000000000ull, ts = t0;
		uint8_t desc[18] = { 18, 1, 0x00, 0x02, 0, 0, 0, 64, (uint8_t)vid,
				     (uint8_t)(vid >> 8), (uint8_t)pid, (uint8_t)(pid >> 8),
				     0x00, 0x01, 1, 2, 0, 1 };
		uint8_t version[4] = { 0x00, 0x02, 0x00, 0x29 };
		uint64_t cycles = (uint64_t)(step_s * STEPS * 1e9 / CYCLE_NS);
		unsigned int step = ~0u;

		control(g, ts, 0x80, 6, 0x0100, desc, 18);
		control(g, ts + 2000000, 0x00, 9, 1, NULL, 0);
		control(g, ts + 4000000, 0x40, 0x13, 0, NULL, 0);
		control(g, ts + 6000000, 0xc0, 0x02, 0, version, 4);
		ts += 10000000;
		for (uint64_t k = 0; k < cycles; k++, ts += CYCLE_NS) {
			double t = (double)(k * CYCLE_NS) / 1e9;
			unsigned int s = (unsigned int)(t / step_s);
			struct frame out, in;
			struct lola_sensors ls;
			uint8_t ack[5], pkt[LOLA_PACKET_MAX];
			uint32_t crc, icrc;
			struct phys p;
			size_t n;

			if (s >= STEPS)
				s = STEPS - 1;
			if (s != step) {
				step = s;
				fprintf(marks, "%llu %u %s\n", (unsigned long long)ts, s, script[s]);
			}
			body_at(g, t, s, t - s * step_s, &p);
			frame_begin(&out, true);
			out_frame(g, &out, k);
			frame_end(g, &out, &crc);
			bulk_out(g, ts, out.buf, out.len);
			ack[0] = 0x2a;
			lay_put(ack + 1, 4, g->lay.ack_little == 1, crc);
			control(g, ts + 200000, 0xc0, 0x14, 0, ack, 5);
			frame_begin(&in, false);
			if (k < 3)
				startup_answer(g, &in, k);
			else
				in_frame(g, &p, &in, &ls);
			frame_end(g, &in, &icrc);
			if ((long long)k == glitch)	/* damaged on the wire */
				in.buf[in.len / 2] ^= 0x10;
			bulk_in(g, ts + 400000, in.buf, in.len);
			if (k < 3)
				continue;
			g->last = ls;
			if (g->lola) {
				n = lola_sensors_encode(&ls, "P0000074A05S93M00061", pkt, sizeof(pkt));
				lola_log_append(g->lola, ts + 1500000 + skew, 'S', pkt, n);
			}
			recorder_command(g, k);
			if (g->lola) {
				n = lola_command_encode(&g->cmd, pkt, sizeof(pkt));
				lola_log_append(g->lola, ts + 1800000 + skew, 'C', pkt, n);
			}
		}
	}
	pcap_dump_close(g->dump);
	pcap_close(pd);
	if (g->lola && fclose(g->lola))
		return 1;
	fclose(marks);
	fclose(ver);
	free(g);
	return 0;
}
