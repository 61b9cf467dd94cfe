#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's cameras against vivid, in the VM (head_camera_vm.sh sets it up).

Two vivid instances (vivid-000 and vivid-001, both behind the one platform
device vivid.0) stand for the head's cameras; /dev/video-top and
/dev/video-bottom point at their capture nodes, as udev names them on
HULKs-OS. The JPEGs are read with this file's
own marker parser and decoded by libturbojpeg through ctypes, and the
decoded picture is checked against vivid's colour bars: not our code.
Every wait is bounded; rates are taken from the Images' own capture times
and frame counts, never from how fast the VM runs.
"""

import ctypes
import os
import time

from nbtest import Client, Daemon, Tap, TestFailure, check, note, wait_for
from resttest import request, token_of

tap = Tap()
SCALE = float(os.environ.get("NBVM_TIME_SCALE", "1"))
WAIT = 30 * SCALE          # a generous bound for anything to happen under TCG
# One of vivid's webcam sizes (not the daemon's default), at a rate vivid's
# thread keeps under TCG: when it falls behind, Debian 6.1's vivid can pass
# schedule_timeout() a negative wait ("wrong timeout value", a Call Trace
# the harness counts as a kernel splat).
WIDTH, HEIGHT = 320, 180
DEVICE_FPS = 10
PLATFORM = "/sys/bus/platform"
PDEV = "vivid.0"  # vivid's one platform device: every instance is behind it
CAMERAS = {"Top": ("vivid-000", "/dev/video-top"), "Bottom": ("vivid-001", "/dev/video-bottom")}


def node_of(instance):
    """The capture node of a vivid instance, by its sysfs name (None while unbound)."""
    base = "/sys/class/video4linux"
    for n in sorted(os.listdir(base)):
        try:
            with open(f"{base}/{n}/name") as f:
                if f.read().startswith(instance + "-vid-cap") and os.path.exists(f"/dev/{n}"):
                    return f"/dev/{n}"
        except OSError:
            continue
    return None


def link(camera):
    """Point the camera's udev-style name at its vivid node, as udev would."""
    inst, path = CAMERAS[camera]
    node = wait_for(lambda: node_of(inst), WAIT, f"{inst}'s capture node")
    if os.path.islink(path) or os.path.exists(path):
        os.unlink(path)
    os.symlink(node, path)


def daemon(*extra):
    for cam in CAMERAS:
        link(cam)
    return Daemon("--camera-top", CAMERAS["Top"][1], "--camera-bottom", CAMERAS["Bottom"][1],
                  "--camera-size", f"{WIDTH}x{HEIGHT}", "--camera-fps", str(DEVICE_FPS), *extra,
                  rest=True)


def sof_size(jpeg):
    """(width, height) from the JPEG's SOFn marker, parsed here."""
    check(jpeg[:2] == b"\xff\xd8", f"no SOI: starts {jpeg[:4].hex()}")
    i = 2
    while i + 4 <= len(jpeg):
        check(jpeg[i] == 0xFF, f"no marker at {i}")
        m = jpeg[i + 1]
        n = int.from_bytes(jpeg[i + 2:i + 4], "big")
        if m in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            h = int.from_bytes(jpeg[i + 5:i + 7], "big")
            w = int.from_bytes(jpeg[i + 7:i + 9], "big")
            return w, h
        i += 2 + n
    raise TestFailure("no SOF marker")


_tj = ctypes.CDLL("libturbojpeg.so.0")
_tj.tjInitDecompress.restype = ctypes.c_void_p
_tj.tjDecompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p,
                              ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
_tj.tjDestroy.argtypes = [ctypes.c_void_p]


def decode_rgb(jpeg, w, h):
    """RGB bytes, decoded by libturbojpeg (TJPF_RGB = 0)."""
    out = ctypes.create_string_buffer(w * h * 3)
    handle = _tj.tjInitDecompress()
    try:
        rc = _tj.tjDecompress2(handle, jpeg, len(jpeg), out, w, 0, h, 0, 0)
    finally:
        _tj.tjDestroy(handle)
    check(rc == 0, "libturbojpeg cannot decode the JPEG")
    return out.raw


