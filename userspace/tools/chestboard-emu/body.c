// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scripted body, in counts (struct naobody_sensors), one step per
 * received frame: cycle n is frame n.
 *
 *   base    what was set: a standing robot by default (boards.c makes it
 *           from LoLA units with libnaobody and the preference block's
 *           calibration), then whatever the control socket sets
 *   waves   added to base: sine, square, triangle, ramp, linear
 *   touches touch bits pressed from one cycle for a number of cycles
 *   drain   the battery's charge falls by so many counts per 1000 cycles
 *   follow  joints with stiffness above 0 move toward their targets
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "emu.h"

enum { S32, U32, U8 };

static const struct body_field {
	const char *name;
	size_t off;
	unsigned char type;
	unsigned char count;
} fields[] = {
#define F(n, t, c) { #n, offsetof(struct naobody_sensors, n), t, c }
	F(accelerometer, S32, 3),
	F(gyroscope, S32, 3),
	F(angles, S32, 2),
	F(battery_charge, S32, 1),
	F(battery_status, S32, 1),
	F(battery_current, S32, 1),
	F(battery_temperature, S32, 1),
	F(fsr, S32, NAOBODY_FSRS),
	F(sonar, S32, 2),
	F(touch, U32, 1),
	F(joint_position, S32, NAOBODY_JOINTS),
	F(joint_current, S32, NAOBODY_JOINTS),
	F(joint_temperature, S32, NAOBODY_JOINTS),
	F(joint_status, U8, NAOBODY_JOINTS),
#undef F
};

#define NFIELDS ((int)(sizeof(fields) / sizeof(fields[0])))

int body_field(const char *name)
{
	for (int i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, name))
			return i;
	return -ENOENT;
}

static int32_t get(const struct naobody_sensors *s, int f, unsigned int i)
{
	const unsigned char *p = (const unsigned char *)s + fields[f].off;

	switch (fields[f].type) {
	case U32:
		return (int32_t)((const uint32_t *)p)[i];
	case U8:
		return p[i];
	default:
		return ((const int32_t *)p)[i];
	}
}

static void put(struct naobody_sensors *s, int f, unsigned int i, int64_t v)
{
	unsigned char *p = (unsigned char *)s + fields[f].off;

	switch (fields[f].type) {
	case U32:
		((uint32_t *)p)[i] = (uint32_t)v;
		break;
	case U8:
		p[i] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
		break;
	default:
		if (v > INT32_MAX)
			v = INT32_MAX;
		if (v < INT32_MIN)
			v = INT32_MIN;
		((int32_t *)p)[i] = (int32_t)v;
		break;
	}
}

int body_set(struct emu_body *b, int field, unsigned int index, int32_t v)
{
	if (field < 0 || field >= NFIELDS || index >= fields[field].count)
		return -EINVAL;
	put(&b->base, field, index, v);
	put(&b->now, field, index, v);
	if (field == body_field("joint_position"))
		b->target[index] = v;
	return 0;
}

int body_get(struct emu_body *b, int field, unsigned int index, int32_t *v)
{
	if (field < 0 || field >= NFIELDS || index >= fields[field].count)
		return -EINVAL;
	*v = get(&b->now, field, index);
	return 0;
}

int body_wave_shape(const char *name)
{
	static const char *const names[] = {
		[WAVE_NONE] = "none", [WAVE_SINE] = "sine",
		[WAVE_SQUARE] = "square", [WAVE_TRIANGLE] = "triangle",
		[WAVE_RAMP] = "ramp", [WAVE_LINEAR] = "linear",
	};

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(names[i], name))
			return i;
	return -ENOENT;
}

/*
 * A wave on (field, index) replaces the one there; shape "none" removes
 * it. It starts at the current cycle.
 */
int body_wave(struct emu_body *b, int field, unsigned int index, int shape,
	      int32_t amplitude, uint32_t period)
{
	struct emu_wave *w = NULL;

	if (field < 0 || field >= NFIELDS || index >= fields[field].count)
		return -EINVAL;
	if (shape != WAVE_NONE && shape != WAVE_LINEAR && !period)
		return -EINVAL;
	for (int i = 0; i < EMU_MAX_WAVES; i++) {
		if (b->wave[i].shape != WAVE_NONE && b->wave[i].field == field &&
		    b->wave[i].index == index) {
			w = &b->wave[i];
			break;
		}
	}
	if (shape == WAVE_NONE) {
		if (w)
			w->shape = WAVE_NONE;
		return 0;
	}
	for (int i = 0; !w && i < EMU_MAX_WAVES; i++)
		if (b->wave[i].shape == WAVE_NONE)
			w = &b->wave[i];
	if (!w)
		return -ENOSPC;
	w->field = field;
	w->index = index;
	w->shape = shape;
	w->amplitude = amplitude;
	w->period = period;
	w->start = b->next;		/* the next frame is its phase 0 */
	return 0;
}

