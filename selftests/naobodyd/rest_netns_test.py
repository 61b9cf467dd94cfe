#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The REST API answers the local network only, proven with two network
namespaces this test makes (nothing else is touched; nothing leaves the
machine): the daemon's, with 10.77.0.1/24 on one end of a veth pair, and a
peer's, with 10.77.0.2/24 and 10.88.0.2/24 on the other. The daemon's side
has a route to 10.88.0.0/24 but no address in it, so 10.88.0.2 can talk to
it but is outside every local subnet. Needs root; skips otherwise. TAP."""

import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from nbtest import SRCTREE, Daemon, Tap, check, note, wait_for  # noqa: E402
from resttest import token_of, validate_response  # noqa: E402

tap = Tap()
NS_D = f"nbrest{os.getpid()}d"
NS_P = f"nbrest{os.getpid()}p"
INSIDE, OUTSIDE, DAEMON = "10.77.0.2", "10.88.0.2", "10.77.0.1"

# The peer's client, run inside its namespace: one request from a source address.
CLIENT = r"""
import http.client, json, sys
src, port, path, token = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
c = http.client.HTTPConnection(sys.argv[5], port, timeout=5, source_address=(src, 0))
c.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
r = c.getresponse()
print(json.dumps({"status": r.status, "body": r.read().decode()}))
"""


def ip(*args, check_rc=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=10)
    if check_rc and r.returncode:
        raise RuntimeError(f"ip {' '.join(args)}: {r.stderr.strip()}")
    return r


def setup():
    ip("netns", "add", NS_D)
    ip("netns", "add", NS_P)
    ip("link", "add", "nbv0", "netns", NS_D, "type", "veth", "peer", "name", "nbv1",
       "netns", NS_P)
    for ns, dev in ((NS_D, "nbv0"), (NS_P, "nbv1")):
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "link", "set", dev, "up")
    ip("-n", NS_D, "addr", "add", f"{DAEMON}/24", "dev", "nbv0")
    ip("-n", NS_P, "addr", "add", f"{INSIDE}/24", "dev", "nbv1")
    ip("-n", NS_P, "addr", "add", f"{OUTSIDE}/24", "dev", "nbv1")
    # A way back to the outsider, but no address of the daemon's in its subnet.
    ip("-n", NS_D, "route", "add", "10.88.0.0/24", "dev", "nbv0")


def teardown():
    for ns in (NS_D, NS_P):
        ip("netns", "del", ns, check_rc=False)


def get(port, src, path, token, ns=NS_P, host=DAEMON):
    r = subprocess.run(["ip", "netns", "exec", ns, "/usr/bin/python3", "-c", CLIENT, src,
                        str(port), path, token or "", host],
                       capture_output=True, text=True, timeout=15)
    check(r.returncode == 0, f"the client from {src}: {r.stderr.strip()[-500:]}")
    a = json.loads(r.stdout)
    body = json.loads(a["body"]) if a["body"] else None
    validate_response(path, "GET", a["status"], body)
    return a["status"], body


def page_status(port, src):
    """GET / (the status page: HTML, no token) from src: the status alone."""
    r = subprocess.run(["ip", "netns", "exec", NS_P, "/usr/bin/python3", "-c", CLIENT, src,
                        str(port), "/", "", DAEMON], capture_output=True, text=True, timeout=15)
    check(r.returncode == 0, f"the client from {src}: {r.stderr.strip()[-500:]}")
    return json.loads(r.stdout)["status"]


def daemon():
    www = os.path.join(SRCTREE, "userspace", "naobodyd", "www")
    d = Daemon("--www", www, rest=True, wait=False, wrapper=["ip", "netns", "exec", NS_D])
    wait_for(lambda: "rest: listening" in d.log() or d.proc.poll() is not None, 10,
             "the REST API in the daemon's namespace")
    check(d.proc.poll() is None, f"naobodyd exited: {d.log()}")
    return d


@tap.test
def test_inside_outside_runtime():
    """inside the subnet: the token decides; outside: 403 even with it (the status page too); an address added at run time counts, removed it stops"""
    with daemon() as d:
        t = token_of(d)
        port = d.rest_port
        st, _ = get(port, INSIDE, "/robot", t)
        check(st == 200, f"from {INSIDE} with the token: {st}")
        st, body = get(port, INSIDE, "/robot", None)
        check(st == 401, f"from {INSIDE} without the token: {st}")
        st, body = get(port, OUTSIDE, "/robot", t)
        check(st == 403 and body["error"] == "not_local", f"from {OUTSIDE} with the token: {st}")
        # Never reaches the token check: wrong tokens from outside are not
        # counted (no 429) and not logged as wrong tokens.
        for _ in range(6):
            st, _ = get(port, OUTSIDE, "/state", "0" * 64)
            check(st == 403, f"from {OUTSIDE}, a wrong token: {st}")
        check(f"{OUTSIDE}: a wrong token" not in d.log(), "an outsider reached the token check")
        check(f"{OUTSIDE} is outside the local network" in d.log(), "no log line for the outsider")
        check(d.log().count("outside the local network") <= 6, "the 403 line is not rate-limited")
        # The status page needs no token, but the same network: 200 inside, 403 outside.
        check(page_status(port, INSIDE) == 200, f"the page from {INSIDE}")
        check(page_status(port, OUTSIDE) == 403, f"the page from {OUTSIDE}")
        # Loopback, inside the daemon's namespace: always allowed.
        st, _ = get(port, "127.0.0.1", "/robot", t, ns=NS_D, host="127.0.0.1")
        check(st == 200, f"loopback: {st}")

        # The host gets an address in 10.88.0.0/24 at run time: honoured.
        ip("-n", NS_D, "addr", "add", "10.88.0.1/24", "dev", "nbv0")
        wait_for(lambda: get(port, OUTSIDE, "/robot", t)[0] == 200, 3,
                 "the new subnet to be honoured", step=0.1)
        check("local network: 10.88.0.1/24" in d.log(), "the new address is not in the log")
        ip("-n", NS_D, "addr", "del", "10.88.0.1/24", "dev", "nbv0")
        wait_for(lambda: get(port, OUTSIDE, "/robot", t)[0] == 403, 3,
                 "the removed subnet to be refused again", step=0.1)
        note("inside 200/401, outside 403, added 200, removed 403")


if __name__ == "__main__":
    if os.geteuid() != 0:
        print("1..0 # SKIP not root: network namespaces need CAP_SYS_ADMIN")
        sys.exit(0)
    try:
        setup()
    except (RuntimeError, OSError) as e:
        teardown()
        print(f"1..0 # SKIP no network namespaces here: {e}")
        sys.exit(0)
    try:
        tap.run()
    finally:
        teardown()
