#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The whole stack on physics, in the VM: naobodyd on naobody.ko on
chestboard-emu --physics (the MuJoCo model of the NAO V6). What the physics
costs per cycle in the guest, and the robot standing when stiff and
collapsing when the death switch latches, checked from the physics (the
emulator's control socket, "physics") and from what naobodyd reports.
physics_vm.sh starts the body and runs this with NBTEST_BODY=real."""

import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_test import ready  # noqa: E402
from nbtest import LATE, REAL, Daemon, EmuBody, Tap, check, note, wait_for  # noqa: E402

tap = Tap()

STATS = "/sys/class/naobody/naobody/statistics"
CYCLE_MS = 12.0
GRAVITY = 9.81
# The torso frame stands 0.333 m above the floor with straight legs (the
# model); the Stand pose bends the knees a little (physics_test.py).
STAND_HEIGHT = (0.26, 0.34)	# m
HOLD_AT = 0.335			# m, where the test holds the torso before Wake


def physics(emu, extra=""):
    """The emulator's "physics" reply: numbers, and lists for a,b,c."""
    out = {}
    for kv in emu.cmd(f"physics {extra}".strip()).split():
        k, v = kv.split("=", 1)
        out[k] = [float(x) for x in v.split(",")] if "," in v else float(v)
    return out


def stats():
    return {n: int(open(os.path.join(STATS, n)).read())
            for n in ("cycles", "answers", "overruns", "timeouts", "skipped")}


def fsr(p):
    return p["fsr_left"] + p["fsr_right"]


def cost(p):
    """What the physics cost: a line for note()."""
    ratio = p["cpu_ms"] / p["model_ms"] if p["model_ms"] else float("inf")
    return (f"{p['cycles']:.0f} steps, {p['model_ms']:.0f} ms of model time in "
            f"{p['clock_ms']:.0f} ms (real-time factor "
            f"{p['model_ms'] / max(1.0, p['clock_ms']):.2f}, {p['lag_ms']:.0f} ms behind); "
            f"CPU {p['cpu_ms']:.0f} ms, {ratio:.2f} of the model's time: "
            f"{ratio * CYCLE_MS:.1f} ms per {CYCLE_MS:.0f} ms cycle (one step at most "
            f"{p['cpu_max_us'] / 1000:.1f} ms CPU, {p['wall_max_us'] / 1000:.1f} ms clock); "
            f"{p['clamped']:.0f} steps cut to 24 ms, {p['superseded']:.0f} frames' targets "
            f"superseded")


def virtio_round_trip(n=200):
    """The median time of a request to the host and back through virtio
    (a 9p readdir of a small host directory): what a physics on the host
    would add per cycle, less the physics itself."""
    d = "/usr/share/doc/python3"
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        os.listdir(d)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[n // 2], times[n * 99 // 100]


def exchange(s0, s1, seconds):
    cycles = s1["cycles"] - s0["cycles"]
    return (f"{cycles} cycles in {seconds:.1f} s, one per "
            f"{1000 * seconds / max(1, cycles):.2f} ms; {s1['answers'] - s0['answers']} answers, "
            f"{s1['overruns'] - s0['overruns']} overruns, {s1['timeouts'] - s0['timeouts']} "
            f"timeouts, {s1['skipped'] - s0['skipped']} skipped")


@tap.test(sim=False, real=True)
def scripted_exchange_beside_naobodyd():
    """the scripted body, for comparison: the driver's exchange while naobodyd stands it"""
    with Daemon() as d:
        c = ready(d, "emu_physics_test")
        c.send({"Power": "Wake"})
        c.until(lambda s: s["motion"] == "Stand" and s["primary_state"] == "Initial",
                10 + 5 * LATE, "standing after Wake")
        s0, t0 = stats(), time.monotonic()
        c.heartbeat_for(4.0)
        s1, t1 = stats(), time.monotonic()
        check(s1["cycles"] > s0["cycles"], "the driver never cycled")
        note(f"scripted body, naobodyd standing: driver {exchange(s0, s1, t1 - t0)}")


@tap.test(sim=False, real=True)
def physics_cost():
    """--physics: the CPU the model takes in the guest, and the driver's exchange beside it"""
    emu = EmuBody.shared().emu
    physics(emu, "reset")
    s0, t0 = stats(), time.monotonic()
    time.sleep(10)
    p, s1, t1 = physics(emu), stats(), time.monotonic()
    cycles = s1["cycles"] - s0["cycles"]
    check(p["cycles"] > 0, "the physics never ran")
    check(cycles > 0, "the driver never cycled")
    note(f"physics, lying limp: {cost(p)}")
    note(f"driver: {cycles} cycles in {t1 - t0:.1f} s, one per {1000 * (t1 - t0) / cycles:.2f} ms; "
         f"{s1['answers'] - s0['answers']} answers, {s1['overruns'] - s0['overruns']} "
         f"overruns, {s1['timeouts'] - s0['timeouts']} timeouts, "
         f"{s1['skipped'] - s0['skipped']} skipped")
    med, p99 = virtio_round_trip()
    note(f"a virtio round trip to the host (9p readdir): median {1000 * med:.2f} ms, "
         f"p99 {1000 * p99:.2f} ms")


@tap.test(sim=False, real=True)
def physics_stands_then_collapses():
    """--physics: held up, Wake stands it on its own feet; Stop latches stiffness 0 and it collapses"""
    body = EmuBody.shared()
    emu = body.emu
    p = physics(emu)
    # Limp since the driver's first frame: on the floor. Lift it by its
    # torso, upright, as a person would before waking a robot.
    lying = p["torso_height"]
    physics(emu, f"hold {HOLD_AT - lying:.4f}")
    wait_for(lambda: physics(emu)["torso_height"] > HOLD_AT - 0.03, 10 + 5 * LATE,
             "the torso to be held up", step=0.1)
    with Daemon() as d:
        c = ready(d, "emu_physics_test")
        c.send({"Power": "Wake"})
        c.until(lambda s: s["motion"] == "Stand" and s["primary_state"] == "Initial",
                10 + 5 * LATE, "standing after Wake")
        c.heartbeat_for(1.0)
        physics(emu, "hold off")
        physics(emu, "reset")
        s0, stood = stats(), time.monotonic()
        heights, seen = [], []
        end = time.monotonic() + 4
        while time.monotonic() < end:
            seen += c.heartbeat_for(0.2)
            heights.append(physics(emu)["torso_height"])
        up, s1, stood = physics(emu), stats(), time.monotonic() - stood
        states = [m["State"] for m in seen if isinstance(m, dict) and "State" in m]
        check(STAND_HEIGHT[0] <= min(heights) and max(heights) <= STAND_HEIGHT[1],
              f"torso {min(heights):.3f}..{max(heights):.3f} m after it was let go, "
              f"not in {STAND_HEIGHT}")
        check(abs(fsr(up) - up["mass"]) < 0.25 * up["mass"],
              f"the feet carry {fsr(up):.2f} kg of {up['mass']:.2f} kg")
        check(abs(up["acc"][2] + GRAVITY) < 1.0, f"accelerometer {up['acc']} standing")
        check(states and states[-1]["fall_state"] == "Upright",
              f"naobodyd: {states[-1]['fall_state'] if states else 'no State'} standing")
        # What naobodyd read through the driver: the physics' feet.
        feet = sum(states[-1]["left_foot_pressure"]) + sum(states[-1]["right_foot_pressure"])
        check(abs(feet - fsr(up)) < 0.3 * up["mass"],
              f"naobodyd's feet {feet:.2f} kg, the physics' {fsr(up):.2f} kg")

        c.send("Stop")
        t0 = time.monotonic()
        wait_for(body.stopped, 2 + LATE, "the death switch at the driver")
        wait_for(lambda: max(body.last_frame()["stiffness"]) == 0, 2 + LATE,
                 "stiffness 0 at the board")
        wait_for(lambda: physics(emu)["torso_height"] < min(heights) - 0.1, 5 + 5 * LATE,
                 "the torso to fall", step=0.05)
        took = time.monotonic() - t0
        time.sleep(1.0)
        down = physics(emu)
        check(fsr(down) < 0.6 * fsr(up) or abs(down["acc"][2] + GRAVITY) > 3.0
              or abs(down["angles"][1]) > 0.5,
              f"collapsed: feet {fsr(down):.2f} kg, accelerometer {down['acc']}, "
              f"angles {down['angles']}")
        note(f"held at {HOLD_AT} m from {lying:.3f} m; standing 4 s: torso "
             f"{min(heights):.4f}..{max(heights):.4f} m, feet {fsr(up):.2f} kg "
             f"(naobodyd {feet:.2f}) of {up['mass']:.2f} kg, accelerometer "
             f"({up['acc'][0]:.2f}, {up['acc'][1]:.2f}, {up['acc'][2]:.2f})")
        note(f"physics, standing: {cost(up)}")
        note(f"physical body, naobodyd standing: driver {exchange(s0, s1, stood)}")
        note(f"Stop: torso below {min(heights) - 0.1:.3f} m after {took:.2f} s; a second "
             f"later {down['torso_height']:.3f} m, feet {fsr(down):.2f} kg, accelerometer "
             f"({down['acc'][0]:.2f}, {down['acc'][1]:.2f}, {down['acc'][2]:.2f}), "
             f"angles ({down['angles'][0]:.2f}, {down['angles'][1]:.2f})")
    body.rearm()


if __name__ == "__main__":
    if not REAL:
        sys.exit("physics_vm_test.py: for NBTEST_BODY=real (physics_vm.sh)")
    tap.run()
