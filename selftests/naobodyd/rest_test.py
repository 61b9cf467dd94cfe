#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's REST API (port 7702) against the simulated body: the token
(missing, wrong, right, rotated), the failure limit, every error status,
the converted state, Server-Sent Events, POST /stop. Every answer is
validated against Documentation/rest-api.yaml (resttest.py). TAP."""

import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import BODY_HANG, LATE, WAIT, Client, Daemon, Tap, binary, check, note, wait_for  # noqa: E402
from resttest import Sse, first_state, request, token_of  # noqa: E402

tap = Tap()


@tap.test
def test_token_file():
    """the token: 64 hex digits from the kernel, 0600 in a 0700 directory, kept across restarts"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        check(len(t) == 64 and all(c in "0123456789abcdef" for c in t), f"token {t!r}")
        st = os.stat(os.path.join(d.state_dir, "rest-token"))
        check(stat.S_IMODE(st.st_mode) == 0o600, f"token mode {oct(st.st_mode)}")
        check(stat.S_IMODE(os.stat(d.state_dir).st_mode) == 0o700, "state dir not 0700")
        d.stop()
        d2 = Daemon("--state-dir", d.state_dir, rest=True)
        with d2:
            # The last --state-dir wins: the same directory, the same token.
            check(request(d2.rest_port, "GET", "/robot", t).status == 200,
                  "a restart made a new token")
    with Daemon(rest=True) as d3:
        check(token_of(d3) != t, "two first starts wrote the same token")
        # Missing parents are made too (a fresh /var/lib/naobodyd).
        deep = os.path.join(d3.tmp.name, "a", "b", "naobodyd")
        with Daemon("--state-dir", deep, rest=True) as d4:
            check(os.path.exists(os.path.join(deep, "rest-token")), "no token in a new tree")
            check(stat.S_IMODE(os.stat(deep).st_mode) == 0o700, "the new directory is not 0700")
            with open(os.path.join(deep, "rest-token")) as f:
                t4 = f.read().strip()
            check(request(d4.rest_port, "GET", "/robot", t4).status == 200,
                  "the new tree's token refused")


