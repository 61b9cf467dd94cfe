#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The whole stack on physics, in the VM: naobodyd on naobody.ko on
chestboard-emu --physics (the MuJoCo model of the NAO V6). What the physics
costs per cycle in the guest, and the robot standing when stiff and
collapsing when the death switch latches, checked from the physics (the
emulator's control socket, "physics") and from what naobodyd reports.
physics_vm.sh starts the body and runs this with NBTEST_BODY=real; the
host_ tests are physics_host_vm.sh's, on the model run on the host
(chestboard-emu --physics-host, nb-physics-server). With --bench (make
bench) the measuring tests that only make bench runs are there too."""

import os
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from api_test import ready  # noqa: E402
from nbtest import LATE, REAL, Daemon, EmuBody, Tap, check, note, wait_for  # noqa: E402

tap = Tap()
# make bench's measuring tests: figures, which make check does not compare.
BENCH = "--bench" in sys.argv[1:]

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
        c.wake()
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
def physics_lies_limp():
    """--physics: the model in the guest is the body: limp, it lies on the floor, and steps on"""
    emu = EmuBody.shared().emu
    check("host" not in physics(emu), "the emulator's physics is the host's, not the guest's")
    # Limp since the driver's first frame: on the floor within a second or two.
    wait_for(lambda: physics(emu)["torso_height"] < 0.2, 5 + 5 * LATE,
             "the limp robot to lie on the floor", step=0.1)
    steps = physics(emu)["cycles"]
    wait_for(lambda: physics(emu)["cycles"] > steps + 10, 5 + 5 * LATE,
             "the model to take 10 steps more", step=0.1)
    p = physics(emu)
    note(f"lying at {p['torso_height']:.3f} m; {cost(p)}")


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
        c.wake()
        c.heartbeat_for(1.0)
        physics(emu, "hold off")
        physics(emu, "reset")
        s0, stood, first = stats(), time.monotonic(), emu.frame_count()
        heights, seen = [], []
        end = time.monotonic() + 4
        while time.monotonic() < end:
            seen += c.heartbeat_for(0.2)
            heights.append(physics(emu)["torso_height"])
        up, s1, stood = physics(emu), stats(), time.monotonic() - stood
        states = [m["State"] for m in seen if isinstance(m, dict) and "State" in m]
        # What the board was told meanwhile: the legs' stiffness, 0..1.
        legs = [sum(f["stiffness"][j] for j in body.LEGS) / len(body.LEGS) / 1000
                for f in emu.frames(first) if f["targets"] & body.all_boards() == body.all_boards()]
        told = (f"the legs' stiffness in {len(legs)} frames meanwhile "
                f"{min(legs, default=0):.2f}..{max(legs, default=0):.2f}")
        check(STAND_HEIGHT[0] <= min(heights) and max(heights) <= STAND_HEIGHT[1],
              f"torso {min(heights):.3f}..{max(heights):.3f} m after it was let go, "
              f"not in {STAND_HEIGHT}; {told}; driver {exchange(s0, s1, stood)}")
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
        note(f"physics, standing: {cost(up)}; {told}")
        note(f"physical body, naobodyd standing: driver {exchange(s0, s1, stood)}")
        note(f"Stop: torso below {min(heights) - 0.1:.3f} m after {took:.2f} s; a second "
             f"later {down['torso_height']:.3f} m, feet {fsr(down):.2f} kg, accelerometer "
             f"({down['acc'][0]:.2f}, {down['acc'][1]:.2f}, {down['acc'][2]:.2f}), "
             f"angles ({down['angles'][0]:.2f}, {down['angles'][1]:.2f})")
    body.rearm()


def emu_cpu_s():
    """The emulator's CPU, all its threads (s): what the guest spends on the
    body, the physics thread's included when it has one."""
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and open(f"/proc/{pid}/comm").read().strip() == "chestboard-emu":
                f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            continue
    raise AssertionError("no chestboard-emu process")


def stream_whole(emu, when):
    """Nothing of the stream to the host and back lost or garbled (since
    the emulator started, or the last "physics reset")."""
    p = physics(emu)
    check(p["malformed"] == 0 and p["lost"] == 0,
          f"the host's physics {when}: {p['malformed']:.0f} malformed, {p['lost']:.0f} lost")


def wait_connected(emu):
    wait_for(lambda: physics(emu).get("connected") == 1, 10 + 5 * LATE,
             "the host's physics to answer", step=0.1)


@tap.test(sim=False, real=True)
def host_lies_held_pushed():
    """--physics-host: the host's model is the body: limp it lies, hold lifts it, a push moves it"""
    emu = EmuBody.shared().emu
    wait_connected(emu)
    check(physics(emu)["host"] == 1, "the emulator's physics is not the host's")
    # Limp since the driver's first frame: on the floor within a second or two.
    wait_for(lambda: physics(emu)["torso_height"] < 0.2, 5 + 5 * LATE,
             "the limp robot to lie on the floor", step=0.1)
    lying = physics(emu)["torso_height"]
    physics(emu, f"hold {HOLD_AT - lying:.4f}")
    wait_for(lambda: physics(emu)["torso_height"] > HOLD_AT - 0.03, 10 + 5 * LATE,
             "the torso to be held up", step=0.1)
    # held: it stays up (the legs, limp, swing below it a while)
    time.sleep(1.0)
    held = physics(emu)
    check(held["torso_height"] > HOLD_AT - 0.03,
          f"the held torso sank to {held['torso_height']:.3f} m")
    physics(emu, "hold off")
    wait_for(lambda: physics(emu)["torso_height"] < 0.2, 5 + 5 * LATE,
             "the robot let go to fall", step=0.05)
    time.sleep(1.5)
    before = physics(emu)
    physics(emu, "push 200 0 0.1")
    time.sleep(1.5)
    after = physics(emu)
    moved = ((after["torso"][0] - before["torso"][0]) ** 2 +
             (after["torso"][1] - before["torso"][1]) ** 2) ** 0.5
    check(moved > 0.01, f"a 200 N push for 0.1 s moved the lying torso {moved:.4f} m")
    note(f"lying at {lying:.3f} m; held to {held['torso_height']:.3f} m, accelerometer "
         f"({held['acc'][0]:.2f}, {held['acc'][1]:.2f}, {held['acc'][2]:.2f}); let go, "
         f"lying at {before['torso_height']:.3f} m; pushed 200 N for 0.1 s: moved "
         f"{moved:.3f} m")


def host_keeps_real_time():
    """--physics-host: the model keeps the clock's time beside the driver's exchange; its round trip"""
    emu = EmuBody.shared().emu
    wait_connected(emu)
    physics(emu, "reset")
    s0, t0, c0 = stats(), time.monotonic(), emu_cpu_s()
    time.sleep(10)
    p, s1, t1, c1 = physics(emu), stats(), time.monotonic(), emu_cpu_s()
    ratio = p["model_ms"] / max(1.0, p["clock_ms"])
    cycles = max(1, s1["cycles"] - s0["cycles"])
    note(f"host physics: {p['cycles']:.0f} replies to {p['requests']:.0f} requests "
         f"({p['unsent']:.0f} not sent), {p['model_ms']:.0f} ms of model time in "
         f"{p['clock_ms']:.0f} ms: real-time factor {ratio:.3f}")
    note(f"round trip (emulator to host and back, the server's step included): median "
         f"{p['rtt_med_ms']:.2f} ms, p99 {p['rtt_p99_ms']:.2f} ms, max {p['rtt_max_ms']:.2f} ms "
         f"over {p['rtt_n']:.0f}")
    note(f"state late by {p['late_mean']:.2f} cycles on average, {p['late_max']:.0f} at most "
         f"(0: as fresh as the in-guest thread's); {p['stale']:.0f} of the frames found no "
         f"new reply; {p['superseded']:.0f} requests folded into others; lost "
         f"{p['lost']:.0f}, malformed {p['malformed']:.0f}")
    note(f"the server's CPU {p['cpu_ms']:.0f} ms (at most {p['cpu_max_us']:.0f} us a step); "
         f"the emulator's in the guest {1000 * (c1 - c0):.0f} ms in {t1 - t0:.1f} s, "
         f"{1000 * (c1 - c0) / cycles:.2f} ms per driver cycle")
    note(f"driver: {exchange(s0, s1, t1 - t0)}")
    stream_whole(emu, "beside the exchange")
    # A figure: a loaded machine starves the server, and the model loses time.
    note(f"real-time factor {ratio:.3f} (a quiet host keeps 0.95 or more)")


if BENCH:
    tap.test(sim=False, real=True)(host_keeps_real_time)


@tap.test(sim=False, real=True)
def host_stands_then_collapses():
    """--physics-host: held up, Wake stands it; Stop latches stiffness 0 and it collapses"""
    emu = EmuBody.shared().emu
    wait_connected(emu)
    stream_whole(emu, "before")
    # lying, as physics_stands_then_collapses() expects, whatever ran before
    physics(emu, "hold off")
    wait_for(lambda: physics(emu)["torso_height"] < 0.2, 5 + 5 * LATE,
             "the robot to lie on the floor", step=0.1)
    time.sleep(1.0)
    physics_stands_then_collapses()
    stream_whole(emu, "standing and falling")


if __name__ == "__main__":
    if not REAL:
        sys.exit("physics_vm_test.py: for NBTEST_BODY=real (physics_vm.sh)")
    tap.run()
