# SPDX-License-Identifier: GPL-2.0-only
"""The demo's robot API client: it runs in the VM on Debian's python3 and
python3-msgpack, and drives naobodyd through TCP 7700 on a fixed timeline.
"""
import msgpack
import socket
import struct
import sys
import time

TIMELINE = [
    (0.0, {"Hello": {"version": 1, "client": "make demo"}}),
    (0.1, {"Subscribe": {"state": True, "cameras": [], "camera_fps": 0.0,
                         "microphone": False}}),
    (0.3, {"Power": "Wake"}),
    (9.0, {"Motion": "ArmsUp"}),
    (13.0, {"Motion": {"Stand": {"head": "LookAround"}}}),
    (24.0, {"Power": "Wake"}),
]
END = 30.0


def send(s, obj):
    data = msgpack.packb(obj, use_bin_type=True)
    s.sendall(struct.pack(">I", len(data)) + data)


def main():
    s = socket.create_connection(("127.0.0.1", 7700), timeout=5)
    s.setblocking(False)
    buf = b""
    t0 = time.monotonic()
    pending = list(TIMELINE)
    while time.monotonic() - t0 < END:
        now = time.monotonic() - t0
        while pending and pending[0][0] <= now:
            msg = pending.pop(0)[1]
            send(s, msg)
            print(f"{now:5.1f} s  sent {msg}", flush=True)
        send(s, "Heartbeat")
        try:
            buf += s.recv(1 << 20)
        except BlockingIOError:
            pass
        # Frames: a big-endian u32 length, then MessagePack.
        while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
            n = struct.unpack(">I", buf[:4])[0]
            msg = msgpack.unpackb(buf[4:4 + n], raw=False)
            buf = buf[4 + n:]
            if isinstance(msg, dict) and ("Hello" in msg or "Event" in msg):
                print(f"{now:5.1f} s  got {msg}", flush=True)
        time.sleep(0.05)
    s.close()


if __name__ == "__main__":
    sys.exit(main())
