#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the debug kernel of the debug tier once, and cache it outside the
# clone: x86_64_defconfig + kvm_guest.config + scripts/vm/debug.config, from
# Debian's linux-source-6.1 (about 15 min on 2 idle cores).
#
#   debug-kernel.sh          build it unless the cache already has it
#   debug-kernel.sh --dir    print its cache directory (built or not)
#
# The cache and what a build leaves: scripts/lib/kernel-build.sh, in
# $NAOBODY_CACHE/debug-kernel.
set -euo pipefail

# Bump when the steps in kernel-build.sh change what a build produces.
RECIPE=1

here=$(cd "$(dirname "$0")" && pwd)
case ${1:-} in
"" | --dir) ;;
*) echo "usage: debug-kernel.sh [--dir]" >&2; exit 2 ;;
esac
exec "$here/lib/kernel-build.sh" --name debug-kernel --source 6.1 \
	--fragment "$here/vm/debug.config" --recipe "$RECIPE" ${1:+"$1"}
