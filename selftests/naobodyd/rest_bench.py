#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The REST API's benchmark (make bench), against the simulated body:

  - GET /state and a static file's requests per second with Debian's wrk
    (2 threads, 32 connections), and their ratio, in one run: the status
    page's GET / when the daemon serves it, otherwise GET /robot, a small
    fixed answer, stands in (and the output says which);
  - 20 SSE clients at the cycle rate: naobodyd's CPU per client;
  - GET /state beside 4 SSE streams that read nothing (their buffers
    full): its median and slowest time, and the states a second a fifth
    stream at rate 20 gets (the tests judge these at a hang's bounds);
  - the body loop's worst gap between two writes and the writes later than
    1.5 periods, idle and while wrk hammers GET /state with the 20 streams
    open (goal: no cycle late because of HTTP).
naobodyd runs with --priority 20, as on the robot. Figures only: it never
fails on them; it exits non-zero only when it cannot measure. Lines
starting with "BENCH" are for scripts."""

import os
import re
import shutil
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from isolation_test import cycle_stats  # noqa: E402
from nbtest import Daemon  # noqa: E402
from resttest import Sse, request, token_of  # noqa: E402

SECONDS = 3


def report(name, value, unit, target, fmt="{:.2f}"):
    print(f"BENCH rest.{name} {fmt.format(value)} {unit} target {target}", flush=True)


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port, path, token, seconds=SECONDS):
    r = subprocess.run(["wrk", "-t2", "-c32", f"-d{seconds}s", "-H",
                        f"Authorization: Bearer {token}", f"http://127.0.0.1:{port}{path}"],
                       capture_output=True, text=True, timeout=seconds + 30)
    m = re.search(r"Requests/sec:\s+([\d.]+)", r.stdout)
    if not m:
        raise RuntimeError(f"wrk: {r.stdout}{r.stderr}")
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", r.stdout)
    return float(m.group(1)), int(bad.group(1)) if bad else 0


class Streams:
    """n SSE clients at the cycle rate, each read in its own thread."""

    def __init__(self, port, token, n):
        self.stop = threading.Event()
        self.states = 0
        self.lock = threading.Lock()
        self.streams = [Sse(port, token, "?rate=83.33", validate=False) for _ in range(n)]
        self.threads = [threading.Thread(target=self._read, args=(s,), daemon=True)
                        for s in self.streams]
        for t in self.threads:
            t.start()

    def _read(self, s):
        while not self.stop.is_set():
            try:
                kind, _ = s.next()
            except (OSError, EOFError):
                return
            if kind == "state":
                with self.lock:
                    self.states += 1

    def close(self):
        self.stop.set()
        for s in self.streams:
            s.close()
        for t in self.threads:
            t.join(5)


def main():
    if not shutil.which("wrk"):
        print("rest_bench: wrk is not installed (apt-get install wrk)")
        return 1
    with Daemon("--priority", "20", rest=True) as d:
        t = token_of(d)
        time.sleep(0.5)
        # The static file: the status page, once the daemon serves one.
        page = request(d.rest_port, "GET", "/", t, check_schema=False)
        static = "/" if page.status == 200 and not page.headers.get(
            "Content-Type", "").startswith("application/json") else "/robot"
        state_rps, bad1 = wrk(d.rest_port, "/state", t)
        static_rps, bad2 = wrk(d.rest_port, static, t)
        print(f"GET /state: {state_rps:.0f} requests/s; GET {static}"
              f"{' (the static page)' if static == '/' else ' (no static file served: a fixed answer stands in)'}"
              f": {static_rps:.0f} requests/s; ratio {state_rps / static_rps:.2f} "
              f"(non-2xx: {bad1 + bad2})")
        report("state_rps", state_rps, "req/s", "-", "{:.0f}")
        report("static_rps" if static == "/" else "robot_rps", static_rps, "req/s", "-",
               "{:.0f}")
        report("state_to_static" if static == "/" else "state_to_robot",
               state_rps / static_rps, "ratio", "-")

        c0 = cpu_seconds(d.proc.pid)
        time.sleep(SECONDS)
        idle_cpu = (cpu_seconds(d.proc.pid) - c0) / SECONDS
        s = Streams(d.rest_port, t, 20)
        time.sleep(0.5)
        c0, n0 = cpu_seconds(d.proc.pid), s.states
        time.sleep(SECONDS)
        sse_cpu = (cpu_seconds(d.proc.pid) - c0) / SECONDS
        got = (s.states - n0) / SECONDS / 20
        per = (sse_cpu - idle_cpu) / 20 * 100
        print(f"20 SSE clients at the cycle rate: {got:.1f} states/s each; naobodyd "
              f"{idle_cpu * 100:.1f} % of a core idle, {sse_cpu * 100:.1f} % with them: "
              f"{per:.2f} % per client")
        report("sse_cpu_per_client", per, "%core", "-")
        report("sse_rate_per_client", got, "states/s", "83.3", "{:.1f}")

        d.control("cycle reset")
        time.sleep(SECONDS)
        idle = cycle_stats(d)
        d.control("cycle reset")
        wrk(d.rest_port, "/state", t)
        load = cycle_stats(d)
        s.close()
        print(f"body loop: worst gap between writes {idle['worst_gap_us'] / 1000:.1f} ms idle | "
              f"{load['worst_gap_us'] / 1000:.1f} ms with wrk on /state and 20 streams; late "
              f"writes {idle['late']} of {idle['writes']} | {load['late']} of {load['writes']} "
              "(target 0)")
        # Beside stalled streams (rest_test's test_slow_sse_client, as figures).
        stalled = [Sse(d.rest_port, t, "?rate=83.33", rcvbuf=4096) for _ in range(4)]
        time.sleep(3)  # their socket buffers fill; their threads wait in send
        fast = Sse(d.rest_port, t, "?rate=20", validate=False)
        gets, n, t0 = [], 0, time.monotonic()
        while time.monotonic() - t0 < SECONDS:
            a = time.monotonic()
            request(d.rest_port, "GET", "/state", t)
            gets.append(time.monotonic() - a)
            n += fast.next()[0] == "state"
        rate = n / (time.monotonic() - t0)
        for x in stalled + [fast]:
            x.close()
        gets.sort()
        print(f"beside 4 stalled SSE streams: GET /state median {gets[len(gets) // 2] * 1000:.1f} "
              f"ms, slowest {gets[-1] * 1000:.1f} ms ({len(gets)} GETs); a stream at rate 20 got "
              f"{rate:.1f} states/s")
        report("state_get_stalled_max", gets[-1] * 1000, "ms", "-", "{:.1f}")
        report("sse_rate20_stalled", rate, "states/s", "20", "{:.1f}")

        report("write_gap_max_idle", idle["worst_gap_us"] / 1000, "ms", "<=18")
        report("write_gap_max_http", load["worst_gap_us"] / 1000, "ms", "<=18")
        report("late_writes_http", load["late"], "writes", "0", "{:d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
