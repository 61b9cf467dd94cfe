#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: the physics on the host (chestboard-emu --physics-host), its
# round trip and real-time factor, beside physics_vm_bench.sh's in-guest
# figures (physics_host_vm.sh's measuring test alone).
cd "$(dirname "$0")" || exit 1
NBVM_PHYSICS_BENCH=1 exec sh ./physics_host_vm.sh
