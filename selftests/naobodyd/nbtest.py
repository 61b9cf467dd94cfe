# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for naobodyd's tests: a TAP runner, the daemon, its body, and
clients for the robot API and the LoLA socket.

The clients use Debian's python3-msgpack, a MessagePack implementation
independent of the daemon's msgpack-c. Run with /usr/bin/python3.

Two bodies, chosen by NBTEST_BODY:
  sim   (default) naobodyd --sim on this host; the body is driven and read
        through the simulator's control socket (SimBody);
  real  naobodyd on /dev/naobody: naobody.ko and the chest board emulator,
        in the test VM (naobodyd_vm.sh sets it up); the body is driven and
        read through the emulator's control socket and its record of the
        frames the driver sent (EmuBody).
A test says which bodies it runs on (Tap.test); d.body gives the same
operations on either.
"""

import math
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
SRCTREE = os.path.dirname(os.path.dirname(HERE))

BODY = os.environ.get("NBTEST_BODY", "sim")
if BODY not in ("sim", "real"):
    sys.exit(f"NBTEST_BODY={BODY}: expected sim or real")
REAL = BODY == "real"
# Seconds a deadline may slip. In the VM: the driver's cycle runs under
# QEMU TCG on a shared machine, where a cycle is sometimes late by tens of
# ms, and the debug kernel runs it about NBVM_TIME_SCALE times slower. On
# the host: a shared 2-core machine stops ~100 ms at a time under load, and
# these tests run niced beside builds and VMs; a second is ten such stops
# (Documentation/dev/build-and-test.rst). LATE goes only on a bound that a
# hang reaches, never on one that a defect misses by less: those count the
# daemon's cycles or compare its stamps. Lower bounds (nothing before its
# time) never move.
TIME_SCALE = float(os.environ.get("NBVM_TIME_SCALE", "1"))
LATE = float(os.environ.get("NBTEST_LATE", str(TIME_SCALE) if REAL else "1"))
# A wait for a message that should come at once: its bound grows with the
# slowdown (a bound, not a speed check: rates are the benchmarks' business).
WAIT = 3 * TIME_SCALE
# The clock's bound on seconds of a simulated body's own time in lockstep
# (lockstep_daemon()), which a starved machine can stretch many times.
BODY_HANG = 60 * (1 + LATE)
# The most seconds of the body's time a Wake may take before State says
# Stand, by the motion layer's own bounds (motion.c): stiffening and the
# move to Stand's pose from any pose on its feet (STIFFEN_NS and
# MOVE_MAX_NS, 3.5 s) and settling into it (SETTLE_MAX_NS, 6 s). A body on
# the clock goes on while a starved daemon's cycles are late, and its
# joints catch up in the settling. A settling that runs out its bound
# passes here; api_test's power_wake_rest, in lockstep, holds a
# Wake to 6 s of the body's time.
WAKE_BODY_S = 4 + 6
DEVICE = os.environ.get("NBTEST_DEVICE", "/dev/naobody")


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


def check_not_fallen(d, what="it fell"):
    """The body did not fall, on a body that can (the emulator's inertial
    unit reads what it is set to: it cannot fall)."""
    if d.body.can_fall:
        check(d.body.upright(), what)


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


_notes = threading.local()


def note(line):
    """A figure or remark for the TAP output, printed after the test's line."""
    getattr(_notes, "lines", []).append(line)


