# SPDX-License-Identifier: GPL-2.0-only
"""Python bindings for naobody's serial robots, on the shared C libraries.

    from nrobot import CM5, Parol6

CM5 talks to a Bioloid CM-5 running BRBrain (libcm5), Parol6 to a PAROL6
control board (libparol6); both frame through the n_robot line discipline
when they can attach it, else through the same framers in userspace.
Everything a robot refuses or a link loses raises OSError with the errno
the C library returned.
"""
from .cm5 import CM5
from .parol6 import Parol6

__all__ = ["CM5", "Parol6"]
