#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd on the physical simulated body (--sim-model, the MuJoCo model of
the NAO V6): standing, going limp on Stop, sitting down and the feet's
pressure sensors, checked from the physics, not from what the daemon meant.

The daemon's own view (the robot API's State and events, the LoLA stream)
is read as a client reads it; the physics' (the torso's height, the worst
motor torque) through the simulator's control socket ("physics")."""

import math
import os
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_test import ready  # noqa: E402
from nbtest import (BODY_HANG, LATE, SRCTREE, Daemon, Lola, Tap, binary, check,  # noqa: E402
                    note, wait_for)

tap = Tap()

MODEL = os.path.join(SRCTREE, "userspace", "sim", "nao6", "nao6.xml")
GRAVITY = 9.81
# The body's time from its cycles, one period each however late it ran
# (body_sim.c, NAOBODYD_SIM_LOCKSTEP): what the model does never depends on
# how busy the machine is (four of these daemons beside a build once made a
# knee ask for 4.8 times its torque standing up). Windows and waits are in
# that time (State's time); their bounds on the clock are a hang's.
os.environ["NAOBODYD_SIM_LOCKSTEP"] = "1"

# Bounds, stated once. The torso frame stands 0.333 m above the floor with
# straight legs (the model); Stand bends the knees a little.
STAND_HEIGHT = (0.28, 0.335)	# m
STAND_TILT = 0.10		# rad, the IMU's roll and pitch
SIT_HEIGHT = (0.18, 0.26)	# m, the NAO's crouch
FSR_TOLERANCE = 0.05		# of the model's mass, standing still
FSR_LIFTED = 0.05		# kg, all eight together, lifted off the floor


def physical(*extra):
    return Daemon("--sim-model", MODEL, "--sim-start", "sitting", *extra)


def physics(d):
    """The physics' own figures (the control socket's "physics")."""
    return d.physics()


def check_torque(p, when):
    """No motor asked for more than its maximum torque (the physics' worst
    since the reset). Standing up from the crouch once asked the knees for
    0.96 to 1.07 of it (the knees straightened at 1.5 rad/s); at motion.c's
    RISE_SPEED, half that, 0.74."""
    check(p["torque_asked"] < 1.0, f"{when}, {p['torque_asked_joint']} asked for "
          f"{p['torque_asked']:.3f} of its maximum torque")


def body_window(c, seconds, each=None, send=True):
    """What comes for seconds of the body's time (heartbeating, unless not
    send: a quiet controller); each() between reads, to sample a figure."""
    got, first, end = [], None, time.monotonic() + BODY_HANG
    while True:
        batch = c.heartbeat_for(0.1) if send else listen(c, 0.1)
        got += batch
        if each:
            each()
        times = [s["time"] for s in states(batch)]
        first = first if first is not None or not times else times[0]
        if times and times[-1] - first >= seconds:
            return got
        check(time.monotonic() < end, f"{seconds} s of the body's time took over {BODY_HANG} s")


# Its own awake(), not api_test's: the physical stand-up is held to 5 s of
# the body's time.
def awake(d):
    c = ready(d, "physics_test")
    c.wake(5)
    return c


def fall_events(messages):
    """The Fall events' states (Sitting and Upright among them)."""
    return [m["Event"]["Fall"]["state"] for m in messages
            if isinstance(m, dict) and "Event" in m and "Fall" in m["Event"]]


def falls(messages):
    """The Fall events that say it fell."""
    return [e for e in fall_events(messages) if e in ("Falling", "Fallen")]


def states(messages):
    return [m["State"] for m in messages if isinstance(m, dict) and "State" in m]


def listen(c, seconds):
    """What comes for a while, sending nothing (a quiet controller)."""
    got, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            got.append(c.recv(max(0.01, end - time.monotonic())))
        except socket.timeout:
            pass
    return got


def tilt(s):
    return math.hypot(*s["imu"]["roll_pitch"])


def fsr_total(s):
    return sum(s["left_foot_pressure"]) + sum(s["right_foot_pressure"])


