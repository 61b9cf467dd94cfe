#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The ring readers of examples/ (C, Rust, Python) against naobody.ko and
the chest board emulator, in the VM (examples_vm.sh sets the body up, with
a ring of 128 records). Prints TAP.

Each reader must print, for every record it shares with `naoctl dump -c`
(libnaobody's reader) running beside it, the same line; and when it is
stopped long enough for the writer to lap it, count the records it lost
and carry on with the right ones."""

import os
import re
import signal
import subprocess
import sys
import time

WORK = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(WORK, "bin")
SCALE = int(os.environ.get("NBVM_TIME_SCALE", "1"))
READERS = {
    "c": [os.path.join(BIN, "ring-reader-c")],
    "rust": [os.path.join(BIN, "ring-reader-rs")],
    "python": ["/usr/bin/python3", "-B", os.path.join(WORK, "ring_reader.py")],
}
RING_RECORDS = 128

results = []


def tap(ok, name, why=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    if why:
        for line in why.splitlines():
            print(f"#   {line}")
    sys.stdout.flush()


def start(argv, name):
    """argv with its output in files: a pipe nobody drains would stall it."""
    out = open(os.path.join(WORK, name + ".out"), "w+")
    err = open(os.path.join(WORK, name + ".err"), "w+")
    p = subprocess.Popen(argv, stdout=out, stderr=err, text=True)
    p.files = (out, err)
    return p


def finish(p, timeout):
    note = ""
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        note = "\n(killed: still running after %d s)" % timeout
    texts = []
    for f in p.files:
        f.seek(0)
        texts.append(f.read())
        f.close()
    return p.returncode, texts[0], texts[1] + note


def records(lines):
    """Record number n (seq is 2n + 2) to its line."""
    return {(int(line.split("\t", 1)[0]) - 2) // 2: line for line in lines}


def lost_of(err):
    """The reader's last words: (the record it started from, records lost)."""
    m = re.search(r"^from record (\d+): lost (\d+)$", err, re.M)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def last_record(p):
    """The newest whole record p has written to its output file, if any."""
    p.files[0].flush()
    with open(p.files[0].name) as f:
        lines = f.read().split("\n")[1:-1]     # the header; a cut last line
    try:
        return max(records(lines), default=None)
    except ValueError:
        return None


def check(name, ref, rc, out, err, n):
    """The reader printed n records in order, lost exactly those it skipped,
    and, for every record naoctl printed too, the same line. naoctl reads
    from before the reader starts to after it ends: every record the reader
    printed is one naoctl printed too, or one naoctl skipped, having lost it
    itself (a stall of a ring's length on a loaded machine)."""
    lines = out.splitlines()
    first, lost = lost_of(err)
    if rc != 0 or len(lines) != n or lost is None:
        return False, f"rc {rc}, {len(lines)} lines (want {n}), stderr: {err}"
    got = records(lines)
    nums = list(got)
    if nums != sorted(set(nums)) or nums[0] < first:
        return False, f"records not in order, or before record {first}"
    skipped = nums[-1] - first + 1 - len(nums)
    if skipped != lost:
        return False, f"says it lost {lost} records, but skipped {skipped}"
    common = sorted(set(ref) & set(got))
    diff = [r for r in common if ref[r] != got[r]]
    if diff:
        r = diff[0]
        cols = list(zip(ref[r].split("\t"), got[r].split("\t")))
        bad = [i for i, (a, b) in enumerate(cols) if a != b][:5]
        return False, (f"{len(diff)} of {len(common)} shared records differ; record {r}, "
                       f"columns {bad}:\nnaoctl: {ref[r][:300]}\n{name}: {got[r][:300]}")
    first_ref, last_ref = min(ref, default=0), max(ref, default=-1)
    outside = [r for r in nums if r < first_ref or r > last_ref]
    if outside:
        return False, (f"{len(outside)} records outside naoctl's {first_ref}..{last_ref}, "
                       f"e.g. {outside[0]}")
    # Something to compare, however much naoctl lost.
    if len(common) < 10:
        return False, f"only {len(common)} records shared with naoctl dump -c"
    width = len(ref[common[0]].split("\t"))
    if width != 131:
        return False, f"naoctl dump -c printed {width} columns, not 131"
    return True, (f"{len(common)} records shared, all the same; lost {lost}; naoctl lost "
                  f"{len(nums) - len(common)} of the reader's")


def cycles():
    with open("/sys/class/naobody/naobody/statistics/cycles") as f:
        return int(f.read())


def run(n, stop_cycles):
    """naoctl dump -c and the readers side by side; the readers stopped,
    once they have the ring mapped, until the driver has run stop_cycles
    cycles (each writes a record): counted, not timed, so a slow kernel
    laps them as surely as a fast one."""
    ref = start([os.path.join(BIN, "naoctl"), "dump", "-c"], "naoctl")
    # The readers start once naoctl prints records (waited for, not
    # slept: a loaded machine starts a process late), so that every
    # record they print is one naoctl printed too.
    deadline = time.monotonic() + 20 * SCALE
    while last_record(ref) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    procs = {k: start(v + ["-n", str(n)], k) for k, v in READERS.items()}
    deadline = time.monotonic() + 20 * SCALE
    stopped = set()
    while len(stopped) < len(procs) and time.monotonic() < deadline:
        for k, p in procs.items():
            # Each reader is stopped as soon as it has printed a record:
            # one that started early (a slow tier starts Python seconds
            # after C) must not have read all its records meanwhile. Not
            # merely once it has the ring mapped: stopped between its mmap
            # and its first load of head, it would start from wherever head
            # is when it goes on, and never be lapped.
            if k not in stopped and (not stop_cycles or last_record(p) is not None):
                if stop_cycles:
                    p.send_signal(signal.SIGSTOP)
                    with open(p.files[0].name) as f:
                        p.printed_at_stop = len(f.read().splitlines())
                stopped.add(k)
        time.sleep(0.005)
    if stop_cycles:
        until = cycles() + stop_cycles
        deadline = time.monotonic() + 60 * SCALE
        while cycles() < until and time.monotonic() < deadline:
            time.sleep(0.1)
        for p in procs.values():
            p.send_signal(signal.SIGCONT)
    # (a C reader's stdout to a file holds a few lines back: 4 KiB of them)
    # (a reader never stopped, as one that printed nothing in time, is late too)
    late = {k for k, p in procs.items()
            if stop_cycles and getattr(p, "printed_at_stop", n) >= n - 10}
    outs = {k: finish(p, 60 * SCALE) for k, p in procs.items()}
    # naoctl's output (a file: block-buffered) past the readers' last
    # record, and past what it still holds in its buffer when stopped.
    newest = max((max(records(o[1].splitlines()), default=-1) for o in outs.values()),
                 default=-1)
    deadline = time.monotonic() + 20 * SCALE
    while (last_record(ref) or -1) < newest + 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    ref.terminate()
    _, out, err = finish(ref, 10 * SCALE)
    # After the header; the last line may be cut short by the signal.
    return records(out.splitlines()[1:-1]), outs, late


def test_same_numbers():
    n = 250
    ref, outs, _ = run(n, 0)
    for k, (rc, out, err) in outs.items():
        ok, why = check(k, ref, rc, out, err, n)
        tap(ok, f"{k}: the same numbers as naoctl dump -c", why)


def test_lapped():
    """Stopped for 5 ring lengths of cycles, each reader is lapped: it must
    count what it lost and go on with the right records."""
    n = 200
    ref, outs, late = run(n, 5 * RING_RECORDS)
    # A reader that had printed all its records before the test could stop
    # it (this process descheduled on a loaded TCG) was never lapped: the
    # run says nothing of it, and is made again.
    for attempt in range(2):
        if not late:
            break
        print(f"# {', '.join(sorted(late))}: done before it could be stopped; again")
        ref, outs, late = run(n, 5 * RING_RECORDS)
    for k, (rc, out, err) in outs.items():
        ok, why = check(k, ref, rc, out, err, n)
        if ok and not lost_of(err)[1]:
            ok, why = False, "lost nothing while stopped for 5 ring lengths"
        tap(ok, f"{k}: lapped while stopped, it counts the records it lost", why)


def main():
    print("TAP version 13")
    print(f"1..{2 * len(READERS)}")
    with open("/sys/module/naobody/parameters/ring_records") as f:
        if int(f.read()) != RING_RECORDS:
            print(f"Bail out! naobody.ko has not got ring_records={RING_RECORDS}")
            return 1
    test_same_numbers()
    test_lapped()
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
