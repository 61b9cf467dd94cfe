// SPDX-License-Identifier: GPL-2.0-only
/*
 * libnbmotion: the NAO V6's legs, forward and inverse kinematics (see
 * leg_kinematics.h).
 *
 * The numbers are the physical model's (userspace/sim/nao6/nao6.xml, whose
 * header cites Aldebaran's link and joint pages): the hips 50 mm either
 * side of the torso and 85 mm below it, the thigh 100 mm, the tibia
 * 102.9 mm, the sole 45.19 mm under the ankle; HipYawPitch about an axis
 * at 45 degrees in the y-z plane, roll about x, the pitches about y.
 * selftests/sim/walk_test.c checks leg_forward() against the model.
 *
 * The inverse is numerical (damped least squares on the forward one), not
 * a closed form: the shared HipYawPitch couples the legs, and a numerical
 * solver cannot get an axis's sign wrong in a way the forward check would
 * not see.
 */
#include <math.h>
#include <string.h>

#include <motion/joints.h>
#include <motion/leg_kinematics.h>

#define HIP_Y		0.050
#define HIP_Z		(-0.085)
#define THIGH		0.100
#define TIBIA		0.1029
#define SOLE		0.04519
#define SQRT1_2		0.70710678118654752440

#define IK_ITERATIONS	8
#define IK_DAMPING	1e-6	/* keeps a straight knee's step finite */
#define IK_STEP		1e-5	/* rad, for the numerical Jacobian */
#define IK_DONE		1e-6	/* m */
#define ROT_WEIGHT	0.1	/* m per rad of orientation error */

/* r = r * rotation by angle about the unit axis (x, y, z). */
static void rotate(double r[3][3], double x, double y, double z, double angle)
{
	double c = cos(angle), s = sin(angle), t = 1.0 - c;
	double a[3][3] = {
		{ t * x * x + c, t * x * y - s * z, t * x * z + s * y },
		{ t * x * y + s * z, t * y * y + c, t * y * z - s * x },
		{ t * x * z - s * y, t * y * z + s * x, t * z * z + c },
	};
	double o[3][3];

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			o[i][j] = r[i][0] * a[0][j] + r[i][1] * a[1][j] + r[i][2] * a[2][j];
	memcpy(r, o, sizeof(o));
}

/* p += r * (0, 0, -len): down the link. */
static void down(double p[3], double r[3][3], double len)
{
	for (int i = 0; i < 3; i++)
		p[i] -= r[i][2] * len;
}

/* The sole's position and rotation in the torso's frame. */
static void forward(enum leg_side side, const double q[LEG_JOINTS], double p[3], double r[3][3])
{
	/* The leg's own five joints follow HipYawPitch in LoLA's order. */
	const double *l = side == LEG_LEFT ? &q[1] : &q[NAOBODY_R_HIP_ROLL - LEG_FIRST];
	double sign = side == LEG_LEFT ? 1.0 : -1.0;

	memset(r, 0, 9 * sizeof(double));
	r[0][0] = r[1][1] = r[2][2] = 1.0;
	p[0] = 0.0;
	p[1] = sign * HIP_Y;
	p[2] = HIP_Z;
	/* Left (0, 1, -1)/sqrt 2, right (0, 1, 1)/sqrt 2: the model's axes. */
	rotate(r, 0.0, SQRT1_2, -sign * SQRT1_2, q[0]);
	rotate(r, 1.0, 0.0, 0.0, l[0]);		/* hip roll */
	rotate(r, 0.0, 1.0, 0.0, l[1]);		/* hip pitch */
	down(p, r, THIGH);
	rotate(r, 0.0, 1.0, 0.0, l[2]);		/* knee */
	down(p, r, TIBIA);
	rotate(r, 0.0, 1.0, 0.0, l[3]);		/* ankle pitch */
	rotate(r, 1.0, 0.0, 0.0, l[4]);		/* ankle roll */
	down(p, r, SOLE);
}

void leg_forward(enum leg_side side, const float q[NAOBODY_JOINTS], struct foot_pose *out)
{
	double ql[LEG_JOINTS], p[3], r[3][3];

	for (int j = 0; j < LEG_JOINTS; j++)
		ql[j] = q[LEG_FIRST + j];
	forward(side, ql, p, r);
	out->x = (float)p[0];
	out->y = (float)p[1];
	out->z = (float)p[2];
	out->yaw = (float)atan2(r[1][0], r[0][0]);
}

/*
 * A foot's six residuals: position, then orientation as the small rotation
 * from the wanted one (a flat sole at the wanted yaw) to the reached one.
 */