@tap.test
def wake_stands():
    """Wake: the physical robot stands on its own feet for 5 s (torso height, IMU tilt)"""
    with physical() as d:
        c = awake(d)
        up = physics(d)
        check_torque(up, "standing up")
        heights = []
        seen = body_window(c, 5, lambda: heights.append(physics(d)["torso_height"]))
        tilts = [tilt(s) for s in states(seen)]
        # Standing still the accelerometer reads gravity alone, the NAO's sign.
        acc = [sum(s["imu"]["linear_acceleration"][i] for s in states(seen)) / len(states(seen))
               for i in range(3)]
        check(abs(acc[2] + GRAVITY) < 0.3 and math.hypot(acc[0], acc[1]) < 0.5,
              f"accelerometer {acc} standing still")
        check(not falls(seen), f"fall events while standing: {falls(seen)}")
        check(all(s["fall_state"] == "Upright" for s in states(seen)), "not upright throughout")
        check(STAND_HEIGHT[0] <= min(heights) and max(heights) <= STAND_HEIGHT[1],
              f"torso height {min(heights):.3f}..{max(heights):.3f} m, not in {STAND_HEIGHT}")
        check(max(tilts) < STAND_TILT, f"IMU tilt up to {max(tilts):.3f} rad")
        note(f"standing 5 s: torso {min(heights):.4f}..{max(heights):.4f} m, "
             f"IMU tilt at most {max(tilts):.4f} rad over {len(tilts)} States, "
             f"accelerometer ({acc[0]:.3f}, {acc[1]:.3f}, {acc[2]:.3f}) m/s^2; standing up, "
             f"worst torque {up['torque_asked']:.3f} of the maximum ({up['torque_asked_joint']})")


@tap.test
def stop_goes_limp_and_falls():
    """Stop: the motors give no torque, the robot collapses, fall.c sees it from the IMU"""
    with physical() as d:
        c = awake(d)
        t0 = states(body_window(c, 0.5))[-1]["time"]
        before = physics(d)["torso_height"]
        c.send("Stop")
        wait_for(d.body.stopped, 2 + LATE, "the death switch at the body")
        d.control("physics reset")
        took = c.until_body(lambda s: s["fall_state"] == "Fallen", 5, "Fallen after Stop")
        took = took["time"] - t0
        seen = fall_events(c.seen)
        check("Falling" in seen and seen[-1] == "Fallen", f"fall events {seen}")
        p = physics(d)
        # Limp: not a newton metre from any motor since the switch latched.
        check(p["torque_given"] == 0, f"a motor still gave {p['torque_given']:.3f} of its "
              f"maximum ({p['torque_given_joint']}) after Stop")
        check(p["torso_height"] < before - 0.1,
              f"torso at {p['torso_height']:.3f} m, from {before:.3f} m")
        last = states(c.seen)[-1]
        note(f"Stop to Fallen {took:.2f} s (events {seen}); torso {before:.3f} -> "
             f"{p['torso_height']:.3f} m, IMU tilt {tilt(last):.2f} rad")


@tap.test
def pushed_falls_that_way():
    """push: the standing robot topples the way it is pushed; fall.c sees it, pitch says how"""
    for way, sign in (("front", 1), ("back", -1)):
        with physical() as d:
            c = awake(d)
            body_window(c, 0.5)
            d.control(f"push {way}")
            s = c.until_body(lambda s: s["fall_state"] == "Fallen", 5, f"Fallen, pushed {way}")
            check("Falling" in fall_events(c.seen), f"pushed {way}: {fall_events(c.seen)}")
            pitch = s["imu"]["roll_pitch"][1]
            # Past fall.c's falling tilt (0.6 rad) the way it was pushed:
            # falling forwards, the protective pose lands it on its forearms
            # and knees, about 1 rad down; backwards, on its back.
            check(sign * pitch > 0.6, f"pushed {way}, lying with pitch {pitch:.2f} rad")
            towards = "forwards" if way == "front" else "backwards"
            check(f"falling {towards}: protective pose" in d.log(),
                  f"pushed {way}: no protective pose {towards} in the log")
            note(f"pushed {way}: lying at pitch {pitch:+.2f} rad, torso "
                 f"{physics(d)['torso_height']:.3f} m")


