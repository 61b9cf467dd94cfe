#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's LoLA-compatible socket: packets of exactly 896 bytes with
LoLA's keys, types and orders every cycle; actuator maps with LoLA's keys
and LED orders; the controller rule; the watchdog over a quiet LoLA client.
On the simulated body (the host) and, for those that involve the body, on
naobody.ko with the chest board emulator (the VM)."""

import math
import os
import socket
import struct
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msgpack  # noqa: E402
from api_test import ready  # noqa: E402
from nbtest import (BODY_HANG, LATE, LOLA_PACKET, REAL, WAIT, Client, Daemon, Lola,  # noqa: E402
                    Tap, TestFailure, binary, check, check_not_fallen, lockstep_daemon, note,
                    unpack_first_with_size, wait_for)

tap = Tap()

KEYS = ["RobotConfig", "Accelerometer", "Angles", "Battery", "Current", "FSR", "Gyroscope",
        "Position", "Sonar", "Stiffness", "Temperature", "Touch", "Status"]
LENGTHS = {"RobotConfig": 4, "Accelerometer": 3, "Angles": 2, "Battery": 4, "Current": 25,
           "FSR": 8, "Gyroscope": 3, "Position": 25, "Sonar": 2, "Stiffness": 25,
           "Temperature": 25, "Touch": 14, "Status": 25}
BODY = "P0000073A07S94700012"
HEAD = "P0000074A05S93M00061"
# LoLA's stand-ish pose, its joint order.
STAND = [0, 0, 1.55, 0.15, -1.2, -0.45, 0, 0, 0, -0.42, 0.92, -0.5, 0, 0, -0.42, 0.92, -0.5,
         0, 1.55, -0.15, 1.2, 0.45, 0, 0.2, 0.2]
ARMS_UP = list(STAND)
ARMS_UP[2] = ARMS_UP[18] = -1.5


def walk_raw(p):
    """Walk LoLA's sensor map byte by byte: the type byte of every value."""
    types = {}
    i = 0
    check(p[i] == 0x8d, f"map header {p[0]:#x}")
    i += 1
    for _ in range(13):
        n = p[i] - 0xa0
        check(0 < n < 32, f"key header at {i}")
        k = p[i + 1:i + 1 + n].decode()
        i += 1 + n
        if p[i] == 0xdc:
            count = struct.unpack(">H", p[i + 1:i + 3])[0]
            i += 3
        else:
            check(0x90 <= p[i] <= 0x9f, f"{k}: array header {p[i]:#x}")
            count = p[i] - 0x90
            i += 1
        seen = []
        for _ in range(count):
            b = p[i]
            seen.append(b)
            if b == 0xca:
                i += 5
            elif 0xa0 <= b <= 0xbf:
                i += 1 + (b - 0xa0)
            elif b <= 0x7f:
                i += 1
            else:
                raise TestFailure(f"{k}: unexpected type byte {b:#x}")
        types[k] = seen
    return types, i


@tap.test(real=True)
def packet_layout():
    """LoLA: 896 bytes, 13 keys in LoLA's order, array lengths, RobotConfig"""
    with Daemon("--body-id", BODY, "--head-id", HEAD) as d:
        lola = Lola(d)
        raw = lola.read_raw()
        check(len(raw) == LOLA_PACKET, f"{len(raw)} bytes")
        m, size = unpack_first_with_size(raw)
        # LoLA's strings are 20, 5, 20 and 5 characters, always; naobodyd has
        # no head version on the real body (no head yet): the placeholder.
        config = [BODY, d.body.body_version or "0.0.0", HEAD, d.body.head_version or "0.0.0"]
        check(m["RobotConfig"] == config, f"{m['RobotConfig']}")
        check(size == LOLA_PACKET, f"the map is {size} bytes, not LoLA's 896")
        check(list(m) == KEYS, f"keys {list(m)}")
        for k, n in LENGTHS.items():
            check(len(m[k]) == n, f"{k}: {len(m[k])} values")


