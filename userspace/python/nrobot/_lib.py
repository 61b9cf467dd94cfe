# SPDX-License-Identifier: GPL-2.0-only
"""Loads libnrobot.so.1 (libcm5, libparol6, libnrlink and the framers).

By its soname, as any program linked with it would: the dynamic linker
finds it where the libnrobot1 package, or make install (then ldconfig),
put it. $NROBOT_LIB names another file instead (a build tree's).
"""
import ctypes
import os

SONAME = "libnrobot.so.1"
LINK_MODES = {"auto": 0, "yes": 1, "ldisc": 1, "no": 2, "raw": 2}


def load():
    path = os.environ.get("NROBOT_LIB") or SONAME
    try:
        return ctypes.CDLL(path, use_errno=True)
    except OSError as e:
        raise ImportError("nrobot needs %s: install libnrobot1 (or run make install "
                          "and ldconfig), or name the file in $NROBOT_LIB (%s)"
                          % (path, e)) from None


lib = load()


def link_mode(mode):
    """'auto', 'yes' (the line discipline or fail) or 'no' (userspace)."""
    try:
        return LINK_MODES[mode]
    except KeyError:
        raise ValueError("ldisc: auto, yes or no, not %r" % (mode,)) from None


def check(ret, what):
    """Raise OSError for a negative errno return; pass others through."""
    if ret < 0:
        raise OSError(-ret, "%s: %s" % (what, os.strerror(-ret)))
    return ret
