#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's watchdog, against the simulated body: a quiet controller
makes the robot stand still after 0.5 s and sit down after 3 s, with a
Watchdog event each time; hearing it again releases the watchdog."""

import os
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_test import J, awake, ready  # noqa: E402
from nbtest import Daemon, Tap, check, wait_for  # noqa: E402

tap = Tap()


@tap.test
def both_stages():
    """Watchdog: quiet 0.5 s stands still, 3 s sits down and goes limp; heard again: released"""
    with Daemon() as d:
        c = awake(d)
        c.send({"Motion": "ArmsUp"})
        c.until(lambda s: s["motion"] == "ArmsUp" and s["primary_state"] == "Playing", 4,
                "ArmsUp")
        c.send("Heartbeat")
        quiet = time.monotonic()
        # Read, but send nothing.
        e = c.event("Watchdog", timeout=1.5)
        t1 = time.monotonic() - quiet
        check(e == {"active": True}, f"first event {e}")
        check(0.45 <= t1 <= 0.9, f"first stage after {t1:.2f} s")
        s = c.state(pred=lambda s: s["joint_positions"][J["left_shoulder_pitch"]] > 1.3,
                    timeout=2.2, what="arms down")
        check(s["motion"] == "Stand" and s["fall_state"] == "Upright",
              f"standing still: {s['motion']} {s['fall_state']}")
        e = c.event("Watchdog", timeout=3)
        t2 = time.monotonic() - quiet
        check(e == {"active": True}, f"second event {e}")
        check(2.95 <= t2 <= 3.5, f"second stage after {t2:.2f} s")
        s = c.state(pred=lambda s: s["primary_state"] == "Unstiff", timeout=3.5, what="limp")
        check(s["fall_state"] == "Sitting", f"not sitting: {s['fall_state']}")
        check(d.sim_status()["support"] == "upright", "it fell")
        c.send("Heartbeat")
        check(c.event("Watchdog", timeout=1) == {"active": False}, "release event")
        s = c.until(lambda s: True, 1)
        check(s["primary_state"] == "Unstiff", "the robot woke by itself after the release")
        log = d.log()
        check("quiet for 0.5 s" in log and "quiet for 3 s" in log and "released" in log, "log")


@tap.test
def heartbeats_keep_it_quiet():
    """Watchdog: any message at least every 100 ms keeps it quiet"""
    with Daemon() as d:
        c = awake(d)
        c.send({"Motion": "ArmsUp"})
        got = c.heartbeat_for(1.2, period=0.09)
        # Other messages count as well as Heartbeat.
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            c.send({"Subscribe": {"state": True}})
            time.sleep(0.09)
        got += c.heartbeat_for(0.2)
        check(not [m for m in got if "Event" in m and "Watchdog" in m["Event"]],
              "a Watchdog event while heartbeating")
        s = c.until(lambda s: True, 1)
        check(s["motion"] == "ArmsUp" and s["primary_state"] == "Playing", s["motion"])


@tap.test
def disconnect():
    """Watchdog: a controller that disconnects: stand still, then sit down and go limp"""
    with Daemon() as d:
        c = awake(d)
        c.send({"Motion": "Squat"})
        c.until(lambda s: s["motion"] == "Squat" and s["primary_state"] == "Playing", 4,
                "Squat")
        c.close()
        gone = time.monotonic()
        wait_for(lambda: "quiet for 0.5 s" in d.log(), 1, "the first stage")
        check(time.monotonic() - gone < 1.0, "the first stage came late")
        time.sleep(1.5)
        st = d.sim_status()
        check(abs(float(st["knees"]) - 0.92) < 0.08, f"not standing after 1.5 s: {st}")
        check(float(st["legs_stiffness"]) > 0.9, "limp too early")
        wait_for(lambda: float(d.sim_status()["legs_stiffness"]) < 0.01, 5, "limp")
        st = d.sim_status()
        check(time.monotonic() - gone > 3.0, "limp before 3 s")
        check(float(st["knees"]) > 1.7 and st["support"] == "upright", f"not sitting: {st}")


@tap.test
def new_controller_releases():
    """Watchdog: a new controller's Hello releases it; the robot stays as the watchdog left it"""
    with Daemon() as d:
        c = awake(d)
        c.close()
        wait_for(lambda: float(d.sim_status()["legs_stiffness"]) < 0.01, 6, "limp")
        c = ready(d, "next")
        check(c.event("Watchdog", timeout=1) == {"active": False}, "release event")
        s = c.state()
        check(s["primary_state"] == "Unstiff" and s["fall_state"] == "Sitting",
              f"{s['primary_state']} {s['fall_state']}")


@tap.test
def sigterm_sits_down_first():
    """SIGTERM: a stiff robot sits down and goes limp before naobodyd exits; twice: at once"""
    with Daemon() as d:
        awake(d)
        t0 = time.monotonic()
        check(d.stop() == 0, "exit status")
        took = time.monotonic() - t0
        log = d.log()
        check(0.5 < took < 5.5, f"stopped after {took:.2f} s")
        tail = log[log.index("stopping: letting the clients go"):]
        check("sitting down and going limp first" in tail, "no sit-down on SIGTERM")
        check("fall state Sitting" in tail, "exited before sitting")
    with Daemon() as d:
        awake(d)
        t0 = time.monotonic()
        d.proc.send_signal(signal.SIGTERM)
        wait_for(lambda: "sitting down and going limp first" in d.log(), 1, "the sit-down")
        d.proc.send_signal(signal.SIGTERM)
        d.proc.wait(2)
        check(time.monotonic() - t0 < 0.8, "a second SIGTERM did not stop at once")
    with Daemon() as d:  # limp: no delay
        t0 = time.monotonic()
        check(d.stop() == 0 and time.monotonic() - t0 < 0.5, "a limp robot's stop waited")


if __name__ == "__main__":
    tap.run()
