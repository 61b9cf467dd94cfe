// SPDX-License-Identifier: GPL-2.0-only
/*
 * The robot as a stick figure, from a state of GET /events (the robot API's
 * State): seen from the side (x forward to the right, up the screen) and
 * from the front, the torso turned by the inertial unit's pitch and roll,
 * each limb a chain of the NAO V6's links (Documentation/nao6-model.rst,
 * "Links"; Aldebaran's published lengths) turned by the joints' angles,
 * the lowest point on the floor line, and each sole's pressure drawn at its
 * front and rear. A picture of the joint angles, not a simulation: the
 * elbows are flattened into the side view.
 *
 * What it drew is kept on the canvas for tests and tools: data-left-knee
 * and data-right-knee are the angles (rad) between the thigh and the tibia
 * as drawn, from the segments' screen end points.
 */
"use strict";

const NAO = {		/* m */
	neck: 0.1265, shoulderY: 0.098, shoulderZ: 0.100, upperArm: 0.105,
	lowerArm: 0.05595 + 0.05775, hipY: 0.050, hipZ: 0.085, thigh: 0.100,
	tibia: 0.1029, foot: 0.04519, toe: 0.105, heel: 0.055, head: 0.06,
};
/* JOINTS is status.js's: the robot API's joint order. */
const J = (name) => JOINTS.indexOf(name);

/* A vector of length len pointing down, turned by a (rad) about the axis into the screen. */
const limb = (p, a, len) => [p[0] - Math.sin(a) * len, p[1] - Math.cos(a) * len];
const add = (p, v) => [p[0] + v[0], p[1] + v[1]];

/* The side view's chains, in m: x forward, z up, the torso's centre at 0. */
function sideView(s) {
	const q = (n) => s.joint_positions[J(n)] || 0;
	const pitch = s.imu.roll_pitch[1];
	const up = [Math.sin(pitch), Math.cos(pitch)];
	const at = (len) => [up[0] * len, up[1] * len];
	const out = { lines: [], feet: [] };
	const hip = at(-NAO.hipZ), shoulder = at(NAO.shoulderZ), neck = at(NAO.neck);

	out.lines.push({ kind: "torso", pts: [hip, neck] });
	for (const side of ["left", "right"]) {
		/* A segment turned by its joint: pitch about +y moves "down" backwards. */
		const a1 = pitch + q(`${side}_hip_pitch`);
		const knee = limb(hip, a1, NAO.thigh);
		const a2 = a1 + q(`${side}_knee_pitch`);
		const ankle = limb(knee, a2, NAO.tibia);
		const a3 = a2 + q(`${side}_ankle_pitch`);
		const sole = limb(ankle, a3, NAO.foot);
		const fwd = [Math.cos(a3), -Math.sin(a3)];
		const toe = add(sole, [fwd[0] * NAO.toe, fwd[1] * NAO.toe]);
		const heel = add(sole, [-fwd[0] * NAO.heel, -fwd[1] * NAO.heel]);
		const kg = s[`${side}_foot_pressure`];

		out.lines.push({ kind: side, pts: [hip, knee, ankle, sole] });
		out.lines.push({ kind: side, pts: [heel, toe] });
		out.feet.push({ side, front: toe, rear: heel, kgFront: kg[0] + kg[1],
			kgRear: kg[2] + kg[3] });
		out[`${side}Knee`] = [hip, knee, ankle];
		const b1 = pitch + q(`${side}_shoulder_pitch`) - Math.PI / 2;
		const elbow = limb(shoulder, b1, NAO.upperArm);
		/* The elbow's bend, flattened into the side view by its yaw. */
		const bend = -q(`${side}_elbow_roll`) * Math.cos(q(`${side}_elbow_yaw`));
		const hand = limb(elbow, b1 - bend, NAO.lowerArm);
		out.lines.push({ kind: side, pts: [shoulder, elbow, hand] });
	}
	const headDir = pitch + q("head_pitch");
	out.head = [neck[0] + Math.sin(headDir) * NAO.head, neck[1] + Math.cos(headDir) * NAO.head];
	return out;
}

