#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot the test VM: Debian's kernel (or the debug kernel) under QEMU, with the
# initramfs that mkinitramfs.sh builds.
#
#   run.sh --test   run the VM suites, print RESULT lines, exit non-zero on
#                   any failure or on any kernel splat in the console log
#   run.sh --shell  an interactive shell with our modules loaded
#   run.sh --demo   make demo: the emulated robot, the driver and the daemon
#
# Options:
#   --kvm           use KVM instead of TCG (where nested KVM works)
#   --timeout S     kill the VM after S seconds (default 2400; VM_TIMEOUT): a
#                   hang detector, about three times a loaded run
#   --filter LIST   only these suites or suite/program (VM_FILTER)
#   --kernel PATH   boot this bzImage (VM_KERNEL; MODDIR then names its modules)
#   --append ARGS   extra kernel command line (VM_APPEND)
#   --name NAME     name of this run in RESULT lines and logs (default vm)
#   --physics-host  a virtio serial port named naobody.physics, and
#                   nb-physics-server on the host behind it, for
#                   chestboard-emu --physics-host (VM_PHYSICS_HOST=1)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
: "${srctree:=$(cd "$here/../.." && pwd)}" "${O:=$srctree/build}"
: "${KVER:=$("$srctree/scripts/kernel-release.sh")}"
: "${NAOBODY_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/naobody}"
export srctree O KVER

mode=test accel=tcg name=vm
timeout=${VM_TIMEOUT:-2400}
filter=${VM_FILTER:-}
kernel=${VM_KERNEL:-}
append=${VM_APPEND:-}
physics_host=${VM_PHYSICS_HOST:-}
while [[ $# -gt 0 ]]; do
	case "$1" in
	--test) mode=test ;;
	--shell) mode=shell ;;
	--demo) mode=demo ;;
	--kvm) accel=kvm ;;
	--timeout) timeout=$2; shift ;;
	--filter) filter=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--append) append=$2; shift ;;
	--name) name=$2; shift ;;
	--physics-host) physics_host=1 ;;
	-h | --help) sed -n '4,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; exit 0 ;;
	*) echo "run.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done

