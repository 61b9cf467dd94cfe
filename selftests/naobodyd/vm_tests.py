#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""naobodyd's tests on naobody.ko with the chest board emulator, in the VM:
the tests of api_test, api_errors_test, watchdog_test, lola_test, naoguard_test and
rest_body_test and rest_serial_test that run
on the real body (Tap.test(real=True)), one at a time, as one TAP stream.
naobodyd_vm.sh sets the body up and runs this with NBTEST_BODY=real."""

import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import api_errors_test  # noqa: E402
import api_test  # noqa: E402
import lola_test  # noqa: E402
import naoguard_test  # noqa: E402
import rest_body_test  # noqa: E402
import rest_serial_test  # noqa: E402
import watchdog_test  # noqa: E402
from nbtest import REAL, Tap  # noqa: E402

if __name__ == "__main__":
    if not REAL:
        sys.exit("vm_tests.py: the tests on the simulated body run from their own files; "
                 "this is for NBTEST_BODY=real")
    tap = Tap()
    for module in (api_test, api_errors_test, watchdog_test, lola_test, naoguard_test, rest_body_test,
                   rest_serial_test):
        tap.tests += module.tap.tests
    tap.run()
