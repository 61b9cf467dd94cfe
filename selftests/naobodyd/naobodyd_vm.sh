#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# naobodyd against naobody.ko and the chest board emulator, in the VM.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap vm_down EXIT
vm_up || exit 1
cd "$NBVM_WORK" || exit 1
# rest_serial_test.py: naobodyd attaches n_robot to the emulators' ptys.
modprobe n_robot || echo "# modprobe n_robot failed: the serial bodies' link is the userspace framers"
vm_python "$NBVM_WORK/vm_tests.py"
