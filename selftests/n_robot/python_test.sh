#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Python bindings (userspace/python, ctypes on libnrobot.so.1): their
# examples against cm5-emu and parol6-emu, through the userspace framers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
top=$(cd "$here/../.." && pwd)
export PYTHONPATH=$top/userspace/python NROBOT_LIB=$top/build/lib/libnrobot.so.1
py=/usr/bin/python3
bin=$top/build/bin
work=$(mktemp -d)
emu_pid=
cleanup() {
	[ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
start_emu() {
	[ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null
	rm -f "$work/tty"
	"$@" -l "$work/tty" >/dev/null 2>"$work/emu.err" &
	emu_pid=$!
	for _ in $(seq 100); do
		[ -e "$work/tty" ] && return 0
		sleep 0.05
	done
	return 1
}
check() {
	local desc=$1
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		not_ok "$desc"
		echo "$out" | sed 's/^/#   /'
	fi
}

tap_plan 3
check "nrobot imports; its ctypes structs match the library's" \
	"$py" -c 'import nrobot; print(nrobot.CM5, nrobot.Parol6)'

start_emu "$bin/cm5-emu" -s 1 -s 2 -s 9
check "examples/cm5_loop.py: scan, a format-once read loop, a write" sh -c \
	'out=$('"$py $top/userspace/python/examples/cm5_loop.py $work/tty"' 20) && echo "$out" &&
	 echo "$out" | grep -q "^servos: 1 2 9$" && echo "$out" | grep -q "^status 0, 20 reads at" &&
	 echo "$out" | grep -q "^9 present_position 150.15$" && echo "$out" | grep -q "^after write: 119.94$"'

start_emu "$bin/parol6-emu" -t "$work/p6.tel" -g 180
check "examples/parol6_move.py: enable, a profiled move, the gripper on an object" sh -c \
	'out=$('"$py $top/userspace/python/examples/parol6_move.py $work/tty"') && echo "$out" &&
	 echo "$out" | grep -q "^joints 80.00 -90.00 180.00 0.00 0.00 180.00$" &&
	 echo "$out" | grep -q "^gripper object while closing$" &&
	 awk "/speed=/ { split(\$3, a, \"=\"); split(a[2], s, \",\"); v = s[1] < 0 ? -s[1] : s[1]; if (v > m) m = v } END { exit !(m > 0 && m < 2 * 20 * 113.78) }" '"$work/p6.tel"
tap_done
