#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A PAROL6 from Python: enable, move on the trapezoidal profile, grip.

    parol6_move.py DEVICE
"""
import sys

from nrobot import Parol6


def main():
    with Parol6(sys.argv[1], link_timeout_ms=1000) as arm:
        t = arm.enable()
        print("estop", "pressed" if t.estop_pressed else "released")
        arm.move([80, -90, 180, 0, 0, 180], speed=20, accel=60)
        print("joints", " ".join("%.2f" % d for d in arm.joints_deg()))
        arm.gripper_mode(1)                     # calibrate
        print("gripper", arm.gripper(200))


if __name__ == "__main__":
    main()
