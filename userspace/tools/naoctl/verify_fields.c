// SPDX-License-Identifier: GPL-2.0-only
/*
 * naoctl verify, the messages: which board answers at which address, and
 * where each field sits, how wide, signed or not, in which byte order and
 * at which scale, found by putting every candidate next to LoLA's value of
 * the same moment.
 *
 * A candidate (offset, width, sign, byte order) fits when one line maps
 * its counts onto LoLA's values within half a count at every sample: the
 * slope is the scale (divided by the codec's to give a ratio, which must
 * be a simple fraction), the intercept a calibration offset where the
 * field has one (joint zeros, inertial unit offsets, pressure sensor
 * offsets) and zero where it has none. A field is decided when exactly
 * one candidate fits (candidates that differ only in a sign the values
 * never test count as one); LoLA's value must move for that, and
 * naocap's script makes it move.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nb_codec.h"
#include "nb_layout.h"	/* the message kinds (spec) */
#include <linux/naobody.h>
#include "verify.h"

#define SEARCH_SAMPLES	800	/* candidates are searched on at most these */
#define LAGS		3	/* LoLA may be up to 2 frames behind */

struct cand {
	struct lay_field f;	/* offset, width, sign, order; scale found */
	double b;		/* intercept */
	int64_t p, q;		/* scale = ours * p / q */
};

/* What LoLA shows of a field */
struct vfield {
	const char *name;
	int key;		/* LOLA_K_* */
	double factor;		/* LoLA unit per the field's unit */
	bool intercept;		/* a calibration offset is expected */
	bool command;		/* compare with the recorder's command */
	bool judge_scale;	/* false: the scale is calibration (FSR) */
};

static const struct vfield vfields[] = {
	{ "imu.acc_x", LOLA_K_ACC, 1, true, false, true },
	{ "imu.acc_y", LOLA_K_ACC, 1, true, false, true },
	{ "imu.acc_z", LOLA_K_ACC, 1, true, false, true },
	{ "imu.gyr_x", LOLA_K_GYRO, M_PI / 180, true, false, true },
	{ "imu.gyr_y", LOLA_K_GYRO, M_PI / 180, true, false, true },
	{ "imu.gyr_z", LOLA_K_GYRO, M_PI / 180, true, false, true },
	{ "imu.angle_x", LOLA_K_ANGLES, 1, true, false, true },
	{ "imu.angle_y", LOLA_K_ANGLES, 1, true, false, true },
	{ "battery.charge", LOLA_K_BATTERY, 1, false, false, true },
	{ "battery.status", LOLA_K_BATTERY, 1, false, false, true },
	{ "battery.current", LOLA_K_BATTERY, 1, false, false, true },
	{ "battery.temperature", LOLA_K_BATTERY, 1, false, false, true },
	{ "sonar.left", LOLA_K_SONAR, 1, false, false, true },
	{ "sonar.right", LOLA_K_SONAR, 1, false, false, true },
	{ "joint.position", LOLA_K_POSITION, 2 * M_PI, true, false, true },
	{ "joint.current", LOLA_K_CURRENT, 1, false, false, true },
	{ "joint.temperature", LOLA_K_TEMPERATURE, 1, false, false, true },
	{ "joint.status", LOLA_K_STATUS, 1, false, false, true },
	{ "foot.fsr_front_left", LOLA_K_FSR, 1, true, false, false },
	{ "foot.fsr_front_right", LOLA_K_FSR, 1, true, false, false },
	{ "foot.fsr_rear_left", LOLA_K_FSR, 1, true, false, false },
	{ "foot.fsr_rear_right", LOLA_K_FSR, 1, true, false, false },
	{ "targets.position", LOLA_K_POSITION, 2 * M_PI, true, true, true },
	{ "targets.stiffness", LOLA_K_STIFFNESS, 1, false, true, true },
	{ "chest_led.red", LOLA_K_CHEST, 1, false, true, true },
	{ "chest_led.green", LOLA_K_CHEST, 1, false, true, true },
	{ "chest_led.blue", LOLA_K_CHEST, 1, false, true, true },
	{ "foot_leds.red", LOLA_K_LFOOT, 1, false, true, true },
	{ "foot_leds.green", LOLA_K_LFOOT, 1, false, true, true },
	{ "foot_leds.blue", LOLA_K_LFOOT, 1, false, true, true },
};

static const struct vfield *vfield(const char *name)
{
	for (size_t i = 0; i < sizeof(vfields) / sizeof(vfields[0]); i++)
		if (!strcmp(vfields[i].name, name))
			return &vfields[i];
	return NULL;
}

/* ------------------------------------------------------------------------
 * Groups and the pairing of LoLA's moments with frames
 */
static struct vgroup *group(struct vctx *v, bool out, unsigned int kind,
			    unsigned int bus, unsigned int addr, unsigned int len)
{
	for (unsigned int i = 0; i < v->ng; i++) {
		struct vgroup *g = &v->g[i];

		if (g->out == out && g->kind == kind && g->bus == bus &&
		    g->addr == addr && g->len == len)
			return g;
	}
	return NULL;
}

