#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd under valgrind: a session of every kind of traffic, good and
bad, then SIGTERM. Fails on any memory error, any definite or indirect
leak, or a non-zero exit; also checks that connection churn leaks no fd."""

import os
import shutil
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msgpack  # noqa: E402
from nbtest import Client, Daemon, Lola, Tap, check, wait_for  # noqa: E402

tap = Tap()


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int([ln for ln in f if ln.startswith("VmRSS")][0].split()[1])


@tap.test
def valgrind_clean():
    """valgrind: no memory error and no leak after every kind of traffic"""
    if not shutil.which("valgrind"):
        raise RuntimeError("valgrind is not installed (make deps)")
    guard = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    guard.bind(("127.0.0.1", 0))
    wrapper = ["valgrind", "--quiet", "--leak-check=full", "--show-leak-kinds=definite,indirect",
               "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99",
               "--track-fds=no"]
    with Daemon(guard=guard.getsockname()[1], wrapper=wrapper, wait=False) as d:
        d.wait_ready(60)
        check("memcheck" in os.readlink(f"/proc/{d.proc.pid}/exe"), "not under valgrind")
        Client(d)  # left to time out before Hello
        c = Client(d)
        c.hello("valgrind")
        c.send({"Subscribe": {"state": True, "rate": 83.3, "cameras": ["Top"],
                              "microphone": True}})
        c.send({"Power": "Wake"})
        c.send({"Leds": {"chest": [1, 2, 3], "left_eye": [[1, 2, 3]] * 8,
                         "right_ear": [0.5] * 10}})
        c.send({"Motion": {"WalkTo": {"x": 0.1, "y": 0, "turn_to": 0.2, "speed": "Fast",
                                      "head": {"LookAt": {"x": 1, "y": 0}}}}})
        c.send({"Speaker": {"samples": list(range(-1000, 1000))}})
        c.send("SpeakerClear")
        c.send({"Volume": {"percent": 50, "muted": False}})
        c.send({"Dance": [1, {"x": b"bin"}]})
        c.send({"Leds": None})
        c.heartbeat_for(1.5)
        d.control("touch chest 1")
        d.control("push back")
        c.heartbeat_for(2.0)
        c.send("Stop")
        c.heartbeat_for(0.3)
        d.control("rearm")
        # Bad input, each closing its connection.
        for bad in [b"\x00\x00\x00\x02\xc1\xc1", struct.pack(">I", 9 << 20),
                    b"\x00\x00\x00\x06\xdd\xff\xff\xff\xff\x00"]:
            b = Client(d)
            b.hello()
            b.send_raw(bad)
            check(b.closed(5), f"{bad[:6]!r} kept its connection")
        big = Client(d)
        big.hello()
        big.send_raw(struct.pack(">I", 1 << 20) + msgpack.packb({"Dance": b"\0" * ((1 << 20) - 12)}))
        big.send("Heartbeat")
        # LoLA: a client, a replacement, malformed input.
        a = Lola(d)
        a.read()
        a.send({"Position": [0.0] * 25, "Stiffness": [0.5] * 25, "Dance": 1})
        b2 = Lola(d)
        b2.read()
        b2.sock.sendall(b"\xc1")
        wait_for(lambda: "malformed" in d.log(), 10, "the LoLA close")
        Client(d).hello("last")  # leave one connected at shutdown
        time.sleep(0.5)
        rc = d.stop(timeout=60)
        log = d.log()
        check(rc == 0, f"exit status {rc}:\n" + "\n".join(
            ln for ln in log.splitlines() if ln.startswith("==")))
        check("==" not in log, "valgrind reported:\n" + log[-3000:])
    guard.close()


@tap.test
def churn():
    """Churn: 300 connect, Hello, disconnect cycles leave no fd and no memory behind"""
    with Daemon() as d:
        for _ in range(20):
            c = Client(d)
            c.hello()
            c.close()
        time.sleep(0.3)
        fd0, rss0 = fds(d.proc.pid), rss_kib(d.proc.pid)
        for _ in range(300):
            c = Client(d)
            c.hello()
            c.close()
        wait_for(lambda: fds(d.proc.pid) == fd0, 3, f"fds back to {fd0} "
                 f"(now {fds(d.proc.pid)})")
        rss1 = rss_kib(d.proc.pid)
        check(rss1 - rss0 < 256, f"RSS grew from {rss0} to {rss1} KiB")


if __name__ == "__main__":
    tap.run()
