#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The REST API against hostile peers on the local network
(Documentation/rest-api.rst, "Who may ask" and "Limits"): nobody locks out a
stop, a page on another site cannot use the robot's name (the Host check),
wrong tokens are limited per source and for all, a peer holds a bounded
share of the connections, and the event stream's rate is checked.

Loopback stands in for the network: 127.0.0.0/8 is all loopback, so each
127.0.0.N is another source. Counts and limits only: no timing.
"""

import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import Daemon, Tap, check, note, wait_for  # noqa: E402
from resttest import Sse, first_state, request, token_of  # noqa: E402

tap = Tap()


def raw(port, text, source="127.0.0.1"):
    """One request as bytes, on its own connection; the status and the body."""
    s = socket.create_connection(("127.0.0.1", port), 5, source_address=(source, 0))
    s.sendall(text.encode())
    got = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except socket.timeout:
        pass
    s.close()
    head, _, body = got.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


@tap.test
def stop_never_locked_out():
    """token-less requests from the operator's address do not lock out its authorised POST /stop"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        # Any web page can make a browser send these (an <img>), any local process too.
        for _ in range(10):
            a = request(d.rest_port, "GET", "/stop", check_schema=False)
            check(a.status in (401, 405, 429), f"without a token: {a}")
            request(d.rest_port, "POST", "/stop", check_schema=False)
        a = request(d.rest_port, "GET", "/robot", "0" * 64)
        check(a.status == 429, f"the limit holds for a wrong token: {a}")
        a = request(d.rest_port, "POST", "/stop", t)
        check(a.status == 200 and a.json["stopped"], f"POST /stop with the token: {a}")
        wait_for(d.body.stopped, 3, "the body's stop")
        check(request(d.rest_port, "GET", "/robot", t).status == 200, "GET with the token")


@tap.test
def host_must_name_the_robot():
    """a Host that does not name the robot (DNS rebinding), or none in HTTP/1.1, is answered 400"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        port = d.rest_port
        name = socket.gethostname()
        good = ["localhost", f"localhost:{port}", "127.0.0.1", f"127.0.0.1:{port}",
                f"127.0.0.5:{port}", f"[::1]:{port}", name, f"{name}:{port}",
                f"{name}.local:{port}", f"{name.upper()}.", "LocalHost"]
        bad = ["evil.example", f"evil.example:{port}", f"{name}.evil.example",
               f"localhost.evil.example:{port}", "192.0.2.1", f"[2001:db8::1]:{port}",
               f"localhost:{port}x", "", "[::1", f"{name}:{port}:1"]
        for host in good:
            status, body = raw(port, f"GET /robot HTTP/1.1\r\nHost: {host}\r\n"
                               f"Authorization: Bearer {t}\r\nConnection: close\r\n\r\n")
            check(status == 200, f"Host {host!r}: {status} {body[:120]!r}")
        for host in bad:
            status, body = raw(port, f"GET /robot HTTP/1.1\r\nHost: {host}\r\n"
                               f"Authorization: Bearer {t}\r\nConnection: close\r\n\r\n")
            check(status == 400 and b"bad_host" in body, f"Host {host!r}: {status} {body[:120]!r}")
        status, body = raw(port, f"GET /robot HTTP/1.1\r\nAuthorization: Bearer {t}\r\n"
                           "Connection: close\r\n\r\n")
        check(status == 400 and b"no Host" in body, f"HTTP/1.1 without Host: {status} {body!r}")
        status, body = raw(port, f"GET /robot HTTP/1.0\r\nAuthorization: Bearer {t}\r\n\r\n")
        check(status == 200, f"HTTP/1.0 without Host: {status} {body[:120]!r}")
        # The status page's files too: a rebound page reads nothing.
        status, _ = raw(port, "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        check(status == 400, f"the status page for another Host: {status}")


@tap.test
def failures_limited_for_all_sources():
    """wrong tokens from many addresses are limited together: at most 30 judged a minute, then 429 for all"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        answers = []
        for n in range(10, 50):  # 40 sources, two wrong tokens each: under each one's limit
            for _ in range(2):
                answers.append(request(d.rest_port, "GET", "/robot", "a" * 64,
                                       source=f"127.0.0.{n}").status)
        judged = answers.count(401)
        check(judged <= 30 and answers.count(429) == len(answers) - judged,
              f"{judged} answered 401 of {len(answers)}: {sorted(set(answers))}")
        a = request(d.rest_port, "GET", "/robot", source="127.0.0.77")
        check(a.status == 429, f"a new source without a token: {a}")
        a = request(d.rest_port, "GET", "/robot", t, source="127.0.0.77")
        check(a.status == 200, f"a new source with the token: {a}")
        note(f"{judged} of {len(answers)} wrong tokens judged")


@tap.test
def connections_per_source():
    """two addresses opening 40 trickling connections each hold 12 each: a third is served"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        # The body's first State (503 no_state before it, on a busy machine
        # seconds after the ports listen): this is about connections.
        first_state(d, t, source="127.0.0.2")
        held = {}
        for src in ("127.0.0.1", "127.0.0.3"):
            held[src] = []
            for _ in range(40):
                try:
                    s = socket.create_connection(("127.0.0.1", d.rest_port), 2,
                                                 source_address=(src, 0))
                    s.sendall(b"GET /state HTTP/1.1\r\nHost: localhost\r\n")
                    held[src].append(s)
                except OSError:
                    pass
        a = request(d.rest_port, "GET", "/state", t, source="127.0.0.2")
        check(a.status == 200, f"a third address: {a}")
        a = request(d.rest_port, "POST", "/stop", t, source="127.0.0.2")
        check(a.status == 200, f"POST /stop from a third address: {a}")

        def open_ones(socks):
            n = 0
            for s in socks:
                s.settimeout(0.05)
                try:
                    n += s.recv(1) != b""
                except socket.timeout:
                    n += 1
                except OSError:
                    pass
            return n
        for src, socks in held.items():
            n = open_ones(socks)
            check(n <= 12, f"{src} holds {n} connections")
            for s in socks:
                s.close()


@tap.test
def sse_rate_range():
    """GET /events: a rate below 0.01 a second (1e-300, 1e-12) is refused, not cast into a wrong period"""
    with Daemon(rest=True) as d:
        t = token_of(d)
        for rate in ("1e-300", "1e-12", "0.009", "0", "-1", "nan", "inf", "1e400"):
            # Its head only: a stream that was let through never ends.
            ev = Sse(d.rest_port, t, f"?rate={rate}", validate=False)
            ev.sock.close()
            check(ev.status == 400, f"rate={rate}: {ev.status}")
        a = request(d.rest_port, "GET", "/events?rate=1e-300", t)
        check(a.json["error"] == "bad_rate", f"rate=1e-300: {a}")
        ev = Sse(d.rest_port, t, "?rate=0.01")
        check(ev.status == 200, f"rate=0.01: {ev.status}")
        ev.sock.close()


if __name__ == "__main__":
    tap.run()