@tap.test
def test_token_missing_wrong_right():
    """no token and a wrong one get 401 with WWW-Authenticate; the right one 200"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        a = request(d.rest_port, "GET", "/robot")
        check(a.status == 401 and a.json["error"] == "bad_token", f"no token: {a}")
        check("Bearer" in a.headers.get("WWW-Authenticate", ""), "no WWW-Authenticate")
        check("rest-token" in a.json["message"], "the message does not say where the token is")
        wrong = ("0" if t[0] != "0" else "1") + t[1:]
        check(request(d.rest_port, "GET", "/robot", wrong).status == 401, "one digit off passed")
        check(request(d.rest_port, "GET", "/robot", t[:63]).status == 401, "63 digits passed")
        check(request(d.rest_port, "GET", "/robot", t + "0").status == 401, "65 digits passed")
        a = request(d.rest_port, "GET", "/robot", t)
        check(a.status == 200, f"right token: {a}")
        r = a.json
        check(r["simulated"] and r["body"] == "simulated", f"robot {r}")
        check(r["body_id"] == "SIMULATED-BODY-00001", f"body id {r['body_id']}")
        check(abs(r["period_s"] - 0.012) < 1e-9, f"period {r['period_s']}")
        time.sleep(0.3)
        r2 = request(d.rest_port, "GET", "/robot", t).json
        check(r2["uptime_s"] >= r["uptime_s"] + 0.25, "uptime does not move")
        # ?token= is for /events only... and any path: the same check
        a = request(d.rest_port, "GET", f"/state?token={t}")
        check(a.status == 200, f"?token=: {a}")


@tap.test
def test_token_rotation():
    """a new token written over the file is used at once, without a restart; a bad file keeps the old"""
    with Daemon(rest=True) as d:
        old = token_of(d)
        path = os.path.join(d.state_dir, "rest-token")
        new = os.urandom(32).hex()
        with open(path + ".tmp", "w") as f:
            f.write(new + "\n")
        os.chmod(path + ".tmp", 0o600)
        os.rename(path + ".tmp", path)
        check(request(d.rest_port, "GET", "/robot", new).status == 200, "the new token refused")
        check(request(d.rest_port, "GET", "/robot", old).status == 401, "the old token still works")
        # Rewritten in place (same inode): also picked up.
        newer = os.urandom(32).hex()
        with open(path, "w") as f:
            f.write(newer + "\n")
        check(request(d.rest_port, "GET", "/robot", newer).status == 200, "in-place rewrite missed")
        # A file anyone can read is not used: the last good token stays.
        with open(path, "w") as f:
            f.write(os.urandom(32).hex() + "\n")
        os.chmod(path, 0o644)
        check(request(d.rest_port, "GET", "/robot", newer).status == 200,
              "a world-readable token file was adopted")
        wait_for(lambda: "cannot be used" in d.log(), 2, "the log line about the bad file")


@tap.test
def test_failure_rate_limit():
    """five wrong tokens lock that peer out (429, Retry-After); the right token still passes; others are not"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        for i in range(5):
            a = request(d.rest_port, "GET", "/robot", "f" * 64)
            if i < 4:
                check(a.status == 401, f"wrong token {i + 1}: {a}")
        check(a.status == 429, f"the fifth wrong token: {a}")
        a = request(d.rest_port, "GET", "/robot", "e" * 64)
        check(a.status == 429 and a.json["error"] == "too_many_failures", f"locked out: {a}")
        wait = int(a.headers["Retry-After"])
        # The right token is never refused by the limit (nobody can lock out a stop).
        a = request(d.rest_port, "GET", "/robot", t)
        check(a.status == 200, f"the right token while locked out: {a}")
        check(50 <= wait <= 60, f"Retry-After {wait}")
        # Another address (127.0.0.2 is loopback too) is not locked out.
        a = request(d.rest_port, "GET", "/robot", t, source="127.0.0.2")
        check(a.status == 200, f"another peer: {a}")
        check(d.log().count("wrong token") <= 6, "the failures' log lines are not rate-limited")


@tap.test
def test_error_statuses():
    """404, 405 with Allow, 400 for a bad rate: JSON that says what to fix"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        a = request(d.rest_port, "GET", "/nothing", t)
        check(a.status == 404 and "/state" in a.json["message"], f"unknown path: {a}")
        # Before the token: an unknown path is 404 without one too.
        check(request(d.rest_port, "GET", "/nothing").status == 404, "404 needs a token")
        a = request(d.rest_port, "DELETE", "/state", t)
        check(a.status == 405 and a.headers.get("Allow") == "GET", f"DELETE /state: {a}")
        a = request(d.rest_port, "GET", "/stop", t)
        check(a.status == 405 and a.headers.get("Allow") == "POST", f"GET /stop: {a}")
        for rate in ("0", "-1", "x", "84", "1e9"):
            a = request(d.rest_port, "GET", f"/events?rate={rate}", t)
            check(a.status == 400 and "83.33" in a.json["message"], f"rate={rate}: {a}")
        check(not d.body.stopped(), "an error stopped the body")


def median_gap(values):
    """The median of the differences between consecutive values."""
    gaps = sorted(b - a for a, b in zip(values, values[1:]))
    return gaps[len(gaps) // 2]


@tap.test
def test_state_converted():
    """GET /state: SI units, the API's joint order, battery temperature in whole degrees Celsius"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        d.control("temperature HeadPitch 61")
        d.body.touch("head_front", True)
        d.body.sonar(0.5, 1.25)

        def fresh():
            a = request(d.rest_port, "GET", "/state", t)
            s = a.json
            return s if a.status == 200 and s["touch"]["head_front"] and s["sonar"]["left"] == 0.5 else None
        s = wait_for(fresh, 3, "the touch and the sonar in /state")
        # The simulated battery reads 3.0 on LoLA's scale: 30 degrees.
        check(s["battery"]["temperature"] == 30 and isinstance(s["battery"]["temperature"], int),
              f"battery temperature {s['battery']['temperature']!r}, not whole degrees")
        check(abs(s["joint_temperatures"][1] - 61) < 1.5, f"head pitch {s['joint_temperatures'][:3]}")
        check(abs(s["imu"]["linear_acceleration"][2] + 9.81) < 0.2, f"gravity {s['imu']}")
        check(s["sonar"]["right"] == 1.25, f"sonar {s['sonar']}")
        check(not s["stopped"] and s["board_answering"], f"flags {s}")
        check(abs(s["time"] - time.time()) < 2, f"time {s['time']} vs {time.time()}")
        c1 = s["cycle"]
        wait_for(lambda: request(d.rest_port, "GET", "/state", t).json["cycle"] > c1 + 5,
                 WAIT, "the state's cycle to move on")


