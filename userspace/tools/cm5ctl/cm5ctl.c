// SPDX-License-Identifier: GPL-2.0-only
/*
 * cm5ctl: a Bioloid CM-5 running BRBrain, from the shell. See cm5ctl.1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nbtool/serial.h>

#include "cm5ctl.h"

static int timeout_ms = CM5_TIMEOUT_MS;
bool raw_units;
long loop_count;
bool verbose;
static int step_ms = 1000;
static uint8_t models[256];

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cm5ctl [OPTIONS] COMMAND [ARGS]\n"
		"Talk to a Bioloid CM-5 running the BRBrain firmware.\n\n"
		"Commands:\n"
		"  ping [ID|cm5]            ping a Dynamixel, or the CM-5 (default)\n"
		"  scan [FROM[-TO]]         list the Dynamixels that answer (0-253)\n"
		"  status                   the CM-5's status and battery voltage\n"
		"  read ID:REG[:N]...       read N registers from REG on each ID\n"
		"  write ID:REG=V[,V...]... write registers from REG on each ID\n"
		"  regs [ax12|axs1]         print a register table (no device)\n"
		"  flash FILE               flash firmware through the bootloader\n"
		"  stats                    the link's counters (kept while attached)\n"
		"  attach                   hold the line discipline attached, so\n"
		"                           counters and formats last, until Ctrl-C\n"
		"  servos [FROM[-TO]]       which servos answer, cleanly or not (0-31)\n"
		"  loop SPEC...             set the formats once, then write (ID:REG=V)\n"
		"                           and read (ID:REG[:N]) continuously, printing\n"
		"                           the rate and values, until Ctrl-C or --count\n"
		"  pose save FILE ID...     record the servos' present positions\n"
		"  pose play FILE[@S]...    play poses in turn, S seconds each (1),\n"
		"                           every servo timed to arrive together\n\n"
		"Options:\n"
		"  -d, --device PATH   the CM-5's serial port ($CM5_DEVICE, /dev/ttyUSB0)\n"
		"  -L, --ldisc MODE    auto (default), yes (the n_robot line\n"
		"                      discipline or fail), no (frame in userspace)\n"
		"  -t, --timeout MS    reply timeout (1000)\n"
		"  -m, --model ID=M    Dynamixel ID is model M (ax12, axs1, other)\n"
		"  -r, --raw           raw register counts, not natural units\n"
		"  -S, --step-ms MS    pause between flashing stages (1000)\n"
		"  -n, --count N       loop: stop after N cycles (0: until Ctrl-C)\n"
		"  -v, --verbose       loop: a line per cycle on a terminal too\n"
		"  -h, --help          this help\n"
		"      --version       the program's version\n\n"
		"Registers are named as in 'cm5ctl regs' (goal_position...) or given\n"
		"by address. Exit status: 0 ok, 1 error, 2 usage, 3 the CM-5 reported\n"
		"an error, 128 + the signal's number when one ended a command early.\n");
}

/* cm5ctl's own hints; the link's are libnbtool's. */
static const char *hint(const char *what, int err)
{
	switch (-err) {
	case EACCES:
		return strstr(what, "format") ?
		       " (the write format covers a read-only register: see 'cm5ctl regs', and --model for AX-S1s)" :
		       NULL;
	case ETIMEDOUT:
		return " (no reply: is the CM-5 on, running BRBrain, at 115200 baud?)";
	case EPROTO:
		return " (the CM-5 answered something else: line noise? try again)";
	case ERANGE:
		return " (value out of the register's range, or read-only: see 'cm5ctl regs')";
	case EMSGSIZE:
		return " (over the 130 bytes a WRITE_DATA may take: write fewer registers)";
	case ESTALE:
		return " (the CM-5 did not answer the format cleanly, so it is unknown: set it again)";
	}
	return NULL;
}

static int open_cm5(void **dev);
static void close_cm5(void *dev);

static struct nbtool_serial tool = {
	.prog = "cm5ctl",
	.robot = "the CM-5",
	.usage = usage,
	.hint = hint,
	.open = open_cm5,
	.close = close_cm5,
};

void explain(const char *what, int err)
{
	nbtool_serial_explain(&tool, what, err);
}

static int open_cm5(void **dev)
{
	static struct cm5 cm5;
	struct cm5 *c = &cm5;
	int err, id;

	err = cm5_open(c, tool.device, tool.mode);
	if (err) {
		char what[300];

		snprintf(what, sizeof(what), "cannot open %s", tool.device);
		explain(what, err);
		return 1;
	}
	c->timeout_ms = timeout_ms;
	for (id = 0; id <= N_ROBOT_CM5_MAX_ID; id++) {
		if (models[id]) {
			err = cm5_set_model(c, (uint8_t)id, models[id]);
			if (err) {
				explain("cannot set the models", err);
				cm5_close(c);
				return 1;
			}
		}
	}
	*dev = c;
	return 0;
}

