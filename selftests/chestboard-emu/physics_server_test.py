#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""nb-physics-server on the host, without a VM: the model answers a client
over --listen (limp, the robot lies; hold lifts it), several requests sent
at once are folded into one step, and whatever a broken peer sends (garbage,
another version, a huge length, a NaN) ends that connection only: the
server stays up for the next client and counts each. The messages are built
here from physics_wire.h's description, independently of physics_wire.c."""

import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
O = os.environ.get("O", os.path.join(TOP, "build"))
SERVER = os.path.join(O, "bin", "nb-physics-server")
MODEL = os.path.join(TOP, "userspace", "sim", "nao6", "nao6.xml")
JOINTS = 25
MAGIC, VERSION, REQUEST, REPLY = 0x4850424E, 1, 1, 2
START, PUSH, HOLD, RELEASE = 1, 2, 4, 8
# the reply's floats: position, torque, current (25 each), accelerometer,
# gyroscope (3), angles (2), fsr (8), torso_height: index 91
TORSO_HEIGHT = 3 * JOINTS + 3 + 3 + 2 + 8

n = 0
failed = 0


def ok(cond, what, figures=""):
    """One TAP line; the figures as a diagnostic under it (names stay put)."""
    global n, failed
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} {what}", flush=True)
    if figures:
        print(f"# {figures}", flush=True)
    failed += not cond


def request(seq, flags=0, seconds=0.012, hold=0.0, nan=False):
    p = struct.pack("<If", flags, seconds)
    p += struct.pack(f"<{JOINTS}f", *([float("nan")] if nan else [0.0]) * JOINTS)
    p += struct.pack(f"<{JOINTS}f", *[0.0] * JOINTS)
    p += struct.pack("<4f", 0, 0, 0, hold)
    return struct.pack("<IHHII", MAGIC, VERSION, REQUEST, len(p), seq) + p


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(5)
        self.s.connect(path)
        self.buf = b""

    def reply(self):
        while True:
            if len(self.buf) >= 16:
                magic, ver, typ, plen, seq = struct.unpack("<IHHII", self.buf[:16])
                assert (magic, ver, typ) == (MAGIC, VERSION, REPLY), "not a reply"
                if len(self.buf) >= 16 + plen:
                    p, self.buf = self.buf[16:16 + plen], self.buf[16 + plen:]
                    return seq, struct.unpack(f"<{plen // 4}f", p), p
            data = self.s.recv(65536)
            if not data:
                raise EOFError
            self.buf += data

    def run(self, seconds, seq0=1, **kw):
        """Cycles of 12 ms, one request and reply each; the last reply."""
        for i in range(int(seconds / 0.012)):
            self.s.sendall(request(seq0 + i, **kw))
            last = self.reply()
            kw.pop("flags", None)
        return last

    def closed(self):
        """The server ended the connection (EOF within 5 s)."""
        try:
            while self.s.recv(4096):
                pass
            return True
        except OSError:
            return False


def main():
    if not os.access(SERVER, os.X_OK):
        print("1..0 # SKIP no nb-physics-server (a build without libmujoco-dev)")
        return 0
    work = tempfile.mkdtemp()
    path = os.path.join(work, "phys.sock")
    srv = subprocess.Popen([SERVER, "--listen", path, MODEL], stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            if os.path.exists(path):
                break
            time.sleep(0.05)
        print("TAP version 13")
        print("1..10", flush=True)
        c = Client(path)
        seq, f, raw = c.run(1.5, flags=START)
        ok(seq == int(1.5 / 0.012) and f[TORSO_HEIGHT] < 0.2,
           "limp from a start, the robot lies", f"torso {f[TORSO_HEIGHT]:.3f} m")
        # sense's fields, then torso[4], model_seconds, cpu_us, folded, mass
        # (at least: a field added to sense makes it longer)
        ok(len(raw) % 4 == 0 and len(raw) >= 4 * (TORSO_HEIGHT + 1 + 8),
           "a reply's payload is sense's fields and eight words", f"{len(raw)} bytes")
        seq, f, _ = c.run(1.5, seq0=1000, flags=HOLD, hold=0.335 - f[TORSO_HEIGHT])
        ok(f[TORSO_HEIGHT] > 0.30, "hold lifts it", f"torso {f[TORSO_HEIGHT]:.3f} m")
        # three requests in one write: one step, one reply, the newest's seq
        c.s.sendall(request(2001) + request(2002) + request(2003))
        seq, f, raw = c.reply()
        folded = struct.unpack("<I", raw[-8:-4])[0]
        ok(seq == 2003 and folded == 3, "three requests at once: one step, one reply to the newest",
           f"a reply to {seq}, {folded} folded")

        bad = {
            "garbage": b"garbage, not a message at all",
            "another version": request(1)[:4] + struct.pack("<H", 2) + request(1)[6:],
            "a huge length": request(1)[:8] + struct.pack("<I", 1 << 31) + request(1)[12:],
            "a reply sent to the server": struct.pack("<IHHII", MAGIC, VERSION, REPLY, 0, 1),
            "a NaN target": request(1, nan=True),
        }
        for what, msg in bad.items():
            c = Client(path)
            c.s.sendall(msg)
            ok(c.closed(), f"{what}: the connection ends")
        srv.terminate()
        rc, last = srv.wait(timeout=10), srv.communicate()[1].strip().splitlines()[-1]
        print("# " + last)
        # "..., N replies, M malformed": the server's own count, and it lived
        n_bad = int(last.rsplit(" malformed", 1)[0].rsplit(" ", 1)[1])
        ok(rc == 0 and n_bad == len(bad), "the server lived through them and counted each",
           f"exit {rc}, {n_bad} malformed")
        return 1 if failed else 0
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)


if __name__ == "__main__":
    sys.exit(main())
