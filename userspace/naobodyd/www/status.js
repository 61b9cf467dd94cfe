// SPDX-License-Identifier: GPL-2.0-only
/*
 * naobodyd's status page (Documentation/rest-api.rst, "The status page").
 *
 * The token: asked for once, kept in sessionStorage (this tab only, gone
 * when it closes) and sent as "Authorization: Bearer" on every request.
 * The live stream is GET /events read with fetch() and a stream reader,
 * not EventSource, which cannot send that header: the token never goes in
 * a URL (where logs and the history keep it). Plain JavaScript, no
 * library, nothing from another host.
 */
"use strict";

const TOKEN_KEY = "naobodyd.token";
const RATE = 25;			/* states per second from /events */
const PLOT_SECONDS = 10;
const EVENTS_KEPT = 50;

/* The robot API's joint order (Documentation/robot-api.rst), as /state sends them. */
const JOINTS = [
	"head_yaw", "head_pitch", "left_shoulder_pitch", "left_shoulder_roll",
	"left_elbow_yaw", "left_elbow_roll", "left_wrist_yaw", "left_hand",
	"right_shoulder_pitch", "right_shoulder_roll", "right_elbow_yaw",
	"right_elbow_roll", "right_wrist_yaw", "right_hand", "left_hip_yaw_pitch",
	"left_hip_roll", "left_hip_pitch", "left_knee_pitch", "left_ankle_pitch",
	"left_ankle_roll", "right_hip_yaw_pitch", "right_hip_roll", "right_hip_pitch",
	"right_knee_pitch", "right_ankle_pitch", "right_ankle_roll",
];
/* The hands are 0 (closed) to 1 (open), not an angle. */
const HANDS = new Set(["left_hand", "right_hand"]);

/*
 * Where the foot sensors are, in m in each foot's frame (x forward, y to
 * the left), /state's order: front left, front right, rear left, rear
 * right. Aldebaran's NAO documentation ("FSRs"). The feet are drawn side by
 * side 0.1 m apart (the NAO's hip width) to place the centre of pressure
 * of both: a picture, not a measurement of the stance.
 */
const FSR = {
	left: [[0.07025, 0.0299], [0.07025, -0.0231], [-0.03025, 0.0299], [-0.02965, -0.0191]],
	right: [[0.07025, 0.0231], [0.07025, -0.0299], [-0.03025, 0.0191], [-0.02965, -0.0299]],
};
const FOOT_Y = { left: 0.05, right: -0.05 };
const FOOT_OUTLINE = { back: -0.055, front: 0.105, half: 0.045 };

const $ = (id) => document.getElementById(id);

let token = null;
let stream = null;		/* the AbortController of the running /events */
let latest = null;		/* the newest state, drawn on the next frame */
let drawPending = false;
let boardsTimer = null;
let generation = 0;		/* of runStream(): one loop at a time */
const samples = [];		/* the IMU plot's: {t, a: [3], g: [3]} */
const history = [];		/* the chosen plot's: the states of the last seconds */
let replay = null;		/* a recording playing: {states, at, playing, t0, start} */

/*
 * What the Plot card can show: a label and how to read it from a state.
 * Every joint's position, the inertial unit's angles and z acceleration,
 * the feet's weight and the battery.
 */
const PLOTTABLE = [
	...JOINTS.map((name, i) => [`${name.replace(/_/g, " ")} (rad)`, (s) => s.joint_positions[i]]),
	["roll (rad)", (s) => s.imu.roll_pitch[0]],
	["pitch (rad)", (s) => s.imu.roll_pitch[1]],
	["acceleration z (m/s²)", (s) => s.imu.linear_acceleration[2]],
	["left foot (kg)", (s) => s.left_foot_pressure.reduce((a, v) => a + v, 0)],
	["right foot (kg)", (s) => s.right_foot_pressure.reduce((a, v) => a + v, 0)],
	["battery charge", (s) => s.battery.charge],
];
const PLOT_COLOURS = ["--x", "--y", "--z", "--on"];