static void close_cm5(void *dev)
{
	cm5_close(dev);
}

/* Report a status word; 0 if it says ok. */
int report(const char *what, int st)
{
	char buf[160];

	if (st < 0) {
		explain(what, st);
		return 1;
	}
	cm5_status_str(st, buf, sizeof(buf));
	if (st & 0xFF) {
		fprintf(stderr, "cm5ctl: %s: the CM-5 reports %s\n", what, buf);
		return EXIT_STATUS;
	}
	if (st >> 8)
		fprintf(stderr, "cm5ctl: %s: %s\n", what, buf);
	return 0;
}

static int cmd_ping(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	int id = N_ROBOT_CM5_PING_CM5, st;
	char what[32];

	if (argc > 1 && strcmp(argv[1], "cm5")) {
		id = atoi(argv[1]);
		if (id < 0 || id > N_ROBOT_CM5_MAX_ID) {
			fprintf(stderr, "cm5ctl: ping: id %s out of 0..253\n",
				argv[1]);
			return EXIT_USAGE;
		}
	}
	st = cm5_ping(c, (uint8_t)id);
	if (id == N_ROBOT_CM5_PING_CM5)
		snprintf(what, sizeof(what), "ping cm5");
	else
		snprintf(what, sizeof(what), "ping %d", id);
	if (report(what, st))
		return st < 0 ? 1 : EXIT_STATUS;
	printf("%s: ok\n", what);
	return 0;
}

