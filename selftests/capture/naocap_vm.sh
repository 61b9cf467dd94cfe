#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# naocap in the VM, against the chest board emulator on dummy_hcd: usbmon
# (Debian's module) records the exchange of a HAL stand-in (usbfs), a LoLA
# stand-in (not naobodyd) serves the socket, and the archive goes through
# naoctl replay and verify. Then naobody.ko binds the board, and naocap
# must refuse. naocap_vm_test (vm_standins.c) runs this script and plays
# the stand-ins.
set -u
. /tests/lib/tap.sh
work=/tmp/naocap-vm
emu_pid=
cleanup() {
	[ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null
	rmmod naobody 2>/dev/null
}
trap cleanup EXIT
rm -rf "$work"
mkdir -p "$work"
scale=${NBVM_TIME_SCALE:-1}

tap_plan 7

modprobe usbmon
rmmod naobody 2>/dev/null
chestboard-emu --quiet --socket /run/naocap-emu.sock >"$work/emu.log" 2>&1 &
emu_pid=$!
wait_until $((10 * scale)) grep -qs ffff /sys/bus/usb/devices/*/idVendor
tap_check "the emulated chest board enumerates" grep -qs ffff /sys/bus/usb/devices/*/idVendor

./naocap_vm_test lola "$work/lola.sock" $((20 * scale)) >"$work/lola.out" 2>&1 &
lola_pid=$!
# naocap refuses without LoLA's socket; say so rather than fail on it below
wait_until $((10 * scale)) test -S "$work/lola.sock" ||
	echo "# the LoLA stand-in has no socket after $((10 * scale)) s"
# about 8 s of script; the HAL stand-in runs in the middle of it, from the
# countdown's first second on: naocap records by then (usbmon and the LoLA
# log are open before its first step), however long it took to get there
naocap -y -s 0.05 -l "$work/lola.sock" -o "$work/cap" >"$work/naocap.out" 2>&1 &
naocap_pid=$!
wait_until $((20 * scale)) grep -qs ' s left' "$work/naocap.out" ||
	echo "# naocap printed no countdown after $((20 * scale)) s"
./naocap_vm_test hal $((5 * scale)) >"$work/hal.out" 2>&1
hal_rc=$?
wait "$naocap_pid"
naocap_rc=$?
# The LoLA stand-in ends when naocap hangs up; one naocap never reached
# would wait in accept() until the suite's limit.
wait_until $((10 * scale)) sh -c "! kill -0 $lola_pid 2>/dev/null" || kill "$lola_pid" 2>/dev/null
wait "$lola_pid"
# naocap's countdown is carriage returns; its errors (stderr) land on the
# countdown's line
tr '\r' '\n' <"$work/naocap.out" | grep -v ' s left *$' | sed 's/^/# /' | tail -12
sed 's/^/# /' "$work/hal.out" "$work/lola.out"
echo "# naocap exited with $naocap_rc, the HAL stand-in with $hal_rc"
tap_check "naocap records and writes its archive" \
	sh -c "[ $naocap_rc = 0 ] && [ $hal_rc = 0 ] && [ -s '$work/cap.tar.gz' ]"

naoctl replay "$work/cap.tar.gz" >"$work/replay.out" 2>&1
sed 's/^/# /' "$work/replay.out" | head -20
out=$(sed -n 's/^OUT frames: \([0-9]*\).*/\1/p' "$work/replay.out")
tap_check "replay finds the HAL stand-in's frames in the capture ($out OUT frames)" \
	sh -c "[ '${out:-0}' -gt 50 ] && grep -q ' 0 do not' '$work/replay.out' &&
	       grep -q 'chest board version (0x02)' '$work/replay.out'"

naoctl verify "$work/cap.tar.gz" >"$work/verify.out" 2>&1
grep -E '^capture|^frame|^ack|entries' "$work/verify.out" | sed 's/^/# /'
tap_check "verify checks the frames of the recording" \
	grep -q '^frame.crc_cover  *confirmed' "$work/verify.out"
packets=$(sed -n 's/.*LoLA: \([0-9]*\) sensor packets.*/\1/p' "$work/verify.out")
tap_check "the LoLA log holds the stand-in's packets ($packets)" [ "${packets:-0}" -gt 50 ]
tap_check "the versions file names the board's bus and address" \
	grep -q '^usb.busdev [0-9]*:[0-9]*' "$work/cap/versions"

modprobe naobody
wait_until $((10 * scale)) sh -c "ls /sys/bus/usb/drivers/naobody/ 2>/dev/null | grep -q ':1.0'"
naocap -y -n -o "$work/refused" >"$work/refuse.out" 2>&1
rc=$?
sed 's/^/# /' "$work/refuse.out"
tap_check "with naobody.ko bound, naocap refuses and writes nothing" \
	sh -c "[ $rc = 1 ] && grep -q 'naobody.ko is bound' '$work/refuse.out' && [ ! -e '$work/refused' ]"
rmmod naobody
tap_done