@tap.test(real=True)
def packet_types():
    """LoLA: every number a float32, Status positive fixints 0..3, the map 896 bytes with short ids"""
    for body_id, head_id in (("X1", "Y"), ("P0000073A07S94700012", "Y" * 20)):
        with Daemon("--body-id", body_id, "--head-id", head_id) as d:
            raw = Lola(d).read_raw()
            types, end = walk_raw(raw)
            for k in KEYS[1:-1]:
                check(set(types[k]) == {0xca}, f"{k}: types {set(hex(t) for t in types[k])}")
            check(all(t <= 3 for t in types["Status"]), f"Status {types['Status']}")
            # Exactly LoLA's length, no padding: NaoTH and Nao Devils refuse any.
            check(end == LOLA_PACKET, f"the map ends at {end}, not at {LOLA_PACKET}")
            m = unpack_first_with_size(raw)[0]
            check(m["RobotConfig"][0] == (body_id + "-" * 20)[:20] and
                  m["RobotConfig"][2] == (head_id + "-" * 20)[:20], f"{m['RobotConfig']}")


@tap.test
def packet_values():
    """LoLA: units and orders: battery (charge, status, current, temperature), touch, IMU"""
    with Daemon("--sim-battery", "0.8") as d:
        lola = Lola(d)
        lola.send({})
        m = lola.read()
        b = m["Battery"]
        check(abs(b[0] - 0.8) < 0.01, f"charge {b}")
        check(b[1] == float(1 << 3 | 1 << 5), f"status bits {b[1]} (discharge FET, discharging)")
        check(b[2] < 0 and abs(b[3] - 3.0) < 1e-6, f"current, temperature {b}")
        check(abs(m["Accelerometer"][2] + 9.81) < 0.1, f"acc {m['Accelerometer']}")
        check(m["Stiffness"] == [0.0] * 25, "limp at start")
        check(m["Position"][10] > 2.0 and m["Position"][15] > 2.0, "knees (10, 15) folded")
        names = ["chest", "head_front", "head_middle", "head_rear", "l_foot_left",
                 "l_foot_right", "l_hand_back", "l_hand_left", "l_hand_right", "r_foot_left",
                 "r_foot_right", "r_hand_back", "r_hand_left", "r_hand_right"]
        for i, n in enumerate(names):
            want = [1.0 if j == i else 0.0 for j in range(14)]
            d.control(f"touch {n} 1")
            # The control socket and the packets are separate paths: give
            # the change up to a second (83 packets) to show.
            for _ in range(83):
                lola.send({})
                t = lola.read()["Touch"]
                if t == want:
                    break
            check(t == want, f"{n}: {t}")
            d.control(f"touch {n} 0")
        d.control("charger 1")
        for _ in range(3):
            lola.send({})
            b = lola.read()["Battery"]
        check(b[1] == float(struct.unpack("<h", struct.pack("<H", 1 << 2 | 1 << 7 | 1 << 15))[0]),
              f"charging status {b[1]}, the int16 of the register as LoLA sends it")


