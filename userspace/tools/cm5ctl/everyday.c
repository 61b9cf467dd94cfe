// SPDX-License-Identifier: GPL-2.0-only
/*
 * cm5ctl's everyday commands, what BRBrain's users do from its shell: a
 * format-once read/write loop, poses saved and played back with timing,
 * which servos answer, and holding the line discipline attached so its
 * counters and formats outlast one command. See cm5ctl.1.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cm5ctl.h"

#define MAX_VALUES	(N_ROBOT_CM5_NUM_REG_BYTES * N_ROBOT_CM5_MAX_DYNAMIXELS)

static volatile sig_atomic_t stop;	/* the signal that came, or 0 */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmd_attach(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	int err;

	if (!c->link.ldisc) {
		fprintf(stderr, "cm5ctl: attach: needs the n_robot line discipline (--ldisc=yes, as root)\n");
		return 1;
	}
	printf("attached%s; Ctrl-C detaches\n",
	       c->link.shared ? " (already, by someone else)" : "");
	fflush(stdout);
	err = nr_link_hold(&c->link);
	if (err) {
		fprintf(stderr, "cm5ctl: attach: %s\n", err == -EIO ?
			"the port hung up" : strerror(-err));
		return 1;
	}
	return 0;
}

int cmd_servos(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	unsigned int from = 0, to = N_ROBOT_CM5_MAX_DYNAMIXELS - 1, id;
	int st, clean = 0, retried = 0, silent = 0;
	char buf[160];

	if (argc > 1 && sscanf(argv[1], "%u-%u", &from, &to) < 1) {
		fprintf(stderr, "cm5ctl: servos: expected FROM[-TO], got '%s'\n",
			argv[1]);
		return EXIT_USAGE;
	}
	if (argc > 1 && !strchr(argv[1], '-'))
		to = from;
	if (from > to || to > N_ROBOT_CM5_MAX_ID) {
		fprintf(stderr, "cm5ctl: servos: ids are 0..253\n");
		return EXIT_USAGE;
	}
	for (id = from; id <= to; id++) {
		st = cm5_ping(c, (uint8_t)id);
		if (st < 0) {
			explain("servos", st);
			return 1;
		}
		if (st == 0) {
			printf("%u ok\n", id);
			clean++;
		} else if (!(st & 0xFF)) {
			printf("%u answered after %d retries (not counted by scan)\n",
			       id, st >> 8);
			retried++;
		} else if (st & (0x02 | 0x08)) {
			silent++;	/* dynamixel timeout: nobody there */
		} else {
			printf("%u %s\n", id, cm5_status_str(st, buf, sizeof(buf)));
			retried++;
		}
	}
	printf("%d answered cleanly, %d not cleanly, %d silent (ids %u-%u)\n",
	       clean, retried, silent, from, to);
	return 0;
}

/* Values of a write spec "ID:REG=V[,V...]" into nat/raw; registers used. */
static int parse_values(const char *vals, double *nat, int32_t *raw,
			unsigned int room)
{
	unsigned int j;
	char *end;

	for (j = 0; *vals; j++) {
		if (j >= room)
			return -1;
		nat[j] = strtod(vals, &end);
		raw[j] = (int32_t)nat[j];
		if (end == vals)
			return -1;
		vals = *end == ',' ? end + 1 : end;
	}
	return (int)j;
}

static void print_reads(const struct cm5 *c, const double *nat,
			const int32_t *raw)
{
	const struct cm5_fmt *f = &c->fmt[N_ROBOT_CM5_FORMAT_READ];
	unsigned int i, j, k = 0;

	for (i = 0; i < f->count; i++) {
		const struct cm5_reg *r = f->e[i].start;

		for (j = 0; j < f->e[i].nregs; j++, k++) {
			if (cm5_read_missing(c, k))
				printf(" %u:%s=missing", f->e[i].id, r[j].name);
			else if (raw_units)
				printf(" %u:%s=%d", f->e[i].id, r[j].name, raw[k]);
			else
				printf(" %u:%s=%.5g", f->e[i].id, r[j].name,
				       nat[k]);
		}
	}
}

