#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: install what is needed, build, and boot the test VM in demo
# mode (scripts/vm/demo.sh runs inside): the emulated chest board, the
# driver, naobodyd and naoguard, the body live in this terminal. Then, on
# this machine, the physical simulated body (scripts/demo_physics.py):
# naobodyd on the MuJoCo model, standing, sitting, pushed over, stopped.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
# Not the OpenAPI linter: it comes from the npm registry, and only make
# check's tests use it.
make -C "$srctree" --no-print-directory deps DEPS_ARGS=--demo
make -C "$srctree" --no-print-directory all vm-programs
echo "Booting the demo VM (about a minute in all; Ctrl-C ends the demo, Ctrl-A X leaves QEMU)..."
make -C "$srctree" --no-print-directory vm-demo
printf '\n\033[1;36m== 6. The physical body, on this machine: naobodyd on the MuJoCo model of the NAO V6\033[0m\n'
exec /usr/bin/python3 "$srctree/scripts/demo_physics.py"
