// SPDX-License-Identifier: GPL-2.0-only
/*
 * chestboard-emu: plays the NAO6 chest board through FunctionFS and
 * dummy_hcd, so that naobody.ko can be tested with no robot.
 *
 * Start-up: options, the body, the control socket, the gadget, bind; then
 * one epoll loop over ep0's events, the AIO eventfd, a timerfd for every
 * deadline, the control socket and signals. Nothing spins: every wait is
 * in epoll_wait().
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <nbtool/version.h>

#include "emu.h"

enum { TAG_EP0 = EMU_TAG_EP0, TAG_AIO, TAG_TIMER, TAG_CONTROL = EMU_TAG_CONTROL, TAG_SIGNAL };

static const char usage[] =
"Usage: chestboard-emu [OPTION]...\n"
"Play the NAO6 chest board (USB ffff:0006) through FunctionFS and dummy_hcd,\n"
"so that a host-side driver (naobody.ko) can be tested without a robot.\n"
"Needs root: it loads dummy_hcd (full speed), libcomposite and usb_f_fs,\n"
"and builds a configfs gadget. Runs until SIGINT, SIGTERM or 'quit'.\n"
"\n"
"  -s, --socket PATH       control socket (default " NB_EMU_SOCKET ")\n"
"  -u, --udc NAME          UDC to bind to (default dummy_udc.0)\n"
"  -n, --name NAME         gadget and FunctionFS instance (default chestboard)\n"
"  -p, --product ID        USB product id: 0x0006 (default) or 0x0005\n"
"      --chest-version HEX the 4 bytes request 0x02 answers (default 0x00020029)\n"
"      --board-version N   the motor boards' configuration version (default 10)\n"
"      --body-id STRING    id string slot 3 and the preferences' body id\n"
"      --product-string S  the USB product string (default \"Arm9 v3.3\", the\n"
"                          real board's)\n"
"      --bulk-packet N     the bulk endpoints' wMaxPacketSize in the descriptors\n"
"                          (default 64, the real board's; for a host's checks)\n"
"      --ack-wait MS       how long a 0x14 waits for its frame (default 20)\n"
"      --silent-ms MS      how long the silence misbehaviour holds a 0x14\n"
"                          unanswered, if no frame comes (default 100)\n"
"      --reconnect-ms MS   a harakiri reset binds again after MS (default 1000)\n"
"      --in-size BYTES     what the host reads per answer (default 512)\n"
"      --record N          command frames kept for 'frames' (default 8192)\n"
"      --all-boards        every board sends its data without a start command\n"
"      --no-follow         joints don't follow their targets\n"
"      --physics MODEL     the body from the MuJoCo model (nao6.xml): joints,\n"
"                          inertial unit, FSRs and currents (needs a build\n"
"                          with libmujoco-dev and libmujoco at run time)\n"
"      --physics-host PATH the same body from nb-physics-server on the host,\n"
"                          through PATH (a virtio serial port, or a unix\n"
"                          socket); never waits for it\n"
"      --iso               also describe the real board's unused isochronous\n"
"                          endpoints (not on dummy_hcd: it has none)\n"
"      --ready-fd FD       write \"ready\\n\" to FD once the host configured it\n"
"      --misbehave NAME:CYCLES[:ARG]\n"
"                          misbehave from the first frame on, for CYCLES\n"
"                          frames (-1: until 'misbehave off'); repeatable\n"
"  -v, --verbose           say more (repeat for events and requests)\n"
"  -q, --quiet             print nothing but fatal errors\n"
"  -h, --help              this help\n"
"      --version           the program's and control protocol's versions\n"
"\n"
"Control: one request per line on the socket, e.g. with socat:\n"
"  echo 'set gyroscope 2 300' | socat - UNIX-CONNECT:" NB_EMU_SOCKET "\n"
"Requests: hello status stats set get wave touch drain follow physics version bootloader id\n"
"misbehave frames raw wait reset disconnect connect storm quit help.\n"
"Misbehaviours: bad_crc bad_table msgs256 overlong short no_zlp stall_in\n"
"stall_out stall_ack nak silence wrong_ack disconnect no_prefs no_version\n"
"stall_status no_ids.\n"
"See chestboard-emu(8) and Documentation/chestboard-emu.rst.\n";

static struct emu emu;
static uint64_t armed;		/* what the timerfd is set to */