def check_colour_bars(rgb, w, h):
    """vivid's default pattern is 75 % colour bars, eight across: white,
    yellow, cyan, green, magenta, red, blue, black. A swapped U and V, or a
    plane split off by a byte, gives other colours."""
    want = ["white", "yellow", "cyan", "green", "magenta", "red", "blue", "black"]
    got = []
    y = h - 6  # below vivid's text lines, which start at the top
    for bar in range(8):
        x = (2 * bar + 1) * w // 16
        r, g, b = (rgb[(y * w + x) * 3 + k] for k in range(3))
        hi = [v > 128 for v in (r, g, b)]
        name = {(1, 1, 1): "white", (1, 1, 0): "yellow", (0, 1, 1): "cyan", (0, 1, 0): "green",
                (1, 0, 1): "magenta", (1, 0, 0): "red", (0, 0, 1): "blue",
                (0, 0, 0): "black"}[tuple(int(v) for v in hi)]
        got.append(f"{name}({r},{g},{b})")
        check(name == want[bar], f"bar {bar}: expected {want[bar]}, got {got}")


def images(c, n, cameras, what):
    """n Images of each camera in cameras, heartbeating on the way."""
    got = {cam: [] for cam in cameras}
    deadline = time.monotonic() + WAIT
    while any(len(v) < n for v in got.values()):
        if time.monotonic() > deadline:
            raise TestFailure(f"{what}: timed out after {WAIT:.0f} s; Images so far: "
                              + ", ".join(f"{k} {len(v)}" for k, v in got.items()))
        c.send("Heartbeat")
        try:
            m = c.recv(1.0)
        except OSError:
            continue
        if isinstance(m, dict) and "Image" in m:
            img = m["Image"]
            check(img["camera"] in got, f"an Image of {img['camera']}, not subscribed")
            got[img["camera"]].append(img)
    return got


def rest_robot(d):
    """GET /robot, checked against Documentation/rest-api.yaml."""
    a = request(d.rest_port, "GET", "/robot", token=token_of(d))
    check(a.status == 200, f"GET /robot: {a}")
    return a.json


@tap.test
def rate_size_and_time():
    """Top at 5 fps: Images at 5 fps by their capture times, 320x180 JPEGs of vivid's bars, epoch times"""
    with daemon() as d:
        c = Client(d)
        c.hello()
        c.send({"Subscribe": {"state": False, "cameras": ["Top"], "camera_fps": 5.0}})
        imgs = images(c, 11, ["Top"], "Images of Top")["Top"]
        now = time.time()
        for img in imgs:
            check((img["width"], img["height"]) == (WIDTH, HEIGHT),
                  f"Image says {img['width']}x{img['height']}")
            check(isinstance(img["jpeg"], bytes), f"jpeg is a {type(img['jpeg']).__name__}")
            check(sof_size(img["jpeg"]) == (WIDTH, HEIGHT),
                  f"the JPEG is {sof_size(img['jpeg'])}")
        check_colour_bars(decode_rgb(imgs[-1]["jpeg"], WIDTH, HEIGHT), WIDTH, HEIGHT)
        # time: the capture, in the Unix epoch (not the monotonic clock).
        check(all(now - WAIT < i["time"] <= now + 0.5 for i in imgs),
              f"times {imgs[0]['time']}..{imgs[-1]['time']}, now {now}")
        gaps = [b["time"] - a["time"] for a, b in zip(imgs, imgs[1:])]
        mean = sum(gaps) / len(gaps)
        note(f"10 gaps at 5 fps from a {DEVICE_FPS} fps device: mean {mean * 1000:.0f} ms, "
             f"min {min(gaps) * 1000:.0f} ms; JPEG {len(imgs[-1]['jpeg'])} bytes")
        # Throttled to the asked rate over the run (the count over the span of
        # capture times), not faster; after a late frame the next may come
        # half a period later (vivid's thread runs late under TCG), not sooner.
        check(0.18 <= mean <= 0.2 * 3 * SCALE, f"mean gap {mean:.3f} s for 5 fps: {gaps}")
        check(min(gaps) > 0.1 - 0.01, f"gaps {gaps}: one under half the period")
        c.close()


