# SPDX-License-Identifier: GPL-2.0-only
"""A Bioloid CM-5 running BRBrain, through libcm5 (userspace/include/cm5/cm5.h)."""
import ctypes

from ._lib import check, lib, link_mode

MODELS = {"ax12": 0, "axs1": 1, "other": 2}
PING_CM5 = 255
MAX_DYNAMIXELS = 32
MAX_VALUES = 55 * MAX_DYNAMIXELS


class Reg(ctypes.Structure):
    """struct cm5_reg"""
    _fields_ = [("name", ctypes.c_char_p), ("addr", ctypes.c_uint8),
                ("size", ctypes.c_uint8), ("flags", ctypes.c_uint8),
                ("conv", ctypes.c_uint8), ("min", ctypes.c_int32),
                ("max", ctypes.c_int32), ("scale", ctypes.c_double),
                ("unit", ctypes.c_char_p)]


class FmtEntry(ctypes.Structure):
    """struct cm5_fmt_entry"""
    _fields_ = [("id", ctypes.c_uint8), ("start", ctypes.POINTER(Reg)),
                ("nregs", ctypes.c_uint)]


lib.cm5_size.restype = ctypes.c_size_t
lib.cm5_reg_struct_size.restype = ctypes.c_size_t
lib.cm5_fmt_entry_size.restype = ctypes.c_size_t
lib.cm5_reg_find.restype = ctypes.POINTER(Reg)
lib.cm5_reg_find.argtypes = [ctypes.c_int, ctypes.c_char_p]
lib.cm5_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
lib.cm5_close.argtypes = [ctypes.c_void_p]
lib.cm5_set_timeout.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.cm5_set_model.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_int]
lib.cm5_ping.argtypes = [ctypes.c_void_p, ctypes.c_uint8]
for f in (lib.cm5_set_read_format, lib.cm5_set_write_format):
    f.argtypes = [ctypes.c_void_p, ctypes.POINTER(FmtEntry), ctypes.c_uint]
for f in (lib.cm5_read_natural, lib.cm5_write_natural):
    f.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double),
                  ctypes.c_size_t]
for f in (lib.cm5_read_raw, lib.cm5_write_raw):
    f.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32),
                  ctypes.c_size_t]
lib.cm5_read_missing.restype = ctypes.c_bool
lib.cm5_read_missing.argtypes = [ctypes.c_void_p, ctypes.c_uint]
lib.cm5_adc.restype = ctypes.c_uint8
lib.cm5_adc.argtypes = [ctypes.c_void_p, ctypes.c_int]
lib.cm5_adc_to_volts.restype = ctypes.c_double
lib.cm5_adc_to_volts.argtypes = [ctypes.c_uint8]

if ctypes.sizeof(Reg) != lib.cm5_reg_struct_size() or \
        ctypes.sizeof(FmtEntry) != lib.cm5_fmt_entry_size():
    raise ImportError("nrobot.cm5: struct layouts differ from libnrobot's")


class CM5:
    """One CM-5. Formats are lists of (id, register name, count) tuples.

    The CM-5 answers every request with a status word: status | retries << 8.
    Methods return it (0 is a clean answer); an errno from the library
    (timeout, a format the CM-5 left unknown: ESTALE, ...) raises OSError.
    """

    def __init__(self, device, ldisc="auto", timeout_ms=1000, models=None):
        self._c = ctypes.create_string_buffer(lib.cm5_size())
        check(lib.cm5_open(self._c, device.encode(), link_mode(ldisc)),
              "open " + device)
        lib.cm5_set_timeout(self._c, timeout_ms)
        self._model = {}
        for i, m in (models or {}).items():
            self._model[i] = MODELS[m]
            check(lib.cm5_set_model(self._c, i, MODELS[m]), "set model")
        self._read = []

    def close(self):
        if self._c is not None:
            lib.cm5_close(self._c)
            self._c = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def ping(self, servo=PING_CM5):
        """Ping a Dynamixel (0-253) or the CM-5 itself: the status word."""
        return check(lib.cm5_ping(self._c, servo), "ping")

    def scan(self, first=0, last=253):
        """The ids that answer cleanly (status 0, no retries), as BRBrain."""
        return [i for i in range(first, last + 1) if self.ping(i) == 0]

    def battery_volts(self):
        self.ping()
        return lib.cm5_adc_to_volts(lib.cm5_adc(self._c, 0))

    def _entries(self, fmt):
        entries = (FmtEntry * len(fmt))()
        names = []
        for k, (servo, reg, n) in enumerate(fmt):
            model = self._model.get(servo, 0)
            start = lib.cm5_reg_find(model, reg.encode())
            if not start:
                raise ValueError("no register %r on servo %d" % (reg, servo))
            entries[k] = FmtEntry(servo, start, n)
            for j in range(n):
                names.append((servo, start[j].name.decode()))
        return entries, names

    def set_read_format(self, fmt):
        entries, names = self._entries(fmt)
        st = check(lib.cm5_set_read_format(self._c, entries, len(fmt)),
                   "set read format")
        self._read = names
        return st

    def set_write_format(self, fmt):
        entries, names = self._entries(fmt)
        self._nwrite = len(names)
        return check(lib.cm5_set_write_format(self._c, entries, len(fmt)),
                     "set write format")

    def read(self, raw=False):
        """One READ_DATA: (status word, [(id, name, value or None)]).

        None is a register the firmware could not read (0xFF stuffing).
        """
        kind = ctypes.c_int32 if raw else ctypes.c_double
        values = (kind * MAX_VALUES)()
        fn = lib.cm5_read_raw if raw else lib.cm5_read_natural
        st = check(fn(self._c, values, MAX_VALUES), "read")
        out = []
        for k, (servo, name) in enumerate(self._read):
            v = None if lib.cm5_read_missing(self._c, k) else values[k]
            out.append((servo, name, v))
        return st, out

    def write(self, values, raw=False):
        """One WRITE_DATA of the write format's registers, in order."""
        kind = ctypes.c_int32 if raw else ctypes.c_double
        arr = (kind * len(values))(*values)
        fn = lib.cm5_write_raw if raw else lib.cm5_write_natural
        return check(fn(self._c, arr, len(values)), "write")