void v_group_frames(struct vctx *v)
{
	const struct lola_log *log = &v->nc->lola;

	for (int d = 0; d < 2; d++) {
		struct vframe *fr = d ? v->out : v->in;
		size_t n = d ? v->nout : v->nin;

		for (size_t i = 0; i < n; i++) {
			if (!fr[i].ok)
				continue;
			for (unsigned int k = 0; k < fr[i].n; k++) {
				const uint8_t *m = fr[i].ev->data + fr[i].off[k];
				struct vgroup *g = group(v, d, m[0], m[1], m[2], fr[i].len[k]);

				if (!g) {
					if (v->ng == V_GROUPS)
						continue;
					g = &v->g[v->ng++];
					g->out = d;
					g->kind = m[0];
					g->bus = m[1];
					g->addr = m[2];
					g->len = fr[i].len[k];
					g->msg = calloc(n, sizeof(*g->msg));
					if (!g->msg) {
						v->ng--;
						continue;
					}
				}
				if (!g->msg[i])
					g->count++;
				g->msg[i] = m;
			}
		}
	}
	if (!v->nc->have_lola)
		return;
	v->s_in = malloc((log->ns + 1) * sizeof(long));
	v->c_out = malloc((log->nc + 1) * sizeof(long));
	if (!v->s_in || !v->c_out)
		return;
	/* a sensor packet shows the newest IN frame before it */
	for (size_t s = 0, f = 0; s < log->ns; s++) {
		while (f < v->nin && v->in[f].ev->ts_ns <= log->s[s].ts_ns)
			f++;
		v->s_in[s] = f && log->s[s].ts_ns - v->in[f - 1].ev->ts_ns < 24000000 ? (long)f - 1 : -1;
	}
	/* a command shows in the first OUT frame after it */
	for (size_t c = 0, f = 0; c < log->nc; c++) {
		while (f < v->nout && v->out[f].ev->ts_ns < log->c[c].ts_ns)
			f++;
		v->c_out[c] = f < v->nout && v->out[f].ev->ts_ns - log->c[c].ts_ns < 36000000 ? (long)f : -1;
	}
}

/* The pairs (message, LoLA value) of one group and one LoLA value */
struct series {
	const uint8_t **m;
	double *y;
	size_t n;
};

static void series_free(struct series *s)
{
	free(s->m);
	free(s->y);
	s->m = NULL;
	s->y = NULL;
	s->n = 0;
}

static int series(struct vctx *v, const struct vgroup *g, const struct vfield *vf,
		  int key, int index, int lag, size_t max, struct series *out)
{
	const struct lola_log *log = &v->nc->lola;
	size_t total = vf->command ? log->nc : log->ns, step, k = 0;

	out->n = 0;
	out->m = malloc((total + 1) * sizeof(*out->m));
	out->y = malloc((total + 1) * sizeof(*out->y));
	if (!out->m || !out->y || !v->s_in || !v->c_out) {
		series_free(out);
		return -ENOMEM;
	}
	step = max && total > max ? total / max : 1;
	for (size_t s = 0; s < total; s += step) {
		long f = vf->command ? v->c_out[s] + lag : v->s_in[s] - lag;
		const float *a;

		if (vf->command ? (v->c_out[s] < 0 || f >= (long)v->nout) : (v->s_in[s] < 0 || f < 0))
			continue;
		if (!g->msg[f])
			continue;
		a = vf->command ? lola_command_slot(&log->c[s], key) : lola_sensor_slot(&log->s[s], key);
		if (!a || !isfinite(a[index]))
			continue;
		out->m[k] = g->msg[f];
		out->y[k] = a[index];
		k++;
	}
	out->n = k;
	return 0;
}

/* ------------------------------------------------------------------------
 * Fitting
 */

/* the simplest p/q (q <= 10000) within tol of r (r > 0) */
static bool simple_ratio(double r, double tol, int64_t *p, int64_t *q)
{
	int64_t h0 = 0, h1 = 1, k0 = 1, k1 = 0;
	double x = r;

	for (int i = 0; i < 40; i++) {
		double a = floor(x);
		int64_t h2 = (int64_t)a * h1 + h0, k2 = (int64_t)a * k1 + k0;

		if (k2 > 10000)
			break;
		h0 = h1, h1 = h2, k0 = k1, k1 = k2;
		if (fabs((double)h1 / (double)k1 - r) <= tol * r) {
			*p = h1;
			*q = k1;
			return true;
		}
		if (x - a < 1e-12)
			break;
		x = 1 / (x - a);
	}
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* How many different counts (or LoLA values) the series has */
static size_t distinct_values(const struct series *s, const struct lay_field *f, bool lola)
{
	double *v = malloc(s->n * sizeof(*v));
	size_t n = 0;
	bool ok;

	if (!v)
		return 0;
	for (size_t i = 0; i < s->n; i++)
		v[i] = lola ? s->y[i] : (double)lay_get_value(s->m[i], 255, f, 0, &ok);
	qsort(v, s->n, sizeof(*v), cmp_double);
	for (size_t i = 0; i < s->n; i++)
		n += !i || v[i] != v[i - 1];
	free(v);
	return n;
}

/* Does the candidate in c fit s; k_ours the codec's LoLA units per count */
static bool fit(const struct series *s, const struct vfield *vf, double k_ours,
		struct cand *c, size_t *distinct)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, k, kp, b = 0, n = (double)s->n;
	double xmin = INFINITY, xmax = -INFINITY, tol;
	int64_t p = 1, q = 1, sign = 1;
	bool ok;

	if (s->n < 8)
		return false;
	for (size_t i = 0; i < s->n; i++) {
		double x = (double)lay_get_value(s->m[i], 255, &c->f, 0, &ok);

		if (!ok)
			return false;
		sx += x, sy += s->y[i], sxx += x * x, sxy += x * s->y[i], syy += s->y[i] * s->y[i];
		xmin = fmin(xmin, x);
		xmax = fmax(xmax, x);
	}
	*distinct = xmin == xmax ? 1 : 2;
	if (xmin == xmax)
		return false;
	if (vf->intercept) {
		double d = n * sxx - sx * sx;

		k = (n * sxy - sx * sy) / d;
	} else {
		k = sxy / sxx;
	}
	if (!isfinite(k) || k == 0)
		return false;
	if (vf->judge_scale) {
		double r = k / k_ours;

		if (r < 0) {
			sign = -1;
			r = -r;
		}
		/* commands are rounded by HAL: the slope is only near */
		if (!simple_ratio(r, vf->command ? 5e-3 : 2e-4, &p, &q))
			return false;
		kp = k_ours * (double)(sign * p) / (double)q;
	} else {
		kp = k;
	}
	if (vf->intercept)
		b = (sy - kp * sx) / n;
	/*
	 * LoLA's sensor values are the counts times the scale (float32): they
	 * must agree to float precision. A command is rounded to a count by
	 * HAL: it may be off by half a count.
	 */
	tol = vf->command ? 0.5 * fabs(kp) * 1.001 : 1e-4 * fabs(kp);
	for (size_t i = 0; i < s->n; i++) {
		double x = (double)lay_get_value(s->m[i], 255, &c->f, 0, &ok);
		double e = fabs(s->y[i] - (kp * x + b));

		if (e > tol + 2e-6 * fabs(s->y[i]))
			return false;
	}
	(void)syy;
	/*
	 * One count per value: a reading that lumps many of LoLA's values
	 * into few counts (the high byte of a wider field, with its huge
	 * scale) is no fit, whatever the tolerance lets through.
	 */
	if (distinct_values(s, &c->f, false) * 2 < distinct_values(s, &c->f, true))
		return false;
	c->p = sign * p;
	c->q = q;
	c->b = b;
	return true;
}

