#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""parol6-emu against the control board firmware's own rules (main.cpp's
loop(), Get_data(), Unpack_data() and Pack_data(), structs.h), in frames
this test packs itself from the protocol's layout, not with libparol6:

- the board boots enabled (structs.h: disabled = 0): a jog moves at once;
- Idle sets each stepper's speed to the frame's without stepping it: the
  telemetry reports the commanded speeds, and nothing moves;
- a jog (123) or a go-to (156) ends a homing (home_command = 0), which
  Idle would otherwise continue;
- a go-to's loop sets the speed again and again from the error, so with
  speed 0 the error decays as e^(-t / 20 ms): 39 % of it closed in 10 ms
  (e^-0.5), not the 50 % of one averaged step.

The time between packets is the emulator's own (the telemetry's timing
field), so no check depends on this machine's speed. TAP."""

import math
import os
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
import tty

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.abspath(os.path.join(here, "..", ".."))
EMU = os.path.join(top, "build", "bin", "parol6-emu")
IDLE, JOG, GOTO, HOME, ENABLE = 255, 123, 156, 100, 101

n = 0
failed = 0


def result(ok, desc, why=""):
    global n, failed
    n += 1
    print("%s %d %s" % ("ok" if ok else "not ok", n, desc))
    if not ok:
        failed += 1
        for line in str(why).splitlines():
            print("#   " + line)


def s24(v):
    return (v & 0xFFFFFF).to_bytes(3, "big")


def frame(cmd, pos=(0,) * 6, speed=(0,) * 6):
    """A command frame as the commander's Pack_data() lays it out."""
    d = b"".join(s24(p) for p in pos) + b"".join(s24(v) for v in speed)
    d += bytes([cmd, 0, 0, 0]) + bytes(6) + bytes([0, 0, 0, 0xE4, 1, 2])
    assert len(d) == 52
    return b"\xff\xff\xff" + bytes([52]) + d


def g24(b):
    v = int.from_bytes(b, "big")
    return v - (1 << 24) if v & 0x800000 else v


class Board:
    def __init__(self, *args):
        self.dir = tempfile.mkdtemp()
        self.link = os.path.join(self.dir, "tty")
        self.proc = subprocess.Popen([EMU, "-l", self.link, *args], stdout=subprocess.DEVNULL)
        for _ in range(200):
            if os.path.exists(self.link):
                break
            time.sleep(0.05)
        self.fd = os.open(self.link, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        termios.tcflush(self.fd, termios.TCIOFLUSH)

    def send(self, f):
        """One frame; its telemetry: positions, speeds, homed, xtr2, dt (s)."""
        os.write(self.fd, f)
        buf = b""
        deadline = time.monotonic() + 10
        while len(buf) < 60 and time.monotonic() < deadline:
            r, _, _ = select.select([self.fd], [], [], 0.5)
            if r:
                buf += os.read(self.fd, 60 - len(buf))
        assert len(buf) == 60 and buf[:4] == b"\xff\xff\xff\x38" and buf[58:] == b"\x01\x02", buf
        d = buf[4:]
        return {"pos": [g24(d[3 * j:3 * j + 3]) for j in range(6)],
                "speed": [g24(d[18 + 3 * j:21 + 3 * j]) for j in range(6)],
                "homed": d[36], "xtr2": d[43],
                "dt": int.from_bytes(d[40:42], "big") * 128 / 90e6}

    def close(self):
        os.close(self.fd)
        self.proc.terminate()
        self.proc.wait()


print("TAP version 13")
print("1..4")

b = Board()
t0 = b.send(frame(IDLE))
for _ in range(10):
    t = b.send(frame(JOG, t0["pos"], (5000, 0, 0, 0, 0, 0)))
    time.sleep(0.01)
t = b.send(frame(IDLE, t["pos"]))
result(t["pos"][0] > t0["pos"][0] + 100,
       "the board boots enabled: a jog without Enable moves the joint",
       "J1 from %d to %d" % (t0["pos"][0], t["pos"][0]))

speeds = (111, -222, 333, -444, 555, -666)
t1 = b.send(frame(IDLE, t["pos"], speeds))
t2 = b.send(frame(IDLE, t["pos"], speeds))
time.sleep(0.05)
t3 = b.send(frame(IDLE, t["pos"], speeds))
result(t2["speed"] == list(speeds) and t3["speed"] == list(speeds) and t3["pos"] == t1["pos"],
       "in Idle the telemetry reports the frame's commanded speeds, and nothing moves",
       "speeds %s, positions %s then %s" % (t3["speed"], t1["pos"], t3["pos"]))
b.close()

b = Board("-H", "20")
b.send(frame(ENABLE))
t = b.send(frame(HOME))
for _ in range(3):
    t = b.send(frame(JOG, t["pos"]))
for _ in range(40):
    t = b.send(frame(IDLE, t["pos"]))
result(t["homed"] & 0xFC == 0 and t["xtr2"] == IDLE,
       "a jog ends a homing: Idle no longer continues it",
       "homed 0x%02x after a jog and 40 Idle frames (a homing takes 20)" % t["homed"])
b.close()

# The timing field counts to 93 ms: a stall of the machine between the two
# frames longer than that (seen by this test's clock) is tried again.
for _ in range(5):
    b = Board()
    b.send(frame(ENABLE))
    t = b.send(frame(IDLE))
    start = t["pos"][0]
    target = list(t["pos"])
    target[0] = start + 400
    sent = time.monotonic()
    b.send(frame(GOTO, target))
    time.sleep(0.03)
    t = b.send(frame(IDLE, target))
    took = time.monotonic() - sent
    if took < 0.08:
        break
    b.close()
dt = t["dt"]
moved = t["pos"][0] - start
want = 400 * (1 - math.exp(-dt / 0.02))
result(dt > 0 and abs(moved - want) <= 0.03 * 400 + 1,
       "a go-to's loop closes the error as e^(-t / 20 ms): 39 % in 10 ms",
       "%.1f ms after the go-to the joint moved %d of 400 steps; the loop's rule says %.0f "
       "(one averaged step per 10 ms would say %.0f)" %
       (dt * 1e3, moved, want, min(400 * 50 * dt, 1e9)))
b.close()
sys.exit(1 if failed else 0)