/* The front view: y to the left is the screen's left (the robot faces us: mirrored). */
function frontView(s) {
	const q = (n) => s.joint_positions[J(n)] || 0;
	const roll = s.imu.roll_pitch[0];
	const rot = (p) => [p[0] * Math.cos(roll) + p[1] * Math.sin(roll),
		-p[0] * Math.sin(roll) + p[1] * Math.cos(roll)];
	const out = { lines: [], feet: [] };
	const neck = rot([0, NAO.neck]);

	out.lines.push({ kind: "torso", pts: [rot([0, -NAO.hipZ]), neck] });
	for (const [side, sign] of [["left", -1], ["right", 1]]) {
		/* Seen from the front, the robot's left is on our right. */
		const hip = rot([-sign * NAO.hipY, -NAO.hipZ]);
		const a1 = -roll - sign * q(`${side}_hip_roll`);
		const thigh = Math.cos(q(`${side}_hip_pitch`)) * NAO.thigh;
		const knee = limb(hip, a1, thigh);
		const tibia = Math.cos(q(`${side}_hip_pitch`) + q(`${side}_knee_pitch`)) * NAO.tibia;
		const ankle = limb(knee, a1, tibia);
		const sole = limb(ankle, a1 - sign * q(`${side}_ankle_roll`), NAO.foot);
		const shoulder = rot([-sign * NAO.shoulderY, NAO.shoulderZ]);
		const arm = -roll - sign * q(`${side}_shoulder_roll`);
		const reach = Math.abs(Math.sin(q(`${side}_shoulder_pitch`))) * (NAO.upperArm +
			NAO.lowerArm);
		const kg = s[`${side}_foot_pressure`].reduce((a, v) => a + v, 0);

		out.lines.push({ kind: side, pts: [shoulder, limb(shoulder, arm, reach)] });
		out.lines.push({ kind: side, pts: [rot([0, -NAO.hipZ]), hip, knee, ankle, sole] });
		out.feet.push({ side, front: add(sole, [-0.03, 0]), rear: add(sole, [0.03, 0]),
			kgFront: kg / 2, kgRear: kg / 2 });
	}
	out.head = rot([0, NAO.neck + NAO.head]);
	return out;
}

function lowest(view) {
	let z = Infinity;

	for (const l of view.lines)
		for (const p of l.pts)
			z = Math.min(z, p[1]);
	return Math.min(z, view.head[1] - NAO.head);
}

const angleAt = (a, b, c) => {
	const u = [b[0] - a[0], b[1] - a[1]], v = [c[0] - b[0], c[1] - b[1]];

	return Math.abs(Math.atan2(u[0] * v[1] - u[1] * v[0], u[0] * v[0] + u[1] * v[1]));
};

/* Draws both views on canvas (a 2-D context at CSS pixels: ctx, w, h). */
function drawFigure(canvas, ctx, w, h, s, colours) {
	const views = [sideView(s), frontView(s)];
	const scale = Math.min(w / 2 / 0.55, (h - 16) / 0.62);

	views.forEach((v, i) => {
		const ox = w / 4 + i * w / 2, floor = h - 14;
		const z0 = lowest(v);
		const px = (p) => [ox + p[0] * scale, floor - (p[1] - z0) * scale];

		ctx.strokeStyle = colours.quiet;
		ctx.lineWidth = 1;
		ctx.beginPath();
		ctx.moveTo(ox - w / 4 + 6, floor + 0.5);
		ctx.lineTo(ox + w / 4 - 6, floor + 0.5);
		ctx.stroke();
		ctx.fillStyle = colours.quiet;
		ctx.font = "11px sans-serif";
		ctx.fillText(i ? "front" : "side (facing right)", ox - w / 4 + 6, 12);
		for (const l of v.lines) {
			ctx.strokeStyle = l.kind === "left" ? colours.x : l.kind === "right" ?
				colours.y : colours.text;
			ctx.lineWidth = l.kind === "torso" ? 5 : 3;
			ctx.lineCap = "round";
			ctx.beginPath();
			l.pts.forEach((p, k) => ctx[k ? "lineTo" : "moveTo"](...px(p)));
			ctx.stroke();
		}
		ctx.strokeStyle = colours.text;
		ctx.lineWidth = 2;
		ctx.beginPath();
		ctx.arc(...px(v.head), NAO.head * scale * 0.8, 0, 2 * Math.PI);
		ctx.stroke();
		for (const f of v.feet) {
			for (const [p, kg] of [[f.front, f.kgFront], [f.rear, f.kgRear]]) {
				ctx.fillStyle = colours.z;
				ctx.globalAlpha = 0.7;
				ctx.beginPath();
				ctx.arc(...px(p), 2 + Math.sqrt(Math.max(kg, 0)) * 4, 0, 2 * Math.PI);
				ctx.fill();
				ctx.globalAlpha = 1;
			}
		}
		if (!i) {
			for (const side of ["left", "right"])
				canvas.dataset[`${side}Knee`] =
					angleAt(...v[`${side}Knee`].map(px)).toFixed(4);
		}
	});
}
