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
# parolctl keeps what the board keeps (outputs, gripper) per port between
# runs: here, and forgotten whenever an emulator (a board) starts.
export PAROLCTL_STATE_DIR=$work/parolctl-state
emu_pid=
cleanup() {
	[ -n "$emu_pid" ] && kill "$emu_pid" 2>/dev/null && wait "$emu_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# start_emu NAME ARGS...: run an emulator on $work/tty, wait for the link.
start_emu() {
	stop_emu
	rm -rf "$PAROLCTL_STATE_DIR"
	"$@" -l "$work/tty" >"$work/emu.out" 2>"$work/emu.err" &
	emu_pid=$!
	for _ in $(seq $((100 * ${NBVM_TIME_SCALE:-1}))); do
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
# A slow VM can stall for a few hundred ms, the debug kernel's under a loaded
# host for over a second: 1 s without telemetry (times NBVM_TIME_SCALE) is a
# lost link. (The lost-link check keeps 1 s: it counts the frames meanwhile.)
lt=$((1000 * ${NBVM_TIME_SCALE:-1}))
p6() { parolctl -d "$work/tty" --ldisc="$link" -l "$lt" "$@"; }

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

# The emulator logs what it read; wait for it to read the last frame (30 s
# at most, scaled: a loaded VM can take seconds; only a wrong last frame
# waits that long).
cat >"$work/idle_last" <<'EOS'
end=$(($(cut -d. -f1 /proc/uptime) + 30 * ${NBVM_TIME_SCALE:-1}))
until tail -n 1 "$1" | grep -q "cmd=255 speeds=0,0,0,0,0,0$"; do
	[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || { echo "last command: $(tail -n 1 "$1")"; exit 1; }
	sleep 0.05
done
EOS
chmod +x "$work/idle_last"

# wait_for FILE PATTERN [FROM]: until FILE has a line matching PATTERN (from
# line FROM on), 30 s at most (scaled): a signal goes to a tool once it is
# doing what the test interrupts, not after a guess at how long it takes.
cat >"$work/wait_for" <<'EOS'
end=$(($(cut -d. -f1 /proc/uptime) + 30 * ${NBVM_TIME_SCALE:-1}))
until tail -n +"${3:-1}" "$1" 2>/dev/null | grep -q "$2"; do
	[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || { echo "no '$2' in $1 after 30 s"; exit 1; }
	sleep 0.05
done
EOS
# press FILE PID TEXT N: when FILE (cm5ctl's progress) shows TEXT N times,
# SIGUSR1 to the emulator: START or MODE pressed, as a person does when
# cm5ctl asks (cm5-emu --button-on-signal).
cat >"$work/press" <<'EOS'
end=$(($(cut -d. -f1 /proc/uptime) + 60 * ${NBVM_TIME_SCALE:-1}))
until [ "$(grep -o "$3" "$1" 2>/dev/null | wc -l)" -ge "$4" ]; do
	[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || { echo "cm5ctl never asked '$3' ($4)"; exit 1; }
	sleep 0.05
done
kill -USR1 "$2"
EOS
# wait_catch PID SIGNUM: until process PID catches the signal (SigCgt), 30
# s at most (scaled). A job a non-interactive shell starts with & ignores
# SIGINT until it sets a handler of its own: sent before, it is lost.
cat >"$work/wait_catch" <<'EOS'
end=$(($(cut -d. -f1 /proc/uptime) + 30 * ${NBVM_TIME_SCALE:-1}))
until m=$(sed -n 's/^SigCgt:[[:space:]]*//p' /proc/"$1"/status 2>/dev/null) && [ -n "$m" ] &&
	[ $(((0x$m >> ($2 - 1)) & 1)) = 1 ]; do
	case $(sed -n 's/^State:[[:space:]]*//p' /proc/"$1"/status 2>/dev/null) in
	"" | Z*) echo "process $1 ended before it caught signal $2"; exit 1 ;;
	esac
	[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || { echo "process $1 never caught signal $2"; exit 1; }
	sleep 0.05
done
EOS
# wait_count FILE FROM PATTERN N: until N lines from FROM on match PATTERN
# (30 s at most, scaled): a count of frames, not a guess at their time.
cat >"$work/wait_count" <<'EOS'
end=$(($(cut -d. -f1 /proc/uptime) + 30 * ${NBVM_TIME_SCALE:-1}))
until [ "$(tail -n +"$2" "$1" 2>/dev/null | grep -c "$3")" -ge "$4" ]; do
	[ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ] || { echo "fewer than $4 '$3' in $1 after 30 s"; exit 1; }
	sleep 0.05
done
EOS

tap_plan 55
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
check "cm5ctl read: a servo that did not answer shows as missing, not as 0xFF bytes" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' read 1:present_position 3:present_position >'"$work/r"' 2>&1;
	 grep -q "^3 present_position missing$" '"$work/r"' && grep -q "^1 present_position [0-9.]* deg$" '"$work/r"' &&
	 ! grep -q "19218" '"$work/r"
# The firmware streams DATA servo by servo, 100 ms for each silent one: 12
# of them take 1.2 s, longer than the 1 s timeout, which BRBrain applies to
# each byte, not to the whole reply.
check "cm5ctl read of 12 silent servos takes 1.2 s and arrives (a 1 s timeout per byte, as BRBrain)" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' -t 1000 read 1:present_position $(for i in $(seq 6 17); do printf "%s:present_position " $i; done) >'"$work/r"' 2>&1;
	 grep -q "^17 present_position missing$" '"$work/r"' && [ $(grep -c " missing$" '"$work/r"') = 12 ]'
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
check "cm5ctl servos: which answer, and a summary" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' servos 0-6 >'"$work/r"' &&
	 [ "$(grep -c " ok$" '"$work/r"')" = 3 ] && grep -q "^3 answered cleanly, 0 not cleanly, 4 silent (ids 0-6)$" '"$work/r"
check "cm5ctl loop: formats once, then 5 cycles of write and read, with the rate" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' -n 5 loop 1:goal_position=120 1:present_position 2:present_position >'"$work/r"' 2>'"$work/err"' &&
	 [ $(wc -l <'"$work/r"') = 5 ] && grep -q "^5 [0-9.]* s [0-9.]* Hz 1:present_position=119.94 2:present_position=" '"$work/r"' &&
	 grep -q "5 cycles in" '"$work/err"
if command -v script >/dev/null; then
	check "cm5ctl loop on a terminal: one status line, redrawn a few times a second" sh -c \
		'script -qec "cm5ctl -d '"$work/tty"' --ldisc='"$link"' -n 300 loop 1:present_position" /dev/null >'"$work/r"' &&
		 n=$(tr "\r" "\n" <'"$work/r"' | grep -c "\[K[0-9]* [0-9.]* s ") && echo "$n lines for 300 cycles" &&
		 [ "$n" -ge 1 ] && [ "$n" -lt 150 ] && tr "\r" "\n" <'"$work/r"' | grep -q "\[K300 [0-9.]* s "'
	check "cm5ctl loop -v on a terminal: a line per cycle" sh -c \
		'script -qec "cm5ctl -d '"$work/tty"' --ldisc='"$link"' -v -n 30 loop 1:present_position" /dev/null >'"$work/r"' &&
		 [ $(grep -c "^[0-9]* [0-9.]* s " '"$work/r"') = 30 ]'
else
	skip "cm5ctl loop on a terminal: one status line, redrawn a few times a second" "needs script(1), for a terminal"
	skip "cm5ctl loop -v on a terminal: a line per cycle" "needs script(1), for a terminal"
fi
check "cm5ctl read takes a 0-register entry, as BRBrain" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' --raw read 1:present_position:0 2:goal_position >'"$work/r"' &&
	 [ $(wc -l <'"$work/r"') = 1 ] && grep -q "^2 goal_position [0-9]*$" '"$work/r"
printf '# a pose\n1 150\n2 160\n' >"$work/pose2"
check "cm5ctl pose save, then play: goal and a moving speed that makes both servos arrive together" sh -c \
	'c="cm5ctl -d '"$work/tty"' --ldisc='"$link"'"; $c write 1:goal_position=100 2:goal_position=200 >/dev/null &&
	 $c pose save '"$work/pose1"' 1 2 >/dev/null && grep -q "^2 200.000$" '"$work/pose1"' &&
	 $c pose play '"$work/pose2"'@0.5 >/dev/null &&
	 [ "$($c --raw read 1:goal_position:2 2:goal_position:2 | tr "\n" " ")" = "1 goal_position 512 1 moving_speed 150 2 goal_position 546 2 moving_speed 120 " ] &&
	 $c pose play '"$work/pose1"'@0.2 >/dev/null && $c read 2:present_position | grep -q "^2 present_position 200 deg$"'
if [ "$link" = yes ]; then
	check "cm5ctl attach keeps the counters across commands; stats shows them" sh -c \
		'c="cm5ctl -d '"$work/tty"' --ldisc=yes"; $c attach >'"$work/att"' & pid=$!;
		 sh '"$work/wait_for"' '"$work/att"' attached;
		 $c ping >/dev/null && $c ping >/dev/null && $c stats >'"$work/r"'; sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid;
		 grep -q "^counters: since the line discipline was attached$" '"$work/r"' &&
		 grep -q "^rx_frames \([2-9]\|[1-9][0-9]\+\)$" '"$work/r"
else
	skip "cm5ctl attach keeps the counters across commands; stats shows them" "needs the line discipline (VM)"
fi
check "cm5ctl: Ctrl-C during pose play says so and exits 130" sh -c \
	'cm5ctl -d '"$work/tty"' --ldisc='"$link"' pose play '"$work/pose2"'@30 >'"$work/play"' 2>'"$work/err"' & pid=$!;
	 sh '"$work/wait_for"' '"$work/play"' "servos, 30.00 s"; sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid; rc=$?;
	 echo "exit $rc"; [ $rc = 130 ] && grep -q "pose play: interrupted" '"$work/err"
start_emu cm5-emu -s 1 --drop-every 3 --flush-ms 100
check "libcm5 recovers from lost requests (500 ms, flush, retry)" sh -c \
	'for i in 1 2 3 4 5 6; do cm5ctl -d '"$work/tty"' --ldisc='"$link"' -t 300 ping 1 >/dev/null || exit 1; done'
start_emu cm5-emu --bootloader --button-on-signal
head -c 1500 /dev/urandom >"$work/fw.bin"
# cm5ctl's pause between stages must outlast the bootloader's end of an
# image, 300 ms without a byte (at 250 ms it always fails): 1500 ms, scaled
# in a slow VM, over a second of margin. START and MODE are pressed when
# cm5ctl asks for them, as a person does (the emulator on SIGUSR1), so no
# pause has to end before a button's timer.
check "cm5ctl flash: banner, load, verify" sh -c \
	'cm5ctl -d '"$work/tty"' --step-ms '$((1500 * ${NBVM_TIME_SCALE:-1}))' flash '"$work/fw.bin"' >'"$work/flash.out"' 2>'"$work/flash.err"' & c=$!;
	 sh '"$work/press"' '"$work/flash.err"' '"$emu_pid"' "press START" 1 &&
	 sh '"$work/press"' '"$work/flash.err"' '"$emu_pid"' "press MODE" 2; wait $c; rc=$?;
	 tr "\r" "\n" <'"$work/flash.err"' | tail -n 3; [ $rc = 0 ] &&
	 grep -q "flashed and verified 1500 bytes" '"$work/flash.out"' && grep -q "verifying" '"$work/flash.err"
stop_emu

# ---- PAROL6 -------------------------------------------------------------
check "parolctl --help answers" sh -c 'parolctl --help | grep -q "^Usage: parolctl"'
check "parolctl --dry-run: jog frames in hex, then Idle at zero speed" sh -c \
	'parolctl --dry-run --for 0.05 jog 2 5 >'"$work/dry"' && [ $(wc -l <'"$work/dry"') -ge 2 ] &&
	 head -n 1 '"$work/dry"' | awk "{ exit !(NF == 56 && \$1 == \"ff\" && \$4 == \"34\" && \$41 == \"7b\" && \$55 == \"01\" && \$56 == \"02\") }" &&
	 tail -n 1 '"$work/dry"' | awk "{ for (i = 23; i <= 40; i++) if (\$i != \"00\") exit 1; exit !(\$41 == \"ff\") }"'
start_emu parol6-emu -o "$work/p6.log" -t "$work/p6.tel" -H 20
# The refusals first, while the emulator's log is empty: a count taken after
# another run could still grow by that run's last frames.
check "parolctl refuses a move outside the limits, sends nothing" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' move 0 0 180 0 0 180 2>&1 | grep -q "outside" &&
	 [ $(wc -l <'"$work/p6.log"') = 0 ]'
check "parolctl status: joints and E-stop" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' status >'"$work/s"' && grep -q "^estop: released" '"$work/s"' && grep -q "^J6 .* 180.000" '"$work/s"
check "parolctl enable" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' enable && sh '"$work/wait_for"' '"$work/p6.log"' cmd=101'
# home sends Home for 3 frames, then Idle: the emulator's homing (20 frames)
# ends only if Idle continues it, as the seed says the firmware's does.
check "parolctl home: every joint homed, and it says so" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' home | grep -q "^home: homed in [0-9.]* s$" && [ $(parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' status | grep -c "^J[1-6] .* yes ") = 6 ]'
before=$(p6 status 2>/dev/null | awk '/^J1 /{print $2}')
# How far it went is the emulator's integration of the frames as they came:
# the jog's speed holds until the Idle frame arrives, so a stalled VM
# stretches it (the debug tier's once went 21 deg). The check is the
# direction, and the order of size against the time the jog can have run
# (from before parolctl to after the status that read the result: 10 deg/s
# of it, and a degree of slack), which a wrong unit or sign misses by far;
# the figures are printed.
check "parolctl jog: J1 moves forward, at 10 deg/s for 0.5 s" sh -c \
	'up() { cut -d" " -f1 /proc/uptime; };
	 t0=$(up) && parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' --for 0.5 jog 1 10 &&
	 after=$(parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' status | awk "/^J1 /{print \$2}") &&
	 t1=$(up) && echo "J1 from '"${before:-0}"' to $after deg in at most $t0..$t1 s of uptime" &&
	 awk -v a="$after" -v b='"${before:-0}"' -v s="$t1 - $t0" \
	     "BEGIN { split(s, t, \" - \"); d = a - b; exit !(d > 1 && d <= 10 * (t[1] - t[2]) + 1) }"'
check "parolctl jog ends with Idle at zero speed" sh -c \
	'sh '"$work/idle_last"' '"$work/p6.log"''
# J1's speeds while it moved: speed_dps.awk, beside this script.
# The firmware's go-to runs a joint at the average of the frame's speed and
# the speed that closes the error in one cycle, so a move must stream its
# profile: a final target in every frame runs at the stepper limit (440
# deg/s on J1). What parolctl commands is checked exactly: no frame asks
# for more than 5 deg/s. What the emulated arm does is the rule applied to
# frames as they arrive, and the rule turns arrival jitter into speed
# (v x jitter / 20 ms: a frame 5 ms early is 25% over), of which a TCG VM
# has tens of ms, more under load: the median and 90th percentile are
# printed (make bench measures them), and bounded only where a defect goes
# (a final target in every frame runs the arm at the stepper limit, 440
# deg/s; a unit slip by a factor of 2 or more).
from=$(($(wc -l <"$work/p6.tel") + 1))
cfrom=$(($(wc -l <"$work/p6.log") + 1))
check "parolctl move at 5 deg/s: no frame asks more, the arm runs near it (median, p90), ends within 2 steps" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -T 20 --speed 5 --accel 20 move 85 -90 180 0 0 180; rc=$?;
	 set -- $(awk -v from='"$from"' -f '"$here/speed_dps.awk"' '"$work/p6.tel"') && echo "arm: peak $1 deg/s, median $2, p90 $3; exit $rc" &&
	 asked=$(tail -n +'"$cfrom"' '"$work/p6.log"' | awk "/cmd=156/ { split(\$5, a, \"=\"); split(a[2], s, \",\"); v = s[1] < 0 ? -s[1] : s[1]; if (v > m) m = v } END { print m + 0 }") &&
	 echo "frames: at most $asked steps/s on J1 (5 deg/s is 569)" &&
	 [ "$asked" -le 570 ] && [ "$asked" -gt 500 ] &&
	 awk -v m="$2" -v p="$3" "BEGIN { exit !(m > 2.5 && m < 10 && p < 20) }" && [ $rc = 0 ] &&
	 tail -n 1 '"$work/p6.tel"' | awk "{ split(\$2, a, \"=\"); split(a[2], q, \",\"); d = q[1] - 9671; exit !(d <= 2 && -d <= 2) }"'
check "parolctl move reaches its target" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' --speed 40 move 70 -80 170 10 -10 100 &&
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' status >'"$work/s"' &&
	 awk "/^J1 /{ok1 = \$2 > 69.9 && \$2 < 70.1} /^J6 /{ok6 = \$2 > 99.9 && \$2 < 100.1} END { exit !(ok1 && ok6) }" '"$work/s"
check "parolctl: Ctrl-C during a jog leaves Idle at zero speed" sh -c \
	'from=$(($(wc -l <'"$work/p6.log"') + 1));
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' --for 30 jog 1 5 2>/dev/null & pid=$!;
	 sh '"$work/wait_for"' '"$work/p6.log"' cmd=123 $from; sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid;
	 sh '"$work/idle_last"' '"$work/p6.log"''
check "parolctl: SIGTERM during a jog leaves Idle at zero speed" sh -c \
	'from=$(($(wc -l <'"$work/p6.log"') + 1));
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' --for 30 jog 4 -5 2>/dev/null & pid=$!;
	 sh '"$work/wait_for"' '"$work/p6.log"' cmd=123 $from; sh '"$work/wait_catch"' $pid 15; kill -TERM $pid; wait $pid;
	 sh '"$work/idle_last"' '"$work/p6.log"''
n=$(wc -l <"$work/p6.log")
start_emu parol6-emu -o "$work/p6.log" --mute-after 30
check "parolctl: a lost link ends the jog with Idle at zero speed, exit 3" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l 1000 --for 10 jog 1 5 2>'"$work/err"'; rc=$?;
	 [ $rc = 3 ] && grep -q "link lost" '"$work/err"' && [ $(wc -l <'"$work/p6.log"') -lt 300 ] &&
	 sh '"$work/idle_last"' '"$work/p6.log"''
start_emu parol6-emu -o "$work/p6.log" --estop-after 1
check "parolctl status shows the E-stop pressed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' status | grep -q "^estop: PRESSED"'
check "parolctl enable is refused while the E-stop is pressed (exit 4)" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' enable 2>'"$work/err"'; [ $? = 4 ] && grep -q "E-stop" '"$work/err"
start_emu parol6-emu -o "$work/p6.log"
check "parolctl live shows telemetry until Ctrl-C, then Idle at zero speed" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' live >'"$work/live"' 2>/dev/null & pid=$!;
	 sh '"$work/wait_for"' '"$work/live"' "^estop: "; sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid &&
	 grep -q "^estop: released" '"$work/live"' && sh '"$work/idle_last"' '"$work/p6.log"''
check "parolctl disable" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' disable && sh '"$work/wait_for"' '"$work/p6.log"' cmd=102 '"$(($(wc -l <"$work/p6.log") + 1))"
check "parol6-emu: the arm refuses to move when not enabled" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' --for 0.3 jog 1 10 && parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' status | grep -q "^J1 .* 90.000 "'
# The gripper behind the board, and programs.
start_emu parol6-emu -o "$work/p6.log" -t "$work/p6.tel" -g 180
printf 'move 80 -90 180 0 0 180\nmove 999 0 0 0 0 0\n' >"$work/bad"
check "parolctl run: a bad line refuses the whole program; nothing is sent" sh -c \
	'parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' run '"$work/bad"' 2>&1 | grep -q "bad:2: refused; nothing was sent" &&
	 [ $(wc -l <'"$work/p6.log"') = 0 ]'
check "parolctl gripper: activate, calibrate, move to a position, then close on an object" sh -c \
	'p6="parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -T 10"; $p6 enable &&
	 $p6 gripper activate && $p6 gripper calibrate &&
	 $p6 gripper move 100 | grep -q "^gripper: at position, position 100," &&
	 $p6 gripper move 250 200 | grep -q "^gripper: object detected while closing, position 180, 500 mA$"'
cat >"$work/prog" <<'EOP'
# J1 out and back, an output and the gripper between
gripper activate
gripper calibrate
move 80 -90 180 0 0 180
wait 0.2
out 2 on
gripper move 50
move 90 -90 180 0 0 180
EOP
check "parolctl run: a program's moves, wait, output and gripper, in order" sh -c \
	'from=$(($(wc -l <'"$work/p6.tel"') + 1));
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -T 20 --speed 20 run '"$work/prog"' >'"$work/out"' 2>&1;
	 cat '"$work/out"'; tail -n 1 '"$work/p6.tel"';
	 grep -q "^ran 7 steps" '"$work/out"' &&
	 tail -n +$from '"$work/p6.tel"' | grep -q "out=0,1" &&
	 tail -n 1 '"$work/p6.tel"' | grep -q " gpos=50 out=0,1$" &&
	 tail -n 1 '"$work/p6.tel"' | awk "{ split(\$2, a, \"=\"); split(a[2], q, \",\"); d = q[1] - 10240; exit !(d <= 2 && -d <= 2) }"'

# What the board keeps from frame to frame (the firmware sets the outputs
# from every frame and moves the gripper when its fields change) is carried
# on by every frame, in one run and the next: parolctl keeps it per port.
start_emu parol6-emu -o "$work/p6.log" -g 180
check "parolctl keeps the outputs: status after out 1 on, and out 1 off, leave the others" sh -c \
	'p6="parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"'"; $p6 out 1 on && $p6 status >/dev/null &&
	 tail -n 1 '"$work/p6.log"' | grep -q " out=1,0 " &&
	 $p6 out 2 on && $p6 out 1 off && tail -n 1 '"$work/p6.log"' | grep -q " out=0,1 " &&
	 ! tail -n +2 '"$work/p6.log"' | grep -q " out=0,0 "'
check "parolctl gripper calibrate: one frame asks (mode 1), with the activate bit" sh -c \
	'from=$(($(wc -l <'"$work/p6.log"') + 1)); parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -T 10 gripper calibrate &&
	 tail -n +$from '"$work/p6.log"' | awk "{ split(\$2, g, \"=\"); split(g[2], f, \",\"); if (f[5] == 1) { n++; if (f[1] < 128) bad = 1 } }
	 END { print n \" calibrate frame(s)\"; exit !(n == 1 && !bad) }"'
check "parolctl gripper move: the frames after it keep the command 0xC0 and the setpoints, in this run and the next" sh -c \
	'p6="parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -T 10"; $p6 gripper move 100 120 600 >/dev/null &&
	 tail -n 1 '"$work/p6.log"' | grep -q " grip=192,100,120,600,0 .* cmd=255 " &&
	 from=$(($(wc -l <'"$work/p6.log"') + 1)) && $p6 status >/dev/null &&
	 [ $(tail -n +$from '"$work/p6.log"' | grep -vc "grip=192,100,120,600,0 ") = 0 ]'
start_emu parol6-emu -o "$work/p6.log" -H 100
if command -v script >/dev/null; then
	check "parolctl home shows its progress on a terminal" sh -c \
		'script -qec "parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' home" /dev/null >'"$work/out"' &&
		 grep -q "home: [0-9.]* s, homed: none yet" '"$work/out"' && grep -q "home: homed in" '"$work/out"
	check "parolctl move shows its progress on a terminal" sh -c \
		'script -qec "parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -s 20 move 70 -90 180 0 0 180" /dev/null >'"$work/out"' &&
		 grep -q "move: [0-9.]* of [0-9.]* s, [0-9]*% of 20.0 deg" '"$work/out"' && grep -q "move: there in" '"$work/out"
else
	skip "parolctl home shows its progress on a terminal" "needs script(1), for a terminal"
	skip "parolctl move shows its progress on a terminal" "needs script(1), for a terminal"
fi
check "parolctl: Ctrl-C during a move exits 130, after Idle at zero speed" sh -c \
	'from=$(($(wc -l <'"$work/p6.log"') + 1));
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' -s 5 move 40 -90 180 0 0 180 >/dev/null 2>&1 & pid=$!;
	 sh '"$work/wait_for"' '"$work/p6.log"' cmd=156 $from; sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid; rc=$?;
	 echo "exit $rc"; [ $rc = 130 ] && sh '"$work/idle_last"' '"$work/p6.log"''
check "parolctl: SIGTERM during a jog exits 143" sh -c \
	'from=$(($(wc -l <'"$work/p6.log"') + 1));
	 parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"' --for 30 jog 1 5 >/dev/null 2>&1 & pid=$!;
	 sh '"$work/wait_for"' '"$work/p6.log"' cmd=123 $from; sh '"$work/wait_catch"' $pid 15; kill -TERM $pid; wait $pid; rc=$?;
	 echo "exit $rc"; [ $rc = 143 ]'

# Idle continues a homing: Ctrl-C must send Disable and Clear error first.
# The homing counts no frame until the emulator's SIGUSR1 (--home-hold), so
# the Ctrl-C surely comes during it; then 330 Idle frames, more than its
# 300, would have finished it.
start_emu parol6-emu -o "$work/p6.log" -H 300 --home-hold
check "parolctl: Ctrl-C during home ends the homing (102, 103, then Idle)" sh -c \
	'p6="parolctl -d '"$work/tty"' --ldisc='"$link"' -l '"$lt"'"; $p6 enable &&
	 from=$(($(wc -l <'"$work/p6.log"') + 1)) &&
	 { $p6 home 2>'"$work/err"' & pid=$!; sh '"$work/wait_for"' '"$work/p6.log"' cmd=100 $from;
	   sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid; rc=$?; echo "home: exit $rc"; cat '"$work/err"';
	   [ $rc = 130 ]; } &&
	 grep -q "ended the homing" '"$work/err"' &&
	 sh '"$work/wait_for"' '"$work/p6.log"' cmd=102 $from && sh '"$work/wait_for"' '"$work/p6.log"' cmd=103 $from &&
	 kill -USR1 '"$emu_pid"' &&
	 from=$(($(wc -l <'"$work/p6.log"') + 1)) &&
	 { $p6 live >/dev/null 2>&1 & pid=$!; sh '"$work/wait_count"' '"$work/p6.log"' $from cmd=255 330;
	   sh '"$work/wait_catch"' $pid 2; kill -INT $pid; wait $pid; } &&
	 homed=$($p6 status | grep -c "^J[1-6] .* yes "; true) && echo "joints homed after the Idle frames: $homed" &&
	 [ $homed = 0 ] && sh '"$work/idle_last"' '"$work/p6.log"''
stop_emu

# ---- parolctl attach ---------------------------------------------------------
# It holds the discipline for other runs (a second attach finds it attached),
# sends the arm nothing, and ends when the port hangs up (the emulator goes).
if [ "$link" = yes ]; then
	start_emu parol6-emu -o "$work/p6.log"
	parolctl -d "$work/tty" attach >"$work/att" 2>"$work/att.err" &
	att=$!
	sh "$work/wait_for" "$work/att" attached
	sleep 0.5	# what it would send meanwhile, none of which must come
	check "parolctl attach holds the discipline: the arm gets no frame, another run shares it" sh -c \
		'grep -qx "attached; Ctrl-C detaches" '"$work/att"' && ! grep -q "cmd=" '"$work/p6.log"' &&
		 { parolctl -d '"$work/tty"' attach >'"$work/att2"' & p=$!; sh '"$work/wait_for"' '"$work/att2"' attached;
		   sh '"$work/wait_catch"' $p 2; kill -INT $p; wait $p; } &&
		 [ "$(cat '"$work/att2"')" = "attached (already, by someone else); Ctrl-C detaches" ] &&
		 parolctl -d '"$work/tty"' -l '"$lt"' status >/dev/null && kill -0 '"$att"
	stop_emu
	wait "$att"
	rc=$?
	check "parolctl attach ends when the port hangs up (exit 3)" sh -c \
		'[ '"$rc"' = 3 ] && grep -q "the port hung up" '"$work/att.err"
else
	skip "parolctl attach holds the discipline: the arm gets no frame, another run shares it" "needs the line discipline (VM)"
	skip "parolctl attach ends when the port hangs up (exit 3)" "needs the line discipline (VM)"
fi

# ---- the line discipline's number -----------------------------------------
# The tools take it from the module's parameter.
if [ "$link" = yes ] && modprobe -r n_robot 2>/dev/null && modprobe n_robot ldisc=25; then
	start_emu cm5-emu -s 1
	check "with n_robot loaded as ldisc=25 the tools attach it there" sh -c \
		'[ "$(cat /sys/module/n_robot/parameters/ldisc)" = 25 ] && cm5ctl -d '"$work/tty"' --ldisc=yes ping 1 >/dev/null &&
		 cm5ctl -d '"$work/tty"' --ldisc=yes stats | grep -q "^link: n_robot line discipline$"'
	stop_emu
	modprobe -r n_robot && modprobe n_robot
else
	skip "with n_robot loaded as ldisc=25 the tools attach it there" "needs root and the module (VM)"
fi
: "$n"
tap_done
