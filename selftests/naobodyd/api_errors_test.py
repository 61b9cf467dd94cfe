#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The robot API's Error events (Documentation/robot-api.rst, "Errors"):
every mistake and every refusal reaches the client that made it, as
{"Event": {"Error": {kind, reason, command, field, message, versions,
suppressed}}}, with Debian's python3-msgpack as the client. TAP.

The tests marked real=True also run in the VM (vm_tests.py), where the
real body does not walk (WalkingDisabled) and cannot get up (Fallen)."""

import os
import struct
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import BODY_HANG, REAL, Client, Daemon, Tap, check, frame, wait_for  # noqa: E402

tap = Tap()
KEYS = {"kind", "reason", "command", "field", "message", "versions", "suppressed"}


def ready(d, name="errors"):
    c = Client(d)
    c.hello(name)
    c.send({"Subscribe": {"state": True}})
    return c


def error(c, pred=lambda e: True, timeout=3, what="an Error"):
    """The next Error event that satisfies pred; its fields are all there."""
    e = c.event("Error", timeout, pred)
    check(set(e) == KEYS, f"an Error's fields: {sorted(e)}")
    check(e["versions"] == [1], f"versions {e['versions']}")
    check(isinstance(e["message"], str) and len(e["message"]) > 20, f"message {e!r}")
    return e


def closed_after(c, timeout=3):
    check(c.closed(timeout), "the connection stayed open")


@tap.test
def unknown_field():
    """UnknownField: WalkToward with theta names the field, and the rest applies"""
    with Daemon() as d:
        c = ready(d)
        c.wake()
        c.send({"Motion": {"WalkToward": {"x": 1.0, "y": 0.0, "theta": 0.5}}})
        e = error(c, lambda e: e["kind"] == "UnknownField")
        check(e["field"] == "Motion.WalkToward.theta" and e["command"] == "Motion" and
              e["reason"] is None and "Motion.WalkToward.theta" in e["message"], f"{e}")
        # The rest of the message applied: it walks.
        c.until(lambda s: s["motion"] == "Walk", 5, "walking")
        c.send({"Subscribe": {"state": True, "colour": "red", "size": 3}})
        fields = {error(c, lambda e: e["kind"] == "UnknownField")["field"] for _ in range(2)}
        check(fields == {"Subscribe.colour", "Subscribe.size"}, f"{fields}")


@tap.test(real=True)
def bad_values():
    """BadValue: a wrong type or a value out of range names the field; nothing applies"""
    with Daemon() as d:
        c = ready(d)
        for msg, field, said in [
                ({"Leds": {"chest": [256, 0, 0]}}, "Leds.chest[0]", "256 is out of range 0..255"),
                ({"Motion": {"WalkTo": {"x": "far", "y": 0}}}, "Motion.WalkTo.x",
                 "expected a number"),
                ({"Motion": {"WalkTo": {"x": float("nan"), "y": 0}}}, "Motion.WalkTo.x",
                 "not a finite"),
                ({"Volume": {"percent": 300}}, "Volume.percent", "300 is out of range"),
                ({"Subscribe": {"cameras": ["Left"]}}, "Subscribe.cameras[0]", "Top"),
                ({"Power": "Sleep"}, "Power", "Wake"),
                ({"Motion": "Dance"}, "Motion", 'unknown variant "Dance"'),
                ({"Speaker": {"samples": [1, 2, 40000]}}, "Speaker.samples[2]",
                 "40000 is out of range")]:
            c.send(msg)
            e = error(c, lambda e: e["kind"] == "BadValue", what=str(msg))
            check(e["field"] == field and said in e["message"] and
                  "ignored" in e["message"], f"{msg}: {e}")
            c.send("Heartbeat")
        # Still the controller, and nothing of those applied.
        s = c.state()
        check(s["primary_state"] == "Unstiff", f"{s['primary_state']}")


@tap.test
def unknown_message():
    """UnknownMessage: a variant the robot does not know names itself"""
    with Daemon() as d:
        c = ready(d)
        c.send({"Dance": {"style": "waltz"}})
        e = error(c, lambda e: e["kind"] == "UnknownMessage")
        check(e["command"] == "Dance" and 'unknown variant "Dance"' in e["message"], f"{e}")
        c.send(5)
        e = error(c, lambda e: e["kind"] == "UnknownMessage")
        check(e["command"] is None and "ToRobot" in e["message"], f"{e}")
        c.state()


@tap.test(real=True)
def version_mismatch():
    """Version: Hello with version 2 gets the robot's Hello, an Error with [1], then closes"""
    with Daemon() as d:
        c = Client(d)
        c.send({"Hello": {"version": 2, "client": "future"}})
        h = c.recv()
        check("Hello" in h and h["Hello"]["version"] == 1, f"first {h}")
        e = error(c)
        check(e["kind"] == "Version" and e["command"] == "Hello" and
              e["field"] == "Hello.version" and "version is 2" in e["message"] and
              "speaks version 1" in e["message"], f"{e}")
        closed_after(c)


