#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# naobodyd's benchmark against naobody.ko and the chest board emulator, in
# the VM (make bench): naobodyd_bench.py on the real body; its figures are
# TAP diagnostics.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap vm_down EXIT
vm_up || exit 1
cd "$NBVM_WORK" || exit 1
vm_python "$NBVM_WORK/naobodyd_bench.py" --tap
