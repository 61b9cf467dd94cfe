#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench, the serial links end to end (TAP; figures as # lines):
#  - CM-5: cm5ctl loop, 18 AX-12s, a write of their goals and a read of
#    their positions a cycle, against cm5-emu pacing bytes at 115.2 kbaud
#    and each servo's bus transaction; the rate as a ratio to what the
#    link's bytes alone allow, and to BRBrain's ~10 Hz for 18 servos.
#  - PAROL6: command-to-telemetry round trip at the 10 ms cycle, p50/p99;
#    parolctl move at 5 deg/s, the arm's median and 90th percentile speed
#    (e2e.sh checks the frames exactly; this is how the firmware's rule
#    turns their arrival jitter into speed).
# In the VM through the n_robot line discipline; on the host (not root, or
# no module) through the userspace framers. Gates on nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/../../build/bin/cm5ctl" ]; then
	bin=$(cd "$here/../../build/bin" && pwd)
	PATH=$bin:$PATH
fi
rtt=$(command -v n_robot_rtt_bench || echo "$here/n_robot_rtt_bench")
link=no
if [ "$(id -u)" = 0 ] && modprobe n_robot 2>/dev/null; then
	link=yes
fi
work=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$work"' EXIT
start() {
	"$@" -l "$work/tty" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 100); do [ -e "$work/tty" ] && return; sleep 0.05; done
}
echo "1..3"
echo "# link: $([ $link = yes ] && echo "n_robot line discipline" || echo "userspace framing")"

baud=115200 cycles=30 servos=18
# (BusyBox's seq, in the VM, has no -f)
start cm5-emu --pace $baud $(for i in $(seq $servos); do printf -- "-s %s " $i; done)
writes=$(for i in $(seq $servos); do printf "%s:goal_position=150 " $i; done)
reads=$(for i in $(seq $servos); do printf "%s:present_position " $i; done)
# shellcheck disable=SC2086
if cm5ctl -d "$work/tty" --ldisc=$link -n $cycles loop $writes $reads >"$work/loop" 2>"$work/err"; then
	hz=$(sed -n 's/.* cycles in [0-9.]* s, \([0-9.]*\) Hz$/\1/p' "$work/err")
	# bytes a cycle, strictly in turn: WRITE_DATA (1 + 2n + 1) and its
	# STATUS (7), READ_DATA (2) and its DATA (1 + 2n + 6)
	bytes=$((1 + 2 * servos + 1 + 7 + 2 + 1 + 2 * servos + 6))
	awk -v hz="$hz" -v b="$bytes" -v baud=$baud -v n=$servos 'BEGIN {
		lim = baud / 10 / b
		printf "# cm5 loop, %d servos at %d baud: %.1f Hz; the bytes alone allow %.1f Hz (%d bytes a cycle): %.2f of it; %.1fx BRBrain'"'"'s 10 Hz\n", n, baud, hz, lim, b, hz / lim, hz / 10 }'
	echo "ok 1 cm5 loop rate"
else
	echo "not ok 1 cm5 loop rate"
	sed 's/^/#   /' "$work/err"
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null; pid=; rm -f "$work/tty"

start parol6-emu
if "$rtt" "$work/tty" 500 $link >"$work/rtt"; then
	cat "$work/rtt"
	echo "ok 2 parol6 round trip"
else
	echo "not ok 2 parol6 round trip"
fi
kill $pid 2>/dev/null; wait $pid 2>/dev/null; pid=; rm -f "$work/tty"

start parol6-emu -t "$work/p6.tel" -H 20
if parolctl -d "$work/tty" --ldisc=$link -l 1000 enable >/dev/null &&
	parolctl -d "$work/tty" --ldisc=$link -l 1000 home >/dev/null &&
	from=$(($(wc -l <"$work/p6.tel") + 1)) &&
	parolctl -d "$work/tty" --ldisc=$link -l 1000 -T 20 --speed 5 --accel 20 \
		move 85 -90 180 0 0 180 >/dev/null; then
	set -- $(awk -v from="$from" -f "$here/speed_dps.awk" "$work/p6.tel")
	echo "# parol6 move at 5 deg/s: the arm's median $2 deg/s, p90 $3, peak $1"
	echo "ok 3 parol6 move speed"
else
	echo "not ok 3 parol6 move speed"
fi