@tap.test
def before_hello():
    """NotController and Handshake: a command or a bad Hello first is answered, then closed"""
    with Daemon() as d:
        c = Client(d)
        c.send({"Power": "Wake"})
        e = error(c)
        check(e["kind"] == "Refused" and e["reason"] == "NotController" and
              e["command"] == "Power" and "say Hello first" in e["message"], f"{e}")
        closed_after(c)
        for first, field, said in [({"Hello": {"version": "one", "client": "x"}},
                                    "Hello.version", "expected an integer"),
                                   ({"Dance": None}, None, "expected Hello first, got Dance")]:
            c = Client(d)
            c.send(first)
            e = error(c)
            check(e["kind"] == "Handshake" and e["field"] == field and said in e["message"],
                  f"{first}: {e}")
            closed_after(c)
        # A frame too long before Hello: its four bytes are enough to answer.
        c = Client(d)
        c.send_raw(struct.pack(">I", 5000))
        e = error(c)
        check(e["kind"] == "Handshake" and "5000 bytes before Hello" in e["message"], f"{e}")
        closed_after(c)
        check(d.log().count("expected Hello first, got Dance") == 1, "the log line")


@tap.test
def malformed():
    """Malformed: bytes that are not MessagePack get an Error, then the connection closes"""
    with Daemon() as d:
        c = ready(d)
        c.send_raw(struct.pack(">I", 3) + b"\xc1\xc1\xc1")
        e = error(c, lambda e: e["kind"] == "Malformed")
        check("malformed MessagePack" in e["message"] and "closed" in e["message"], f"{e}")
        closed_after(c)


@tap.test
def refused_stopped():
    """Refused Stopped: Wake after Stop says the death switch is latched"""
    with Daemon() as d:
        c = ready(d)
        c.send("Stop")
        wait_for(lambda: d.body.stopped(), 3, "the switch")
        c.send({"Power": "Wake"})
        e = error(c, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "Stopped" and e["command"] == "Power" and
              "naoctl rearm" in e["message"], f"{e}")


@tap.test
def refused_uncalibrated():
    """Refused Uncalibrated: Wake while the body's calibration is not read"""
    with Daemon("--sim-uncalibrated", "60") as d:
        c = ready(d)
        c.send({"Power": "Wake"})
        e = error(c, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "Uncalibrated" and "naoctl status" in e["message"], f"{e}")


@tap.test(real=True)
def refused_low_battery():
    """Refused LowBattery: Wake while the battery is low and not charging"""
    with Daemon() as d:
        d.body.battery(0.04)
        c = ready(d)
        c.until(lambda s: s["battery"]["charge"] < 0.05, BODY_HANG, "the low charge")
        c.send({"Power": "Wake"})
        e = error(c, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "LowBattery" and e["command"] == "Power" and
              "charger" in e["message"], f"{e}")


