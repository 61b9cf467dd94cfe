#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn one VM run into RESULT lines and an exit status.

Reads the results port (the programs' TAP between BEGIN/END markers) and the
console log (the kernel's messages). Fails closed: a run without its final
DONE marker, a program that never ended, or any kernel splat in the console
log is a failure, and the message names the test that was running.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from tap import count_tap, result  # noqa: E402

# What makes a kernel log line a failure, whatever the tests said.
SPLATS = re.compile(
    r"Oops|BUG:|WARNING:|KASAN|UBSAN|general protection|Call Trace|"
    r"unreferenced object|possible circular locking|sleeping function called"
)
RUN_MARK = re.compile(r"naobody-vm: RUN (\S+)")
BEGIN = re.compile(r"^### BEGIN (\S+)")
END = re.compile(r"^### END (\S+) rc=(-?\d+)")
SECS = re.compile(r"^### END (\S+) rc=-?\d+ secs=([\d.]+)")


def read_lines(path):
    try:
        with open(path, errors="replace") as f:
            return [l.rstrip("\r\n") for l in f]
    except FileNotFoundError:
        return []


def split_blocks(lines):
    """Yield (program, output lines, rc or None) per BEGIN block."""
    prog, body = None, []
    for line in lines:
        m = BEGIN.match(line)
        if m:
            if prog:
                yield prog, body, None
            prog, body = m.group(1), []
            continue
        m = END.match(line)
        if m and prog == m.group(1):
            yield prog, body, int(m.group(2))
            prog, body = None, []
            continue
        if prog:
            body.append(line)
    if prog:
        yield prog, body, None


# The line that opens a kernel report. SPLATS lines that follow it while the
# same test runs ("Call Trace:" and the rest of a KASAN report, say) belong
# to that report; a report repeated word for word (a bug hit in a loop,
# with kasan_multi_shot) counts once per test.
HEADLINE = re.compile(
    r"Oops|BUG:|WARNING:|UBSAN|general protection|unreferenced object|"
    r"possible circular locking|sleeping function called"
)
TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
# Context lines that say nothing to a reader: unreliable frames, registers.
NOISE = re.compile(r"^\s+\? |^(RSP|RAX|RDX|RBP|R10|R13|Code):")


# Reports of known bugs in the kernel's own test drivers that a suite using
# them cannot avoid: printed as known, not counted as failures. Each is
# (what it is, the line just before its trace, a frame of its trace); both
# must match, so any other report from the same driver still fails.
KNOWN = [
    ("vivid's capture thread computes its wait before it sleeps; a VM stalled in between "
     "passes schedule_timeout() a negative timeout, which it refuses and returns at once "
     "(Debian 6.1, drivers/media/test-drivers/vivid/vivid-kthread-cap.c)",
     "schedule_timeout: wrong timeout value", "vivid_thread_vid_cap"),
]


def known_bug(lines, i, context):
    """What a report starting at lines[i] is, if it is a KNOWN one."""
    before = " ".join(lines[max(0, i - 4):i])
    for what, marker, frame in KNOWN:
        if marker in before and any(frame in line for line in context):
            return what
    return None


def console_splats(lines):
    """Yield (test running at the time, first line, context) per report."""
    running = "boot"
    seen = set()
    in_report = False
    for i, line in enumerate(lines):
        m = RUN_MARK.search(line)
        if m:
            running, seen, in_report = m.group(1), set(), False
            continue
        if "naobody-vm:" in line or not SPLATS.search(line):
            continue
        text = TIMESTAMP.sub("", line).strip()
        if HEADLINE.search(text):
            key = re.sub(r"0x[0-9a-f]+|[0-9a-f]{8,}", "", text)
            if key in seen:
                continue
            seen.add(key)
        elif in_report:
            continue
        in_report = True
        context = [l for l in lines[i : i + 60] if not NOISE.search(TIMESTAMP.sub("", l))]
        known = known_bug(lines, i, context[:25])
        if known:
            in_report = False
            print(f"  known kernel bug during {running}, not ours: {known}")
            continue
        yield running, text, context[:25]


END_MARK = re.compile(r"naobody-vm: END (\S+)")
GUEST_LINES = 12


def guest_lines_during(console, prog):
    """The kernel's last lines while prog ran (between its RUN and END marks in
    the console log), for a failure's context: CI keeps only what we print."""
    lines, inside = [], False
    for line in console:
        m = RUN_MARK.search(line)
        if m:
            inside = m.group(1) == prog
            if inside:
                lines = []
            continue
        m = END_MARK.search(line)
        if m and m.group(1) == prog:
            inside = False
            continue
        if inside:
            lines.append(line)
    return lines[-GUEST_LINES:]


def show_guest_lines(console, prog):
    lines = guest_lines_during(console, prog)
    if lines:
        print(f"    the guest's last kernel lines during {prog}:")
        for l in lines:
            print(f"      {l[:200]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--name", default="vm")
    ap.add_argument("--console", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--timed-out", type=int)
    ap.add_argument("--qemu-rc", type=int, default=0)
    args = ap.parse_args()

    results = read_lines(args.results)
    console = read_lines(args.console)
    failed = 0
    last_started = None

    for prog, body, rc in split_blocks(results):
        last_started = prog
        prefix = f"{args.name}/{prog}"
        if rc is None:
            failed += 1
            why = (f"VM killed after {args.timed_out} s while this program ran"
                   if args.timed_out else "never finished (VM crashed or powered off)")
            count_tap(prefix, body, 0)
            result("fail", prefix, why)
            show_guest_lines(console, prog)
            continue
        _, f, _ = count_tap(prefix, body, rc,
                            context=lambda prog=prog: show_guest_lines(console, prog))
        failed += f

    if last_started is None and any(l.startswith("### DONE") for l in results):
        failed += 1
        result("fail", f"{args.name}: run complete", "no test program ran (empty suite list or filter)")

    if not any(l.startswith("### DONE") for l in results):
        failed += 1
        where = f"; last started: {last_started}" if last_started else "; no test started"
        if args.timed_out:
            why = f"VM timed out after {args.timed_out} s{where}"
        else:
            why = f"VM stopped before finishing (qemu status {args.qemu_rc}){where}"
        result("fail", f"{args.name}: run complete", why)
        tail = console[-15:]
        if tail:
            print("  last console lines:")
            for l in tail:
                print(f"    {l}")

    # How long each program ran (init.sh's secs=), kept beside the logs and
    # the slowest named: the suite's time is watched against its budget.
    times = sorted(((float(m.group(2)), m.group(1)) for m in map(SECS.match, results) if m),
                   reverse=True)
    if times:
        with open(os.path.join(os.path.dirname(args.results), "times.txt"), "w") as f:
            for secs, prog in times:
                f.write(f"{secs:8.1f} {prog}\n")
        print(f"  VM       {args.name}: {sum(t for t, _ in times):.0f} s in programs; slowest: "
              + ", ".join(f"{p} {t:.0f} s" for t, p in times[:5]))

    for running, first, context in console_splats(console):
        failed += 1
        result("fail", f"{args.name}: clean kernel log during {running}", first)
        for l in context:
            print(f"    {l}")

    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