static bool varies(const struct series *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (s->y[i] != s->y[0])
			return true;
	return false;
}

/*
 * Every candidate inside the group's messages; the fits in out (at most
 * max). Candidates that differ only in a sign the values don't test are
 * kept once, with the codec's sign.
 */
static unsigned int search(const struct series *s, unsigned int len,
			   const struct vfield *vf, double k_ours, const struct lay_field *ours,
			   struct cand *out, unsigned int max)
{
	static const int widths[] = { 1, 2, 4 };
	unsigned int n = 0;

	for (unsigned int off = 3; off < len; off++) {
		for (int wi = 0; wi < 3; wi++) {
			for (int little = 0; little < 2; little++) {
				bool fits[2] = { false, false };
				struct cand c[2];
				size_t distinct;

				if (off + widths[wi] > len || (widths[wi] == 1 && little))
					continue;
				for (int sg = 0; sg < 2; sg++) {
					memset(&c[sg], 0, sizeof(c[sg]));
					c[sg].f.offset = (int)off;
					c[sg].f.width = widths[wi];
					c[sg].f.little = little;
					c[sg].f.is_signed = sg;
					fits[sg] = fit(s, vf, k_ours, &c[sg], &distinct);
				}
				if (fits[0] && fits[1]) {	/* the sign is not tested */
					fits[!ours->is_signed] = false;
				}
				for (int sg = 0; sg < 2; sg++)
					if (fits[sg] && n < max)
						out[n++] = c[sg];
			}
		}
	}
	return n;
}

static void describe(char *buf, size_t len, const struct lay_field *f)
{
	int n = snprintf(buf, len, "offset %d, %d byte%s, %s, %s endian", f->offset, f->width,
			 f->width > 1 ? "s" : "", f->is_signed ? "signed" : "unsigned",
			 f->little ? "little" : "big");

	if (n > 0 && (size_t)n < len && f->den)
		n += snprintf(buf + n, len - (size_t)n, ", scale %lld/%lld", (long long)f->num,
			      (long long)f->den);
	if (n > 0 && (size_t)n < len && f->stride)
		snprintf(buf + n, len - (size_t)n, ", stride %d", f->stride);
}

static int64_t gcd64(int64_t a, int64_t b)
{
	if (a < 0)
		a = -a;
	while (b) {
		int64_t t = a % b;

		a = b;
		b = t;
	}
	return a ? a : 1;
}

/* Put the found candidate's scale into the field: ours * p / q, reduced */
static void scale_of(const struct lay_field *ours, const struct cand *c, struct lay_field *out)
{
	int64_t num = ours->num * c->p, den = ours->den * c->q, g;

	if (c->p == c->q) {
		num = ours->num;
		den = ours->den;
	} else {
		g = gcd64(num, den);
		num /= g;
		den /= g;
	}
	out->num = num;
	out->den = den;
}

static bool same_field(const struct lay_field *a, const struct lay_field *b)
{
	return a->offset == b->offset && a->width == b->width && a->is_signed == b->is_signed &&
	       a->little == b->little && a->num * b->den == b->num * a->den &&
	       a->stride == b->stride;
}

static void field_verdict(struct vctx *v, const char *name, const struct lay_field *found,
			  const char *evidence)
{
	const struct lay_field *ours = layout_field_c(&v->ours, name);
	struct lay_field *fl = layout_field(&v->found, name);
	bool same = same_field(ours, found);
	struct ventry *e = v_entry(v, name, same ? V_CONFIRMED : V_CONTRADICTED, "%s", evidence);

	describe(e->ours, sizeof(e->ours), ours);
	if (!same)
		describe(e->found, sizeof(e->found), found);
	if (fl) {
		*fl = *found;
		snprintf(fl->name, sizeof(fl->name), "%s", name);
		fl->set = true;
	}
}

/* The lag at which the inertial unit's fields fit best */
static int in_lag = 0, out_lag = 0;

/* Search one single-message field; returns fits (0 .. max) at the best lag */
static unsigned int search_lags(struct vctx *v, const struct vgroup *g, const struct vfield *vf,
				int key, int index, double k_ours, const struct lay_field *ours,
				struct cand *out, unsigned int max, int *lag, bool *moved, size_t *nsamp)
{
	unsigned int best = 0;
	int l0 = *lag >= 0 ? *lag : 0, l1 = *lag >= 0 ? *lag : LAGS - 1;

	*moved = false;
	*nsamp = 0;
	for (int l = l0; l <= l1; l++) {
		struct series s;
		unsigned int n;

		if (series(v, g, vf, key, index, l, SEARCH_SAMPLES, &s))
			return 0;
		if (varies(&s))
			*moved = true;
		n = search(&s, g->len, vf, k_ours, ours, out, max);
		if (n) {
			*lag = l;
			*nsamp = s.n;
			series_free(&s);
			return n;
		}
		if (s.n > *nsamp)
			*nsamp = s.n;
		series_free(&s);
	}
	return best;
}

/* Verify the fit over every sample, not only the searched ones */
static size_t full_check(struct vctx *v, const struct vgroup *g, const struct vfield *vf, int key,
			 int index, int lag, double k_ours, struct cand *c)
{
	struct series s;
	size_t d, n = 0;
	struct cand t = *c;

	if (series(v, g, vf, key, index, lag, 0, &s))
		return 0;
	if (fit(&s, vf, k_ours, &t, &d) && t.p == c->p && t.q == c->q)
		n = s.n;
	series_free(&s);
	return n;
}

