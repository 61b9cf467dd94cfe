#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The physical simulated body starts sane (naobodyd --sim-physics, the
default start): limp and face down, it lies still for 10 s with nobody
connected (no fall, no Falling in the log, the model's torso where it
was), and one Wake gets it up on the first try: Upright and standing
(State, and the model's torso height) with no "could not get up". The
body runs in lockstep (a period of its time a cycle), so the get-up never
depends on how busy the machine is. The bound on the get-up is generous
(a hang's, not a speed check): it waits for the State, not for a time.
TAP."""

import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_test import ready  # noqa: E402
from nbtest import LATE, SRCTREE, Tap, check, lockstep_daemon, note  # noqa: E402

tap = Tap()
MODEL = os.path.join(SRCTREE, "userspace", "sim", "nao6", "nao6.xml")
GETUP_S = 90     # one get-up takes about 10 s of the model's time
STAND_HEIGHT = (0.28, 0.335)  # m, the torso standing (physics_test.py's)


@tap.test
def lies_still_then_wakes_up():
    """--sim-physics starts lying, still for 10 s without a client; Wake stands it up at once"""
    # In lockstep: on a busy machine the clock's cycles come late and the
    # model would step further at once, which a get-up does not survive.
    with lockstep_daemon("--sim-model", MODEL) as d:
        before = d.physics()
        time.sleep(10)
        after = d.physics()
        log = d.log()
        check("lying face down, limp" in log, "the start line")
        falls = [ln for ln in log.splitlines() if "core: fall state" in ln]
        check(falls == [falls[0]] and falls[0].endswith("fall state Fallen"),
              f"fall states with nobody connected: {falls}")
        check(abs(after["pitch"] - before["pitch"]) < 0.1 and
              abs(after["torso_height"] - before["torso_height"]) < 0.03,
              f"the model moved: {before} -> {after}")
        c = ready(d, "sim_start_test")
        s = c.state()
        check(s["fall_state"] == "Fallen" and s["primary_state"] == "Unstiff", f"{s['fall_state']}")
        t0 = time.monotonic()
        c.send({"Power": "Wake"})
        c.until(lambda s: s["fall_state"] == "Upright" and s["motion"] == "Stand" and
                s["primary_state"] == "Initial", GETUP_S + LATE, "standing after Wake")
        took = time.monotonic() - t0
        seen = c.seen + c.heartbeat_for(2.0)
        h = d.physics()["torso_height"]
        check(STAND_HEIGHT[0] <= h <= STAND_HEIGHT[1], f"torso at {h:.3f} m")
        check("could not get up" not in d.log(), "a second try:\n" + d.log())
        motions = []
        for m in seen:
            if "State" in m and (not motions or motions[-1] != m["State"]["motion"]):
                motions.append(m["State"]["motion"])
        check("StandUpBack" not in motions, f"motions {motions}")
        note(f"lying still 10 s (pitch {before['pitch']:.3f} -> {after['pitch']:.3f} rad); "
             f"Wake to standing in {took:.1f} s: {' -> '.join(motions)}")


if __name__ == "__main__":
    tap.run()