class Tap:
    """Runs registered test functions, one TAP line each.

    A test runs on the simulated body unless it says otherwise:
    @tap.test(real=True) runs on both, @tap.test(sim=False, real=True) on
    the real body only. Only the tests for NBTEST_BODY run.

    On the simulated body each test starts its own daemon, so tests run side
    by side (NBTEST_JOBS at a time, default 4), each in a process of its own:
    one test's Python (packing 8 MiB, say) never holds up another's client,
    whose stall would look like the daemon's. On the real body there is one
    device, so one at a time, in this process, which keeps what EmuBody puts
    back between tests; so do files that set NBTEST_JOBS=1 to share a daemon
    or device. Results print in order. NBTEST_ONLY=substring runs the
    matching tests alone.
    """

    def __init__(self):
        self.tests = []

    def test(self, fn=None, *, sim=True, real=False):
        def register(f):
            f.bodies = {b for b, on in (("sim", sim), ("real", real)) if on}
            self.tests.append(f)
            return f
        return register(fn) if fn else register

    @staticmethod
    def _one(fn):
        t0 = time.monotonic()
        _notes.lines = []
        _notes.daemons = []
        try:
            if REAL:
                EmuBody.shared().prepare()
            fn()
            return None, time.monotonic() - t0, _notes.lines
        except Exception as e:  # noqa: BLE001 - every failure is reported
            err = "".join(traceback.format_exception(type(e), e, e.__traceback__))
            for d in _notes.daemons:  # what naobodyd said, for the VM's logs above all
                log = d.final_log if d.final_log is not None else d.log()
                err += f"naobodyd {' '.join(d.args[1:])}\n  exit {d.proc.poll()}, " \
                    "its log's last lines:\n" + "".join(
                        f"  {ln}\n" for ln in log.splitlines()[-12:])
            return err, time.monotonic() - t0, _notes.lines

    @staticmethod
    def _child(fn, conn):
        conn.send(Tap._one(fn))
        conn.close()

    @staticmethod
    def _side_by_side(tests, jobs):
        """Each test in a process of its own (forked: it has this module and
        its test file), jobs at a time; yields (fn, result) in order."""
        ctx = multiprocessing.get_context("fork")
        results, running, todo = {}, {}, list(enumerate(tests))
        for n, fn in enumerate(tests):
            while n not in results:
                while todo and len(running) < jobs:
                    i, f = todo.pop(0)
                    r, w = ctx.Pipe(duplex=False)
                    sys.stdout.flush()
                    p = ctx.Process(target=Tap._child, args=(f, w), name=f.__name__)
                    p.start()
                    w.close()
                    running[r] = (i, p, time.monotonic())
                for r in multiprocessing.connection.wait(list(running)):
                    i, p, t0 = running.pop(r)
                    try:
                        results[i] = r.recv()
                    except EOFError:
                        p.join()
                        results[i] = (f"its process ended with exit status {p.exitcode} "
                                      "before it reported", time.monotonic() - t0, [])
                    r.close()
                    p.join()
            yield fn, results.pop(n)

    def run(self):
        only = os.environ.get("NBTEST_ONLY")
        jobs = 1 if REAL else int(os.environ.get("NBTEST_JOBS", "4"))
        tests = [t for t in self.tests if BODY in t.bodies and (not only or only in t.__name__)]
        print("TAP version 13")
        print(f"1..{len(tests)}", flush=True)
        failed = 0
        done = (self._side_by_side(tests, jobs) if jobs > 1 else
                ((fn, self._one(fn)) for fn in tests))
        for n, (fn, (err, took, notes)) in enumerate(done, 1):
            desc = (fn.__doc__ or fn.__name__).strip().splitlines()[0]
            if err is None:
                print(f"ok {n} {desc}  # {took:.1f} s", flush=True)
            else:
                failed += 1
                print(f"not ok {n} {desc}", flush=True)
                for line in err.rstrip().splitlines():
                    print(f"#   {line}")
            for line in notes:
                print(f"# {line}")
            sys.stdout.flush()
        sys.exit(1 if failed else 0)