static double k_of(const struct lay_field *f, const struct vfield *vf)
{
	return (double)f->num / (double)f->den * vf->factor;
}

/* A field of a message at one known place (inertial unit, battery, ...) */
static void fixed_field(struct vctx *v, const char *name, const struct vgroup *g, int index,
			int *lag, const char *where)
{
	const struct vfield *vf = vfield(name);
	const struct lay_field *ours = layout_field_c(&v->ours, name);
	struct cand c[8];
	struct lay_field found;
	char ev[240];
	unsigned int n;
	size_t nsamp, full;
	bool moved;

	if (!vf || !ours)
		return;
	if (!g) {
		v_entry(v, name, V_NOT_EXERCISED, "no %s message in the capture", where);
		return;
	}
	n = search_lags(v, g, vf, vf->key, index, k_of(ours, vf), ours, c, 8, lag, &moved, &nsamp);
	if (!moved) {
		v_entry(v, name, V_NOT_EXERCISED, "LoLA's value never moved over %zu samples", nsamp);
		return;
	}
	if (n == 0) {
		v_entry(v, name, V_CONTRADICTED,
			"no offset, width, sign or byte order of %s fits LoLA's value at a simple multiple of the codec's scale over %zu samples",
			where, nsamp);
		return;
	}
	if (n > 1) {
		char o[64], p[64];

		describe(o, sizeof(o), &c[0].f);
		describe(p, sizeof(p), &c[1].f);
		v_entry(v, name, V_NOT_EXERCISED,
			"%u readings fit (%s; %s%s): the value never moved enough to tell them apart",
			n, o, p, n > 2 ? "; ..." : "");
		return;
	}
	found = c[0].f;
	found.stride = 0;
	if (vf->judge_scale)
		scale_of(ours, &c[0], &found);
	else
		found.num = ours->num, found.den = ours->den;
	full = full_check(v, g, vf, vf->key, index, *lag, k_of(ours, vf), &c[0]);
	if (!full) {
		v_entry(v, name, V_NOT_EXERCISED,
			"one reading fits the %zu searched samples but not all of them: a glitch, or a wrong guess",
			nsamp);
		return;
	}
	{
		int o = snprintf(ev, sizeof(ev), "%s%s: the only fit of %zu searched samples; all %zu samples agree (lag %d)",
				 where, vf->judge_scale ? "" : " (the scale is the calibration's: not judged)",
				 nsamp, full, *lag);

		if (vf->intercept && o > 0 && (size_t)o < sizeof(ev))
			snprintf(ev + o, sizeof(ev) - (size_t)o, "; calibration offset %.4g", c[0].b);
	}
	field_verdict(v, name, &found, ev);
}

/* ------------------------------------------------------------------------
 * Boards: found by the joint whose positions their bytes carry
 */
struct found_board {
	const struct vgroup *in, *out;
	bool found;
};

static struct found_board fb[NB_BOARDS];

static bool is_hand_joint(int j)
{
	return j == NAOBODY_L_HAND || j == NAOBODY_R_HAND;
}

void v_check_boards(struct vctx *v)
{
	const struct vfield *vpos = vfield("joint.position"), *vfsr = vfield("foot.fsr_front_left");
	const struct lay_field *opos = layout_field_c(&v->ours, "joint.position");
	const struct lay_field *ofsr = layout_field_c(&v->ours, "foot.fsr_front_left");
	char name[64];

	memset(fb, 0, sizeof(fb));
	for (unsigned int b = 0; b < NB_BOARDS; b++) {
		const struct nb_board_desc *d = nb_board(b);
		bool foot = d->kind == NAOBODY_BOARD_FOOT;
		const struct vgroup *hit = NULL;
		unsigned int hits = 0, seen = 0;
		size_t nsamp = 0;
		struct cand c[4];
		bool moved_any = false;
		struct lay_board *lb;

		snprintf(name, sizeof(name), "board.%s", d->name);
		if (!v->nc->have_lola) {
			struct vgroup *g = group(v, false, NB_KIND_DATA, d->bus, d->address, d->len);

			v_entry(v, name, V_NOT_EXERCISED, "without LoLA's values a board is not identified (%s at %02x:%02x)",
				g ? "a message of its length answers" : "nothing answers", d->bus, d->address);
			continue;
		}
		for (unsigned int i = 0; i < v->ng; i++) {
			struct vgroup *g = &v->g[i];
			int lag = in_lag;
			bool moved;
			size_t ns;

			if (g->out || g->kind != NB_KIND_DATA || g->bus > 1 || g->len != d->len)
				continue;
			seen++;
			if (foot) {
				if (search_lags(v, g, vfsr, LOLA_K_FSR, d->fsr, 1, ofsr, c, 4, &lag, &moved, &ns) == 1) {
					hit = g;
					hits++;
				}
			} else {
				int j = d->joint[0];
				double k = is_hand_joint(j) ? 0.001 : k_of(opos, vpos);

				if (search_lags(v, g, vpos, LOLA_K_POSITION, j, k, opos, c, 4, &lag, &moved, &ns) == 1) {
					hit = g;
					hits++;
				}
			}
			moved_any |= moved;
			if (ns > nsamp)
				nsamp = ns;
		}
		if (hits == 1) {
			struct ventry *e;
			bool same = hit->bus == d->bus && hit->addr == d->address;

			e = v_entry(v, name, same ? V_CONFIRMED : V_CONTRADICTED,
				    "LoLA's %s follows the bytes of 02 %02x %02x (%u bytes, %zu messages) and no other of the %u candidate messages",
				    foot ? (d->fsr ? "right foot's pressure" : "left foot's pressure") : "joint position",
				    hit->bus, hit->addr, hit->len, hit->count, seen);
			snprintf(e->ours, sizeof(e->ours), "bus %u, address 0x%02x", d->bus, d->address);
			if (!same)
				snprintf(e->found, sizeof(e->found), "bus %u, address 0x%02x", hit->bus, hit->addr);
			fb[b].in = hit;
			fb[b].found = true;
			lb = layout_board(&v->found, d->name);
			if (lb) {
				lb->bus = hit->bus;
				lb->address = hit->addr;
				lb->set = true;
			}
		} else if (!moved_any) {
			v_entry(v, name, V_NOT_EXERCISED, "LoLA's value for its %s never moved",
				foot ? "pressure sensors" : "first joint");
		} else {
			char at[120] = "";

			for (unsigned int i = 0, o = 0; i < v->ng && o + 8 < sizeof(at); i++) {
				const struct vgroup *g = &v->g[i];

				if (!g->out && g->kind == NB_KIND_DATA && g->bus <= 1 && g->len == d->len)
					o += (unsigned int)snprintf(at + o, sizeof(at) - o, " %02x:%02x",
								    g->bus, g->addr);
			}
			v_entry(v, name, V_NOT_EXERCISED,
				"%u of %u messages of its length (%u bytes; at%s) fit its %s: not identified",
				hits, seen, d->len, at[0] ? at : " none", foot ? "pressure sensor" : "first joint");
		}
	}
	/* its OUT messages at the address found */
	for (unsigned int b = 0; b < NB_BOARDS; b++) {
		const struct nb_board_desc *d = nb_board(b);
		unsigned int len = d->kind == NAOBODY_BOARD_FOOT ? 6 : 3 + 4 * d->joints;

		if (fb[b].found)
			fb[b].out = group(v, true, NB_KIND_REQUEST, fb[b].in->bus, fb[b].in->addr, len);
	}
}