# The backward protective fall against the falls a client can cause without
# it, through the API's own means: the same push while a LoLA client holds
# Stand's pose (falls are a LoLA client's business, so the motion layer
# takes no pose), stiff as it stood and soft (0.2, the motion layer's own
# soft fall), and a Stop (the motors limp; the model collapses backwards,
# which is checked). The measure is the model's:
# how fast the head went into the floor ("physics", head_speed). Seen on
# the model: 1.38 m/s protective; 3.38 stiff, 3.22 soft, 2.18 limp.
SOFTER = 0.7		# the protective fall's head speed, at most this of each other's


def head_impact(d, what):
    p = physics(d)
    check(p["head_touched"] == 1, f"{what}: the head never touched the floor")
    return p["head_speed"]


def api_fall(how, what):
    """The awake robot standing, how(d, c) makes it fall: the daemon's log and
    the head's impact, once Fallen."""
    with physical() as d:
        c = awake(d)
        body_window(c, 0.5)
        d.control("physics reset")
        how(d, c)
        c.until_body(lambda s: s["fall_state"] == "Fallen", 5, f"Fallen: {what}")
        # Backwards, as every fall compared here (pushed_falls_that_way's sign).
        check(physics(d)["pitch"] < -0.6, f"{what}: not lying on its back, pitch "
              f"{physics(d)['pitch']:.2f} rad")
        return d.log(), head_impact(d, what)


def protective_fall_back():
    log, speed = api_fall(lambda d, c: d.control("push back"), "protective, pushed back")
    check("falling backwards: protective pose" in log, "no protective pose in the log")
    return speed


def lola_fall_back(stiffness):
    """Pushed back while a LoLA client holds the pose Stand left, at stiffness."""
    with physical() as d:
        c = awake(d)
        body_window(c, 0.5)
        lola = Lola(d)
        try:
            pose = lola.read()["Position"]
            hold = {"Position": pose, "Stiffness": [stiffness] * 25}
            for _ in range(40):
                lola.read()
                lola.send(hold)
            d.control("physics reset")
            d.control("push back")
            # Until the head has touched and the body has had 0.5 s more (in
            # cycles, the body's time); 5 s of it is a hang's bound.
            after = None
            for cycle in range(420):
                lola.read()
                lola.send(hold)
                if after is None and physics(d)["head_touched"]:
                    after = cycle
                if after is not None and cycle - after > 40:
                    break
        finally:
            lola.close()
        # The head speeds would be the same without motion_input's elsewhere
        # (LoLA's command goes to the body either way); the log tells.
        check("protective pose" not in d.log(), "a LoLA client's fall took the protective pose")
        return head_impact(d, f"LoLA, stiffness {stiffness}")


def stopped_collapse():
    return api_fall(lambda d, c: c.send("Stop"), "Stop")[1]


@tap.test
def protective_fall_back_is_softer():
    """The backward protective fall: the head meets the floor slower than pushed under a LoLA client or after Stop"""
    protective = protective_fall_back()
    others = {"LoLA stiff": lola_fall_back(1.0), "LoLA soft": lola_fall_back(0.2),
              "Stop": stopped_collapse()}
    note(f"head into the floor: protective {protective:.2f} m/s; " +
         ", ".join(f"{k} {v:.2f}" for k, v in others.items()))
    for what, speed in others.items():
        check(protective <= SOFTER * speed, f"the protective fall's head {protective:.2f} m/s, "
              f"{what}'s {speed:.2f}: not {SOFTER} of it or less")


# A push's way is the robot's: front is the way it faces. Turned a quarter
# turn first (WalkTo's turn_to), so that the world's axes and its own differ;
# where the torso lands, from where it stood, in its frame as it stood, says
# which way it went (a sideways fall's protective pose lands it face down
# either way, so the IMU cannot tell left from front). A fall moves the
# torso about 0.35 m; into the world's axes it went the robot's right or back.
PUSH_TRAVEL = 0.15	# m, at least, the way it was pushed, more than across


