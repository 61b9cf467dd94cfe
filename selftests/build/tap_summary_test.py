#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lib/tap.py, the summary every test tier goes through: a failed
case's diagnostics under its RESULT line are its own, whichever side of its
"not ok" its program prints them (the kselftest harness before, the Python
suites after), and never the next case's. Prints TAP."""

import os
import subprocess
import sys

TAP_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts/lib/tap.py")

# What the kselftest harness printed for CI's boards_test (stop 20): the
# failed case's notes come before its "not ok", the next case's after it.
KSELFTEST = """TAP version 13
1..2
#  RUN           chest.harakiri_reset_comes_back ...
# boards_test.c:371:harakiri_reset_comes_back:Expected 0 (0) == nbt_wait_path() (-110)
#            FAIL  chest.harakiri_reset_comes_back
not ok 1 chest.harakiri_reset_comes_back
#  RUN           chest.usb_reset_starts_the_boards_over ...
#            OK  chest.usb_reset_starts_the_boards_over
ok 2 chest.usb_reset_starts_the_boards_over
"""

# CI's faults_test (stop 41): the last case failed, and the program's
# totals after its "not ok" were shown instead of its reason.
LAST_CASE = """TAP version 13
1..1
#  RUN           fault.wrong_acknowledge.is_counted_and_survived ...
# faults_test.c:91:is_counted_and_survived:Expected 20 (20) == good (2)
# is_counted_and_survived: Test failed at step #15
#          FAIL  fault.wrong_acknowledge.is_counted_and_survived
not ok 1 fault.wrong_acknowledge.is_counted_and_survived
# FAILED: 0 / 1 tests passed.
# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0
"""

# stop_test (stop 41): the first failed expectation, then seven more notes;
# the last six lines alone missed it.
MANY_NOTES = """1..1
#  RUN           stall.a_stall_that_clears_holds_the_targets ...
# stop_test.c:572:stall_in: 4 limp frame(s) of 42
# stop_test.c:576:Expected 0 (0) == limp_frames (4)
# stop_test.c:572:stall_out: 0 limp frame(s) of 40
# stop_test.c:572:stall_ack: 0 limp frame(s) of 40
# stop_test.c:572:stall_status: 0 limp frame(s) of 41
# stop_test.c:572:a note
# stop_test.c:572:another note
# stall.a_stall_that_clears_holds_the_targets: 27.17 s
# a_stall_that_clears_holds_the_targets: Test failed at step #13
#          FAIL  stall.a_stall_that_clears_holds_the_targets
not ok 1 stall.a_stall_that_clears_holds_the_targets
"""

# The Python suites' style: the reason after "not ok".
AFTER = """1..2
ok 1 first
not ok 2 second
#   lost nothing while stopped for 5 ring lengths
"""

# A deep Python traceback (CI's rest_serial_test, issue 26): its last line,
# the exception, came 13th and was cut; the column markers took lines.
DEEP = "1..1\nnot ok 1 enable, home and a move through REST\n#   Traceback (most recent call last):\n" + \
    "".join(f"#     File \"t.py\", line {n}, in f{n}\n#       f{n + 1}()\n#       ^^^^^^^^\n"
            for n in range(8)) + \
    "#   TimeoutError: timed out\n#   naobodyd --rest-port 1\n"

# A program that skips itself whole (a test that needs root, run without).
WHOLE_SKIP = "1..0 # SKIP not root: network namespaces need CAP_SYS_ADMIN\n"

results = []


def tap(ok, name, why=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    for line in (why if not ok else "").splitlines():
        print(f"#   {line}")


def summary(text, rc=1):
    r = subprocess.run(["/usr/bin/python3", TAP_PY, "t", str(rc)], input=text,
                       capture_output=True, text=True)
    return r.stdout


def main():
    print("1..9")
    out = summary(KSELFTEST)
    tap("Expected 0 (0) == nbt_wait_path()" in out,
        "kselftest: the failed case's own notes (before its not ok) are shown", out)
    tap("usb_reset_starts_the_boards_over ..." not in out.split("RESULT pass")[0],
        "kselftest: the next case's notes are not shown as the failure's", out)
    out = summary(LAST_CASE)
    tap("Expected 20 (20) == good (2)" in out and "Totals" not in out,
        "kselftest: the last case's reason is shown, not the program's totals", out)
    out = summary(MANY_NOTES)
    tap("Expected 0 (0) == limp_frames (4)" in out and "FAIL " not in out,
        "kselftest: a case with many notes shows its first failed expectation", out)
    out = summary(AFTER)
    tap("lost nothing while stopped" in out, "notes after not ok are shown", out)
    tap(out.count("RESULT fail") == 1 and "RESULT pass t: first" in out,
        "one failure, one pass", out)
    out = summary(DEEP)
    tap("TimeoutError: timed out" in out and "^^^" not in out,
        "a deep traceback's last line is shown, its column markers are not", out)
    out = summary(WHOLE_SKIP, rc=0)
    tap(out == "RESULT skip t: not root: network namespaces need CAP_SYS_ADMIN\n",
        "a whole-file skip is one skip with its reason, not a failure", out)
    out = summary("1..0\n", rc=0)
    tap("RESULT fail t: produced no TAP results" in out,
        "an empty plan without SKIP is still a failure", out)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