@tap.test
def test_state_odometry_and_hot_joints():
    """GET /state: the odometry with its uncertainty, as the robot API's State; a hot joint named"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        first_state(d, t)
        s = request(d.rest_port, "GET", "/state", t).json
        check(isinstance(s["odometry"], list) and len(s["odometry"]) == 3
              and s["odometry_uncertainty"] == 0.0 and s["hot_joints"] == [],
              f"before a step and while cool: odometry {s['odometry']!r}, uncertainty "
              f"{s['odometry_uncertainty']!r}, hot {s['hot_joints']!r}")
        d.control("temperature RKneePitch 78")
        wait_for(lambda: request(d.rest_port, "GET", "/state", t).json["hot_joints"]
                 == ["right_knee_pitch"], BODY_HANG, "/state's hot_joints to name the right knee")
        d.control("temperature RKneePitch 68")
        wait_for(lambda: request(d.rest_port, "GET", "/state", t).json["hot_joints"] == [],
                 BODY_HANG, "/state's hot_joints to empty")


@tap.test
def test_stop_latches():
    """POST /stop latches the simulated body's switch; SSE shows stop, then rearm; a bad body still stops"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        ev = Sse(d.rest_port, t, "?rate=1")
        check(ev.status == 200 and ev.headers["Content-Type"] == "text/event-stream",
              f"events: {ev.status} {ev.headers}")
        ev.expect(lambda k, v: k == "state" and not v["stopped"], what="a first state")
        a = request(d.rest_port, "POST", "/stop", t, body=b'{"who": "rest_test"}',
                    headers={"Content-Type": "application/json"})
        check(a.status == 200 and a.json["stopped"] is True, f"stop: {a}")
        check(d.body.stopped(), "the body is not stopped")
        ev.expect(lambda k, v: k == "stop" and v["stopped"], what="the stop event")
        wait_for(lambda: request(d.rest_port, "GET", "/state", t).json["stopped"], 2,
                 "/state to say stopped")
        check("from REST 127.0.0.1 rest_test" in d.log(), "the log does not say who stopped")
        d.body.rearm()
        ev.expect(lambda k, v: k == "rearm" and not v["stopped"], what="the rearm event")
        # Malformed and over-long bodies: 400 and 413, and latched all the same.
        for body, status in ((b'{"who": rest', 400), (b'[1]', 400), (b'{"who": 5}', 400),
                             (b'{"who": "a", "who": "b"}', 400), (b"x" * 5000, 413)):
            d.body.rearm()
            wait_for(lambda: not d.body.stopped(), 2, "rearmed")
            a = request(d.rest_port, "POST", "/stop", t, body=body)
            check(a.status == status and a.json["stopped"] is True, f"{body[:20]!r}: {a}")
            check(d.body.stopped(), f"{body[:20]!r} did not stop")
        ev.close()


