#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd against hostile local peers (Documentation/naobodyd.rst, "Peers
and the body loop"): no peer can stall the body loop through the log, flood
the log or naoguard, starve a LoLA client, or lock the socket's slots.

Every check counts (lines, datagrams, packets, bytes) or waits for an event
with a bound only a hang reaches: nothing here depends on the machine's
speed. The timing figures are make bench's (peers_bench.py).
"""

import fcntl
import os
import socket
import struct
import termios
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbtest  # noqa: E402
from api_test import ready  # noqa: E402
from isolation_test import cycle_stats  # noqa: E402
from nbtest import (LOLA_PACKET, WAIT, Client, Daemon, Lola, Tap,  # noqa: E402
                    check, note, wait_for)

tap = Tap()

F_SETPIPE_SZ = 1031


def cycle_writes(d):
    """The simulated body's writes so far (the body loop's cycles)."""
    return cycle_stats(d)["writes"]


@tap.test
def log_reader_stalled():
    """Log: a log reader that reads nothing stalls neither the body loop nor the robot API"""
    # stderr is a pipe of one page that this test does not read.
    r, w = os.pipe()
    fcntl.fcntl(w, F_SETPIPE_SZ, 4096)
    tmp = Daemon(log_fd=w)
    os.close(w)
    proc = tmp.proc
    try:
        writes0 = cycle_writes(tmp)
        # Lines of many kinds, far more than the pipe holds: LoLA clients and
        # robot API clients coming and going, Powers.
        for i in range(60):
            lola = Lola(tmp)
            lola.read()
            lola.send({"Stiffness": [0.0] * 25})
            lola.close()
            c = Client(tmp)
            c.hello(f"flood{i}")
            c.send({"Power": "Rest"})
            c.close()
        # The body loop goes on: hundreds of cycles while nobody reads the log.
        wait_for(lambda: cycle_writes(tmp) >= writes0 + 300, 30,
                 "the body loop's cycles while the log is not read")
        c = ready(tmp)
        c.state()
        c.close()
        note(f"{cycle_writes(tmp) - writes0} cycles while the log was not read")
    finally:
        proc.terminate()
        # Reading again lets it go; it ends with everything queued written.
        # Read to the pipe's end (the daemon gone): its last lines may be
        # in the pipe still when it has exited.
        out = b""
        os.set_blocking(r, False)
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                chunk = os.read(r, 65536)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            if not chunk:
                break
            out += chunk
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(r)
        tmp.__exit__(None, None, None)
    check(b"naobodyd: stopping" in out, "the log's last line")


@tap.test
def rate_limited_lines():
    """Log: lines a peer causes at will are rate-limited per kind, and a later line says how many were not"""
    with Daemon() as d:
        c = ready(d)
        for _ in range(200):
            c.send({"Power": "Rest"})
        # Read in order: once this one's line is out, every Power was handled.
        c.send({"Volume": {"percent": 300}})
        wait_for(lambda: "Volume.percent: 300" in d.log(), WAIT, "the Powers handled")
        for i in range(60):
            other = Client(d)
            other.hello(f"churn{i}")
            other.close()
        c = ready(d, "last")
        c.state()
        log = d.log()
        powers = log.count("): Power Rest")
        hellos = log.count("said hello: it is the controller")
        check(0 < powers <= 20, f"{powers} Power lines for 200 Powers")
        check(0 < hellos <= 20, f"{hellos} Hello lines for 62 Hellos")
        # The window (10 s) ends: the next Power says how many were not logged.
        time.sleep(10.5)
        c.send({"Power": "Rest"})
        wait_for(lambda: "like: api: client %s (%s): Power %s" in d.log(), WAIT,
                 "the suppressed line")
        line = [ln for ln in d.log().splitlines() if "Power %s" in ln][0]
        n = int(line.split("suppressed ")[1].split()[0])
        check(n == 200 - powers, f"{line} ({powers} logged of 200)")


@tap.test
def stop_flood_one_udp_per_cycle():
    """Stop: a flood of Stops latches the body but sends naoguard at most one UDP stop per cycle"""
    guard = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    guard.bind(("127.0.0.1", 0))
    guard.settimeout(0.5)
    with Daemon(guard=guard.getsockname()[1]) as d:
        c = ready(d)
        t0 = time.monotonic()
        c.send_raw(b"".join([b"\x00\x00\x00\x05\xa4Stop"] * 600))
        wait_for(d.body.stopped, WAIT, "the body's stop")
        got = 0
        try:
            while True:
                check(guard.recv(512).startswith(b"NAOBODY STOP"), "not a stop")
                got += 1
        except socket.timeout:
            pass
        elapsed = time.monotonic() - t0
        # At most one per 12 ms period since the first: counted, not timed.
        most = int(elapsed / 0.012) + 1
        check(1 <= got <= most, f"{got} UDP stops for 600 Stops in {elapsed:.2f} s "
              f"(at most {most})")
        note(f"{got} UDP stops for 600 Stops in {elapsed:.2f} s")
    guard.close()


# ---- LoLA's slots --------------------------------------------------------------------

def closed_within(lola, timeout=WAIT):
    return nbtest.closed_within(lola.sock, timeout)


def queued(lola):
    """Bytes waiting in the client's socket, unread."""
    return struct.unpack("i", fcntl.ioctl(lola.sock, termios.FIONREAD, b"\0" * 4))[0]


