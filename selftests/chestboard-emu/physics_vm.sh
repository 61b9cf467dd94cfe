#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The stack on physics, in the VM: chestboard-emu --physics (the MuJoCo model
# of the NAO V6), naobody.ko and naobodyd on the real body. First the
# driver's exchange on the scripted body for comparison, then on physics.
#
# The body is naobodyd's VM body (selftests/naobodyd/vm_env.sh). MuJoCo is
# the host's: the emulator dlopen()s it, so mkinitramfs.sh (which follows
# ldd) never copied it; it and its libraries are read from the host's root,
# mounted at /host, through LD_LIBRARY_PATH given to the emulator alone.
cd "$(dirname "$0")" || exit 1
. ./vm_env.sh
trap vm_down EXIT
here=$PWD
MUJOCO_LIBS=/host/usr/lib/x86_64-linux-gnu:/host/lib/x86_64-linux-gnu
STATS=/sys/class/naobody/naobody/statistics

# exchange NAME SECONDS: the driver's cycles, answers, overruns and timeouts
# over a while, as a "#" line.
exchange() {
	set -- "$1" "$2" "$(cut -d' ' -f1 /proc/uptime)" \
		"$(cat $STATS/cycles) $(cat $STATS/answers) $(cat $STATS/overruns) $(cat $STATS/timeouts)"
	sleep "$2"
	echo "$3 $4 $(cut -d' ' -f1 /proc/uptime) $(cat $STATS/cycles) $(cat $STATS/answers)" \
		"$(cat $STATS/overruns) $(cat $STATS/timeouts)" | awk -v n="$1" '{
		t = $6 - $1; c = $7 - $2
		printf "# %s: %d cycles in %.1f s, one per %.2f ms; %d answers, %d overruns, %d timeouts\n",
			n, c, t, c ? 1000 * t / c : 0, $8 - $3, $9 - $4, $10 - $5 }'
}

# The measuring half (NBVM_PHYSICS_BENCH set: make bench's
# chestboard_emu_physics_bench, physics_vm_bench.sh); make check's suite
# runs only the in-guest model's smoke test below (the stand and collapse
# is physics_host_vm.sh's, on the host's model; make bench runs it here
# too).
if [ -n "${NBVM_PHYSICS_BENCH:-}" ]; then
vm_up || exit 1
exchange "scripted body, driver alone" 10
# The model alone in the guest, naobodyd's calls (make bench's program), in
# the host's root, where its model's path and MuJoCo are; beside the
# scripted exchange, which keeps running.
echo "# nb-physics-bench in the guest, beside the scripted exchange:"
chroot "$NBVM_HOST" "$NBVM_WORK/bin/nb-physics-bench" 3 2>&1 | sed 's/^/#   /'
# ... and while naobodyd stands it (a test of physics_vm_test.py's own).
NBTEST_ONLY=scripted_ vm_python "$NBVM_WORK/physics_vm_test.py" | sed 's/^/#   /'
vm_down
fi

# ask REQUEST...: the emulator's reply, through the host's python3
ask() {
	vm_python -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
s.connect(sys.argv[1])
s.sendall(" ".join(sys.argv[2:]).encode() + b"\n")
print(s.recv(4096).decode().strip())' "$NBVM_EMU_SOCKET" "$@"
}

cd "$here" || exit 1
export LD_LIBRARY_PATH="$MUJOCO_LIBS"
# The physics slows the exchange: more time for the handshakes.
NBVM_TIME_SCALE=$((4 * ${NBVM_TIME_SCALE:-1})) vm_up --physics "$here/nao6.xml" --verbose --verbose
rc=$?
unset LD_LIBRARY_PATH
echo "# the emulator's start: $(grep physics: "$NBVM_WORK/emu.log")"
if [ $rc -ne 0 ]; then
	echo "# physics: $(ask physics)"
	echo "# emulator: $(ask stats)"
	for f in cycles answers overruns timeouts skipped; do
		echo "# driver $f: $(cat $STATS/$f)"
	done
	echo "# the emulator's log, last lines:"
	tail -n 30 "$NBVM_WORK/emu.log" | sed 's/^/#   /'
	exit 1
fi
if [ -n "${NBVM_PHYSICS_BENCH:-}" ]; then
	exchange "physical body, driver alone (limp)" 10
	NBTEST_ONLY=physics_ vm_python "$NBVM_WORK/physics_vm_test.py"
else
	NBTEST_ONLY=physics_lies vm_python "$NBVM_WORK/physics_vm_test.py"
fi