int cmd_loop(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	static double rnat[MAX_VALUES], wnat[128];
	static int32_t rraw[MAX_VALUES], wraw[128];
	struct cm5_fmt_entry re[N_ROBOT_CM5_MAX_DYNAMIXELS];
	struct cm5_fmt_entry we[N_ROBOT_CM5_MAX_DYNAMIXELS];
	unsigned int nr = 0, nw = 0, wk = 0;
	const char *vals;
	/* On a terminal one status line, redrawn 4 times a second; else (or
	 * with --verbose) a line per cycle: thousands a second otherwise.
	 */
	bool one_line = !verbose && isatty(STDOUT_FILENO);
	double t0, t, shown = -1;
	long cycles = 0;
	int i, n, st, ret = 0;

	for (i = 1; i < argc; i++) {
		bool write = strchr(argv[i], '=');

		if ((write ? nw : nr) >= N_ROBOT_CM5_MAX_DYNAMIXELS) {
			fprintf(stderr, "cm5ctl: loop: at most 32 servos a format\n");
			return EXIT_USAGE;
		}
		vals = parse_spec(c, argv[i], write ? &we[nw] : &re[nr]);
		if (!vals || (write && !*vals)) {
			fprintf(stderr, "cm5ctl: loop: bad spec '%s' (ID:REG[:N] or ID:REG=V[,V...])\n",
				argv[i]);
			return EXIT_USAGE;
		}
		if (!write) {
			nr++;
			continue;
		}
		n = parse_values(vals, wnat + wk, wraw + wk, 128 - wk);
		if (n < 0) {
			fprintf(stderr, "cm5ctl: loop: bad values in '%s'\n", vals);
			return EXIT_USAGE;
		}
		we[nw++].nregs = (unsigned int)n;
		wk += (unsigned int)n;
	}
	if (!nr && !nw) {
		fprintf(stderr, "cm5ctl: loop: expected ID:REG[:N] and/or ID:REG=V specs\n");
		return EXIT_USAGE;
	}
	/* The formats once, as BRBrain's users do; then only data. */
	if (nw && report("set write format", cm5_set_write_format(c, we, nw)))
		return EXIT_STATUS;
	if (nr && report("set read format", cm5_set_read_format(c, re, nr)))
		return EXIT_STATUS;
	nbtool_catch_signals(&stop);
	t0 = now_s();
	while (!stop && (!loop_count || cycles < loop_count)) {
		if (nw) {
			st = raw_units ? cm5_write_raw(c, wraw, wk) :
					 cm5_write_natural(c, wnat, wk);
			if (st < 0 || (st & 0xFF)) {
				ret = report("write", st);
				if (st < 0)
					break;
			}
		}
		if (nr) {
			st = raw_units ? cm5_read_raw(c, rraw, MAX_VALUES) :
					 cm5_read_natural(c, rnat, MAX_VALUES);
			if (st < 0) {
				ret = report("read", st);
				break;
			}
		}
		cycles++;
		t = now_s() - t0;
		if (one_line && t - shown < 0.25 &&
		    !(loop_count && cycles == loop_count))
			continue;
		shown = t;
		if (one_line)
			fputs("\r\033[K", stdout);
		printf("%ld %.3f s %.1f Hz", cycles, t, t > 0 ? cycles / t : 0);
		if (nr)
			print_reads(c, rnat, rraw);
		if (!one_line)
			putchar('\n');
		fflush(stdout);
	}
	if (one_line && shown >= 0)
		putchar('\n');
	t = now_s() - t0;
	fprintf(stderr, "cm5ctl: loop: %ld cycles in %.2f s, %.1f Hz\n", cycles,
		t, t > 0 ? cycles / t : 0);
	/* Ctrl-C is how a loop without --count ends; one with it was cut */
	if (!ret && stop && loop_count && cycles < loop_count)
		return 128 + stop;
	return ret;
}

/* ---- poses ------------------------------------------------------------ */

struct pose {
	unsigned int n;
	uint8_t id[N_ROBOT_CM5_MAX_DYNAMIXELS];
	double deg[N_ROBOT_CM5_MAX_DYNAMIXELS];
};

/* Present positions of ids, in degrees. */
static int read_positions(struct cm5 *c, struct pose *p)
{
	const struct cm5_reg *pos = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						 "present_position");
	struct cm5_fmt_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
	unsigned int i;
	int st;

	for (i = 0; i < p->n; i++)
		e[i] = (struct cm5_fmt_entry){ .id = p->id[i], .start = pos,
					       .nregs = 1 };
	st = cm5_set_read_format(c, e, p->n);
	if (report("set read format", st))
		return -1;
	st = cm5_read_natural(c, p->deg, N_ROBOT_CM5_MAX_DYNAMIXELS);
	if (report("read", st))
		return -1;
	for (i = 0; i < p->n; i++) {
		if (cm5_read_missing(c, i)) {
			fprintf(stderr, "cm5ctl: pose: servo %u did not answer\n",
				p->id[i]);
			return -1;
		}
	}
	return 0;
}

static int pose_save(struct cm5 *c, int argc, char **argv)
{
	struct pose p = { 0 };
	unsigned int i;
	FILE *f;
	long id;

	if (argc < 4 || argc - 3 > N_ROBOT_CM5_MAX_DYNAMIXELS) {
		fprintf(stderr, "cm5ctl: pose save: expected FILE and 1 to 32 IDs\n");
		return EXIT_USAGE;
	}
	for (i = 0; i < (unsigned int)argc - 3; i++) {
		id = strtol(argv[3 + i], NULL, 10);
		if (id < 0 || id > N_ROBOT_CM5_MAX_ID)
			return EXIT_USAGE;
		p.id[p.n++] = (uint8_t)id;
	}
	if (read_positions(c, &p))
		return 1;
	f = fopen(argv[2], "w");
	if (!f) {
		fprintf(stderr, "cm5ctl: pose save: cannot write %s: %s\n",
			argv[2], strerror(errno));
		return 1;
	}
	fprintf(f, "# cm5ctl pose: id present_position(deg)\n");
	for (i = 0; i < p.n; i++)
		fprintf(f, "%u %.3f\n", p.id[i], p.deg[i]);
	if (fclose(f)) {
		fprintf(stderr, "cm5ctl: pose save: %s: %s\n", argv[2],
			strerror(errno));
		return 1;
	}
	printf("saved %u servo%s to %s\n", p.n, p.n == 1 ? "" : "s", argv[2]);
	return 0;
}