@tap.test
def test_stop_needs_token():
    """POST /stop without the token does not stop"""
    with Daemon(rest=True) as d:
        a = request(d.rest_port, "POST", "/stop", "0" * 64)
        check(a.status == 401, f"{a}")
        time.sleep(0.1)
        check(not d.body.stopped(), "stopped without the token")


@tap.test
def test_sse_rate_and_events():
    """SSE: states at the chosen rate (and at the cycle rate), touch events as they happen"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        ev = Sse(d.rest_port, t, "?rate=5")
        # The rate by the daemon's stamps on the states (the frames' times):
        # a stall of this client or a freeze moves a gap, not the median.
        times = []
        while len(times) < 11:
            kind, v = ev.next()
            if kind == "state":
                times.append(v["time"])
        gap = median_gap(times)
        check(0.15 <= gap <= 0.3, f"rate=5: the states {gap:.3f} s apart (the median of 10)")
        d.body.touch("chest", True)
        ev.expect(lambda k, v: k == "touch" and v["sensor"] == "chest_button" and v["pressed"],
                  what="the chest button's press")
        d.body.touch("chest", False)
        ev.expect(lambda k, v: k == "touch" and v["sensor"] == "chest_button" and not v["pressed"],
                  what="its release")
        ev.close()
        # Every cycle's state, by the cycles they carry (read without the
        # schema, validated above, so that this client keeps up).
        full = Sse(d.rest_port, t, "?rate=83.33", validate=False)
        cycles = []
        while len(cycles) < 84:
            kind, v = full.next()
            if kind == "state":
                cycles.append(v["cycle"])
        check(cycles == sorted(set(cycles)), "a state twice or out of order")
        check(median_gap(cycles) == 1, f"rate=83.33: the states {median_gap(cycles)} cycles "
              "apart (the median of 83), not every cycle's")
        full.close()


@tap.test
def test_slow_sse_client():
    """a stream nobody reads slows nothing: others get their rate, /state answers, memory stays put"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        slow = [Sse(d.rest_port, t, "?rate=83.33", rcvbuf=4096) for _ in range(4)]
        time.sleep(3)  # their socket buffers fill; their threads wait in send
        fast = Sse(d.rest_port, t, "?rate=20")
        t0 = time.monotonic()
        n, worst = 0, 0.0
        times = []
        while time.monotonic() - t0 < 2.0:
            a = time.monotonic()
            request(d.rest_port, "GET", "/state", t)
            worst = max(worst, time.monotonic() - a)
            kind, v = fast.next()
            if kind == "state":
                n += 1
                times.append(v["time"])
        note(f"4 stalled streams: 20/s stream got {n} in 2 s, slowest GET /state {worst * 1000:.0f} ms")
        # A GET or a stream held up behind a stalled one waits for good: a
        # hang's bounds, the rate by the daemon's stamps.
        check(worst < 2 + LATE, f"GET /state took {worst:.2f} s")
        gap = median_gap(times)
        check(0.03 <= gap <= 0.075, f"the reading stream's states {gap:.3f} s apart (the median "
              f"of {len(times) - 1}), not 20 a second")
        with open(f"/proc/{d.proc.pid}/status") as f:
            rss = int(next(ln for ln in f if ln.startswith("VmRSS")).split()[1])
        note(f"RSS {rss} kB")
        # The slow ones, read now, get recent states, not a backlog from 3 s ago.
        s = slow[0]
        s.sock.settimeout(5)
        s.validate = False  # the schema is checked above: here, reading as fast as it can
        cur = request(d.rest_port, "GET", "/state", t).json["cycle"]
        last = None
        end = time.monotonic() + 5 + LATE
        while time.monotonic() < end:
            kind, v = s.next()
            if kind == "state":
                last = v["cycle"]
                if last >= cur:
                    break
        check(last is not None and last >= cur, f"the slow stream never caught up ({last} < {cur})")
        for s in slow:
            s.close()
        fast.close()


@tap.test
def test_no_rest():
    """--no-rest: nothing listens"""
    with Daemon(rest=False) as d:
        check("rest: listening" not in d.log(), "the REST API started")


