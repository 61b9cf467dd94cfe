// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl record: naobodyd's States and events, with the time each came, in
 * a file a person or the status page replays (Documentation/rest-api.rst,
 * "Recordings"). JSON Lines: the first line says what the file is,
 *
 *	{"naobody_recording": 1, "robot": {GET /robot}, "rate": HZ}
 *
 * then one line per message of GET /events, as it arrived:
 *
 *	{"t": SECONDS_SINCE_THE_EPOCH, "event": "state", "data": {...}}
 *
 * "t" is this machine's clock at arrival; a State's own "time" is the
 * robot's, when the body state was taken.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "naoctl.h"
#include "remote.h"

static volatile sig_atomic_t quit;

static void on_signal(int sig)
{
	quit = sig;
}

struct recording {
	FILE *f;
	long states;		/* to go; -1: no limit */
	double until;		/* CLOCK_REALTIME s; 0: none */
	long written;
	int err;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int one(const char *kind, json_t *data, void *ctx)
{
	struct recording *r = ctx;
	json_t *line = json_pack("{s:f, s:s, s:O}", "t", now_s(), "event", kind, "data", data);
	char *text = line ? json_dumps(line, JSON_COMPACT | JSON_REAL_PRECISION(16)) : NULL;

	json_decref(line);
	if (!text || fprintf(r->f, "%s\n", text) < 0 || fflush(r->f)) {
		free(text);
		r->err = 1;
		return 1;
	}
	free(text);
	if (!strcmp(kind, "state")) {
		r->written++;
		if (r->states > 0 && !--r->states)
			return 1;
	}
	return quit || (r->until && now_s() >= r->until) ? 1 : 0;
}

int record_main(int argc, char **argv)
{
	static const struct option longopts[] = { REMOTE_LONG_OPTIONS,
		{ "rate", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 } };
	struct recording rec = { .states = -1 };
	struct remote r = { 0 };
	bool remote = false;
	double rate = 25, seconds = 0;
	json_t *robot, *head;
	char *text;
	int c, rc;

	snprintf(r.url, sizeof(r.url), "http://localhost:%d", NAOCTL_REST_PORT);
	while ((c = getopt_long(argc, argv, "r:n:t:hH:", longopts, NULL)) != -1) {
		int taken = remote_option(&r, c, optarg, &remote);
		char *end;

		if (taken < 0)
			return 2;
		if (taken)
			continue;
		if (c == 'r' && (rate = strtod(optarg, &end)) > 0 && rate <= 100 && !*end)
			continue;
		if (c == 'n' && (rec.states = strtol(optarg, &end, 10)) > 0 && !*end)
			continue;
		if (c == 't' && (seconds = strtod(optarg, &end)) > 0 && !*end)
			continue;
		if (c == 'r' || c == 'n' || c == 't')
			fprintf(stderr, "%s: record: -%c %s: expected %s\n", naoctl_prog, c, optarg,
				c == 'r' ? "a rate in (0, 100] Hz" : c == 'n' ? "a positive count" :
				"seconds above 0");
		else
			printf("Usage: %s record [--host HOST[:PORT]] [-r HZ] [-n STATES] [-t SECONDS] "
			       "FILE\n\n"
			       "Writes naobodyd's States (HZ a second, default 25) and events to FILE,\n"
			       "one JSON line each with the time it came, until Ctrl-C, STATES States\n"
			       "or SECONDS. The status page replays it. The daemon is read over its\n"
			       "REST API (default localhost), never taking the body.\n\n" REMOTE_HELP,
			       naoctl_prog);
		return c == 'h' ? 0 : 2;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "%s: record: one FILE to write (- for standard output)\n",
			naoctl_prog);
		return 2;
	}
	if (remote_ready(&r))
		return 1;
	robot = remote_get(&r, "/robot");
	if (!robot)
		return 1;
	rec.f = strcmp(argv[optind], "-") ? fopen(argv[optind], "w") : stdout;
	if (!rec.f) {
		perror(argv[optind]);
		json_decref(robot);
		return 1;
	}
	head = json_pack("{s:i, s:o, s:f}", "naobody_recording", 1, "robot", robot, "rate", rate);
	text = head ? json_dumps(head, JSON_COMPACT) : NULL;
	json_decref(head);
	if (!text || fprintf(rec.f, "%s\n", text) < 0) {
		free(text);
		return 1;
	}
	free(text);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (seconds)
		rec.until = now_s() + seconds;
	rc = remote_events(&r, rate, one, &rec);
	if (rec.f != stdout && fclose(rec.f))
		rec.err = 1;
	if (rec.err)
		fprintf(stderr, "%s: record: %s: cannot write\n", naoctl_prog, argv[optind]);
	else
		fprintf(stderr, "%s: record: %ld States in %s\n", naoctl_prog, rec.written,
			argv[optind]);
	return rc > 0 && !rec.err ? 0 : 1;
}
