#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Python bindings (userspace/python, ctypes on libnrobot.so.1): their
# examples against cm5-emu and parol6-emu, through the userspace framers;
# and the package installed with pip from the tree, offline, into a virtual
# environment, where it imports and runs with neither PYTHONPATH nor
# NROBOT_LIB: it finds the library by its soname (LD_LIBRARY_PATH stands
# for the library's installed place).
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

tap_plan 5
check "nrobot imports; its ctypes structs match the library's" \
	"$py" -c 'import nrobot; print(nrobot.CM5, nrobot.Parol6)'

start_emu "$bin/cm5-emu" -s 1 -s 2 -s 9
check "examples/cm5_loop.py: scan, a format-once read loop, a write" sh -c \
	'out=$('"$py $top/userspace/python/examples/cm5_loop.py $work/tty"' 20) && echo "$out" &&
	 echo "$out" | grep -q "^servos: 1 2 9$" && echo "$out" | grep -q "^status 0, 20 reads at" &&
	 echo "$out" | grep -q "^9 present_position 150.15$" && echo "$out" | grep -q "^after write: 119.94$"'

start_emu "$bin/parol6-emu" -t "$work/p6.tel" -o "$work/p6.log" -g 180
check "examples/parol6_move.py: enable, a profiled move, one calibrate frame, the gripper on an object" sh -c \
	'out=$('"$py $top/userspace/python/examples/parol6_move.py $work/tty"') && echo "$out" &&
	 echo "$out" | grep -q "^joints 80.00 -90.00 180.00 0.00 0.00 180.00$" &&
	 echo "$out" | grep -q "^gripper object while closing$" &&
	 [ $(grep -c "grip=[0-9]*,[0-9-]*,[0-9-]*,[0-9-]*,1 " '"$work/p6.log"') = 1 ] &&
	 awk "/speed=/ { split(\$3, a, \"=\"); split(a[2], s, \",\"); v = s[1] < 0 ? -s[1] : s[1]; if (v > m) m = v } END { exit !(m > 0 && m < 2 * 20 * 113.78) }" '"$work/p6.tel"
# pip from the tree, offline, with Debian's setuptools (the venv sees the
# system's packages), from a copy (a build leaves build/ and egg-info).
venv=$work/venv
cp -r "$top/userspace/python" "$work/src"
if /usr/bin/python3 -m venv --system-site-packages "$venv" >"$work/pip.log" 2>&1 &&
   "$venv/bin/python" -m pip install --no-build-isolation --no-index "$work/src" \
	>>"$work/pip.log" 2>&1; then
	ok "pip install --no-build-isolation --no-index userspace/python"
else
	not_ok "pip install --no-build-isolation --no-index userspace/python"
	tail -n 15 "$work/pip.log" | sed 's/^/#   /'
fi
start_emu "$bin/parol6-emu" -g 180
check "installed: the example runs with neither PYTHONPATH nor NROBOT_LIB, the library by its soname" sh -c \
	'cd / && env -u PYTHONPATH -u NROBOT_LIB LD_LIBRARY_PATH='"$top/build/lib"' '"$venv/bin/python"' -c "import nrobot; print(nrobot.__file__)" >'"$work/where"' &&
	 cat '"$work/where"' && grep -q "^'"$venv"'/lib/python3[^/]*/site-packages/nrobot/__init__.py$" '"$work/where"' &&
	 env -u PYTHONPATH -u NROBOT_LIB LD_LIBRARY_PATH='"$top/build/lib"' '"$venv/bin/python"' '"$top/userspace/python/examples/parol6_move.py $work/tty"' | grep -q "^gripper object while closing$"'
tap_done
