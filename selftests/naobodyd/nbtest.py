# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for naobodyd's host tests: a TAP runner, the daemon against the
simulated body, and clients for the robot API, the LoLA socket and the
simulator's control socket.

The clients use Debian's python3-msgpack, a MessagePack implementation
independent of the daemon's msgpack-c. Run with /usr/bin/python3.
"""

import concurrent.futures
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import traceback

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
SRCTREE = os.path.dirname(os.path.dirname(HERE))


def binary(name):
    """A program from the build: $NAOBODYD-style override, $O/bin, build/bin."""
    env = os.environ.get(name.upper())
    if env:
        return env
    out = os.environ.get("O") or os.path.join(SRCTREE, "build")
    return os.path.join(out, "bin", name)


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestFailure(AssertionError):
    pass


def check(cond, what):
    if not cond:
        raise TestFailure(what)


def wait_for(pred, timeout, what, step=0.01):
    """Poll pred until it returns a true value; fail after timeout seconds."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > end:
            raise TestFailure(f"timed out after {timeout} s waiting for {what}")
        time.sleep(step)


class Tap:
    """Runs registered test functions, one TAP line each.

    Each test starts its own daemon, so tests run side by side
    (NBTEST_JOBS at a time, default 4); results print in order.
    NBTEST_ONLY=substring runs the matching tests alone.
    """

    def __init__(self):
        self.tests = []

    def test(self, fn):
        self.tests.append(fn)
        return fn

    @staticmethod
    def _one(fn):
        t0 = time.monotonic()
        try:
            fn()
            return None, time.monotonic() - t0
        except Exception as e:  # noqa: BLE001 - every failure is reported
            return "".join(traceback.format_exception(type(e), e, e.__traceback__)), \
                time.monotonic() - t0

    def run(self):
        only = os.environ.get("NBTEST_ONLY")
        jobs = int(os.environ.get("NBTEST_JOBS", "4"))
        tests = [t for t in self.tests if not only or only in t.__name__]
        print("TAP version 13")
        print(f"1..{len(tests)}", flush=True)
        failed = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(self._one, fn) for fn in tests]
            for n, (fn, fut) in enumerate(zip(tests, futures), 1):
                desc = (fn.__doc__ or fn.__name__).strip().splitlines()[0]
                err, took = fut.result()
                if err is None:
                    print(f"ok {n} {desc}  # {took:.1f} s", flush=True)
                    continue
                failed += 1
                print(f"not ok {n} {desc}", flush=True)
                for line in err.rstrip().splitlines():
                    print(f"#   {line}")
                sys.stdout.flush()
        sys.exit(1 if failed else 0)


class Daemon:
    """naobodyd on the simulated body, on free ports and private paths."""

    def __init__(self, *extra, guard=None, lola=True, wrapper=None, wait=True):
        self.tmp = tempfile.TemporaryDirectory(prefix="naobodyd-test-")
        self.port = free_port()
        self.lola_path = os.path.join(self.tmp.name, "robocup") if lola else None
        self.control_path = os.path.join(self.tmp.name, "sim")
        self.log_path = os.path.join(self.tmp.name, "log")
        args = [binary("naobodyd"), "--sim", "--bind", "127.0.0.1",
                "--port", str(self.port), "--sim-control", self.control_path]
        args += ["--lola", self.lola_path] if lola else ["--no-lola"]
        args += ["--guard", f"127.0.0.1:{guard}"] if guard else ["--no-guard"]
        args += list(extra)
        self.args = (wrapper or []) + args
        self.log_file = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.args, stdout=self.log_file,
                                     stderr=subprocess.STDOUT)
        self._control = None
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout=10):
        def up():
            if self.proc.poll() is not None:
                raise TestFailure(f"naobodyd exited with {self.proc.returncode}:\n"
                                  + self.log())
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return os.path.exists(self.control_path)
            except OSError:
                return False
        wait_for(up, timeout, "naobodyd to listen")

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def control(self, line):
        if self._control is None:
            self._control = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            self._control.settimeout(5)
            self._control.connect(self.control_path)
        self._control.send(line.encode())
        reply = self._control.recv(512).decode()
        check(reply.startswith("ok"), f"sim control '{line}': {reply}")
        return reply

    def sim_status(self):
        reply = self.control("status")
        fields = dict(kv.split("=", 1) for kv in reply.split()[1:])
        return fields

    def alive(self):
        return self.proc.poll() is None

    def stop(self, timeout=10):
        """SIGTERM; returns the exit status."""
        if self._control:
            self._control.close()
            self._control = None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise TestFailure("naobodyd did not stop on SIGTERM")
        self.log_file.close()
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        try:
            if self.proc.poll() is None:
                try:
                    os.kill(self.proc.pid, signal.SIGCONT)
                except OSError:
                    pass
                self.stop()
        finally:
            self.tmp.cleanup()
        return False