@tap.test
def pushed_in_its_own_frame():
    """push: front and left are the robot's, not the world's (turned a quarter turn first)"""
    for way, along in (("front", (1, 0)), ("left", (0, 1))):
        with physical() as d:
            c = awake(d)
            c.send({"Motion": {"WalkTo": {"x": 0.0, "y": 0.0, "turn_to": math.pi / 2,
                                          "speed": "Normal"}}})
            c.until_body(lambda s: s["motion"] == "Walk", 2, "Walk")
            c.until_body(lambda s: s["motion"] == "Stand", 30, "turned a quarter turn")
            body_window(c, 0.5)
            p = physics(d)
            x0, y0, yaw = p["torso_x"], p["torso_y"], p["torso_yaw"]
            check(abs(yaw - math.pi / 2) < 0.3, f"turned to {yaw:.2f} rad, not a quarter turn")
            d.control(f"push {way}")
            c.until_body(lambda s: s["fall_state"] == "Fallen", 5, f"Fallen, pushed {way}")
            p = physics(d)
            dx, dy = p["torso_x"] - x0, p["torso_y"] - y0
            # The torso's travel in the robot's frame as it stood.
            fwd = dx * math.cos(yaw) + dy * math.sin(yaw)
            left = -dx * math.sin(yaw) + dy * math.cos(yaw)
            went = along[0] * fwd + along[1] * left
            across = along[1] * fwd + along[0] * left
            check(went > PUSH_TRAVEL and went > abs(across),
                  f"facing {yaw:.2f} rad, pushed {way}: the torso went {fwd:+.3f} m forward, "
                  f"{left:+.3f} m left of where it stood")
            note(f"facing {yaw:.2f} rad, pushed {way}: torso {fwd:+.3f} m forward, "
                 f"{left:+.3f} m left")


@tap.test
def watchdog_stands_then_sits():
    """Watchdog: a quiet controller's robot stands still, then sits down, without a fall"""
    with physical() as d:
        c = awake(d)
        c.send({"Motion": "ArmsUp"})
        c.until_body(lambda s: s["motion"] == "ArmsUp" and s["primary_state"] == "Playing",
                     4, "ArmsUp")
        d.control("physics reset")
        c.send("Heartbeat")
        # Until the second stage's sit-down is over and the stiffness goes
        # (its clock, the watchdog's, is never ahead of the body's).
        seen, end = [], time.monotonic() + BODY_HANG
        while time.monotonic() < end and not any(
                s["primary_state"] == "Unstiff" for s in states(seen)):
            seen += listen(c, 0.1)
        limp = [s for s in states(seen) if s["primary_state"] == "Unstiff"]
        check(limp, "never went limp")
        check(any(s["motion"] == "Stand" and s["fall_state"] == "Upright" for s in states(seen)),
              "never stood still at the first stage")
        check(not falls(seen), f"fall events: {falls(seen)}")
        check(limp[0]["fall_state"] == "Sitting", f"went limp {limp[0]['fall_state']}")
        p = physics(d)
        check(SIT_HEIGHT[0] <= p["torso_height"] <= SIT_HEIGHT[1],
              f"torso at {p['torso_height']:.3f} m, not seated")
        check_torque(p, "sitting down for the watchdog")
        # Not checked, said: limp in the crouch, the model tips backwards
        # (Documentation/naobodyd.rst, "The physical simulated body").
        after = falls(body_window(c, 2.0, send=False))
        note(f"quiet: seated, torso {p['torso_height']:.4f} m, worst torque "
             f"{p['torque_asked']:.3f} of the maximum ({p['torque_asked_joint']}); "
             f"2 s limp after: {after or 'no fall'}")


@tap.test
def sit_down_within_torque():
    """SitDown: seated without a fall, no motor asked for more than its maximum torque"""
    with physical() as d:
        c = awake(d)
        body_window(c, 0.5)
        d.control("physics reset")
        c.send({"Motion": "SitDown"})
        c.until_body(lambda s: s["motion"] == "SitDown" and s["fall_state"] == "Sitting", 6,
                     "sitting")
        seen = c.seen + body_window(c, 1.0)
        p = physics(d)
        check(not falls(seen), f"fall events while sitting down: {falls(seen)}")
        last = states(seen)[-1]
        check(last["fall_state"] == "Sitting", f"ended {last['fall_state']}")
        check(SIT_HEIGHT[0] <= p["torso_height"] <= SIT_HEIGHT[1],
              f"torso at {p['torso_height']:.3f} m, not seated in {SIT_HEIGHT}")
        check(tilt(last) < 0.2, f"IMU tilt {tilt(last):.3f} rad seated")
        # The motors clamp at their maximum: what the position error asked is
        # the check that none was driven into its limit.
        check(p["torque_given"] <= 1.0, f"torque {p['torque_given']:.3f} of the maximum")
        check_torque(p, "sitting down")
        note(f"seated: torso {p['torso_height']:.4f} m, tilt {tilt(last):.4f} rad; worst "
             f"torque {p['torque_asked']:.3f} of the maximum ({p['torque_asked_joint']})")


