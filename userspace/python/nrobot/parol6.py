# SPDX-License-Identifier: GPL-2.0-only
"""A PAROL6 control board, through libparol6 (userspace/include/parol6/parol6.h).

Every way out of a command loop in libparol6 ends with Idle at zero speed,
and close() sends it too: the firmware has no watchdog.
"""
import ctypes
import time

from ._lib import check, lib, link_mode

JOINTS = 6
IDLE, JOG, GOTO, HOME, ENABLE, DISABLE, CLEAR_ERROR = 255, 123, 156, 100, 101, 102, 103
GRIP_ACTIVATE, GRIP_ACTION = 0x80, 0x40
OBJECT = ("moving", "object while closing", "object while opening",
          "at position")

I6 = ctypes.c_int32 * JOINTS
B6 = ctypes.c_bool * JOINTS


class Cmd(ctypes.Structure):
    """struct parol6_cmd"""
    _fields_ = [("position", I6), ("speed", I6), ("command", ctypes.c_uint8),
                ("affected", ctypes.c_uint8), ("out1", ctypes.c_bool),
                ("out2", ctypes.c_bool), ("timeout", ctypes.c_uint8),
                ("grip_position", ctypes.c_int16),
                ("grip_speed", ctypes.c_int16),
                ("grip_current", ctypes.c_int16),
                ("grip_command", ctypes.c_uint8),
                ("grip_mode", ctypes.c_uint8), ("grip_id", ctypes.c_uint8)]


class Telemetry(ctypes.Structure):
    """struct parol6_telemetry"""
    _fields_ = [("position", I6), ("speed", I6), ("homed", B6),
                ("in1", ctypes.c_bool), ("in2", ctypes.c_bool),
                ("out1", ctypes.c_bool), ("out2", ctypes.c_bool),
                ("estop_pressed", ctypes.c_bool),
                ("temperature_error", B6), ("position_error", B6),
                ("timing_ticks", ctypes.c_uint16),
                ("timing_us", ctypes.c_double),
                ("timeout_error", ctypes.c_uint8),
                ("last_command", ctypes.c_uint8), ("grip_id", ctypes.c_uint8),
                ("grip_position", ctypes.c_int16),
                ("grip_speed", ctypes.c_int16),
                ("grip_current", ctypes.c_int16),
                ("grip_status", ctypes.c_uint8),
                ("grip_activated", ctypes.c_bool),
                ("grip_moving", ctypes.c_bool),
                ("grip_temperature_error", ctypes.c_bool),
                ("grip_timeout_error", ctypes.c_bool),
                ("grip_estop_error", ctypes.c_bool),
                ("grip_calibrated", ctypes.c_bool),
                ("grip_object", ctypes.c_uint8),
                ("object_detection", ctypes.c_uint8)]


for f in ("parol6_size", "parol6_cmd_size", "parol6_telemetry_size"):
    getattr(lib, f).restype = ctypes.c_size_t
lib.parol6_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
lib.parol6_close.argtypes = [ctypes.c_void_p]
lib.parol6_exchange.argtypes = [ctypes.c_void_p, ctypes.POINTER(Cmd),
                                ctypes.c_int]
lib.parol6_idle_cmd.argtypes = [ctypes.c_void_p, ctypes.POINTER(Cmd)]
lib.parol6_last.restype = ctypes.POINTER(Telemetry)
lib.parol6_last.argtypes = [ctypes.c_void_p]
lib.parol6_deg_to_steps.argtypes = [ctypes.c_int, ctypes.c_double,
                                    ctypes.POINTER(ctypes.c_int32)]
lib.parol6_steps_to_deg.restype = ctypes.c_double
lib.parol6_steps_to_deg.argtypes = [ctypes.c_int, ctypes.c_int32]
lib.parol6_move_to.argtypes = [ctypes.c_void_p, I6, ctypes.c_double,
                               ctypes.c_double, ctypes.c_double,
                               ctypes.c_void_p, ctypes.c_int]

