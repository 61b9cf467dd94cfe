#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd runs from a built tree (main.c, from_tree()): the build's own
binary takes the tree's model and status page, a copy of it elsewhere the
installed paths; a normal user's REST token goes to $XDG_STATE_HOME (or
~/.local/state), root's to /var/lib/naobodyd; what cannot start names the
options that fix it. TAP."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nbtest import SRCTREE, Tap, binary, check, free_port, wait_for  # noqa: E402

tap = Tap()
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def helps(exe, env=None, prefix=()):
    r = subprocess.run(list(prefix) + [exe, "--help"], capture_output=True, text=True, env=env, timeout=30)
    check(r.returncode == 0, r.stderr)
    return re.sub(r"\s+", " ", r.stdout)


@tap.test
def the_trees_files():
    """The build's binary defaults to the tree's model and page; a copy, to the installed ones"""
    h = helps(binary("naobodyd"))
    check(f"default {SRCTREE}/userspace/sim/nao6/nao6.xml)" in h, h)
    check(f"default {SRCTREE}/userspace/naobodyd/www)" in h, h)
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "naobodyd")
        shutil.copy(binary("naobodyd"), copy)
        h = helps(copy)
        check(SRCTREE not in h and "/share/naobodyd/www)" in h, h)
        r = subprocess.run([copy, "--sim-physics", "--no-rest", "--no-lola", "--no-guard",
                            "--port", "0"], capture_output=True, text=True, timeout=30)
        check(r.returncode == 1 and "--sim-model FILE gives another" in r.stderr and
              "share/naobodyd/sim/nao6.xml: No such file" in r.stderr, r.stderr)


@tap.test
def a_normal_user():
    """A normal user's --sim serves REST with its token in $XDG_STATE_HOME, the page from the tree"""
    if os.geteuid() != 0:
        check(False, "needs root, to run naobodyd as nobody")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o777)
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        os.chown(home, 65534, 65534)
        env = {"PATH": "/usr/bin:/bin", "HOME": home}
        h = helps(binary("naobodyd"), env, NOBODY)
        check(f"default {home}/.local/state/naobodyd;" in h, h)
        env["XDG_STATE_HOME"] = os.path.join(home, "xdg")
        port = free_port()
        log = open(os.path.join(tmp, "log"), "w+")
        p = subprocess.Popen(NOBODY + [binary("naobodyd"), "--sim", "--bind", "127.0.0.1",
                                       "--port", "0", "--rest-bind", "127.0.0.1",
                                       "--rest-port", str(port), "--no-lola", "--no-guard"],
                             stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            token = os.path.join(home, "xdg", "naobodyd", "rest-token")
            wait_for(lambda: os.path.exists(token) or p.poll() is not None, 10, "the token")
            check(p.poll() is None, f"exited {p.returncode}: " + open(log.name).read())
            st = os.stat(token)
            check(st.st_uid == 65534 and st.st_mode & 0o077 == 0, f"{st}")
            def get():
                try:
                    return urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).read()
                except OSError:
                    return None  # not listening yet
            page = wait_for(get, 10, "the page")
            with open(os.path.join(SRCTREE, "userspace", "naobodyd", "www", "index.html"),
                      "rb") as f:
                check(page == f.read(), "not the tree's index.html")
        finally:
            p.terminate()
            p.wait(10)


@tap.test
def what_cannot_start():
    """A state directory it cannot use names --state-dir, --rest-port and --no-rest"""
    r = subprocess.run([binary("naobodyd"), "--sim", "--bind", "127.0.0.1", "--port", "0",
                        "--rest-port", "0", "--state-dir", "/proc/version/x", "--no-lola",
                        "--no-guard"], capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "--state-dir DIR keeps its token elsewhere" in r.stderr and
          "--no-rest runs without it" in r.stderr, f"{r.returncode}: {r.stderr}")


if __name__ == "__main__":
    tap.run()