# The keyframes from Stand, and where the torso ends: ArmsUp moves only the
# arms, Squat bends the legs deep (poses.c). A keyframe takes at most 3 s
# (motion.c, MOVE_MAX_NS) until State says it is there (Playing); the robot
# is watched 1 s more, holding it.
POSE_HEIGHTS = {"ArmsUp": STAND_HEIGHT, "Squat": (0.18, 0.28)}
# Squat's legs (hips -0.85, knees 1.50, ankles -0.75 rad) lean the torso
# 0.10 rad forward over flat feet by design; Stand's and ArmsUp's none.
POSE_LEAN = {"Squat": 0.10}
POSE_MOVE = 3.0		# s of the body's time
POSE_HOLD = 1.0


@tap.test
def arms_up_and_squat_within_torque():
    """ArmsUp, Squat and back to Stand: upright throughout, no motor asked for more than its maximum"""
    with physical() as d:
        c = awake(d)
        body_window(c, 0.5)
        figures, before = [], "Stand"
        for motion in ("ArmsUp", "Stand", "Squat", "Stand"):
            d.control("physics reset")
            c.send({"Motion": motion if motion != "Stand" else {"Stand": {"head": "Center"}}})
            heights = []
            c.until_body(lambda s: s["motion"] == motion and s["primary_state"] == "Playing",
                         POSE_MOVE + 0.5, motion)
            seen = c.seen + body_window(c, POSE_HOLD,
                                        lambda: heights.append(physics(d)["torso_height"]))
            tilts = [tilt(s) for s in states(seen)]
            p = physics(d)
            last = states(seen)[-1]
            check(last["motion"] == motion, f"{motion}: State's motion {last['motion']}")
            check(not falls(seen), f"{motion}: fall events {falls(seen)}")
            check(all(s["fall_state"] == "Upright" for s in states(seen)),
                  f"{motion}: not upright throughout")
            # Between two poses the lean goes from one's to the other's.
            lean = max(POSE_LEAN.get(motion, 0.0), POSE_LEAN.get(before, 0.0))
            check(max(tilts) < lean + STAND_TILT,
                  f"{motion}: IMU tilt up to {max(tilts):.3f} rad (the poses' lean {lean})")
            before = motion
            low, high = POSE_HEIGHTS.get(motion, STAND_HEIGHT)
            check(low <= heights[-1] <= high,
                  f"{motion}: the torso ends at {heights[-1]:.3f} m, not in ({low}, {high})")
            check(p["torque_given"] <= 1.0, f"{motion}: torque {p['torque_given']:.3f}")
            check_torque(p, motion)
            figures.append(f"{motion}: torso ends {heights[-1]:.3f} m, tilt at most "
                           f"{max(tilts):.3f} rad, {tilts[-1]:.3f} at the end, worst torque "
                           f"{p['torque_asked']:.3f} "
                           f"({p['torque_asked_joint']})")
        note("; ".join(figures))