/* ------------------------------------------------------------------------
 * Per-joint fields: each board's joints, in the boards found
 */
static void joint_field(struct vctx *v, const char *name, bool out)
{
	const struct vfield *vf = vfield(name);
	const struct lay_field *ours = layout_field_c(&v->ours, name);
	int off[2] = { -1, -1 }, lag = out ? out_lag : in_lag;
	unsigned int agree[2] = { 0, 0 }, disagree = 0, tried = 0, flat = 0, ambiguous = 0;
	struct lay_field found = { 0 };
	struct cand first = { 0 };
	bool have = false;
	char ev[240];

	if (!vf || !ours)
		return;
	for (unsigned int b = 0; b < NB_BOARDS; b++) {
		const struct nb_board_desc *d = nb_board(b);
		const struct vgroup *g = out ? fb[b].out : fb[b].in;

		if (!fb[b].found || !g || d->kind == NAOBODY_BOARD_FOOT)
			continue;
		for (unsigned int i = 0; i < d->joints; i++) {
			int j = d->joint[i];
			double k = k_of(ours, vf);
			struct cand c[4];
			unsigned int n;
			size_t ns;
			bool moved;

			if (is_hand_joint(j) && vf->key == LOLA_K_POSITION)
				continue;	/* thousandths, not the field's scale */
			tried++;
			n = search_lags(v, g, vf, vf->key, j, k, ours, c, 4, &lag, &moved, &ns);
			if (!moved) {
				flat++;
				continue;
			}
			if (n != 1) {
				ambiguous += n > 1;
				disagree += n == 0;
				continue;
			}
			if (!have) {
				first = c[0];
				have = true;
			} else if (c[0].f.width != first.f.width || c[0].f.little != first.f.little ||
				   c[0].f.is_signed != first.f.is_signed || c[0].p != first.p ||
				   c[0].q != first.q) {
				disagree++;
				continue;
			}
			if (off[i] < 0)
				off[i] = c[0].f.offset;
			if (off[i] == c[0].f.offset)
				agree[i]++;
			else
				disagree++;
		}
	}
	if (!tried) {
		v_entry(v, name, V_NOT_EXERCISED, "no board was identified");
		return;
	}
	if (!have) {
		if (flat == tried)
			v_entry(v, name, V_NOT_EXERCISED, "LoLA's values never moved (%u joints)", tried);
		else if (ambiguous)
			v_entry(v, name, V_NOT_EXERCISED,
				"several readings fit each of %u joints (%u never moved): the values never moved enough to tell them apart",
				ambiguous, flat);
		else
			v_entry(v, name, V_CONTRADICTED,
				"no reading fits any of the %u joints that moved", tried - flat);
		return;
	}
	if (disagree || ambiguous) {
		v_entry(v, name, V_NOT_EXERCISED,
			"joints disagree: %u fit one way, %u another or none, %u ambiguous", agree[0] + agree[1],
			disagree, ambiguous);
		return;
	}
	found = first.f;
	found.offset = off[0] >= 0 ? off[0] : ours->offset;
	found.stride = off[0] >= 0 && off[1] >= 0 ? off[1] - off[0] : ours->stride;
	scale_of(ours, &first, &found);
	snprintf(ev, sizeof(ev),
		 "%u joints fit the same way (first joint of a board: %u, second: %u%s), %u never moved; lag %d",
		 agree[0] + agree[1], agree[0], agree[1],
		 off[1] < 0 ? ", so the stride is not tested" : "", flat, lag);
	field_verdict(v, name, &found, ev);
}

