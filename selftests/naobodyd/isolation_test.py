#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd: no network peer disturbs the body or locks a client out.
The body loop keeps its cycle under a hostile robot API load (Speaker
frames of 262,000 samples, unauthenticated connections sending big
frames); memory follows the bytes that arrived, not the length headers;
connections that never say Hello cannot keep a real client out; the
per-connection log line is rate-limited. On the simulated body, which
counts the gaps between the daemon's writes (its control socket's
"cycle")."""

import math
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msgpack  # noqa: E402
from api_test import ready  # noqa: E402
from nbtest import (LATE, WAIT, Client, Daemon, Tap, TestFailure, check, frame, note,  # noqa: E402
                    wait_for)

tap = Tap()

# Connects to 127.0.0.1:argv[1] as fast as it can, holding the last 32
# connections, for at most 30 s (the test kills it sooner).
RECONNECT_LOOP = """
import socket, sys, time
held, end = [], time.monotonic() + 30
while time.monotonic() < end:
    try:
        held.append(socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1))
    except OSError:
        pass
    if len(held) > 32:
        held.pop(0).close()
"""


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        return int([ln for ln in f if ln.startswith(key)][0].split()[1])


def locked_kib(pid):
    """Memory locked and resident (smaps' Locked: lines); VmLck also counts
    address space reserved but never touched (a thread's malloc arena)."""
    with open(f"/proc/{pid}/smaps") as f:
        return sum(int(ln.split()[1]) for ln in f if ln.startswith("Locked:"))


def cycle_stats(d):
    reply = d.control("cycle")
    return {k: int(v) for k, v in (kv.split("=") for kv in reply.split()[1:])}


class Hostile:
    """The load of issue 18: a controller streaming Speaker frames of
    262,000 samples (786 KB each) as fast as it can, and connections that
    never say Hello, each sending one big frame."""

    SPEAKER = frame({"Speaker": {"samples": [1000] * 262000}})

    def __init__(self, d, unauthenticated=16, subscribe=False):
        self.d = d
        self.subscribe = subscribe
        self.stop = threading.Event()
        self.sent = 0
        self.states = 0
        self.threads = [threading.Thread(target=self.speaker, daemon=True)]
        self.threads += [threading.Thread(target=self.big_frame, daemon=True)
                         for _ in range(unauthenticated)]

    def __enter__(self):
        self.ready = threading.Event()
        self.threads[0].start()
        self.ready.wait(5)
        for t in self.threads[1:]:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(10)
        return False

    def speaker(self):
        c = ready(self.d, "hostile", rate=83.3 if self.subscribe else None)
        c.sock.settimeout(5)
        if self.subscribe:  # and reads its States meanwhile
            threading.Thread(target=self.read_states, args=(c,), daemon=True).start()
        self.ready.set()
        while not self.stop.is_set():
            try:
                c.send_raw(self.SPEAKER)
                c.send("Heartbeat")
            except OSError:
                break
            self.sent += 1
        c.close()

    def read_states(self, c):
        # Its own socket object on the same connection: its own timeouts.
        r = Client.__new__(Client)
        r.sock, r.buf = socket.socket(fileno=os.dup(c.sock.fileno())), b""
        while not self.stop.is_set():
            try:
                m = r.recv(1)
            except (OSError, ConnectionError):
                break
            if isinstance(m, dict) and "State" in m:
                self.states += 1
        r.close()

    def big_frame(self):
        while not self.stop.is_set():
            try:
                with socket.create_connection(("127.0.0.1", self.d.port), 2) as s:
                    s.sendall(self.SPEAKER)
                    s.recv(1)
            except OSError:
                pass


@tap.test
def hostile_load_keeps_the_cycle():
    """A hostile robot API load (Speaker floods, 16 big pre-Hello frames) drops no body cycle"""
    with Daemon("--priority", "20") as d:
        time.sleep(0.5)
        d.control("cycle reset")
        t0 = time.monotonic()
        with Hostile(d) as h:
            time.sleep(3.0)
        took = time.monotonic() - t0
        st = cycle_stats(d)
        note(f"{h.sent} Speaker frames of 262,000 samples in {took:.1f} s; body: {st['writes']} "
             f"writes, {st['late']} later than 1.5 periods, worst gap "
             f"{st['worst_gap_us'] / 1000:.1f} ms")
        check(h.sent >= 3, f"the load did not run: {h.sent} frames")
        # In the loop's own terms, at a hang's bounds: a loop that waits on
        # the network (1.6 s a frame before the body had its own thread) is
        # late every cycle; a loaded 2-core machine stops ~100 ms now and
        # then, and a niced naobodyd beside two busy loops stood still 1.6 s.
        # The figures are naobodyd_bench.py's (the body loop, idle and under
        # this load).
        check(st["worst_gap_us"] < 3_000_000, f"worst gap {st['worst_gap_us']} us")
        check(st["writes"] > 0, "no write to the body")
        check(st["late"] <= 0.25 * st["writes"], f"{st['late']} late of {st['writes']}")
        ready(d).state()  # and the API still answers


@tap.test
def pre_hello_frames_capped():
    """Before Hello a frame is at most 1 KiB: a bigger one closes before it is read"""
    with Daemon() as d:
        c = Client(d)
        c.send_raw(struct.pack(">I", 8 * 1024 * 1024))
        check(c.closed(WAIT), "an 8 MiB frame before Hello kept the connection")
        check("a frame of 8388608 bytes before Hello (at most 1024)" in d.log(), d.log())
        # A Hello of 1 KiB is fine.
        c = Client(d)
        name = "n" * (1024 - 40)
        body = msgpack.packb({"Hello": {"version": 1, "client": name}})
        check(len(body) <= 1024, f"{len(body)}")
        c.send_raw(struct.pack(">I", len(body)) + body)
        c.expect(lambda m: "Hello" in m, what="Hello")


@tap.test
def memory_follows_the_bytes():
    """Length headers allocate nothing: RSS and locked memory stay put after a header flood"""
    with Daemon("--priority", "20") as d:
        pid = d.proc.pid
        time.sleep(0.3)
        rss0, lck0 = status_kib(pid, "VmRSS"), locked_kib(pid)
        # 15 connections without Hello (and room for the controller), each an
        # 8 MiB header and a few bytes.
        socks = []
        for _ in range(15):
            s = socket.create_connection(("127.0.0.1", d.port), 2)
            s.sendall(struct.pack(">I", 8 * 1024 * 1024) + b"\x81")
            socks.append(s)
        # The controller too: an 8 MiB frame of which 100 bytes came.
        c = ready(d)
        c.send_raw(struct.pack(">I", 8 * 1024 * 1024) + b"\xc4" + b"\0" * 100)
        time.sleep(0.5)
        rss1, lck1 = status_kib(pid, "VmRSS"), locked_kib(pid)
        note(f"RSS {rss0} -> {rss1} kB, locked {lck0} -> {lck1} kB after 16 headers of 8 MiB")
        check(rss1 - rss0 < 4 * 1024, f"RSS grew {rss1 - rss0} kB")
        check(lck1 - lck0 < 4 * 1024, f"locked memory grew {lck1 - lck0} kB")
        for s in socks:
            s.close()
        # The rest of the frame comes: it is read whole (an unknown variant).
        body = msgpack.packb({"Dance": b"\0" * (8 * 1024 * 1024 - 32)}, use_bin_type=True)
        c2 = ready(d)
        c2.send_raw(struct.pack(">I", len(body)) + body)
        wait_for(lambda: 'unknown variant "Dance"' in d.log(), 5 + LATE, "the 8 MiB frame")
        c2.state(timeout=WAIT)


@tap.test
def idle_connections_never_lock_out():
    """16 idle connections, or a reconnect loop, never keep a real client out"""
    with Daemon() as d:
        idle = [socket.create_connection(("127.0.0.1", d.port), 2) for _ in range(16)]
        time.sleep(0.2)
        c = ready(d)
        c.state()
        check("evicted" in d.log(), "no eviction logged")
        # An attacker reconnecting as fast as it can, from the same address,
        # in a process of its own, as an attacker is. As a thread of this
        # one it took turns with the real client for Python's lock, which
        # could hold the real Hello back after its connect until the daemon
        # rightly evicted it as the oldest silent connection: the likely
        # cause of one CI failure whose output was not kept.
        attacker = subprocess.Popen([sys.executable, "-c", RECONNECT_LOOP, str(d.port)])
        try:
            time.sleep(0.2)
            check(attacker.poll() is None, "the reconnect loop did not start")
            # A client that reconnects gets in: the flood may evict one whose
            # Hello was not sent yet (it was descheduled after its connect,
            # the attacker on the other core), never all of its tries.
            for i in range(5):
                for attempt in range(3):
                    try:
                        c = ready(d, f"real {i}")
                        c.state()
                        break
                    except (TestFailure, OSError) as e:
                        why = e
                else:
                    raise TestFailure(f"real client {i} kept out three times: {why!r}")
        finally:
            attacker.kill()
            attacker.wait(5)
        for s in idle:
            s.close()


@tap.test
def disconnect_lines_rate_limited():
    """A connect/close loop does not write one log line per connection"""
    with Daemon() as d:
        t0 = time.monotonic()
        for _ in range(200):
            socket.create_connection(("127.0.0.1", d.port), 2).close()
        c = ready(d)
        c.state()
        time.sleep(0.3)
        # 20 lines a 10 s window (api.c), in each window the loop reached: a
        # loop that a busy machine stretched past 10 s reaches a second.
        most = 20 * (1 + math.ceil((time.monotonic() - t0) / 10))
        n = d.log().count("disconnected: closed by the client")
        check(n <= most, f"{n} disconnect lines for 200 connections")
        check("similar lines suppressed" in d.log() or n <= most, "no note of the suppressed")


if __name__ == "__main__":
    tap.run()
