#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The stack on the host's physics, in the VM: chestboard-emu --physics-host
# through the virtio serial port naobody.physics, behind which run.sh
# --physics-host runs nb-physics-server on the host (the suite's
# <suite>_VM_ARGS); naobody.ko's exchange and naobodyd on top, as
# physics_vm.sh does with the model in the guest.
#
# The guest needs no MuJoCo here: the emulator only sends targets and takes
# states. NBVM_PHYSICS_BENCH set (make bench): the figures only.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap vm_down EXIT

# The port by its name (no udev in the VM: no /dev/virtio-ports/ links);
# its name comes from the host a moment after the module binds.
modprobe -q virtio_console || :	# built in on the debug kernel
port=
for _ in $(seq 50); do
	for n in /sys/class/virtio-ports/*/name; do
		[ "$(cat "$n" 2>/dev/null)" = naobody.physics ] && port=/dev/$(basename "$(dirname "$n")")
	done
	[ -n "$port" ] && [ -c "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ] || [ ! -c "$port" ]; then
	echo "# no virtio serial port named naobody.physics: is virtio_console loaded," \
		"and the VM booted with run.sh --physics-host?"
	exit 1
fi
echo "# the host's physics through $port"

NBVM_TIME_SCALE=$((2 * ${NBVM_TIME_SCALE:-1})) vm_up --physics-host "$port" --verbose --verbose
rc=$?
echo "# the emulator's start: $(grep physics: "$NBVM_WORK/emu.log" | tr '\n' ' ')"
if [ $rc -ne 0 ]; then
	echo "# the emulator's log, last lines:"
	tail -n 30 "$NBVM_WORK/emu.log" | sed 's/^/#   /'
	exit 1
fi
if [ -n "${NBVM_PHYSICS_BENCH:-}" ]; then
	NBTEST_ONLY=host_keeps vm_python "$NBVM_WORK/physics_vm_test.py" --bench
else
	NBTEST_ONLY=host_ vm_python "$NBVM_WORK/physics_vm_test.py"
fi
