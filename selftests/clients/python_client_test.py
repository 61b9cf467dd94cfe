#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The Python client (userspace/python/naobody) against naobodyd --sim:
installed offline with pip into a fresh virtual environment (Debian's
python3-setuptools, no index), its example waking, walking and reading
State; then the library itself: Hello, typed State, events as an
iterator, the robot's errors raised as exceptions, the heartbeat (and
without it, the watchdog), a version mismatch and a robot that goes. TAP."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
SRCTREE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SRCTREE, "selftests", "naobodyd"))
sys.path.insert(0, os.path.join(SRCTREE, "userspace", "python", "naobody"))
import naobody  # noqa: E402
from nbtest import Daemon, Tap, check, wait_for  # noqa: E402

tap = Tap()
PACKAGE = os.path.join(SRCTREE, "userspace", "python", "naobody")
EXAMPLE = os.path.join(SRCTREE, "examples", "python", "wake_walk.py")


@tap.test
def pip_install_and_example():
    """pip installs the client offline; its example wakes, walks and reads State"""
    with tempfile.TemporaryDirectory(prefix="naobody-pip-") as tmp, Daemon() as d:
        # A copy: setuptools writes build/ and *.egg-info beside pyproject.toml.
        src = os.path.join(tmp, "src")
        shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("__pycache__"))
        venv = os.path.join(tmp, "venv")
        r = subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv],
                           capture_output=True, text=True, timeout=120)
        check(r.returncode == 0, f"venv: {r.stderr}")
        py = os.path.join(venv, "bin", "python3")
        r = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                            "--disable-pip-version-check", "-q", src],
                           capture_output=True, text=True, timeout=300)
        check(r.returncode == 0, f"pip install: {r.stdout}\n{r.stderr}")
        r = subprocess.run([py, "-B", "-c", "import naobody, sys; print(naobody.__file__)"],
                           capture_output=True, text=True, cwd=tmp, timeout=60)
        check(r.returncode == 0 and r.stdout.startswith(venv), f"import: {r.stdout}{r.stderr}")
        r = subprocess.run([py, "-B", EXAMPLE, f"127.0.0.1:{d.port}"], capture_output=True,
                           text=True, cwd=tmp, timeout=240)
        check(r.returncode == 0, f"the example: {r.returncode}\n{r.stdout}\n{r.stderr}")
        for line in ("connected: body SIMULATED-BODY-00001, simulated", "standing: knees",
                     "walking", "arrived:", "resting:"):
            check(line in r.stdout, f"'{line}' missing:\n{r.stdout}")
        walked = float(r.stdout.split("arrived: ")[1].split(" m")[0])
        check(0.25 <= walked <= 0.35, f"walked {walked} m for 0.3")
        # The daemon saw it as the robot API's controller, by its name.
        check("(wake_walk) said hello" in d.log(), "the daemon's log")


@tap.test
def typed_state_and_events():
    """Hello's info, a typed State (joints by name), Touch and Temperature events from the iterator"""
    with Daemon() as d, naobody.connect(f"127.0.0.1:{d.port}", name="typed") as robot:
        check(robot.info.simulated and robot.info.body_id == "SIMULATED-BODY-00001" and
              robot.info.version == 1, f"{robot.info}")
        robot.subscribe(state=True, rate=50)
        s = robot.state()
        check(isinstance(s, naobody.State) and len(s.joint_positions) == 26, f"{s}")
        check(s.joint_positions.left_knee_pitch == s.joint_positions[17], "joints by name")
        check(s.fall_state == "Sitting" and s.primary_state == "Unstiff", f"{s.fall_state}")
        check(abs(s.imu.linear_acceleration[2] + 9.81) < 0.5, f"{s.imu}")
        check(s.battery.charge > 0.8 and not s.touch.chest_button, f"{s.battery}")
        t1 = robot.state().time
        check(t1 > s.time, "state() returns the next State")
        d.control("touch head_front 1")
        ev = next(e for e in robot.events(timeout=3) if isinstance(e, naobody.TouchEvent))
        check(ev == naobody.TouchEvent("HeadFront", True), f"{ev}")
        wait_for(lambda: robot.state().touch.head_front, 2, "State's head_front")
        check(list(robot.events(timeout=0.2)) == [], "no other event")
        # naobodyd's own: the odometry and how far off it may be (nothing
        # walked yet); a hot joint, in State and as an event.
        check(s.odometry == (0.0, 0.0, 0.0) and s.odometry_uncertainty == 0.0,
              f"odometry {s.odometry} within {s.odometry_uncertainty}")
        check(s.hot_joints == (), f"hot_joints {s.hot_joints}")
        d.control("temperature LKneePitch 80")
        ev = next(e for e in robot.events(timeout=3) if isinstance(e, naobody.TemperatureEvent))
        check(ev.joint == "left_knee_pitch" and ev.hot and ev.temperature >= 76.0 and
              ev.stiffness == 0.5, f"{ev}")
        wait_for(lambda: robot.state().hot_joints == ("left_knee_pitch",), 10, "hot_joints")