if ctypes.sizeof(Cmd) != lib.parol6_cmd_size() or \
        ctypes.sizeof(Telemetry) != lib.parol6_telemetry_size():
    raise ImportError("nrobot.parol6: struct layouts differ from libnrobot's")


class Parol6:
    """One PAROL6 arm. Angles in degrees, as parolctl takes them."""

    CYCLE = 0.01

    def __init__(self, device, ldisc="auto", link_timeout_ms=200):
        self._p = ctypes.create_string_buffer(lib.parol6_size())
        check(lib.parol6_open(self._p, device.encode(), link_mode(ldisc)),
              "open " + device)
        self.link_timeout_ms = link_timeout_ms

    def close(self):
        """Idle at zero speed, then close the link."""
        if self._p is not None:
            lib.parol6_close(self._p)
            self._p = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def idle_cmd(self):
        c = Cmd()
        lib.parol6_idle_cmd(self._p, ctypes.byref(c))
        return c

    def exchange(self, cmd):
        """Send one frame and take the telemetry it answers: Telemetry."""
        check(lib.parol6_exchange(self._p, ctypes.byref(cmd),
                                  self.link_timeout_ms), "exchange")
        return lib.parol6_last(self._p).contents

    def telemetry(self):
        return self.exchange(self.idle_cmd())

    def _cycles(self, cmd, frames):
        t = None
        for _ in range(frames):
            t = self.exchange(cmd)
            time.sleep(self.CYCLE)
        return t

    def command(self, command, frames=3):
        """Enable, disable, clear-error...: a few frames, then Idle."""
        c = self.idle_cmd()
        c.command = command
        self._cycles(c, frames)
        return self._cycles(self.idle_cmd(), 2)

    def enable(self):
        return self.command(ENABLE)

    def disable(self):
        return self.command(DISABLE)

    def joints_deg(self, t=None):
        t = t or self.telemetry()
        return [lib.parol6_steps_to_deg(j, t.position[j]) for j in range(JOINTS)]

    def move(self, degrees, speed=10.0, accel=40.0, timeout=60.0):
        """A joint move on libparol6's trapezoidal profile; blocks until there."""
        target = I6()
        steps = ctypes.c_int32()
        for j, d in enumerate(degrees):
            check(lib.parol6_deg_to_steps(j, float(d), ctypes.byref(steps)),
                  "J%d %.3f deg" % (j + 1, d))
            target[j] = steps.value
        check(lib.parol6_move_to(self._p, target, speed, accel, timeout, None,
                                 self.link_timeout_ms), "move")

    def gripper(self, position, speed=100, current=500, timeout=10.0):
        """Activate and move the gripper; wait for its object detection."""
        c = self.idle_cmd()
        c.grip_command = GRIP_ACTIVATE | GRIP_ACTION
        c.grip_position, c.grip_speed, c.grip_current = position, speed, current
        end = time.monotonic() + timeout
        frames = 0
        while time.monotonic() < end:
            t = self.exchange(c)
            frames += 1
            if frames > 5 and not t.grip_moving and t.grip_object:
                return OBJECT[t.grip_object & 3]
            time.sleep(self.CYCLE)
        raise TimeoutError("gripper did not arrive in %.1f s" % timeout)

    def gripper_mode(self, mode, timeout=10.0):
        """1 calibrate (until the gripper says it is), 2 clear its error.

        The board sends the gripper a calibration, or a clearing, for every
        frame whose mode byte asks: the mode goes out in one frame, as the
        commander sends it, a calibration with the activate bit; the frames
        after it keep the gripper's fields (libparol6's held values)."""
        c = self.idle_cmd()
        if mode == 1:
            c.grip_command |= GRIP_ACTIVATE
        c.grip_mode = mode
        t = self.exchange(c)
        end = time.monotonic() + timeout
        while mode == 1 and not t.grip_calibrated:
            if time.monotonic() > end:
                raise TimeoutError("gripper did not calibrate in %.1f s" % timeout)
            time.sleep(self.CYCLE)
            t = self.exchange(self.idle_cmd())
        return t