static int64_t wave_value(const struct emu_wave *w, uint64_t cycle)
{
	uint64_t t = cycle >= w->start ? cycle - w->start : 0;
	double ph = w->period ? (double)(t % w->period) / w->period : 0;

	switch (w->shape) {
	case WAVE_SINE:
		return lround(w->amplitude * sin(2 * M_PI * ph));
	case WAVE_SQUARE:
		return ph < 0.5 ? w->amplitude : -(int64_t)w->amplitude;
	case WAVE_TRIANGLE:
		return lround(w->amplitude * (ph < 0.5 ? 4 * ph - 1 : 3 - 4 * ph));
	case WAVE_RAMP:
		return (int64_t)w->amplitude * (int64_t)(t % w->period) / w->period;
	case WAVE_LINEAR:
		return (int64_t)w->amplitude * (int64_t)t;
	}
	return 0;
}

int body_touch(struct emu_body *b, unsigned int bit, uint64_t start, uint32_t n)
{
	if (bit >= NAOBODY_TOUCHES || !n)
		return -EINVAL;
	for (int i = 0; i < EMU_MAX_TOUCHES; i++) {
		struct emu_touch *t = &b->touch[i];

		if (t->end > t->start && t->end > b->next)
			continue;	/* still to come or going on */
		t->bit = bit;
		t->start = start;
		t->end = start + n;
		return 0;
	}
	return -ENOSPC;
}

/* What the latest targets say: a frame's boards in targets got theirs. */
void body_command(struct emu_body *b, const struct naobody_actuators *a,
		  uint64_t targets)
{
	for (unsigned int i = 0; i < NB_BOARDS; i++) {
		const struct nb_board_desc *d = nb_board(i);

		if (!(targets & (1ULL << i)))
			continue;
		for (unsigned int j = 0; j < d->joints; j++) {
			b->target[d->joint[j]] = a->position[d->joint[j]];
			b->stiffness[d->joint[j]] = a->stiffness[d->joint[j]];
		}
	}
}

void body_step(struct emu_body *b, uint64_t cycle, bool follow)
{
	b->cycle = cycle;
	b->next = cycle + 1;

	/* A stiff joint closes stiffness/2 per mille of its error per cycle. */
	for (int j = 0; follow && j < NAOBODY_JOINTS; j++) {
		int64_t err = (int64_t)b->target[j] - b->base.joint_position[j];
		int64_t step;

		if (!b->stiffness[j] || !err)
			continue;
		step = err * b->stiffness[j] / 2000;
		if (!step)
			step = err > 0 ? 1 : -1;
		b->base.joint_position[j] += (int32_t)step;
	}

	b->drain_acc += b->drain;
	while (b->drain_acc >= 1000) {
		b->drain_acc -= 1000;
		if (b->base.battery_charge > 0)
			b->base.battery_charge--;
	}

	b->now = b->base;
	for (int i = 0; i < EMU_MAX_WAVES; i++) {
		const struct emu_wave *w = &b->wave[i];

		if (w->shape == WAVE_NONE)
			continue;
		put(&b->now, w->field, w->index,
		    (int64_t)get(&b->base, w->field, w->index) + wave_value(w, cycle));
	}
	for (int i = 0; i < EMU_MAX_TOUCHES; i++) {
		const struct emu_touch *t = &b->touch[i];

		if (cycle >= t->start && cycle < t->end)
			b->now.touch |= 1U << t->bit;
	}
}

void body_init(struct emu_body *b)
{
	memset(b->wave, 0, sizeof(b->wave));
	memset(b->touch, 0, sizeof(b->touch));
	for (int j = 0; j < NAOBODY_JOINTS; j++) {
		b->target[j] = b->base.joint_position[j];
		b->stiffness[j] = 0;
	}
	b->now = b->base;
	b->drain = 0;
	b->drain_acc = 0;
	b->cycle = 0;
	b->next = 0;
}