/* The foot boards' pressure sensors and LEDs */
static void foot_field(struct vctx *v, const char *name, int index, bool out)
{
	const struct vfield *vf = vfield(name);
	const struct lay_field *ours = layout_field_c(&v->ours, name);
	struct cand c[2][4];
	unsigned int n[2] = { 0, 0 }, fits = 0;
	int lag = out ? out_lag : in_lag;
	size_t ns = 0, total = 0;
	bool moved_any = false;
	char ev[240];

	if (!vf || !ours)
		return;
	for (int side = 0; side < 2; side++) {
		unsigned int b = side ? NB_BOARDS - 1 : NB_BOARDS - 2;	/* LFoot, RFoot */
		const struct vgroup *g = out ? fb[b].out : fb[b].in;
		int key = vf->key == LOLA_K_LFOOT ? (side ? LOLA_K_RFOOT : LOLA_K_LFOOT) : vf->key;
		int idx = vf->key == LOLA_K_FSR ? nb_board(b)->fsr + index : index;
		bool moved;

		if (!fb[b].found || !g)
			continue;
		n[side] = search_lags(v, g, vf, key, idx, k_of(ours, vf), ours, c[side], 4, &lag, &moved, &ns);
		moved_any |= moved;
		total += ns;
		fits += n[side] == 1;
	}
	if (!moved_any) {
		v_entry(v, name, V_NOT_EXERCISED, "no foot board identified, or LoLA's values never moved");
		return;
	}
	if (!fits || (n[0] == 1 && n[1] == 1 && !same_field(&c[0][0].f, &c[1][0].f)) || n[0] > 1 || n[1] > 1) {
		v_entry(v, name, n[0] > 1 || n[1] > 1 ? V_NOT_EXERCISED : V_CONTRADICTED,
			"left foot: %u candidates fit, right foot: %u", n[0], n[1]);
		return;
	}
	{
		struct cand *k = n[0] == 1 ? &c[0][0] : &c[1][0];
		struct lay_field found = k->f;

		found.stride = 0;
		if (vf->judge_scale)
			scale_of(ours, k, &found);
		else
			found.num = ours->num, found.den = ours->den;
		snprintf(ev, sizeof(ev), "the only fit in %s over %zu samples%s%s",
			 fits == 2 ? "both feet" : "one foot", total,
			 vf->judge_scale ? "" : "; the scale is the calibration's (not judged)",
			 out ? " of the recorder's commands" : "");
		field_verdict(v, name, &found, ev);
	}
}

/* A bit of a message against one of LoLA's touch values */
static void bit_field(struct vctx *v, const char *name, const struct vgroup *g, const int *touch,
		      int nbits)
{
	const struct lay_field *ours = layout_field_c(&v->ours, name);
	const struct lola_log *log = &v->nc->lola;
	int off = -1, bitpos[8], lagged = in_lag;
	unsigned int decided = 0, moved = 0;
	char ev[240], bits[64] = "";

	if (!ours)
		return;
	if (!g) {
		v_entry(v, name, V_NOT_EXERCISED, "its message is not in the capture");
		return;
	}
	for (int t = 0; t < nbits; t++) {
		unsigned int n = 0, hit_off = 0, hit_bit = 0;
		bool seen[2] = { false, false };

		for (size_t s = 0; s < log->ns; s++)
			if (v->s_in[s] - lagged >= 0 && g->msg[v->s_in[s] - lagged])
				seen[log->s[s].touch[touch[t]] > 0.5f] = true;
		bitpos[t] = -1;
		if (!seen[0] || !seen[1])
			continue;
		moved++;
		for (unsigned int o = 3; o < g->len; o++) {
			for (unsigned int bit = 0; bit < 8; bit++) {
				bool ok = true;

				for (size_t s = 0; s < log->ns && ok; s++) {
					long f = v->s_in[s] - lagged;

					if (f < 0 || !g->msg[f])
						continue;
					ok = ((g->msg[f][o] >> bit) & 1) == (log->s[s].touch[touch[t]] > 0.5f);
				}
				if (ok) {
					n++;
					hit_off = o;
					hit_bit = bit;
				}
			}
		}
		if (n == 1) {
			decided++;
			bitpos[t] = (int)hit_bit;
			if (off < 0)
				off = (int)hit_off;
			else if (off != (int)hit_off)
				off = -2;
		}
	}
	if (!moved) {
		v_entry(v, name, V_NOT_EXERCISED, "LoLA's touch value%s never changed", nbits > 1 ? "s" : "");
		return;
	}
	if (decided != moved || off < 0) {
		v_entry(v, name, V_NOT_EXERCISED, "%u of %u touches that changed are found in one bit of one byte",
			decided, moved);
		return;
	}
	for (int t = 0; t < nbits; t++) {
		size_t l = strlen(bits);

		snprintf(bits + l, sizeof(bits) - l, "%s%s", t ? ", " : "",
			 bitpos[t] < 0 ? "?" : (char[]){ (char)('0' + bitpos[t]), 0 });
	}
	{
		struct lay_field found = *ours;
		bool bits_ours = true;

		for (int t = 0; t < nbits; t++)
			bits_ours &= bitpos[t] < 0 || bitpos[t] == t;
		found.offset = off;
		snprintf(ev, sizeof(ev), "LoLA's touch follows bit%s %s of byte %d (%u of %d touches moved)%s",
			 nbits > 1 ? "s" : "", bits, off, moved, nbits,
			 bits_ours ? "" : "; the bits differ from the codec's 0, 1, 2 (fix the decoder)");
		field_verdict(v, name, &found, ev);
		if (!bits_ours)
			v->e[v->ne - 1].verdict = V_CONTRADICTED;
	}
}

static const struct vgroup *msg_group(struct vctx *v, unsigned int type, bool out, char *where,
				      size_t wlen)
{
	const struct nb_msg_layout *l = nb_msg_layout(type);
	const struct vgroup *g = group(v, out, l->kind, l->bus, l->address, l->len);

	snprintf(where, wlen, "%02x %02x %02x", l->kind, l->bus, l->address);
	return g;
}

/* The messages at the spec's addresses: are they as long as the codec says? */
static void check_length(struct vctx *v, unsigned int type, bool out)
{
	const struct nb_msg_layout *l = nb_msg_layout(type);
	char name[64], lens[120] = "";
	unsigned int n = 0, other = 0;

	snprintf(name, sizeof(name), "length.%s", l->name);
	for (unsigned int i = 0; i < v->ng; i++) {
		const struct vgroup *g = &v->g[i];

		if (g->out != out || g->kind != l->kind || g->bus != l->bus || g->addr != l->address)
			continue;
		if (g->len == l->len) {
			n++;
		} else {
			size_t o = strlen(lens);

			snprintf(lens + o, sizeof(lens) - o, "%s%u bytes x%zu", other ? ", " : "", g->len, g->count);
			other++;
		}
	}
	if (!n && !other) {
		v_entry(v, name, V_NOT_EXERCISED, "no %02x %02x %02x message in the capture", l->kind,
			l->bus, l->address);
	} else if (!other) {
		struct ventry *e = v_entry(v, name, V_CONFIRMED, "every %02x %02x %02x message is %u bytes",
					   l->kind, l->bus, l->address, l->len);

		snprintf(e->ours, sizeof(e->ours), "%u", l->len);
	} else {
		struct ventry *e = v_entry(v, name, V_CONTRADICTED, "%02x %02x %02x messages of %s%s",
					   l->kind, l->bus, l->address, lens, n ? " besides the codec's length" : "");

		snprintf(e->ours, sizeof(e->ours), "%u", l->len);
	}
}

