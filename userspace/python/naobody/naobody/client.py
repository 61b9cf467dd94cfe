# SPDX-License-Identifier: GPL-2.0-only
"""The connection to a robot: framing, Hello, the heartbeat, and what the
robot sends, sorted into the newest State, events, images and microphone
chunks by a reader thread.

Errors: the robot answers a mistake or a refusal with an Error event, some
time after the message (it is read by the network side, or decided by the
body loop a cycle later). By default the next call into the Robot after it
arrives (a command, state(), the events iterator) raises it as a
RobotError subclass. raise_errors=False delivers them as ErrorEvents in
events() instead; errors() takes the ones waiting.
"""

import collections
import socket
import struct
import threading
import time

import msgpack

from . import errors as E
from . import messages as M

DEFAULT_PORT = 7700
HEARTBEAT_S = 0.05          # the robot wants a message every 100 ms
MAX_FRAME = 8 << 20         # the robot's limit, for frames either way
QUEUE = 256                 # events, images, microphone chunks kept at most


def _frame(value):
    body = msgpack.packb(value, use_bin_type=True)
    if len(body) > MAX_FRAME:
        raise ValueError(f"a message of {len(body)} bytes is over the robot's 8 MiB limit")
    return struct.pack(">I", len(body)) + body


class Robot:
    """A connection to naobodyd's robot API. Use connect()."""

    def __init__(self, host="localhost", port=DEFAULT_PORT, name="naobody-python",
                 heartbeat=True, raise_errors=True, timeout=5.0):
        self.name = name
        self.raise_errors = raise_errors
        self._lock = threading.Lock()         # the socket's writes
        self._cond = threading.Condition()    # what the reader hands over
        self._state = None
        self._state_seq = 0
        self._events = collections.deque(maxlen=QUEUE)
        self._images = collections.deque(maxlen=QUEUE)
        self._mic = collections.deque(maxlen=QUEUE)
        self._errors = collections.deque(maxlen=QUEUE)
        self._closed = None                   # why, once closed
        self._last_sent = 0.0
        self._stop = threading.Event()
        self.sock = socket.create_connection((host, port), timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            self.info = self._handshake(timeout)
        except BaseException:
            self.sock.close()
            raise
        self.sock.settimeout(None)
        self._reader = threading.Thread(target=self._read_loop, name="naobody-reader",
                                        daemon=True)
        self._reader.start()
        self._beater = None
        if heartbeat:
            self._beater = threading.Thread(target=self._beat_loop, name="naobody-heartbeat",
                                            daemon=True)
            self._beater.start()

    # ---- the wire ----

    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise E.ConnectionClosed("the robot closed the connection")
            data += chunk
        return data

    def _recv(self):
        n = struct.unpack(">I", self._recv_exact(4))[0]
        if n == 0 or n > MAX_FRAME:
            raise E.ConnectionClosed(f"the robot sent a frame of {n} bytes: not the robot API?")
        return msgpack.unpackb(self._recv_exact(n), raw=False)

    def _handshake(self, timeout):
        self.sock.settimeout(timeout)
        self.sock.sendall(_frame({"Hello": {"version": M.VERSION, "client": self.name}}))
        info = None
        while True:
            try:
                m = self._recv()
            except socket.timeout:
                raise E.ConnectionClosed(f"no Hello from the robot within {timeout} s") from None
            except E.ConnectionClosed:
                if info is not None and info.version != M.VERSION:
                    raise E.VersionError(M.ErrorEvent(
                        "Version", f"the robot speaks version {info.version} of the robot "
                        f"API, this client {M.VERSION}", versions=[info.version])) from None
                raise
            if isinstance(m, dict) and "Hello" in m:
                info = M.RobotInfo.from_wire(m["Hello"])
                if info.version == M.VERSION:
                    return info
                continue  # its Error, then the close, follow
            if isinstance(m, dict) and "Event" in m:
                ev = M.event_from_wire(m["Event"])
                if isinstance(ev, M.ErrorEvent):
                    raise E.error_for(ev)

    def send(self, command):
        """Send one command: a typed one (naobody.WalkTo(...), Power.WAKE,
        Leds(...)), a unit variant's name ("Heartbeat", "Stop") or a raw
        dict. Raises the robot's pending error first, if one came."""
        self._raise_pending()
        data = _frame(M.to_wire(command))
        with self._lock:
            if self._closed:
                raise E.ConnectionClosed(self._closed)
            try:
                self.sock.sendall(data)
            except OSError as e:
                raise E.ConnectionClosed(f"sending to the robot: {e}") from e
            self._last_sent = time.monotonic()

    def _beat_loop(self):
        while not self._stop.wait(HEARTBEAT_S / 2):
            if time.monotonic() - self._last_sent < HEARTBEAT_S:
                continue
            with self._lock:
                if self._closed:
                    return
                try:
                    self.sock.sendall(_frame("Heartbeat"))
                    self._last_sent = time.monotonic()
                except OSError:
                    return

    def _read_loop(self):
        why = "the robot closed the connection"
        try:
            while True:
                m = self._recv()
                self._take(m)
        except E.ConnectionClosed as e:
            why = str(e)
        except (OSError, ValueError, msgpack.ExtraData) as e:
            why = f"reading from the robot: {e}"
        finally:
            with self._cond:
                if self._closed is None:
                    last = self._errors[-1] if self._errors else None
                    self._closed = why + (f" (its last error: {last.message})" if last and
                                          last.kind in ("Malformed", "Handshake", "Version")
                                          else "")
                self._cond.notify_all()

    def _take(self, m):
        if not isinstance(m, dict) or len(m) != 1:
            return
        (kind, data), = m.items()
        with self._cond:
            if kind == "State":
                self._state = M.State.from_wire(data)
                self._state_seq += 1
            elif kind == "Event":
                ev = M.event_from_wire(data)
                if isinstance(ev, M.ErrorEvent):
                    self._errors.append(ev)
                    if not self.raise_errors:
                        self._events.append(ev)
                else:
                    self._events.append(ev)
            elif kind == "Image":
                self._images.append(M.Image(str(data["camera"]), float(data["time"]),
                                            int(data["width"]), int(data["height"]),
                                            bytes(data["jpeg"])))
            elif kind == "Microphone":
                self._mic.append(M.Microphone(float(data["time"]), list(data["samples"])))
            self._cond.notify_all()

    def _raise_pending(self):
        if not self.raise_errors:
            return
        with self._cond:
            if self._errors:
                raise E.error_for(self._errors.popleft())

    def errors(self):
        """The Error events that came and were not raised yet (taken)."""
        with self._cond:
            out = list(self._errors)
            self._errors.clear()
            return out

    def check(self, wait=0.0):
        """Raise the robot's pending error, if any, after waiting up to wait
        seconds for one to come (the body loop decides a refusal within a
        cycle or two; 0.2 s is plenty)."""
        end = time.monotonic() + wait
        with self._cond:
            while self.raise_errors and not self._errors and not self._closed:
                left = end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
        self._raise_pending()

    # ---- what the robot sends ----

    def state(self, timeout=2.0, new=True):
        """The newest State: by default the next one to arrive (so two calls
        never return the same). Needs subscribe(state=True)."""
        end = time.monotonic() + timeout
        with self._cond:
            seq = self._state_seq
            while True:
                if self.raise_errors and self._errors:
                    raise E.error_for(self._errors.popleft())
                if self._state is not None and (not new or self._state_seq != seq):
                    return self._state
                if self._closed:
                    raise E.ConnectionClosed(self._closed)
                left = end - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no State within {timeout} s (subscribed to it?)")
                self._cond.wait(left)

    def _next(self, queue, timeout):
        end = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                if self.raise_errors and self._errors:
                    raise E.error_for(self._errors.popleft())
                if queue:
                    return queue.popleft()
                if self._closed:
                    raise E.ConnectionClosed(self._closed)
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._cond.wait(left)

    def events(self, timeout=None):
        """Events as they come (TouchEvent, FallEvent, WatchdogEvent, and
        ErrorEvent without raise_errors). Ends after timeout seconds without
        one (None: never); raises ConnectionClosed when the robot goes."""
        while True:
            ev = self._next(self._events, timeout)
            if ev is None:
                return
            yield ev

    def image(self, timeout=2.0):
        """The next Image of a subscribed camera, or None after timeout."""
        return self._next(self._images, timeout)

    def microphone(self, timeout=2.0):
        """The next Microphone chunk, or None after timeout."""
        return self._next(self._mic, timeout)

    # ---- commands ----

    def subscribe(self, state=True, cameras=(), camera_fps=None, microphone=False, rate=None):
        self.send(M.Subscribe(state, tuple(cameras), camera_fps, microphone, rate))

    def wake(self):
        self.send(M.Power.WAKE)

    def rest(self):
        self.send(M.Power.REST)

    def stand(self, head=M.Head.CENTER):
        self.send(M.Stand(head))

    def walk_to(self, x, y, turn_to=None, speed=M.Speed.NORMAL, head=M.Head.CENTER):
        self.send(M.WalkTo(x, y, turn_to, speed, head))

    def walk_toward(self, x, y, speed=M.Speed.NORMAL, head=M.Head.CENTER):
        self.send(M.WalkToward(x, y, speed, head))

    def sit_down(self):
        self.send(M.SitDown())

    def arms_up(self):
        self.send(M.ArmsUp())

    def squat(self):
        self.send(M.Squat())

    def leds(self, leds=None):
        """Override LED groups (a Leds); None hands them all back."""
        self.send({"Leds": None} if leds is None else leds)

    def speaker(self, samples):
        self.send(M.Speaker(samples))

    def speaker_clear(self):
        self.send("SpeakerClear")

    def volume(self, percent=None, muted=None):
        self.send(M.Volume(percent, muted))

    def heartbeat(self):
        self.send("Heartbeat")

    def stop(self):
        """The death switch: every motor off, latched until rearmed on the robot."""
        self.send("Stop")

    # ---- the end ----

    def close(self):
        self._stop.set()
        with self._cond:
            if self._closed is None:
                self._closed = "closed by this client"
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        if self._beater:
            self._beater.join(1)
        self._reader.join(1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def connect(host="localhost", port=DEFAULT_PORT, name="naobody-python", heartbeat=True,
            raise_errors=True, timeout=5.0):
    """Connect and say Hello: the Robot, now the robot's controller (the
    previous controller is disconnected). host may be "host:port".

    heartbeat=False: no heartbeat thread; send something at least every
    100 ms yourself, or the robot's watchdog stands it still (0.5 s) and
    sits it down (3 s). raise_errors=False: the robot's errors come as
    ErrorEvents in events() instead of exceptions."""
    if isinstance(host, str) and host.count(":") == 1:
        host, p = host.split(":")
        port = int(p)
    return Robot(host, port, name, heartbeat, raise_errors, timeout)
