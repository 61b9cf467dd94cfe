#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's REST API and the body: /robot's driver and chest board
versions, GET /boards (with the decoded preferences), GET /driver (the
statistics counters), PUT /leds (seen at the body), /volume (503: no
mixer on the simulated body), POST /stop reaching the body as stiffness 0 with the SSE stop
event. On the simulated body here; vm_tests.py runs the real=True ones on
naobody.ko and the chest board emulator, where the versions, the boards
and the frames come from the driver's sysfs, naoctl and the emulator, not
from the daemon. Every answer validated against rest-api.yaml. TAP."""

import json
import os
import re
import socket
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import LATE, REAL, SRCTREE, Daemon, Lola, Tap, binary, check, note, \
    wait_for  # noqa: E402
from resttest import Sse, request, token_of  # noqa: E402
from api_test import awake, ready, stiff_legs  # noqa: E402

tap = Tap()


def abi_version_of_uapi():
    """NAOBODY_ABI_VERSION as the uapi header says it (in the VM it comes beside this file)."""
    for path in (os.path.join(os.path.dirname(os.path.abspath(__file__)), "naobody.h"),
                 os.path.join(SRCTREE, "uapi", "linux", "naobody.h")):
        if os.path.exists(path):
            with open(path) as f:
                return int(re.search(r"#define NAOBODY_ABI_VERSION\s+(\d+)", f.read()).group(1))
    raise AssertionError("no uapi/linux/naobody.h to read NAOBODY_ABI_VERSION from")


@tap.test(real=True)
def rest_robot_versions():
    """/robot: the driver's version and ABI and the chest board's version, or null on the simulated body"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        r = request(d.rest_port, "GET", "/robot", t).json
        if not REAL:
            check(r["simulated"] and r["driver"] is None and r["chest_board"] is None,
                  f"the simulated body claims a driver: {r}")
            return
        check(not r["simulated"] and r["body"] == "naobody", f"robot {r}")
        with open("/sys/module/naobody/version") as f:
            version = f.read().strip()
        with open(f"{d.body.SYSFS}/chest_version") as f:
            chest = f.read().strip()
        check(r["driver"]["version"] == version,
              f"driver {r['driver']} but the module says {version}")
        abi = abi_version_of_uapi()
        check(r["driver"]["abi_version"] == abi, f"ABI {r['driver']} but the uapi says {abi}")
        check(r["chest_board"]["version"] == chest,
              f"chest board {r['chest_board']} but sysfs says {chest}")
        note(f"driver {version}, ABI {r['driver']['abi_version']}, chest board {chest}")


@tap.test(real=True)
def rest_boards():
    """GET /boards: each board's handshake as naoctl boards prints it; none on the simulated body"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        b = request(d.rest_port, "GET", "/boards", t).json
        if not REAL:
            check(not b["available"] and b["boards"] == [] and "simulated" in b["reason"]
                  and b["preferences"] is None, f"the simulated body lists boards: {b}")
            return
        out = subprocess.run([binary("naoctl"), "boards"], capture_output=True, text=True,
                             timeout=10)
        check(out.returncode == 0, f"naoctl boards: {out.stderr}")
        rows = [ln.split() for ln in out.stdout.splitlines()[1:] if ln.strip()]
        check(b["available"] and b["count"] == len(rows) == len(b["boards"]),
              f"{b['count']} boards, naoctl lists {len(rows)}")
        for row, x in zip(rows, b["boards"]):
            # "#", bus, address, kind, state (two words for "not asked"), ...
            check(int(row[1]) == x["bus"] and int(row[2], 16) == x["address"]
                  and row[3] == x["kind"], f"board {x} vs naoctl {row}")
            check(row[4] == x["state"] or (row[4] == "not" and x["state"] == "not_asked"),
                  f"state {x['state']} vs naoctl {row}")
            check(x["accepted"] == (x["state"] == "accepted"), f"accepted {x}")
            check(int(row[-1]) == x["tries"], f"tries {x} vs naoctl {row}")
        check(b["accepted"] == sum(x["accepted"] for x in b["boards"]), f"accepted {b}")
        check(b["accepted"] == len(rows), "the VM's boards are all accepted (vm_env.sh)")
        with open(f"{d.body.SYSFS}/chest_version") as f:
            check(b["chest_board"]["version"] == f.read().strip(), f"chest {b['chest_board']}")
        note(f"{b['count']} boards, {b['accepted']} accepted")


@tap.test(real=True)
def rest_boards_preferences():
    """GET /boards: the preference block's entries as naoctl prefs prints them (the emulator's block); null on the simulated body"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        p = request(d.rest_port, "GET", "/boards", t).json["preferences"]
        if not REAL:
            check(p is None, f"the simulated body has preferences: {p}")
            return
        check(p["available"] and p["valid"] and "reason" not in p, f"preferences {p}")
        got = {e["key"]: e for e in p["entries"]}
        check(len(got) == len(p["entries"]), "a key twice")
        check(sorted(got) == sorted(d.body.prefs),
              f"keys {sorted(set(got) ^ set(d.body.prefs))} differ from naoctl prefs")
        for key, text in d.body.prefs.items():
            e = got[key]
            if e["type"] == "int":
                ok = isinstance(e["value"], int) and e["value"] == int(text)
            elif e["type"] == "float":
                ok = abs(e["value"] - float(text)) <= 1e-5 * max(1.0, abs(float(text)))
            else:
                ok = e["type"] == "string" and e["value"] == text
            check(ok, f"{key}: {e} but naoctl prefs says {text}")
        check(got["Body/Version"]["value"] == d.body.body_version, "Body/Version")
        note(f"{len(got)} entries, as naoctl prefs")


