#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""wake_walk.py: a robot API client in a page, with the naobody package
(pip install --no-build-isolation --no-index userspace/python/naobody).

    wake_walk.py [HOST[:PORT]] [--distance M]

Wakes the robot, waits until it stands, walks DISTANCE metres forward
(default 0.3), reads State on the way, then sits it down and lets it go
limp. Try it on the simulated robot: naobodyd --sim in another terminal.
Prints one line per step; exit status 0 when the robot did all of it.
"""

import argparse
import sys
import time

import naobody


def until(robot, pred, seconds, what):
    """States until pred(state) is true; that State. Events on the way are
    printed (a fall, the watchdog)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s = robot.state(timeout=2)
        if pred(s):
            return s
        for ev in robot.events(timeout=0):
            print(f"  event: {ev}")
    raise SystemExit(f"wake_walk: no {what} within {seconds} s")


def main():
    ap = argparse.ArgumentParser(description="Wake, walk and read State over the robot API.")
    ap.add_argument("host", nargs="?", default="localhost", help="HOST[:PORT] (localhost)")
    ap.add_argument("--distance", type=float, default=0.3, help="metres forward (0.3)")
    args = ap.parse_args()

    try:
        robot = naobody.connect(args.host, name="wake_walk")
    except (OSError, naobody.NaobodyError) as e:
        raise SystemExit(f"wake_walk: cannot connect to {args.host}: {e}")
    with robot:
        print(f"connected: body {robot.info.body_id}, "
              f"{'simulated' if robot.info.simulated else 'real'}")
        robot.subscribe(state=True)
        robot.wake()
        s = until(robot, lambda s: s.fall_state == "Upright" and s.motion == "Stand"
                  and s.primary_state == "Initial", 60, "standing robot")
        print(f"standing: knees {s.joint_positions.left_knee_pitch:.2f} "
              f"{s.joint_positions.right_knee_pitch:.2f} rad, battery "
              f"{s.battery.charge:.0%}")
        start = s.odometry
        robot.walk_to(args.distance, 0.0)
        robot.check(wait=0.2)  # a refusal (walking off on this body) raises here
        until(robot, lambda s: s.motion == "Walk", 10, "walk")
        print("walking")
        s = until(robot, lambda s: s.motion == "Stand" and s.fall_state == "Upright", 60,
                  "arrival")
        if start is not None and s.odometry is not None:
            print(f"arrived: {s.odometry[0] - start[0]:.2f} m forward by the odometry")
        else:
            print("arrived")
        robot.rest()
        s = until(robot, lambda s: s.primary_state == "Unstiff", 30, "limp robot")
        print(f"resting: {s.fall_state.lower()}, done")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except naobody.RobotError as e:
        sys.exit(f"wake_walk: the robot said: {e} ({e.kind}"
                 f"{', ' + e.reason if e.reason else ''})")
