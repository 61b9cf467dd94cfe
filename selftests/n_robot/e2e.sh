#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# cm5ctl and parolctl end to end, against cm5-emu and parol6-emu on ptys.
# In the VM (root, n_robot loadable) the tools go through the line
# discipline (--ldisc=yes); on the host through the same framers in
# userspace (--ldisc=no). NR_E2E_LINK=yes|no forces one.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -r "$here/../lib/tap.sh" ]; then
	. "$here/../lib/tap.sh"
else
	. "$here/lib/tap.sh" 2>/dev/null || . /tests/lib/tap.sh
fi
if [ -x "$here/../../build/bin/cm5ctl" ]; then
	PATH=$here/../../build/bin:$PATH
fi
link=${NR_E2E_LINK:-}
if [ -z "$link" ]; then
	if [ "$(id -u)" = 0 ] && modprobe n_robot 2>/dev/null; then
		link=yes
	else
		link=no
	fi
fi
work=$(mktemp -d)
emu_pid=
cleanup() {
	[ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# start_emu NAME ARGS...: run an emulator on $work/tty, wait for the link.
start_emu() {
	stop_emu
	"$@" -l "$work/tty" >"$work/emu.out" 2>"$work/emu.err" &
	emu_pid=$!
	for _ in $(seq 100); do
		[ -e "$work/tty" ] && return 0
		sleep 0.05
	done
	echo "# emulator did not start: $(cat "$work/emu.err")"
	return 1
}
stop_emu() {
	if [ -n "$emu_pid" ]; then
		kill "$emu_pid" 2>/dev/null
		wait "$emu_pid" 2>/dev/null
		emu_pid=
	fi
	rm -f "$work/tty"
}

cm5() { cm5ctl -d "$work/tty" --ldisc="$link" "$@"; }
# A slow VM can stall for a few hundred ms: 1 s without telemetry is a lost link.
p6() { parolctl -d "$work/tty" --ldisc="$link" -l 1000 "$@"; }

# check DESC COMMAND...: one TAP case; the command's output is in $out.
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

# near A B TOLERANCE
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }

# The emulator logs what it read; give it a moment to read the last frame.
cat >"$work/idle_last" <<'EOS'
for _ in $(seq 40); do
	tail -n 1 "$1" | grep -q "cmd=255 speeds=0,0,0,0,0,0$" && exit 0
	sleep 0.05
done
echo "last command: $(tail -n 1 "$1")"
exit 1
EOS
chmod +x "$work/idle_last"

tap_plan 30
echo "# link: $([ "$link" = yes ] && echo "n_robot line discipline" || echo "userspace framing")"

# ---- CM-5 ---------------------------------------------------------------
start_emu cm5-emu -s 1 -s 2 -s 5:axs1
check "cm5ctl --help answers" sh -c 'cm5ctl --help | grep -q "^Usage: cm5ctl"'
check "cm5ctl ping cm5" cm5 ping
check "cm5ctl ping of an absent servo exits 3 and says why" sh -c \
	'out=$(cm5ctl -d '"$work/tty"' --ldisc='"$link"' ping 3 2>&1); [ $? = 3 ] && echo "$out" | grep -q dynamixel-timeout'
check "cm5ctl scan finds 1, 2 and 5" sh -c \
	'[ "$(cm5ctl -d '"$work/tty"' --ldisc='"$link"' scan 0-10 | tr "\n" " ")" = "1 2 5 " ]'
check "cm5ctl read: a 3-register read format" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' read 1:goal_position:3 2:present_position >'"$work/r"' && [ $(wc -l <'"$work/r"') = 4 ] && grep -q "^1 goal_position 150.147 deg$" '"$work/r"
check "cm5ctl write natural units, read back" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' write 1:goal_position=100 2:goal_position=200 >/dev/null &&
	 cm5ctl -d '"$work/tty"' --ldisc='"$link"' read 1:present_position 2:present_position >'"$work/r"' &&
	 grep -q "^1 present_position 100 deg$" '"$work/r"' && grep -q "^2 present_position 200 deg$" '"$work/r"
check "cm5ctl write raw counts, read back raw" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' --raw write 2:goal_position=300,77 >/dev/null &&
	 [ "$(cm5ctl -d '"$work/tty"' --ldisc='"$link"' --raw read 2:goal_position:2 | tr "\n" " ")" = "2 goal_position 300 2 moving_speed 77 " ]'
check "cm5ctl refuses a write format with a read-only register" sh -c \
	'out=$(cm5ctl -d '"$work/tty"' --ldisc='"$link"' --raw write 1:present_position=3 2>&1); [ $? = 1 ] && echo "$out" | grep -q "read-only"'
check "cm5ctl reads AX-S1 sensors with --model" sh -c \
	'[ "$(cm5ctl -d '"$work/tty"' --ldisc='"$link"' -m 5=axs1 read 5:left_ir_sensor_data:3 | tr "\n" " ")" = "5 left_ir_sensor_data 10 5 center_ir_sensor_data 200 5 right_ir_sensor_data 30 " ]'
check "cm5ctl status shows the battery" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' status | grep -q "^battery: 9.5[0-9] V"'
check "cm5ctl stats names the link" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' stats | grep -q "^link: '"$([ "$link" = yes ] && echo "n_robot line discipline" || echo "userspace framing")"'$"'
start_emu cm5-emu -s 1 --drop-every 3 --flush-ms 100
check "libcm5 recovers from lost requests (500 ms, flush, retry)" sh -c \
	'for i in 1 2 3 4 5 6; do cm5ctl -d '"$work/tty"' --ldisc='"$link"' -t 300 ping 1 >/dev/null || exit 1; done'
start_emu cm5-emu --bootloader
head -c 1500 /dev/urandom >"$work/fw.bin"
check "cm5ctl flash: banner, load, verify" sh -c \
	'cm5ctl -d '"$work/tty"' --step-ms '$((400 * ${NBVM_TIME_SCALE:-1}))' flash '"$work/fw.bin"' 2>'"$work/flash.err"' | grep -q "flashed and verified 1500 bytes" && grep -q "verifying" '"$work/flash.err"
stop_emu

# ---- PAROL6 -------------------------------------------------------------
check "parolctl --help answers" sh -c 'parolctl --help | grep -q "^Usage: parolctl"'
check "parolctl --dry-run: jog frames in hex, then Idle at zero speed" sh -c \
	'parolctl --dry-run --for 0.05 jog 2 5 >'"$work/dry"' && [ $(wc -l <'"$work/dry"') -ge 5 ] &&
	 head -n 1 '"$work/dry"' | awk "{ exit !(NF == 56 && \$1 == \"ff\" && \$4 == \"34\" && \$41 == \"7b\" && \$55 == \"01\" && \$56 == \"02\") }" &&
	 tail -n 1 '"$work/dry"' | awk "{ for (i = 23; i <= 40; i++) if (\$i != \"00\") exit 1; exit !(\$41 == \"ff\") }"'
start_emu parol6-emu -o "$work/p6.log" -H 20
check "parolctl status: joints and E-stop" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 status >'"$work/s"' && grep -q "^estop: released" '"$work/s"' && grep -q "^J6 .* 180.000" '"$work/s"
check "parolctl enable" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 enable && grep -q "cmd=101" '"$work/p6.log"
check "parolctl home: every joint homed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 home && [ $(parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 status | grep -c "^J[1-6] .* yes ") = 6 ]'
before=$(p6 status 2>/dev/null | awk '/^J1 /{print $2}')
check "parolctl jog: J1 moves about 5 deg in 0.5 s at 10 deg/s" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --for 0.5 jog 1 10 &&
	 after=$(parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 status | awk "/^J1 /{print \$2}") &&
	 awk -v a="$after" -v b='"${before:-0}"' "BEGIN { d = a - b; exit !(d > 3 && d < 8) }"'
check "parolctl jog ends with Idle at zero speed" sh -c \
	'sh '"$work/idle_last"' '"$work/p6.log"''
check "parolctl move reaches its target" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --speed 40 move 70 -80 170 10 -10 100 &&
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 status >'"$work/s"' &&
	 awk "/^J1 /{ok1 = \$2 > 69.9 && \$2 < 70.1} /^J6 /{ok6 = \$2 > 99.9 && \$2 < 100.1} END { exit !(ok1 && ok6) }" '"$work/s"
lines=$(wc -l <"$work/p6.log")
check "parolctl refuses a move outside the limits, sends nothing" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 move 0 0 180 0 0 180 2>&1 | grep -q "outside" &&
	 [ $(wc -l <'"$work/p6.log"') = '"$lines"' ]'
check "parolctl: Ctrl-C during a jog leaves Idle at zero speed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --for 30 jog 1 5 2>/dev/null & pid=$!; sleep 0.5; kill -INT $pid; wait $pid;
	 sh '"$work/idle_last"' '"$work/p6.log"''
check "parolctl: SIGTERM during a jog leaves Idle at zero speed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --for 30 jog 4 -5 2>/dev/null & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid;
	 sh '"$work/idle_last"' '"$work/p6.log"''
n=$(wc -l <"$work/p6.log")
start_emu parol6-emu -o "$work/p6.log" --mute-after 30
check "parolctl: a lost link ends the jog with Idle at zero speed, exit 3" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --for 10 jog 1 5 2>'"$work/err"'; rc=$?;
	 [ $rc = 3 ] && grep -q "link lost" '"$work/err"' && [ $(wc -l <'"$work/p6.log"') -lt 300 ] &&
	 sh '"$work/idle_last"' '"$work/p6.log"''
start_emu parol6-emu -o "$work/p6.log" --estop-after 1
check "parolctl status shows the E-stop pressed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 status | grep -q "^estop: PRESSED"'
check "parolctl enable is refused while the E-stop is pressed (exit 4)" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 enable 2>'"$work/err"'; [ $? = 4 ] && grep -q "E-stop" '"$work/err"
start_emu parol6-emu -o "$work/p6.log"
check "parolctl live shows telemetry until Ctrl-C, then Idle at zero speed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 live >'"$work/live"' 2>/dev/null & pid=$!; sleep 1.5; kill -INT $pid; wait $pid &&
	 grep -q "^estop: released" '"$work/live"' && sh '"$work/idle_last"' '"$work/p6.log"''
check "parolctl disable" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 disable && grep -q "cmd=102" '"$work/p6.log"
check "parol6-emu: the arm refuses to move when not enabled" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --for 0.3 jog 1 10 && parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 status | grep -q "^J1 .* 90.000 "'
stop_emu
: "$n"
tap_done