@tap.test
def test_bad_state_dir():
    """an unusable state directory stops the start with a line saying what to fix"""
    bad = "/proc/naobodyd-no-such-dir"
    d = Daemon("--state-dir", bad, rest=True, wait=False)
    with d:
        d.proc.wait(10)
        check(d.proc.returncode == 1, f"exit {d.proc.returncode}")
        check("--state-dir" in d.log(), f"log: {d.log()}")


@tap.test
def test_connection_churn():
    """200 connections churned, some half-sent: the daemon serves on, the robot API too"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        for i in range(200):
            s = socket.create_connection(("127.0.0.1", d.rest_port), 2)
            if i % 2:
                s.sendall(b"GET /state HTTP/1.1\r\nHost: localhost\r\n")  # never finished
            s.close()
        # Each connection's thread goes when it sees the close: at most 32 at
        # once per address (REST_PER_PEER), so give them a moment.

        def serves():
            try:
                return request(d.rest_port, "GET", "/state", t).status == 200
            except OSError:
                return False
        wait_for(serves, 3, "REST after the churn", step=0.1)
        socket.create_connection(("127.0.0.1", d.port), 2).close()
        fds = len(os.listdir(f"/proc/{d.proc.pid}/fd"))
        note(f"{fds} fds after the churn")
        check(fds < 40, f"{fds} fds open")
        # Oversized headers: refused by libmicrohttpd, and it serves on.
        a = request(d.rest_port, "GET", "/state", t, headers={"X-Big": "a" * 40000},
                    check_schema=False)
        check(a.status in (413, 431), f"40 kB of headers: {a.status}")
        check(request(d.rest_port, "GET", "/state", t).status == 200, "REST after big headers")


@tap.test
def test_garbage():
    """garbage, a bad request line, a huge Content-Length: refused or closed, and nothing else is hurt"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        for junk in (os.urandom(3000), b"\x00" * 100 + b"\r\n\r\n", b"GET\r\n\r\n",
                     b"GET /state HTTP/9.9\r\nHost: localhost\r\n\r\n",
                     b"GET /state HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\n",
                     f"POST /stop HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer {'0' * 64}\r\n"
                     "Content-Length: 99999999999999\r\n\r\n".encode(),
                     b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n"):
            s = socket.create_connection(("127.0.0.1", d.rest_port), 3)
            try:
                s.sendall(junk)
                s.settimeout(3)
                reply = s.recv(200)
            except (socket.timeout, OSError) as e:
                reply = repr(e).encode()
            s.close()
            check(not reply.startswith(b"HTTP/1.1 2"), f"{junk[:30]!r} got {reply[:60]!r}")
        check(not d.body.stopped(), "garbage stopped the body")
        check(d.alive(), "the daemon died")
        wait_for(lambda: request(d.rest_port, "GET", "/state", t).status == 200, 3,
                 "REST after the garbage")


@tap.test
def test_naoctl_token():
    """naoctl token prints the token to root and refuses anyone else"""
    with Daemon(rest=True) as d:
        r = subprocess.run([binary("naoctl"), "token", "--state-dir", d.state_dir],
                           capture_output=True, text=True, timeout=10)
        if os.geteuid() == 0:
            check(r.returncode == 0 and r.stdout.strip() == token_of(d),
                  f"as root: {r.returncode} {r.stdout!r} {r.stderr!r}")
            os.chmod(d.tmp.name, 0o755)  # let nobody reach the (0700) state dir's door
            r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                binary("naoctl"), "token", "--state-dir", d.state_dir],
                               capture_output=True, text=True, timeout=10)
            check(r.returncode == 1 and "root only" in r.stderr and not r.stdout,
                  f"as nobody: {r.returncode} {r.stdout!r} {r.stderr!r}")
        else:
            check(r.returncode == 1 and "root only" in r.stderr, f"not root: {r.stderr!r}")
            note("not root: only the refusal checked")
        r = subprocess.run([binary("naoctl"), "token", "--state-dir", "/nonexistent"],
                           capture_output=True, text=True, timeout=10)
        check(r.returncode == 1 and r.stderr, f"a missing token: {r.returncode} {r.stderr!r}")