@tap.test
def lola_new_readers_get_in():
    """LoLA: with every slot taken, a new reader gets in: the reader that read least recently goes, never the controller"""
    with Daemon() as d:
        ctl = Lola(d)
        ctl.read()
        ctl.send({"Stiffness": [0.0] * 25})
        wait_for(lambda: "it is the controller" in d.log(), WAIT, "the controller")
        idle = []
        for _ in range(15):  # every other slot: readers that read nothing
            idle.append(Lola(d))
            idle[-1].read()
        new = []
        for i in range(10):
            new.append(Lola(d))
            new[-1].read()  # it gets in: its packets come
            # The oldest idle readers went first, one per newcomer at least.
            for k in range(i + 1):
                check(closed_within(idle[k]), f"idle reader {k} still open after "
                      f"{i + 1} new readers")
        ctl.send({"Stiffness": [0.0] * 25})
        ctl.read()
        check(not closed_within(ctl, 0.2), "the controller was evicted")
        check("evicted for a new client" in d.log(), "no eviction in the log")


@tap.test
def lola_backlog_two_packets():
    """LoLA: a reader that stops reading has about two packets waiting, fresh ones, not a second's worth"""
    with Daemon() as d:
        r = Lola(d)
        r.read()
        w0 = cycle_writes(d)
        wait_for(lambda: cycle_writes(d) >= w0 + 100, 30, "100 cycles")
        waiting = queued(r)
        check(waiting <= 3 * LOLA_PACKET, f"{waiting} bytes ({waiting / LOLA_PACKET:.1f} "
              "packets) wait for a reader that read nothing for 100 cycles")
        note(f"{waiting / LOLA_PACKET:.1f} packets waiting after 100 cycles")
        # It reads again: whole packets, and it stays.
        for _ in range(10):
            r.read()


@tap.test
def lola_idle_reader_goes():
    """LoLA: a reader that reads nothing for 250 cycles goes; the controller, read or not, stays"""
    with Daemon() as d:
        ctl = Lola(d)
        ctl.read()
        ctl.send({"Stiffness": [0.0] * 25})
        r = Lola(d)
        r.read()
        w0 = cycle_writes(d)
        wait_for(lambda: cycle_writes(d) >= w0 + 300, 30, "300 cycles")
        check(closed_within(r), "an idle reader stayed for 300 cycles")
        check(not closed_within(ctl, 0.2), "the controller went")
        check("read nothing for 250 cycles" in d.log(), "no line")


# ---- privileges ----------------------------------------------------------------------

def task_status(pid):
    """Each thread's /proc status, as {name: {field: value}}."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/status") as f:
            fields = dict(ln.split(":", 1) for ln in f.read().splitlines() if ":" in ln)
        out[f"{fields['Name'].strip()}/{tid}"] = {k: v.split() for k, v in fields.items()}
    return out


@tap.test
def privilege_drop():
    """Privileges: started as root it becomes --user with no capabilities, real time kept; an unknown user is refused"""
    if os.geteuid() != 0:
        note("not root: nothing to drop; only the refusal checked")
    else:
        with Daemon("--user", "nobody", "--priority", "20") as d:
            c = ready(d)
            c.state()
            lola = Lola(d)
            lola.read()
            wait_for(lambda: "now user nobody" in d.log(), WAIT, "the line saying so")
            for name, st in task_status(d.proc.pid).items():
                check(st["Uid"] == ["65534"] * 4 and st["Gid"][0] != "0",
                      f"{name}: Uid {st['Uid']} Gid {st['Gid']}")
                check("0" not in st["Groups"], f"{name}: groups {st['Groups']}")
                for cap in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
                    check(int(st[cap][0], 16) == 0, f"{name}: {cap} {st[cap]}")
                if name == f"naobodyd/{d.proc.pid}":  # the main thread's (it is per thread)
                    check(st["NoNewPrivs"] == ["1"], f"{name}: NoNewPrivs {st['NoNewPrivs']}")
            with open(f"/proc/{d.proc.pid}/limits") as f:
                rt = [ln.split()[3:5] for ln in f if ln.startswith("Max realtime priority")]
            # Raised, or (a container's root without CAP_SYS_RESOURCE) said so.
            check(rt[0][0] in ("20", "unlimited") or "cannot raise RLIMIT_RTPRIO" in d.log(),
                  f"RLIMIT_RTPRIO {rt}")
            policies = []
            for tid in os.listdir(f"/proc/{d.proc.pid}/task"):
                with open(f"/proc/{d.proc.pid}/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{d.proc.pid}/task/{tid}/comm") as f:
                    policies.append((f.read().strip(), int(fields[38])))
            body = [p for n, p in policies if n == "naobodyd-body"]
            check(body == [1] or "cannot get SCHED_FIFO" in d.log(),
                  f"the body thread's policy after the change: {policies}")
            # Still served, the body loop still real-time where it may be.
            c.state()
            lola.read()
            c.close()
    with Daemon("--user", "no-such-user-naobodyd", wait=False) as d:
        wait_for(lambda: d.proc.poll() is not None, 10, "naobodyd to refuse")
        check(d.proc.returncode == 1 and "--user no-such-user-naobodyd" in d.log(),
              f"exit {d.proc.returncode}: {d.log()[-300:]}")


if __name__ == "__main__":
    tap.run()
