# SPDX-License-Identifier: GPL-2.0-only
"""Count TAP results and print them as the RESULT lines scripts/check.sh sums.

Every runner (unit tests, fuzzers, lint, the VM) reports each test case as
one line:

    RESULT pass <name>
    RESULT fail <name>: <reason>
    RESULT skip <name>: <reason>

Only top-level TAP lines ("ok 3 desc", "not ok 4 desc # SKIP why") count.
kselftest_harness.h prints exactly one such line per test case.
"""

import re
import sys

TAP_LINE = re.compile(r"^(not )?ok\s+(\d+)\s*(?:-\s*)?(.*?)\s*$")
PLAN = re.compile(r"^1\.\.(\d+)")
# A program that skips itself as a whole says so in its plan: "1..0 # SKIP why".
WHOLE_SKIP = re.compile(r"^1\.\.0\s*#\s*SKIP\b\s*(.*?)\s*$", re.IGNORECASE)


def result(kind, name, reason=None):
    line = f"RESULT {kind} {name}"
    if reason:
        line += f": {reason}"
    print(line, flush=True)


# A failure's diagnostics ("# ..." lines) shown under its RESULT line, so
# that a summary that keeps only the failures (CI's) still says why: the
# kselftest harness prints them before "not ok", nbtest.py after it (a
# Python traceback, whose last line says what went wrong, then the
# daemon's command line and the last lines of its log).
WHY_BEFORE, WHY_AFTER = 8, 30
# A traceback's column markers ("^^^^^") say nothing a summary needs.
MARKERS_ONLY = re.compile(r"^#\s*[\^~\s]+$")
NEXT_CASE = re.compile(r"^#\s+RUN\s")
# The kselftest harness's own lines around a case (its start and verdict,
# the failed step) and after the last one (the program's totals): none of
# them says why.
HARNESS = re.compile(r"^###|^#\s+(RUN|OK|FAIL|SKIP)\s|^#\s*(FAILED|PASSED|Totals):|"
                     r"^#\s*\S+: Test failed at step #")


def diagnostics(lines, i):
    """The comment lines around the TAP result at lines[i]."""
    before = []
    for line in reversed(lines[:i]):
        if TAP_LINE.match(line):
            break
        if line.startswith("#") and not HARNESS.match(line):
            before.insert(0, line)
    after = []
    for line in lines[i + 1:]:
        # The next case's start ("#  RUN  fixture.case ...", the kselftest
        # harness's) ends this one's notes as surely as its result does.
        if TAP_LINE.match(line) or NEXT_CASE.match(line):
            break
        if line.startswith("#") and not MARKERS_ONLY.match(line) and not HARNESS.match(line):
            after.append(line)
    # Lines after it are its own (nbtest.py's style); before it, only when
    # none follow (after an "ok", they may be the previous case's notes):
    # the first ones, where the first failed expectation is.
    return after[:WHY_AFTER] if after else before[:WHY_BEFORE]


def count_tap(prefix, lines, rc, timeout=None, context=None):
    """Report the TAP lines of one program; return (passed, failed, skipped).

    context, if given, is called once, right after the program's first
    failure and its notes, to print more about it (indented, so that the
    summary check.sh prints keeps it under that failure)."""
    passed = failed = skipped = 0
    plan = None
    lines = [raw.rstrip("\r\n") for raw in lines]
    whole_skip = None
    for i, line in enumerate(lines):
        m = WHOLE_SKIP.match(line)
        if m and plan is None:
            whole_skip = m.group(1) or "skipped"
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = TAP_LINE.match(line)
        if not m:
            continue
        desc = m.group(3)
        directive = ""
        if "#" in desc:
            desc, directive = (s.strip() for s in desc.split("#", 1))
        name = f"{prefix}: {desc}" if desc else f"{prefix}: case {m.group(2)}"
        if directive.upper().startswith("SKIP"):
            skipped += 1
            result("skip", name, directive[4:].strip() or "skipped")
        elif m.group(1) or directive.upper().startswith("TODO"):
            failed += 1
            result("fail", name, "not ok")
            for why in diagnostics(lines, i):
                print(f"    {why[:200]}")
            if context and failed == 1:
                context()
        else:
            passed += 1
            result("pass", name)

    seen = passed + failed + skipped
    if timeout and rc in (124, 137):
        # Killed at its time limit: say so, whatever it reported before.
        failed += 1
        result("fail", prefix, f"killed after its {timeout} s time limit "
               f"({seen} of {plan if plan is not None else '?'} results reported)")
        if context:
            context()
        return passed, failed, skipped
    if plan is not None and seen < plan:
        failed += 1
        result("fail", prefix, f"reported {seen} of the {plan} planned results")
        if context and failed == 1:
            context()
    if rc != 0 and failed == 0:
        failed += 1
        if timeout and rc in (124, 137):
            why = f"killed after its {timeout} s time limit"
        elif rc > 128:
            why = f"killed by signal {rc - 128}"
        else:
            why = f"exited with status {rc}"
        result("fail", prefix, why)
        if context:
            context()
    elif seen == 0 and rc == 0 and whole_skip is not None:
        skipped += 1
        result("skip", prefix, whole_skip)
    elif seen == 0 and rc == 0:
        failed += 1
        result("fail", prefix, "produced no TAP results")
        if context:
            context()
    return passed, failed, skipped


if __name__ == "__main__":
    # tap.py NAME RC [--timeout SECONDS] < output: report one program's
    # output (the time limit it ran under, to name it if it was killed).
    name, rc = sys.argv[1], int(sys.argv[2])
    limit = int(sys.argv[4]) if sys.argv[3:4] == ["--timeout"] else None
    _, f, _ = count_tap(name, sys.stdin, rc, timeout=limit)
    sys.exit(1 if f else 0)
