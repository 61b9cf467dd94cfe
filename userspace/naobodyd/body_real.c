// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the real body, through /dev/naobody and libnaobody.
 *
 * The daemon holds the controller role for as long as it runs; naobody.ko
 * ramps the body down when it goes. libnaobody is its only way to the
 * device: the loop waits on nb_wait_fd(), which wakes once per record, and
 * each cycle takes the newest record with nb_newest() (older ones a late
 * cycle missed are passed over: the body is driven from the present).
 * Units and calibration are libnaobody's; a frame says
 * BODY_F_UNCALIBRATED until libnaobody has the body's own.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <naobody/naobody.h>

#include "body.h"
#include "head/head_bus.h"
#include "log.h"
#include "naobodyd.h"
#include "nb_codec.h"
#include "robot_motions.h"

struct real {
	struct body b;
	struct nb_device *d;
	float charge;			/* the last charge in range (0 before any) */
	char statistics[PATH_MAX];	/* the device's sysfs statistics/, "" if unknown */
};

static struct real *to_real(struct body *b)
{
	return (struct real *)b;
}

static int real_fd(struct body *b)
{
	return nb_wait_fd(to_real(b)->d);
}

static int real_read(struct body *b, struct body_frame *f)
{
	struct real *r = to_real(b);
	struct naobody_record rec;
	int n = nb_newest(r->d, &rec);

	if (n <= 0)
		return n;
	memset(f, 0, sizeof(*f));
	/*
	 * libnaobody drops a charge outside 0..1 (it leaves the value as it
	 * was): as it was is the last good one, not the 0 of a fresh frame,
	 * which a client would take for an empty battery.
	 */
	f->s.battery[0] = r->charge;
	f->cycle = rec.cycle;
	f->time_ns = rec.in_complete_ns;
	if (rec.flags & NAOBODY_REC_STOPPED)
		f->flags |= BODY_F_STOPPED;
	if (rec.flags & NAOBODY_REC_NO_ANSWER)
		f->flags |= BODY_F_NO_ANSWER;
	/* Asks the driver at most once a second until the block is read. */
	if (nb_calibration_state(r->d) != NAOBODY_CALIB_READ)
		f->flags |= BODY_F_UNCALIBRATED;
	nb_record_sensors(r->d, &rec, &f->s);
	r->charge = f->s.battery[0];
	return 1;
}

static int real_write(struct body *b, const struct nb_actuators *a)
{
	return nb_command(to_real(b)->d, a, NAOBODY_SET_ALL);
}

static int real_stop(struct body *b, uint32_t reason)
{
	return nb_stop(to_real(b)->d, reason);
}

static int real_boards(struct body *b, struct naobody_board *out, unsigned int max)
{
	return nb_boards(to_real(b)->d, out, max);
}

static int real_prefs(struct body *b, void *buf, size_t len, uint32_t *flags)
{
	return nb_prefs(to_real(b)->d, buf, len, flags);
}

static const char *real_statistics_dir(struct body *b)
{
	return to_real(b)->statistics[0] ? to_real(b)->statistics : NULL;
}

/* The class device's statistics/ from the node's name, as naoctl status finds it. */
static void find_statistics(struct real *r, const char *device)
{
	char real[PATH_MAX];
	const char *node;

	if (!realpath(device, real))
		return;
	node = strrchr(real, '/');
	if (snprintf(r->statistics, sizeof(r->statistics), "/sys/class/naobody/%s/statistics",
		     node ? node + 1 : real) >= (int)sizeof(r->statistics))
		r->statistics[0] = '\0';
}

static void real_destroy(struct body *b)
{
	nb_close(to_real(b)->d);
	free(b);
}

static const struct body_ops real_ops = {
	.name = "naobody",
	.fd = real_fd,
	.read = real_read,
	.write = real_write,
	.stop = real_stop,
	.boards = real_boards,
	.prefs = real_prefs,
	.statistics_dir = real_statistics_dir,
	.destroy = real_destroy,
};

struct body *body_real_create(const struct config *cfg)
{
	char id[NAOBODY_CHEST_ID_LEN + 1];
	const struct nb_calibration *cal;
	bool walks = false;
	struct real *r;

	/* Before the device: an option it cannot honour stops it at once. */
	if (cfg->robot_motions) {
		char why[512];

		if (robot_motions_check(cfg->robot_motions, nb_layout_id(), why, sizeof(why))) {
			log_err("--robot-motions: %s; naobodyd does not start with walking it cannot allow",
				why);
			return NULL;
		}
		walks = true;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->d = nb_open(cfg->device, NB_OPEN_CONTROL);
	if (!r->d) {
		log_err("cannot open %s as its controller: %s%s", cfg->device, strerror(errno),
			errno == EBUSY ? " (another program holds the role)" : "");
		free(r);
		return NULL;
	}
	find_statistics(r, cfg->device);
	/*
	 * Started with the device, naobodyd comes before the driver has read
	 * the preferences and the id strings: wait for them, within reason.
	 */
	if (nb_wait_ready(r->d, 15000) != 1)
		log_warn("%s: the chest board's start-up has not finished in 15 s: "
			 "no body id, default calibration until it has", cfg->device);

	r->b.ops = &real_ops;
	r->b.info.simulated = false;
	/*
	 * Walking stays off unless a verdict on a capture of a robot confirms
	 * the layout it needs (robot_motions.h): it was only ever checked on
	 * the physical model, and so does the protective fall, which moves the
	 * arms and legs as the body goes down (without it a falling robot's
	 * joints just go soft). Getting up stays off: there is no get-up
	 * motion that works on the model yet (Documentation/naobodyd.rst,
	 * "Walking" and "Falls").
	 */
	r->b.info.can_stand_up = false;
	r->b.info.can_walk = walks;
	r->b.info.can_protect = walks;
	if (walks)
		log_warn("walking and the protective fall are on: %s confirms the layout %08x this naobodyd was built with",
			 cfg->robot_motions, nb_layout_id());
	/* The eyes, ears and skull are on the head; where is not known (body.h). */
	r->b.info.head_leds = false;
	r->b.info.period_ns = nb_info(r->d)->period_ns;
	r->b.info.has_driver = true;
	snprintf(r->b.info.driver_version, sizeof(r->b.info.driver_version), "%.*s",
		 (int)sizeof(nb_info(r->d)->driver_version),
		 (const char *)nb_info(r->d)->driver_version);
	r->b.info.abi_version = nb_info(r->d)->abi_version;
	r->b.info.chest_version = nb_info(r->d)->chest_version;
	cal = nb_calibration(r->d);
	/* --body-id and --head-id win; the head's id is in its own file (head_bus.h). */
	if (cfg->body_id)
		snprintf(r->b.info.body_id, sizeof(r->b.info.body_id), "%s", cfg->body_id);
	else if (!nb_chest_id(r->d, 3, id))
		snprintf(r->b.info.body_id, sizeof(r->b.info.body_id), "%s", id);
	else if (cal->present & NB_CAL_BODY_ID)
		snprintf(r->b.info.body_id, sizeof(r->b.info.body_id), "%s", cal->body_id);
	head_id_choose(cfg, "", r->b.info.head_id);
	if (cal->present & NB_CAL_BODY_VERSION)
		snprintf(r->b.info.body_version, sizeof(r->b.info.body_version), "%.7s",
			 cal->body_version);
	log_info("%s: chest board %08x, body %s, %u us cycle", cfg->device,
		 nb_info(r->d)->chest_version,
		 r->b.info.body_id[0] ? r->b.info.body_id : "(unknown id)",
		 r->b.info.period_ns / 1000);
	return &r->b;
}
