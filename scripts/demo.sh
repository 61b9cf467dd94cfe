#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: install what is needed, build, and boot the test VM in demo
# mode (scripts/vm/demo.sh runs inside): the emulated chest board, the
# driver, naobodyd and naoguard, the body live in this terminal.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
make -C "$srctree" --no-print-directory deps
make -C "$srctree" --no-print-directory all vm-programs
echo "Booting the demo VM (about a minute in all; Ctrl-C ends the demo, Ctrl-A X leaves QEMU)..."
exec make -C "$srctree" --no-print-directory vm-demo