/* ---- the token ----------------------------------------------------------- */

function loadToken() {
	/* #token=... once (a link or a QR code on the robot): taken, then wiped. */
	const m = location.hash.match(/^#token=([0-9a-fA-F]{64})$/);

	if (m) {
		sessionStorage.setItem(TOKEN_KEY, m[1].toLowerCase());
		history.replaceState(null, "", location.pathname + location.search);
	}
	return sessionStorage.getItem(TOKEN_KEY);
}

function askToken(message) {
	sessionStorage.removeItem(TOKEN_KEY);
	token = null;
	if (stream)
		stream.abort();
	$("login").hidden = false;
	$("login-msg").textContent = message || "";
	$("token-input").focus();
}

class ApiError extends Error {
	constructor(status, body) {
		super(body && body.message ? body.message : `HTTP ${status}`);
		this.status = status;
		this.body = body;
	}
}

async function api(path, options = {}) {
	const headers = Object.assign({ Authorization: `Bearer ${token}` }, options.headers);
	const r = await fetch(path, Object.assign({}, options, { headers, cache: "no-store" }));

	if (r.ok && !options.raw)
		return r.json();
	if (r.ok)
		return r;
	let body = null;
	try {
		body = await r.json();
	} catch (e) {
		/* not JSON: the status says it */
	}
	if (r.status === 401)
		askToken("That token was refused: " + (body ? body.message : "401"));
	else if (r.status === 429)
		askToken(body ? body.message : "Too many wrong tokens: wait a minute.");
	throw new ApiError(r.status, body);
}

/* ---- the live stream ----------------------------------------------------- */

function setLink(state, text) {
	$("link").dataset.state = state;
	$("link-text").textContent = text;
}

/* Server-Sent Events by hand: "event: KIND\ndata: JSON\n\n" messages. */
async function readEvents(signal) {
	const r = await api(`/events?rate=${RATE}`, { raw: true, signal,
		headers: { Accept: "text/event-stream" } });
	const reader = r.body.getReader();
	const decoder = new TextDecoder();
	let text = "";

	setLink("up", "live");
	for (;;) {
		const { value, done } = await reader.read();

		if (done)
			throw new Error("the stream ended");
		text += decoder.decode(value, { stream: true });
		let end;
		while ((end = text.search(/\r?\n\r?\n/)) >= 0) {
			const msg = text.slice(0, end);

			text = text.slice(end).replace(/^\r?\n\r?\n/, "");
			let kind = "message", data = "";
			for (const line of msg.split(/\r?\n/)) {
				if (line.startsWith("event:"))
					kind = line.slice(6).trim();
				else if (line.startsWith("data:"))
					data += line.slice(5).trim();
			}
			if (data)
				onMessage(kind, JSON.parse(data));
		}
	}
}

async function runStream(mine) {
	let wait = 500;

	while (token && mine === generation) {
		const ctl = new AbortController();

		stream = ctl;
		setLink("connecting", "connecting");
		try {
			await readEvents(ctl.signal);
		} catch (e) {
			if (e instanceof ApiError && (e.status === 401 || e.status === 429))
				break;
		}
		if (!token || mine !== generation)
			return;
		setLink("down", "reconnecting");
		await new Promise((res) => setTimeout(res, wait));
		wait = Math.min(wait * 2, 5000);
	}
	if (mine === generation)
		setLink("down", "offline");
}

/* Live messages; while a recording plays, they wait (the stream stays up). */
function onMessage(kind, data) {
	if (replay)
		return;
	show(kind, data);
}

function show(kind, data) {
	if (kind === "state") {
		latest = data;
		history.push(data);
		while (history.length && history[0].time < data.time - PLOT_SECONDS - 1)
			history.shift();
		samples.push({ t: data.time, a: data.imu.linear_acceleration,
			g: data.imu.angular_velocity });
		while (samples.length && samples[0].t < data.time - PLOT_SECONDS - 1)
			samples.shift();
		if (!drawPending) {
			drawPending = true;
			requestAnimationFrame(draw);
		}
		return;
	}
	if (kind === "keepalive")
		return;
	if (kind === "controller")
		$("controller").textContent = data.holder;
	if (kind === "stop")
		showLatched(true);
	logEvent(kind, data);
}

function logEvent(kind, data) {
	const li = document.createElement("li");
	const when = new Date((data.time || Date.now() / 1000) * 1000);
	const rest = Object.entries(data).filter(([k]) => k !== "time")
		.map(([k, v]) => `${k}=${v}`).join(" ");

	li.textContent = `${when.toLocaleTimeString()} ${kind} ${rest}`;
	li.dataset.kind = kind;
	$("events-list").prepend(li);
	while ($("events-list").children.length > EVENTS_KEPT)
		$("events-list").lastChild.remove();
}

/* ---- drawing ------------------------------------------------------------- */

const fmt = (v, digits) => (Number.isFinite(v) ? v.toFixed(digits) : "–");
const deg = (rad) => rad * 180 / Math.PI;

function showLatched(on) {
	$("stopped").dataset.stopped = String(on);
	$("stopped").textContent = on ? "LATCHED (naoctl rearm on the robot)" : "released";
	$("stop").dataset.latched = String(on);
	$("stop").textContent = on ? "STOPPED" : "STOP";
}

function draw() {
	const s = latest;

	drawPending = false;
	if (!s)
		return;
	$("cycle").textContent = s.cycle;
	showLatched(s.stopped);
	$("board-answering").textContent = s.board_answering ? "answering" : "NOT answering";
	$("primary-state").textContent = s.primary_state;
	$("fall-state").textContent = s.fall_state;
	$("motion").textContent = s.motion || "none";

	const b = s.battery;
	$("battery-bar").style.width = `${Math.round(b.charge * 100)}%`;
	$("battery-bar").dataset.low = String(b.charge < 0.2);
	$("battery-charge").textContent = `${Math.round(b.charge * 100)} %`;
	$("battery-current").textContent = `${fmt(b.current, 2)} A`;
	$("battery-temperature").textContent = `${b.temperature} °C`;
	$("battery-charging").textContent = b.charging ? "yes" : "no";

	for (const [name, pressed] of Object.entries(s.touch)) {
		const el = $(`touch-${name}`);

		if (el)
			el.dataset.pressed = String(pressed);
	}

	$("imu-roll").textContent = `${fmt(deg(s.imu.roll_pitch[0]), 1)}°`;
	$("imu-pitch").textContent = `${fmt(deg(s.imu.roll_pitch[1]), 1)}°`;
	$("sonar").textContent = `${fmt(s.sonar.left, 2)} / ${fmt(s.sonar.right, 2)} m`;
	drawImu();
	drawFeet(s);
	drawJoints(s);
	const f = context($("figure-plot"));
	drawFigure($("figure-plot"), f.ctx, f.w, f.h, s, { x: css("--x"), y: css("--y"),
		z: css("--z"), quiet: css("--quiet"), text: css("--fg") });
	drawPlot();
}

/* The chosen values over the last PLOT_SECONDS, each on its own scale. */
function drawPlot() {
	const canvas = $("plot");
	const { ctx, w, h } = context(canvas);
	const chosen = [...$("plot-choice").selectedOptions].slice(0, 4).map((o) => Number(o.value));
	const plotted = {};

	if (!history.length || !chosen.length) {
		canvas.dataset.plotted = "{}";
		return;
	}
	const now = history[history.length - 1].time;
	const px = (t) => w - (now - t) / PLOT_SECONDS * w;
	ctx.strokeStyle = css("--line");
	ctx.strokeRect(0.5, 0.5, w - 1, h - 1);
	const legend = [];
	chosen.forEach((k, n) => {
		const [label, get] = PLOTTABLE[k];
		const vals = history.map(get);
		let lo = Math.min(...vals), hi = Math.max(...vals);

		if (hi - lo < 0.02) {
			lo -= 0.01;
			hi += 0.01;
		}
		const py = (v) => h - 4 - (v - lo) / (hi - lo) * (h - 8);
		let last = null;
		ctx.strokeStyle = css(PLOT_COLOURS[n]);
		ctx.lineWidth = 1.5;
		ctx.beginPath();
		history.forEach((s, i) => {
			last = [px(s.time), py(vals[i])];
			ctx[i ? "lineTo" : "moveTo"](...last);
		});
		ctx.stroke();
		/* The newest point, read back from where it was drawn. */
		plotted[label] = lo + (h - 4 - last[1]) / (h - 8) * (hi - lo);
		legend.push(`${label}: ${fmt(vals[vals.length - 1], 3)} (${fmt(lo, 2)}..${fmt(hi, 2)})`);
	});
	canvas.dataset.plotted = JSON.stringify(plotted);
	$("plot-legend").textContent = legend.join(" · ");
}

/* ---- replaying a recording (naoctl record) ------------------------------- */

function redraw() {
	if (!drawPending) {
		drawPending = true;
		requestAnimationFrame(draw);
	}
}

/* Shows the recording's state i, with the seconds before it in the plots. */
function replayAt(i) {
	const r = replay;

	r.at = Math.max(0, Math.min(i, r.states.length - 1));
	samples.length = 0;
	history.length = 0;
	const now = r.states[r.at].data.time;
	for (const m of r.states.slice(0, r.at + 1)) {
		if (m.data.time >= now - PLOT_SECONDS - 1)
			show("state", m.data);
	}
	$("replay-seek").value = String(r.at);
	$("replay-status").textContent = `Replay: state ${r.at + 1} of ${r.states.length}, ` +
		`${fmt(r.states[r.at].t - r.states[0].t, 2)} s of ` +
		`${fmt(r.states[r.states.length - 1].t - r.states[0].t, 2)} s` +
		(r.at === r.states.length - 1 ? " (the end)" : "");
	redraw();
}

function replayTick() {
	const r = replay;

	if (!r || !r.playing)
		return;
	const due = r.states[0].t + (performance.now() / 1000 - r.t0) + r.start;
	let i = r.at;
	while (i + 1 < r.states.length && r.states[i + 1].t <= due)
		i++;
	if (i !== r.at) {
		for (const e of r.events.filter((e) => e.t > r.states[r.at].t && e.t <= r.states[i].t))
			logEvent(e.event, e.data);
		replayAt(i);
	}
	if (r.at === r.states.length - 1) {
		r.playing = false;
		$("replay-play").textContent = "Play";
		return;
	}
	requestAnimationFrame(replayTick);
}

function replayPlay() {
	const r = replay;

	if (!r)
		return;
	r.playing = !r.playing;
	if (r.at === r.states.length - 1)
		r.at = 0;
	r.start = r.states[r.at].t - r.states[0].t;
	r.t0 = performance.now() / 1000;
	$("replay-play").textContent = r.playing ? "Pause" : "Play";
	if (r.playing)
		requestAnimationFrame(replayTick);
}

function replayLoad(text, name) {
	const lines = text.split("\n").filter((l) => l.trim());
	let head;

	try {
		head = JSON.parse(lines[0]);
	} catch (e) {
		head = null;
	}
	if (!head || head.naobody_recording !== 1) {
		$("replay-status").textContent = `${name}: not a recording of naoctl record`;
		return;
	}
	const msgs = [];
	for (const l of lines.slice(1)) {
		try {
			msgs.push(JSON.parse(l));
		} catch (e) {
			break;	/* a recording cut short: what came before */
		}
	}
	const states = msgs.filter((m) => m.event === "state" && m.data && m.data.imu);
	if (!states.length) {
		$("replay-status").textContent = `${name}: no state in it`;
		return;
	}
	replay = { states, events: msgs.filter((m) => m.event !== "state"), at: 0, playing: false,
		t0: 0, start: 0 };
	$("robot-id").textContent = `${head.robot && head.robot.body_id} (replay of ${name})`;
	$("replay-seek").max = String(states.length - 1);
	for (const id of ["replay-play", "replay-live", "replay-seek"])
		$(id).disabled = false;
	replayAt(0);
}

function replayStop() {
	replay = null;
	samples.length = 0;
	history.length = 0;
	for (const id of ["replay-play", "replay-live", "replay-seek"])
		$(id).disabled = true;
	$("replay-play").textContent = "Play";
	$("replay-status").textContent = "Live.";
	$("replay-file").value = "";
	if (token)
		connect();
}

function setUpViews() {
	PLOTTABLE.forEach(([label], k) => {
		const o = document.createElement("option");

		o.value = String(k);
		o.textContent = label;
		o.selected = label.startsWith("left knee pitch") || label.startsWith("pitch (rad)");
		$("plot-choice").appendChild(o);
	});
	$("plot-choice").addEventListener("change", redraw);
	$("replay-file").addEventListener("change", async () => {
		const f = $("replay-file").files[0];

		if (f)
			replayLoad(await f.text(), f.name);
	});
	$("replay-play").addEventListener("click", replayPlay);
	$("replay-live").addEventListener("click", replayStop);
	$("replay-seek").addEventListener("input", () => {
		if (replay) {
			replay.playing = false;
			$("replay-play").textContent = "Play";
			replayAt(Number($("replay-seek").value));
		}
	});
}

/* A canvas at the screen's resolution; its context scaled to CSS pixels. */
function context(canvas) {
	const dpr = window.devicePixelRatio || 1;
	const w = canvas.clientWidth, h = canvas.clientHeight;

	if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
		canvas.width = Math.round(w * dpr);
		canvas.height = Math.round(h * dpr);
	}
	const ctx = canvas.getContext("2d");
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.clearRect(0, 0, w, h);
	return { ctx, w, h };
}

