// SPDX-License-Identifier: GPL-2.0-only
/*
 * cm5-emu: a Bioloid CM-5 running BRBrain, on a pty, for testing cm5ctl and
 * libcm5 without the robot. It answers as the firmware's commandLoop()
 * does, quirks included: a bad checksum is reported but the packet is
 * executed; a rejected format leaves the rest of the packet to be parsed as
 * instructions; an invalid instruction gets STATUS(0x04), then 500 ms of
 * deafness and a flush; a READ_DATA whose checksum never comes makes it send
 * 0xFF forever. With --bootloader it plays the bootloader for cm5ctl flash.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <linux/n_robot.h>
#include <nbtool/options.h>
#include <nbtool/pty.h>

#define S_PC_TIMEOUT			0x01
#define S_DYNAMIXEL_TIMEOUT		0x02
#define S_INVALID_PC_COMMAND		0x04
#define S_INVALID_DYNAMIXEL_RESPONSE	0x08
#define S_PC_CHECKSUM_ERROR		0x40
#define BYTE_TIMEOUT_MS			1000	/* RX_PC_TIMEOUT_TICKS */

struct servo {
	bool present;
	int model;
	uint8_t reg[N_ROBOT_CM5_NUM_REG_BYTES];
};

struct fmt {
	unsigned int n;
	uint8_t id[32], start[32], num[32];
};

static struct servo servo[N_ROBOT_CM5_MAX_ID + 1];
static struct fmt fmt[2];
static struct nbtool_pty pty = { .fd = -1 };
static int flush_ms = 500;
static int button_ms = 1500;	/* until someone presses START or MODE */
static unsigned int drop_every;
static unsigned int requests;
static bool verbose;
static volatile sig_atomic_t stop;
/* --button-on-signal: START and MODE are pressed by SIGUSR1, one each, as a
 * person presses them when cm5ctl asks, instead of after button_ms. */
static bool button_on_signal;
static volatile sig_atomic_t presses;
static uint8_t adc[3] = { 121, 3, 120 };	/* about 9.6 V */
static uint8_t status;
static uint8_t checksum;
static unsigned int pace_baud;	/* 0: bytes go out as fast as the pty takes them */

/* The firmware's waits (brbrain.c): 100.16 Hz ticks. */
#define RX_DYNAMIXEL_TIMEOUT_MS	100	/* RX_DYNAMIXEL_TIMEOUT_TICKS 10 */
#define DYNAMIXEL_BAUD		1000000

static void on_press(int sig)
{
	presses++;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	if (us > 0)
		nanosleep(&ts, NULL);
}