@tap.test
def errors_are_raised():
    """The robot's errors raise: UnknownFieldError, BadValueError, RefusedError (Stopped)"""
    with Daemon() as d, naobody.connect(f"127.0.0.1:{d.port}", name="mistakes") as robot:
        robot.subscribe(state=True)
        robot.send({"Motion": {"WalkToward": {"x": 1.0, "y": 0.0, "theta": 0.3}}})
        try:
            robot.state(timeout=2)
            robot.check(wait=2)
            check(False, "no exception")
        except naobody.UnknownFieldError as e:
            check(e.field == "Motion.WalkToward.theta" and e.command == "Motion" and
                  "ignored" in str(e), f"{e!r} {e.field}")
        robot.send({"Leds": {"chest": [256, 0, 0]}})
        try:
            robot.check(wait=2)
            check(False, "no exception")
        except naobody.BadValueError as e:
            check(e.field == "Leds.chest[0]" and "256" in str(e), f"{e}")
        # The client checks its own values before sending.
        try:
            robot.walk_to(float("nan"), 0)
            check(False, "NaN sent")
        except ValueError as e:
            check("finite" in str(e), f"{e}")
        robot.stop()
        wait_for(lambda: d.body.stopped(), 3, "the switch")
        robot.wake()
        try:
            robot.check(wait=2)
            check(False, "no exception")
        except naobody.RefusedError as e:
            check(e.reason == "Stopped" and e.command == "Power", f"{e.reason} {e}")
    # Without raising: the same error is an event.
    with Daemon() as d, naobody.connect(f"127.0.0.1:{d.port}", raise_errors=False) as robot:
        robot.send("Dance")
        # Other events may come first (the simulated body's start, a fall state).
        seen, ev = [], None
        for ev in robot.events(timeout=3):
            seen.append(ev)
            if isinstance(ev, naobody.ErrorEvent):
                break
        check(isinstance(ev, naobody.ErrorEvent) and ev.kind == "UnknownMessage" and
              ev.command == "Dance", f"{seen}")


@tap.test
def heartbeat():
    """The heartbeat keeps the watchdog quiet; heartbeat=False lets it take over"""
    with Daemon() as d:
        with naobody.connect(f"127.0.0.1:{d.port}") as robot:
            robot.subscribe(state=True)
            robot.state()
            time.sleep(1.5)  # silent, for the user; the thread speaks
            wd = [e for e in robot.events(timeout=0) if isinstance(e, naobody.WatchdogEvent)]
            check(wd == [], f"the watchdog while the heartbeat ran: {wd}")
            check("quiet for 0.5 s" not in d.log(), "the watchdog took over")
        with naobody.connect(f"127.0.0.1:{d.port}", heartbeat=False) as robot:
            robot.subscribe(state=True)
            ev = next(e for e in robot.events(timeout=5) if not isinstance(e, naobody.FallEvent))
            check(ev == naobody.WatchdogEvent(True), f"{ev}")


@tap.test
def version_and_close():
    """A version the robot does not speak raises VersionError; a robot that goes, ConnectionClosed"""
    import naobody.messages
    with Daemon() as d:
        naobody.messages.VERSION = 2
        try:
            naobody.connect(f"127.0.0.1:{d.port}")
            check(False, "connected")
        except naobody.VersionError as e:
            check(e.versions == [1] and "version is 2" in str(e), f"{e} {e.versions}")
        finally:
            naobody.messages.VERSION = 1
        robot = naobody.connect(f"127.0.0.1:{d.port}")
        robot.subscribe(state=True)
        robot.state()
        d.stop()
        try:
            for _ in range(100):
                robot.state(timeout=1)
            check(False, "States after the robot went")
        except naobody.ConnectionClosed as e:
            check("closed" in str(e), f"{e}")
        robot.close()


if __name__ == "__main__":
    tap.run()
