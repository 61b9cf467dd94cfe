#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's speaker, microphones and mixer against snd-aloop, in the VM
(head_audio_vm.sh). One naobodyd --sim, its audio devices named:

  speaker      nbspeaker (asoundrc: two softvols on hw:Loopback,0,0), whose
               sound comes out of hw:Loopback,1,0, recorded here by arecord;
  microphones  hw:Loopback,1,1, fed here by aplay on hw:Loopback,0,1;
  mixer        hw:Loopback's "Speaker" (the softvols' controls), read back
               with amixer.

Both devices run at 48 kHz, so both of naobodyd's resamplers work. The
tones are measured here (zero crossings, amplitude), with code that shares
nothing with the daemon's. Run with /usr/bin/python3."""

import array
import math
import os
import re
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nbtest  # noqa: E402
from nbtest import Client, Daemon, Tap, TestFailure, check, note, wait_for  # noqa: E402

RATE = 48000            # the loopback's side, both ways
PERIOD_MS = 20          # the speaker's period (head_audio.c, PERIOD_US)
API_RATE = 16000
SCALE = float(os.environ.get("NBVM_TIME_SCALE", "1"))
CARD = "Loopback"
tap = Tap()


class Block:
    __slots__ = ("samples", "peak")

    def __init__(self, samples, peak):
        self.samples = samples
        self.peak = peak


