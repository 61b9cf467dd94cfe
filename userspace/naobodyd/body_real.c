// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd: the real body, through /dev/naobody and libnaobody.
 *
 * The daemon holds the controller role for as long as it runs; naobody.ko
 * ramps the body down when it goes. It follows the newest record with
 * read(), which also rearms the file's poll, so the loop wakes once per
 * cycle. Units and calibration are libnaobody's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <naobody/naobody.h>

#include "body.h"
#include "log.h"
#include "naobodyd.h"

struct real {
	struct body b;
	struct nb_device *d;
};

static struct real *to_real(struct body *b)
{
	return (struct real *)b;
}

static int real_fd(struct body *b)
{
	return nb_fd(to_real(b)->d);
}

static int real_read(struct body *b, struct body_frame *f)
{
	struct real *r = to_real(b);
	struct naobody_record rec;
	ssize_t n = read(nb_fd(r->d), &rec, sizeof(rec));

	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n != sizeof(rec))
		return -EIO;
	memset(f, 0, sizeof(*f));
	f->cycle = rec.cycle;
	f->time_ns = rec.in_complete_ns;
	if (rec.flags & NAOBODY_REC_STOPPED)
		f->flags |= BODY_F_STOPPED;
	if (rec.flags & NAOBODY_REC_NO_ANSWER)
		f->flags |= BODY_F_NO_ANSWER;
	nb_record_sensors(r->d, &rec, &f->s);
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
	.destroy = real_destroy,
};

struct body *body_real_create(const struct config *cfg)
{
	char id[NAOBODY_CHEST_ID_LEN + 1];
	const struct nb_calibration *cal;
	struct real *r;

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
	fcntl(nb_fd(r->d), F_SETFL, fcntl(nb_fd(r->d), F_GETFL) | O_NONBLOCK);
	/*
	 * Started with the device, naobodyd comes before the driver has read
	 * the preferences and the id strings: wait for them, within reason.
	 */
	if (nb_wait_ready(r->d, 15000) != 1)
		log_warn("%s: the chest board's start-up has not finished in 15 s: "
			 "no body id, default calibration until it has", cfg->device);

	r->b.ops = &real_ops;
	r->b.info.simulated = false;
	/* No walking engine yet, and getting up is not safe without one. */
	r->b.info.can_walk = false;
	r->b.info.can_stand_up = false;
	r->b.info.period_ns = nb_info(r->d)->period_ns;
	cal = nb_calibration(r->d);
	/* --body-id and --head-id win; the head has no source of its own yet. */
	if (cfg->body_id)
		snprintf(r->b.info.body_id, sizeof(r->b.info.body_id), "%s", cfg->body_id);
	else if (!nb_chest_id(r->d, 3, id))
		snprintf(r->b.info.body_id, sizeof(r->b.info.body_id), "%s", id);
	else if (cal->present & NB_CAL_BODY_ID)
		snprintf(r->b.info.body_id, sizeof(r->b.info.body_id), "%s", cal->body_id);
	if (cfg->head_id)
		snprintf(r->b.info.head_id, sizeof(r->b.info.head_id), "%s", cfg->head_id);
	if (cal->present & NB_CAL_BODY_VERSION)
		snprintf(r->b.info.body_version, sizeof(r->b.info.body_version), "%.7s",
			 cal->body_version);
	log_info("%s: chest board %08x, body %s, %u us cycle", cfg->device,
		 nb_info(r->d)->chest_version,
		 r->b.info.body_id[0] ? r->b.info.body_id : "(unknown id)",
		 r->b.info.period_ns / 1000);
	return &r->b;
}
