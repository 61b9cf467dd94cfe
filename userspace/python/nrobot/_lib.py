# SPDX-License-Identifier: GPL-2.0-only
"""Loads libnrobot.so.1 (libcm5, libparol6, libnrlink and the framers).

$NROBOT_LIB names the library file (the tests use the build tree's);
otherwise the dynamic linker finds it where make install put it.
"""
import ctypes
import os

LINK_MODES = {"auto": 0, "yes": 1, "ldisc": 1, "no": 2, "raw": 2}


def load():
    path = os.environ.get("NROBOT_LIB", "libnrobot.so.1")
    return ctypes.CDLL(path, use_errno=True)


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