def drain(lola):
    """The packets already queued for this client, read without waiting
    (the rest of one in flight waited for); how many."""
    got = 0
    lola.sock.settimeout(0)
    try:
        while True:
            chunk = lola.sock.recv(1 << 20)
            if not chunk:
                break
            got += len(chunk)
    except BlockingIOError:
        pass
    lola.sock.settimeout(3)
    if got % LOLA_PACKET:
        lola.sock.recv(LOLA_PACKET - got % LOLA_PACKET, socket.MSG_WAITALL)
    return -(-got // LOLA_PACKET)


def check_every_cycle(n, cycles, who):
    """n packets read between two drains of the socket, the first after the
    simulator's cycles were counted, the second before they were counted
    again: one a cycle, none twice. Fewer only by the cycles between a
    count and its drain."""
    check(0.8 * cycles <= n <= cycles + 1, f"{who}: {n} packets in {cycles} cycles")


@tap.test
def packet_rate():
    """LoLA: team code's loop, read 896 bytes and answer, gets a packet every cycle (83 Hz)"""
    with Daemon() as d:
        lola = Lola(d)
        lola.read()
        before = int(d.sim_status()["cycle"])
        drain(lola)
        for _ in range(166):
            m = lola.read()
            check(list(m) == KEYS, "misaligned packet")
            lola.send({"Sonar": [True, True]})
        n = 166 + drain(lola)
        # In the daemon's own cycles: the Hz are the benchmark's.
        check_every_cycle(n, int(d.sim_status()["cycle"]) - before, "the controller")


def settled_stiffness(lola, m, send, who, cycles=30):
    """The packet m, or the first of up to cycles more (send answering
    each) whose Stiffness is all 1.0. A stall of the whole machine longer
    than the driver's controller_timeout_ms makes it start its ramp until
    naobodyd's next write sets stiffness again: the packets of those
    cycles read lower. A stiffness that is not kept stays low."""
    extra = 0
    while m["Stiffness"] != [1.0] * 25 and extra < cycles:
        m = lola.read()
        lola.send(send)
        extra += 1
    if extra:
        note(f"{who}: the stiffness read 1.0 again {extra} cycle(s) later")
    return m


@tap.test(real=True)
def actuators_drive():
    """LoLA: Position and Stiffness drive the joints; keys left out keep their values"""
    with Daemon() as d:
        lola = Lola(d)
        target = list(STAND)
        target[0] = 0.5
        # Float slots carrying MessagePack integers (STAND's zeros, and the
        # stiffness 1 as msgpack-c >= 4.1.2 writes 1.0): taken as numbers.
        for _ in range(150):
            m = lola.read()
            lola.send({"Position": target, "Stiffness": [1] * 25})
        check(abs(m["Position"][0] - 0.5) < 0.01, f"HeadYaw {m['Position'][0]}")
        check(abs(m["Position"][10] - 0.92) < 0.02, f"LKneePitch {m['Position'][10]}")
        m = settled_stiffness(lola, m, {"Position": target, "Stiffness": [1] * 25}, "commanded")
        check(m["Stiffness"] == [1.0] * 25, f"commanded stiffness {m['Stiffness']}")
        target[0] = -0.3
        for _ in range(60):
            m = lola.read()
            lola.send({"Position": target})
        check(abs(m["Position"][0] + 0.3) < 0.01, f"HeadYaw {m['Position'][0]}")
        m = settled_stiffness(lola, m, {"Position": target}, "left out")
        check(m["Stiffness"] == [1.0] * 25, f"Stiffness not retained: {m['Stiffness']}")
        check_not_fallen(d)
        if REAL:  # what the chest board got: counts, with the joint zeros
            f = d.body.last_frame()
            check(f["stiffness"] == [1000] * 25, f"stiffness at the board {f['stiffness']}")
            for j in range(25):
                want = d.body.zero[j] + (round(target[j] * 1000) if j >= 23 else
                                         round(target[j] * 4096 / (2 * math.pi)))
                check(abs(f["position"][j] - want) <= 1,
                      f"joint {j}: {f['position'][j]} at the board, {want} sent")


@tap.test
def no_stiffness_without_the_calibration():
    """LoLA: Stiffness does not reach a body whose calibration is not read, then does"""
    # In lockstep: the 2 s until the calibration are the body's, which the
    # 60 cycles below cannot outlast however busy the machine is.
    with lockstep_daemon("--sim-uncalibrated", "2") as d:
        lola = Lola(d)
        for _ in range(60):
            lola.read()
            lola.send({"Position": list(STAND), "Stiffness": [1.0] * 25})
        check(d.body.legs_stiffness() == 0, f"legs stiffness {d.body.legs_stiffness()}")
        check("no stiffness (Wake, LoLA) for now" in d.log(), "no reason in the log")

        def stiff():
            lola.read()
            lola.send({"Position": list(STAND), "Stiffness": [1.0] * 25})
            return d.body.legs_stiffness() > 0.9
        wait_for(stiff, BODY_HANG, "the LoLA client's stiffness once calibrated", step=0)


@tap.test(real=True)
def actuators_leds():
    """LoLA: LED keys pass through in LoLA's orders"""
    with Daemon() as d:
        lola = Lola(d)
        # The chest board's LEDs take 8 bits: multiples of 1/255 come back as sent.
        sent = {"Chest": [0.2, 0.4, 0.6], "LEar": [i / 10 for i in range(10)],
                "REar": [1 - i / 10 for i in range(10)],
                "LEye": [i / 24 for i in range(24)], "REye": [1 - i / 24 for i in range(24)],
                "LFoot": [1, 0, 0.6], "RFoot": [0, 1, 0.2],
                "Skull": [i / 12 for i in range(12)]}
        # The client talks on, a cycle at a time, while the body is read: one
        # quiet for 0.5 s (a slow machine reading the body) hands the LEDs
        # back to the daemon's own (the watchdog), which the check would see.
        stop = threading.Event()

        def talk():
            while not stop.is_set():
                lola.read()
                lola.send(dict(sent))
        talker = threading.Thread(target=talk, daemon=True)
        talker.start()
        try:
            for key, group in [("Chest", "chest"), ("LEar", "l_ear"), ("REar", "r_ear"),
                               ("LEye", "l_eye"), ("REye", "r_eye"), ("LFoot", "l_foot"),
                               ("RFoot", "r_foot"), ("Skull", "skull")]:
                if not d.body.has_leds(group):
                    continue  # the head's LEDs: not on the chest board
                got = []

                def as_sent(key=key, group=group, got=got):
                    got[:] = d.body.leds(group)
                    return len(got) == len(sent[key]) and all(
                        abs(a - b) < 1e-3 for a, b in zip(got, sent[key]))
                try:
                    wait_for(as_sent, BODY_HANG, key)
                except TestFailure:
                    raise TestFailure(f"{key}: sent {sent[key]}, body got {got}") from None
        finally:
            stop.set()
            talker.join(BODY_HANG)


@tap.test
def actuators_bad():
    """LoLA: unknown keys and wrong lengths are skipped and logged; malformed input closes"""
    with Daemon() as d:
        lola = Lola(d)
        lola.read()
        lola.send({"Dance": [1], "Position": [1, 2, 3], "Stiffness": [1.0] * 25})
        for _ in range(10):
            m = lola.read()
        check(m["Stiffness"] == [1.0] * 25, "the good key of a map with bad ones")
        wait_for(lambda: "unknown key Dance" in d.log() and
                 "wrong length or type for Position" in d.log(), 1, "log lines")
        lola.sock.sendall(b"\xc1")
        wait_for(lambda: "malformed MessagePack" in d.log(), 1, "log line")
        with_eof = False
        try:
            for _ in range(10):
                lola.read_raw()
        except ConnectionError:
            with_eof = True
        check(with_eof, "still open after malformed input")
        lola = Lola(d)
        lola.sock.sendall(b"\xdf\x00\x01\x11\x70")  # a map claiming 70,000 pairs
        wait_for(lambda: "container longer than the data" in d.log(), 1, "log line")


@tap.test
def controller_rule():
    """LoLA: a LoLA client that drives is the controller like a TCP one: the newest replaces the other"""
    with Daemon() as d:
        a = Lola(d)
        a.read()
        a.send({"Stiffness": [0.0] * 25})
        a.read()
        # The body loop takes it when it reads it: then a Hello comes after.
        wait_for(lambda: "sent an actuator map: it is the controller" in d.log(), WAIT,
                 "the LoLA client to be the controller")
        c = ready(d)
        c.state()
        check(eof(a), "the LoLA client stayed after a TCP client's Hello")
        b = Lola(d)
        b.read()
        check(not c.closed(0.3), "a LoLA reader replaced the TCP client")
        b.send({"Stiffness": [0.0] * 25})
        check(c.closed(1), "the TCP client stayed after a LoLA client drove")
        b2 = Lola(d)
        b2.read()
        b2.send({"Stiffness": [0.0] * 25})
        check(eof(b), "the first LoLA client stayed after a second one drove")
        check("replaced as the controller by a robot API client" in d.log(), "log")
        check("replaced as the controller by a LoLA client" in d.log(), "log")


@tap.test
def readers():
    """LoLA: readers beside the controller get every packet; a slow one delays nobody"""
    with Daemon() as d:
        ctl = Lola(d)
        ctl.read()
        ctl.send({"Stiffness": [0.0] * 25})
        readers = [Lola(d) for _ in range(3)]
        slow = Lola(d)  # never reads
        slow.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        c = Client(d)  # a TCP client that never says Hello takes nothing either
        for r in readers:
            r.read()
        time.sleep(1.0)  # the slow reader's buffers fill
        clients = [ctl] + readers
        d.control("cycle reset")
        before = int(d.sim_status()["cycle"])
        for r in clients:
            drain(r)
        counts = [0] * len(clients)
        for _ in range(166):
            for i, r in enumerate(clients):
                r.read_raw()
                counts[i] += 1
            ctl.send({"Stiffness": [0.0] * 25})
        counts = [n + drain(r) for n, r in zip(counts, clients)]
        cycles = int(d.sim_status()["cycle"]) - before
        # Every reader gets every cycle's packet, the controller too, and the
        # cycle never waited for the one that does not read (it would stop
        # for good): its worst gap is a freeze's at most.
        for i, n in enumerate(counts):
            check_every_cycle(n, cycles, f"client {i}")
        loop = {k: int(v) for k, v in (kv.split("=", 1) for kv in d.control("cycle").split()[1:])}
        # A cycle that waited on the slow one for good would stop the readers
        # (their reads time out) and be a hang here; one that waited a while
        # each time would be late every time. A loaded machine makes a few
        # late (a write 1.5 periods after the last) and stands still for up
        # to 1.6 s (seen beside two busy loops).
        check(loop["worst_gap_us"] < 3e6, f"the body loop stopped for "
              f"{loop['worst_gap_us'] / 1e6:.2f} s")
        check(loop["late"] <= loop["writes"] / 2, f"{loop['late']} of {loop['writes']} "
              "writes to the body late")
        check("reads until it sends an actuator map" in d.log(), "log")
        check(d.log().count("it is the controller") == 1, "a reader became the controller")
        check("disconnected" not in d.log().split("lola: client 1 sent")[-1] or
              "lola: client" not in d.log().split("disconnected")[-1], d.log())
        # A reader's packets are whole and LoLA's: 896 bytes each.
        m, size = unpack_first_with_size(readers[0].read_raw())
        check(size == LOLA_PACKET and list(m) == KEYS, f"{size} bytes, keys {list(m)}")
        c.close()
        slow.close()


def eof(lola):
    """Closed: EOF after what was already queued (up to a few seconds' worth)."""
    try:
        for _ in range(500):
            lola.read_raw()
    except (ConnectionError, socket.timeout):
        return True
    return False


@tap.test(real=True)
def lola_watchdog():
    """LoLA: a quiet LoLA client: stand still after 0.5 s, sit and go limp after 3 s"""
    with Daemon() as d:
        lola = Lola(d)
        for _ in range(129):  # stiffen and stand, arms up
            lola.read()
            lola.send({"Position": ARMS_UP, "Stiffness": [1.0] * 25})
        lola.read()
        # Stamped before the last send: naobodyd heard it after this, so no
        # stage comes sooner than its time after it. Later is the machine's
        # (a hang's bound); the stages' order is what shows them.
        quiet = time.monotonic()
        lola.send({"Position": ARMS_UP, "Stiffness": [1.0] * 25})
        arms_down = limp = None
        while time.monotonic() - quiet < 6.0 + 3 + LATE:
            m = lola.read()
            t = time.monotonic() - quiet
            if arms_down is None and m["Position"][2] > 1.3 and m["Position"][18] > 1.3:
                arms_down = t
                # Standing still at the first stage: before the second.
                check("quiet for 3 s" not in d.log(), f"arms down only at the second stage "
                      f"({t:.2f} s)")
            if limp is None and max(m["Stiffness"]) < 0.01:
                limp = t
                break
        check(arms_down is not None and arms_down >= 0.5, f"arms down at {arms_down}")
        check(limp is not None and limp >= 3.0, f"limp at {limp}")
        check(m["Position"][10] > 1.7, "not sitting")
        check_not_fallen(d)
        wait_for(lambda: d.body.legs_stiffness() == 0, 0.5 + LATE, "the legs' stiffness at 0")
        check(d.body.knees() > 1.6, f"the body's knees at {d.body.knees():.2f} rad")
        check("quiet for 0.5 s" in d.log() and "quiet for 3 s" in d.log(), "log lines")
        # Heard again: its command applies again, as with LoLA.
        for _ in range(100):
            lola.read()
            lola.send({"Position": ARMS_UP, "Stiffness": [1.0] * 25})
        m = lola.read()
        check(m["Stiffness"] == [1.0] * 25 and m["Position"][2] < -1.3, "not driving again")


@tap.test
def stale_socket():
    """LoLA: a socket file left by a dead daemon is replaced; a live one is refused"""
    with Daemon() as d:
        path = d.lola_path
        d.proc.kill()
        d.proc.wait()
        check(os.path.exists(path), "the socket file went with the daemon")
        with Daemon("--lola", path) as d2:
            d2.lola_path = path
            Lola(d2).read()
            check("lola: listening on " + path in d2.log(), "not on the old path")
            r = subprocess.run([binary("naobodyd"), "--sim", "--port", "0", "--no-guard",
                                "--bind", "127.0.0.1", "--lola", path],
                               capture_output=True, text=True, timeout=10)
            check(r.returncode == 1, f"exit {r.returncode}")
            check("something already serves" in r.stderr, r.stderr)


if __name__ == "__main__":
    tap.run()
