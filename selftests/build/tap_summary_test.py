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
    print("1..7")
    out = summary(KSELFTEST)
    tap("Expected 0 (0) == nbt_wait_path()" in out,
        "kselftest: the failed case's own notes (before its not ok) are shown", out)
    tap("usb_reset_starts_the_boards_over ..." not in out.split("RESULT pass")[0],
        "kselftest: the next case's notes are not shown as the failure's", out)
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