@tap.test
def feet_carry_the_weight():
    """FSRs: standing they weigh the model's mass (State and LoLA); lifted, nothing"""
    with physical() as d:
        c = awake(d)
        s = states(body_window(c, 1.0))[-1]
        mass = physics(d)["mass_kg"]
        total = fsr_total(s)
        check(abs(total - mass) <= FSR_TOLERANCE * mass,
              f"FSRs {total:.3f} kg standing, the model weighs {mass:.3f} kg")
        feet = (sum(s["left_foot_pressure"]), sum(s["right_foot_pressure"]))
        check(min(feet) > 0.3 * total, f"feet {feet[0]:.3f} and {feet[1]:.3f} kg: one foot?")
        lola = Lola(d)
        packet = lola.read()
        lola_total = sum(packet["FSR"])
        lola.close()
        check(abs(lola_total - mass) <= FSR_TOLERANCE * mass,
              f"LoLA FSRs {lola_total:.3f} kg, the model weighs {mass:.3f} kg")
        d.control("lift 1")
        c.until_body(lambda s: fsr_total(s) < FSR_LIFTED, 2, "the feet off the floor")
        body_window(c, 0.5)
        lifted = states(body_window(c, 0.3))[-1]
        check(fsr_total(lifted) < FSR_LIFTED, f"lifted, the FSRs read {fsr_total(lifted):.3f} kg")
        note(f"standing: FSRs {total:.3f} kg (L {feet[0]:.3f}, R {feet[1]:.3f}), LoLA "
             f"{lola_total:.3f} kg, model {mass:.3f} kg ({(total - mass) / mass:+.2%}); "
             f"lifted 10 cm: {fsr_total(lifted):.4f} kg")


def control_reply(d, line):
    """A control command's reply as it is, "error: ..." included."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as s:
        s.settimeout(5)
        s.connect(d.control_path)
        s.send(line.encode())
        return s.recv(512).decode()


SONAR_NOTHING = 2.55	# m, sim_physics.h
POST_R = 0.10		# m, the model's obstacle


@tap.test
def obstacle_seen_and_touched():
    """Sonar and touch: the post ahead-left on State's left sonar only; scripted sonar refused; the head still scripted"""
    with physical() as d:
        c = awake(d)
        s = states(body_window(c, 0.3))[-1]
        check(all(abs(v - SONAR_NOTHING) < 1e-3 for v in s["sonar"].values()),
              f"nothing placed, the sonars read {s['sonar']}")
        reply = control_reply(d, "sonar 0.5 0.5")
        check(reply.startswith("error:") and "obstacle" in reply,
              f"scripted sonar on the physics: {reply!r}")
        for bad in ("obstacle nan 0", "obstacle 1e9 0", "obstacle 1", "obstacle here 0"):
            reply = control_reply(d, bad)
            check(reply.startswith("error: obstacle X Y"), f"{bad}: {reply!r}")
        p = physics(d)
        # Ahead-left, in the start frame; the torso has moved a little standing up.
        d.control("obstacle 0.80 0.45")
        c.until_body(lambda s: s["sonar"]["left"] < 2.0, 1, "the left sonar seeing the post")
        s = states(body_window(c, 0.3))[-1]
        want = math.hypot(0.80 - p["torso_x"], 0.45 - p["torso_y"]) - POST_R
        check(abs(s["sonar"]["left"] - want) < 0.1,
              f"left sonar {s['sonar']['left']:.3f} m, the post's surface about {want:.3f} m")
        check(abs(s["sonar"]["right"] - SONAR_NOTHING) < 1e-3,
              f"the right sonar sees the post ahead-left: {s['sonar']['right']:.3f} m")
        check(not any(s["touch"].values()), f"touched standing still: {s['touch']}")
        d.control("touch head_front 1")
        s = c.until_body(lambda s: s["touch"]["head_front"], 1, "the scripted head touch")
        d.control("touch head_front 0")
        d.control("obstacle off")
        s = c.until_body(lambda s: s["sonar"]["left"] > 2.5 and not s["touch"]["head_front"],
                         1, "the post gone, the head released")
        note(f"post at 0.80, 0.45 m: left sonar {want:.3f} m expected (torso at "
             f"{p['torso_x']:.3f}, {p['torso_y']:.3f})")


def torso_moved(p0, p1):
    """The physics' torso from p0 to p1, in p0's frame: forward, left, turn."""
    dx, dy = p1["torso_x"] - p0["torso_x"], p1["torso_y"] - p0["torso_y"]
    c, s = math.cos(p0["torso_yaw"]), math.sin(p0["torso_yaw"])
    turn = math.remainder(p1["torso_yaw"] - p0["torso_yaw"], 2 * math.pi)
    return c * dx + s * dy, -s * dx + c * dy, turn


