#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's REST API and the serial bodies: a PAROL6 (parol6-emu) and a
CM-5 (cm5-emu) on ptys, named with --serial. The telemetry is checked
against the emulator's own log of what it sent; a move parolctl's rules
refuse is refused with the reason and nothing reaches the arm; the arm's
last frame is Idle at zero speed however a command ends; a register write
is read back by cm5ctl, another program, from the emulator. On the host
the links are the userspace framers; in the VM (vm_tests.py) naobodyd
attaches the n_robot line discipline. Every answer validated against
rest-api.yaml. TAP."""

import atexit
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import struct
import tempfile
import termios
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import LATE, REAL, Daemon, Tap, binary, check, note, wait_for  # noqa: E402
from resttest import request, token_of  # noqa: E402

tap = Tap()
# Every wait event-driven, with a bound that grows with the VM's slowness.
SLOW = 1 + LATE


class Emulators:
    """parol6-emu and cm5-emu on ptys (their -l links), for every test."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="rest-serial-")
        d = self.tmp.name
        self.p6 = os.path.join(d, "p6")
        self.cm5 = os.path.join(d, "cm5")
        self.p6_log = os.path.join(d, "p6.log")
        self.p6_tel = os.path.join(d, "p6.tel")
        self.procs = [
            subprocess.Popen([binary("parol6-emu"), "-l", self.p6, "-o", self.p6_log,
                              "-t", self.p6_tel, "-H", "20"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
            subprocess.Popen([binary("cm5-emu"), "-s", "1", "-s", "2", "-s", "5:axs1",
                              "-l", self.cm5],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
        ]
        wait_for(lambda: os.path.exists(self.p6) and os.path.exists(self.cm5), 5 * SLOW,
                 "the emulators' ptys")

    def commands(self):
        """The commands the arm received, one line each (parol6-emu -o)."""
        with open(self.p6_log) as f:
            return f.read().splitlines()

    def last_telemetry(self):
        """The last telemetry frame the arm sent: positions (steps), homed bits."""
        with open(self.p6_tel) as f:
            line = f.read().splitlines()[-1]
        pos = [int(v) for v in re.search(r"pos=(\S+)", line).group(1).split(",")]
        homed = int(re.search(r"homed=0x(\w+)", line).group(1), 16)
        return pos, homed

    def close(self):
        for p in self.procs:
            p.kill()
            p.wait()
        self.tmp.cleanup()


_emu = None


def emu():
    """The emulators, started by the first test that needs them (this file's
    or vm_tests.py's run), stopped at exit."""
    global _emu
    if _emu is None:
        _emu = Emulators()
        atexit.register(_emu.close)
    return _emu


def daemon():
    return Daemon("--serial", f"parol6:{emu().p6}", "--serial", f"cm5:{emu().cm5}",
                  rest=True, lola=False)


def post(d, path, body=None, t=None):
    return request(d.rest_port, "POST", path, t or token_of(d),
                   body=None if body is None else json.dumps(body),
                   headers={"Content-Type": "application/json"}, timeout=10 * SLOW)


def get(d, path, t=None):
    return request(d.rest_port, "GET", path, t or token_of(d), timeout=10 * SLOW)


def until_done(d, name, timeout):
    """GET /serial/NAME until its command has ended; that command."""
    end = time.monotonic() + timeout
    while True:
        past = time.monotonic() >= end  # then one look more
        cmd = get(d, f"/serial/{name}").json["command"]
        if cmd and cmd["state"] not in ("starting", "running"):
            return cmd
        if past:
            break
        time.sleep(0.05)
    raise AssertionError(f"the {name} command did not end within {timeout} s: {cmd}")


def idle_last():
    """The arm's last command is Idle with every speed zero (the safe exit)."""
    def last():
        c = emu().commands()
        return c and re.search(r"cmd=255 speeds=0,0,0,0,0,0$", c[-1])
    wait_for(last, 2 * SLOW, "the arm's last command to be Idle at zero speed")


@tap.test(real=True)
def rest_serial_list():
    """GET /serial lists both bodies; unknown names, wrong kinds, methods and tokens are refused"""
    with daemon() as d:
        bodies = {b["name"]: b for b in get(d, "/serial").json["bodies"]}
        check(bodies.get("p6", {}).get("kind") == "parol6" and
              bodies.get("cm5", {}).get("kind") == "cm5", f"bodies {bodies}")
        check(all(b["present"] and b["found"] == "option" and b["state"] == "idle"
                  for b in (bodies["p6"], bodies["cm5"])), f"bodies {bodies}")
        check(get(d, "/serial/p6").json["kind"] == "parol6", "GET /serial/p6")
        for path, want in (("/serial/nope", 404), ("/serial/cm5/telemetry", 404),
                           ("/serial/p6/registers?id=1&address=30", 404)):
            a = get(d, path)
            check(a.status == want, f"GET {path}: {a}")
        a = request(d.rest_port, "DELETE", "/serial/p6/move", token_of(d))
        check(a.status == 405 and a.headers.get("Allow") == "POST", f"DELETE move: {a}")
        a = request(d.rest_port, "POST", "/serial/p6/enable", None)
        check(a.status == 401, f"no token: {a}")
        a = post(d, "/serial/p6/move", "{not json")
        check(a.status == 400, f"malformed JSON: {a}")
        a = post(d, "/serial/p6/move", {"joints": [90, -90, 180, 0, 0, 180], "sped": 5})
        check(a.status == 400 and "sped" in a.json["message"], f"a misspelt field: {a}")
        a = post(d, "/serial/p6/move", " " * 5000)
        check(a.status == 413, f"an over-long body: {a}")


@tap.test(real=True)
def rest_parol6_telemetry_is_the_arms():
    """GET telemetry: the positions and homed bits the emulator says it sent"""
    with daemon() as d:
        t = get(d, "/serial/p6/telemetry").json
        pos, homed = emu().last_telemetry()
        got = [j["position_steps"] for j in t["joints"]]
        check(got == pos, f"telemetry positions {got}, the emulator sent {pos}")
        bits = sum(0x80 >> i for i, j in enumerate(t["joints"]) if j["homed"])
        check(bits == homed, f"homed bits {bits:#x}, the emulator sent {homed:#x}")
        check(not t["estop_pressed"] and t["last_command"] == "idle", f"telemetry {t}")
        check(abs(t["joints"][0]["position_deg"] - pos[0] * 360 / 6400 / 6.4) < 1e-6,
              f"J1 {t['joints'][0]['position_deg']} deg for {pos[0]} steps")
        idle_last()


def parolctl(*args):
    return subprocess.run([binary("parolctl"), "-d", emu().p6, "-l", "1000", *args],
                          capture_output=True, text=True, timeout=30 * SLOW)


@tap.test(real=True)
def rest_parol6_move_refused_as_parolctl():
    """a move parolctl refuses (a limit, the speed, the time) is refused with why; the arm gets no go-to"""
    cases = [
        ({"joints": [0, 0, 180, 0, 0, 180]}, [], "outside"),
        ({"joints": [90, -90, 180, 0, 0, 180], "speed": 500}, ["-s", "500"], "maximum"),
        ({"joints": [-100, -90, 180, 0, 0, 180], "speed": 1, "timeout": 5},
         ["-s", "1", "-T", "5"], "over the timeout"),
    ]
    for body, opts, why in cases:
        r = parolctl(*opts, "move", *[str(v) for v in body["joints"]])
        check(r.returncode == 2 and why in r.stderr, f"parolctl {opts} move: {r.returncode} "
              f"{r.stderr!r}")
    with daemon() as d:
        for body, opts, why in cases:
            before = len(emu().commands())
            a = post(d, "/serial/p6/move", body)
            check(a.status == 422 and a.json["error"] == "refused" and why in a.json["message"],
                  f"move {body}: {a}")
            sent = emu().commands()[before:]
            check(not any("cmd=156" in c for c in sent), f"a refused move sent a go-to: {sent}")
        note(f"refused: {a.json['message']}")


@tap.test(real=True)
def rest_parol6_enable_home_move():
    """enable, home and a move through REST: the arm ends within 2 steps of the target, then Idle"""
    target = [80, -95, 175, 5, -5, 170]
    with daemon() as d:
        a = post(d, "/serial/p6/enable")
        check(a.status == 200 and a.json["command"]["state"] == "done", f"enable: {a}")
        check(any("cmd=101" in c for c in emu().commands()), "the arm had no Enable")
        a = post(d, "/serial/p6/home")
        check(a.status in (200, 202), f"home: {a}")
        cmd = until_done(d, "p6", 20 * SLOW)
        check(cmd["state"] == "done", f"home: {cmd}")
        check(emu().last_telemetry()[1] == 0xFC, f"homed bits {emu().last_telemetry()[1]:#x}")
        # 2.25 s (J1's 10 deg at 5 deg/s, 0.25 s braking), slower on a slow
        # tier: long enough for the second request and the three GETs to
        # find it running.
        speed = max(1, round(5 / SLOW))
        a = post(d, "/serial/p6/move", {"joints": target, "speed": speed, "accel": 20})
        check(a.status == 202 and a.json["command"]["state"] == "running", f"move: {a}")
        again = post(d, "/serial/p6/move", {"joints": target})
        check(again.status == 409 and "POST /serial/p6/stop" in again.json["message"],
              f"a second move while one runs: {again}")
        # The move waits only for itself: the rest of the API answers meanwhile.
        # The third GET finding the move still running shows they did not
        # wait for it (how long they took is a machine's figure: the debug
        # tier's KASAN under TCG took 6 s, the move still running).
        t0 = time.monotonic()
        check(get(d, "/robot").status == 200 and get(d, "/serial").status == 200 and
              get(d, "/serial/p6/telemetry").json.get("command") == "move",
              "the API while the arm moves")
        note(f"three GETs while the arm moved: {time.monotonic() - t0:.2f} s")
        cmd = until_done(d, "p6", 30 * SLOW)
        check(cmd["state"] == "done", f"move: {cmd}")
        idle_last()
        pos, _ = emu().last_telemetry()
        want = [round(v * g / (360 / 6400)) for v, g in
                zip(target, (6.4, 20.0, 20.0 * 38 / 42, 4.0, 4.0, 10.0))]
        check(all(abs(p - w) <= 2 for p, w in zip(pos, want)),
              f"the arm is at {pos}, the target is {want}")
        t = get(d, "/serial/p6/telemetry").json
        check([j["position_steps"] for j in t["joints"]] == emu().last_telemetry()[0],
              f"telemetry {t['joints']} against the emulator's {emu().last_telemetry()[0]}")
        note(f"move: {cmd['message']}")


def check_ldisc():
    """In the VM naobodyd (root) runs the arm's link through n_robot: the
    pty has the discipline while a command runs."""
    with open("/sys/module/n_robot/parameters/ldisc") as f:
        want = int(f.read())
    fd = os.open(emu().p6, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        got = struct.unpack("i", fcntl.ioctl(fd, termios.TIOCGETD, b"\0" * 4))[0]
    finally:
        os.close(fd)
    check(got == want, f"the arm's pty has line discipline {got}, not n_robot's {want}")
    note(f"the arm's link is the n_robot line discipline ({want})")


@tap.test(real=True)
def rest_parol6_stop_ends_a_jog():
    """POST /serial/p6/stop and POST /stop end a jog at once, with Idle at zero speed"""
    with daemon() as d:
        for stop in ("/serial/p6/stop", "/stop"):
            a = post(d, "/serial/p6/jog", {"joint": 1, "speed": -5, "seconds": 8})
            check(a.status == 202, f"jog: {a}")
            wait_for(lambda: any("cmd=123" in c for c in emu().commands()[-5:]), 2 * SLOW,
                     "the arm to get jog frames")
            if REAL and stop == "/stop":
                check_ldisc()
            a = post(d, stop)
            check(a.status == 200, f"{stop}: {a}")
            # Done within 3 s x SLOW of the stop (the 8 s jog would go on).
            cmd = until_done(d, "p6", 3 * SLOW)
            check(cmd["state"] == "stopped", f"after {stop}: {cmd}")
            idle_last()
        a = post(d, "/serial/p6/jog", {"joint": 1, "speed": 500})
        check(a.status == 422 and "jog limit" in a.json["message"], f"a fast jog: {a}")


def cm5ctl(*args):
    return subprocess.run([binary("cm5ctl"), "-d", emu().cm5, *args], capture_output=True,
                          text=True, timeout=30 * SLOW)


@tap.test(real=True)
def rest_cm5_registers():
    """CM-5 registers: a REST write is what cm5ctl reads from the emulator, and the other way; refusals say why"""
    with daemon() as d:
        a = post(d, "/serial/cm5/registers", {"id": 2, "address": 30, "values": [300, 77]})
        check(a.status == 200 and [r["raw"] for r in a.json["registers"]] == [300, 77],
              f"write: {a}")
        r = cm5ctl("--raw", "read", "2:goal_position:2")
        check(r.returncode == 0 and r.stdout.split() ==
              ["2", "goal_position", "300", "2", "moving_speed", "77"],
              f"cm5ctl read after the REST write: {r.stdout!r} {r.stderr!r}")
        r = cm5ctl("--raw", "write", "1:goal_position=700")
        check(r.returncode == 0, f"cm5ctl write: {r.stderr!r}")
        a = get(d, "/serial/cm5/registers?id=1&register=goal_position")
        reg = a.json["registers"][0]
        check(reg["raw"] == 700 and abs(reg["value"] - 700 * 300 / 1023) < 1e-6
              and reg["unit"] == "deg", f"read after cm5ctl's write: {a}")
        for body, status, why in (
                ({"id": 1, "address": 36, "values": [1]}, 422, "read-only"),
                ({"id": 1, "address": 30, "values": [1024]}, 422, "0..1023"),
                ({"id": 254, "address": 30, "values": [1]}, 400, "0..253"),
                ({"id": 1, "address": 31, "values": [1]}, 400, "first byte")):
            a = post(d, "/serial/cm5/registers", body)
            check(a.status == status and why in a.json["message"], f"write {body}: {a}")
        a = get(d, "/serial/cm5/registers?id=9&address=30")
        check(a.status == 504 and a.json["error"] == "servo_timeout", f"a missing servo: {a}")
        a = get(d, "/serial/cm5/registers?id=1&address=30&count=40")
        check(a.status == 400 and "count" in a.json["message"], f"too many registers: {a}")


@tap.test
def rest_serial_valgrind():
    """valgrind: no memory error and no leak after the serial bodies' endpoints, commands running at SIGTERM"""
    if not shutil.which("valgrind"):
        raise RuntimeError("valgrind is not installed (make deps)")
    wrapper = ["valgrind", "--quiet", "--leak-check=full", "--show-leak-kinds=definite,indirect",
               "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99",
               "--track-fds=no"]
    with Daemon("--serial", f"parol6:{emu().p6}", "--serial", f"cm5:{emu().cm5}", rest=True,
                lola=False, wrapper=wrapper, wait=False) as d:
        d.wait_ready(60)
        t = token_of(d)
        for path in ("/serial", "/serial/p6", "/serial/p6/telemetry", "/serial/nope",
                     "/serial/cm5/registers?id=1&address=30&count=2",
                     "/serial/cm5/registers?id=9&address=30", "/serial/cm5/registers?id=x"):
            request(d.rest_port, "GET", path, t, timeout=30)
        for path, body in (("/serial/p6/enable", None), ("/serial/p6/move", "{bad"),
                           ("/serial/p6/move", '{"joints": [0, 0, 0, 0, 0, 0]}'),
                           ("/serial/p6/move", '{"joints": [85, -90, 180, 0, 0, 180]}'),
                           ("/serial/p6/stop", None),
                           ("/serial/cm5/registers", '{"id": 1, "address": 30, "values": [9]}'),
                           ("/serial/cm5/registers", '{"id": 1, "address": 36, "values": [9]}'),
                           ("/serial/p6/jog", '{"joint": 1, "speed": 2, "seconds": 10}')):
            request(d.rest_port, "POST", path, t, body=body, timeout=30)
        d.proc.send_signal(signal.SIGTERM)  # the jog still runs: it ends at Idle
        d.proc.wait(60)
        check(d.proc.returncode == 0, f"exit {d.proc.returncode} under valgrind:\n{d.log()[-3000:]}")
        idle_last()


if __name__ == "__main__":
    # One arm and one CM-5 for all: one test at a time.
    os.environ["NBTEST_JOBS"] = "1"
    tap.run()