/* 8N1: ten bits a byte at baud. */
static long byte_time_us(size_t n, unsigned int baud)
{
	return baud ? (long)(n * 10 * 1000000ULL / baud) : 0;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/*
 * --pace: when the n bytes just moved would have finished on the wire, one
 * clock per direction. Sleeping only once ahead by half a millisecond keeps
 * the average right without a sleep's overhead per byte.
 */
static void pace(int64_t *wire_at, size_t n)
{
	int64_t now;

	if (!pace_baud)
		return;
	now = now_us();
	if (*wire_at < now)
		*wire_at = now;
	*wire_at += byte_time_us(n, pace_baud);
	if (*wire_at - now > 500)
		sleep_us((long)(*wire_at - now));
}

static int64_t rx_wire_at, tx_wire_at;

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A byte from the host within ms (-1: forever); -1 on timeout or stop. */
static int rx(int ms)
{
	int64_t deadline = now_ms() + ms;
	struct pollfd p = { .fd = pty.fd, .events = POLLIN };
	uint8_t b;
	int r, left;

	while (!stop) {
		left = ms < 0 ? 200 : (int)(deadline - now_ms());
		if (left < 0)
			left = 0;
		r = poll(&p, 1, left > 200 ? 200 : left);
		if (r <= 0) {
			if (ms >= 0 && now_ms() >= deadline)
				return -1;
			continue;
		}
		if (p.revents & POLLIN) {
			r = read(pty.fd, &b, 1);
			if (r == 1) {
				/* at --pace, a byte from the host takes its time too */
				pace(&rx_wire_at, 1);
				return b;
			}
		}
		/* The slave side is closed (no tool attached): wait. */
		if (ms >= 0 && now_ms() >= deadline)
			return -1;
		sleep_ms(20);
	}
	return -1;
}

static void tx(const uint8_t *p, size_t n)
{
	nbtool_pty_write(&pty, p, n, &stop);
}

/* What the CM-5 sends to the host, at --pace baud if given. */
static void tx_paced(const uint8_t *p, size_t n)
{
	tx(p, n);
	pace(&tx_wire_at, n);
}

static void flush_input(void)
{
	while (rx(0) >= 0)
		;
}

static void send_status(void)
{
	uint8_t b[7] = { N_ROBOT_CM5_STATUS, status, 0, adc[0], adc[1], adc[2] };
	uint8_t sum = 0;
	int i;

	for (i = 0; i < 6; i++)
		sum += b[i];
	b[6] = (uint8_t)~sum;
	tx_paced(b, 7);
	if (verbose)
		fprintf(stderr, "cm5-emu: STATUS 0x%02x\n", status);
}

/* A byte of the packet; -1 after setting S_PC_TIMEOUT. */
static int rx_packet_byte(void)
{
	int b = rx(BYTE_TIMEOUT_MS);

	if (b < 0) {
		status |= S_PC_TIMEOUT;
		return -1;
	}
	checksum += (uint8_t)b;
	return b;
}

/* endRXPacketPC(): the checksum byte; a mismatch is only reported. */
static int end_packet(void)
{
	uint8_t want = (uint8_t)~checksum;
	int b = rx(BYTE_TIMEOUT_MS);

	if (b < 0) {
		status |= S_PC_TIMEOUT;
		return -1;
	}
	if ((uint8_t)b != want)
		status |= S_PC_CHECKSUM_ERROR;
	return 0;
}

static void servo_defaults(uint8_t id, int model)
{
	struct servo *s = &servo[id];

	memset(s, 0, sizeof(*s));
	s->present = true;
	s->model = model;
	s->reg[0] = model == N_ROBOT_CM5_MODEL_AXS1 ? 13 : 12;
	s->reg[2] = 0x18;
	s->reg[3] = id;
	s->reg[4] = 1;
	s->reg[5] = 250;
	s->reg[11] = 70;
	s->reg[12] = 60;
	s->reg[13] = 140;
	s->reg[16] = 2;
	s->reg[42] = 96;	/* 9.6 V */
	s->reg[43] = 35;	/* 35 C */
	if (model == N_ROBOT_CM5_MODEL_AXS1) {
		s->reg[26] = 10;
		s->reg[27] = 200;
		s->reg[28] = 30;
		s->reg[29] = 40;
		s->reg[30] = 50;
		s->reg[31] = 60;
		return;
	}
	s->reg[8] = 0xFF;
	s->reg[9] = 0x03;	/* ccw limit 1023 */
	s->reg[14] = 0xFF;
	s->reg[15] = 0x03;
	s->reg[17] = 36;
	s->reg[18] = 36;
	s->reg[26] = 1;
	s->reg[27] = 1;
	s->reg[28] = 32;
	s->reg[29] = 32;
	s->reg[30] = 0x00;
	s->reg[31] = 0x02;	/* goal 512 */
	s->reg[34] = 0xFF;
	s->reg[35] = 0x03;
	s->reg[36] = 0x00;
	s->reg[37] = 0x02;	/* present 512 */
	s->reg[48] = 32;
}

/* Writable on the emulated model? (the servo ignores the rest) */
static bool writable(int model, unsigned int a)
{
	static const uint64_t ro_ax12 = 0x7ULL | 0xFULL << 20 |
		0xFFULL << 36 | 1ULL << 46 | 1ULL << 54;
	static const uint64_t ro_axs1 = 0x7ULL | 0xFFULL << 26 |
		3ULL << 42 | 1ULL << 46 | 3ULL << 48 | 1ULL << 54;

	return !((model == N_ROBOT_CM5_MODEL_AXS1 ? ro_axs1 : ro_ax12) >> a & 1);
}

static void handle_ping(void)
{
	int id = rx_packet_byte();

	if (id < 0 || end_packet() < 0)
		return;
	if (id == N_ROBOT_CM5_PING_CM5)
		return;
	if (id > N_ROBOT_CM5_MAX_ID)
		status |= S_INVALID_PC_COMMAND;
	else if (!servo[id].present)
		status |= S_DYNAMIXEL_TIMEOUT | S_INVALID_DYNAMIXEL_RESPONSE;
}

static void handle_format(int which)
{
	struct fmt *f = &fmt[which];
	int n, id, start, num, i;

	n = rx_packet_byte();
	if (n < 0)
		return;
	if (n > 32) {
		/* The rest of the packet stays in the buffer. */
		status |= S_INVALID_PC_COMMAND;
		return;
	}
	for (i = 0; i < n; i++) {
		id = rx_packet_byte();
		start = id < 0 ? -1 : rx_packet_byte();
		num = start < 0 ? -1 : rx_packet_byte();
		if (num < 0)
			return;
		if (id > N_ROBOT_CM5_MAX_ID || start > 54 || num > 55 - start) {
			status |= S_INVALID_PC_COMMAND;
			return;
		}
		f->id[i] = (uint8_t)id;
		f->start[i] = (uint8_t)start;
		f->num[i] = (uint8_t)num;
	}
	f->n = (unsigned int)n;		/* installed before the checksum */
	end_packet();
}

static void handle_read_data(void)
{
	uint8_t out[N_ROBOT_CM5_MAX_FRAME], sum = 0;
	size_t n = 0, i;
	unsigned int k, a;
	struct servo *s;

	if (end_packet() < 0) {
		/* The firmware's bug: while (bytesToGo) txPC(0xff) never ends. */
		fprintf(stderr, "cm5-emu: READ_DATA without checksum: streaming 0xFF forever (firmware bug)\n");
		while (!stop) {
			tx((const uint8_t *)"\xff", 1);
			sleep_ms(10);
		}
		return;
	}
	/*
	 * The firmware streams DATA servo by servo: the instruction byte
	 * first, then each servo's bytes as its READ comes back, 0xFF after
	 * a silent servo's 100 ms timeout. With --pace, each servo's
	 * transaction on the 1 Mbps bus (READ of 8 bytes, its return delay,
	 * the 6 + n byte reply) and every byte to the host at --pace baud
	 * take their time.
	 */
	out[n++] = N_ROBOT_CM5_DATA;
	tx_paced(out, n);
	for (k = 0; k < fmt[0].n; k++) {
		size_t from = n;

		s = &servo[fmt[0].id[k]];
		if (!fmt[0].num[k])
			continue;
		if (!s->present) {
			status |= S_DYNAMIXEL_TIMEOUT |
				  S_INVALID_DYNAMIXEL_RESPONSE;
			sleep_ms(RX_DYNAMIXEL_TIMEOUT_MS);
		} else if (pace_baud) {
			sleep_us(byte_time_us(8 + 6 + fmt[0].num[k],
					      DYNAMIXEL_BAUD) +
				 2L * s->reg[5]);
		}
		/* present position follows the goal */
		if (s->present && s->model == N_ROBOT_CM5_MODEL_AX12) {
			s->reg[36] = s->reg[30];
			s->reg[37] = s->reg[31];
		}
		for (a = fmt[0].start[k]; a < fmt[0].start[k] + fmt[0].num[k];
		     a++)
			out[n++] = s->present ? s->reg[a] : 0xFF;
		tx_paced(out + from, n - from);
	}
	i = n;
	out[n++] = status;
	out[n++] = 0;
	out[n++] = adc[0];
	out[n++] = adc[1];
	out[n++] = adc[2];
	for (k = 0; k < n; k++)
		sum += out[k];
	out[n++] = (uint8_t)~sum;
	tx_paced(out + i, n - i);
}

static void handle_write_data(void)
{
	struct fmt *f = &fmt[1];
	unsigned int k, a;
	int b;

	for (k = 0; k < f->n; k++) {
		struct servo *s = &servo[f->id[k]];

		for (a = f->start[k]; a < (unsigned int)f->start[k] + f->num[k];
		     a++) {
			b = rx_packet_byte();
			if (b < 0)
				return;
			if (!s->present)
				status |= S_INVALID_DYNAMIXEL_RESPONSE;
			else if (writable(s->model, a))
				s->reg[a] = (uint8_t)b;
		}
	}
	/* REG_WRITEs and ACTION are out: the checksum comes last. */
	end_packet();
}

static void firmware(void)
{
	int b;

	while (!stop) {
		b = rx(-1);
		if (b < 0)
			continue;
		status = 0;
		checksum = (uint8_t)b;
		if (verbose)
			fprintf(stderr, "cm5-emu: instruction 0x%02x\n", b);
		if ((b & 0xF0) != 0xF0 || b > N_ROBOT_CM5_WRITE_DATA) {
			status = S_INVALID_PC_COMMAND;
			send_status();
			sleep_ms(flush_ms);
			flush_input();
			continue;
		}
		if (drop_every && ++requests % drop_every == 0) {
			/* A request lost on the line: swallow it, say nothing */
			sleep_ms(50);
			flush_input();
			continue;
		}
		switch (b) {
		case N_ROBOT_CM5_PING:
			handle_ping();
			break;
		case N_ROBOT_CM5_SET_READ:
			handle_format(0);
			break;
		case N_ROBOT_CM5_SET_WRITE:
			handle_format(1);
			break;
		case N_ROBOT_CM5_READ_DATA:
			handle_read_data();
			continue;
		case N_ROBOT_CM5_WRITE_DATA:
			handle_write_data();
			break;
		}
		send_status();
	}
}

/* Someone presses START or MODE: after button_ms, or at the next SIGUSR1. */
static void press_button(void)
{
	sig_atomic_t seen = presses;

	if (!button_on_signal) {
		sleep_ms(button_ms);
		return;
	}
	while (!stop && presses == seen)
		sleep_ms(20);
}

/* The bootloader, as far as BRBrain's flashCM5() shows it. */
static void bootloader(void)
{
	static uint8_t image[256 * 1024];
	char line[64];
	size_t len = 0, ll = 0, want;
	bool greeted = false;
	int b;

	while (!stop) {
		b = rx(-1);
		if (b < 0)
			continue;
		if (!greeted) {
			if (b == '#') {
				const char *m = "\r\n" "SYSTEM O.K. (CM5 Boot loader V1.41)\r\n-";

				tx((const uint8_t *)m, strlen(m));
				greeted = true;
			}
			continue;
		}
		if (b != '\n' && b != '\r') {
			if (ll < sizeof(line) - 1)
				line[ll++] = (char)b;
			continue;
		}
		line[ll] = 0;
		ll = 0;
		if (!strcmp(line, "l")) {
			tx((const uint8_t *)"\r\nWrite Address : 00000000\r\n", 28);
			len = 0;
			/* the binary, until the host pauses */
			while ((b = rx(len ? 300 : 5000)) >= 0 &&
			       len < sizeof(image))
				image[len++] = (uint8_t)b;
			fprintf(stderr, "cm5-emu: bootloader loaded %zu bytes\n",
				len);
			tx((const uint8_t *)"\r\nDownload Complete\r\n-", 22);
		} else if (sscanf(line, "up 0, %zx", &want) == 1) {
			press_button();		/* START */
			if (want > len)
				want = len;
			tx(image, want);
			press_button();		/* MODE: user code */
			tx((const uint8_t *)"\xff", 1);
			greeted = false;
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cm5-emu [OPTIONS]\n"
		"Emulate a Bioloid CM-5 running BRBrain on a pseudo-terminal.\n"
		"Prints the terminal's path, then serves until SIGINT/SIGTERM.\n\n"
		"  -s, --servo ID[:MODEL]  a Dynamixel on the bus (MODEL ax12 or axs1;\n"
		"                          default: ids 1 and 2, AX-12)\n"
		"  -l, --link PATH         also make PATH a symlink to the terminal\n"
		"  -f, --flush-ms MS       deafness after an invalid instruction (500)\n"
		"  -d, --drop-every N      ignore every Nth request (line loss)\n"
		"  -b, --bootloader        be the bootloader instead (cm5ctl flash)\n"
		"  -B, --button-ms MS      bootloader: START/MODE pressed after (1500)\n"
		"  -S, --button-on-signal  bootloader: START, then MODE, pressed by a\n"
		"                          SIGUSR1 each (a test presses when cm5ctl asks)\n"
		"  -p, --pace BAUD         send to the host at BAUD (8N1), and give each\n"
		"                          servo's bus transaction its time (make bench)\n"
		"  -v, --verbose           log each packet on stderr\n"
		"  -h, --help              this help\n"
		"      --version           the program's version\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "servo", required_argument, NULL, 's' },
		{ "link", required_argument, NULL, 'l' },
		{ "flush-ms", required_argument, NULL, 'f' },
		{ "drop-every", required_argument, NULL, 'd' },
		{ "bootloader", no_argument, NULL, 'b' },
		{ "button-ms", required_argument, NULL, 'B' },
		{ "button-on-signal", no_argument, NULL, 'S' },
		{ "pace", required_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	const char *link = NULL;
	bool boot = false, any = false;
	int c, id, model;
	char *colon;

	while ((c = getopt_long(argc, argv, "s:l:f:d:bB:Sp:vh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			id = atoi(optarg);
			model = N_ROBOT_CM5_MODEL_AX12;
			colon = strchr(optarg, ':');
			if (colon && !strcmp(colon + 1, "axs1"))
				model = N_ROBOT_CM5_MODEL_AXS1;
			else if (colon && strcmp(colon + 1, "ax12")) {
				fprintf(stderr, "cm5-emu: unknown model '%s' (ax12 or axs1)\n",
					colon + 1);
				return NBTOOL_EXIT_USAGE;
			}
			if (id < 0 || id > N_ROBOT_CM5_MAX_ID) {
				fprintf(stderr, "cm5-emu: id %d out of 0..253\n", id);
				return NBTOOL_EXIT_USAGE;
			}
			servo_defaults((uint8_t)id, model);
			any = true;
			break;
		case 'l':
			link = optarg;
			break;
		case 'f':
			flush_ms = atoi(optarg);
			break;
		case 'd':
			drop_every = (unsigned int)atoi(optarg);
			break;
		case 'b':
			boot = true;
			break;
		case 'B':
			button_ms = atoi(optarg);
			break;
		case 'S':
			button_on_signal = true;
			break;
		case 'p':
			pace_baud = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return nbtool_option("cm5-emu", usage, c);
		}
	}
	if (!any) {
		servo_defaults(1, N_ROBOT_CM5_MODEL_AX12);
		servo_defaults(2, N_ROBOT_CM5_MODEL_AX12);
	}
	signal(SIGUSR1, on_press);
	if (nbtool_pty_open(&pty, "cm5-emu", link, &stop))
		return 1;
	if (boot)
		bootloader();
	else
		firmware();
	nbtool_pty_close(&pty);
	return 0;
}