@tap.test
def two_cameras():
    """Top and Bottom at once: both stream, each at the asked rate"""
    with daemon() as d:
        c = Client(d)
        c.hello()
        c.send({"Subscribe": {"state": True, "cameras": ["Top", "Bottom"], "camera_fps": 3.0}})
        got = images(c, 6, ["Top", "Bottom"], "Images of both cameras")
        for cam, imgs in got.items():
            gaps = [b["time"] - a["time"] for a, b in zip(imgs, imgs[1:])]
            mean = sum(gaps) / len(gaps)
            check(0.3 <= mean <= 1 / 3 * 3 * SCALE and min(gaps) > 1 / 6 - 0.01,
                  f"{cam}: gaps {gaps} for 3 fps")
            check(sof_size(imgs[-1]["jpeg"]) == (WIDTH, HEIGHT), f"{cam}: wrong size")
        robot = rest_robot(d)
        check(all(robot["cameras"][cam]["state"] == "streaming" for cam in CAMERAS),
              f"REST /robot cameras: {robot['cameras']}")
        # Unsubscribed: the devices are closed again.
        c.send({"Subscribe": {"state": True}})
        wait_for(lambda: all(rest_robot(d)["cameras"][cam]["state"] == "idle" for cam in CAMERAS),
                 WAIT, "both cameras idle after the unsubscribe", step=0.2)
        c.close()


@tap.test
def slow_client():
    """A client that stops reading loses Images, not its connection or its States"""
    with daemon() as d:
        c = Client(d)
        c.hello()
        c.send({"Subscribe": {"state": True, "cameras": ["Top", "Bottom"]}})
        images(c, 1, ["Top", "Bottom"], "the first Images")
        # Frames pile up far past the queue's 256 KiB while nobody reads.
        wait_for(lambda: "reads too slowly for its Images" in d.log(), WAIT,
                 "naobodyd to drop Images for the slow client", step=0.2)
        c.state(timeout=WAIT)
        images(c, 2, ["Top", "Bottom"], "Images after reading again")
        check(d.alive(), "naobodyd exited")
        c.close()


def vivid(action):
    with open(f"{PLATFORM}/drivers/vivid/{action}", "w") as f:
        f.write(PDEV)


@tap.test
def cameras_lost_and_back():
    """vivid unbound mid-stream: both cameras reported lost (log, REST), States go on; bound again: Images again"""
    with daemon() as d:
        c = Client(d)
        c.hello()
        c.send({"Subscribe": {"state": True, "cameras": ["Top", "Bottom"], "camera_fps": 5.0}})
        images(c, 2, ["Top", "Bottom"], "Images before the unbind")
        vivid("unbind")
        try:
            for cam, (_, path) in CAMERAS.items():
                wait_for(lambda: f"camera {cam} ({path}): lost" in d.log(), WAIT,
                         f"the log line of the lost camera {cam}", step=0.1)
            robot = rest_robot(d)
            check(all(robot["cameras"][cam]["state"] == "lost" and
                      robot["cameras"][cam]["lost"] >= 1 for cam in CAMERAS),
                  f"REST: {robot['cameras']}")
            # The daemon goes on serving States.
            c.state(timeout=WAIT)
            c.state(timeout=WAIT)
        finally:
            vivid("bind")
        for cam in CAMERAS:
            link(cam)  # udev would re-point the names
        got = images(c, 2, ["Top", "Bottom"], "Images after vivid came back")
        check(sof_size(got["Top"][-1]["jpeg"]) == (WIDTH, HEIGHT), "wrong size after the return")
        check(all(rest_robot(d)["cameras"][cam]["state"] == "streaming" for cam in CAMERAS),
              "REST: not streaming again")
        c.close()


@tap.test
def missing_camera():
    """A camera path with no device: reported as missing, the other still streams"""
    for cam in CAMERAS:
        link(cam)
    with Daemon("--camera-top", "/dev/video-none", "--camera-bottom", CAMERAS["Bottom"][1],
                "--camera-size", f"{WIDTH}x{HEIGHT}", rest=True) as d:
        c = Client(d)
        c.hello()
        c.send({"Subscribe": {"state": True, "cameras": ["Top", "Bottom"], "camera_fps": 5.0}})
        images(c, 2, ["Bottom"], "Bottom's Images")
        wait_for(lambda: "camera Top (/dev/video-none): missing: open: No such file" in d.log(),
                 WAIT, "the missing camera's log line", step=0.1)
        check(rest_robot(d)["cameras"]["Top"]["state"] == "missing", "REST: not missing")
        c.close()


if __name__ == "__main__":
    tap.run()