@tap.test
def walk_toward_walks():
    """Walking: WalkToward goes forward on the physics, State's odometry with it; Stand stops it"""
    with physical() as d:
        c = awake(d)
        start, o0 = physics(d), states(body_window(c, 0.2))[-1]["odometry"]
        c.send({"Motion": {"WalkToward": {"x": 1.0, "y": 0.0, "speed": "Normal",
                                          "head": "Center"}}})
        seen = body_window(c, 5.0)
        walked = physics(d)
        o1 = states(seen)[-1]["odometry"]
        check(not falls(seen), f"fall events: {falls(seen)}")
        check(any(s["motion"] == "Walk" for s in states(seen)), "State never said Walk")
        fwd, left, turn = torso_moved(start, walked)
        # Normal is 0.2 m/s: 1 m in 5 s, less the first steps' speeding up.
        check(fwd > 0.6, f"the torso went {fwd:.3f} m forward in 5 s")
        check(abs(turn) < 0.17, f"the heading turned {turn:.3f} rad")
        # The odometry against the physics: the engine's steps and the gyroscope.
        ofwd = math.hypot(o1[0] - o0[0], o1[1] - o0[1])
        check(abs(ofwd - math.hypot(fwd, left)) < 0.1 * fwd + 0.05,
              f"odometry {ofwd:.3f} m, the torso {math.hypot(fwd, left):.3f} m")
        c.send({"Motion": {"Stand": {"head": "Center"}}})
        t0 = states(seen)[-1]["time"]
        # Feet together within a step or two, on the body's time.
        stopped = c.until_body(lambda s: s["motion"] == "Stand", 2, "standing after Stand")
        stopped = stopped["time"] - t0
        before = physics(d)
        rest = body_window(c, 1.0)
        after = physics(d)
        still = math.hypot(*torso_moved(before, after)[:2])
        check(not falls(seen + rest), f"fall events: {falls(seen + rest)}")
        # Walking on would be 0.2 m; the torso settles over its feet by a centimetre or two.
        check(still < 0.04, f"still moving after Stand: {still:.3f} m in 1 s")
        note(f"5 s at Normal: torso {fwd:.3f} m forward, {left:+.3f} m aside, "
             f"{turn:+.3f} rad; odometry {ofwd:.3f} m; Stand: feet together after "
             f"{stopped * 1e3:.0f} ms, then {still * 1e3:.1f} mm in 1 s")


@tap.test
def mujoco_not_linked():
    """The daemon is not linked with MuJoCo: the robot, which has none, starts it"""
    r = subprocess.run(["readelf", "-d", binary("naobodyd")], capture_output=True, text=True,
                       timeout=10)
    check(r.returncode == 0, f"readelf -d: exit {r.returncode}: {r.stderr.strip()}")
    needed = [line.split("[", 1)[1].rstrip("]") for line in r.stdout.splitlines()
              if "(NEEDED)" in line]
    check(needed, "readelf -d: no NEEDED entries")
    linked = [n for n in needed if "mujoco" in n.lower()]
    check(not linked, f"naobodyd NEEDs {', '.join(linked)}: MuJoCo is for --sim-physics only, "
          "loaded at run time")


@tap.test
def model_option_errors():
    """Options: a missing or unloadable --sim-model is an error naming the file and the reason"""
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "bad.xml")
        with open(bad, "w") as f:
            f.write("<mujoco><worldbody><body")
        other = os.path.join(tmp, "ball.xml")
        with open(other, "w") as f:
            f.write('<mujoco><worldbody><body name="b"><freejoint/><geom size="0.1"/>'
                    "</body></worldbody></mujoco>")
        for path, why in ((os.path.join(tmp, "none.xml"), "FILE_NOT_FOUND"),
                          (bad, "XML"), (other, "not a NAO V6 model")):
            r = subprocess.run([binary("naobodyd"), "--sim-model", path, "--no-lola",
                                "--no-guard", "--no-rest", "--port", "0"],
                               capture_output=True, text=True, timeout=10)
            check(r.returncode == 1, f"{path}: exit {r.returncode}")
            check(path in r.stderr and why in r.stderr, f"{path}: said {r.stderr!r}")


if __name__ == "__main__":
    tap.run()