@tap.test(real=True)
def rest_driver_statistics():
    """GET /driver: every counter of the driver's sysfs statistics/, between two reads of it; none on the simulated body"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        if not REAL:
            r = request(d.rest_port, "GET", "/driver", t).json
            check(not r["available"] and r["driver"] is None and r["statistics"] is None
                  and "simulated" in r["reason"], f"the simulated body has a driver: {r}")
            a = request(d.rest_port, "POST", "/driver", t)
            check(a.status == 405 and a.headers.get("Allow") == "GET", f"POST /driver: {a}")
            return
        stats = f"{d.body.SYSFS}/statistics"

        def snapshot():
            out = {}
            for name in os.listdir(stats):
                with open(os.path.join(stats, name)) as f:
                    out[name] = int(f.read())
            return out
        time.sleep(0.2 * (1 + LATE))
        before = snapshot()
        r = request(d.rest_port, "GET", "/driver", t).json
        after = snapshot()
        check(r["available"] and r["sysfs"] == stats, f"sysfs {r.get('sysfs')}: {r}")
        with open("/sys/module/naobody/version") as f:
            check(r["driver"]["version"] == f.read().strip(), f"driver {r['driver']}")
        check(sorted(r["statistics"]) == sorted(before),
              f"counters {sorted(r['statistics'])} but sysfs has {sorted(before)}")
        for name, v in r["statistics"].items():
            check(before[name] <= v <= after[name],
                  f"{name} {v} not between sysfs's {before[name]} and {after[name]}")
        check(after["cycles"] > 0 and r["statistics"]["cycles"] > 0, "no cycles counted")
        note(f"cycles {r['statistics']['cycles']}, overruns {r['statistics']['overruns']}")


@tap.test(real=True)
def rest_controller():
    """GET /controller and the SSE controller event: none, a robot API client (its session and address), replaced by a LoLA client, none again"""
    with Daemon(rest=True) as d:
        t = token_of(d)

        def holder():
            return request(d.rest_port, "GET", "/controller", t).json

        time.sleep(0.2 * (1 + LATE))
        h = holder()
        check(h["holder"] == "none" and h["session"] is None and h["peer"] is None
              and h["held_s"] is None and "/controller/release" in h["take_over"],
              f"at start {h}")
        ev = Sse(d.rest_port, t, "?rate=1")
        ev.expect(lambda k, v: k == "state", what="a first state")
        c = ready(d, "rest-controller")
        c.state(3)
        _, data = ev.expect(lambda k, v: k == "controller", timeout=3 * (1 + LATE),
                            what="the SSE controller event for the robot API client")
        addr = "%s:%d" % c.sock.getsockname()[:2]
        check(data["holder"] == "robot-api" and data["peer"] == addr
              and isinstance(data["session"], int), f"event {data}, the client is {addr}")
        h = holder()
        check(h["holder"] == "robot-api" and h["peer"] == addr and h["session"] == data["session"]
              and h["held_s"] >= 0, f"robot API client {addr}: {h}")
        check(request(d.rest_port, "GET", "/robot", t).json["controller"] == "robot-api",
              "/robot's controller")
        # A LoLA client that drives replaces it (the robot API's rule): seen here too.
        lola = Lola(d)
        lola.read()
        lola.send({"Stiffness": [0.0] * 25})
        _, data = ev.expect(lambda k, v: k == "controller", timeout=3 * (1 + LATE),
                            what="the SSE controller event for the LoLA client")
        check(data["holder"] == "lola" and data["session"] is None and data["peer"] is None,
              f"event {data}")
        check(c.closed(2 * (1 + LATE)), "the robot API client stayed")
        h = holder()
        check(h["holder"] == "lola" and h["session"] is None, f"LoLA client: {h}")
        check(request(d.rest_port, "GET", "/robot", t).json["controller"] == "lola",
              "/robot's controller")
        lola.close()
        _, data = ev.expect(lambda k, v: k == "controller", timeout=3 * (1 + LATE),
                            what="the SSE controller event for none")
        check(data["holder"] == "none", f"event {data}")
        check(holder()["holder"] == "none", "a holder after the LoLA client went")
        a = request(d.rest_port, "POST", "/controller", t)
        check(a.status == 405 and a.headers.get("Allow") == "GET", f"POST /controller: {a}")
        ev.close()


def release(d, t, body):
    return request(d.rest_port, "POST", "/controller/release", t, body=body)


@tap.test(real=True)
def rest_controller_release():
    """POST /controller/release: only with force (and the holder's session if given); the robot API client and then a LoLA client lose the role, SSE says none, the body is not stiffened by it"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        a = release(d, t, b'{"force": true}')
        check(a.status == 409 and a.json["released"] is False, f"nobody holds it: {a}")
        c = awake(d)
        wait_for(lambda: request(d.rest_port, "GET", "/controller", t).json["holder"]
                 == "robot-api", 3 * (1 + LATE), "the robot API client to hold the role")
        session = request(d.rest_port, "GET", "/controller", t).json["session"]
        ev = Sse(d.rest_port, t, "?rate=1")
        ev.expect(lambda k, v: k == "state", what="a first state")
        for bad in (b'{}', b'{"force": false}', b'{"force": 1}', b'{"force": true, "x": 1}',
                    b'{"force": true, "session": 0}', b'{"force": true', b'[]'):
            a = release(d, t, bad)
            check(a.status == 400 and a.json.get("released", False) is False, f"{bad!r}: {a}")
        a = release(d, t, b'{"force": true, "session": %d}' % (session + 1000))
        check(a.status == 409 and "session" in a.json["message"], f"another session: {a}")
        check(not c.closed(0.2), "a refused release closed the client")
        check(request(d.rest_port, "GET", "/controller", t).json["holder"] == "robot-api",
              "a refused release took the role")
        stiff_legs(c, d)  # not sampled in a dip of naobody.ko's (a VM stall)
        stiff = d.body.legs_stiffness()
        a = release(d, t, b'{"force": true, "session": %d}' % session)
        check(a.status == 200 and a.json["released"] is True, f"release: {a}")
        check(c.closed(2 * (1 + LATE)), "the released robot API client's connection stayed")
        _, data = ev.expect(lambda k, v: k == "controller", timeout=3 * (1 + LATE),
                            what="the SSE controller event after the release")
        check(data["holder"] == "none", f"event {data}")
        check(request(d.rest_port, "GET", "/controller", t).json["holder"] == "none",
              "a holder after the release")
        check(d.body.legs_stiffness() <= stiff + 1e-6,
              f"the release stiffened the legs ({stiff:.2f} -> {d.body.legs_stiffness():.2f})")
        check("REST API released a robot API client" in d.log(), "no log line")
        # A LoLA client loses it the same way.
        lola = Lola(d)
        lola.read()
        lola.send({"Stiffness": [0.0] * 25})
        wait_for(lambda: request(d.rest_port, "GET", "/controller", t).json["holder"]
                 == "lola", 3 * (1 + LATE), "the LoLA client to hold the role")
        a = release(d, t, b'{"force": true, "session": 5}')
        check(a.status == 409, f"a session given while LoLA holds it: {a}")
        a = release(d, t, b'{"force": true}')
        check(a.status == 200 and a.json["released"] is True, f"release LoLA: {a}")
        check(lola_eof(lola), "the released LoLA client's socket stayed open")
        wait_for(lambda: request(d.rest_port, "GET", "/controller", t).json["holder"]
                 == "none", 2 * (1 + LATE), "no holder after the LoLA release")
        check("REST API released a LoLA client" in d.log(), "no log line for LoLA")
        ev.close()


def lola_eof(lola, seconds=2.0):
    """The daemon closed the LoLA client's socket."""
    end = time.monotonic() + seconds * (1 + LATE)
    lola.sock.settimeout(0.2)
    while time.monotonic() < end:
        try:
            if not lola.sock.recv(65536):
                return True
        except socket.timeout:
            pass
        except OSError:
            return True
    return False


def chest_at_body(d, want, seconds=2.0):
    end = time.monotonic() + seconds * (1 + LATE)
    got = d.body.leds("chest")
    while got != want and time.monotonic() < end:
        time.sleep(0.02)
        got = d.body.leds("chest")
    return got


@tap.test(real=True)
def rest_leds():
    """PUT/POST /leds: applied at the body through the robot API's path; refused (409) while a controller holds it; bad JSON 400, nothing changed"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        time.sleep(0.3 * (1 + LATE))
        default = d.body.leds("chest")  # the daemon's own status (no controller)
        check(default != [1.0, 0.0, 0.2], f"the daemon's chest {default}")
        a = request(d.rest_port, "PUT", "/leds", t,
                    body=b'{"chest": [255, 0, 51], "left_foot": [0, 0, 255]}',
                    headers={"Content-Type": "application/json"})
        check(a.status == 200 and a.json["applied"]
              and sorted(a.json["overridden"]) == ["chest", "left_foot"], f"PUT /leds: {a}")
        got = chest_at_body(d, [1.0, 0.0, 0.2])
        check(got == [1.0, 0.0, 0.2], f"the chest at the body after PUT: {got}")
        check(d.body.leds("l_foot") == [0.0, 0.0, 1.0], "the left foot")
        # The head's LEDs: the simulated body shows them; the real one accepts them and
        # does not drive them (where they are on the head bus is not known): never "shown".
        eye = [[0, 0, 255]] * 8
        a = request(d.rest_port, "PUT", "/leds", t,
                    body=json.dumps({"chest": [255, 0, 51], "left_foot": [0, 0, 255],
                                     "left_eye": eye, "right_ear": [1.0] * 10}).encode())
        not_driven = ["left_eye", "right_ear"] if REAL else []
        check(a.status == 200 and sorted(a.json["not_driven"]) == not_driven
              and ("not shown" in a.json["message"]) == REAL, f"PUT /leds with the head's: {a}")
        robot = request(d.rest_port, "GET", "/robot", t).json
        check(sorted(robot["leds_not_driven"]) == (["left_ear", "left_eye", "right_ear",
                                                    "right_eye", "skull"] if REAL else []),
              f"GET /robot's leds_not_driven: {robot['leds_not_driven']}")
        # Malformed or out of range: 400, and the LEDs stay as they were.
        for bad, what in ((b'{"chest": [256, 0, 0]}', "chest[0]"),
                          (b'{"chest": [1, 2]}', "chest"),
                          (b'{"nose": [1, 2, 3]}', "nose"),
                          (b'{"chest": [1, 2, 3]', "malformed JSON"),
                          (b'[1, 2, 3]', "expected an object"),
                          (b'{"left_eye": [[1, 2, 3]]}', "left_eye")):
            a = request(d.rest_port, "PUT", "/leds", t, body=bad)
            check(a.status == 400 and what in a.json["message"], f"{bad!r}: {a}")
        a = request(d.rest_port, "PUT", "/leds", t, body=b"{" + b" " * 5000 + b"}")
        check(a.status == 413, f"5000 bytes: {a}")
        check(chest_at_body(d, [1.0, 0.0, 0.2], 0.3) == [1.0, 0.0, 0.2],
              "a refused order changed the LEDs")
        # POST is the same; {} hands everything back.
        a = request(d.rest_port, "POST", "/leds", t, body=b"{}")
        check(a.status == 200 and a.json["overridden"] == [], f"POST {{}}: {a}")
        check(chest_at_body(d, default) == default, "{} did not hand the chest back")
        check(d.body.leds("l_foot") == [0.0, 0.0, 0.0], "{} did not hand the foot back")
        # A robot API controller owns the LEDs: 409, nothing changed.
        c = ready(d, "rest-leds")
        c.state(3)
        wait_for(lambda: request(d.rest_port, "GET", "/robot", t).json["controller"]
                 == "robot-api", 3 * (1 + LATE), "the robot API client to control the body")
        a = request(d.rest_port, "PUT", "/leds", t, body=b'{"chest": [0, 0, 255]}')
        check(a.status == 409 and a.json["applied"] is False, f"PUT while controlled: {a}")
        c.heartbeat_for(0.3)
        check(d.body.leds("chest") != [0.0, 0.0, 1.0], "a refused order reached the body")
        check(d.body.leds("chest") != default, "the controller's chest should differ")
        c.close()
        a = request(d.rest_port, "GET", "/leds", t)
        check(a.status == 405 and a.headers.get("Allow") == "PUT, POST", f"GET /leds: {a}")


@tap.test
def rest_volume():
    """/volume without a mixer: 503 with a reason, never a pretended success"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        for method, body in (("GET", None), ("PUT", b'{"percent": 50}')):
            a = request(d.rest_port, method, "/volume", t, body=body)
            check(a.status == 503 and a.json["error"] == "no_audio"
                  and a.json["applied"] is False, f"{method} /volume: {a}")
        a = request(d.rest_port, "PUT", "/volume", t, body=b'{"percent": 101}')
        check(a.status == 400 and a.json["applied"] is False, f"PUT 101: {a}")
        au = request(d.rest_port, "GET", "/robot", t).json["audio"]
        check(not au["speaker"] and not au["mixer"] and au["speaker_device"] is None,
              f"/robot's audio on the simulated body: {au}")
        a = request(d.rest_port, "DELETE", "/volume", t)
        check(a.status == 405 and a.headers.get("Allow") == "GET, PUT", f"DELETE: {a}")


@tap.test(real=True)
def rest_stop_reaches_body():
    """POST /stop: the body gets stiffness 0 (the emulator's frames on naobody.ko) and SSE shows the stop"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        c = awake(d)
        stiff_legs(c, d)  # before the stop: waited for, not sampled in a dip of naobody.ko's
        ev = Sse(d.rest_port, t, "?rate=1")
        ev.expect(lambda k, v: k == "state", what="a first state")
        a = request(d.rest_port, "POST", "/stop", t, body=b'{"who": "rest_body_test"}')
        check(a.status == 200 and a.json["stopped"], f"POST /stop: {a}")
        kind, data = ev.expect(lambda k, v: k == "stop", timeout=3 * (1 + LATE),
                               what="the SSE stop event")
        check(data["stopped"] is True, f"stop event {data}")
        check(d.body.stopped(), "the switch is not latched")
        if REAL:
            # Every joint's stiffness 0 in what the board got, from the emulator.
            wait_for(lambda: max(d.body.last_frame()["stiffness"]) == 0, 2 * (1 + LATE),
                     "stiffness 0 in the emulator's frames")
            note("the emulator's newest frame has every stiffness 0")
        else:
            wait_for(lambda: d.body.legs_stiffness() == 0, 2 + LATE, "the simulated legs limp")
        check("REST 127.0.0.1 rest_body_test" in d.log(), "no log line with who stopped")
        ev.close()
        c.close()


if __name__ == "__main__":
    tap.run()