void v_check_fields(struct vctx *v)
{
	static const char *const imu[] = { "imu.acc_x", "imu.acc_y", "imu.acc_z", "imu.gyr_x",
					   "imu.gyr_y", "imu.gyr_z", "imu.angle_x", "imu.angle_y" };
	static const int imu_index[] = { 0, 1, 2, 0, 1, 2, 0, 1 };
	static const char *const bat[] = { "battery.charge", "battery.status", "battery.current",
					   "battery.temperature" };
	static const char *const fsr[] = { "foot.fsr_front_left", "foot.fsr_front_right",
					   "foot.fsr_rear_left", "foot.fsr_rear_right" };
	static const int button[] = { 0 };
	const struct vgroup *g;
	char where[32];
	int lag;

	check_length(v, NB_MSG_IMU, false);
	check_length(v, NB_MSG_BATTERY, false);
	check_length(v, NB_MSG_SONAR, false);
	check_length(v, NB_MSG_CHEST_BUTTON, false);
	check_length(v, NB_MSG_IMU_REQ, true);
	check_length(v, NB_MSG_BATTERY_REQ, true);
	check_length(v, NB_MSG_SONAR_REQ, true);
	check_length(v, NB_MSG_CHEST_LED, true);
	if (v->nc->have_lola && v->s_in) {
		const struct lola_log *log = &v->nc->lola;
		size_t paired = 0;

		for (size_t i = 0; i < log->ns; i++)
			paired += v->s_in[i] >= 0;
		if (!paired) {
			snprintf(v->nc->lola_err, sizeof(v->nc->lola_err),
				 "none of LoLA's %zu packets comes within 24 ms after an IN frame: the log and the capture are not of the same minutes, or their clocks disagree",
				 log->ns);
			fprintf(stderr, "%s verify: %s\n", "naoctl", v->nc->lola_err);
			v->nc->have_lola = false;
		}
	}
	if (!v->nc->have_lola) {
		v_check_boards(v);	/* each one, not exercised */
		return;
	}
	/* the lag: the one at which the inertial unit fits */
	g = msg_group(v, NB_MSG_IMU, false, where, sizeof(where));
	lag = -1;
	for (unsigned int i = 0; i < 8; i++)
		fixed_field(v, imu[i], g, imu_index[i], &lag, "the inertial unit's message");
	in_lag = lag >= 0 ? lag : 0;
	lag = in_lag;
	g = msg_group(v, NB_MSG_BATTERY, false, where, sizeof(where));
	for (unsigned int i = 0; i < 4; i++)
		fixed_field(v, bat[i], g, (int)i, &lag, "the battery's message");
	lag = in_lag;
	g = msg_group(v, NB_MSG_SONAR, false, where, sizeof(where));
	fixed_field(v, "sonar.left", g, 0, &lag, "the sonar's message");
	fixed_field(v, "sonar.right", g, 1, &lag, "the sonar's message");
	g = msg_group(v, NB_MSG_CHEST_BUTTON, false, where, sizeof(where));
	bit_field(v, "chest_button.pressed", g, button, 1);

	v_check_boards(v);
	joint_field(v, "joint.position", false);
	joint_field(v, "joint.current", false);
	joint_field(v, "joint.temperature", false);
	joint_field(v, "joint.status", false);
	for (unsigned int i = 0; i < 4; i++)
		foot_field(v, fsr[i], (int)i, false);
	{
		int l[2] = { NAOBODY_TOUCH_L_FOOT_LEFT, NAOBODY_TOUCH_L_FOOT_LEFT + 1 };
		int r[3] = { NAOBODY_TOUCH_L_HAND_BACK, NAOBODY_TOUCH_L_HAND_BACK + 1,
			     NAOBODY_TOUCH_L_HAND_BACK + 2 };

		bit_field(v, "foot.bumpers", fb[NB_BOARDS - 2].found ? fb[NB_BOARDS - 2].in : NULL, l, 2);
		bit_field(v, "hand.touch", fb[3].found ? fb[3].in : NULL, r, 3);
	}

	/* the OUT frames against the recorder's commands */
	if (!v->nc->lola.nc) {
		return;
	}
	lag = -1;
	g = msg_group(v, NB_MSG_CHEST_LED, true, where, sizeof(where));
	fixed_field(v, "chest_led.red", g, 0, &lag, "the chest LED's message");
	out_lag = lag >= 0 ? lag : 0;
	lag = out_lag;
	fixed_field(v, "chest_led.green", g, 1, &lag, "the chest LED's message");
	lag = out_lag;
	fixed_field(v, "chest_led.blue", g, 2, &lag, "the chest LED's message");
	joint_field(v, "targets.position", true);
	joint_field(v, "targets.stiffness", true);
	foot_field(v, "foot_leds.red", 0, true);
	foot_field(v, "foot_leds.green", 1, true);
	foot_field(v, "foot_leds.blue", 2, true);
}

/* The board a message at (bus, address) is: the one found there, else ours */
static const struct nb_board_desc *board_at(unsigned int bus, unsigned int addr)
{
	for (unsigned int b = 0; b < NB_BOARDS; b++)
		if (fb[b].found && fb[b].in->bus == bus && fb[b].in->addr == addr)
			return nb_board(b);
	for (unsigned int b = 0; b < NB_BOARDS; b++)
		if (!fb[b].found && nb_board(b)->bus == bus && nb_board(b)->address == addr)
			return nb_board(b);
	return NULL;
}