static int pose_load(const char *path, struct pose *p)
{
	char line[128];
	unsigned int id;
	double deg;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "cm5ctl: pose play: cannot read %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	memset(p, 0, sizeof(*p));
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%u %lf", &id, &deg) != 2 ||
		    id > N_ROBOT_CM5_MAX_ID ||
		    p->n >= N_ROBOT_CM5_MAX_DYNAMIXELS) {
			fprintf(stderr, "cm5ctl: pose play: %s: bad line '%s'\n",
				path, line);
			fclose(f);
			return -1;
		}
		p->id[p->n] = (uint8_t)id;
		p->deg[p->n++] = deg;
	}
	fclose(f);
	return p->n ? 0 : -1;
}

/* The position the last pose left servo id at, or -1 if unknown. */
static double pose_find(const struct pose *p, uint8_t id)
{
	unsigned int i;

	for (i = 0; i < p->n; i++)
		if (p->id[i] == id)
			return p->deg[i];
	return -1;
}

/*
 * One pose in seconds: goal position and moving speed for each servo (the
 * 4-byte, 32-servo write format BRBrain users stream), the speed chosen so
 * that every servo arrives when the slowest does.
 */
static int pose_go(struct cm5 *c, const struct pose *p, struct pose *now,
		   double seconds)
{
	const struct cm5_reg *goal = cm5_reg_find(N_ROBOT_CM5_MODEL_AX12,
						  "goal_position");
	const struct cm5_reg *speed = goal + 1;
	struct cm5_fmt_entry e[N_ROBOT_CM5_MAX_DYNAMIXELS];
	int32_t raw[2 * N_ROBOT_CM5_MAX_DYNAMIXELS];
	unsigned int i;
	double from, dps;
	int err, st;

	for (i = 0; i < p->n; i++) {
		e[i] = (struct cm5_fmt_entry){ .id = p->id[i], .start = goal,
					       .nregs = 2 };
		err = cm5_from_natural(goal, p->deg[i], &raw[2 * i]);
		if (err) {
			fprintf(stderr, "cm5ctl: pose play: servo %u: %.3f deg is outside 0..300\n",
				p->id[i], p->deg[i]);
			return EXIT_USAGE;
		}
		from = pose_find(now, p->id[i]);
		dps = from < 0 ? 0 : (p->deg[i] > from ? p->deg[i] - from :
				      from - p->deg[i]) / seconds;
		/* rpm; 0 would be the servo's full speed: at least 1 count */
		if (cm5_from_natural(speed, dps / 6.0, &raw[2 * i + 1]) ||
		    raw[2 * i + 1] < 1)
			raw[2 * i + 1] = 1;
	}
	st = cm5_set_write_format(c, e, p->n);
	if (report("set write format", st))
		return EXIT_STATUS;
	st = cm5_write_raw(c, raw, 2 * p->n);
	if (report("write", st))
		return EXIT_STATUS;
	*now = *p;
	return 0;
}

static int pose_play(struct cm5 *c, int argc, char **argv)
{
	struct pose p, now;
	char path[4096], *at;
	double seconds;
	int i, ret;

	if (argc < 3) {
		fprintf(stderr, "cm5ctl: pose play: expected FILE[@SECONDS]...\n");
		return EXIT_USAGE;
	}
	nbtool_catch_signals(&stop);
	for (i = 2; i < argc && !stop; i++) {
		snprintf(path, sizeof(path), "%s", argv[i]);
		at = strrchr(path, '@');
		seconds = 1.0;
		if (at) {
			*at = 0;
			seconds = atof(at + 1);
		}
		if (!(seconds > 0) || pose_load(path, &p))
			return EXIT_USAGE;
		if (i == 2) {
			now = p;
			if (read_positions(c, &now))
				return 1;
		}
		ret = pose_go(c, &p, &now, seconds);
		if (ret)
			return ret;
		printf("%s: %u servo%s, %.2f s\n", path, p.n, p.n == 1 ? "" : "s",
		       seconds);
		fflush(stdout);
		usleep((useconds_t)(seconds * 1e6));
	}
	if (stop) {
		/* the servos go on to the goal already written */
		fprintf(stderr, "cm5ctl: pose play: interrupted\n");
		return 128 + stop;
	}
	return 0;
}

int cmd_pose(void *dev, int argc, char **argv)
{
	struct cm5 *c = dev;
	if (argc >= 2 && !strcmp(argv[1], "save"))
		return pose_save(c, argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "play"))
		return pose_play(c, argc, argv);
	fprintf(stderr, "cm5ctl: pose: expected 'save FILE ID...' or 'play FILE[@SECONDS]...'\n");
	return EXIT_USAGE;
}
