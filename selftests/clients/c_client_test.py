#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The C client (libnbclient, <naobody/client.h>) against naobodyd --sim:
nbclient-test's checks (Hello, State, Error events, the heartbeat, a
refusal), the example examples/c/wake_walk.c waking, walking and reading
State, and the example against a robot this test plays, which speaks
version 2 (Hello, Error, close): it must say what the robot said. TAP."""

import os
import socket
import struct
import subprocess
import sys
import threading

import msgpack

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "naobodyd"))
from nbtest import Daemon, Tap, binary, check, frame  # noqa: E402

tap = Tap()
OUT = os.environ.get("O") or os.path.join(os.path.dirname(os.path.dirname(HERE)), "build")
EXAMPLE = os.path.join(OUT, "examples", "wake-walk-c")


@tap.test
def library():
    """libnbclient: Hello, a decoded State, Errors with their fields, the heartbeat, Refused"""
    with Daemon() as d:
        r = subprocess.run([binary("nbclient-test"), str(d.port)], capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 0 and r.stdout.count("\nok ") == 7, r.stdout + r.stderr)


@tap.test
def example():
    """examples/c/wake_walk.c wakes, walks 0.3 m and rests the simulated robot"""
    with Daemon() as d:
        r = subprocess.run([EXAMPLE, "127.0.0.1", str(d.port)], capture_output=True, text=True,
                           timeout=240)
        check(r.returncode == 0, f"exit {r.returncode}\n{r.stdout}\n{r.stderr}")
        walked = float(r.stdout.split("arrived: ")[1].split(" m")[0])
        check(0.25 <= walked <= 0.35 and "resting: Sitting, done" in r.stdout, r.stdout)


def version_two_robot(srv):
    """One connection: a Hello of version 2, the Error naobodyd would send, the close."""
    conn, _ = srv.accept()
    with conn:
        conn.settimeout(5)
        n = struct.unpack(">I", conn.recv(4))[0]
        hello = msgpack.unpackb(conn.recv(n), raw=False)
        assert hello["Hello"]["version"] == 1, hello
        conn.sendall(frame({"Hello": {"version": 2, "robot": {
            "body_id": "FUTURE", "head_id": "", "simulated": True, "echo_cancellation": False}}}))
        conn.sendall(frame({"Event": {"Error": {
            "kind": "Version", "reason": None, "command": "Hello", "field": "Hello.version",
            "message": "Hello.version is 1; this robot speaks version 2: closed",
            "versions": [2], "suppressed": 0}}}))


@tap.test
def version_mismatch():
    """Against a robot of version 2 the example fails with the robot's own words"""
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(1)
        t = threading.Thread(target=version_two_robot, args=(srv,), daemon=True)
        t.start()
        r = subprocess.run([EXAMPLE, "127.0.0.1", str(srv.getsockname()[1])],
                           capture_output=True, text=True, timeout=30)
        t.join(5)
        check(r.returncode == 1 and "the robot said: Hello.version is 1; this robot speaks "
              "version 2" in r.stderr, f"exit {r.returncode}: {r.stderr}")


if __name__ == "__main__":
    tap.run()