class Daemon:
    """naobodyd on free ports and private paths, on NBTEST_BODY's body
    (body= another): --sim with a control socket, or /dev/naobody. d.body
    is the body."""

    def __init__(self, *extra, guard=None, lola=True, wrapper=None, wait=True, body=BODY,
                 rest=False, log_fd=None):
        self.log_fd = log_fd  # the log to this fd instead of the log file
        self.tmp = tempfile.TemporaryDirectory(prefix="naobodyd-test-")
        self.state_dir = os.path.join(self.tmp.name, "state")
        self.real = body == "real"
        self.lola_path = os.path.join(self.tmp.name, "robocup") if lola else None
        self.control_path = None if self.real else os.path.join(self.tmp.name, "sim")
        self.log_path = os.path.join(self.tmp.name, "log")
        if self.real:
            self.body = EmuBody.shared()
        else:
            self.body = SimBody(self)
        self._how = (extra, guard, lola, wrapper, rest)
        self.final_log = None
        getattr(_notes, "daemons", []).append(self)
        self._control = None
        self._spawn()
        if wait:
            self.wait_ready()

    # A port free_port() saw free can be taken before naobodyd binds it (by
    # another test's client, whose ephemeral port comes from the same range):
    # naobodyd then exits saying it cannot listen, and gets new ports.
    SPAWN_TRIES = 3

    def _spawn(self):
        extra, guard, lola, wrapper, rest = self._how
        self.spawns = getattr(self, "spawns", 0) + 1
        self.port = free_port()
        # The REST API (rest_test.py) only when asked: its token lives in a
        # private state directory, on a free port.
        self.rest_port = free_port() if rest else None
        args = [binary("naobodyd"), "--bind", "127.0.0.1", "--port", str(self.port)]
        if self.real:
            args += ["--device", DEVICE]
        else:
            args += ["--sim", "--sim-control", self.control_path]
        args += ["--lola", self.lola_path] if lola else ["--no-lola"]
        args += ["--guard", f"127.0.0.1:{guard}"] if guard else ["--no-guard"]
        args += ["--rest-port", str(self.rest_port), "--state-dir", self.state_dir] \
            if rest else ["--no-rest"]
        # Started as root, naobodyd becomes an unprivileged user (privileges.h);
        # the test rigs' devices, ptys and private directories are root's, so
        # the tests keep root unless they say otherwise (peers_test.py
        # privilege_drop tests the change itself).
        if os.geteuid() == 0 and "--user" not in extra:
            args += ["--user", "root"]
        args += list(extra)
        self.args = (wrapper or []) + args
        self.log_file = open(self.log_path, "w")
        out = self.log_file if self.log_fd is None else self.log_fd
        self.proc = subprocess.Popen(self.args, stdout=out, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout=10 * (1 + LATE)):
        def up():
            if self.proc.poll() is not None:
                log = self.log()
                if (re.search(r"(api|rest): cannot listen on .* port", log)
                        and self.spawns < self.SPAWN_TRIES):
                    self.log_file.close()
                    self._spawn()
                    return False
                raise TestFailure(f"naobodyd exited with {self.proc.returncode}:\n" + log)
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                if self.rest_port:
                    socket.create_connection(("127.0.0.1", self.rest_port), 0.2).close()
                return self.real or os.path.exists(self.control_path)
            except OSError:
                return False
        wait_for(up, timeout, "naobodyd to listen")

    def log(self):
        """What naobodyd logged, every line logged before this call included:
        its lines go out through a logging thread of its own (log.h), so a
        line logged just before an effect the test saw may not be written
        yet. On the simulated body the control socket's "log" says how far
        the thread is; on the real body, the file stopping growing does."""
        if self.proc.poll() is None:
            try:
                self._log_sync()
            except (OSError, TestFailure, ValueError, KeyError):
                pass  # a daemon stopping or not up yet: its file as it is
        with open(self.log_path, errors="backslashreplace") as f:
            return f.read()

    def _log_counts(self):
        fields = dict(kv.split("=", 1) for kv in self.control("log").split()[1:])
        return int(fields["queued"]), int(fields["written"])

    def _log_sync(self, timeout=WAIT):
        end = time.monotonic() + timeout
        if self.control_path and os.path.exists(self.control_path):
            queued, written = self._log_counts()
            while written < queued and time.monotonic() < end:
                time.sleep(0.002)
                written = self._log_counts()[1]
            return
        size = -1
        while time.monotonic() < end:
            now = os.path.getsize(self.log_path)
            if now == size:
                return
            size = now
            time.sleep(0.05)

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

    def physics(self):
        """The physical body's own figures (the control socket's "physics"):
        numbers as floats, the *_joint names as they are."""
        fields = dict(kv.split("=", 1) for kv in self.control("physics").split()[1:])
        return {k: v if k.endswith("_joint") else float(v) for k, v in fields.items()}

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
                if self.real:
                    # Cleaning up, not testing: a stop latched first makes
                    # the next frame limp, where naobody.ko's ramp after the
                    # kill would take its second (EmuBody.prepare() waits
                    # for limp, and rearms).
                    subprocess.run([binary("naoctl"), "stop"], capture_output=True,
                                   timeout=10 * TIME_SCALE)
                    self.proc.kill()
                    self.proc.wait()
                self.stop()
        finally:
            try:
                self.final_log = self.log()
            except OSError:
                pass
            self.tmp.cleanup()
        return False