static const uint8_t *first_msg(const struct vgroup *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (g->msg[i])
			return g->msg[i];
	return NULL;
}

/*
 * What the spec says of the handshake and the start: every NAO6 board
 * reports configuration version 10 or 11, and a joint board is started
 * with 07, a hand or foot board with 08.
 */
static void check_spec_bytes(struct vctx *v)
{
	const struct lay_field *ov = layout_field_c(&v->ours, "handshake.config_version");
	const struct lay_field *os = layout_field_c(&v->ours, "start.command");
	const uint8_t *ans[32];
	unsigned int n = 0, cands = 0, cand = 0, starts = 0, right = 0;

	for (unsigned int i = 0; i < v->ng && n < 32; i++) {
		const struct vgroup *g = &v->g[i];

		if (!g->out && g->kind == NB_KIND_DATA && g->bus <= 1 &&
		    g->len == NB_MSG_HDR + NB_HANDSHAKE_LEN && first_msg(g, v->nin))
			ans[n++] = first_msg(g, v->nin);
	}
	if (ov && n) {
		for (unsigned int off = NB_MSG_HDR; off < NB_MSG_HDR + NB_HANDSHAKE_LEN; off++) {
			bool all = true;

			for (unsigned int k = 0; k < n && all; k++)
				all = ans[k][off] == 10 || ans[k][off] == 11;
			if (all) {
				cands++;
				cand = off;
			}
		}
		if (cands == 1) {
			struct lay_field found = *ov;

			found.offset = (int)cand;
			field_verdict(v, "handshake.config_version", &found,
				      "the only byte that reads 10 or 11 in all the boards' answers (the spec: every NAO6 board reports 10 or 11)");
			snprintf(v->e[v->ne - 1].evidence, sizeof(v->e[v->ne - 1].evidence),
				 "byte %u is the only one that reads 10 or 11 in all %u boards' handshake answers (the spec: every NAO6 board reports 10 or 11)",
				 cand, n);
		} else {
			v_entry(v, "handshake.config_version", cands ? V_NOT_EXERCISED : V_CONTRADICTED,
				cands ? "%u bytes read 10 or 11 in all %u answers: not decided" :
				"no byte reads 10 or 11 in all %u answers (the spec says every NAO6 board reports one)",
				cands ? cands : n, n);
		}
	}
	for (unsigned int i = 0; os && i < v->ng; i++) {
		const struct vgroup *g = &v->g[i];
		const struct nb_board_desc *d;
		const uint8_t *m;

		if (!g->out || g->kind != NB_KIND_COMMAND || g->len != os->offset + 1)
			continue;
		d = board_at(g->bus, g->addr);
		m = first_msg(g, v->nout);
		if (!d || !m)
			continue;
		starts++;
		right += m[os->offset] == (d->kind == NAOBODY_BOARD_JOINT ? 0x07 : 0x08);
	}
	if (os && starts)
		v_entry(v, "start.command", right == starts ? V_CONFIRMED : V_CONTRADICTED,
			"%u of %u boards' start commands carry, at byte %d, 07 for a joint board and 08 for a hand or foot board (the spec)",
			right, starts, os->offset);
}

/* Every provisional entry not decided above, with why */
void v_check_rest(struct vctx *v)
{
	unsigned long long hs = 0, prefs = 0, ids = 0;
	char name[64];

	for (unsigned int i = 0; i < v->ng; i++) {
		const struct vgroup *g = &v->g[i];

		if (!g->out && g->kind == NB_KIND_DATA && g->len == NB_MSG_HDR + NB_HANDSHAKE_LEN)
			hs += g->count;
		if (!g->out && g->kind == NB_KIND_CHEST && g->addr == 0x06)
			prefs += g->count;
		if (!g->out && g->kind == NB_KIND_CHEST && g->addr == 0x08)
			ids += g->count;
	}
	check_spec_bytes(v);
	for (unsigned int i = 0; nb_field(i); i++) {
		const struct nb_field *f = nb_field(i);
		bool done = false;

		for (unsigned int k = 0; k < v->ne; k++)
			done |= !strcmp(v->e[k].name, f->name);
		if (done)
			continue;
		if (!v->nc->have_lola && vfield(f->name)) {
			v_entry(v, f->name, V_NOT_EXERCISED, "no LoLA log: %s", v->nc->lola_err);
		} else if (!strncmp(f->name, "handshake.", 10)) {
			v_entry(v, f->name, V_NOT_EXERCISED,
				"%llu handshake answers in the capture; verify does not check their fields yet "
				"(compare the serials with naoctl prefs by hand)", hs);
		} else if (!strncmp(f->name, "pref", 4)) {
			v_entry(v, f->name, V_NOT_EXERCISED,
				"%llu preference pieces in the capture (HAL reads them at its start: naocap --restart-hal); "
				"verify does not check them yet", prefs);
		} else if (!strncmp(f->name, "id_", 3)) {
			v_entry(v, f->name, V_NOT_EXERCISED, "%llu id strings in the capture; not checked yet", ids);
		} else if (!strncmp(f->name, "chest_mode", 10)) {
			v_entry(v, f->name, V_NOT_EXERCISED,
				"HAL never sends chest mode requests; capture chest-mode -b separately (not checked yet)");
		} else {
			v_entry(v, f->name, V_NOT_EXERCISED, "verify has no check for this field yet");
		}
	}
	for (unsigned int op = 0; op < __NAOBODY_CHEST_MODE_MAX; op++) {
		snprintf(name, sizeof(name), "chest_mode_code.%u", op);
		v_entry(v, name, V_NOT_EXERCISED,
			"the chest tools' request codes need captures of chest-mode and chest-version; "
			"never of -o, -p or chest-harakiri on a standing robot");
	}
	v_entry(v, "harakiri_code", V_NOT_EXERCISED, "never captured on purpose: it powers the robot off");
	v_entry(v, "prefs.crc", V_NOT_EXERCISED,
		"%llu preference pieces in the capture; verify does not reassemble the block yet", prefs);
}