function css(name) {
	return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/* One panel of the scrolling plot: the last PLOT_SECONDS, newest at the right. */
function drawPanel(ctx, x0, y0, w, h, key, minSpan, unit) {
	const now = samples[samples.length - 1].t;
	let lo = Infinity, hi = -Infinity;

	for (const p of samples)
		for (const v of p[key]) {
			lo = Math.min(lo, v);
			hi = Math.max(hi, v);
		}
	if (hi - lo < minSpan) {
		const mid = (hi + lo) / 2;

		lo = mid - minSpan / 2;
		hi = mid + minSpan / 2;
	}
	const pad = (hi - lo) * 0.1;
	lo -= pad;
	hi += pad;
	const px = (t) => x0 + w - (now - t) / PLOT_SECONDS * w;
	const py = (v) => y0 + h - (v - lo) / (hi - lo) * h;

	ctx.strokeStyle = css("--line");
	ctx.lineWidth = 1;
	ctx.strokeRect(x0 + 0.5, y0 + 0.5, w - 1, h - 1);
	ctx.fillStyle = css("--quiet");
	ctx.font = "11px sans-serif";
	ctx.fillText(`${fmt(hi, 2)} ${unit}`, x0 + 4, y0 + 12);
	ctx.fillText(`${fmt(lo, 2)}`, x0 + 4, y0 + h - 4);
	["--x", "--y", "--z"].forEach((colour, axis) => {
		ctx.strokeStyle = css(colour);
		ctx.lineWidth = 1.5;
		ctx.beginPath();
		samples.forEach((p, i) => {
			const fn = i ? "lineTo" : "moveTo";

			ctx[fn](px(p.t), py(p[key][axis]));
		});
		ctx.stroke();
	});
}

function drawImu() {
	const { ctx, w, h } = context($("imu-plot"));

	if (!samples.length)
		return;
	const half = (h - 6) / 2;
	drawPanel(ctx, 0, 0, w, half, "a", 1.0, "m/s²");
	drawPanel(ctx, 0, half + 6, w, half, "g", 0.2, "rad/s");
}

function copOf(points, kg) {
	const total = kg.reduce((a, v) => a + Math.max(v, 0), 0);

	if (total <= 0.05)
		return null;	/* a foot in the air: no centre of pressure */
	let x = 0, y = 0;
	points.forEach((p, i) => {
		x += p[0] * Math.max(kg[i], 0);
		y += p[1] * Math.max(kg[i], 0);
	});
	return [x / total, y / total, total];
}

function drawFeet(s) {
	const { ctx, w, h } = context($("feet-plot"));
	const kg = { left: s.left_foot_pressure, right: s.right_foot_pressure };
	const span = { x: FOOT_OUTLINE.front - FOOT_OUTLINE.back, y: 0.1 + 2 * FOOT_OUTLINE.half };
	const scale = Math.min(w / span.y, h / span.x) * 0.85;
	const cx = w / 2, cy = h / 2 + (FOOT_OUTLINE.front + FOOT_OUTLINE.back) / 2 * scale;
	/* x forward is up the screen, y to the left is left on the screen. */
	const at = (x, y) => [cx - y * scale, cy - x * scale];
	const both = [];

	for (const foot of ["left", "right"]) {
		const fy = FOOT_Y[foot];
		const [l, t] = at(FOOT_OUTLINE.front, fy + FOOT_OUTLINE.half);
		const pts = FSR[foot].map(([x, y]) => [x, y + fy]);

		ctx.strokeStyle = css("--quiet");
		ctx.lineWidth = 2;
		ctx.beginPath();
		ctx.roundRect(l, t, 2 * FOOT_OUTLINE.half * scale,
			(FOOT_OUTLINE.front - FOOT_OUTLINE.back) * scale, 0.03 * scale);
		ctx.stroke();
		pts.forEach(([x, y], i) => {
			const [sx, sy] = at(x, y);
			const r = 3 + Math.sqrt(Math.max(kg[foot][i], 0)) * 0.012 * scale;

			ctx.fillStyle = css("--z");
			ctx.globalAlpha = 0.75;
			ctx.beginPath();
			ctx.arc(sx, sy, r, 0, 2 * Math.PI);
			ctx.fill();
			ctx.globalAlpha = 1;
		});
		const cop = copOf(pts, kg[foot]);
		if (cop) {
			const [sx, sy] = at(cop[0], cop[1]);

			ctx.strokeStyle = css("--on");
			ctx.lineWidth = 2;
			ctx.beginPath();
			ctx.moveTo(sx - 6, sy);
			ctx.lineTo(sx + 6, sy);
			ctx.moveTo(sx, sy - 6);
			ctx.lineTo(sx, sy + 6);
			ctx.stroke();
			both.push(cop);
		}
		$(`${foot}-foot-weight`).textContent =
			`${fmt(kg[foot].reduce((a, v) => a + v, 0), 2)} kg`;
	}
	const total = both.reduce((a, c) => a + c[2], 0);
	if (total > 0) {
		const x = both.reduce((a, c) => a + c[0] * c[2], 0) / total;
		const y = both.reduce((a, c) => a + c[1] * c[2], 0) / total;
		const [sx, sy] = at(x, y);

		ctx.fillStyle = css("--x");
		ctx.beginPath();
		ctx.arc(sx, sy, 7, 0, 2 * Math.PI);
		ctx.fill();
	}
}

function drawJoints(s) {
	const body = $("joints-body");

	if (!body.children.length) {
		for (const name of JOINTS) {
			const tr = document.createElement("tr");

			tr.id = `joint-${name}`;
			for (let i = 0; i < 5; i++)
				tr.appendChild(document.createElement("td"));
			tr.cells[0].textContent = name.replace(/_/g, " ");
			tr.cells[4].innerHTML = "<span class=\"v\"></span><span class=\"stiff\"><i></i></span>";
			body.appendChild(tr);
		}
	}
	JOINTS.forEach((name, i) => {
		const c = body.children[i].cells;
		const p = s.joint_positions[i], k = s.joint_stiffness[i];

		c[1].textContent = HANDS.has(name) ? fmt(p, 2) : `${fmt(deg(p), 1)}°`;
		c[2].textContent = `${fmt(s.joint_temperatures[i], 0)} °C`;
		c[3].textContent = `${fmt(s.joint_currents[i], 2)} A`;
		c[4].querySelector(".v").textContent = fmt(k, 2);
		c[4].querySelector("i").style.width = `${Math.round(Math.min(Math.max(k, 0), 1) * 100)}%`;
	});
}

/* ---- the boards ---------------------------------------------------------- */

/* GET /boards when the daemon has it; the body's answer from /state always. */
async function pollBoards() {
	const list = $("boards-list");

	try {
		const boards = await api("/boards");
		const entries = Array.isArray(boards) ? boards.map((b, i) => [b.name || i, b])
			: Object.entries(boards.boards || boards);

		list.replaceChildren(...entries.map(([name, b]) => {
			const div = document.createElement("div");
			const dl = document.createElement("dl");

			div.className = "board";
			div.dataset.board = String(name);
			for (const [k, v] of Object.entries(typeof b === "object" && b ? b : { state: b })) {
				const dt = document.createElement("dt"), dd = document.createElement("dd");

				dt.textContent = k;
				dd.textContent = typeof v === "object" ? JSON.stringify(v) : String(v);
				dl.append(dt, dd);
			}
			const h = document.createElement("strong");
			h.textContent = String(name);
			div.append(h, dl);
			return div;
		}));
		boardsTimer = setTimeout(pollBoards, 2000);
	} catch (e) {
		if (e instanceof ApiError && e.status === 404) {
			list.innerHTML = "<p class=\"quiet\">This daemon has no <code>/boards</code>: " +
				"the chest board's answer is under Body.</p>";
		} else if (token) {
			boardsTimer = setTimeout(pollBoards, 5000);
		}
	}
}

/* ---- start --------------------------------------------------------------- */

/* Never disabled: a stop that hangs must not keep the next press from going out. */
async function stop() {
	$("stop-note").textContent = "Sending the stop…";
	try {
		const r = await api("/stop", { method: "POST",
			headers: { "Content-Type": "application/json" },
			body: JSON.stringify({ who: "status page" }) });
		showLatched(r.stopped);
		$("stop-note").textContent = r.message;
		logEvent("stop", { sent: "by this page", time: Date.now() / 1000 });
	} catch (e) {
		logEvent("stop-failed", { error: e.message, time: Date.now() / 1000 });
		$("stop-note").textContent = `The stop was not confirmed: ${e.message}. ` +
			"Try again, or use the chest button or naoguard.";
	}
}

async function connect() {
	try {
		const r = await api("/robot");

		$("login").hidden = true;
		$("robot-id").textContent = r.body_id;
		$("simulated").hidden = !r.simulated;
		$("controller").textContent = r.controller;
	} catch (e) {
		if (!(e instanceof ApiError))
			setLink("down", `unreachable: ${e.message}`);
		return;
	}
	clearTimeout(boardsTimer);
	pollBoards();
	if (stream)
		stream.abort();
	runStream(++generation);
}

function start() {
	setUpViews();
	$("stop").addEventListener("click", () => {
		if (!token) {
			askToken("The stop needs the token too.");
			return;
		}
		stop();
	});
	$("login-form").addEventListener("submit", (ev) => {
		ev.preventDefault();
		const t = $("token-input").value.trim().toLowerCase();

		if (!/^[0-9a-f]{64}$/.test(t)) {
			$("login-msg").textContent = "A token is 64 hexadecimal digits.";
			return;
		}
		$("token-input").value = "";
		token = t;
		sessionStorage.setItem(TOKEN_KEY, t);
		connect();
	});
	window.addEventListener("resize", () => {
		if (!drawPending) {
			drawPending = true;
			requestAnimationFrame(draw);
		}
	});
	token = loadToken();
	if (token)
		connect();
	else
		askToken("");
}

document.addEventListener("DOMContentLoaded", start);
