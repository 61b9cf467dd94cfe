#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make demo: the emulated robot, the driver and the daemon, live state in the
# terminal. It grows with the driver (issue 4) and the daemon (issue 6); until
# they exist it says so rather than pretending.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
srctree=$(cd "$here/.." && pwd)
make -C "$srctree" --no-print-directory deps all
cat <<'MSG'
naobody demo: not built yet.
  - naobody.ko is a placeholder (issue 4): nothing to show from the body.
  - naobodyd does not exist yet (issue 6).
What works today is the test harness: 'make check'. For a shell in the test
VM with the modules loaded, run 'make vm-shell'.
MSG
