#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's head bus against Debian's i2c-stub (headbus_vm.sh loads it and
sets NBTEST_HEAD_BUS): register values scripted with i2c-tools' i2cset come
out as Touch events, State fields, LoLA's Touch, and the REST API's head
readings, in the spec's units. Every expected value is worked out here from
the spec (nao-rs's "Body sensors and units") and the parts' datasheets,
not from naobodyd's table: INA230 bus voltage 1.25 mV and shunt voltage
2.5 uV per count, TMP100 1/256 degC per count, both sending their 16-bit
registers most significant byte first. The addresses, the touch pads'
register and bits and the shunt resistor are naobodyd's provisional ones
(Documentation/naobodyd.rst, "The head bus"). TAP."""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# One i2c-stub for every test: one at a time.
os.environ["NBTEST_JOBS"] = "1"

from nbtest import LATE, Client, Daemon, Lola, Tap, check, note, wait_for  # noqa: E402
from resttest import request, token_of  # noqa: E402
from api_test import ready  # noqa: E402

BUS = os.environ.get("NBTEST_HEAD_BUS")
if not BUS:
    sys.exit("headbus_test.py: NBTEST_HEAD_BUS (an i2c-stub's /dev/i2c-N) is not set; "
             "headbus_vm.sh sets it in the VM")
BUS_NR = BUS.rsplit("-", 1)[1]

TOUCH, INA230, TMP100 = 0x20, 0x40, 0x48      # provisional addresses
SHUNT_OHM = 0.01                              # provisional: 10 mOhm
HEAD_ID = "P0000074A05S93M00061"              # nao_lola's fixture's head id
WAIT = 5 + 5 * LATE                           # seconds any reading may take to show

tap = Tap()


def i2cset(addr, reg, value, mode):
    subprocess.run(["i2cset", "-y", BUS_NR, hex(addr), hex(reg), hex(value), mode],
                   check=True, capture_output=True, timeout=10)


def register(addr, reg, value16):
    """A part's 16-bit register: it sends the high byte first, and an SMBus
    word read takes the first byte as the low one, so the stub holds the
    bytes swapped."""
    i2cset(addr, reg, (value16 >> 8) | ((value16 & 0xff) << 8), "w")


def pads(bits):
    i2cset(TOUCH, 0x00, bits, "b")


def reset():
    pads(0)
    for addr, reg in ((INA230, 0x01), (INA230, 0x02), (TMP100, 0x00)):
        register(addr, reg, 0)


def daemon(*extra):
    with open(os.path.join(tempfile.gettempdir(), "head-id.xml"), "w") as f:
        f.write('<?xml version="1.0"?>\n<DeviceHeadInternalGeode>\n'
                f'  <Key name="FullHeadId" value="{HEAD_ID}"/>\n</DeviceHeadInternalGeode>\n')
        path = f.name
    return Daemon("--head-bus", BUS, "--head-id-file", path, *extra, rest=True)


def state(d):
    return request(d.rest_port, "GET", "/state", token_of(d)).json


def robot(d):
    return request(d.rest_port, "GET", "/robot", token_of(d)).json


def close(a, b, tol):
    return abs(a - b) <= tol


@tap.test
def test_readings():
    """INA230 and TMP100 registers: the head's voltage, current, power and face temperature in V, A, W, degC"""
    reset()
    with daemon() as d:
        # 24.8 V, 10.7 W (the spec's figures on a robot): 24.8 / 0.00125 = 19840 counts;
        # 0.43 A through 10 mOhm is 4.3 mV, 1720 counts of 2.5 uV.
        register(INA230, 0x02, 19840)
        register(INA230, 0x01, 1720)
        # 45.5 degC: 45.5 * 256 = 11648 = 0x2d80.
        register(TMP100, 0x00, 0x2d80)
        volts, amps = 19840 * 0.00125, 1720 * 2.5e-6 / SHUNT_OHM
        want = {"voltage": volts, "current": amps, "power": volts * amps,
                "face_temperature": 45.5}
        h = wait_for(lambda: (lambda s: s if all(close(s[k], v, 1e-3) for k, v in want.items())
                              else None)(state(d)["head"]), WAIT,
                     f"the head readings {want}; last {state(d)['head']}")
        note(f"head: {h}")
        # Negative: a current flowing back (two's complement), and a face below 0 degC.
        register(INA230, 0x01, 0x10000 - 1720)
        register(TMP100, 0x00, 0xe700)   # -25 degC, the datasheet's example
        wait_for(lambda: close(state(d)["head"]["current"], -amps, 1e-4)
                 and state(d)["head"]["face_temperature"] == -25.0, WAIT,
                 f"-0.43 A and -25 degC; last {state(d)['head']}")
        info = robot(d)["head_bus"]
        check(info["path"] == BUS and info["open"] and info["reads"] > 0
              and info["malformed"] == 0, f"GET /robot's head_bus: {info}")


@tap.test
def test_malformed():
    """A TMP100 value with its always-zero bits set, an INA230 bus voltage with bit 15: counted and dropped, the last good value kept"""
    reset()
    with daemon() as d:
        register(TMP100, 0x00, 0x1900)   # 25 degC
        register(INA230, 0x02, 9600)     # 12 V
        wait_for(lambda: state(d)["head"]["face_temperature"] == 25.0
                 and close(state(d)["head"]["voltage"], 12.0, 1e-4), WAIT, "25 degC and 12 V")
        register(TMP100, 0x00, 0x1901)
        register(INA230, 0x02, 0x8000 | 9600)
        wait_for(lambda: robot(d)["head_bus"]["malformed"] >= 2,
                 WAIT, "the malformed count to grow")
        h = state(d)["head"]
        check(h["face_temperature"] == 25.0 and close(h["voltage"], 12.0, 1e-4),
              f"a malformed value replaced the last good one: {h}")
        check(d.alive(), "naobodyd died")


def wait_touch(c, want, what):
    """Heartbeats until the Touch events for want (sensor -> pressed) came; the rest kept."""
    got = {}
    end = time.monotonic() + WAIT
    while time.monotonic() < end and got != want:
        for m in c.heartbeat_for(0.1):
            if isinstance(m, dict) and "Event" in m and "Touch" in m["Event"]:
                e = m["Event"]["Touch"]
                check(e["sensor"] in want and e["pressed"] == want[e["sensor"]],
                      f"{what}: an unexpected Touch event {e}")
                got[e["sensor"]] = e["pressed"]
    check(got == want, f"{what}: Touch events {got}, expected {want}")


def lola_touch(lola, pred, what):
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        t = lola.read()["Touch"]
        if pred(t):
            return t
    raise AssertionError(f"LoLA's Touch never {what}: last {t}")


@tap.test
def test_touch():
    """Touch pads: bits 0, 1, 2 are Touch events HeadFront, HeadMiddle, HeadRear, State's head_* and LoLA's Touch[1..3]"""
    reset()
    with daemon() as d:
        c = ready(d)
        lola = Lola(d)
        c.until(lambda s: not any(s["touch"].values()), what="a State with nothing touched")
        pads(0x01)
        wait_touch(c, {"HeadFront": True}, "front pressed")
        s = c.until(lambda s: s["touch"]["head_front"], what="State's head_front")
        check(not s["touch"]["head_middle"] and not s["touch"]["head_rear"]
              and not s["touch"]["chest_button"], f"front only: {s['touch']}")
        lola_touch(lola, lambda t: t[1:4] == [1.0, 0.0, 0.0] and t[0] == 0.0, "read front only")
        pads(0x06)
        wait_touch(c, {"HeadFront": False, "HeadMiddle": True, "HeadRear": True},
                   "middle and rear pressed, front released")
        lola_touch(lola, lambda t: t[1:4] == [0.0, 1.0, 1.0], "read middle and rear")
        # Bits the pads do not have change nothing.
        pads(0xf8)
        wait_touch(c, {"HeadMiddle": False, "HeadRear": False}, "all released")
        s = c.until(lambda s: True)
        check(not any(s["touch"].values()), f"nothing touched: {s['touch']}")
        lola.close()
        c.close()


@tap.test
def test_head_id():
    """The head id from the head's file: Hello's head_id, LoLA's RobotConfig[2], GET /robot"""
    reset()
    with daemon() as d:
        c = Client(d)
        hello = c.hello()["Hello"]
        check(hello["robot"]["head_id"] == HEAD_ID, f"Hello: {hello}")
        lola = Lola(d)
        cfg = lola.read()["RobotConfig"]
        check(cfg[2] == HEAD_ID, f"LoLA RobotConfig: {cfg}")
        check(robot(d)["head_id"] == HEAD_ID, "GET /robot")
        lola.close()
        c.close()


@tap.test
def test_no_device():
    """A head bus that is not there: naobodyd serves on, the pads read untouched, GET /robot says the bus is not open"""
    with Daemon("--head-bus", "/dev/i2c-nonexistent", rest=True) as d:
        info = robot(d)["head_bus"]
        check(info["path"] == "/dev/i2c-nonexistent" and not info["open"], f"head_bus: {info}")
        s = state(d)
        check(not s["touch"]["head_front"] and s["head"]["face_temperature"] == 0.0,
              f"no bus: {s['touch']}, {s['head']}")
        wait_for(lambda: "head bus: /dev/i2c-nonexistent" in d.log(), WAIT, "the log line")


if __name__ == "__main__":
    tap.run()
