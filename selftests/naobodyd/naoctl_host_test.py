#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naoctl --host: watch, dump, status and record read naobodyd over its
REST API (libcurl and jansson in naoctl), against naobodyd --sim: the
robot a robot API client wakes and walks shows moving in watch and dump,
dump's joint values are the client's own State's for the same body frame,
status names the controller, record writes a file of States the status
page replays, and a wrong token or no daemon is a clear error. TAP."""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import Client, Daemon, Tap, binary, check, free_port  # noqa: E402
from resttest import token_of  # noqa: E402

tap = Tap()


def naoctl_cmd(d, args, token=None):
    """naoctl ARGS --host at d's REST port: its argv and environment."""
    env = dict(os.environ, NAOBODY_TOKEN=token or token_of(d))
    return [binary("naoctl"), args[0], "--host", f"127.0.0.1:{d.rest_port}", *args[1:]], env


def naoctl(d, *args, token=None, timeout=60):
    argv, env = naoctl_cmd(d, args, token)
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=timeout)


def walking(d):
    c = Client(d)
    c.hello("naoctl_host_test")
    c.send({"Subscribe": {"state": True, "rate": 83.3}})
    c.wake()
    c.send({"Motion": {"WalkToward": {"x": 1.0, "y": 0.0}}})
    c.until(lambda s: s["motion"] == "Walk", 5, "Walk")
    return c


def beside(c, d, *args):
    """Run naoctl ARGS --host while client c keeps talking: a quiet
    controller would be stopped by the 0.5 s watchdog, however long naoctl
    takes. naoctl's result, and the messages c read meanwhile."""
    argv, env = naoctl_cmd(d, args)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    got = []
    hang = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < hang:
        got += c.heartbeat_for(0.2)
    if p.poll() is None:
        p.kill()
    out, err = p.communicate(timeout=30)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), got


@tap.test
def watch_and_dump_see_it_walk():
    """watch --host and dump --host show the walking robot; dump's joints are the client's State's"""
    with Daemon(rest=True) as d:
        c = walking(d)
        r, _ = beside(c, d, "watch", "-n", "2", "-r", "5")
        check(r.returncode == 0, r.stderr)
        check(r.stdout.count("cycle ") == 2 and "Walk" in r.stdout and
              r.stdout.count("left_knee_pitch") == 2, r.stdout[:600])
        res, states = beside(c, d, "dump", "-n", "12", "-r", "20")
        check(res.returncode == 0, f"exit {res.returncode}: {res.stderr}")
        lines = res.stdout.splitlines()
        head = lines[0].split("\t")
        rows = [dict(zip(head, ln.split("\t"))) for ln in lines[1:]]
        check(len(rows) == 12 and all(r["motion"] == "Walk" for r in rows), res.stdout[:400])
        knees = {round(float(r["time"]), 3): float(r["left_knee_pitch.position"]) for r in rows}
        check(len(set(knees.values())) > 3, f"the knee does not move: {knees}")
        api = {round(m["State"]["time"], 3): m["State"]["joint_positions"][17]
               for m in states if "State" in m}
        same = [t for t in knees if t in api]
        check(len(same) >= 3, f"no common body frames: {sorted(knees)[:3]} {sorted(api)[:3]}")
        check(all(abs(knees[t] - api[t]) < 1e-4 for t in same),
              f"dump and State differ: {[(knees[t], api[t]) for t in same]}")


@tap.test
def status_names_the_controller():
    """status --host: the daemon, the body and the robot API client holding it"""
    with Daemon(rest=True) as d:
        c = walking(d)
        r, _ = beside(c, d, "status")
        check(r.returncode == 0, r.stderr)
        peer = "%s:%d" % c.sock.getsockname()[:2]
        check("simulated body" in r.stdout and "SIMULATED-BODY-00001" in r.stdout and
              f"controller    robot-api from {peer}" in r.stdout and "Walk" in r.stdout,
              r.stdout)


@tap.test
def record_writes_states():
    """record --host: a header line, then States and events with the time each came"""
    with Daemon(rest=True) as d, tempfile.TemporaryDirectory() as tmp:
        c = walking(d)
        path = os.path.join(tmp, "walk.jsonl")
        r, _ = beside(c, d, "record", "-n", "20", "-r", "25", path)
        c.close()
        check(r.returncode == 0 and "20 States" in r.stderr, r.stderr)
        with open(path) as f:
            lines = [json.loads(ln) for ln in f]
        check(lines[0]["naobody_recording"] == 1 and
              lines[0]["robot"]["body_id"] == "SIMULATED-BODY-00001", f"{lines[0]}")
        states = [ln for ln in lines[1:] if ln["event"] == "state"]
        check(len(states) == 20 and all(len(s["data"]["joint_positions"]) == 26 for s in states),
              f"{len(states)} states")
        ts = [s["t"] for s in states]
        check(ts == sorted(ts) and 0.4 < ts[-1] - ts[0] < 5, f"times {ts[0]}..{ts[-1]}")
        check(all(s["data"]["motion"] == "Walk" for s in states), "not walking")


@tap.test
def errors_are_clear():
    """A wrong token is refused with the daemon's message; no daemon says what to check"""
    with Daemon(rest=True) as d:
        r = naoctl(d, "status", token="0" * 64)
        check(r.returncode == 1 and "HTTP 401" in r.stderr, r.stderr)
    r = subprocess.run([binary("naoctl"), "watch", "--host", f"127.0.0.1:{free_port()}", "-n",
                        "1"], capture_output=True, text=True,
                       env=dict(os.environ, NAOBODY_TOKEN="0" * 64), timeout=30)
    check(r.returncode == 1 and "is naobodyd running there" in r.stderr, r.stderr)
    r = subprocess.run([binary("naoctl"), "watch", "--host", "x:99999"], capture_output=True,
                       text=True, timeout=30)
    check(r.returncode == 2 and "expected HOST[:PORT]" in r.stderr, r.stderr)


if __name__ == "__main__":
    tap.run()