def closed_within(sock, timeout):
    """True when the peer closes sock within timeout (what was queued read
    and dropped on the way, past the deadline too)."""
    deadline = time.monotonic() + timeout
    try:
        while True:
            sock.settimeout(max(0.0, deadline - time.monotonic()))
            if not sock.recv(65536):
                return True
    except (socket.timeout, BlockingIOError):
        return False
    except ConnectionError:
        return True


def lockstep_daemon(*extra, **kw):
    """A Daemon whose simulated body runs in lockstep: each cycle one period
    of its time, however late it ran (body_sim.c, NAOBODYD_SIM_LOCKSTEP), so
    what it does (a get-up, a walk) never depends on how busy the machine
    is. Its State's time is the body's: wait with Client.until_body()."""
    os.environ["NAOBODYD_SIM_LOCKSTEP"] = "1"
    try:
        return Daemon(*extra, **kw)
    finally:
        del os.environ["NAOBODYD_SIM_LOCKSTEP"]


def frame(obj):
    body = msgpack.packb(obj, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


class Client:
    """A robot API client: framing, hello, and waiting for messages."""

    def __init__(self, daemon, timeout=5):
        self.sock = socket.create_connection(("127.0.0.1", daemon.port), timeout)
        self.timeout = timeout
        self.sock.settimeout(timeout)
        self.buf = b""

    def send(self, obj):
        self.send_raw(frame(obj))

    def send_raw(self, data):
        self.sock.settimeout(self.timeout)  # not what the last read had left
        self.sock.sendall(data)

    def _fill(self, n, deadline):
        while len(self.buf) < n:
            # Past the deadline what is already here is still read (without
            # waiting): a client that was late to look fails only on an
            # empty socket, not on its own stall.
            self.sock.settimeout(max(0.0, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except BlockingIOError:
                raise socket.timeout() from None
            if not chunk:
                raise ConnectionError("closed by naobodyd")
            self.buf += chunk

    def recv(self, timeout=WAIT):
        """The next message, decoded."""
        deadline = time.monotonic() + timeout
        self._fill(4, deadline)
        n = struct.unpack(">I", self.buf[:4])[0]
        self._fill(4 + n, deadline)
        raw, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
        return msgpack.unpackb(raw, raw=False)

    def recv_raw(self, timeout=WAIT):
        """The next frame's MessagePack bytes."""
        deadline = time.monotonic() + timeout
        self._fill(4, deadline)
        n = struct.unpack(">I", self.buf[:4])[0]
        self._fill(4 + n, deadline)
        raw, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
        return raw

    def expect(self, pred, timeout=WAIT, what="a message"):
        """Messages until pred(msg) is true; the others are kept in self.skipped."""
        deadline = time.monotonic() + timeout
        self.skipped = []
        while True:
            try:
                m = self.recv(max(0.0, deadline - time.monotonic()))
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

    def state(self, timeout=WAIT, pred=lambda s: True, what="a State"):
        return self.expect(lambda m: isinstance(m, dict) and "State" in m and pred(m["State"]),
                           timeout, what)["State"]

    def event(self, kind, timeout=WAIT, pred=lambda e: True):
        m = self.expect(lambda m: isinstance(m, dict) and "Event" in m and kind in m["Event"]
                        and pred(m["Event"][kind]), timeout, f"an Event {kind}")
        return m["Event"][kind]

    def closed(self, timeout=3):
        """True when naobodyd closes the connection within timeout."""
        return closed_within(self.sock, timeout)

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
        # What came inside the window and is still unread (a client late to
        # look) belongs to it too.
        while True:
            try:
                got.append(self.recv(0))
            except socket.timeout:
                return got

    def until(self, pred, timeout=5, what="a State", period=0.05):
        """Heartbeat until a State satisfies pred; that State. The messages
        seen on the way are kept in self.seen."""
        end = time.monotonic() + timeout
        self.seen = []
        last = None
        while True:
            past = time.monotonic() >= end  # then one look more, at what came
            for m in self.heartbeat_for(period, period):
                self.seen.append(m)
                if isinstance(m, dict) and "State" in m:
                    last = m["State"]
                    if pred(last):
                        return last
            if past:
                break
        # A watchdog on the way explains most such waits: say so.
        wd = [m["Event"]["Watchdog"] for m in self.seen
              if isinstance(m, dict) and "Event" in m and "Watchdog" in m["Event"]]
        raise TestFailure(f"timed out after {timeout} s waiting for {what}; last State: "
                          + (f"{last['motion']}, {last['primary_state']}, {last['fall_state']}"
                             if last else "none")
                          + (f"; Watchdog events on the way: {wd}" if wd else ""))

    def until_body(self, pred, seconds, what):
        """until(), bounded by seconds of the body's time (State's time) from
        the first State read, the clock's bound a hang's (BODY_HANG): for a
        body in lockstep, whose time a busy machine stretches."""
        first = []

        def done(s):
            first[:] = first or [s["time"]]
            check(pred(s) or s["time"] - first[0] <= seconds,
                  f"not {what} within {seconds} s of the body's time: {s['motion']}, "
                  f"{s['primary_state']}, {s['fall_state']}")
            return pred(s)
        return self.until(done, BODY_HANG, what)

    def wake(self, seconds=WAKE_BODY_S + LATE, what="standing after Wake"):
        """Power Wake, then until State says Stand, Initial and Upright
        within seconds of the body's time: its last State. What was queued
        before is read first, so that the body's time counts from the
        Wake, not from a State the client was late to read."""
        self.heartbeat_for(0)
        self.send({"Power": "Wake"})
        return self.until_body(lambda s: s["motion"] == "Stand" and s["primary_state"] == "Initial"
                               and s["fall_state"] == "Upright", seconds, what)

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


# ---- the bodies ----------------------------------------------------------------------

class SimBody:
    """The simulated body, through naobodyd's --sim-control socket."""

    simulated = True
    can_fall = True
    start_fall_state = "Sitting"  # it starts sitting, limp
    body_version = head_version = "6.0.0"

    def __init__(self, daemon):
        self.d = daemon

    def has_touch(self, sensor):
        return True

    def touch(self, sensor, pressed):
        """sensor: the simulator's name (chest, head_front, l_hand_left...)."""
        self.d.control(f"touch {sensor} {int(bool(pressed))}")

    def sonar(self, left, right):
        self.d.control(f"sonar {left} {right}")

    def battery(self, charge):
        self.d.control(f"battery {charge}")

    def charger(self, on):
        self.d.control(f"charger {int(bool(on))}")

    def has_leds(self, group):
        return True

    def leds(self, group):
        """The LEDs last written, LoLA's order, 0..1 to 3 decimals."""
        return [float(v) for v in self.d.control(f"leds {group}").split()[1:]]

    def stopped(self):
        return self.d.sim_status()["stopped"] == "1"

    def rearm(self):
        self.d.control("rearm")

    def legs_stiffness(self):
        """The legs' mean commanded stiffness, 0..1 (0 while stopped)."""
        return float(self.d.sim_status()["legs_stiffness"])

    def knees(self):
        """The knees' mean position, rad."""
        return float(self.d.sim_status()["knees"])

    def upright(self):
        return self.d.sim_status()["support"] == "upright"


class Emu:
    """A client of the chest board emulator's control socket
    (Documentation/chestboard-emu.rst, "The control socket")."""

    # struct nb_emu_frame (userspace/include/emuctl/emuctl.h), then its struct
    # naobody_actuators (uapi/linux/naobody.h), little endian.
    FRAME = struct.Struct("<IIQQQQIIIIHHIQQQIHBBBB6x" "25i25H3B3B3BB")
    JOINTS = 25

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self.lock = threading.Lock()
        check(self.cmd("hello").startswith("chestboard-emu 1"), "emulator protocol")

    def _line(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the emulator closed its control socket")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode()

    def _bytes(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("the emulator closed its control socket")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def cmd(self, line):
        """One request; the reply after "OK " (TestFailure on "ERR")."""
        with self.lock:
            self.sock.sendall(line.encode() + b"\n")
            reply = self._line()
        if not reply.startswith("OK"):
            raise TestFailure(f"emulator: '{line}': {reply}")
        return reply[3:]

    def get(self, field, index=0):
        return int(self.cmd(f"get {field} {index}"))

    def set(self, field, index, value):
        self.cmd(f"set {field} {index} {int(value)}")

    def frames(self, first, most=1024):
        """Recorded frames with seq >= first, oldest first, as dicts."""
        with self.lock:
            self.sock.sendall(f"frames {first} {most}\n".encode())
            reply = self._line()
            if not reply.startswith("OK"):
                raise TestFailure(f"emulator: frames: {reply}")
            n, size = map(int, reply.split()[1:3])
            data = self._bytes(n * size)
        check(size >= self.FRAME.size, f"emulator frame records of {size} bytes")
        return [self._frame(data[i * size:i * size + self.FRAME.size]) for i in range(n)]

    def _frame(self, raw):
        v = self.FRAME.unpack(raw)
        j = self.JOINTS
        act = v[22:]
        return {"seq": v[2], "rx_ns": v[3], "flags": v[1], "targets": v[13],
                "position": list(act[:j]), "stiffness": list(act[j:2 * j]),
                "chest": list(act[2 * j:2 * j + 3]), "l_foot": list(act[2 * j + 3:2 * j + 6]),
                "r_foot": list(act[2 * j + 6:2 * j + 9]), "sonar": act[2 * j + 9]}

    def frame_count(self):
        return int(dict(kv.split("=", 1) for kv in self.cmd("status").split())["frames"])

    def wait_frames(self, count, timeout=5):
        self.cmd(f"wait {count} {int(timeout * 1000)}")


class EmuBody:
    """naobody.ko's body: the chest board emulator. Values are set in counts
    on the emulator and what reached the board is read from the frames it
    recorded. Set values are put back after each test (prepare())."""

    simulated = False
    can_fall = False  # its inertial unit reads what it is set to
    start_fall_state = "Upright"  # it starts standing (upright, knees bent)
    head_version = ""  # naobodyd has no head yet
    LEDS = ("chest", "l_foot", "r_foot")  # the chest board's; the rest are the head's
    # The simulator's touch names, as bits of struct naobody_sensors.touch
    # (enum naobody_touch); the head's pads are not on the chest board.
    TOUCH = {"chest": 0, "l_foot_left": 4, "l_foot_right": 5, "l_hand_back": 6,
             "l_hand_left": 7, "l_hand_right": 8, "r_foot_left": 9, "r_foot_right": 10,
             "r_hand_back": 11, "r_hand_left": 12, "r_hand_right": 13}
    LEGS = range(7, 18)  # LoLA's L_HIP_YAW_PITCH .. R_ANKLE_ROLL
    KNEES = (10, 15)
    SYSFS = "/sys/class/naobody/naobody"
    _shared = None

    @classmethod
    def shared(cls):
        if cls._shared is None:
            cls._shared = cls(os.environ.get("NBTEST_EMU_SOCKET", "/run/chestboard-emu.sock"))
        return cls._shared

    def __init__(self, socket_path):
        self.emu = Emu(socket_path)
        self.body_id = os.environ.get("NBTEST_BODY_ID")
        self.saved = {}
        self._all_boards = None
        self.start_pose = [self.emu.get("joint_position", j) for j in range(Emu.JOINTS)]
        self.prefs = self._prefs()
        self.body_version = self.prefs["Body/Version"]
        self.zero = [int(self.prefs[f"Joint/{n}/Zero"]) for n in LOLA_JOINT_NAMES]
        self.fsr_gain = [float(self.prefs[f"FSR/{foot}/{s}/Gain"]) for foot in ("LFoot", "RFoot")
                         for s in ("FrontLeft", "FrontRight", "RearLeft", "RearRight")]

    @staticmethod
    def _prefs():
        """The preference block's numbers, as naoctl prefs prints them, once
        the driver has read them: a start-up read that failed on a loaded
        machine is retried (calibration "retrying" in sysfs), not final."""
        deadline = time.monotonic() + 60 * TIME_SCALE
        while True:
            r = subprocess.run([binary("naoctl"), "prefs"], capture_output=True, text=True,
                               timeout=10 * TIME_SCALE)
            if r.returncode == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        check(r.returncode == 0, f"naoctl prefs: {r.stderr}")
        prefs = {}
        for line in r.stdout.splitlines():
            key, eq, value = line.partition(" = ")
            if eq:
                prefs[key] = value.strip('"')
        return prefs

    # -- test isolation --

    def prepare(self):
        """Before each test: no daemon holds the body any more (its ramp ran
        out), no stop is latched, and what tests set is as it was."""
        wait_for(lambda: self.sysfs("controlled") == "0", 5 + LATE, "the controller to go")
        wait_for(lambda: max(self.last_frame()["stiffness"]) == 0, 3 + LATE,
                 "the body to go limp after the last test")
        if self.stopped():
            self.rearm()
        for (field, index), value in self.saved.items():
            self.emu.set(field, index, value)
        self.saved = {}
        for j, c in enumerate(self.start_pose):
            self.emu.set("joint_position", j, c)

    def set(self, field, index, value):
        """Set a count on the emulator, to be put back before the next test."""
        if (field, index) not in self.saved:
            self.saved[(field, index)] = self.emu.get(field, index)
        self.emu.set(field, index, value)

    # -- what SimBody does too --

    def has_touch(self, sensor):
        return sensor in self.TOUCH

    def touch(self, sensor, pressed):
        bits = self.emu.get("touch")
        bit = 1 << self.TOUCH[sensor]
        self.set("touch", 0, bits | bit if pressed else bits & ~bit)

    def sonar(self, left, right):
        self.set("sonar", 0, round(left * 100))  # 0.01 m per count
        self.set("sonar", 1, round(right * 100))

    def battery(self, charge):
        self.set("battery_charge", 0, round(charge * 100))  # 0.01 per count

    def charger(self, on):
        """Charging is a positive battery current (1 mA per count)."""
        self.set("battery_current", 0, 1500 if on else -1200)

    def has_leds(self, group):
        return group in self.LEDS

    def leds(self, group):
        """The LEDs in the newest frame, 0..1 to 3 decimals."""
        return [round(v / 255, 3) for v in self.last_frame()[group]]

    def stopped(self):
        return self.sysfs("stopped") == "1"

    def withhold_calibration(self):
        """The board comes again (unplugged and plugged in) and leaves its
        preference block unread: naobody.ko reads it again and again."""
        self.emu.cmd("misbehave no_prefs -1")
        self.emu.cmd("disconnect")
        wait_for(lambda: not os.path.exists(self.SYSFS), 5 + LATE, "the device to go")
        self.emu.cmd("connect")
        wait_for(lambda: os.path.exists(self.SYSFS) and self.sysfs("calibration") == "retrying",
                 20 * (1 + LATE), "the preference block to fail", step=0.1)
        wait_for(self.boards_accepted, 20 * (1 + LATE), "the boards to be accepted", step=0.1)

    def release_calibration(self):
        """The block is served again; the driver's next retry (at most 32 s
        apart) reads it."""
        self.emu.cmd("misbehave no_prefs 0")
        wait_for(lambda: self.sysfs("calibration") == "read", 40 * (1 + LATE),
                 "the driver to read the preference block", step=0.2)

    def rearm(self):
        r = subprocess.run([binary("naoctl"), "rearm"], capture_output=True, text=True,
                           timeout=10)
        check(r.returncode == 0, f"naoctl rearm: {r.stdout} {r.stderr}")

    def legs_stiffness(self):
        f = self.last_frame()
        return sum(f["stiffness"][j] for j in self.LEGS) / len(self.LEGS) / 1000

    def knees(self):
        return sum(self.position(j) for j in self.KNEES) / len(self.KNEES)

    # -- the real body's own --

    def position(self, joint):
        """A joint's measured position on the emulator, rad (LoLA's index)."""
        return self.count_to_rad(joint, self.emu.get("joint_position", joint))

    def count_to_rad(self, joint, count):
        if joint >= 23:  # hands: thousandths
            return (count - self.zero[joint]) / 1000
        return (count - self.zero[joint]) * 2 * math.pi / 4096

    def sysfs(self, name):
        with open(f"{self.SYSFS}/{name}") as f:
            return f.read().strip()

    def boards_accepted(self):
        """Every board through its handshake, accepted."""
        try:
            states = [self.sysfs(f"{b}/state") for b in os.listdir(self.SYSFS)
                      if b.startswith("board")]
        except OSError:
            return False
        return bool(states) and all(s == "accepted" for s in states)

    def all_boards(self):
        """The mask of every board of the driver's table (board<N>/ in sysfs;
        the emulator plays them all); bit N of a frame's "targets"."""
        if self._all_boards is None:
            n = sum(1 for b in os.listdir(self.SYSFS) if b.startswith("board"))
            check(n > 0, f"no board<N>/ in {self.SYSFS}")
            self._all_boards = (1 << n) - 1
        return self._all_boards

    def last_frame(self):
        """The newest recorded frame that carried every board's targets and
        LEDs: what the whole body was last told.

        A board that misses answers (the emulator, late on a slow tier's
        loaded TCG) is dropped and shaken hands with again, and gets no
        targets meanwhile; a frame without it says nothing of its joints or
        LEDs (they read 0 in the record: a foot's LEDs "off", a joint
        "limp"). The debug tier has seen such frames, and no frame with
        targets at all among the last 8, twice in a row. Wait for a whole
        one, a bounded while."""
        want = self.all_boards()
        end = time.monotonic() + 3 * (1 + LATE)
        while True:
            n = self.emu.frame_count()
            for f in reversed(self.emu.frames(max(0, n - 8), 8)):
                if f["targets"] & want == want:
                    return f
            if time.monotonic() > end:
                raise TestFailure(f"no frame with every board's targets among the last 8, "
                                  f"for {3 * (1 + LATE)} s")
            time.sleep(0.05)

    def frames_since(self, t_ns, timeout=2.0, until=None):
        """Frames that arrived after CLOCK_MONOTONIC t_ns, waiting up to
        timeout for one that satisfies until (all of them so far if none)."""
        end = time.monotonic() + timeout
        got, seq = [], None
        while True:
            n = self.emu.frame_count()
            if seq is None:
                seq = max(0, n - 256)
            new = self.emu.frames(seq, 1024)
            if new:
                seq = new[-1]["seq"] + 1
            got += [f for f in new if f["rx_ns"] > t_ns]
            if until and any(until(f) for f in got):
                return got
            if time.monotonic() > end:
                return got
            time.sleep(0.02)


LOLA_JOINT_NAMES = [
    "HeadYaw", "HeadPitch", "LShoulderPitch", "LShoulderRoll", "LElbowYaw",
    "LElbowRoll", "LWristYaw", "LHipYawPitch", "LHipRoll", "LHipPitch",
    "LKneePitch", "LAnklePitch", "LAnkleRoll", "RHipRoll", "RHipPitch",
    "RKneePitch", "RAnklePitch", "RAnkleRoll", "RShoulderPitch",
    "RShoulderRoll", "RElbowYaw", "RElbowRoll", "RWristYaw", "LHand", "RHand",
]
