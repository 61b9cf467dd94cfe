#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""A port in use: the robot API and the REST API say it the same way, with
the reason (issue 32: REST said only "cannot listen"). TAP."""

import os
import socket
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import Daemon, Tap, check  # noqa: E402

tap = Tap()


def busy_port():
    """A listening socket on 127.0.0.1 (kept open) and its port."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s, s.getsockname()[1]


def refused(what, *args, rest=False):
    s, port = busy_port()
    with s:
        d = Daemon(*[a.format(port=port) for a in args], rest=rest, wait=False)
        with d:
            d.proc.wait(20)
            log = d.log()
        check(d.proc.returncode == 1, f"exit {d.proc.returncode}:\n{log}")
        want = f"{what}: cannot listen on 127.0.0.1 port {port}: Address already in use"
        check(want in log, f"no {want!r} in:\n{log}")


@tap.test
def test_api_port_in_use():
    """the robot API's port in use: 'api: cannot listen on ... port N: Address already in use'"""
    refused("api", "--port", "{port}")


@tap.test
def test_rest_port_in_use():
    """the REST API's port in use: 'rest: cannot listen on ... port N: Address already in use'"""
    refused("rest", "--rest-bind", "127.0.0.1", "--rest-port", "{port}", rest=True)


if __name__ == "__main__":
    tap.run()