class Recorder:
    """arecord on the loopback's capture side of the speaker: 10 ms blocks
    of channel 0, each with the time it arrived."""

    def __init__(self, channels=2):
        self.ch = channels
        self.blocks = []            # (arrival, array of samples)
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(
            ["arecord", "-q", "-D", f"hw:{CARD},1,0", "-f", "S16_LE", "-r", str(RATE),
             "-c", str(channels), "-t", "raw", "--period-time=5000", "--buffer-time=500000"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        wait_for(lambda: len(self.blocks) >= 3, 10 * SCALE, "arecord's first blocks")

    def _read(self):
        n = RATE // 100 * self.ch * 2
        while True:
            raw = self.proc.stdout.read(n)
            if not raw:
                return
            a = array.array("h", raw[: len(raw) // (2 * self.ch) * 2 * self.ch])[0::self.ch]
            # The block's peak once, here, in C (max, min): a loaded VM
            # has no time for Python loops over every sample.
            b = Block(a, max(max(a), -min(a)) if a else 0)
            with self.lock:
                self.blocks.append((time.monotonic(), b))

    def since(self, t0):
        with self.lock:
            return [(t, b) for t, b in self.blocks if t >= t0]

    def last_loud_time(self, level=300, around=1.0):
        """CLOCK_MONOTONIC when the last loud sample recorded was captured,
        on the capture's own sample clock, not its arrival: the loopback's
        capture side runs on time, so sample k of a stretch without gaps
        was captured at its start plus k / RATE. That start is the earliest
        any block of the stretch could have been captured: the least of
        (arrival - its end's sample time) over the blocks within around
        seconds of the sample (a block never arrives before it is
        captured). None if nothing was loud."""
        with self.lock:
            blocks = list(self.blocks)
        ends, n = [], 0
        for _, b in blocks:
            n += len(b.samples)
            ends.append(n)
        last = next((i for i in range(len(blocks) - 1, -1, -1) if blocks[i][1].peak > level),
                    None)
        if last is None:
            return None
        samples = blocks[last][1].samples
        k = max(i for i in range(len(samples)) if abs(samples[i]) > level)
        at = ends[last] - len(samples) + k
        near = [i for i in range(len(blocks)) if abs(ends[i] - at) <= around * RATE]
        start = min(blocks[i][0] - ends[i] / RATE for i in near)
        return start + at / RATE

    def close(self):
        self.proc.terminate()
        self.proc.wait()


class Feeder:
    """aplay on the loopback's playback side of the microphones: 4 channels,
    a tone on one of them, silence on the others, until closed."""

    def __init__(self, freq, amplitude, channel=2, channels=4):
        self.stop = False
        self.proc = subprocess.Popen(
            ["aplay", "-q", "-D", f"hw:{CARD},0,1", "-f", "S16_LE", "-r", str(RATE),
             "-c", str(channels), "-t", "raw", "--period-time=20000", "--buffer-time=500000"],
            stdin=subprocess.PIPE, stderr=subprocess.PIPE)
        frames = RATE // 10
        block = array.array("h", [0]) * (frames * channels)
        for i in range(frames):     # 0.1 s: a whole number of periods at 440 Hz
            block[i * channels + channel] = int(amplitude * math.sin(2 * math.pi * freq * i / RATE))
        self.block = block.tobytes()
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self):
        try:
            while not self.stop:
                self.proc.stdin.write(self.block)
                self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.proc.stdin.close()
        self.proc.terminate()
        self.proc.wait()


def tone(freq, seconds, amplitude=16384):
    n = int(API_RATE * seconds)
    return [int(amplitude * math.sin(2 * math.pi * freq * i / API_RATE)) for i in range(n)]


def measure(samples, rate, block=None):
    """(frequency, amplitude, seconds) of a tone in samples, robust to the
    gaps a loaded machine leaves (an underrun on either side): the median
    period between rising zero crossings (interpolated), the median peak of
    the loud blocks, and the tone's energy as seconds at that amplitude."""
    block = block or rate // 100
    peaks = sorted(p for p in (peak_of(samples[i:i + block])
                               for i in range(0, len(samples) - block + 1, block)) if p > 300)
    if len(peaks) < 3:
        return 0.0, 0, 0.0
    amp = peaks[len(peaks) // 2]
    xs, armed, low = [], False, -amp // 4
    for i in range(1, len(samples)):
        a, b = samples[i - 1], samples[i]
        if a < low:
            armed = True    # hysteresis: a crossing after a real trough only
        elif armed and a < 0 <= b:
            xs.append(i - 1 + -a / (b - a))
            armed = False
    periods = sorted(b - a for a, b in zip(xs, xs[1:]))
    check(len(periods) > 20, f"only {len(periods)} periods to measure")
    energy = sum(s * s for s in samples)
    return rate / periods[len(periods) // 2], amp, energy / (amp * amp / 2) / rate


def joined(blocks):
    out = array.array("h")
    for _, b in blocks:
        out.extend(b.samples)
    return out


def peak_of(samples):
    return max(max(samples), -min(samples)) if len(samples) else 0


def loud(block, level=300):
    """A Block (its peak) or a list of samples above level."""
    return (block.peak if isinstance(block, Block) else peak_of(block)) > level


def amixer():
    """(percent, on) of the loopback card's Speaker control, read by amixer."""
    out = subprocess.run(["amixer", "-c", CARD, "sget", "Speaker"], capture_output=True,
                         text=True, check=True).stdout
    pct = re.search(r"\[(\d+)%\]", out)
    sw = re.search(r"\[(on|off)\]", out)
    check(pct and sw, f"amixer's Speaker has no volume or switch:\n{out}")
    return int(pct.group(1)), sw.group(1) == "on"


_daemon = None


def daemon():
    """The one naobodyd of this suite (the devices are shared)."""
    global _daemon
    if _daemon is None or not _daemon.alive():
        _daemon = Daemon("--speaker", "nbspeaker", "--microphones", f"hw:{CARD},1,1",
                         "--mixer", f"hw:{CARD}", "--mixer-control", "Speaker", body="sim",
                         rest=True)
    elif _daemon not in getattr(nbtest._notes, "daemons", []):
        nbtest._notes.daemons.append(_daemon)   # its log with this test's failure
    return _daemon


def restore_volume(c):
    """The start's 65 %, unmuted, for the next test: the suite shares one
    daemon and mixer, and a test that fails half-way must not fail the
    next ones too."""
    c.send({"Volume": {"percent": 65, "muted": False}})
    wait_for(lambda: amixer() == (65, True), 2 * SCALE, "back at 65 %")


def client(d):
    c = Client(d)
    hello = c.hello("head_audio_test")
    check(hello["Hello"]["robot"]["echo_cancellation"] is False, f"Hello: {hello}")
    return c


def recorded_tone(c, rec, samples, timeout):
    """Send samples as one Speaker; the loopback's recording of them, the
    time from sending to the first loud block, and the blocks."""
    t0 = time.monotonic()
    c.send({"Speaker": {"samples": samples}})
    deadline = t0 + timeout * SCALE
    first = None
    while time.monotonic() < deadline:
        blocks = rec.since(t0)
        if first is None:
            first = next((t for t, b in blocks if loud(b)), None)
        # Done once it was loud and has been quiet for 1 s: a loaded VM's
        # playback underruns for a few hundred ms mid-tone (0.134 s of the
        # 0.5 s had come when 0.3 s of quiet ended it once), then goes on.
        if first is not None and len(blocks) > 100 and \
                not any(loud(b) for _, b in blocks[-100:]) and blocks[-1][0] > first + 1.0:
            return blocks, first - t0
        c.send("Heartbeat")
        time.sleep(0.02)
    blocks = rec.since(t0)
    raise TestFailure(f"the tone did not come back and end within {timeout * SCALE} s (loud "
                      f"after {first and first - t0} s); {len(blocks)} blocks, the last peaks "
                      f"{[b.peak for _, b in blocks[-40:]]}")


@tap.test
def starts_at_65():
    """Volume: 65 % and unmuted at the start, on the mixer control (amixer)"""
    d = daemon()
    check(amixer() == (65, True), f"amixer at the start: {amixer()}")
    check("speaker volume 65 %" in d.log(), "no log line for the start volume")


@tap.test
def tone_comes_back():
    """Speaker: a 700 Hz tone comes back at 700 Hz, unscaled at 100 %, and once"""
    d = daemon()
    c = client(d)
    rec = Recorder()
    try:
        c.send({"Volume": {"percent": 100}})
        wait_for(lambda: amixer() == (100, True), 2 * SCALE, "the volume at 100 %")
        blocks, latency = recorded_tone(c, rec, tone(700, 0.5), 10)
        freq, peak, secs = measure(joined(blocks), RATE)
        note(f"700 Hz for 0.5 s sent: {freq:.1f} Hz back, peak {peak} (sent 16384), "
             f"{secs:.3f} s of it, the first after {latency * 1000:.0f} ms")
        check(abs(freq - 700) < 5, f"the tone came back at {freq:.1f} Hz")
        check(15500 < peak < 17300, f"its peak is {peak}, sent 16384 at 100 %")
        # Played once and whole: not twice (1.0 s), not half (0.25 s). Not
        # its exact length: through two ALSA streams on a loaded TCG VM it
        # came back as 0.558 s once (the soak, scripts/soak-check.sh).
        check(0.42 < secs < 0.75, f"{secs:.3f} s of a 0.5 s tone came back")
    finally:
        rec.close()
        # The suite's one daemon and mixer: the next test starts at 65 %,
        # whatever happened here.
        restore_volume(c)
        c.close()


def stood_still(c, seconds):
    """The longest this VM stood still over seconds, heartbeating: a 2 ms
    sleep's overshoot (a loaded host stops the guest now and then)."""
    worst, beat, end = 0.0, 0.0, time.monotonic() + seconds
    while time.monotonic() < end:
        now = time.monotonic()
        if now - beat > 0.05:
            c.send("Heartbeat")
            beat = now
        time.sleep(0.002)
        worst = max(worst, time.monotonic() - now - 0.002)
    return worst


@tap.test
def speaker_clear_stops():
    """SpeakerClear: a 5 s tone stops at once, queued audio dropped"""
    d = daemon()
    c = client(d)
    rec = Recorder()
    try:
        t0 = time.monotonic()
        c.send({"Speaker": {"samples": tone(500, 5.0)}})
        wait_for(lambda: any(loud(b) for _, b in rec.since(t0)), 3 * SCALE, "the tone")
        c.heartbeat_for(0.2)
        t_clear = time.monotonic()
        c.send("SpeakerClear")
        stall = stood_still(c, 0.5)
        c.heartbeat_for(0.5 * SCALE)
        # In the recording's own terms, not its arrival times (a loaded VM
        # delays those): the tone that came out, as its energy in seconds at
        # its amplitude, against the time from sending it to clearing it.
        # Gaps (underruns) only make it shorter; what plays on after the
        # clear makes it longer.
        freq, amp, secs = measure(joined(rec.since(t0)), RATE)
        over = secs - (t_clear - t0)
        # When the tone stopped, on the capture's clock, after the clear
        # was sent: the client's send, the daemon, the playback thread's
        # wake-up and snd_pcm_drop() (what was in the 200 ms buffer went).
        stop = rec.last_loud_time() - t_clear
        note(f"SpeakerClear: {secs:.3f} s of the 5 s tone came out, cleared "
             f"{t_clear - t0:.3f} s after sending it ({over * 1000:+.0f} ms); the tone stopped "
             f"{stop * 1000:.1f} ms after the clear was sent (capture clock; the device's "
             f"period is {PERIOD_MS} ms, its buffer 200 ms); the VM stood still "
             f"{stall * 1000:.0f} ms at most meanwhile")
        check(abs(freq - 500) < 5, f"the tone came back at {freq:.1f} Hz")
        # A clear not taken plays the rest of the 5 s; one that leaves the
        # device its buffer plays 200 ms more (177 ms measured; caught here
        # on a VM that did not stand still). So does a VM that stood still
        # after the clear, for as long as it stood (the buffer plays into
        # the capture on resume): that much more is allowed, as this process
        # saw it. Within a period is the bench's figure (clear_latency).
        allow = 0.15 + min(stall, 0.15)
        check(over < allow, f"{over * 1000:.0f} ms more of the tone than was sent before the "
              f"clear (the VM stood still {stall * 1000:.0f} ms at most meanwhile)")
        check(stop < allow, f"the tone went on {stop * 1000:.1f} ms after SpeakerClear (the VM "
              f"stood still {stall * 1000:.0f} ms at most meanwhile)")
        check(t_clear - t0 < 4.0, "cleared after the 5 s tone would have ended: proves nothing")
    finally:
        rec.close()
        c.close()


@tap.test
def volume_is_the_mixer():
    """Volume: kept fields, unmute by percent, muted stays given, mute is silent"""
    d = daemon()
    c = client(d)
    try:
        for msg, want in [({"percent": 30}, (30, True)),
                          ({"muted": True}, (30, False)),
                          ({}, (30, False)),
                          ({"percent": 50}, (50, True)),
                          ({"percent": 20, "muted": True}, (20, False)),
                          ({"percent": 0}, (0, False)),
                          ({"muted": False}, (0, True)),
                          ({"percent": 150, "muted": None}, (100, True))]:
            c.send({"Volume": msg})
            wait_for(lambda: amixer() == want, 2 * SCALE, f"Volume {msg} -> {want}")
        c.send({"Volume": {"muted": True}})
        wait_for(lambda: amixer() == (100, False), 2 * SCALE, "muted")
        rec = Recorder()
        try:
            t0 = time.monotonic()
            c.send({"Speaker": {"samples": tone(700, 0.4)}})
            # naobodyd plays it (its speaking flag), the mixer silences it.
            c.heartbeat_for(0.8 * SCALE)
            peak = max((b.peak for _, b in rec.since(t0)), default=None)
            check(peak is not None and peak < 50, f"muted, yet a peak of {peak} came out")
        finally:
            rec.close()
    finally:
        restore_volume(c)
        c.close()


@tap.test
def rest_volume():
    """REST /volume: GET reads it, PUT sets it as Volume does, bad bodies are 400"""
    from resttest import request, token_of, validate_response
    d = daemon()
    t = token_of(d)
    try:
        a = request(d.rest_port, "GET", "/volume", t)
        check(a.status == 200 and a.json == {"percent": 65, "muted": False}, f"GET /volume: {a}")
        validate_response("/volume", "GET", a.status, a.json)
        a = request(d.rest_port, "PUT", "/volume", t, body=b'{"muted": true}')
        check(a.status == 200 and a.json == {"percent": 65, "muted": True}, f"PUT muted: {a}")
        check(amixer() == (65, False), f"amixer after PUT muted: {amixer()}")
        a = request(d.rest_port, "PUT", "/volume", t, body=b'{"percent": 40}')
        check(a.status == 200 and a.json == {"percent": 40, "muted": False}, f"PUT 40: {a}")
        check(amixer() == (40, True), f"amixer after PUT 40: {amixer()}")
        for bad in (b'{"percent": 101}', b'{"percent": "loud"}', b'{"volume": 3}', b'[]'):
            a = request(d.rest_port, "PUT", "/volume", t, body=bad)
            check(a.status == 400 and a.json["applied"] is False, f"PUT {bad}: {a}")
            validate_response("/volume", "PUT", a.status, a.json)
        check(amixer() == (40, True), "a bad PUT changed the mixer")
        a = request(d.rest_port, "GET", "/robot", t)
        au = a.json["audio"]
        check(au["speaker"] and au["microphones"] and au["mixer"], f"/robot's audio: {au}")
        validate_response("/robot", "GET", a.status, a.json)
    finally:
        # The next test starts at 65 %, whatever happened here.
        request(d.rest_port, "PUT", "/volume", t, body=b'{"percent": 65, "muted": false}')


def mic_samples(c, seconds, on_chunk=None):
    """Microphone messages for this long: [(time, samples)], heartbeating."""
    got = []
    deadline = time.monotonic() + seconds
    last_hb = 0
    while time.monotonic() < deadline:
        if time.monotonic() - last_hb > 0.05:
            c.send("Heartbeat")
            last_hb = time.monotonic()
        try:
            m = c.recv(timeout=0.1)
        except Exception:  # noqa: BLE001 - a quiet 0.1 s
            continue
        if isinstance(m, dict) and "Microphone" in m:
            got.append((m["Microphone"]["time"], m["Microphone"]["samples"]))
            if on_chunk and on_chunk(got):
                break
    return got


@tap.test
def microphone_carries_the_loopback():
    """Microphone: 440 Hz on one of four channels comes as 16 kHz mono, a quarter as loud"""
    d = daemon()
    c = client(d)
    feed = Feeder(440, 20000, channel=2)
    try:
        got = mic_samples(c, 0.5 * SCALE)
        check(not got, f"{len(got)} Microphone messages before subscribing")
        c.send({"Subscribe": {"state": False, "microphone": True}})
        t_sub = time.monotonic()
        got = mic_samples(c, 10 * SCALE, on_chunk=lambda g: len(g) >= 60)
        took = time.monotonic() - t_sub
        check(len(got) >= 60, f"{len(got)} Microphone messages in {took:.1f} s")
        check(all(len(s) == 320 for _, s in got), "a chunk is not 20 ms")
        s = [v for _, ch in got[10:] for v in ch]
        freq, peak, _ = measure(s, API_RATE)
        note(f"440 Hz at 20000 on channel 2 of 4: {freq:.1f} Hz, peak {peak} "
             f"(a quarter: 5000), {len(got)} chunks in {took:.2f} s")
        check(abs(freq - 440) < 4, f"the microphones heard {freq:.1f} Hz")
        check(4600 < peak < 5400, f"peak {peak}: the four channels are not mixed to their mean")
        now = time.time()
        times = [t for t, _ in got]
        check(all(now - 5 * SCALE < t <= now + 0.1 for t in times), f"times: {times[:3]}")
        steps = [b - a for a, b in zip(times, times[1:])]
        check(all(0.0 < st < 0.1 for st in steps[5:]), f"time steps: {steps[:10]}")
        mean = (times[-1] - times[5]) / (len(times) - 6)
        check(abs(mean - 0.02) < 0.002, f"chunks {mean * 1000:.2f} ms apart, not 20")
        c.send({"Subscribe": {"state": False, "microphone": False}})
        c.heartbeat_for(0.3)
        got = mic_samples(c, 0.5)
        check(not got, f"{len(got)} Microphone messages after unsubscribing")
    finally:
        feed.close()
        c.close()


@tap.test
def microphones_muted_while_speaking():
    """echo_cancellation false: Microphone is zeros while the robot speaks, then hears again"""
    d = daemon()
    c = client(d)
    feed = Feeder(440, 20000, channel=0)
    try:
        c.send({"Subscribe": {"state": False, "microphone": True}})
        heard = mic_samples(c, 3 * SCALE, on_chunk=lambda g: loud(g[-1][1]))
        check(heard and loud(heard[-1][1]), "the microphones hear nothing before speaking")
        t_speak = time.time()
        c.send({"Speaker": {"samples": tone(700, 0.6)}})

        def heard_again(g):
            z = [i for i, (_, ch) in enumerate(g) if not any(ch)]
            return z and len(g) > z[-1] + 5 and all(loud(ch) for _, ch in g[z[-1] + 1:])
        got = mic_samples(c, 10 * SCALE, on_chunk=heard_again)
        # The longest run of all-zero chunks is the mute (aplay on the far
        # side may underrun on a loaded VM: a short gap of zeros, elsewhere).
        best, run = [], []
        for t, ch in got:
            run = run + [(t, ch)] if not any(ch) else []
            if len(run) > len(best):
                best = run
        zeros = sum(1 for _, ch in got if not any(ch))
        note(f"while speaking 0.6 s: a run of {len(best)} all-zero chunks, {zeros} in all, "
             f"of {len(got)}")
        check(len(best) >= 25, f"only {len(best)} all-zero chunks in a row while speaking 0.6 s "
              f"(peaks: {[peak_of(ch) for _, ch in got][:80]})")
        # That the mute did not begin before it spoke is the order above (the
        # last chunk before the Speaker was loud); the chunks' times follow
        # their sample count (set again past a 100 ms drift) less the
        # device's delay, so on a loaded VM the first muted one can be
        # stamped a little before the Speaker was sent: a hang's bound.
        note(f"the mute's first chunk stamped {(best[0][0] - t_speak) * 1000:+.0f} ms from the "
             "Speaker's sending")
        check(best[0][0] >= t_speak - 0.5, "the mute began before it spoke")
        check(loud(got[-1][1]), "the microphones stay muted after speaking")
    finally:
        feed.close()
        c.close()


@tap.test
def speaker_queue_full():
    """Speaker past the 30 s queue: dropped whole with a log line, the queue unchanged"""
    d = daemon()
    c = client(d)
    rec = Recorder()
    try:
        c.send({"Volume": {"percent": 100}})
        c.send({"Speaker": {"samples": [0] * (29 * API_RATE)}})
        c.send({"Speaker": {"samples": tone(700, 2.0)}})
        wait_for(lambda: "Speaker dropped whole" in d.log(), 3 * SCALE, "the queue-full line")
        t0 = time.monotonic()
        c.heartbeat_for(0.5)
        check(not any(loud(b) for _, b in rec.since(t0)), "part of the refused tone was played")
        c.send("SpeakerClear")
        c.send({"Volume": {"percent": 65}})
        c.heartbeat_for(0.2)
    finally:
        rec.close()
        c.close()


bench = Tap()


@bench.test
def speaker_latency():
    """bench: Speaker to the loopback's capture, 20 bursts of 50 ms"""
    d = daemon()
    c = client(d)
    rec = Recorder()
    lat = []
    try:
        c.send({"Volume": {"percent": 100}})
        for _ in range(20):
            t0 = time.monotonic()
            c.send({"Speaker": {"samples": tone(700, 0.05)}})
            wait_for(lambda: any(loud(b) for _, b in rec.since(t0)), 5 * SCALE, "the burst")
            lat.append(next(t for t, b in rec.since(t0) if loud(b)) - t0)
            # Quiet again (the device stopped: each burst starts it anew).
            c.heartbeat_for(0.4)
        lat.sort()
        note(f"audio latency, Speaker to the snd-aloop capture (arecord, 5 ms periods; "
             f"TCG): median {lat[len(lat) // 2] * 1000:.0f} ms, best {lat[0] * 1000:.0f} ms, "
             f"worst {lat[-1] * 1000:.0f} ms over {len(lat)} bursts")
        c.send({"Volume": {"percent": 65}})
    finally:
        rec.close()
        c.close()


@bench.test
def clear_latency():
    """bench: SpeakerClear to silence at the loopback's capture, 10 tones"""
    d = daemon()
    c = client(d)
    rec = Recorder()
    stops = []
    try:
        c.send({"Volume": {"percent": 100}})
        for _ in range(10):
            t0 = time.monotonic()
            c.send({"Speaker": {"samples": tone(500, 2.0)}})
            wait_for(lambda: any(loud(b) for _, b in rec.since(t0)), 5 * SCALE, "the tone")
            c.heartbeat_for(0.2)
            t_clear = time.monotonic()
            c.send("SpeakerClear")
            c.heartbeat_for(0.5)
            stops.append(rec.last_loud_time() - t_clear)
        stops.sort()
        note(f"SpeakerClear to silence (the capture's clock; the device's period "
             f"{PERIOD_MS} ms, its buffer 200 ms; TCG): median "
             f"{stops[len(stops) // 2] * 1000:.1f} ms, best {stops[0] * 1000:.1f} ms, worst "
             f"{stops[-1] * 1000:.1f} ms over {len(stops)} tones")
        c.send({"Volume": {"percent": 65}})
    finally:
        rec.close()
        c.close()


if __name__ == "__main__":
    try:
        (bench if os.environ.get("HEAD_AUDIO_BENCH") else tap).run()
    finally:
        if _daemon is not None:
            _daemon.__exit__(None, None, None)
