#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""BRBrain's everyday loop from Python: find the servos, set the read format
once, then read their positions continuously and print the rate.

    cm5_loop.py DEVICE [CYCLES]
"""
import sys
import time

from nrobot import CM5


def main():
    device = sys.argv[1]
    cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with CM5(device) as cm5:
        print("battery %.2f V" % cm5.battery_volts())
        servos = cm5.scan(0, 31)
        print("servos:", " ".join(str(s) for s in servos))
        cm5.set_read_format([(s, "present_position", 1) for s in servos])
        start = time.monotonic()
        for _ in range(cycles):
            status, values = cm5.read()
        rate = cycles / (time.monotonic() - start)
        print("status %d, %d reads at %.1f Hz" % (status, cycles, rate))
        for servo, name, value in values:
            print("%d %s %s" % (servo, name,
                                "missing" if value is None else "%.2f" % value))
        # the write format once, then a goal for the first servo
        cm5.set_write_format([(servos[0], "goal_position", 1)])
        cm5.write([120.0])
        cm5.set_read_format([(servos[0], "present_position", 1)])
        print("after write: %.2f" % cm5.read()[1][0][2])


if __name__ == "__main__":
    main()