static int cmd_scan(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	unsigned int from = 0, to = N_ROBOT_CM5_MAX_ID;
	uint8_t ids[N_ROBOT_CM5_MAX_ID + 1];
	int n, i;

	if (argc > 1 && sscanf(argv[1], "%u-%u", &from, &to) < 1) {
		fprintf(stderr, "cm5ctl: scan: expected FROM[-TO], got '%s'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	if (argc > 1 && !strchr(argv[1], '-'))
		to = from;
	n = cm5_scan(c, from, to, ids, (int)sizeof(ids));
	if (n < 0) {
		explain("scan", n);
		return 1;
	}
	for (i = 0; i < n; i++)
		printf("%u\n", ids[i]);
	return 0;
}

static int cmd_status(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	char buf[160];
	int st = cm5_ping_cm5(c);

	if (st < 0) {
		explain("status", st);
		return 1;
	}
	printf("status: %s\n", cm5_status_str(st, buf, sizeof(buf)));
	printf("battery: %.2f V (+) %.2f V (-)\n",
	       cm5_adc_to_volts(cm5_adc(c, CM5_CHANNEL_POS)),
	       cm5_adc_to_volts(cm5_adc(c, CM5_CHANNEL_NEG)));
	printf("thermistor: %u (raw)\n", cm5_adc(c, CM5_CHANNEL_THERM));
	return 0;
}

/* "ID:REG[:N]" or "ID:REG=V,V": fill e, return the text after '=' or "". */
const char *parse_spec(struct cm5 *c, char *spec,
			      struct cm5_fmt_entry *e)
{
	char *p = spec, *reg, *end, *values = NULL;
	long id, n = 1;

	id = strtol(p, &end, 10);
	if (end == p || *end != ':' || id < 0 || id > N_ROBOT_CM5_MAX_ID)
		return NULL;
	reg = end + 1;
	end = strchr(reg, '=');
	if (end) {
		*end = 0;
		values = end + 1;
	}
	end = strchr(reg, ':');
	if (end) {
		*end = 0;
		/* 0: an entry that reads nothing, as BRBrain allows */
		n = strtol(end + 1, &end, 10);
		if (*end || n < 0 || n > 55)
			return NULL;
	}
	e->id = (uint8_t)id;
	if (reg[0] >= '0' && reg[0] <= '9')
		e->start = cm5_reg_at(c->model[id], (unsigned int)atoi(reg));
	else
		e->start = cm5_reg_find(c->model[id], reg);
	if (!e->start)
		return NULL;
	e->nregs = (unsigned int)n;
	return values ? values : "";
}

static int cmd_read(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	struct cm5_fmt_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
	double nat[N_ROBOT_CM5_NUM_REG_BYTES * N_ROBOT_CM5_MAX_DYNAMIXELS];
	int32_t raw[N_ROBOT_CM5_NUM_REG_BYTES * N_ROBOT_CM5_MAX_DYNAMIXELS];
	unsigned int i, j, k = 0;
	int st;

	if (argc < 2 || argc - 1 > N_ROBOT_CM5_MAX_DYNAMIXELS) {
		fprintf(stderr, "cm5ctl: read: expected 1 to 32 ID:REG[:N]\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < (unsigned int)argc - 1; i++) {
		if (!parse_spec(c, argv[i + 1], &e[i])) {
			fprintf(stderr, "cm5ctl: read: bad register spec '%s' (see 'cm5ctl regs')\n",
				argv[i + 1]);
			return EXIT_USAGE;
		}
	}
	st = cm5_set_read_format(c, e, argc - 1);
	if (report("set read format", st))
		return st < 0 ? 1 : EXIT_STATUS;
	st = raw_units ? cm5_read_raw(c, raw, sizeof(raw) / sizeof(raw[0])) :
			 cm5_read_natural(c, nat, sizeof(nat) / sizeof(nat[0]));
	if (st < 0) {
		explain("read", st);
		return 1;
	}
	for (i = 0; i < c->fmt[0].count; i++) {
		const struct cm5_reg *r = c->fmt[0].e[i].start;

		for (j = 0; j < c->fmt[0].e[i].nregs; j++, k++) {
			if (cm5_read_missing(c, k))
				printf("%u %s missing\n", c->fmt[0].e[i].id,
				       r[j].name);
			else if (raw_units)
				printf("%u %s %d\n", c->fmt[0].e[i].id,
				       r[j].name, raw[k]);
			else
				printf("%u %s %.6g%s%s\n", c->fmt[0].e[i].id,
				       r[j].name, nat[k], *r[j].unit ? " " : "",
				       r[j].unit);
		}
	}
	return report("read", st) ? EXIT_STATUS : 0;
}

static int cmd_write(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	struct cm5_fmt_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
	double nat[128];
	int32_t raw[128];
	unsigned int i, j, k = 0;
	const char *vals;
	char *end;
	int st;

	if (argc < 2 || argc - 1 > N_ROBOT_CM5_MAX_DYNAMIXELS) {
		fprintf(stderr, "cm5ctl: write: expected 1 to 32 ID:REG=V[,V...]\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < (unsigned int)argc - 1; i++) {
		vals = parse_spec(c, argv[i + 1], &e[i]);
		if (!vals || !*vals) {
			fprintf(stderr, "cm5ctl: write: bad spec '%s' (ID:REG=V[,V...])\n",
				argv[i + 1]);
			return EXIT_USAGE;
		}
		for (j = 0; *vals; j++) {
			if (k >= 128)
				return EXIT_USAGE;
			nat[k] = strtod(vals, &end);
			raw[k] = (int32_t)nat[k];
			if (end == vals) {
				fprintf(stderr, "cm5ctl: write: bad value in '%s'\n",
					vals);
				return EXIT_USAGE;
			}
			k++;
			vals = *end == ',' ? end + 1 : end;
		}
		e[i].nregs = j;
	}
	st = cm5_set_write_format(c, e, argc - 1);
	if (report("set write format", st))
		return st < 0 ? 1 : EXIT_STATUS;
	st = raw_units ? cm5_write_raw(c, raw, k) :
			 cm5_write_natural(c, nat, k);
	if (report("write", st))
		return st < 0 ? 1 : EXIT_STATUS;
	printf("wrote %u register%s\n", k, k == 1 ? "" : "s");
	return 0;
}

static int cmd_regs(void *dev, int argc, char **argv)
{
	int model = argc > 1 ? cm5_model_parse(argv[1]) :
			       N_ROBOT_CM5_MODEL_AX12;
	const struct cm5_reg *r;
	size_t n, i;

	if (model < 0 || model == N_ROBOT_CM5_MODEL_OTHER) {
		fprintf(stderr, "cm5ctl: regs: model ax12 or axs1\n");
		return EXIT_USAGE;
	}
	r = cm5_regs(model, &n);
	printf("%-4s %-32s %-4s %-3s %-13s %s\n", "addr", "name", "size",
	       "rw", "range", "unit");
	for (i = 0; i < n; i++) {
		char range[32] = "";

		if (!(r[i].flags & CM5_REG_RO))
			snprintf(range, sizeof(range), "%d..%d", r[i].min,
				 r[i].max);
		printf("%-4u %-32s %-4u %-3s %-13s %s\n", r[i].addr, r[i].name,
		       r[i].size, r[i].flags & CM5_REG_RO ? "ro" : "rw", range,
		       r[i].unit);
	}
	return 0;
}

static void progress(void *ctx, size_t done, size_t total, const char *what)
{
	static const char *last;
	int width = 40, fill = total ? (int)(done * width / total) : 0;

	if (last && strcmp(last, what))
		fputc('\n', stderr);
	last = what;
	if (!strcmp(what, "flashing") || !strcmp(what, "verifying"))
		fprintf(stderr, "\r%-10s [%.*s%*s] %zu/%zu", what, fill,
			"########################################",
			width - fill, "", done, total);
	else
		fprintf(stderr, "\r%s", what);
	fflush(stderr);
}

static int cmd_flash(void *dev, int argc, char **argv)
{
	struct cm5_flash_ops ops = { .progress = progress };
	static uint8_t image[256 * 1024];
	ssize_t r;
	size_t len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "cm5ctl: flash: expected one FILE\n");
		return EXIT_USAGE;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		fprintf(stderr, "cm5ctl: flash: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	len = fread(image, 1, sizeof(image), f);
	fclose(f);
	if (!len || len == sizeof(image)) {
		fprintf(stderr, "cm5ctl: flash: %s is empty or over 256 KiB\n",
			argv[1]);
		return 1;
	}
	r = cm5_flash(tool.device, image, len, &ops, step_ms);
	fputc('\n', stderr);
	if (r == -EILSEQ) {
		fprintf(stderr, "cm5ctl: flash: verify failed: the CM-5 read back other bytes; flash again\n");
		return 1;
	}
	if (r < 0) {
		explain("flash", (int)r);
		return 1;
	}
	printf("flashed and verified %zd bytes\n", r);
	return 0;
}

static int cmd_stats(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	struct n_robot_stats s;
	int err = nr_link_stats(&c->link, &s);

	if (err) {
		explain("stats", err);
		return 1;
	}
	printf("link: %s\n", c->link.serdev ? "n_robot serdev device" :
	       c->link.ldisc ? "n_robot line discipline" : "userspace framing");
	printf("counters: %s\n", c->link.shared ?
	       "since the line discipline was attached" : "this run only");
	printf("rx_frames %llu\nrx_checksum_errors %llu\nrx_resyncs %llu\n"
	       "rx_overruns %llu\nrx_dropped_bytes %llu\ncm5_unsolicited %llu\n"
	       "cm5_formats_lost %llu\ntx_frames %llu\ntx_rejected %llu\n",
	       (unsigned long long)s.rx_frames,
	       (unsigned long long)s.rx_checksum_errors,
	       (unsigned long long)s.rx_resyncs,
	       (unsigned long long)s.rx_overruns,
	       (unsigned long long)s.rx_dropped_bytes,
	       (unsigned long long)s.cm5_unsolicited,
	       (unsigned long long)s.cm5_formats_lost,
	       (unsigned long long)s.tx_frames,
	       (unsigned long long)s.tx_rejected);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "ldisc", required_argument, NULL, 'L' },
		{ "timeout", required_argument, NULL, 't' },
		{ "model", required_argument, NULL, 'm' },
		{ "raw", no_argument, NULL, 'r' },
		{ "step-ms", required_argument, NULL, 'S' },
		{ "count", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	static const struct nbtool_cmd cmds[] = {
		{ "ping", cmd_ping, NBTOOL_DEVICE },
		{ "scan", cmd_scan, NBTOOL_DEVICE },
		{ "status", cmd_status, NBTOOL_DEVICE },
		{ "read", cmd_read, NBTOOL_DEVICE },
		{ "write", cmd_write, NBTOOL_DEVICE },
		{ "regs", cmd_regs, 0 },
		{ "flash", cmd_flash, 0 },
		{ "stats", cmd_stats, NBTOOL_DEVICE },
		{ "attach", cmd_attach, NBTOOL_DEVICE },
		{ "servos", cmd_servos, NBTOOL_DEVICE },
		{ "loop", cmd_loop, NBTOOL_DEVICE },
		{ "pose", cmd_pose, NBTOOL_DEVICE },
		{ NULL },
	};
	int o, ret, id, m;
	char *eq;

	nbtool_serial_init(&tool, "CM5_DEVICE", "/dev/ttyUSB0");
	while ((o = getopt_long(argc, argv, "+d:L:t:m:rS:n:vh", opts, NULL)) != -1) {
		switch (o) {
		case 't':
			timeout_ms = atoi(optarg);
			break;
		case 'm':
			eq = strchr(optarg, '=');
			id = atoi(optarg);
			m = eq ? cm5_model_parse(eq + 1) : -1;
			if (m < 0 || id < 0 || id > N_ROBOT_CM5_MAX_ID) {
				fprintf(stderr, "cm5ctl: --model: expected ID=ax12|axs1|other, got '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			models[id] = (uint8_t)m;
			break;
		case 'r':
			raw_units = true;
			break;
		case 'S':
			step_ms = atoi(optarg);
			break;
		case 'n':
			loop_count = atol(optarg);
			break;
		case 'v':
			verbose = true;
			break;
		default:
			ret = nbtool_serial_option(&tool, o, optarg);
			if (ret >= 0)
				return ret;
		}
	}
	return nbtool_serial_run(&tool, cmds, argc - optind, argv + optind);
}