@tap.test
def test_slowloris():
    """a peer trickling headers holds at most 12 connections, each cut off 5 s on; others and the robot API are served"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        wait_for(lambda: request(d.rest_port, "GET", "/state", t).status == 200, 3,
                 "a first state")
        slow = []
        t0 = time.monotonic()
        for _ in range(40):  # more than one address may hold (12)
            try:
                s = socket.create_connection(("127.0.0.1", d.rest_port), 2)
                s.sendall(b"GET /state HTTP/1.1\r\nHost: localhost\r\n")
                slow.append(s)
            except OSError:
                pass
        a = request(d.rest_port, "GET", "/state", t, source="127.0.0.2")
        check(a.status == 200, f"another address during the attack: {a}")
        c = Client(d)
        c.hello("during-slowloris")
        c.send({"Subscribe": {"state": True}})
        c.state(3)
        c.close()

        def dropped():
            # A byte now and then: the idle timeout would never come, the
            # headers' limit does.
            n = 0
            for s in slow:
                s.settimeout(0.01)
                try:
                    s.sendall(b"X")
                    n += s.recv(1) == b""
                except socket.timeout:
                    pass
                except OSError:
                    n += 1
            return n == len(slow)
        wait_for(dropped, 15 + LATE, "the slow connections to be dropped", step=0.5)
        took = time.monotonic() - t0
        note(f"{len(slow)} slow connections dropped after {took:.1f} s")
        check(took >= 4, f"dropped after {took:.1f} s: before the 5 s limit?")
        for s in slow:
            s.close()
        check(request(d.rest_port, "GET", "/state", t).status == 200, "after the attack")


@tap.test
def test_valgrind():
    """valgrind: no memory error and no leak after every endpoint, SSE streams, errors, a rotation"""
    if not shutil.which("valgrind"):
        raise RuntimeError("valgrind is not installed (make deps)")
    wrapper = ["valgrind", "--quiet", "--leak-check=full", "--show-leak-kinds=definite,indirect",
               "--errors-for-leak-kinds=definite,indirect", "--error-exitcode=99",
               "--track-fds=no"]
    with Daemon(rest=True, wrapper=wrapper, wait=False) as d:
        d.wait_ready(60)
        check("memcheck" in os.readlink(f"/proc/{d.proc.pid}/exe"), "not under valgrind")
        t = token_of(d)
        ev = Sse(d.rest_port, t, "?rate=20", timeout=20)
        idle = Sse(d.rest_port, t, "?rate=1", timeout=20)  # left open at the end
        for path in ("/robot", "/state", "/nothing", "/events?rate=0"):
            request(d.rest_port, "GET", path, t, timeout=20)
        request(d.rest_port, "GET", "/robot", "1" * 64, timeout=20)
        request(d.rest_port, "DELETE", "/robot", t, timeout=20)
        for body in (b"", b'{"who": "vg"}', b"{bad", b"y" * 6000):
            request(d.rest_port, "POST", "/stop", t, body=body, timeout=20)
            d.body.rearm()
        path = os.path.join(d.state_dir, "rest-token")
        with open(path, "w") as f:
            f.write(os.urandom(32).hex() + "\n")
        request(d.rest_port, "GET", "/robot", token_of(d), timeout=20)
        d.body.touch("chest", True)
        ev.expect(lambda k, v: k == "touch", timeout=10, what="a touch under valgrind")
        ev.close()
        d.proc.send_signal(signal.SIGTERM)
        d.proc.wait(60)
        idle.close()
        check(d.proc.returncode == 0, f"exit {d.proc.returncode} under valgrind:\n{d.log()[-3000:]}")


if __name__ == "__main__":
    tap.run()
