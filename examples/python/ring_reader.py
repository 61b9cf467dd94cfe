#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""ring_reader.py: the state ring of /dev/naobody from Python's standard
library alone (os, mmap, struct, select, ctypes for the ioctl's struct),
following the reader protocol in <linux/naobody.h>: acquire loads of head
and seq, the torn-record check and the lost-record count.

    ring_reader.py [-n COUNT] [DEVICE]

Prints each record from the one after the newest at start-up as one
tab-separated line of counts, the columns of `naoctl dump -c` (without its
header), then "from record FIRST: lost N" on stderr.

Ordering. CPython has no atomic loads. Each struct.unpack_from below is its
own C call, so the interpreter's compiler cannot merge or reorder them; what
is left is the CPU. On x86-64 (the NAO6's Atom) every load is an acquire load
already. fence() makes the order hold on weakly ordered CPUs too: a lock's
release followed by its acquire is a full barrier (arm64's release and
acquire are sequentially consistent with each other; x86's are locked
instructions), and it costs a microsecond, nothing at one record per 12 ms.
"""

import ctypes
import errno
import fcntl
import getopt
import mmap
import os
import select
import struct
import sys
import threading

# <linux/naobody.h>: the values and layouts this reader relies on.
NAOBODY_ABI_VERSION = 1
NAOBODY_RING_MAGIC = 0x4E414F42
NAOBODY_RING_DISCONNECTED = 1 << 0
NAOBODY_JOINTS = 25


class NaobodyInfo(ctypes.Structure):
    """struct naobody_info, for NAOBODY_IOC_GET_INFO."""
    _fields_ = [
        ("abi_version", ctypes.c_uint32),
        ("flags", ctypes.c_uint32),
        ("driver_version", ctypes.c_uint8 * 32),
        ("chest_version", ctypes.c_uint32),
        ("period_ns", ctypes.c_uint32),
        ("record_size", ctypes.c_uint32),
        ("record_count", ctypes.c_uint32),
        ("ring_size", ctypes.c_uint64),
        ("boards", ctypes.c_uint32),
        ("stop_reason", ctypes.c_uint32),
        ("reserved", ctypes.c_uint64 * 4),
    ]


def _ior(magic, nr, size):
    """_IOR() of <asm-generic/ioctl.h>: read direction 2, 14 bits of size."""
    return (2 << 30) | (size << 16) | (magic << 8) | nr


NAOBODY_IOC_GET_INFO = _ior(0xB9, 0x00, ctypes.sizeof(NaobodyInfo))

# struct naobody_ring_header: the fields at their offsets.
HDR = struct.Struct("=6I")            # magic .. records_offset, offset 0
HEAD = struct.Struct("=Q")            # head, offset 24
HDR_HEAD_OFF = 24
HDR_FLAGS = struct.Struct("=I")       # flags, offset 36
HDR_FLAGS_OFF = 36

# struct naobody_record up to the end of its sensors (the actuators follow).
SEQ = struct.Struct("=Q")
RECORD = struct.Struct(
    "=Q QQQ II Q"                     # seq, cycle, out_submit_ns, in_complete_ns, flags, errors, boards_up
    "3i 3i 2i 4i 8i 2i II"            # accelerometer .. sonar, touch, updated
    "25i 25i 25i 25B 11x")            # joint position, current, temperature, status
RECORD_SIZE = 640                     # sizeof(struct naobody_record)
assert RECORD.size == 48 + 432

_barrier = threading.Lock()
_barrier.acquire()


def fence():
    """A full memory barrier (see the module's docstring)."""
    _barrier.release()
    _barrier.acquire()


def row(v):
    """The line `naoctl dump -c` prints for the unpacked record v."""
    j = NAOBODY_JOINTS
    cols = [str(v[0]), str(v[1]), str(v[2]), str(v[3]), hex(v[4]), hex(v[5]), hex(v[6])]
    cols += [str(x) for x in v[7:7 + 22]]           # accelerometer .. sonar
    cols += [hex(v[29]), hex(v[30])]                 # touch, updated
    cols += [str(x) for x in v[31:31 + 4 * j]]       # the joints' four arrays
    return "\t".join(cols)


def wait_record(fd, poller):
    """Sleep until the ring has a record this file hasn't read()."""
    events = poller.poll(2000)
    if not events:
        raise TimeoutError("no record in 2 s")
    if events[0][1] & (select.POLLHUP | select.POLLERR):
        raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
    try:
        os.read(fd, RECORD_SIZE)    # poll() stays ready until a read()
    except BlockingIOError:
        pass


def main(argv):
    try:
        opts, args = getopt.getopt(argv[1:], "n:h")
    except getopt.GetoptError as e:
        print(f"{argv[0]}: {e}", file=sys.stderr)
        return 2
    want = -1
    for o, a in opts:
        if o == "-h":
            print(__doc__)
            return 0
        if not a.isdigit() or int(a) <= 0:
            print(f"{argv[0]}: count '{a}' is not a positive number", file=sys.stderr)
            return 2
        want = int(a)
    path = args[0] if args else "/dev/naobody"

    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    info = NaobodyInfo()
    fcntl.ioctl(fd, NAOBODY_IOC_GET_INFO, info)
    if info.abi_version != NAOBODY_ABI_VERSION or info.record_size < RECORD_SIZE:
        print(f"{argv[0]}: ABI {info.abi_version}, records of {info.record_size} bytes: "
              "not what this was written for", file=sys.stderr)
        return 1
    ring = mmap.mmap(fd, info.ring_size, mmap.MAP_SHARED, mmap.PROT_READ)
    magic, _, _, rec_size, count, rec_off = HDR.unpack_from(ring, 0)
    if magic != NAOBODY_RING_MAGIC or count == 0 or count & (count - 1):
        print(f"{argv[0]}: the mapping is not a naobody ring", file=sys.stderr)
        return 1
    poller = select.poll()
    poller.register(fd, select.POLLIN)

    def load_head():
        h = HEAD.unpack_from(ring, HDR_HEAD_OFF)[0]
        fence()                     # acquire: nothing later passes this load
        return h

    lost = 0
    first = cursor = load_head()
    out = sys.stdout
    while want:
        head = load_head()
        if cursor >= head:
            if HDR_FLAGS.unpack_from(ring, HDR_FLAGS_OFF)[0] & NAOBODY_RING_DISCONNECTED:
                break
            wait_record(fd, poller)
            continue
        if head - cursor > count:
            # The writer lapped us: skip to the oldest record left.
            lost += head - cursor - count
            cursor = head - count
        n = cursor
        cursor += 1
        off = rec_off + (n & (count - 1)) * rec_size
        seq = SEQ.unpack_from(ring, off)[0]
        fence()                     # acquire: the payload is read after seq
        if seq != 2 * n + 2:
            lost += 1               # being overwritten, or already was
            continue
        v = RECORD.unpack_from(ring, off)
        fence()                     # the copy is done before seq is read again
        if SEQ.unpack_from(ring, off)[0] != seq:
            lost += 1               # torn: the writer came by while we copied
            continue
        out.write(row(v) + "\n")
        if want > 0:
            want -= 1
    out.flush()
    print(f"from record {first}: lost {lost}", file=sys.stderr)
    ring.close()
    os.close(fd)
    return 1 if want > 0 else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (OSError, TimeoutError) as e:
        sys.exit(f"{sys.argv[0]}: {e}")
