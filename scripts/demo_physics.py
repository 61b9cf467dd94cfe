#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make demo, on this machine after the VM: the physical simulated body.

naobodyd --sim-model runs the MuJoCo model of the NAO V6
(userspace/sim/nao6/nao6.xml) on free ports and private paths, and a robot
API client drives it on a fixed timeline while this prints the body live,
four lines a second: what the daemon says (State's motion and fall state,
the IMU's roll and pitch, each foot's pressure) beside what the physics
measured (where the torso is on the floor, its height above it, drawn as
a bar, and the motor that worked hardest, as a share of its maximum
torque). It stands, sits, stands, walks ahead and in a circle, stops,
is pushed over and is stopped.

  demo_physics.py [--seconds-per-step S]   (default 5)

It reuses the tests' client and daemon (selftests/naobodyd/nbtest.py).
Without MuJoCo (no libmujoco2.2.2) it says so and exits 0: the demo's
VM part does not need it."""

import argparse
import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
SRCTREE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(SRCTREE, "selftests", "naobodyd"))
from api_test import ready  # noqa: E402
from nbtest import Daemon, TestFailure  # noqa: E402

MODEL = os.path.join(SRCTREE, "userspace", "sim", "nao6", "nao6.xml")
BAR = 30        # characters for 0.40 m of torso height
BAR_M = 0.40


def plan(step):
    """(seconds, what it says, the client's message or a control command)."""
    return [
        (0 * step, "Wake: stiffness comes up, the robot stands", {"Power": "Wake"}),
        (1 * step, "SitDown", {"Motion": "SitDown"}),
        (2 * step, "Stand again", {"Motion": {"Stand": {"head": "Center"}}}),
        (3 * step, "WalkToward straight ahead, Normal (0.2 m/s)",
         {"Motion": {"WalkToward": {"x": 1.0, "y": 0.0, "speed": "Normal", "head": "Center"}}}),
        (4 * step, "WalkToward half left: a circle",
         {"Motion": {"WalkToward": {"x": 0.5, "y": 0.5, "speed": "Normal", "head": "Center"}}}),
        (5 * step, "Stand: the feet close within a step", {"Motion": {"Stand": {"head": "Center"}}}),
        (6 * step, "a push on the torso from behind (30 N, 0.2 s)", "push front"),
        (7 * step, "Stop: every stiffness 0, latched", "Stop"),
        (8 * step, "end", None),
    ]


def line(t, state, p):
    h = p["torso_height"]
    n = max(0, min(BAR, round(h / BAR_M * BAR)))
    roll, pitch = state["imu"]["roll_pitch"] if state else (0.0, 0.0)
    lf = sum(state["left_foot_pressure"]) if state else 0.0
    rf = sum(state["right_foot_pressure"]) if state else 0.0
    return (f"{t:5.1f} s  {(state or {}).get('motion', '-'):<8} "
            f"{(state or {}).get('fall_state', '-'):<8} "
            f"at {p['torso_x']:+.2f} {p['torso_y']:+.2f} m "
            f"torso {h:.2f} m |{'#' * n}{' ' * (BAR - n)}| "
            f"roll {roll:+.2f} pitch {pitch:+.2f}  feet {lf:4.1f} {rf:4.1f} kg  "
            f"hardest {p['torque_given_joint']} {p['torque_given']:.2f}")


def main():
    ap = argparse.ArgumentParser(description="make demo: the physical simulated body, "
                                 "live in the terminal")
    ap.add_argument("--seconds-per-step", type=float, default=5.0, metavar="S",
                    help="time between the timeline's steps (default 5)")
    args = ap.parse_args()
    if args.seconds_per_step < 2:
        ap.error("--seconds-per-step: at least 2 (the stand-up takes that long)")
    try:
        d = Daemon("--sim-model", MODEL, "--sim-start", "sitting", lola=False)
    except (TestFailure, OSError) as e:
        print(f"the physical body does not run here: {e}")
        print("(it needs MuJoCo: apt install libmujoco2.2.2; make deps installs it)")
        return 0
    with d:
        c = ready(d, "make demo (physics)")
        print("  time  motion   fall     where (x, y)   the torso above the floor (0 to 0.40 m)   "
              "IMU (rad)         feet (kg)     hardest motor (of its max torque)")
        steps = plan(args.seconds_per_step)
        t0 = time.monotonic()
        state = None
        d.control("physics reset")
        while True:
            now = time.monotonic() - t0
            while steps and steps[0][0] <= now:
                _, say, what = steps.pop(0)
                print(f"\033[1;36m{now:5.1f} s  -- {say}\033[0m")
                if what is None:
                    return 0
                if isinstance(what, str) and what != "Stop":
                    d.control(what)
                else:
                    c.send(what)
                d.control("physics reset")
            for m in c.heartbeat_for(0.25):
                if isinstance(m, dict) and "State" in m:
                    state = m["State"]
                elif isinstance(m, dict) and "Event" in m:
                    print(f"{now:5.1f} s  event {m['Event']}")
            print(line(time.monotonic() - t0, state, d.physics()), flush=True)


if __name__ == "__main__":
    sys.exit(main())