uint64_t emu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void emu_log(struct emu *e, int level, const char *fmt, ...)
{
	va_list ap;
	uint64_t t;

	if (level > e->opt.verbose)
		return;
	t = emu_now();
	fprintf(stderr, "chestboard-emu: [%llu.%06llu] ", (unsigned long long)(t / 1000000000),
		(unsigned long long)(t / 1000 % 1000000));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void emu_timer_set(struct emu *e, enum emu_timer t, uint64_t deadline)
{
	e->timer[t] = deadline;
}

/* Arm the timerfd for the earliest deadline, if that changed. */
static void arm(struct emu *e)
{
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	uint64_t d = control_next_deadline(e);

	for (int t = 0; t < __T_MAX; t++)
		if (e->timer[t] && (!d || e->timer[t] < d))
			d = e->timer[t];
	if (d == armed)
		return;
	armed = d;
	if (d) {
		its.it_value.tv_sec = (time_t)(d / 1000000000);
		its.it_value.tv_nsec = (long)(d % 1000000000);
	}
	timerfd_settime(e->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void fire(struct emu *e, enum emu_timer t, uint64_t now)
{
	switch (t) {
	case T_ACK:
		ep0_ack_timeout(e);
		break;
	case T_RECONNECT:
		usb_bind(e);
		ep0_events(e);
		break;
	case T_STORM:
		if (e->bound) {
			usb_unbind(e);
			emu_timer_set(e, T_STORM, now + e->storm_down_ms * 1000000ull);
		} else {
			usb_bind(e);
			ep0_events(e);
			if (e->storm_left && --e->storm_left)
				emu_timer_set(e, T_STORM, now + e->storm_up_ms * 1000000ull);
		}
		break;
	case T_HARAKIRI:
		emu_log(e, 1, "harakiri: %s", e->harakiri_op ? "reset" : "power off");
		usb_unbind(e);
		if (e->harakiri_op == NAOBODY_HARAKIRI_RESET)
			emu_timer_set(e, T_RECONNECT, now + e->opt.reconnect_ms * 1000000ull);
		break;
	default:
		break;
	}
}

static void timers(struct emu *e)
{
	uint64_t n, now = emu_now();

	if (read(e->tfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	armed = 0;
	for (int t = 0; t < __T_MAX; t++) {
		if (e->timer[t] && e->timer[t] <= now) {
			e->timer[t] = 0;
			fire(e, (enum emu_timer)t, now);
		}
	}
	control_timeouts(e, now);
}

static int add(struct emu *e, int fd, uint32_t events, uint64_t tag)
{
	struct epoll_event ev = { .events = events, .data.u64 = tag };

	return epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* A number in lo..hi at the start of s; *rest is what follows it. */
static int strtol_part(const char *s, long lo, long hi, long *v, const char **rest)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 0);
	*rest = end;
	return errno || end == s || *v < lo || *v > hi ? -1 : 0;
}

static int number(const char *s, long lo, long hi, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 0);
	return errno || end == s || *end || *v < lo || *v > hi ? -1 : 0;
}

enum { O_CHEST_VERSION = 256, O_BOARD_VERSION, O_BODY_ID, O_ACK_WAIT, O_SILENT_MS, O_RECONNECT_MS,
       O_IN_SIZE, O_RECORD, O_ALL_BOARDS, O_NO_FOLLOW, O_PHYSICS, O_PHYSICS_HOST, O_ISO,
       O_READY_FD, O_MISBEHAVE, O_PRODUCT_STRING, O_BULK_PACKET, O_VERSION };

/* --misbehave NAME:CYCLES[:ARG], as the control socket's misbehave request. */
static int misbehave_option(struct emu *e, const char *arg)
{
	char name[32], *colon;
	long cycles, a = 0;
	int m;

	snprintf(name, sizeof(name), "%s", arg);
	colon = strchr(name, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	m = nb_emu_misb_find(name);
	arg = strchr(arg, ':') + 1;
	if (m <= 0 || strtol_part(arg, -1, 1 << 30, &cycles, &arg))
		return -1;
	if (*arg == ':' && strtol_part(arg + 1, 0, 1 << 30, &a, &arg))
		return -1;
	if (*arg)
		return -1;
	return misb_set(e, (unsigned int)m, (int)cycles, (int)a) ? -1 : 0;
}

static int options(struct emu *e, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "udc", required_argument, NULL, 'u' },
		{ "name", required_argument, NULL, 'n' },
		{ "product", required_argument, NULL, 'p' },
		{ "chest-version", required_argument, NULL, O_CHEST_VERSION },
		{ "board-version", required_argument, NULL, O_BOARD_VERSION },
		{ "body-id", required_argument, NULL, O_BODY_ID },
		{ "ack-wait", required_argument, NULL, O_ACK_WAIT },
		{ "silent-ms", required_argument, NULL, O_SILENT_MS },
		{ "reconnect-ms", required_argument, NULL, O_RECONNECT_MS },
		{ "in-size", required_argument, NULL, O_IN_SIZE },
		{ "record", required_argument, NULL, O_RECORD },
		{ "all-boards", no_argument, NULL, O_ALL_BOARDS },
		{ "no-follow", no_argument, NULL, O_NO_FOLLOW },
		{ "physics", required_argument, NULL, O_PHYSICS },
		{ "physics-host", required_argument, NULL, O_PHYSICS_HOST },
		{ "iso", no_argument, NULL, O_ISO },
		{ "ready-fd", required_argument, NULL, O_READY_FD },
		{ "misbehave", required_argument, NULL, O_MISBEHAVE },
		{ "product-string", required_argument, NULL, O_PRODUCT_STRING },
		{ "bulk-packet", required_argument, NULL, O_BULK_PACKET },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct emu_opts *o = &e->opt;
	const char *bad = NULL;
	long v;
	int c;

	*o = (struct emu_opts) {
		.name = "chestboard", .udc = "dummy_udc.0", .socket = NB_EMU_SOCKET,
		.product = 0x0006, .version = 0x00020029, .ack_wait_ms = 20,
		.silent_ms = EMU_SILENT_MS, .reconnect_ms = EMU_RECONNECT_MS,
		.in_size = NB_IN_FRAME_MAX, .record = 8192,
		.board_version = 10, .ready_fd = -1, .follow = 1,
		.body_id = "P0000073A07SEMU00042",
		.product_name = "Arm9 v3.3", .bulk_packet = EMU_PACKET,
	};
	while ((c = getopt_long(argc, argv, "s:u:n:p:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->socket = optarg;
			break;
		case 'u':
			o->udc = optarg;
			break;
		case 'n':
			o->name = optarg;
			if (strlen(optarg) > 24 || strchr(optarg, '/'))
				bad = "--name: at most 24 characters, no '/'";
			break;
		case 'p':
			if (number(optarg, 0, 0xffff, &v) || (v != 5 && v != 6))
				bad = "--product: 0x0006 or 0x0005";
			o->product = (uint16_t)v;
			break;
		case O_CHEST_VERSION:
			if (number(optarg, 0, 0xffffffffL, &v))
				bad = "--chest-version: a 32-bit number, e.g. 0x00020029";
			o->version = (uint32_t)v;
			break;
		case O_BOARD_VERSION:
			if (number(optarg, 0, 255, &v))
				bad = "--board-version: 0 to 255";
			o->board_version = (int)v;
			break;
		case O_BODY_ID:
			if (strlen(optarg) > NAOBODY_CHEST_ID_LEN)
				bad = "--body-id: 20 characters at most";
			o->body_id = optarg;
			break;
		case O_ACK_WAIT:
			if (number(optarg, 0, 10000, &v))
				bad = "--ack-wait: 0 to 10000 ms";
			o->ack_wait_ms = (int)v;
			break;
		case O_SILENT_MS:
			if (number(optarg, 1, 10000, &v))
				bad = "--silent-ms: 1 to 10000 ms";
			o->silent_ms = (int)v;
			break;
		case O_RECONNECT_MS:
			if (number(optarg, 0, 60000, &v))
				bad = "--reconnect-ms: 0 to 60000 ms";
			o->reconnect_ms = (int)v;
			break;
		case O_IN_SIZE:
			if (number(optarg, 64, NB_FRAME_MAX, &v))
				bad = "--in-size: 64 to 4096 bytes";
			o->in_size = (int)v;
			break;
		case O_RECORD:
			if (number(optarg, 1, 1 << 20, &v))
				bad = "--record: 1 to 1048576 frames";
			o->record = (int)v;
			break;
		case O_ALL_BOARDS:
			o->all_boards = 1;
			break;
		case O_NO_FOLLOW:
			o->follow = 0;
			break;
		case O_PHYSICS:
			o->physics = optarg;
			break;
		case O_PHYSICS_HOST:
			o->physics_host = optarg;
			break;
		case O_ISO:
			o->iso = 1;
			break;
		case O_READY_FD:
			if (number(optarg, 0, 1 << 20, &v))
				bad = "--ready-fd: a file descriptor";
			o->ready_fd = (int)v;
			break;
		case O_PRODUCT_STRING:
			if (strlen(optarg) > 126)
				bad = "--product-string: 126 characters at most";
			o->product_name = optarg;
			break;
		case O_BULK_PACKET:
			if (number(optarg, 8, 64, &v) || (v & (v - 1)))
				bad = "--bulk-packet: 8, 16, 32 or 64 (full speed)";
			o->bulk_packet = (int)v;
			break;
		case O_MISBEHAVE:
			if (misbehave_option(e, optarg))
				bad = "--misbehave: NAME:CYCLES[:ARG], e.g. bad_crc:20";
			break;
		case 'v':
			o->verbose++;
			break;
		case 'q':
			o->verbose = -1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case O_VERSION:
			nbtool_version("chestboard-emu");
			printf("Control protocol %d.\n", NB_EMU_PROTO);
			exit(0);
		default:
			fputs("Try 'chestboard-emu --help'.\n", stderr);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "chestboard-emu: %s\n", bad);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "chestboard-emu: unexpected argument '%s'\nTry 'chestboard-emu --help'.\n",
			argv[optind]);
		return -1;
	}
	if (o->physics && o->physics_host) {
		fprintf(stderr, "chestboard-emu: --physics and --physics-host: one body, one model\n");
		return -1;
	}
	return 0;
}

static int start(struct emu *e)
{
	sigset_t sigs;
	int err;

	err = record_init(&e->rec, (unsigned int)e->opt.record);
	if (err)
		return err;
	err = boards_init(&e->boards, &e->opt);
	if (err) {
		emu_log(e, 0, "cannot build the preference block: %s", strerror(-err));
		return err;
	}
	boards_standing_body(&e->boards, &e->body.base);
	body_init(&e->body);
	if (e->opt.physics) {
		err = physics_open(e, e->opt.physics);
		if (err)
			return err;
	}
	if (e->opt.physics_host) {
		err = remote_open(e, e->opt.physics_host);
		if (err)
			return err;
	}

	e->epfd = epoll_create1(EPOLL_CLOEXEC);
	e->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	ep0_init();
	e->sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	if (e->epfd < 0 || e->tfd < 0 || e->sigfd < 0)
		return -errno;

	err = control_setup(e);
	if (err)
		return err;
	err = usb_setup(e);
	if (err)
		return err;
	err = add(e, e->g.ep0, EPOLLIN, TAG_EP0);
	e->ep0_watched = true;
	err = err ?: add(e, e->evfd, EPOLLIN, TAG_AIO);
	err = err ?: add(e, e->tfd, EPOLLIN, TAG_TIMER);
	err = err ?: add(e, e->sigfd, EPOLLIN, TAG_SIGNAL);
	if (err)
		return err;
	err = usb_bind(e);
	if (err)
		return err;
	ep0_events(e);
	emu_log(e, 1, "ffff:%04x on %s, control socket %s", e->opt.product,
		e->opt.udc, e->opt.socket);
	return 0;
}

static void loop(struct emu *e)
{
	struct epoll_event ev[16];
	int n;

	while (!e->quit) {
		arm(e);
		n = epoll_wait(e->epfd, ev, 16, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			emu_log(e, 0, "epoll_wait: %s", strerror(errno));
			return;
		}
		for (int i = 0; i < n && !e->quit; i++) {
			uint64_t tag = ev[i].data.u64;

			switch (tag) {
			case TAG_EP0:
				ep0_events(e);
				break;
			case TAG_AIO:
				usb_aio_events(e);
				break;
			case TAG_TIMER:
				timers(e);
				break;
			case TAG_CONTROL:
				control_accept(e);
				break;
			case EMU_TAG_PHYSICS:
				remote_input(e);
				break;
			case TAG_SIGNAL:
				emu_log(e, 1, "signal: quitting");
				e->quit = true;
				break;
			default:
				control_input(e, (int)(tag - EMU_TAG_CLIENT));
				break;
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct emu *e = &emu;
	int err;

	e->epfd = e->evfd = e->tfd = e->sigfd = e->ctlfd = -1;
	if (options(e, argc, argv))
		return 2;
	if (geteuid() != 0)
		emu_log(e, 0, "warning: not root; configfs and mount will likely fail");

	err = start(e);
	if (!err)
		loop(e);
	usb_teardown(e);
	control_teardown(e);
	record_free(&e->rec);
	physics_close(e);
	if (err)
		fprintf(stderr, "chestboard-emu: failed to start: %s\n", strerror(-err));
	return err ? 1 : 0;
}