@tap.test(sim=False, real=True)
def refused_on_the_real_body():
    """Refused WalkingDisabled and Fallen: what the real body cannot do yet"""
    with Daemon() as d:
        c = ready(d)
        c.send({"Motion": {"WalkToward": {"x": 1.0, "y": 0.0}}})
        e = error(c, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "WalkingDisabled" and e["command"] == "Motion" and
              "WalkToward refused" in e["message"], f"{e}")
        # Lying on its back: 1.5 rad of pitch, still (the emulator's counts, 1 mrad).
        d.body.set("angles", 1, -1500)
        c.until(lambda s: s["fall_state"] == "Fallen", 5, "Fallen")
        c.send({"Power": "Wake"})
        e = error(c, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "Fallen" and "set it upright" in e["message"], f"{e}")


@tap.test
def refused_media():
    """Refused: Speaker, SpeakerClear, Volume and the microphones on a body without them"""
    with Daemon() as d:
        c = ready(d)
        for msg, reason, command in [({"Speaker": {"samples": [0] * 160}}, "NoSpeaker", "Speaker"),
                                     ("SpeakerClear", "NoSpeaker", "SpeakerClear"),
                                     ({"Volume": {"percent": 50}}, "NoMixer", "Volume"),
                                     ({"Subscribe": {"state": True, "microphone": True}},
                                      "NoMicrophones", "Subscribe")]:
            c.send(msg)
            e = error(c, lambda e: e["kind"] == "Refused", what=str(msg))
            check(e["reason"] == reason and e["command"] == command, f"{msg}: {e}")
        c.send({"Hello": {"version": 1, "client": "again"}})
        e = error(c, lambda e: e["kind"] == "Refused")
        check(e["reason"] == "HelloAgain", f"{e}")
        c.state()


@tap.test
def error_limit():
    """Errors to a client: at most 50 a second; the next one counts those not sent"""
    with Daemon() as d:
        c = ready(d)
        c.send_raw(b"".join(frame({"Dance": i}) for i in range(500)))
        got = c.heartbeat_for(0.5)
        first = [m["Event"]["Error"] for m in got if "Event" in m and "Error" in m["Event"]]
        check(len(first) == 50 and all(e["suppressed"] == 0 for e in first),
              f"{len(first)} errors in the first burst")
        time.sleep(1.1)
        c.send("Dance")
        e = error(c, lambda e: e["kind"] == "UnknownMessage")
        check(len(first) + e["suppressed"] + 1 == 501, f"{len(first)} + {e['suppressed']} + 1")
        check(d.alive(), "naobodyd died")


@tap.test
def every_message_documented():
    """robot-api.rst names every message, Motion, event, error kind and reason the daemon has"""
    import re
    from nbtest import SRCTREE
    with open(os.path.join(SRCTREE, "Documentation", "robot-api.rst")) as f:
        doc = f.read()
    with open(os.path.join(SRCTREE, "userspace", "naobodyd", "api", "codec.c")) as f:
        codec = f.read()
    names = set(re.findall(r'\{ "([A-Za-z]+)", TR_', codec))          # ToRobot
    names |= set(re.findall(r'is_str\(name, "([A-Za-z]+)"\)', codec))  # Motion, Head
    for kind, reason in re.findall(r'\[AERR_[A-Z_]+\] = \{ "([A-Za-z]+)", (?:NULL|"([A-Za-z]+)")',
                                   codec):
        names |= {kind, reason}  # the Error event's kinds and reasons
    names |= set(re.findall(r'event_begin\(b, &pk, "([A-Za-z]+)"', codec))  # events
    names |= set(re.findall(r'pack_tag\(&pk, "([A-Za-z]+)"\)', codec))     # from the robot
    names.discard("")
    check(len(names) > 35, f"only {len(names)} names found in codec.c: {sorted(names)}")
    missing = sorted(n for n in names if f"``{n}``" not in doc and f'"{n}"' not in doc)
    check(not missing, f"not in robot-api.rst: {missing}")


if __name__ == "__main__":
    if REAL:
        sys.exit("api_errors_test.py: in the VM vm_tests.py runs the real=True tests")
    tap.run()