static void residual(enum leg_side side, const double q[LEG_JOINTS],
		     const struct foot_pose *want, double e[6])
{
	double p[3], c = cos(want->yaw), s = sin(want->yaw);
	double r[3][3], m[3][3];
	/* want^T r, want = Rz(yaw) */
	double w[3][3] = { { c, s, 0.0 }, { -s, c, 0.0 }, { 0.0, 0.0, 1.0 } };

	forward(side, q, p, r);
	e[0] = p[0] - want->x;
	e[1] = p[1] - want->y;
	e[2] = p[2] - want->z;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			m[i][j] = w[i][0] * r[0][j] + w[i][1] * r[1][j] + w[i][2] * r[2][j];
	e[3] = ROT_WEIGHT * 0.5 * (m[2][1] - m[1][2]);
	e[4] = ROT_WEIGHT * 0.5 * (m[0][2] - m[2][0]);
	e[5] = ROT_WEIGHT * 0.5 * (m[1][0] - m[0][1]);
}

static void residuals(const double q[LEG_JOINTS], const struct foot_pose want[2], double e[12])
{
	residual(LEG_LEFT, q, &want[LEG_LEFT], e);
	residual(LEG_RIGHT, q, &want[LEG_RIGHT], e + 6);
}

static double worst_foot(const double e[12])
{
	double worst = 0.0;

	for (int f = 0; f < 2; f++) {
		const double *x = e + 6 * f;

		worst = fmax(worst, sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) +
				    sqrt(x[3] * x[3] + x[4] * x[4] + x[5] * x[5]));
	}
	return worst;
}

/* Solves a x = b, n by n, by Gaussian elimination with partial pivoting. */
static void solve(int n, double a[LEG_JOINTS][LEG_JOINTS], double b[LEG_JOINTS])
{
	for (int c = 0; c < n; c++) {
		int piv = c;

		for (int r = c + 1; r < n; r++)
			if (fabs(a[r][c]) > fabs(a[piv][c]))
				piv = r;
		if (piv != c) {
			double t;

			for (int k = 0; k < n; k++) {
				t = a[c][k];
				a[c][k] = a[piv][k];
				a[piv][k] = t;
			}
			t = b[c];
			b[c] = b[piv];
			b[piv] = t;
		}
		for (int r = c + 1; r < n; r++) {
			double f = a[r][c] / a[c][c];

			for (int k = c; k < n; k++)
				a[r][k] -= f * a[c][k];
			b[r] -= f * b[c];
		}
	}
	for (int r = n - 1; r >= 0; r--) {
		for (int k = r + 1; k < n; k++)
			b[r] -= a[r][k] * b[k];
		b[r] /= a[r][r];
	}
}

float leg_ik(const struct foot_pose want[2], float qout[NAOBODY_JOINTS])
{
	double q[LEG_JOINTS], e[12], jac[12][LEG_JOINTS];

	for (int j = 0; j < LEG_JOINTS; j++)
		q[j] = qout[LEG_FIRST + j];
	residuals(q, want, e);
	for (int it = 0; it < IK_ITERATIONS && worst_foot(e) > IK_DONE; it++) {
		double a[LEG_JOINTS][LEG_JOINTS], b[LEG_JOINTS];

		for (int j = 0; j < LEG_JOINTS; j++) {
			double dq[LEG_JOINTS], de[12];

			memcpy(dq, q, sizeof(dq));
			dq[j] += IK_STEP;
			residuals(dq, want, de);
			for (int i = 0; i < 12; i++)
				jac[i][j] = (de[i] - e[i]) / IK_STEP;
		}
		/* (J^T J + damping) dq = -J^T e */
		for (int r = 0; r < LEG_JOINTS; r++) {
			b[r] = 0.0;
			for (int i = 0; i < 12; i++)
				b[r] -= jac[i][r] * e[i];
			for (int c = 0; c < LEG_JOINTS; c++) {
				a[r][c] = r == c ? IK_DAMPING : 0.0;
				for (int i = 0; i < 12; i++)
					a[r][c] += jac[i][r] * jac[i][c];
			}
		}
		solve(LEG_JOINTS, a, b);
		for (int j = 0; j < LEG_JOINTS; j++)
			q[j] = joint_clamp(LEG_FIRST + j, (float)(q[j] + b[j]));
		residuals(q, want, e);
	}
	for (int j = 0; j < LEG_JOINTS; j++)
		qout[LEG_FIRST + j] = (float)q[j];
	return (float)worst_foot(e);
}