def frame(obj):
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


class Client:
    """A robot API client: framing, hello, and waiting for messages."""

    def __init__(self, daemon, timeout=5):
        self.sock = socket.create_connection(("127.0.0.1", daemon.port), timeout)
        self.sock.settimeout(timeout)
        self.buf = b""

    def send(self, obj):
        self.sock.sendall(frame(obj))

    def send_raw(self, data):
        self.sock.sendall(data)

    def _fill(self, n, deadline):
        while len(self.buf) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed by naobodyd")
            self.buf += chunk

    def recv(self, timeout=3):
        """The next message, decoded."""
        deadline = time.monotonic() + timeout
        self._fill(4, deadline)
        n = struct.unpack(">I", self.buf[:4])[0]
        self._fill(4 + n, deadline)
        raw, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
        return msgpack.unpackb(raw, raw=False)

    def recv_raw(self, timeout=3):
        """The next frame's MessagePack bytes."""
        deadline = time.monotonic() + timeout
        self._fill(4, deadline)
        n = struct.unpack(">I", self.buf[:4])[0]
        self._fill(4 + n, deadline)
        raw, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
        return raw

    def expect(self, pred, timeout=3, what="a message"):
        """Messages until pred(msg) is true; the others are kept in self.skipped."""
        deadline = time.monotonic() + timeout
        self.skipped = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TestFailure(f"timed out waiting for {what}; got {self.summary()}")
            try:
                m = self.recv(left)
            except socket.timeout:
                raise TestFailure(f"timed out waiting for {what}; got {self.summary()}")
            if pred(m):
                return m
            self.skipped.append(m)

    def summary(self):
        kinds = [next(iter(m)) if isinstance(m, dict) else m for m in self.skipped]
        return f"{len(kinds)} others: {kinds[:8]}"

    def hello(self, name="nbtest", version=1):
        self.send({"Hello": {"version": version, "client": name}})
        return self.expect(lambda m: isinstance(m, dict) and "Hello" in m, what="Hello")

    def state(self, timeout=3, pred=lambda s: True, what="a State"):
        return self.expect(lambda m: isinstance(m, dict) and "State" in m and pred(m["State"]),
                           timeout, what)["State"]

    def event(self, kind, timeout=3, pred=lambda e: True):
        m = self.expect(lambda m: isinstance(m, dict) and "Event" in m and kind in m["Event"]
                        and pred(m["Event"][kind]), timeout, f"an Event {kind}")
        return m["Event"][kind]

    def closed(self, timeout=3):
        """True when naobodyd closes the connection within timeout."""
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                self.sock.settimeout(max(0.01, deadline - time.monotonic()))
                if not self.sock.recv(65536):
                    return True
        except socket.timeout:
            return False
        except ConnectionError:
            return True
        return False

    def heartbeat_for(self, seconds, period=0.05, keep=None):
        """Send heartbeats for a while, reading (and keeping) what comes."""
        end = time.monotonic() + seconds
        got = []
        while time.monotonic() < end:
            self.send("Heartbeat")
            deadline = time.monotonic() + period
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                try:
                    got.append(self.recv(left))
                except socket.timeout:
                    break
        return got

    def until(self, pred, timeout=5, what="a State", period=0.05):
        """Heartbeat until a State satisfies pred; that State. The messages
        seen on the way are kept in self.seen."""
        end = time.monotonic() + timeout
        self.seen = []
        last = None
        while time.monotonic() < end:
            for m in self.heartbeat_for(period, period):
                self.seen.append(m)
                if isinstance(m, dict) and "State" in m:
                    last = m["State"]
                    if pred(last):
                        return last
        raise TestFailure(f"timed out after {timeout} s waiting for {what}; last State: "
                          + (f"{last['motion']}, {last['primary_state']}, {last['fall_state']}"
                             if last else "none"))

    def close(self):
        self.sock.close()


LOLA_PACKET = 896


class Lola:
    """A LoLA client: reads exactly 896 bytes per packet, as team code does."""

    def __init__(self, daemon, timeout=3):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(daemon.lola_path)

    def read_raw(self):
        data = b""
        while len(data) < LOLA_PACKET:
            chunk = self.sock.recv(LOLA_PACKET - len(data))
            if not chunk:
                raise ConnectionError("closed by naobodyd")
            data += chunk
        return data

    def read(self):
        return unpack_first(self.read_raw())

    def send(self, m):
        self.sock.sendall(msgpack.packb(m, use_single_float=True))

    def close(self):
        self.sock.close()


def unpack_first(data):
    """The first value in data, and nothing else (LoLA pads with zeros)."""
    u = msgpack.Unpacker(raw=False)
    u.feed(data)
    return next(u)


def unpack_first_with_size(data):
    u = msgpack.Unpacker(raw=False)
    u.feed(data)
    v = next(u)
    return v, u.tell()
