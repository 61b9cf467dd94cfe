#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd cares for the body (libnbmotion's care.h): a joint at 76 degC
has its stiffness held at 0.5 until it reads below 70, whoever commands it
(the robot API's motions or a LoLA client), and the robot API client is
told in State (hot_joints) and by a Temperature event each way; a low
battery sits the robot down and limp, and Wake is refused (Error Refused
LowBattery) until it charges. On the simulated body, whose joints'
temperatures and battery the control socket sets (its models carry on from
there)."""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_test import awake  # noqa: E402
from nbtest import BODY_HANG, Daemon, Lola, Tap, check, check_not_fallen  # noqa: E402

tap = Tap()

R_KNEE = 15         # LoLA's RKneePitch
L_KNEE = 10
L_ELBOW_ROLL = 5
HOT_STIFFNESS = 0.5


def events(c, kind):
    """The events of a kind among the messages c.until() saw."""
    return [m["Event"][kind] for m in c.seen
            if isinstance(m, dict) and "Event" in m and kind in m["Event"]]


def given(d, joint, pred, what):
    """The stiffness the body was last given for a joint, as LoLA reports
    it, once pred holds (within a hang's bound of body cycles)."""
    lola = Lola(d)
    try:
        for _ in range(int(BODY_HANG * 100)):
            s = lola.read()["Stiffness"][joint]
            if pred(s):
                return s
    finally:
        lola.close()
    check(False, f"{what}: the joint's stiffness is {s}")


@tap.test
def a_hot_joint_is_held_and_told():
    """Hot: at 78 degC the right knee's stiffness is held at 0.5; State and an event say so; at 68 it is back"""
    with Daemon() as d:
        c = awake(d)
        check(c.state()["hot_joints"] == [], "hot_joints while cool")
        d.control("temperature RKneePitch 78")
        c.until(lambda s: s["hot_joints"] == ["right_knee_pitch"], BODY_HANG, "hot_joints")
        e = events(c, "Temperature")
        check(len(e) == 1 and e[0]["joint"] == "right_knee_pitch" and e[0]["hot"] is True
              and e[0]["temperature"] >= 76.0 and e[0]["stiffness"] == HOT_STIFFNESS,
              f"Temperature events {e}")
        given(d, R_KNEE, lambda s: abs(s - HOT_STIFFNESS) < 1e-6, "hot")
        given(d, L_KNEE, lambda s: s == 1.0, "the other knee")
        check(c.state()["motion"] == "Stand", "standing on a held knee")
        d.control("temperature RKneePitch 68")
        c.until(lambda s: s["hot_joints"] == [], BODY_HANG, "hot_joints emptied")
        e = events(c, "Temperature")
        check(len(e) == 1 and e[0]["joint"] == "right_knee_pitch" and e[0]["hot"] is False
              and e[0]["stiffness"] == 1.0, f"Temperature events {e}")
        given(d, R_KNEE, lambda s: s == 1.0, "cool again")
        check_not_fallen(d)
        check("RKneePitch is hot" in d.log(), "no log line")


@tap.test
def a_lola_client_is_held_too():
    """Hot, under a LoLA client: its Stiffness 1 reaches the hot joint as 0.5"""
    with Daemon() as d:
        d.control("temperature LElbowRoll 80")
        lola = Lola(d)
        try:
            for _ in range(60):
                m = lola.read()
                lola.send({"Position": m["Position"], "Stiffness": [1.0] * 25})
            check(m["Stiffness"][L_ELBOW_ROLL] == HOT_STIFFNESS and
                  all(s == 1.0 for j, s in enumerate(m["Stiffness"]) if j != L_ELBOW_ROLL),
                  f"Stiffness {m['Stiffness']}")
        finally:
            lola.close()


@tap.test
def a_low_battery_sits_down():
    """Low battery: at 4 % the robot sits down and goes limp; Wake is refused until the charger is on"""
    with Daemon() as d:
        c = awake(d)
        d.body.battery(0.04)
        c.until(lambda s: s["motion"] == "SitDown", BODY_HANG, "sitting down")
        c.until(lambda s: s["motion"] == "Unstiff" and s["fall_state"] == "Sitting",
                BODY_HANG, "sat and limp")
        c.send({"Power": "Wake"})
        e = c.event("Error", BODY_HANG, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "LowBattery" and e["command"] == "Power" and
              "charge" in e["message"], f"{e}")
        d.body.charger(True)
        c.send({"Power": "Wake"})
        c.until(lambda s: s["motion"] == "Stand" and s["primary_state"] == "Initial",
                BODY_HANG, "standing on the charger")
        check("the battery is low" in d.log(), "no log line")


if __name__ == "__main__":
    tap.run()