# A filter that selects none of this run's suites: no VM to boot.
if [[ $mode == test && -n $filter ]]; then
	selected=
	for s in ${VM_SUITES:-}; do
		for f in ${filter//,/ }; do
			[[ ${f%%/*} == "$s" ]] && selected=1
		done
	done
	if [[ -z $selected ]]; then
		echo "  VM       $name: the filter selects none of its suites (${VM_SUITES:-none})"
		exit 0
	fi
fi

if [[ -z $kernel ]]; then
	kernel=/boot/vmlinuz-$KVER
	[[ -r $kernel ]] || kernel=$NAOBODY_CACHE/vmlinuz-$KVER
fi
[[ -r $kernel ]] || { echo "run.sh: cannot read kernel image $kernel; run 'make deps'" >&2; exit 1; }

work=$O/vm/$name
mkdir -p "$work"
initrd=$work/initramfs.cpio
"$here/mkinitramfs.sh" "$initrd"

cpu=max
[[ $accel == kvm ]] && cpu=host
cmdline="console=ttyS0 loglevel=7 panic=-1 oops=panic nbvm.mode=$mode"
# The demo's screen is the console: only errors from the kernel there.
[[ $mode == demo ]] && cmdline+=" loglevel=3"
[[ -n $filter ]] && cmdline+=" nbvm.filter=$filter"
if [[ $mode == shell ]]; then
	loads=$(for ko in $(find "${KO_DIR:-$srctree/kernel}" -name '*.ko'); do basename "$ko" .ko; done | paste -sd, -)
	cmdline+=" nbvm.load=${VM_KMODS// /,}${loads:+,$loads}"
fi
cmdline+=" $append"

qemu=(qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -m "${VM_MEM:-1024}"
	-smp "${VM_SMP:-2}" -nodefaults -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-virtfs local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap)

# The physics on the host (Documentation/chestboard-emu.rst): QEMU listens
# on the port's socket without waiting (a boot never waits for a server),
# and nb-physics-server connects to it, again after each boot.
server_pid=
if [[ -n $physics_host ]]; then
	server=$O/bin/nb-physics-server
	[[ -x $server ]] || { echo "run.sh: --physics-host: no $server (a build with libmujoco-dev)" >&2; exit 1; }
	sock=$work/physics.sock
	rm -f "$sock"
	qemu+=(-device virtio-serial-pci,id=nbvser
		-chardev "socket,id=nbphys,path=$sock,server=on,wait=off"
		-device virtserialport,bus=nbvser.0,chardev=nbphys,name=naobody.physics)
	"$server" --verbose --connect "$sock" "$srctree/userspace/sim/nao6/nao6.xml" \
		2>"$work/physics-server.log" &
	server_pid=$!
	trap '[[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null' EXIT
fi

console=$work/console.log
results=$work/results.log
rm -f "$console" "$results"

if [[ $mode == shell || $mode == demo ]]; then
	[[ -n $server_pid ]] || exec "${qemu[@]}" -serial mon:stdio -serial "file:$results"
	"${qemu[@]}" -serial mon:stdio -serial "file:$results" || true
	exit 0
fi

# A machine that has not reached /init after VM_BOOT_TIMEOUT seconds, or
# whose console stayed silent for VM_BOOT_SILENCE seconds before it, is
# killed and booted again, up to three boots: none of our code has run by
# then. (The debug kernel hangs in about one boot in six under TCG on a
# loaded 2-core host: idle, timer ticking, in its early RCU-tasks self test,
# printing nothing more; it reaches /init in 15-40 s otherwise, its longest
# silence 4.4 s at a load of 15 on 2 cores; the stock kernel in 11 s.) A
# third hang fails the run as any other.
#
# A kernel that crashes before /init is booted again the same way, up to the
# same three boots: its console holds a splat and no "Run /init". The robot
# kernel (make check-robot-kernel) does so in about one boot in 70 under TCG
# (3 of 216 boots to the initramfs, no module loaded): at 1.2-1.6 s, while
# init patches static keys, a vCPU traps on an int3 that text_poke has
# already replaced ("Oops: int3" in sched_clock_cpu() just after "sched_clock:
# Marking stable", or in enqueue_timer(); the Code: line shows the patched
# bytes). We read it as QEMU's multi-threaded TCG running a stale
# translation of the patched code; in any case only the kernel has run.
boot_timeout=${VM_BOOT_TIMEOUT:-180}
boot_silence=${VM_BOOT_SILENCE:-30}
# The CPU the VM took (QEMU is the bulk of this shell's children), against
# the clock: how much of a host core a boot keeps busy.
# (times reports this shell's children only when this shell runs it, not in
# a pipeline's or a substitution's subshell: through a file.)
cpu_ticks() {
	times >"$work/cpu.times"
	tail -n 1 "$work/cpu.times" | awk '{ gsub(/[ms]/, " "); print ($1 * 60 + $2) + ($3 * 60 + $4) }'
}
cpu_ticks >"$work/cpu0"
cpu0=$(cat "$work/cpu0")
for attempt in 1 2 3; do
	: > "$results"
	rm -f "$console" "$work/boot-hung"
	start=$(date +%s)
	timeout -k 5 "$timeout" "${qemu[@]}" -serial "file:$console" -serial "file:$results" &
	qpid=$!
	for ((i = 0, quiet = 0, size = 0; i < boot_timeout && quiet < boot_silence; i++)); do
		sleep 1
		kill -0 $qpid 2>/dev/null && ! grep -qs 'Run /init' "$console" || exit 0
		now=$(stat -c %s "$console" 2>/dev/null || echo 0)
		((now == size)) && quiet=$((quiet + 1)) || quiet=0
		size=$now
	done >/dev/null 2>&1 && touch "$work/boot-hung" && kill $qpid &
	wpid=$!
	# Show progress while the VM runs: one line per program started.
	tail -n +1 -F "$results" 2>/dev/null --pid=$qpid |
		sed -un 's/^### BEGIN \(.*\)/  VM       \1/p' || true
	qrc=0
	wait $qpid || qrc=$?
	wait $wpid 2>/dev/null || true
	if [[ -e $work/boot-hung ]]; then
		what=hung why="silent $boot_silence s, or $boot_timeout s in all"
	elif ! grep -qs 'Run /init' "$console" &&
		why=$(grep -m 1 -E 'Oops|Kernel panic|BUG:|general protection' "$console"); then
		what=crashed why=${why#\[*\] }
	else
		break
	fi
	cp "$console" "$work/console-$what-$attempt.log"
	echo "  VM       $what before /init ($why; attempt $attempt; console in ${work#"$srctree"/}/console-$what-$attempt.log)"
done
took=$(($(date +%s) - start))
cpu_ticks >"$work/cpu1"
echo "  VM       finished in $took s, $(awk -v a="$cpu0" -v b="$(cat "$work/cpu1")" -v t="$took" \
	'BEGIN { printf "%.0f s of host CPU (%.2f cores)", b - a, t ? (b - a) / t : 0 }') (logs in ${work#"$srctree"/})"

timed_out=
[[ $qrc -eq 124 || $qrc -eq 137 ]] && timed_out=$timeout
if [[ -n $server_pid ]]; then
	kill "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=
	echo "  VM       $(tail -n 1 "$work/physics-server.log")"
fi
exec /usr/bin/python3 "$here/verdict.py" --name "$name" --console "$console" \
	--results "$results" ${timed_out:+--timed-out "$timed_out"} --qemu-rc "$qrc"
