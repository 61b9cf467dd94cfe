#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make bench: chestboard-emu --physics's cost in the VM and the driver's
# exchange beside it, against the scripted body (physics_vm.sh's measuring
# half, out of make check's time).
cd "$(dirname "$0")" || exit 1
NBVM_PHYSICS_BENCH=1 exec sh ./physics_vm.sh
